#!/usr/bin/env bats
# The state file and the breakers end to end: status, reset, trip, wait,
# record; fail-open on broken stores; many writers at once.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	export RLWRAP_TEST_NOW=$NOW     # 2026-11-30T12:00:00Z = 1796040000
	T0=1796040000
}

@test "status on a fresh store: nothing open, schema is stable" {
	run "$RLWRAP" status
	assert_success
	assert_output "no open breakers"
	run "$RLWRAP" status --json
	assert_success
	assert_equal "$(echo "$output" | jq -c 'keys')" \
		'["adaptive_limits","backend","breakers","budgets","hosts_away","journal","memo","now","readings","releases","running","runs_24h","store","waiting"]'
	if on_postgresql; then
		echo "$output" | jq -e '.backend == "postgresql" and .journal.in_use == false and .journal.pending_runs == 0'
	else
		echo "$output" | jq -e '.backend == "sqlite" and .journal == null'
	fi
	assert_equal "$(echo "$output" | jq -r .now)" "$NOW"
	on_postgresql || [ "$(stat -c %a "$RLWRAP_DB")" = 600 ]
}

@test "status --short: nothing at all on a fresh store" {
	run "$RLWRAP" status --short
	assert_success
	assert_output ""
	[ "$(RLWRAP_TEST_NOW=$NOW "$RLWRAP" status --short | wc -c)" = 0 ]
}

@test "status --short: blocking breakers with the time left, then the families that ran lately" {
	"$RLWRAP" trip --for 83m claude > /dev/null
	"$RLWRAP" trip --for 3h codex:o3@work > /dev/null
	"$RLWRAP" trip --for 50h pi > /dev/null
	"$RLWRAP" -q -f gemini -- true
	"$RLWRAP" -q -f codex -- true
	"$RLWRAP" -q -- true                                  # generic: not a family that matters
	RLWRAP_TEST_NOW=2026-11-29T11:59:00Z "$RLWRAP" -q -f qwen -- true   # over a day ago
	run "$RLWRAP" status --short
	assert_success
	assert_output "claude 1h23m · codex:o3@work 3h00m · gemini ok · pi 2d2h"
	# Past its reset claude blocks nothing, and it did not run: gone.
	RLWRAP_TEST_NOW=2026-11-30T13:30:00Z run "$RLWRAP" status --short
	assert_output "codex:o3@work 1h30m · gemini ok · pi 2d0h"
}

@test "status --short: under a minute, and a probe that runs" {
	"$RLWRAP" trip --for 30s claude > /dev/null
	run "$RLWRAP" status --short
	assert_output "claude <1m"
	export RLWRAP_TEST_NOW=2026-11-30T12:01:00Z
	"$RLWRAP" -f claude -- sh -c 'echo started > "$0"; sleep 5' "$BATS_TEST_TMPDIR/probe.out" > /dev/null 2>&1 &
	local probe=$!
	for _ in $(seq 50); do [ -f "$BATS_TEST_TMPDIR/probe.out" ] && break; sleep 0.1; done
	run "$RLWRAP" status --short
	assert_output "claude probing"
	kill "$probe"
	exits 143 wait "$probe"   # rlwrap ends the way its child did: SIGTERM
}

@test "status --short: outside text is shown visibly; --json or --all with it is a usage error" {
	RLWRAP_ACCOUNT=$'team\e[2J' "$RLWRAP" trip --for 1h claude > /dev/null
	run "$RLWRAP" status --short
	assert_success
	refute_output --partial $'\e'
	assert_output --regexp '^claude@team.*2J 1h00m$'
	run "$RLWRAP" status --short --json
	assert_failure 2
	assert_output --partial "--short takes neither --json nor --all"
	run "$RLWRAP" status --all --short
	assert_failure 2
}

