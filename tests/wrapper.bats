#!/usr/bin/env bats
# The wrapper: rlwrap [options] [--] command [arg ...].  Pass-through of
# bytes, exit status and signals; exec failures; draining; detection;
# --raw-stream and --signal-file.  Fake agents live in fixtures/bin, C
# helpers (sigmask, sigtrap) in the build's tests directory ($TESTBIN).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	: "${TESTBIN:=$(cd "$(dirname "$RLWRAP")/tests" && pwd)}"
	PATH="$FIXTURES/bin:$TESTBIN:$PATH"
	cd "$BATS_TEST_TMPDIR"
}

# wait_for FILE PATTERN: until FILE has a line matching PATTERN (5 s at most).
wait_for() {
	local i
	for i in $(seq 50); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "timed out waiting for '$2' in $1: $(cat "$1" 2>/dev/null)"
}

ms_now() { date +%s%3N; }

@test "stdout and stderr pass through byte for byte (20 MB of random bytes)" {
	head -c 20000000 /dev/urandom > blob
	timeout 60 "$RLWRAP" -- sh -c 'cat blob; cat blob >&2' > out 2> err
	cmp blob out
	cmp blob err
}

@test "stdin is the child's own" {
	run sh -c 'printf "abc\n" | timeout 10 "$RLWRAP" -- cat'
	assert_success
	assert_output "abc"
}

@test "exit codes 0..255 come back unchanged" {
	local code
	for code in $(seq 0 255); do
		run -"$code" "$RLWRAP" -- sh -c "exit $code"
		[ "$status" -eq "$code" ] || fail "child exit $code came back as $status"
	done
}

@test "a child killed by INT, TERM, HUP, KILL or SEGV: rlwrap dies the same way" {
	ulimit -c 0
	local sig want
	for sig in INT:130 TERM:143 HUP:129 KILL:137 SEGV:139; do
		want=${sig#*:} sig=${sig%:*}
		run timeout 10 die-with "$sig"
		[ "$status" -eq "$want" ] || fail "direct: $sig gave $status"
		run timeout 10 "$RLWRAP" -- die-with "$sig"
		[ "$status" -eq "$want" ] || fail "wrapped: $sig gave $status, want $want"
		assert_output "dying of $sig"
	done
}

@test "rlwrap itself is killed by the child's signal (not exit 128+n)" {
	# perl's system() shows the wait status: the signal in the low 7 bits.
	run perl -e 'system(@ARGV); print $? & 127, " ", $? >> 8, "\n"' "$RLWRAP" -- die-with TERM
	assert_line "15 0"
	run perl -e 'system(@ARGV); print $? & 127, " ", $? >> 8, "\n"' "$RLWRAP" -- exit-with 143
	assert_line "0 143"
}

@test "each forwarded signal reaches the child" {
	local sig pid
	for sig in INT TERM HUP QUIT USR1 USR2 WINCH CONT; do
		rm -f out
		# No timeout(1) in front: it would take the signal.  sigtrap gives up
		# after 10 s, so this cannot hang.
		"$RLWRAP" -- sigtrap "$sig" > out &
		pid=$!
		wait_for out "^ready"
		kill -s "$sig" "$pid"
		wait "$pid" || fail "$sig: rlwrap exited $?: $(cat out)"
		grep -q "^got $sig\$" out || fail "$sig did not reach the child: $(cat out)"
	done
}

@test "TSTP stops the child and rlwrap; CONT continues both" {
	# A job of its own, as a job-control shell starts it.  Where the kernel
	# discards the stop anyway (an orphaned process group, as POSIX says;
	# seen in CI), nothing may stop and the run must simply go on.
	set -m
	"$RLWRAP" -- sigtrap CONT > out &
	local pid=$! i state="" rc=0
	# The job keeps its process group; without job control from here on,
	# bash's "stopped" notice cannot cut the polling loop short (it did,
	# leaving state empty, in slower sanitizer builds).
	set +m
	wait_for out "^ready"
	kill -TSTP "$pid"
	for i in $(seq 50); do
		state=$(ps -o stat= -p "$pid" || true)
		[[ $state == T* || -z $state ]] && break
		sleep 0.1
	done
	# Always continue it, so a failure cannot leave a stopped process.
	kill -CONT "$pid" 2>/dev/null || true
	wait "$pid" || rc=$?
	grep -q "^got TSTP" out || fail "the child did not get TSTP"
	grep -q "^got CONT" out || fail "the child did not get CONT"
	if [[ $state == T* ]]; then
		# While rlwrap was stopped it stayed stopped; CONT ran both to the end.
		return 0
	fi
	echo "# the kernel discarded the stop (orphaned process group)" >&3
	[ "$rc" -eq 0 ] || fail "rlwrap exited $rc after a discarded stop"
}

@test "the child starts with the signal mask and dispositions rlwrap was given" {
	run sigmask
	local direct=$output
	run "$RLWRAP" -- sigmask
	assert_success
	assert_output "$direct"
	assert_line "blocked: -"
	refute_line --partial "PIPE"
	# An ignored signal stays ignored, as it would without rlwrap; nothing
	# rlwrap handles itself (PIPE, TERM, CHLD) leaks into the child as
	# ignored.  INT and QUIT are compared with the direct run: a shell that
	# runs make in the background already gives them ignored.
	run bash -c 'trap "" USR1; sigmask'
	direct=$output
	run bash -c 'trap "" USR1; "$RLWRAP" -- sigmask'
	assert_output "$direct"
	assert_line --regexp "^ignored:.* USR1"
	refute_line --regexp "^ignored:.* (PIPE|TERM|CHLD)"
}

# policy PID: the scheduling policy in /proc/PID/stat (0 other, 3 batch, 5 idle).
policy_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f39; }
# relay_policy WANT: the relay's policy once it is WANT (it changes just
# after the spawn, so the command may look first), or after 5 s.
relay_policy() {
	local i
	for i in $(seq 100); do
		[ "$(policy_of $PPID)" = "$1" ] && break
		sleep 0.05
	done
	policy_of $PPID
}

