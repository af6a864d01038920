#!/usr/bin/env bats
# rlwrap recover and history: exact filters, any-of, AND, --since,
# usage errors with the valid lists, dry run, --yes re-running the stored
# argv in the stored cwd through the wrapper, skips, and failures.
# record-args (fixtures/bin) logs "CWD ARGS" to $FAKE_RECORD on every run.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW RLWRAP_RECOVER_GAP_MS=0 FAKE_RECORD="$BATS_TEST_TMPDIR/record"
	printf '[family.claude]\ncommands = record-args\n' > "$RLWRAP_CONFIG"
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' > overloaded
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limited","api_error_status":429}' > rate
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$((T0 + 3600)),\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > usage
	printf '%s\n' \
		'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > success
	mkdir -p proj-a proj-b
}

# wrapped STREAM DIR [ARGS...]: a wrapped run (forced past any breaker) in DIR.
wrapped() {
	local stream=$1 dir=$2
	shift 2
	(cd "$dir" && FAKE_STREAM="$BATS_TEST_TMPDIR/$stream" "$RLWRAP" -q --force -- record-args "$@" > /dev/null) || true
}

# ids FILTER...: the ids recover would list, as "1 3".
ids() {
	"$RLWRAP" recover --json "$@" | jq -r '[.[].id] | sort | map(tostring) | join(" ")'
}

@test "exact filters: a partial value matches nothing, a partial reason is rejected" {
	wrapped usage proj-a task1
	wrapped overloaded proj-b task2
	assert_equal "$(ids --filter reason=usage-limit)" 1
	assert_equal "$(ids --filter family=claude)" "1 2"
	assert_equal "$(ids --filter family=clau)" ""
	assert_equal "$(ids --filter cwd="$BATS_TEST_TMPDIR/proj-b")" 2
	assert_equal "$(ids --filter cwd="$BATS_TEST_TMPDIR/proj")" ""
	run "$RLWRAP" recover --filter family=clau
	assert_success
	assert_output "no failed runs to recover"
	run -2 "$RLWRAP" recover --filter reason=usage
	assert_output --partial "reason=usage: not a reason (none, rate-limit, usage-limit,"
}

@test "any-of with a comma, AND across filters, exit codes" {
	wrapped usage proj-a one
	RLWRAP_ACCOUNT=work wrapped rate proj-a two
	RLWRAP_ACCOUNT=work wrapped overloaded proj-b three
	(cd proj-a && FAKE_STREAM=../success "$RLWRAP" -q --force -- record-args four > /dev/null)
	assert_equal "$(ids --filter reason=rate-limit,usage-limit)" "1 2"
	assert_equal "$(ids --filter reason=rate-limit,usage-limit --filter account=work)" 2
	assert_equal "$(ids --filter account=work --filter cwd="$BATS_TEST_TMPDIR/proj-b")" 3
	assert_equal "$(ids --filter reason=none)" ""
	assert_equal "$(ids --filter exit=0)" "1 2 3"
	assert_equal "$(ids)" "1 2 3"
}

@test "--since takes durations and times" {
	RLWRAP_TEST_NOW=$((T0 - 2 * 86400)) wrapped overloaded proj-a old
	RLWRAP_TEST_NOW=$((T0 - 3600)) wrapped overloaded proj-a recent
	wrapped overloaded proj-a now
	assert_equal "$(ids --since 2h)" "2 3"
	assert_equal "$(ids --since 1d)" "2 3"
	assert_equal "$(ids --since 3d)" "1 2 3"
	assert_equal "$(ids --since 2026-11-30T11:30:00Z)" 3
	run -2 "$RLWRAP" recover --since yesterday
	assert_output --partial "not a duration"
	run "$RLWRAP" history --since 2h --json
	assert_equal "$(echo "$output" | jq length)" 2
}

@test "unknown keys and reasons are usage errors that list the valid ones" {
	run -2 "$RLWRAP" recover --filter colour=red
	assert_output --partial "KEY one of reason, family, model, account, exit, cwd"
	run -2 "$RLWRAP" recover --filter reason=rate-limit,slow
	assert_output --partial "reason=slow: not a reason"
	assert_output --partial "exit-nonzero"
	run -2 "$RLWRAP" recover --filter exit=x
	run -2 "$RLWRAP" recover --filter reason
	run -2 "$RLWRAP" recover extra
}

@test "dry run: says what --yes would do and runs nothing" {
	wrapped overloaded proj-a task
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover
	assert_success
	# (a run's start is a fraction of a second past the injected clock: rounded up)
	assert_line --index 0 --regexp "^#1 2026-11-30T12:00:0[01]Z claude overloaded exit=0 $BATS_TEST_TMPDIR/proj-a: record-args task$"
	assert_line --index 1 "    -> run now"
	[ ! -s "$FAKE_RECORD" ]
	run "$RLWRAP" recover --json
	echo "$output" | jq -e '.[0] | .id == 1 and .reason == "overloaded" and .action == "run"
		and .argv == ["record-args","task"]'
}

