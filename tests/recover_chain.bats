#!/usr/bin/env bats
# Recovery as a chain with one owner: refused spawns kept and
# brought back after the reset, a re-run that names its origin and never
# becomes one, --max-attempts, the claim held by the live re-run whatever
# kills recover, the signature that refuses a planted row, and the
# account's environment restored.  On SQLite and PostgreSQL alike.
# record-args (fixtures/bin) logs "CWD ARGS" to $FAKE_RECORD on every run.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW RLWRAP_RECOVER_GAP_MS=0 FAKE_RECORD="$BATS_TEST_TMPDIR/record"
	printf '[family.claude]\ncommands = record-args, slow-args, env-args\n' > "$RLWRAP_CONFIG"
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' > overloaded
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$((T0 + 3600)),\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > usage
	printf '%s\n' \
		'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > success
	# slow-args: says it started, then runs for $SLOW_SECS before record-args,
	# or, with SLOW_UNTIL, until that file exists (60 s at most: a hang bound).
	printf '%s\n' '#!/bin/sh' 'echo "$*" >> "$BATS_TEST_TMPDIR/started"' \
		'if [ -n "${SLOW_UNTIL:-}" ]; then i=0; while [ ! -e "$SLOW_UNTIL" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done' \
		'else sleep "${SLOW_SECS:-0}"; fi' 'exec record-args "$@"' > slow-args
	# env-args: logs the account's variable, then record-args.
	printf '#!/bin/sh\necho "dir=${CLAUDE_CONFIG_DIR:-}" >> "$BATS_TEST_TMPDIR/envlog"\nexec record-args "$@"\n' > env-args
	chmod +x slow-args env-args
	export BATS_TEST_TMPDIR
	mkdir -p proj
}

teardown() {
	[ -z "${FULL:-}" ] || umount "$FULL" 2> /dev/null || umount -l "$FULL" 2> /dev/null || :
}

until_true() {
	local secs=$1 i
	shift
	for i in $(seq $((secs * 20))); do
		"$@" && return 0
		sleep 0.05
	done
	fail "timed out after ${secs}s: $*"
}

ids() {
	"$RLWRAP" recover --json "$@" | jq -r '[.[].id] | sort | map(tostring) | join(" ")'
}

lines() { [ -s "$1" ] && wc -l < "$1" || echo 0; }

@test "the four-task refused recipe: all four come back after the reset, each run once" {
	cd proj
	FAKE_STREAM=../usage run -0 "$RLWRAP" -q -- record-args task-a
	for t in b c d; do
		FAKE_STREAM=../success run -75 "$RLWRAP" -q -- record-args "task-$t"
		assert_output --partial "refused: claude"
	done
	cd ..
	assert_equal "$(lines "$FAKE_RECORD")" 1
	run "$RLWRAP" history
	assert_output --regexp "#4 .* claude refused usage-limit resets 2026-11-30T13:00:00Z exit=75 .*: record-args task-d"
	assert_equal "$("$RLWRAP" history --json | jq -r '[.[] | .state] | sort | join(",")')" "finished,refused,refused,refused"
	assert_equal "$(ids --filter reason=usage-limit)" "1 2 3 4"
	assert_equal "$(ids --filter state=refused)" "2 3 4"
	"$RLWRAP" history --json --filter state=refused | jq -e 'all(.refused_by == "breaker" and .exit_code == 75
		and .resets_at == "2026-11-30T13:00:00Z")'
	# Before the reset nothing runs.
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --filter reason=usage-limit --yes
	assert_output --partial "skip: the family is still tripped until 2026-11-30T13:00:00Z"
	[ ! -s "$FAKE_RECORD" ]
	# After it, each of the four once; then nothing is left.
	RLWRAP_TEST_NOW=$((T0 + 3700)) FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --filter reason=usage-limit --yes
	run sort "$FAKE_RECORD"
	assert_output "$BATS_TEST_TMPDIR/proj task-a