@test "a relay of pipes runs as SCHED_BATCH; the child keeps the policy rlwrap was given" {
	export -f policy_of relay_policy
	run timeout 60 "$RLWRAP" -- bash -c 'echo "child $(policy_of $$) relay $(relay_policy 3)"'
	assert_success
	assert_output "child 0 relay 3"
	command -v chrt > /dev/null || skip "no chrt"
	run timeout 60 chrt --idle 0 "$RLWRAP" -- bash -c 'sleep 0.2; echo "child $(policy_of $$) relay $(policy_of $PPID)"'
	assert_success
	assert_output "child 5 relay 5"
}

@test "a command that is not found exits 127 with one line" {
	run -127 "$RLWRAP" -- no-such-command-xyz --flag
	assert_failure 127
	assert_output "rlwrap: no-such-command-xyz: command not found"
	run -127 "$RLWRAP" -- /nonexistent/dir/agent
	assert_failure 127
}

@test "a command that cannot be executed exits 126 with one line" {
	printf 'echo hi\n' > not-executable
	chmod 644 not-executable
	run "$RLWRAP" -- ./not-executable
	assert_failure 126
	assert_output "rlwrap: ./not-executable: Permission denied"
	mkdir adir
	run "$RLWRAP" -- ./adir
	assert_failure 126
	[ "${#lines[@]}" -eq 1 ]
}

@test "a grandchild holding the pipes does not keep rlwrap past its bound" {
	local start end limit
	# The grandchild holds them 30 s: the limit stays well below that.
	limit=$(time_limit_ms 3000)
	[ "$limit" -lt 20000 ] || limit=20000
	start=$(ms_now)
	run timeout 25 "$RLWRAP" -- hold-pipes pids
	end=$(ms_now)
	kill "$(head -1 pids)" 2>/dev/null || true
	assert_failure 7
	assert_output "parent done"
	[ $((end - start)) -lt "$limit" ] || fail "took $((end - start)) ms, more than $limit ms"
}