@test "--yes re-runs each in its cwd with its argv, marks the originals, and they are not listed again" {
	wrapped overloaded proj-a first "two words"
	RLWRAP_TEST_NOW=$((T0 + 60)) wrapped overloaded proj-b second --flag=x
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_output --partial "#2 re-ran as #3"
	assert_output --partial "#1 re-ran as #4"
	run cat "$FAKE_RECORD"
	assert_line --index 0 "$BATS_TEST_TMPDIR/proj-b second --flag=x"
	assert_line --index 1 "$BATS_TEST_TMPDIR/proj-a first two words"
	assert_equal "$(ids)" ""
	assert_equal "$("$RLWRAP" history --json | jq -c '[.[] | [.id, .recovered_by]] | sort')" \
		"[[1,4],[2,3],[3,null],[4,null]]"
	# The re-runs went through the wrapper: recorded runs of their own.
	assert_equal "$(db "select group_concat(source) from runs")" "wrap,wrap,wrap,wrap"
}

@test "on a shared store, --yes re-runs only this host's runs and names the host of the others" {
	RLWRAP_HOST=runner-1 wrapped overloaded proj-a mine
	RLWRAP_HOST=runner-2 RLWRAP_TEST_NOW=$((T0 + 60)) wrapped overloaded proj-b theirs
	: > "$FAKE_RECORD"
	RLWRAP_HOST=runner-1 FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_output --partial "#1 re-ran as #3"
	assert_output --partial "skip: recorded on host runner-2; recover it there"
	run cat "$FAKE_RECORD"
	assert_output "$BATS_TEST_TMPDIR/proj-a mine"
	# runner-2 recovers its own.
	: > "$FAKE_RECORD"
	RLWRAP_HOST=runner-2 FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_output --partial "#2 re-ran as #4"
	run cat "$FAKE_RECORD"
	assert_output "$BATS_TEST_TMPDIR/proj-b theirs"
}

@test "a still-tripped family is skipped and said so; after a reset it runs" {
	wrapped usage proj-a limited
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover
	assert_output --partial "-> skip: the family is still tripped until 2026-11-30T13:00:00Z"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_output --partial "#1 skip: the family is still tripped until 2026-11-30T13:00:00Z"
	[ ! -s "$FAKE_RECORD" ]
	assert_equal "$(ids)" 1
	"$RLWRAP" reset claude > /dev/null
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_equal "$(wc -l < "$FAKE_RECORD")" 1
	assert_equal "$(ids)" ""
}

@test "a redacted argv is never replayed" {
	wrapped overloaded proj-a --api-key sk-ant-api03-abcdefghijklmnop task
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover
	assert_output --partial "[redacted]"
	refute_output --partial "sk-ant"
	assert_output --partial "-> skip: its command held secrets"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	[ ! -s "$FAKE_RECORD" ]
	assert_equal "$(ids)" 1
}

@test "a cwd that is gone is skipped" {
	mkdir gone
	wrapped overloaded gone task
	rmdir gone
	run "$RLWRAP" recover
	assert_output --partial "-> skip: its working directory no longer exists"
}

@test "a re-run that fails leaves the original listed and recover exits non-zero" {
	wrapped overloaded proj-a task
	FAKE_STREAM="$BATS_TEST_TMPDIR/overloaded" FAKE_EXIT=1 run "$RLWRAP" recover --yes
	assert_failure
	assert_output --partial "#1 re-ran as #2"
	assert_output --partial "exit 1 (overloaded)"
	# The original stands for the failed re-run, which names it: one origin.
	assert_equal "$(ids)" 1
	assert_equal "$("$RLWRAP" history --json | jq -c '[.[] | [.id, .origin]] | sort')" "[[1,null],[2,1]]"
	assert_equal "$("$RLWRAP" recover --json | jq '.[0].attempts')" 1
}

@test "history lists every run, succeeded too, newest first" {
	wrapped overloaded proj-a one
	RLWRAP_TEST_NOW=$((T0 + 60)) FAKE_STREAM=success "$RLWRAP" -q -- record-args two > /dev/null
	run "$RLWRAP" history
	assert_success
	assert_line --index 0 --regexp "^#2 2026-11-30T12:01:0[01]Z claude/claude-opus-4-6 none exit=0 $BATS_TEST_TMPDIR: record-args two$"
	assert_line --index 1 --regexp "^#1 2026-11-30T12:00:0[01]Z claude overloaded exit=0 "
	run "$RLWRAP" history --json --limit 1
	echo "$output" | jq -e 'length == 1 and .[0].id == 2 and .[0].argv == ["record-args","two"]'
}