@test "record trips on a provider reset; status shows it in UTC, local and relative" {
	limit_stream "$BATS_TEST_TMPDIR/s" $((T0 + 4 * 3600))
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/s"
	assert_success
	assert_output --partial "claude (account default): trip, open until 2026-11-30T16:00:00Z"
	TZ=Europe/Rome run "$RLWRAP" status
	assert_success
	assert_output --regexp "^claude +open +usage-limit +resets 2026-11-30T16:00:00Z \(2026-11-30 17:00 CET, in 4h0m\) from provider; 1 trip: You have hit your limit"
	assert_output --partial "claude           1 run, 1 failed"
	run "$RLWRAP" status --json
	echo "$output" | jq -e '.breakers[0] | .key == "claude" and .account == "default" and .scope == "*"
		and .state == "open" and .reason == "usage-limit" and .resets_at == "2026-11-30T16:00:00Z"
		and .retry_after_secs == 14400 and .reset_source == "provider" and .trips == 1 and .probe == null'
	echo "$output" | jq -e '.runs_24h == [{"family":"claude","runs":1,"failures":1}]'
}

@test "record: never shorten: a bare 429 after a provider reset keeps the provider's time" {
	limit_stream "$BATS_TEST_TMPDIR/s" $((T0 + 4 * 3600))
	bare_429 "$BATS_TEST_TMPDIR/b"
	"$RLWRAP" record "$BATS_TEST_TMPDIR/s"
	RLWRAP_TEST_NOW=$((T0 + 60)) run "$RLWRAP" record "$BATS_TEST_TMPDIR/b"
	assert_success
	assert_output --partial "keep, open until 2026-11-30T16:00:00Z"
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T16:00:00Z"
	assert_equal "$(breaker_field claude reset_source)" "provider"
	assert_equal "$(breaker_field claude trips)" "2"
}

@test "record: a provider reset replaces a guess, even an earlier one" {
	bare_429 "$BATS_TEST_TMPDIR/b"
	limit_stream "$BATS_TEST_TMPDIR/s" $((T0 + 600))
	"$RLWRAP" record "$BATS_TEST_TMPDIR/b"
	"$RLWRAP" record "$BATS_TEST_TMPDIR/b"
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T12:30:00Z"   # 15m, then 30m
	assert_equal "$(breaker_field claude reset_source)" "default"
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/s"
	assert_output --partial "replace, open until 2026-11-30T12:10:00Z"
	assert_equal "$(breaker_field claude reset_source)" "provider"
}

@test "escalation doubles each guess and caps at 24h" {
	bare_429 "$BATS_TEST_TMPDIR/b"
	local now=$T0 want=(900 1800 3600 7200 14400 28800 57600 86400 86400) reset
	for w in "${want[@]}"; do
		RLWRAP_TEST_NOW=$now "$RLWRAP" record "$BATS_TEST_TMPDIR/b" >/dev/null
		reset=$(db "select cast(resets_at as int) from breakers where family='claude'")
		assert_equal "$((reset - now))" "$w"
		now=$((reset + 1))
	done
}

@test "success closes the breaker only when the run started after the last trip" {
	limit_stream "$BATS_TEST_TMPDIR/s" $((T0 + 3600))
	success_stream "$BATS_TEST_TMPDIR/ok"
	"$RLWRAP" record "$BATS_TEST_TMPDIR/s"
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/ok"     # same second as the trip
	assert_success
	refute_output --partial "closed"
	assert_equal "$(breaker_field claude state)" "open"
	RLWRAP_TEST_NOW=$((T0 + 5)) run "$RLWRAP" record "$BATS_TEST_TMPDIR/ok"
	assert_output --partial "closed 1 breaker"
	assert_equal "$(breaker_field claude state)" "closed"
	run "$RLWRAP" status
	assert_output --partial "no open breakers"
	assert_equal "$(db "select group_concat(event) from breaker_history")" "trip,close"
}