$BATS_TEST_TMPDIR/proj task-b
$BATS_TEST_TMPDIR/proj task-c
$BATS_TEST_TMPDIR/proj task-d"
	RLWRAP_TEST_NOW=$((T0 + 3800)) FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	assert_equal "$(lines "$FAKE_RECORD")" 4
	assert_equal "$(RLWRAP_TEST_NOW=$((T0 + 3800)) ids)" ""
}

@test "--no-record and record_refused = no keep a refused spawn out of the history" {
	cd proj
	FAKE_STREAM=../usage run -0 "$RLWRAP" -q -- record-args task-a
	run -75 "$RLWRAP" -q --no-record -- record-args task-b
	printf '[wrapper]\nrecord_refused = no\n[family.claude]\ncommands = record-args\n' > "$RLWRAP_CONFIG"
	run -75 "$RLWRAP" -q -- record-args task-c
	# A bad value is said once and its default (record) used: task-d is kept.
	printf '[wrapper]\nrecord_refused = maybe\n[family.claude]\ncommands = record-args\n' > "$RLWRAP_CONFIG"
	run -75 "$RLWRAP" -q -- record-args task-d
	assert_output --partial "record_refused: 'maybe' is not yes or no"
	cd ..
	assert_equal "$(db "select count(*) from runs")" 2
	assert_equal "$(db "select count(*) from runs where state = 'refused'")" 1
}

@test "the 529 chain: five recover --yes in a row re-run a failing job at most --max-attempts times" {
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- record-args job > /dev/null)
	: > "$FAKE_RECORD"
	for i in 1 2 3 4 5; do
		FAKE_STREAM="$BATS_TEST_TMPDIR/overloaded" run "$RLWRAP" recover --yes
		echo "$output"
	done
	assert_output --partial "#1 skipped: gave up after 3 re-runs (--max-attempts 3)"
	assert_equal "$(lines "$FAKE_RECORD")" 3
	# one origin, three re-runs that name it, none of them offered
	assert_equal "$(ids)" 1
	assert_equal "$("$RLWRAP" history --json | jq -c '[.[] | .origin] | sort')" "[null,1,1,1]"
	assert_equal "$(db "select recover_note from runs where id = 1")" "gave up after 3 re-runs (--max-attempts 3)"
	run "$RLWRAP" recover
	assert_output --partial "-> skip: re-run 3 times already (--max-attempts 3)"
	# a larger budget goes on from where it stopped; success ends the chain
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes --max-attempts 4
	assert_equal "$(lines "$FAKE_RECORD")" 4
	assert_equal "$(ids)" ""
	assert_equal "$(db "select recovered_by from runs where id = 1")" 5
}

@test "the usage-limit runbook: the cap met again by recover, reset --all, recover: the task succeeds once" {
	(cd proj && FAKE_STREAM=../usage "$RLWRAP" -q -- record-args task > /dev/null) || :
	: > "$FAKE_RECORD"
	RLWRAP_TEST_NOW=$((T0 + 3700)) FAKE_STREAM="$BATS_TEST_TMPDIR/usage" run -1 "$RLWRAP" recover --yes
	"$RLWRAP" reset --all > /dev/null
	RLWRAP_TEST_NOW=$((T0 + 3800)) FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	RLWRAP_TEST_NOW=$((T0 + 3900)) FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	assert_equal "$(lines "$FAKE_RECORD")" 2
	assert_equal "$(db "select count(*) from runs where reason is null or reason = 'none'")" 1
}

# killed_mid_rerun SIGNAL: recover --yes is killed while its re-run runs;
# a second recover while the re-run still runs leaves it alone, a third
# after it ended finds it recovered.
killed_mid_rerun() {
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- "$BATS_TEST_TMPDIR/slow-args" job > /dev/null)
	: > "$FAKE_RECORD"
	: > started
	# The re-run goes on until the test has looked at it (the file "release").
	# Signals at their defaults: a test run under nohup ignores HUP.
	SLOW_UNTIL="$BATS_TEST_TMPDIR/release" FAKE_STREAM="$BATS_TEST_TMPDIR/success" \
		env --default-signal "$RLWRAP" recover --yes > first.out 2>&1 &
	local recover=$!
	until_true 10 test -s started
	kill "-$1" "$recover"
	wait "$recover" || :
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	assert_output --regexp "#1 skipped: a re-run of it \(pid [0-9]+ on .*\) runs now"
	touch "$BATS_TEST_TMPDIR/release"
	# Hang bounds for the job's end and its record on a loaded machine.
	until_true 40 test -s "$FAKE_RECORD"
	until_true 40 test "$(db "select count(*) from runs where recovered_by is not null")" = 1
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	assert_output ""
	assert_equal "$(lines "$FAKE_RECORD")" 1
	assert_equal "$(lines started)" 1
}

