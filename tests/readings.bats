#!/usr/bin/env bats
# Usage readings: what the agents say of their usage windows is
# kept per account and window, the newest wins, written once per window at
# the end of a run; status shows it; a family's reserve holds new batch
# spawns while a reading says less than the reserve is left, the way an
# open breaker does (exit 75 or --wait, reason "reserve"), never tripping a
# breaker; interactive spawns pass; a model's window holds only that model.
# Streams in fixtures/readings (see its README.md).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW
	export FAKE_MARKER="$BATS_TEST_TMPDIR/ran"
	READ="$FIXTURES/readings"
	ln -s "$FIXTURES/bin/claude" codex
}

ran() { [ -f "$FAKE_MARKER" ]; }

# feed FILE [RLWRAP OPTION ...] -- COMMAND ...: a wrapped run that replays FILE
# (the child is not counted as the run under test).
feed() {
	local file=$1
	shift
	FAKE_STREAM=$file FAKE_MARKER=/dev/null exits 0 "$RLWRAP" -q "$@" > /dev/null
}

# reading WINDOW FIELD: one field of a reading, from status --json.
reading() {
	"$RLWRAP" status --json | jq -r --arg w "$1" ".readings[] | select(.window == \$w) | .$2"
}

reserve_config() {
	printf '[family.claude]\nreserve = %s\n' "$1" > "$RLWRAP_CONFIG"
}

# warning_at FILE RESETS_AT [UTILIZATION] [TYPE]: a stream with one warning.
warning_at() {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-sonnet-4-5","session_id":"s"}' \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed_warning\",\"resetsAt\":$2,\"rateLimitType\":\"${4:-five_hour}\",\"utilization\":${3:-0.92},\"isUsingOverage\":false,\"surpassedThreshold\":0.9}}" \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$1"
}

# ---- readings ----

@test "a Claude warning's readings are kept per window, the newest of the run, and shown by status" {
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	assert_equal "$(db "select count(*) from usage_readings")" 2
	assert_equal "$(reading five_hour used)" 0.92
	assert_equal "$(reading five_hour status)" allowed_warning
	assert_equal "$(reading five_hour resets_at)" 2026-11-30T15:00:00Z
	assert_equal "$(reading five_hour window_secs)" 18000
	assert_equal "$(reading five_hour warning)" true
	assert_equal "$(reading seven_day used)" 0.06
	assert_equal "$(reading seven_day warning)" false
	assert_equal "$(reading five_hour held)" false
	run "$RLWRAP" status
	assert_success
	assert_line "usage claude (account default) five_hour: 92% used, allowed_warning, read 0s ago, resets 2026-11-30T15:00:00Z (2026-11-30 15:00 UTC, in 3h0m); at this pace: out in 10m27s, before the reset in 3h0m"
	run "$RLWRAP" status --short
	assert_output "claude five_hour 92%"
}

@test "readings are per account, and an older reading never replaces a newer one" {
	feed "$READ/claude-five-hour-warning.jsonl" -a work -- claude -p x
	warning_at older 1796050800 0.50
	RLWRAP_TEST_NOW=2026-11-30T11:00:00Z feed older -a work -- claude -p x
	assert_equal "$(db "select used from usage_readings where account = 'work' and win = 'five_hour'")" 0.92
	warning_at newer 1796050800 0.97
	RLWRAP_TEST_NOW=2026-11-30T12:30:00Z feed newer -a work -- claude -p x
	assert_equal "$(db "select used from usage_readings where account = 'work' and win = 'five_hour'")" 0.97
	feed "$READ/claude-five-hour-warning.jsonl" -a personal -- claude -p x
	assert_equal "$(db "select count(*) from usage_readings where win = 'five_hour'")" 2
	assert_equal "$(db "select used from usage_readings where account = 'personal' and win = 'five_hour'")" 0.92
}

@test "a run without readings writes none, and a reading whose window reset since says so" {
	success_stream ok
	feed ok -- claude -p x
	assert_equal "$(db "select count(*) from usage_readings")" 0
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	RLWRAP_TEST_NOW=2026-11-30T15:30:00Z run "$RLWRAP" status
	assert_line --partial "five_hour: 92% used, allowed_warning, read 3h30m ago"
	assert_line --partial "; the window has reset since"
	RLWRAP_TEST_NOW=2026-11-30T15:30:00Z run "$RLWRAP" status --short
	assert_output "claude ok"
}

@test "Codex token_count: primary and secondary windows with their lengths and resets" {
	feed "$READ/codex-token-count.jsonl" -- ./codex exec --json x
	run "$RLWRAP" status --json
	assert_success
	assert_equal "$(jq -c '[.readings[] | [.family, .window, .used, .window_secs, .resets_at]]' <<< "$output")" \
		'[["codex","primary",0.93,18000,"2026-11-30T15:00:00Z"],["codex","secondary",0.41,604800,"2026-12-06T15:00:00Z"]]'
	feed "$READ/codex-token-count-relative.jsonl" -- ./codex exec --json x
	assert_equal "$(reading primary used)" 0.125
	assert_equal "$(reading primary resets_at)" 2026-11-30T14:30:00Z
}