@test "record: the overage false positive never trips" {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		'{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1796054400,"rateLimitType":"five_hour","overageStatus":"rejected","overageDisabledReason":"org_level_disabled","isUsingOverage":false}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$BATS_TEST_TMPDIR/o"
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/o"
	assert_success
	assert_equal "$(db "select count(*) from breakers")" 0
	assert_equal "$(db "select reason from runs")" none
}

@test "a model-scoped breaker blocks only its model; accounts are separate" {
	limit_stream "$BATS_TEST_TMPDIR/s" $((T0 + 7200)) seven_day_opus
	"$RLWRAP" record --account work "$BATS_TEST_TMPDIR/s"
	assert_equal "$(breaker_field 'claude:opus@work' state)" open
	run timeout 10 "$RLWRAP" wait --timeout 0 claude:claude-sonnet-4-5@work
	assert_success
	run timeout 10 "$RLWRAP" wait --timeout 0 claude@work
	assert_success
	run timeout 10 "$RLWRAP" wait --timeout 0 claude:claude-opus-4-6
	assert_success
	run timeout 10 "$RLWRAP" wait --timeout 1 claude:claude-opus-4-6@work
	assert_failure 75
	RLWRAP_ACCOUNT=work run timeout 10 "$RLWRAP" wait --timeout 0 claude:opus
	assert_failure 75
}

@test "trip and reset by hand" {
	run "$RLWRAP" trip --for 2h codex@work
	assert_success
	assert_output --partial "codex@work (account work): open until 2026-11-30T14:00:00Z"
	run "$RLWRAP" trip --until 2026-12-01T00:00:00Z --reason credit-exhausted gemini
	assert_success
	assert_equal "$(breaker_field gemini reason)" credit-exhausted
	assert_equal "$(breaker_field gemini reset_source)" manual
	run "$RLWRAP" reset codex
	assert_failure 1
	assert_output --partial "no breaker codex (account default)"
	run "$RLWRAP" reset codex@work
	assert_success
	assert_output --regexp '^closed 1 breaker(; other hosts see it within [0-9]+s \(memo_ttl\))?$'
	assert_equal "$(breaker_field codex@work state)" closed
	run "$RLWRAP" reset --all
	assert_output --regexp '^closed 1 breaker(; other hosts see it within [0-9]+s \(memo_ttl\))?$'
	run "$RLWRAP" status --all --json
	echo "$output" | jq -e '[.breakers[].state] == ["closed","closed"]'
}

@test "trip, reset and wait usage errors exit 2" {
	run "$RLWRAP" trip claude
	assert_failure 2
	run "$RLWRAP" trip --for 1h --until 2027-01-01T00:00:00Z claude
	assert_failure 2
	run "$RLWRAP" trip --until 2020-01-01T00:00:00Z claude
	assert_failure 2
	assert_output --partial "in the future"
	run "$RLWRAP" trip --for 1h --reason none claude
	assert_failure 2
	run "$RLWRAP" trip --for soon claude
	assert_failure 2
	run "$RLWRAP" trip --for 1h 'cla ude'
	assert_failure 2
	assert_output --partial "not a key"
	run "$RLWRAP" reset
	assert_failure 2
	run "$RLWRAP" reset --all claude
	assert_failure 2
	run "$RLWRAP" wait
	assert_failure 2
	run "$RLWRAP" record --family gpt /dev/null
	assert_failure 2
}

@test "wait returns when the reset comes, on the injected clock" {
	# 4 s: wait still finds the breaker open when it starts on a loaded
	# machine.  Success is the reset's doing: its --timeout would exit 75.
	"$RLWRAP" trip --for 4s claude
	run timeout 60 "$RLWRAP" wait --timeout 50 claude
	assert_success
	assert_output --partial "waiting for claude"
}

