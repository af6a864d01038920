#!/usr/bin/env bats
# Faults: a wrapper killed in the middle of a store write, a full
# disk, a read-only store directory, a child that writes 1 GiB without a
# newline, one that closes its stdout early, one that ignores SIGTERM.
# Tests that need root powers (mount, ptrace) skip with the reason when the
# machine does not give them.  The long stress (64 wrappers for a minute) is
# bench/stress.sh.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	MOUNTS=()
}

teardown() {
	local m
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || true
	done
	[ -z "${RO_DIR:-}" ] || rm -rf "$RO_DIR"
}

# try_mount DIR ARGS...: mount, remembering DIR for teardown; skip the test
# when mounting is not permitted here.
try_mount() {
	local dir=$1
	shift
	mkdir -p "$dir"
	mount "$@" "$dir" 2> "$BATS_TEST_TMPDIR/mount.err" ||
		skip "mount not permitted ($(head -1 "$BATS_TEST_TMPDIR/mount.err")): needs root or CAP_SYS_ADMIN"
	MOUNTS=("$dir" "${MOUNTS[@]}")
}

# limit_stream FILE RESETS_AT: a Claude run cut off on a usage limit.
limit_stream() {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$2,\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > "$1"
}

# history_args: the third argv word (the task label) of every recorded run.
history_args() {
	timeout 20 "$RLWRAP" history --json | jq -r '.[].argv[2] // empty' | sort
}

integrity() {
	run timeout 20 sqlite3 "$RLWRAP_DB" 'PRAGMA integrity_check'
	assert_success
	assert_output ok
}

# fail_open_check [PREFIX...]: the child's stdout bytes, stderr and exit
# status are intact; rlwrap adds at most one line ($MAX_WARN, default 1) to
# stderr, and that line is about the state file.
fail_open_check() {
	run --separate-stderr "$@" timeout 20 "$RLWRAP" -- sh -c 'printf "out\nput"; echo err >&2; exit 3' \
		"$(printf '%3000s' arg)"
	assert_failure 3
	assert_equal "$output" "$(printf 'out\nput')"
	local warn
	warn=$(printf '%s\n' "$stderr" | grep -v '^err$' || true)
	[[ $stderr == *err* ]] || fail "child's stderr lost: $stderr"
	if [ -n "$warn" ]; then
		[ "$(printf '%s\n' "$warn" | wc -l)" -le "${MAX_WARN:-1}" ] || fail "more than one warning: $warn"
		[[ $warn == "rlwrap: state file: "* ]] || fail "unexpected stderr: $warn"
	fi
	WARN=$warn
}

# ---- SIGKILL in the middle of a store write ----