@test "recover --yes killed with TERM mid re-run: the job ran once" {
	killed_mid_rerun TERM
}

@test "recover --yes killed with HUP mid re-run: the job ran once" {
	killed_mid_rerun HUP
}

@test "recover --yes killed with KILL mid re-run: the job ran once" {
	killed_mid_rerun KILL
}

@test "a row planted through SQL is shown and refused; so is a signed row whose command was changed" {
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- record-args mine > /dev/null)
	local host; host=$(db "select host from runs where id = 1")
	db "INSERT INTO runs (argv, argv_exact, argv_redacted, cwd, family, account, source, started_at, ended_at,
		exit_code, reason, confidence, terminal, after_output, state, host, uid)
		VALUES ('[\"touch\",\"PLANTED\"]', '=', 0, '$BATS_TEST_TMPDIR', 'claude', 'default', 'wrap', $T0, $T0,
		1, 'overloaded', 1, 1, 0, 'finished', '$host', 'planted-uid')"
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- record-args altered > /dev/null)
	db "UPDATE runs SET argv = '[\"touch\",\"ALTERED\"]', argv_exact = '=' WHERE id = 3"
	run "$RLWRAP" recover
	assert_output --partial "touch PLANTED"
	assert_output --partial "-> refused: its signature does not verify, so this user on this host did not write it"
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	assert_output --partial "#2 refused: its signature does not verify"
	assert_output --partial "#3 refused: its signature does not verify"
	[ ! -e PLANTED ] && [ ! -e proj/ALTERED ]
	assert_equal "$(cat "$FAKE_RECORD")" "$BATS_TEST_TMPDIR/proj mine"
	# without the key, nothing verifies
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- record-args later > /dev/null)
	rm "$XDG_STATE_HOME/rlwrap/key"
	run "$RLWRAP" recover --json
	echo "$output" | jq -e 'all(.action == "skip")'
}

@test "CLAUDE_CONFIG_DIR comes back on the re-run, and a run without it gets none" {
	mkdir -p "$HOME/.claude-alt"
	(cd proj && CLAUDE_CONFIG_DIR="$HOME/.claude-alt" FAKE_STREAM=../overloaded "$RLWRAP" -q -- \
		"$BATS_TEST_TMPDIR/env-args" alt > /dev/null)
	RLWRAP_TEST_NOW=$((T0 + 60)) bash -c 'cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- "$BATS_TEST_TMPDIR/env-args" plain > /dev/null'
	"$RLWRAP" history --json | jq -e '.[] | select(.id == 1) | .account == "~/.claude-alt"'
	: > envlog
	CLAUDE_CONFIG_DIR="$HOME/.claude-other" FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes
	run cat envlog
	assert_line --index 0 "dir="
	assert_line --index 1 "dir=$HOME/.claude-alt"
	# the re-run's outcome went to the account it came from
	assert_equal "$(db "select account from runs where origin = 1")" "~/.claude-alt"
}

@test "a lost run is offered only with --include-lost" {
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q -- record-args lost > /dev/null)
	db "UPDATE runs SET state = 'lost', reason = NULL, exit_code = NULL"
	assert_equal "$(ids)" ""
	assert_equal "$(ids --include-lost)" 1
	assert_equal "$(ids --include-lost --filter state=lost)" 1
}