@test "wait ends early when another process resets the breaker" {
	"$RLWRAP" trip --for 1h claude
	local err="$BATS_TEST_TMPDIR/err"
	RLWRAP_POLL_MS=100 timeout 20 "$RLWRAP" wait --timeout 15 claude 2> "$err" &
	local pid=$!
	for _ in $(seq 300); do grep -q "waiting for claude" "$err" && break; sleep 0.1; done
	assert_regex "$(cat "$err")" "^rlwrap: waiting for claude: open until $(breaker_field claude resets_at) "
	# Still blocked a while later: wait did not return on its own.
	sleep 1
	kill -0 "$pid" || fail "wait returned before the reset"
	local t0 took limit
	limit=$(time_limit_ms 3000)
	t0=$(date +%s%N)
	"$RLWRAP" reset claude
	exits 0 wait "$pid"
	took=$(ms_since "$t0")
	[ "$took" -lt "$limit" ] || fail "wait took $took ms after the reset, more than $limit ms"
}

@test "wait: SIGINT exits 130, a timeout 75" {
	"$RLWRAP" trip --for 1h claude
	local t0 took limit
	limit=$(time_limit_ms 10000)   # a hang's bound: ten times the 1 s
	t0=$(date +%s%N)
	run timeout 40 "$RLWRAP" wait --timeout 1 claude
	took=$(ms_since "$t0")
	assert_failure 75
	assert_output --partial "still blocked"
	[ "$took" -lt "$limit" ] || fail "a 1 s timeout took $took ms, more than $limit ms"
	timeout 20 "$RLWRAP" wait claude 2>/dev/null &
	local pid=$! rc=0
	sleep 1
	kill -INT "$pid"
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
}

@test "a bad config key is named with its file and line, and the command goes on" {
	printf '[breaker]\nenabled = true\ncooldown = 5m\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "$RLWRAP_CONFIG:3: unknown key 'cooldown' in [breaker]"
	assert_output --partial "no open breakers"
}

@test "a typo in the config never stops an agent or the state commands" {
	printf '[family.claude]\nmax_concurent = 3\n[stroe]\npath = /elsewhere\n[empty]\n' > "$RLWRAP_CONFIG"
	run --separate-stderr "$RLWRAP" -- sh -c 'echo child ran'
	assert_success
	assert_output "child ran"
	# Said once, each at its own line, with the key meant.
	assert_equal "$(grep -c "max_concurent" <<< "$stderr")" 1
	[[ $stderr == *"$RLWRAP_CONFIG:2: unknown key 'max_concurent' in [family.claude] (did you mean max_concurrent?)"* ]] ||
		fail "no line for the key: $stderr"
	[[ $stderr == *"$RLWRAP_CONFIG:3: unknown section [stroe] (did you mean [store]?)"* ]] ||
		fail "no line for the section: $stderr"
	[[ $stderr == *"$RLWRAP_CONFIG:5: unknown section [empty]"* ]] || fail "the empty section passed: $stderr"
	run "$RLWRAP" trip --for 1h claude
	assert_success
	run --separate-stderr "$RLWRAP" status --short
	assert_success
	assert_output --regexp '^claude 1h'
	run "$RLWRAP" reset claude
	assert_success
	assert_output --partial "closed 1 breaker"
}

@test "on_config_error = closed refuses with a bad config: 125 for the wrapper, 1 for state commands" {
	printf '[breaker]\non_config_error = closed\nbogus = 1\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" -- sh -c 'echo child ran'
	assert_failure 125
	refute_output --partial "child ran"
	assert_output --partial "on_config_error = closed"
	run "$RLWRAP" status
	assert_failure 1
	assert_output --partial "$RLWRAP_CONFIG:3: unknown key 'bogus' in [breaker]"
}