@test "SIGKILL at each write and each sync of a run record: the store opens, only that run can be lost [slow]" {
	command -v strace > /dev/null || skip "strace is not installed"
	strace -o /dev/null true 2> /dev/null || skip "ptrace is not permitted here"
	export RLWRAP_TEST_NOW=$NOW
	local i n rc call recorded=() latest=0 got k=0 reset killed=0 finished
	for i in $(seq 1 5); do
		FAKE_STREAM=/dev/null timeout 20 "$RLWRAP" -q -- claude -p "pre-$i" > /dev/null
	done
	# Each wrapped run trips the breaker to a later reset.  strace kills
	# the wrapper on entry to its n-th pwrite64 (the WAL frames, the commit
	# frame, the checkpoint) or n-th fdatasync, for every n until a run
	# gets through untouched.
	for call in pwrite64 fdatasync; do
		for n in $(seq 1 80); do
			k=$((k + 1))
			reset=$((T0 + 3600 + k * 60))
			limit_stream limit "$reset"
			rc=0
			# LeakSanitizer cannot run under ptrace: off for this run
			# only (a no-op without sanitizers).
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			FAKE_STREAM=limit timeout 20 strace -o /dev/null -e "inject=$call:signal=KILL:when=$n" \
				"$RLWRAP" -q --force -- claude -p "$call-$n" > /dev/null 2> err || rc=$?
			got=$(timeout 20 "$RLWRAP" history --json) || fail "history after $call #$n: $got"
			if echo "$got" | jq -e --arg a "$call-$n" 'any(.[]; .argv[2] == $a and .state == "finished")' > /dev/null; then
				recorded+=("$call-$n")
				latest=$reset
			elif [ "$rc" -eq 0 ]; then
				fail "$call-$n exited normally but is not in the history"
			elif echo "$got" | jq -e --arg a "$call-$n" 'any(.[]; .argv[2] == $a and .state != "lost")' > /dev/null; then
				fail "$call-$n was killed but its run is not lost: $got"
			fi
			# The breaker agrees with the history: it holds the reset of
			# the last recorded trip, never a half-written one.
			if [ "$latest" -ne 0 ]; then
				assert_equal "$(timeout 20 "$RLWRAP" status --all --json | jq -r '.breakers[0].resets_at')" \
					"$(date -u -d "@$latest" +%FT%TZ)"
			else
				assert_equal "$(timeout 20 "$RLWRAP" status --all --json | jq '.breakers | length')" 0
			fi
			integrity
			[ "$rc" -eq 0 ] && break
			assert_equal "$rc" 137
			killed=$((killed + 1))
		done
		[ "$rc" -eq 0 ] || fail "strace never let a $call run through"
		[ "$n" -gt 1 ] || fail "no $call happened at all"
		echo "# killed at each of $((n - 1)) ${call} calls" >&3
	done
	# Nothing recorded before is lost; the next wrapper works without a word.
	run history_args
	for i in $(seq 1 5); do assert_line "pre-$i"; done
	# The killed ones that got their running row written show as lost: a
	# wrapper killed before its final write journals nothing (docs/design.md
	# section 7); one whose write was in is counted above as recorded; a
	# later wrapper settling a journaled outcome (none here) adds at most
	# every killed run.
	finished=$(timeout 20 "$RLWRAP" history --json | jq '[.[] | select(.state == "finished")] | length')
	[ "$finished" -ge $((5 + ${#recorded[@]})) ] && [ "$finished" -le $((5 + ${#recorded[@]} + killed)) ] ||
		fail "$finished finished runs: want $((5 + ${#recorded[@]})) to $((5 + ${#recorded[@]} + killed))"
	assert_equal "$(timeout 20 "$RLWRAP" history --json | jq '[.[] | select(.state == "running")] | length')" 0
	run --separate-stderr timeout 20 "$RLWRAP" --force -- true after
	assert_success
	assert_equal "$stderr" ""
}

@test "SIGKILL at random moments while others record: every run that exited normally is kept [slow]" {
	local i
	for i in $(seq 1 20); do timeout 20 "$RLWRAP" -q -- true x "pre-$i"; done
	# The killer goes on for 3 s and until 20 wrappers died of its SIGKILL
	# (a loaded machine or a sanitizer build starts fewer a second), 120 s
	# at most; the workers record until it is done.
	local end=$(($(date +%s) + 3)) give_up=$(($(date +%s) + 120))
	worker() {   # worker NAME: records runs until the killer is done, listing those that exited 0
		local i=0
		while [ ! -e killer.done ]; do
			i=$((i + 1))
			if timeout 20 "$RLWRAP" -q -- true x "$1-$i" 2>> "err.$1"; then
				echo "$1-$i" >> ok.list
			fi
		done
	}
	killer() {   # starts wrappers and SIGKILLs each 0..9 ms later, counting those it killed
		local i=0 pid rc kills=0 now
		while now=$(date +%s); [ "$now" -lt "$end" ] || { [ "$kills" -lt 20 ] && [ "$now" -lt "$give_up" ]; }; do
			i=$((i + 1))
			"$RLWRAP" -q -- true x "killed-$i" 2> /dev/null &
			pid=$!
			sleep "0.00$((RANDOM % 10))"
			kill -KILL "$pid" 2> /dev/null || true
			rc=0
			wait "$pid" 2> /dev/null || rc=$?
			if [ "$rc" -eq 0 ]; then
				echo "killed-$i" >> ok.list   # it finished first
			elif [ "$rc" -eq 137 ]; then
				kills=$((kills + 1))
			fi
			echo "$kills" > kills
		done
		touch killer.done
	}
	worker a & worker b & killer &
	wait
	[ "$(cat kills)" -ge 20 ] || fail "only $(cat kills) wrappers were killed in $(($(date +%s) - end + 3)) s"
	run cat err.a err.b
	assert_output ""
	run timeout 20 "$RLWRAP" status
	assert_success
	integrity
	history_args > got
	for i in $(seq 1 20); do echo "pre-$i"; done >> ok.list
	run bash -c 'sort ok.list | comm -23 - got'
	assert_output ""
	# And the next wrapper opens the store with nothing to say.
	run --separate-stderr timeout 20 "$RLWRAP" -- true x after
	assert_success
	assert_equal "$stderr" ""
}

# ---- full disk ----

@test "a full disk: the wrapper fails open with one warning, the child's bytes and status intact [slow]" {
	try_mount "$BATS_TEST_TMPDIR/full" -t tmpfs -o size=512k tmpfs
	export RLWRAP_DB="$BATS_TEST_TMPDIR/full/state.db"
	local i free avail warned=()
	for i in $(seq 1 10); do timeout 20 "$RLWRAP" -q -- true x "pre-$i"; done
	# Leave 0, 4, ... 64 KiB free: the store fails at opening, at the gate,
	# at the run record or not at all, depending on what still fits.
	for free in 0 4 8 12 16 20 24 28 32 40 48 64; do
		rm -f "$BATS_TEST_TMPDIR/full/fill"
		avail=$(df -k --output=avail "$BATS_TEST_TMPDIR/full" | tail -1)
		if [ "$avail" -gt "$free" ]; then
			dd if=/dev/zero of="$BATS_TEST_TMPDIR/full/fill" bs=1k count=$((avail - free)) 2> /dev/null
		fi
		fail_open_check
		[ -z "$WARN" ] || warned+=("$free")
		if [ "$free" -eq 0 ]; then
			assert_equal "$(df -k --output=avail "$BATS_TEST_TMPDIR/full" | tail -1 | tr -d ' ')" 0
			[ -n "$WARN" ] || fail "no warning on a full disk"
		fi
	done
	echo "# one warning with ${warned[*]} KiB free, none otherwise" >&3
	# Space again: nothing was lost, the store is sound and works quietly.
	rm -f "$BATS_TEST_TMPDIR/full/fill"
	integrity
	run history_args
	for i in $(seq 1 10); do assert_line "pre-$i"; done
	run --separate-stderr timeout 20 "$RLWRAP" -- true x after
	assert_success
	assert_equal "$stderr" ""
	run history_args
	assert_line after
}

# ---- read-only store directory ----

@test "a read-only store directory (permissions): a fresh path fails open" {
	# As root, permission bits do not stop writes: run as nobody, as
	# store.bats does, in a directory nobody owns but may not write.
	RO_DIR=$(mktemp -d /tmp/rlwrap-ro.XXXXXX)
	local as=()
	if [ "$(id -u)" -eq 0 ]; then
		chown 65534:65534 "$RO_DIR"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups -- env RLWRAP_CONFIG=/nonexistent/config)
	fi
	chmod 0500 "$RO_DIR"
	"${as[@]}" touch "$RO_DIR/probe" 2> /dev/null && skip "$RO_DIR is still writable at mode 0500"
	export RLWRAP_DB="$RO_DIR/state.db"
	fail_open_check "${as[@]}"
	[[ $WARN == *"cannot create"* ]] || fail "warning: $WARN"
	RLWRAP_DB="$RO_DIR/sub/state.db" fail_open_check "${as[@]}"
	[[ $WARN == *"$RO_DIR/sub does not exist"* ]] || fail "warning: $WARN"
	[ -z "$(ls -A "$RO_DIR")" ]
}

@test "a read-only store directory (read-only mount): fresh path fails open, an existing store still refuses" {
	local dir="$BATS_TEST_TMPDIR/ro"
	mkdir -p "$dir"
	export RLWRAP_DB="$dir/state.db"
	timeout 20 "$RLWRAP" trip --for 1h codex > /dev/null
	try_mount "$dir" --bind "$dir"
	mount -o remount,ro,bind "$dir" || skip "cannot remount read-only"
	touch "$dir/probe" 2> /dev/null && skip "the read-only mount is writable"
	# The existing store is read: codex stays refused, the rest runs with
	# one warning.
	run -75 timeout 20 "$RLWRAP" -f codex -- true
	assert_output --partial "refused: codex"
	fail_open_check
	[[ $WARN == *"not writable"* ]] || fail "warning: $WARN"
	# A fresh path there: one warning, the child runs.
	RLWRAP_DB="$dir/fresh.db" fail_open_check
	[[ $WARN == *"Read-only file system"* ]] || fail "warning: $WARN"
	RLWRAP_DB="$dir/sub/state.db" fail_open_check
	[[ $WARN == *"$dir/sub does not exist"* ]] || fail "warning: $WARN"
}

# ---- children that misbehave ----

@test "a child that writes 1 GiB without a newline: every byte through, bounded memory [slow]" {
	# seq's digits without their newlines: deterministic, not periodic.
	# Expected: `seq inf | tr -d '\n' | head -c 1073741824 | cksum`.
	run --separate-stderr bash -c '/usr/bin/time -f %M -o rss timeout 120 "$RLWRAP" -- \
		sh -c "seq inf | tr -d \"\\n\" | head -c 1073741824" | cksum; exit ${PIPESTATUS[0]}'
	assert_success
	assert_output "1683663045 1073741824"
	assert_equal "$stderr" ""
	local kib; kib=$(tail -1 rss)
	# Sanitizer builds (make check passes RLWRAP_SANITIZERS) carry shadow
	# memory: the bound is for the real binary.
	if [ -n "${RLWRAP_SANITIZERS:-}" ]; then
		echo "# peak RSS $kib KiB under sanitizers, not checked" >&3
	else
		[ "$kib" -lt 16384 ] || fail "peak RSS $kib KiB, not under 16 MiB"
	fi
}

@test "a child that closes its stdout early: its stderr and exit status are intact" {
	run --separate-stderr timeout 20 "$RLWRAP" -- sh -c \
		'echo before; exec 1>&-; echo late >&2; sleep 0.3; echo later >&2; exit 3'
	assert_failure 3
	assert_output before
	assert_equal "$stderr" "$(printf 'late\nlater')"
	# At once, with nothing written to stdout at all.
	run --separate-stderr timeout 20 "$RLWRAP" -- sh -c 'exec 1>&-; echo only >&2; exit 3'
	assert_failure 3
	assert_output ""
	assert_equal "$stderr" only
	# stdout and stderr both closed, the child still running: rlwrap waits
	# for its status.
	run --separate-stderr timeout 20 "$RLWRAP" -- sh -c 'exec 1>&- 2>&-; sleep 0.5; exit 4'
	assert_failure 4
}

@test "a child that ignores SIGTERM: rlwrap forwards it, keeps relaying, and ends with the child's status" {
	# The child's parent is rlwrap: it prints that pid, so timeout(1) can
	# stay in front without taking the signal.
	timeout 20 "$RLWRAP" -- bash -c 'trap "echo got TERM" TERM; echo "ready $PPID"
		for i in $(seq 10); do sleep 0.1; done; echo after; echo "to stderr" >&2; exit 7' > out 2> err &
	local bg=$! pid i rc=0
	for i in $(seq 50); do grep -q '^ready' out && break; sleep 0.1; done
	pid=$(awk '/^ready/ { print $2 }' out)
	[ -n "$pid" ] || fail "the child never started: $(cat out err)"
	kill -TERM "$pid"
	sleep 0.4
	kill -0 "$pid" 2> /dev/null || fail "rlwrap exited on TERM before its child: $(cat out err)"
	grep -q '^after$' out && fail "the child finished too early to tell"
	wait "$bg" || rc=$?
	assert_equal "$rc" 7
	run cat out
	assert_line --index 1 "got TERM"
	assert_line --index 2 after
	assert_equal "${#lines[@]}" 3
	assert_equal "$(cat err)" "to stderr"
}