@test "a run on a disk that fills during the run is not re-run: its journaled outcome settles it" {
	sqlite_only
	FULL="$BATS_TEST_TMPDIR/full"
	mkdir -p "$FULL"
	mount -t tmpfs -o size=512k tmpfs "$FULL" 2> mount.err ||
		{ FULL=; skip "mount not permitted ($(head -1 mount.err)): needs root or CAP_SYS_ADMIN"; }
	export RLWRAP_DB="$FULL/state.db"
	(cd proj && "$RLWRAP" -q -- record-args warm-up > /dev/null)
	: > started
	(cd proj && SLOW_SECS=2 FAKE_STREAM=../success "$RLWRAP" -q -- "$BATS_TEST_TMPDIR/slow-args" job \
		> ../job.out 2> ../job.err) &
	local wrapper=$!
	until_true 10 test -s started
	dd if=/dev/zero of="$FULL/fill" bs=4k 2> /dev/null || :
	wait "$wrapper"
	# the child's bytes and status came through; the store's record did not
	cat job.err
	grep -q '"result":"ok"' job.out
	grep -q "state file: .*running without it" job.err
	assert_equal "$(db "select state from runs where id = 2")" running
	assert_equal "$(ls "$XDG_STATE_HOME/rlwrap/outcomes" | wc -l)" 1
	rm "$FULL/fill"
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -0 "$RLWRAP" recover --yes --include-lost
	[ ! -s "$FAKE_RECORD" ]
	assert_equal "$(db "select state || ' ' || exit_code || ' ' || reason from runs where id = 2")" "finished 0 none"
	assert_equal "$(ls "$XDG_STATE_HOME/rlwrap/outcomes" | wc -l)" 0
}

@test "release = ramp: after the probe one spawn per turn, the rest refused or waiting; status shows it; a trip ends it" {
	printf '[family.claude]\ncommands = record-args\nrelease = ramp 2x 1h\n' > "$RLWRAP_CONFIG"
	"$RLWRAP" trip --until 2026-11-30T12:01:00Z claude > /dev/null
	cd proj
	# the probe, at the reset: it closes the breaker and starts the release
	RLWRAP_TEST_NOW=$((T0 + 120)) FAKE_STREAM=../success run -0 "$RLWRAP" -q -- record-args probe
	RLWRAP_TEST_NOW=$((T0 + 130)) FAKE_STREAM=../success run -75 "$RLWRAP" -q -- record-args early
	assert_output --partial "refused: claude (account default) is being released after its reset"
	RLWRAP_TEST_NOW=$((T0 + 140)) run -0 "$RLWRAP" status
	assert_output --regexp "release claude \(account default\): 0 let through since the probe at 2026-11-30T12:02:0[01]Z \(ramp 2x 3600s"
	# one interval on, its turn: one goes, the next waits for the one after
	RLWRAP_TEST_NOW=$((T0 + 3730)) FAKE_STREAM=../success run -0 "$RLWRAP" -q -- record-args first
	RLWRAP_TEST_NOW=$((T0 + 3740)) FAKE_STREAM=../success run -75 "$RLWRAP" -q -- record-args second
	assert_output --partial "is being released after its reset"
	cd ..
	assert_equal "$(db "select ramp_released from breakers")" 1
	assert_equal "$(db "select group_concat(refused_by) from runs where state = 'refused'")" "release,release"
	# a limit signal ends the release; release = all lets every spawn go
	"$RLWRAP" trip --until 2026-11-30T14:00:00Z claude > /dev/null
	assert_equal "$(db "select coalesce(ramp_started, 0) from breakers")" 0
	printf '[family.claude]\ncommands = record-args\nrelease = all\n' > "$RLWRAP_CONFIG"
	"$RLWRAP" reset claude > /dev/null
	(cd proj && RLWRAP_TEST_NOW=$((T0 + 3750)) FAKE_STREAM=../success "$RLWRAP" -q -- record-args free > /dev/null)
	# a bad release is said, and status still works (the config-error rule)
	printf '[family.claude]\nrelease = ramp fast\n' > "$RLWRAP_CONFIG"
	run -0 "$RLWRAP" status
	assert_output --partial "release: 'ramp fast' is not all or ramp GROWTHx INTERVAL [up to N] (like ramp 2x 10s)"
}