@test "the child is reaped at once, even while its pipes are drained" {
	timeout 10 "$RLWRAP" -- hold-pipes pids > out &
	local pid=$! shpid state
	wait_for out "parent done"
	for _ in $(seq 20); do [ "$(wc -l < pids)" -eq 2 ] && break; sleep 0.05; done
	shpid=$(sed -n 2p pids)
	sleep 0.3
	state=$(ps -o stat= -p "$shpid" || true)
	kill "$(head -1 pids)" 2>/dev/null || true
	wait "$pid" || true
	[ -z "$state" ] || fail "the child is left as '$state' while rlwrap drains"
	run ps -o stat= --ppid "$$"
	refute_output --partial "Z"
}

@test "rlwrap -- yes | head -1 returns at once, like yes | head -1" {
	local start end base limit
	# What "at once" allows: 2 s beyond twice the wrapper's own start and
	# end around true, measured here and now (a loaded machine or a
	# sanitizer build is slower at both), and twice that under sanitizers.
	# A wrapper that went on reading yes would still be at it at any limit.
	start=$(ms_now)
	timeout 20 "$RLWRAP" -- true
	base=$(($(ms_now) - start))
	limit=$((2000 + 2 * base))
	[ -z "${RLWRAP_SANITIZERS:-}" ] || limit=$((2 * limit))
	start=$(ms_now)
	run timeout 30 bash -c 'set +o pipefail; "$RLWRAP" -- yes | head -1; echo "status ${PIPESTATUS[0]}"'
	end=$(ms_now)
	assert_success
	assert_line --index 0 "y"
	# yes dies of SIGPIPE, and so does rlwrap: the pipeline looks the same.
	assert_line --index 1 "status 141"
	[ $((end - start)) -lt "$limit" ] || fail "took $((end - start)) ms, more than $limit ms (true took $base ms)"
}

@test "the first line of a slow child arrives before the child finishes" {
	timeout 10 "$RLWRAP" -- slow-lines > out &
	local pid=$! i seen=no
	for i in $(seq 20); do
		grep -q "first line" out && { seen=yes; break; }
		sleep 0.1
	done
	grep -q "second line" out && fail "the child already finished"
	wait "$pid"
	[ "$seen" = yes ] || fail "the first line waited for the child"
	grep -q "second line" out
}

@test "a partial line (no newline) is forwarded without waiting" {
	timeout 10 "$RLWRAP" -- sh -c 'printf "prompt> "; sleep 3; echo done' > out &
	local pid=$! i
	for i in $(seq 20); do
		[ "$(cat out)" = "prompt> " ] && break
		sleep 0.1
	done
	[ "$(cat out)" = "prompt> " ] || fail "partial line not forwarded: '$(cat out)'"
	wait "$pid"
}

@test "options stop at the first operand; the child's options are its own" {
	run "$RLWRAP" echo -q --family nope -- x
	assert_success
	assert_output "-q --family nope -- x"
	run "$RLWRAP" run echo hi
	assert_output "hi"
	run "$RLWRAP" run -q -- echo hi
	assert_output "hi"
}

@test "after --, a subcommand name is a command to run" {
	mkdir bin
	printf '#!/bin/sh\necho "I am the script"\n' > bin/classify-failure
	chmod +x bin/classify-failure
	PATH="$PWD/bin:$PATH" run "$RLWRAP" -- classify-failure
	assert_success
	assert_output "I am the script"
}

@test "wrapper option errors exit 125, apart from the child's own 2" {
	run "$RLWRAP" --bogus -- true
	assert_failure 125
	run "$RLWRAP" --family gpt -- true
	assert_failure 125
	assert_output --partial "not a family"
	run "$RLWRAP" --wait=soon -- true
	assert_failure 125
	assert_output --partial "--wait soon"
	run "$RLWRAP" --retry=many -- true
	assert_failure 125
	run "$RLWRAP" --pty --no-pty -- true
	assert_failure 125
	run "$RLWRAP" --signal-file
	assert_failure 125
	run "$RLWRAP" -q
	assert_failure 125
	run "$RLWRAP" -- sh -c 'exit 2'
	assert_failure 2
}

@test "every wrapper option is accepted" {
	run "$RLWRAP" -f claude -m opus -a work -w -r -q --force --no-pty -- true
	assert_success
	run "$RLWRAP" --family=codex --model=o3 --account=me --wait=2h --retry=5 -w30m -r2 \
		--raw-stream raw --signal-file sig --force --quiet -- true
	assert_success
	[ -f raw ] && [ -f sig ]
}