@test "config check prints every problem of the config and the store; config show masks passwords" {
	run "$RLWRAP" config check
	assert_success
	assert_line --partial "config (none: the built-in defaults): ok"
	printf '[breaker]\nmin_confidence = 2\n[hooks]\non_trip = curl https://me:hunter2@hooks.example/t\n[family.claude]\nmax_concurent = 3\nbudget = 30000 tokens per 1m\n[junk]\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" config check
	assert_failure 1
	assert_line --partial "$RLWRAP_CONFIG:2: min_confidence"
	assert_line --partial "$RLWRAP_CONFIG:6: unknown key 'max_concurent'"
	assert_line --partial "$RLWRAP_CONFIG:8: unknown section [junk]"
	assert_line --regexp '^store .*: ok'
	run --separate-stderr "$RLWRAP" config show
	assert_success
	assert_line "[family.claude]"
	assert_line "budget = 30000 tokens per 1m0s"
	assert_line "min_confidence = 0.5"
	assert_line "on_trip = curl https://me:***@hooks.example/t"
	refute_output --partial hunter2
	run "$RLWRAP" config frobnicate
	assert_failure 2
}

@test "config: trip_on and min_confidence change what trips" {
	printf '[breaker]\ntrip_on = overloaded\nmin_confidence = 0.9\n' > "$RLWRAP_CONFIG"
	bare_429 "$BATS_TEST_TMPDIR/b"
	"$RLWRAP" record "$BATS_TEST_TMPDIR/b"
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' > "$BATS_TEST_TMPDIR/o"
	"$RLWRAP" record "$BATS_TEST_TMPDIR/o"   # confidence 0.8 < 0.9
	assert_equal "$(db "select count(*) from breakers")" 0
	printf '[breaker]\ntrip_on = overloaded\nmin_confidence = 0.8\ncooldown_rate_limit = 2m\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/o"
	assert_output --partial "open until 2026-11-30T12:02:00Z"
}

@test "store path from the config file; RLWRAP_DB beats it" {
	sqlite_only
	printf '[store]\npath = %s/cfg.db\n' "$BATS_TEST_TMPDIR" > "$RLWRAP_CONFIG"
	unset RLWRAP_DB
	"$RLWRAP" trip --for 1h claude
	[ -f "$BATS_TEST_TMPDIR/cfg.db" ]
	export RLWRAP_DB="$BATS_TEST_TMPDIR/env.db"
	"$RLWRAP" trip --for 1h claude
	[ -f "$RLWRAP_DB" ]
	printf '' > "$RLWRAP_CONFIG"
	unset RLWRAP_DB
	"$RLWRAP" trip --for 1h claude
	[ "$(stat -c %a "$XDG_STATE_HOME/rlwrap")" = 700 ]
	[ "$(stat -c %a "$XDG_STATE_HOME/rlwrap/state.db")" = 600 ]
}

# Runs a command as an unprivileged user when we are root (root ignores modes).
unprivileged() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- env RLWRAP_CONFIG=/nonexistent/config "$@"
	else
		"$@"
	fi
}

@test "fail-open: a directory that cannot be created or written" {
	sqlite_only
	touch "$BATS_TEST_TMPDIR/file"
	RLWRAP_DB="$BATS_TEST_TMPDIR/file/sub/state.db" run "$RLWRAP" trip --for 1h claude
	assert_failure 1
	assert_equal "${#lines[@]}" 1
	assert_output --partial "file/sub is not a directory"
	local dir; dir=$(mktemp -d /tmp/rlwrap-ro.XXXXXX); chmod 555 "$dir"
	RLWRAP_DB="$dir/state.db" run unprivileged "$RLWRAP" record /dev/null
	rm -rf "$dir"
	assert_failure 1
	assert_equal "${#lines[@]}" 1
	assert_output --regexp "cannot create|not writable"
}