@test "a warning with only its threshold reads as that much used, scoped to its model class" {
	feed "$READ/claude-opus-weekly-warning.jsonl" -- claude -p x
	assert_equal "$(reading seven_day_opus used)" 0.95
	assert_equal "$(reading seven_day_opus model)" opus
	assert_equal "$(reading seven_day_opus window_secs)" 604800
}

# ---- the reserve ----

@test "reserve 10%: a reading at 92% refuses the next batch spawn with 75, reason reserve, no breaker" {
	reserve_config 10%
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	run --separate-stderr "$RLWRAP" --signal-file sig.json -- claude -p next
	assert_failure 75
	! ran || fail "the child was started"
	assert_equal "$stderr" "rlwrap: refused: claude (account default) is in its reserve: five_hour (8% left, the reserve keeps 10%) until 2026-11-30T15:00:00Z (2026-11-30 15:00 UTC, in 3h0m)"
	assert_equal "$(jq -c '[.reason, .refused_by, .resets_at, .exit_code]' sig.json)" \
		'["reserve","reserve","2026-11-30T15:00:00Z",75]'
	assert_equal "$(db "select count(*) from breakers where state != 'closed'")" 0
	run "$RLWRAP" history
	assert_line --partial "claude refused reserve exit=75"
	assert_equal "$(reading five_hour held)" true
	run "$RLWRAP" status --short
	assert_output "claude reserve 3h00m"
}

@test "reserve: a --pty spawn and a --priority high spawn pass; --force too" {
	reserve_config 10%
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	run "$RLWRAP" --pty -- claude -p now < /dev/null
	assert_success
	ran || fail "the --pty spawn did not run"
	rm "$FAKE_MARKER"
	run "$RLWRAP" --priority high -- claude -p now
	assert_success
	ran || fail "the --priority high spawn did not run"
	rm "$FAKE_MARKER"
	run "$RLWRAP" --force -- claude -p now
	assert_success
	ran || fail "the --force spawn did not run"
	run -75 "$RLWRAP" --priority normal -- claude -p later
	run -125 "$RLWRAP" --priority urgent -- claude -p later
	assert_output --partial "--priority urgent: not high or normal"
}

@test "reserve: --wait holds a batch spawn until the window's reset, then it runs" {
	reserve_config 10%
	warning_at soon $((T0 + 3))
	feed soon -- claude -p x
	start=$(date +%s%N)
	run --separate-stderr timeout 60 "$RLWRAP" -w1m -- claude -p next
	assert_success
	ran || fail "the spawn never ran"
	[ "$(ms_since "$start")" -ge 2000 ] || fail "it did not wait for the reset"
	assert_equal "$(db "select count(*) from runs where state = 'refused'")" 0
	# beyond the --wait budget: refused at once
	warning_at later $((T0 + 3600))
	feed later --force -- claude -p x
	run -75 "$RLWRAP" -w1m -- claude -p next
	assert_output --partial "beyond the --wait budget of 1m0s"
}

@test "reserve: seven_day_opus in its reserve holds opus spawns only" {
	reserve_config 10%
	feed "$READ/claude-opus-weekly-warning.jsonl" -- claude -p x
	run -75 "$RLWRAP" -m claude-opus-4-6 -- claude -p opus
	assert_output --partial "is in its reserve: seven_day_opus (5% left, the reserve keeps 10%)"
	! ran || fail "the opus spawn ran"
	run "$RLWRAP" -m claude-sonnet-4-5 -- claude -p sonnet
	assert_success
	ran || fail "the sonnet spawn was held"
	rm "$FAKE_MARKER"
	run "$RLWRAP" -- claude -p unknown-model
	assert_success
	ran || fail "a spawn of no stated model was held"
}

@test "reserve 5h:5% 7d:10%: each window is held by its own share" {
	reserve_config "5h:5% 7d:10%"
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	run "$RLWRAP" -- claude -p fits
	assert_success
	warning_at weekly 1796569200 0.93 seven_day
	feed weekly -- claude -p x
	run -75 "$RLWRAP" -- claude -p held
	assert_output --partial "seven_day (7% left, the reserve keeps 10%) until 2026-12-06T15:00:00Z"
}

@test "reserve: another family and another account are not held" {
	reserve_config 10%
	feed "$READ/claude-five-hour-warning.jsonl" -a work -- claude -p x
	run "$RLWRAP" -a personal -- claude -p x
	assert_success
	run -75 "$RLWRAP" -a work -- claude -p x
	feed "$READ/codex-token-count.jsonl" -- ./codex exec --json x
	run "$RLWRAP" -- ./codex exec --json y
	assert_success
}

@test "a reserve that is not a share is a config problem naming the value" {
	reserve_config "five percent"
	run "$RLWRAP" config check
	assert_failure
	assert_output --partial "reserve: 'five percent' is not SHARE% or up to 4 of WINDOW:SHARE%"
	reserve_config "5h:100%"
	run "$RLWRAP" config check
	assert_failure
	assert_output --partial "reserve: '5h:100%'"
}