@test "--raw-stream writes stdout and stderr in arrival order" {
	run "$RLWRAP" --raw-stream raw -- sh -c 'echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three'
	assert_success
	assert_line "one"
	assert_line "two"
	run cat raw
	assert_output "$(printf 'one\ntwo\nthree')"
}

@test "--raw-stream that cannot be opened: exit 125 before the child runs" {
	run "$RLWRAP" --raw-stream /nonexistent/dir/raw -- sh -c 'echo ran'
	assert_failure 125
	refute_output --partial "ran"
}

@test "--signal-file: the verdict, the command line and the timing" {
	export RLWRAP_TEST_NOW=$NOW FAKE_STREAM=$FIXTURES/wrapper/claude-session-limit.jsonl
	run "$RLWRAP" --signal-file sig.json -- claude -p "fix the tests" --model opus
	assert_success
	# The child's bytes, untouched; then one note on stderr.
	assert_line --index 0 --partial '"subtype":"init"'
	assert_line "rlwrap: claude: usage-limit, resets 2026-11-30T18:30:00Z (in 6h30m, provider)"
	# The model the stream names beats the alias on the command line.
	run jq -c '[.reason, .family, .model, .resets_at, .reset_source, .exit_code, .term_signal, .account, .argv]' sig.json
	assert_output '["usage-limit","claude","claude-opus-4-6","2026-11-30T18:30:00Z","provider",0,null,"default",["claude","-p","fix the tests","--model","opus"]]'
	run jq -r '(.started_at | test("^20[0-9-]+T[0-9:.]+Z$")), (.duration_ms >= 0), (.ended_at >= .started_at)' sig.json
	assert_output "$(printf 'true\ntrue\ntrue')"
	# The same stream through classify-failure gives the same verdict.
	run "$RLWRAP" classify-failure --json --now "$NOW" --exit-code 0 "$FAKE_STREAM"
	[ "$(echo "$output" | jq -c '[.reason,.resets_at,.confidence]')" = \
	  "$(jq -c '[.reason,.resets_at,.confidence]' sig.json)" ]
}

@test "--quiet keeps the trip note off stderr; success prints nothing" {
	export RLWRAP_TEST_NOW=$NOW FAKE_STREAM=$FIXTURES/wrapper/claude-session-limit.jsonl
	run --separate-stderr "$RLWRAP" -q -- claude -p x
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	export FAKE_STREAM=$FIXTURES/wrapper/claude-success.jsonl
	"$RLWRAP" reset --all >/dev/null   # the limit above tripped the breaker
	run --separate-stderr "$RLWRAP" --signal-file sig.json -- claude -p x
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	run jq -r '.reason + " " + .model' sig.json
	assert_output "none claude-sonnet-4-6"
}

@test "--signal-file for a child killed by a signal names the signal" {
	run "$RLWRAP" --signal-file sig.json -- die-with KILL
	assert_failure 137
	run jq -c '[.exit_code, .term_signal]' sig.json
	assert_output '[null,9]'
}

@test "--signal-file for a command that is not found" {
	run -127 "$RLWRAP" --signal-file sig.json -- no-such-command-xyz
	assert_failure 127
	run jq -c '[.reason, .exit_code]' sig.json
	assert_output '["exit-nonzero",127]'
}

@test "family, model and account are detected through launchers and the environment" {
	export CLAUDE_CONFIG_DIR=$HOME/.claude-work
	# No stream: the model comes from the child's own -m.
	run "$RLWRAP" --signal-file sig.json -- env FOO=1 nice -n 1 claude -p x -m haiku
	assert_success
	run jq -c '[.family, .model, .account]' sig.json
	assert_output '["claude","haiku","~/.claude-work"]'
	RLWRAP_ACCOUNT=team run "$RLWRAP" --signal-file sig.json -- claude
	run jq -r .account sig.json
	assert_output "team"
	run "$RLWRAP" -a mine -m sonnet -f claude --signal-file sig.json -- \
		replay "$FIXTURES/wrapper/claude-success.jsonl"
	run jq -c '[.family, .model, .account]' sig.json
	assert_output '["claude","sonnet","mine"]'
}