@test "fail-open: a read-only file is reported; status still reads it" {
	sqlite_only
	local dir; dir=$(mktemp -d /tmp/rlwrap-ro.XXXXXX); chmod 755 "$dir"
	RLWRAP_DB="$dir/state.db" "$RLWRAP" trip --for 1h claude
	chmod 644 "$dir/state.db"
	RLWRAP_DB="$dir/state.db" run unprivileged "$RLWRAP" trip --for 2h claude
	assert_failure 1
	assert_equal "${#lines[@]}" 1
	assert_output --partial "not writable"
	RLWRAP_DB="$dir/state.db" run unprivileged "$RLWRAP" status
	rm -rf "$dir"
	assert_success
	assert_output --partial "claude"
}

@test "fail-open: a corrupt file (random bytes) is named corrupt; status exits 1" {
	sqlite_only
	head -c 16384 /dev/urandom > "$RLWRAP_DB"
	run "$RLWRAP" status
	assert_failure 1
	assert_output --partial "corrupt"
	run "$RLWRAP" status --json
	assert_failure 1
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/nothing" 2>&1
	assert_failure 1
	bare_429 "$BATS_TEST_TMPDIR/b"
	run "$RLWRAP" record "$BATS_TEST_TMPDIR/b"
	assert_failure 1
	assert_output --partial "corrupt"
	# The file is left as it was.
	[ "$(stat -c %s "$RLWRAP_DB")" = 16384 ]
}

@test "a database of a newer schema is refused untouched" {
	sqlite_only
	sqlite3 "$RLWRAP_DB" 'CREATE TABLE future (x); PRAGMA user_version = 42;'
	local sum; sum=$(md5sum < "$RLWRAP_DB")
	run "$RLWRAP" trip --for 1h claude
	assert_failure 1
	assert_output --partial "schema version 42 is newer"
	assert_equal "$(md5sum < "$RLWRAP_DB")" "$sum"
}

@test "fail-open: a database locked past the busy timeout" {
	sqlite_only
	"$RLWRAP" trip --for 1h claude
	local t0 took limit
	limit=$(time_limit_ms 3000)   # before the lock: it opens the store
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	timeout 20 sqlite3 "$RLWRAP_DB" < "$BATS_TEST_TMPDIR/fifo" > "$BATS_TEST_TMPDIR/locker.out" 2>&1 &
	local locker=$!
	exec 9> "$BATS_TEST_TMPDIR/fifo"
	echo "BEGIN EXCLUSIVE; INSERT INTO waits (at, kind) VALUES (1, 'lock'); SELECT 'locked';" >&9
	for _ in $(seq 300); do grep -q locked "$BATS_TEST_TMPDIR/locker.out" && break; sleep 0.1; done
	grep -q locked "$BATS_TEST_TMPDIR/locker.out" || fail "the locker never took the lock"
	t0=$(date +%s%N)
	RLWRAP_BUSY_TIMEOUT_MS=300 run timeout 10 "$RLWRAP" trip --for 2h claude
	took=$(ms_since "$t0")
	exec 9>&-
	wait "$locker" || true
	assert_failure 1
	assert_equal "${#lines[@]}" 1
	assert_output --partial "locked by another process"
	[ "$took" -lt "$limit" ] || fail "a 300 ms busy timeout took $took ms, more than $limit ms"
	# Once the lock is gone, the store works again.
	run "$RLWRAP" trip --for 2h claude
	assert_success
}

@test "stress: 40 concurrent records on one store keep every run and the latest reset" {
	# Timeouts that 40 contending processes on a loaded machine (and a
	# sanitizer build) stay within: a timed-out statement would send its
	# run to the journal, which this test is not about.
	printf '[store]\nconnect_timeout = 30s\nstatement_timeout = 30s\n' > "$RLWRAP_CONFIG"
	local i pids=()
	for i in $(seq 1 40); do
		limit_stream "$BATS_TEST_TMPDIR/s$i" $((T0 + 3600 + i * 60))
	done
	for i in $(seq 1 40); do
		timeout 60 "$RLWRAP" record "$BATS_TEST_TMPDIR/s$i" > "$BATS_TEST_TMPDIR/out$i" 2> "$BATS_TEST_TMPDIR/err$i" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || fail "record $((i + 1)) failed: $(cat "$BATS_TEST_TMPDIR/err$((i + 1))")"
	done
	run cat "$BATS_TEST_TMPDIR"/err*
	refute_output --partial "locked"
	assert_output ""
	assert_equal "$(db "select count(*) from runs")" 40
	assert_equal "$(db "select count(*) from breaker_history where family = 'claude'")" 40
	assert_equal "$(db "select cast(resets_at as int) from breakers")" $((T0 + 3600 + 40 * 60))
	assert_equal "$(breaker_field claude trips)" 40
}

