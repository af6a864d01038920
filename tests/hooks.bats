#!/usr/bin/env bats
# The [hooks] of rlwrap.conf(5): on_trip, on_close and on_wait run once per
# transition (never once per refused spawn) with the event in RLWRAP_*
# variables; a hook that hangs is killed after [hooks] timeout without
# holding up the wrapped command's output or exit status; a failing hook is
# reported once, in hooks.log beside the state file when stderr is not a
# terminal.  Hooks run detached, so each test waits for what they write.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW
	export FAKE_MARKER="$BATS_TEST_TMPDIR/ran"
	# log-event: one line per call, the event's variables in a fixed order.
	cat > log-event <<-'EOF'
		#!/bin/sh
		printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$RLWRAP_EVENT" "$RLWRAP_FAMILY" "$RLWRAP_SCOPE" \
		    "$RLWRAP_ACCOUNT" "$RLWRAP_REASON" "$RLWRAP_RESETS_AT" "$RLWRAP_RESET_SOURCE" \
		    "$RLWRAP_MESSAGE" >> "$HOOK_EVENTS"
	EOF
	chmod +x log-event
	export HOOK_EVENTS="$BATS_TEST_TMPDIR/events"
	LOG="$(dirname "$RLWRAP_DB")/hooks.log"
}

ran() { [ -f "$FAKE_MARKER" ]; }

# hooks_config [KEY = VALUE ...]: a [hooks] section of the given lines.
hooks_config() {
	printf '[hooks]\n' > "$RLWRAP_CONFIG"
	printf '%s\n' "$@" >> "$RLWRAP_CONFIG"
}

# lines_within FILE N: gives detached hooks time to run (each is quick),
# up to 5 s for FILE to hold N lines.
lines_within() {
	local file=$1 n=$2
	for _ in $(seq 50); do
		[ -f "$file" ] && [ "$(wc -l < "$file")" -ge "$n" ] && break
		sleep 0.1
	done
	sleep 0.3   # and a moment more: a second line must not come either
}

@test "on_trip: once per transition, with the breaker's variables; refused spawns and extensions add none [slow]" {
	hooks_config "on_trip = $PWD/log-event"
	limit_stream limit $((T0 + 4 * 3600))
	FAKE_STREAM=limit exits 0 "$RLWRAP" -q -- claude -p x
	lines_within "$HOOK_EVENTS" 1
	assert_equal "$(cat "$HOOK_EVENTS")" \
		"trip|claude|*|default|usage-limit|2026-11-30T16:00:00Z|provider|You have hit your limit"
	# Three refused spawns and a later limit (the reset moves): no new transition.
	for _ in 1 2 3; do exits 75 "$RLWRAP" -- claude 2> /dev/null; done
	limit_stream later $((T0 + 5 * 3600))
	FAKE_STREAM=later exits 0 "$RLWRAP" -q --force -- claude -p x
	lines_within "$HOOK_EVENTS" 2
	assert_equal "$(wc -l < "$HOOK_EVENTS")" 1
	# Closed, then tripped again by hand: a second transition.
	"$RLWRAP" reset claude > /dev/null
	"$RLWRAP" trip --for 1h --reason rate-limit claude:opus@work > /dev/null
	lines_within "$HOOK_EVENTS" 2
	assert_equal "$(sed -n 2p "$HOOK_EVENTS")" \
		"trip|claude|opus|work|rate-limit|2026-11-30T13:00:00Z|manual|manual trip"
	assert_equal "$(wc -l < "$HOOK_EVENTS")" 2
}

@test "on_trip: ten wrappers hitting the limit at once run it once [slow]" {
	hooks_config "on_trip = $PWD/log-event"
	limit_stream limit $((T0 + 3600))
	local pids=() i
	for i in $(seq 10); do
		# All past the gate before any trips: the limit comes after a second.
		FAKE_STREAM=limit "$RLWRAP" -q -f claude -- sh -c 'sleep 1; exec claude -p x' > /dev/null 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do exits 0 wait "${pids[$i]}"; done
	assert_equal "$(sqlite3 "$RLWRAP_DB" "select count(*) from runs where reason = 'usage-limit'")" 10
	lines_within "$HOOK_EVENTS" 2
	assert_equal "$(wc -l < "$HOOK_EVENTS")" 1
	assert_equal "$(sqlite3 "$RLWRAP_DB" "select count(*) from breaker_history where event = 'trip'")" 1
}

@test "on_close: a success after the trip, a reset, each once; a reset of a closed breaker none [slow]" {
	hooks_config "on_close = $PWD/log-event"
	"$RLWRAP" trip --for 1h codex > /dev/null
	"$RLWRAP" trip --for 1h gemini > /dev/null
	# codex succeeds after its trip (past the reset, as the probe).
	RLWRAP_TEST_NOW=2026-11-30T13:00:01Z exits 0 "$RLWRAP" -f codex -- true
	lines_within "$HOOK_EVENTS" 1
	assert_equal "$(cat "$HOOK_EVENTS")" \
		"close|codex|*|default|usage-limit|2026-11-30T13:00:00Z|manual|manual trip"
	"$RLWRAP" reset --all > /dev/null
	lines_within "$HOOK_EVENTS" 2
	assert_equal "$(sed -n 2p "$HOOK_EVENTS" | cut -d'|' -f1-2)" "close|gemini"
	"$RLWRAP" reset --all > /dev/null
	lines_within "$HOOK_EVENTS" 3
	assert_equal "$(wc -l < "$HOOK_EVENTS")" 2
}