@test "the process title says what rlwrap wraps" {
	"$RLWRAP" -- sigtrap TERM > out &
	local pid=$!
	wait_for out "^ready"
	run ps -o args= -p "$pid"
	kill -TERM "$pid"
	wait "$pid"
	assert_output --regexp "^rlwrap: sigtrap \(pid [0-9]+\)"
}

@test "without a terminal the child gets pipes; --pty forces a pseudo-terminal" {
	run "$RLWRAP" -- tty-info
	assert_line "stdout: not a tty"
	run timeout 10 "$RLWRAP" --pty -- tty-info < /dev/null
	assert_success
	assert_line --partial "stdout: tty"
}

@test "--pty without a terminal: the window size comes from COLUMNS and LINES, else 80x24" {
	run env -u COLUMNS -u LINES timeout 10 "$RLWRAP" --pty -- tty-info < /dev/null
	assert_success
	assert_line --partial "size: 24 80"
	run env COLUMNS=91 LINES=17 timeout 10 "$RLWRAP" --pty -- tty-info < /dev/null
	assert_success
	assert_line --partial "size: 17 91"
}

@test "--pty with piped input: a canonical-mode child reads to end of file, a partial line too" {
	run bash -c 'printf "one\npartial" | timeout 10 "$RLWRAP" --pty -- sh -c "cat; echo \"eof after cat\""'
	assert_success
	assert_line --partial "eof after cat"
	assert_output --partial "partial"
}

@test "--pty with piped input: a raw-mode child is hung up once it has read everything" {
	# The input arrives once the child is in raw mode (it says ready then).
	{ wait_for out "tui: ready" && printf 'xy'; } |
		timeout 20 "$RLWRAP" --pty -- tui > out || rc=$?
	[ "${rc:-0}" -eq 129 ] || fail "rlwrap exited ${rc:-0}: $(cat out)"
	grep -q "tui: key x" out && grep -q "tui: key y" out || fail "input not read: $(cat out)"
	grep -q "tui: hangup" out || fail "no hangup: $(cat out)"
}

@test "the classifier on a worker thread and inline on the relay: same bytes, same verdict" {
	# Several MB of turns with a heartbeat each, then the session limit: the
	# relay tees it in many chunks, to a file and to a pipe.
	head -1 "$FIXTURES/wrapper/claude-session-limit.jsonl" > stream
	awk 'BEGIN { for (i = 1; i <= 12000; i++) {
		printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%d\",\"model\":\"claude-opus-4-6\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"", i
		for (j = 0; j < i % 97; j++) printf "word%d ", j
		printf "\"}]},\"session_id\":\"s\"}\n"
		printf "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\",\"resetsAt\":1796059800,\"rateLimitType\":\"five_hour\",\"utilization\":0.%d},\"uuid\":\"u%d\"}\n", i % 90 + 10, i
	} }' >> stream
	tail -n +2 "$FIXTURES/wrapper/claude-session-limit.jsonl" >> stream
	[ "$(stat -c %s stream)" -gt 4000000 ]
	export RLWRAP_TEST_NOW=$NOW FAKE_STREAM=$PWD/stream
	for cpus in 1 4; do
		# A run that trips the breaker: each gets a state file of its own.
		RLWRAP_DB=$PWD/$cpus-file.db RLWRAP_TEST_CPUS=$cpus \
		    "$RLWRAP" -q --signal-file "sig-$cpus-file.json" -- claude -p x > "out-$cpus"
		cmp stream "out-$cpus"
		RLWRAP_DB=$PWD/$cpus-pipe.db RLWRAP_TEST_CPUS=$cpus \
		    "$RLWRAP" -q --signal-file "sig-$cpus-pipe.json" -- claude -p x | cat > "piped-$cpus"
		cmp stream "piped-$cpus"
		for how in file pipe; do
			run jq -c '[.reason, .resets_at, .reset_source]' "sig-$cpus-$how.json"
			assert_output '["usage-limit","2026-11-30T18:30:00Z","provider"]'
		done
	done
}