@test "help lists the state commands" {
	run "$RLWRAP" help
	for c in status reset trip wait record; do
		assert_output --partial "  $c "
	done
}

@test "a config with a NUL byte or a line over 198 bytes is ignored whole, naming the line" {
	RLWRAP_CONFIG="$FIXTURES/fuzz/config/long-line-with-nul" run "$RLWRAP" status
	assert_success
	assert_output --partial "long-line-with-nul:2: a NUL byte (not a text file); the file is ignored"
	RLWRAP_CONFIG="$FIXTURES/fuzz/config/line-too-long" run "$RLWRAP" status
	assert_success
	assert_output --partial "line-too-long:4: line longer than 198 bytes"
	RLWRAP_CONFIG="$FIXTURES/fuzz/config/line-of-199-bytes" run "$RLWRAP" config check
	assert_failure 1
	assert_output --partial "line-of-199-bytes:1: line longer than 198 bytes"
}

@test "RLWRAP_DB in a directory that does not exist is an error; only the default location is made" {
	sqlite_only
	RLWRAP_DB="$BATS_TEST_TMPDIR/typo/dir/state.db" run "$RLWRAP" status
	assert_failure 1
	assert_output --partial "$BATS_TEST_TMPDIR/typo/dir does not exist"
	RLWRAP_DB="$BATS_TEST_TMPDIR/typo/dir/state.db" run "$RLWRAP" -- sh -c 'echo child ran'
	assert_success
	assert_line "child ran"
	[ ! -e "$BATS_TEST_TMPDIR/typo" ] || fail "the directory was created"
	# The default location is created as before.
	unset RLWRAP_DB
	run "$RLWRAP" -- true
	assert_success
	[ -f "$XDG_STATE_HOME/rlwrap/state.db" ] || fail "no store at the default location"
}

@test "a store that is not a regular file is refused, and nothing is made beside it" {
	sqlite_only
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	for db in /dev/null "$BATS_TEST_TMPDIR/fifo" "$BATS_TEST_TMPDIR"; do
		RLWRAP_DB=$db run timeout 10 "$RLWRAP" status
		assert_failure 1
		assert_output --partial "$db: not a regular file"
	done
	[ ! -e /dev/null-journal ] && [ ! -e /dev/null-wal ] || fail "a file was made beside /dev/null"
}

@test "a libpq keyword string in RLWRAP_DB is a server, never a file name, its password never shown" {
	cd "$BATS_TEST_TMPDIR" || fail "no test directory"
	local conninfo="host=$BATS_TEST_TMPDIR/nosocket dbname=x password=hunter2"
	RLWRAP_DB=$conninfo run timeout 20 "$RLWRAP" -- sh -c 'echo child ran'
	assert_success
	assert_line "child ran"
	refute_output --partial hunter2
	RLWRAP_DB=$conninfo run timeout 20 "$RLWRAP" config show
	refute_output --partial hunter2
	assert_line --partial "path = host="
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name 'host=*')" ] || fail "a file was named after the string"
}