@test "on_reserve fires once when a reading puts its window in the reserve" {
	cat > log-event <<-'EOF'
		#!/bin/sh
		printf '%s|%s|%s|%s|%s|%s|%s\n' "$RLWRAP_EVENT" "$RLWRAP_FAMILY" "$RLWRAP_SCOPE" "$RLWRAP_ACCOUNT" \
		    "$RLWRAP_REASON" "$RLWRAP_RESETS_AT" "$RLWRAP_MESSAGE" >> "$BATS_TEST_TMPDIR/events"
	EOF
	chmod +x log-event
	printf '[family.claude]\nreserve = 10%%\n[hooks]\non_reserve = %s\n' "$PWD/log-event" > "$RLWRAP_CONFIG"
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	for _ in $(seq 50); do [ -s events ] && break; sleep 0.1; done
	assert_equal "$(cat events)" \
		"reserve|claude|*|default|reserve|2026-11-30T15:00:00Z|five_hour: 8% left, the reserve keeps 10%"
	# the same window read again inside the reserve: no second event
	feed "$READ/claude-five-hour-warning.jsonl" --priority high -- claude -p y
	sleep 0.5
	assert_equal "$(wc -l < events)" 1
}

# ---- the runway ----

@test "runway: at the window's pace so far, out before the reset or lasting to it" {
	feed "$READ/claude-five-hour-warning.jsonl" -- claude -p x
	# five_hour began at 10:00; 92% in 2h leaves 8% for 10m26s more (shown rounded up)
	assert_equal "$(reading five_hour runway_secs | cut -d. -f1)" 626
	assert_equal "$(reading five_hour out_before_reset)" true
	assert_equal "$(reading seven_day out_before_reset)" false
	RLWRAP_TEST_NOW=2026-11-30T12:05:00Z run "$RLWRAP" status
	assert_line --partial "five_hour: 92% used, allowed_warning, read 5m0s ago"
	assert_line --partial "; at this pace: out in 5m27s, before the reset in 2h55m"
	assert_line --partial "seven_day: 6% used, read 5m0s ago, resets 2026-12-06T15:00:00Z (2026-12-06 15:00 UTC, in 6d2h); at this pace: lasts to the reset in 6d2h"
	# a reading of a window whose length is unknown cannot say
	feed "$READ/codex-token-count-relative.jsonl" -- ./codex exec --json x
	assert_equal "$(reading primary out_before_reset)" false
	printf '%s\n' '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796050800,"rateLimitType":"overage","utilization":0.5}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > overage
	feed overage -- claude -p x
	assert_equal "$(reading overage runway_secs)" null
}

@test "runway: the runs metered since the reading, on any host, move it; usage and metrics say it" {
	# 40% of five_hour read at 12:00 (the window began at 10:00) by a run of 1000 tokens:
	# at that pace it lasts to the reset
	printf '%s\n' \
		'{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1796050800,"rateLimitType":"five_hour","utilization":0.40}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":600,"output_tokens":400}}' > r40
	feed r40 -- claude -p x
	run "$RLWRAP" status
	assert_line --partial "five_hour: 40% used, allowed, read 0s ago, resets 2026-11-30T15:00:00Z (2026-11-30 15:00 UTC, in 3h0m); at this pace: lasts to the reset in 3h0m"
	# 500 tokens metered since by another host's run: 60% used by 12:10, out at 13:36:40
	printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":300,"output_tokens":200}}' > more
	RLWRAP_TEST_NOW=2026-11-30T12:10:00Z RLWRAP_HOST=other feed more -- claude -p y
	RLWRAP_TEST_NOW=2026-11-30T12:10:00Z run "$RLWRAP" status
	assert_line --partial "five_hour: 40% used, allowed, read 10m0s ago"
	assert_line --partial "; at this pace: out in 1h26m, before the reset in 2h50m"
	assert_equal "$(RLWRAP_TEST_NOW=2026-11-30T12:10:00Z reading five_hour runway_secs | cut -d. -f1)" 5200
	RLWRAP_TEST_NOW=2026-11-30T12:10:00Z run "$RLWRAP" usage
	assert_success
	assert_line "windows:"
	assert_line --partial "five_hour: 40% used, allowed, read 10m0s ago, resets 2026-11-30T15:00:00Z (2026-11-30 15:00 UTC, in 2h50m); at this pace: out in 1h26m, before the reset in 2h50m"
	RLWRAP_TEST_NOW=2026-11-30T12:10:00Z run "$RLWRAP" metrics
	assert_success
	assert_line --regexp '^rlwrap_usage_runway_seconds\{family="claude",account="default",window="five_hour",model=""\} 5200(\.0*)?$'
	# another account's runs are not this window's
	RLWRAP_TEST_NOW=2026-11-30T12:10:00Z feed more -a other -- claude -p z
	assert_equal "$(RLWRAP_TEST_NOW=2026-11-30T12:10:00Z reading five_hour runway_secs | cut -d. -f1)" 5200
}