@test "on_close: a probe's first output closes the breaker; its hook runs after the child" {
	hooks_config "on_close = $PWD/log-event"
	"$RLWRAP" trip --for 10m claude > /dev/null
	success_stream ok
	# Output, then 2 s more: the close is in the store at once, its hook only after.
	RLWRAP_TEST_NOW=2026-11-30T12:11:00Z FAKE_STREAM=ok "$RLWRAP" -f claude -- sh -c 'claude; sleep 2' > /dev/null &
	local pid=$!
	for _ in $(seq 30); do [ "$(breaker_field claude state)" = closed ] && break; sleep 0.1; done
	assert_equal "$(breaker_field claude state)" closed
	kill -0 "$pid"
	[ ! -e "$HOOK_EVENTS" ] || fail "the hook ran while the child was still running"
	exits 0 wait "$pid"
	lines_within "$HOOK_EVENTS" 1
	assert_equal "$(cut -d'|' -f1-3 "$HOOK_EVENTS")" "close|claude|*"
}

@test "on_wait: once when a spawn starts waiting, with the blocking breaker" {
	hooks_config "on_wait = $PWD/log-event"
	"$RLWRAP" trip --for 2s --reason rate-limit claude > /dev/null
	RLWRAP_POLL_MS=100 run timeout 20 "$RLWRAP" --wait=1m -- claude
	assert_success
	ran
	lines_within "$HOOK_EVENTS" 1
	assert_equal "$(cat "$HOOK_EVENTS")" \
		"wait|claude|*|default|rate-limit|2026-11-30T12:00:02Z|manual|manual trip"
}

@test "a hook that hangs is killed after the timeout; the child's output and status are intact at once [slow]" {
	printf '#!/bin/sh\necho $$ > "%s/hang.pid"\nexec sleep 60\n' "$PWD" > hang-hook
	chmod +x hang-hook
	hooks_config "on_trip = $PWD/hang-hook" "timeout = 8s"
	limit_stream limit $((T0 + 3600))
	local start end limit
	# 8 s for the hook: room for a loaded machine or a sanitizer build to
	# start and end rlwrap well before the hook's end (the limit stays
	# below 7 s).
	limit=$(time_limit_ms 2500)
	[ "$limit" -lt 7000 ] || limit=7000
	start=$(date +%s%N)
	# run captures stdout and stderr through a pipe: a hook holding either
	# would keep it open for a minute.
	FAKE_STREAM=limit FAKE_EXIT=3 run "$RLWRAP" -- claude -p x
	end=$(date +%s%N)
	assert_failure 3
	assert_line --index 0 --partial '"type":"system"'
	assert_line --partial "You have hit your limit"
	assert_line "rlwrap: claude: usage-limit, resets 2026-11-30T13:00:00Z (in 1h0m, provider)"
	# Well before the hook's 8 s are up.
	[ $(( (end - start) / 1000000 )) -lt "$limit" ] || fail "rlwrap took $(( (end - start) / 1000000 )) ms, more than $limit ms"
	for _ in $(seq 50); do [ -f hang.pid ] && break; sleep 0.1; done
	kill -0 "$(cat hang.pid)"                      # the hook runs on after rlwrap
	for _ in $(seq 200); do kill -0 "$(cat hang.pid)" 2> /dev/null || break; sleep 0.1; done
	! kill -0 "$(cat hang.pid)" 2> /dev/null || fail "the hook outlived its timeout"
	for _ in $(seq 100); do [ -s "$LOG" ] && break; sleep 0.1; done
	assert_equal "$(cat "$LOG")" "rlwrap: hook on_trip ($PWD/hang-hook): still running after 8s: killed"
}

@test "a failing hook is reported once and otherwise ignored" {
	hooks_config "on_trip = exit-with 3" "on_close = no-such-hook-program --x"
	"$RLWRAP" trip --for 1h claude > /dev/null
	run "$RLWRAP" reset claude
	assert_success
	assert_output "closed 1 breaker"
	for _ in $(seq 30); do [ "$(wc -l < "$LOG" 2> /dev/null)" -ge 2 ] && break; sleep 0.1; done
	sleep 0.3
	# One line each, and what the hook itself wrote to stderr.
	run sort "$LOG"
	assert_output "rlwrap: hook on_close (no-such-hook-program --x): cannot run it: not found on PATH
rlwrap: hook on_trip (exit-with 3): exited with status 3
to stderr"
}

@test "a value with shell metacharacters runs through /bin/sh -c; plain words run directly" {
	hooks_config 'on_trip = echo "$RLWRAP_FAMILY:$RLWRAP_SCOPE" > shell.out' \
		"on_close = record-args --to=x  two   words"
	export FAKE_RECORD="$BATS_TEST_TMPDIR/args.out"
	"$RLWRAP" trip --for 1h claude:opus > /dev/null
	"$RLWRAP" reset claude > /dev/null
	lines_within shell.out 1
	lines_within "$FAKE_RECORD" 1
	assert_equal "$(cat shell.out)" "claude:opus"
	# Direct: split at blanks, each word as it is.
	assert_equal "$(cat "$FAKE_RECORD")" "$PWD --to=x two words"
}

@test "[hooks]: an unknown key or a bad timeout is a config error naming the line" {
	hooks_config "on_trip = true" "on_tripp = true"
	run "$RLWRAP" config check
	assert_failure 1
	assert_output --partial "$RLWRAP_CONFIG:3: unknown key 'on_tripp' in [hooks] (did you mean on_trip?)"
	hooks_config "timeout = soon"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "$RLWRAP_CONFIG:2: timeout: 'soon'"
}