@test "trip --until takes a clock time, local, today or else tomorrow" {
	export TZ=Europe/Rome RLWRAP_TEST_NOW=2026-11-30T12:00:00Z   # 13:00 in Rome
	run "$RLWRAP" trip --until 18:30 claude
	assert_success
	assert_output --partial "open until 2026-11-30T17:30:00Z"
	run "$RLWRAP" trip --until 23:30 gemini
	assert_success
	assert_output --partial "open until 2026-11-30T22:30:00Z"
	run "$RLWRAP" trip --until 9:15 codex
	assert_success
	assert_output --partial "open until 2026-12-01T08:15:00Z"
	run "$RLWRAP" trip --until soonish codex
	assert_failure 2
	assert_output --partial "not a time"
}

@test "trip on a family nothing detects needs --force, and suggests the family meant" {
	run "$RLWRAP" trip --for 1h cluade
	assert_failure 2
	assert_output --partial "cluade: not a family (did you mean claude?)"
	run "$RLWRAP" status --json
	refute_output --partial cluade
	run "$RLWRAP" trip --force --for 1h my-agent
	assert_success
	assert_output --partial "my-agent (account default): open until"
}

@test "a shorter trip on an open breaker says it was not applied and why" {
	export RLWRAP_TEST_NOW=$NOW
	run "$RLWRAP" trip --for 1h claude
	assert_success
	run "$RLWRAP" trip --for 4s claude
	assert_success
	assert_line --index 0 --partial "open until 2026-11-30T13:00:00Z"
	assert_line --index 1 --partial "not applied: the breaker was already open until 2026-11-30T13:00:00Z"
	run "$RLWRAP" trip --for 2h claude
	assert_success
	assert_equal "${#lines[@]}" 1
}

@test "history names the signal that killed a run" {
	# Default SIGQUIT for the child even when this suite runs in a background
	# job, which starts with SIGQUIT ignored (an ignored signal stays so).
	run -131 env --default-signal=QUIT "$RLWRAP" -- sh -c 'kill -QUIT $$'
	run "$RLWRAP" history
	assert_success
	assert_output --partial "signal SIGQUIT"
	refute_output --partial "exit=-1"
}

@test "a refusal whose stderr is a closed pipe still exits 75" {
	run "$RLWRAP" trip --for 1h claude
	assert_success
	run perl -e 'pipe(my $r, my $w) or die; close $r; open(STDERR, ">&", $w) or die;
		$SIG{PIPE} = "DEFAULT"; system(@ARGV); print $? & 127, " ", $? >> 8, "\n"' "$RLWRAP" -f claude -- true
	assert_output "0 75"
}

# on_tty COMMAND: COMMAND's output on a terminal of its own (script(1)).
on_tty() {
	timeout 20 script -qec "$1" /dev/null < /dev/null | tr -d '\r'
}

@test "colour on a terminal only: status states and refusals, NO_COLOR and --color honoured" {
	local esc=$'\e['
	run "$RLWRAP" trip --for 1h claude
	assert_success
	run "$RLWRAP" status
	[[ $output != *"$esc"* ]] || fail "colour into a pipe"
	run "$RLWRAP" status --color=always
	[[ $output == *"${esc}31mopen"* ]] || fail "no colour with --color=always: $output"
	run on_tty "'$RLWRAP' status"
	[[ $output == *"${esc}31mopen"* ]] || fail "no colour on a terminal: $output"
	run on_tty "NO_COLOR=1 '$RLWRAP' status"
	[[ $output != *"$esc"* ]] || fail "colour despite NO_COLOR: $output"
	run on_tty "'$RLWRAP' status --color=never"
	[[ $output != *"$esc"* ]] || fail "colour despite --color=never: $output"
	run on_tty "'$RLWRAP' -f claude -- true"
	[[ $output == *"rlwrap: ${esc}31mrefused${esc}0m: claude"* ]] || fail "a refusal on a terminal: $output"
	run -75 "$RLWRAP" -f claude -- true
	assert_output --partial "rlwrap: refused: claude"
	run "$RLWRAP" status --color=sometimes
	assert_failure 2
}
