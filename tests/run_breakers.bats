#!/usr/bin/env bats
# The breakers through the wrapper: refuse before spawning, the
# refusal line and JSON, never shorten, success closes, escalation, model
# and account scopes, --wait, SIGINT, the probe lease, --retry, --force,
# fail-open stores, and 40 wrappers at once.  Fake agents in fixtures/bin;
# FAKE_MARKER proves whether the child was started at all.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export FAKE_MARKER="$BATS_TEST_TMPDIR/ran"
}

# trip_claude [RESETS_AT]: a wrapped claude run that hits a usage limit.
trip_claude() {
	limit_stream "$BATS_TEST_TMPDIR/limit" "${1:-$((T0 + 4 * 3600))}"
	FAKE_STREAM="$BATS_TEST_TMPDIR/limit" FAKE_MARKER=/dev/null exits 0 "$RLWRAP" -q -- claude -p x > /dev/null
}

ran() { [ -f "$FAKE_MARKER" ]; }

# wait_waiting FILE: until the waiting line is in FILE (30 s at most: a
# loaded machine or a sanitizer build starts rlwrap slowly).
wait_waiting() {
	local i
	for i in $(seq 300); do
		grep -q waiting "$1" && return 0
		sleep 0.1
	done
	fail "rlwrap never said it was waiting: $(cat "$1")"
}

# ---- refusal ----

@test "a trip, then the next spawn is refused in one line and the child never runs" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude
	assert_equal "$(breaker_field claude state)" open
	run --separate-stderr "$RLWRAP" -- claude -p again
	assert_failure 75
	assert_equal "$output" ""
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	assert_equal "$stderr" "rlwrap: refused: claude (scope *, account default) open on usage-limit until 2026-11-30T16:00:00Z (2026-11-30 16:00 UTC, in 4h0m), reset from provider"
	! ran || fail "the child was started"
	# -q does not hide a refusal; the refusal is in the store's waits.  On
	# a server this host remembers the trip it made (its memo), which
	# decides its refusals; they are counted beside it and written with
	# the refused run's connection, so the waits hold them on both.
	run -75 "$RLWRAP" -q -- claude
	assert_output --partial "refused"
	assert_equal "$(db "select count(*) from waits where kind = 'refuse'")" 2
}

@test "the refusal is quick and names the local time too" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude
	TZ=Europe/Rome run -75 "$RLWRAP" -- claude
	assert_output --partial "until 2026-11-30T16:00:00Z (2026-11-30 17:00 CET, in 4h0m)"
	local t0 took limit
	limit=$(time_limit_ms 500)
	t0=$(date +%s%N)
	exits 75 "$RLWRAP" -- claude 2>/dev/null
	took=$(ms_since "$t0")
	[ "$took" -lt "$limit" ] || fail "refusal took $took ms, more than $limit ms"
}

@test "--signal-file gets the refusal as JSON" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude
	run -75 "$RLWRAP" --signal-file sig.json -- claude -p "the task"
	jq -e '.refused == true and .exit_code == 75 and .reason == "usage-limit"
		and .family == "claude" and .scope == "family" and .account == "default"
		and .resets_at == "2026-11-30T16:00:00Z" and .retry_after_secs == 14400
		and .reset_source == "provider" and .argv == ["claude","-p","the task"]
		and (.started_at | test("^[0-9-]+T[0-9:.]+Z$")) and .run_id == null
		and .message == "You have hit your limit"' sig.json
	# A run that was not refused says so too, with its run id.
	export RLWRAP_TEST_NOW=$((T0 + 5 * 3600))
	run "$RLWRAP" --signal-file sig.json -- claude
	assert_success
	jq -e '.refused == false and (.run_id | type) == "number" and .attempts == 1' sig.json
	assert_equal "$(jq .run_id sig.json)" "$(db 'select max(id) from runs')"
}

@test "the config's command map and account apply to the wrapper" {
	export RLWRAP_TEST_NOW=$NOW
	printf '[family.claude]\ncommands = my-agent\naccount = team\n' > "$RLWRAP_CONFIG"
	ln -s "$FIXTURES/bin/claude" my-agent
	limit_stream limit $((T0 + 3600))
	FAKE_STREAM=limit run ./my-agent -p x
	FAKE_STREAM=limit exits 0 "$RLWRAP" -q -- ./my-agent -p x > /dev/null
	assert_equal "$(breaker_field claude@team state)" open
	run -75 "$RLWRAP" -- claude
	assert_output --partial "claude (scope *, account team)"
	run -75 "$RLWRAP" -- ./my-agent
	! ran
	# A bad value is said, with its line, and the command runs all the same.
	printf '[breaker]\nenabled = maybe\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" -- sh -c 'echo child ran'
	assert_success
	assert_output --partial "$RLWRAP_CONFIG:2:"
	assert_line "child ran"
}

# ---- the arithmetic, through the wrapper ----

@test "never shorten: a bare 429 after a provider reset keeps the provider's time" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude $((T0 + 4 * 3600))
	bare_429 bare
	RLWRAP_TEST_NOW=$((T0 + 60)) FAKE_STREAM=bare run "$RLWRAP" --force -- claude
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T16:00:00Z"
	assert_equal "$(breaker_field claude reset_source)" provider
	assert_equal "$(breaker_field claude trips)" 2
	assert_equal "$(db "select group_concat(event) from breaker_history")" "trip,keep"
}

@test "a provider reset replaces a guess, even an earlier one" {
	export RLWRAP_TEST_NOW=$NOW
	bare_429 bare
	FAKE_STREAM=bare exits 0 "$RLWRAP" -q -- claude
	# now + 15m, from the moment the run ended (a fraction of a second in)
	assert_regex "$(breaker_field claude resets_at)" "^2026-11-30T12:15:0[01]Z$"
	assert_equal "$(breaker_field claude reset_source)" default
	limit_stream limit $((T0 + 600))
	FAKE_STREAM=limit exits 0 "$RLWRAP" -q --force -- claude
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T12:10:00Z"
	assert_equal "$(breaker_field claude reset_source)" provider
}

@test "success closes the breaker when the run started after the trip" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude
	success_stream ok
	RLWRAP_TEST_NOW=$((T0 + 5)) FAKE_STREAM=ok run "$RLWRAP" --force -- claude
	assert_success
	assert_equal "$(breaker_field claude state)" closed
	RLWRAP_TEST_NOW=$((T0 + 6)) run "$RLWRAP" -- claude
	assert_success
	ran
}

@test "escalation: each guessed cooldown doubles, through probes, capped at 24h" {
	bare_429 bare
	local now=$T0 want=(900 1800 3600 7200 14400 28800 57600 86400 86400) w reset
	for w in "${want[@]}"; do
		RLWRAP_TEST_NOW=$now FAKE_STREAM=bare exits 0 "$RLWRAP" -q -- claude
		reset=$(db "select cast(resets_at as int) from breakers where family='claude'")
		# The run ended a fraction of a second after it started: rounded up.
		[ "$((reset - now))" = "$w" ] || [ "$((reset - now))" = "$((w + 1))" ] ||
			fail "cooldown $((reset - now)), want $w"
		now=$((reset + 1))
	done
	# Every run after the first was the probe of an expired breaker.
	assert_equal "$(db "select count(*) from breaker_history where event = 'probe'")" 8
}

@test "a daily quota with a seconds hint: the probe that fails again opens for hours, not 41s" {
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"Daily usage limit reached. Please retry in 41s."}' > daily
	local now=$T0 want=(41 3600 7200 14400) w reset
	for w in "${want[@]}"; do
		RLWRAP_TEST_NOW=$now FAKE_STREAM=daily exits 0 "$RLWRAP" -q -- claude
		reset=$(db "select cast(resets_at as int) from breakers where family='claude'")
		[ "$((reset - now))" = "$w" ] || [ "$((reset - now))" = "$((w + 1))" ] ||
			fail "open for $((reset - now))s, want $w"
		now=$((reset + 1))
	done
	assert_equal "$(db "select reset_source from breakers where family='claude'")" default
}

@test "the overage false positive never trips" {
	export RLWRAP_TEST_NOW=$NOW
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		'{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1796054400,"rateLimitType":"five_hour","overageStatus":"rejected","overageDisabledReason":"org_level_disabled","isUsingOverage":false}}' \
		'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"hi"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > overage
	for _ in 1 2 3; do
		FAKE_STREAM=overage run "$RLWRAP" -- claude
		assert_success
	done
	assert_equal "$(db "select count(*) from breakers")" 0
	assert_equal "$(db "select group_concat(reason) from runs")" "none,none,none"
}

@test "a model-scoped breaker (seven_day_opus) blocks only opus runs" {
	export RLWRAP_TEST_NOW=$NOW
	limit_stream limit $((T0 + 7200)) seven_day_opus
	FAKE_STREAM=limit exits 0 "$RLWRAP" -q -- claude --model claude-opus-4-6 > /dev/null
	assert_equal "$(breaker_field claude:opus state)" open
	run "$RLWRAP" -- claude --model claude-sonnet-4-5
	assert_success
	run "$RLWRAP" -- claude
	assert_success
	rm -f "$FAKE_MARKER"
	run -75 "$RLWRAP" -- claude --model claude-opus-4-6
	assert_output --partial "claude (scope opus, account default)"
	run -75 "$RLWRAP" -m opus -- claude
	! ran
}

@test "accounts are separate: RLWRAP_ACCOUNT and --account" {
	export RLWRAP_TEST_NOW=$NOW
	RLWRAP_ACCOUNT=work trip_claude
	assert_equal "$(breaker_field claude@work state)" open
	run "$RLWRAP" -- claude
	assert_success
	run "$RLWRAP" --account home -- claude
	assert_success
	rm -f "$FAKE_MARKER"
	run -75 "$RLWRAP" --account work -- claude
	RLWRAP_ACCOUNT=work run -75 "$RLWRAP" -- claude
	assert_output --partial "account work"
	! ran
	# --account beats RLWRAP_ACCOUNT.
	RLWRAP_ACCOUNT=work run "$RLWRAP" -a home -- claude
	assert_success
}

# ---- waiting (the real clock: a frozen one never reaches a reset) ----

@test "--wait near: waits for the reset, says so once, then runs" {
	# 4 s: rlwrap must still find the breaker open when it starts, even
	# on a loaded machine.  The child starts at the reset, not before, and
	# not much after it (polled every 100 ms; the margin is for the load).
	"$RLWRAP" trip --for 4s claude
	local reset margin=5 started
	reset=$(date -u -d "$(breaker_field claude resets_at)" +%s)
	[ -z "${RLWRAP_SANITIZERS:-}" ] || margin=15
	RLWRAP_POLL_MS=100 run --separate-stderr timeout 30 "$RLWRAP" --wait -- claude -p x
	assert_success
	ran
	started=$(stat -c %Y "$FAKE_MARKER")
	[ "$started" -ge "$reset" ] && [ "$started" -le $((reset + margin)) ] ||
		fail "the child started at $started, the reset was $reset"
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	assert_equal "$(printf '%s' "$stderr" | grep -c "waiting for claude (account default): usage-limit until")" 1
	assert_equal "$(db "select count(*) from waits where kind = 'wait'")" 1
	# -q: not a word.
	"$RLWRAP" trip --for 1s claude
	RLWRAP_POLL_MS=100 run --separate-stderr timeout 20 "$RLWRAP" -q --wait -- claude
	assert_success
	assert_equal "$stderr" ""
}

@test "--wait far: a reset beyond the budget refuses at once" {
	"$RLWRAP" trip --for 2h claude
	local t0 took limit
	limit=$(time_limit_ms 2000)
	t0=$(date +%s%N)
	run -75 timeout 20 "$RLWRAP" --wait=1h -- claude
	took=$(ms_since "$t0")
	assert_output --partial "beyond the --wait budget of 1h"
	[ "$took" -lt "$limit" ] || fail "refusal took $took ms, more than $limit ms"
	! ran
}

@test "--wait ends early when the breaker is reset meanwhile" {
	"$RLWRAP" trip --for 1h claude
	RLWRAP_POLL_MS=100 timeout 60 "$RLWRAP" --wait -- claude 2> err &
	local pid=$! rc=0
	wait_waiting err
	! ran
	"$RLWRAP" reset claude > /dev/null
	wait "$pid" || rc=$?
	assert_equal "$rc" 0
	ran
}

@test "--wait: a new trip meanwhile moves the wait; past the budget it refuses" {
	# The first reset is far enough (30 s) that rlwrap is still waiting for
	# it when the new trip lands, however slowly it started; were the new
	# trip not seen, the child would run at 30 s (status 0, the marker).
	"$RLWRAP" trip --for 30s claude
	RLWRAP_POLL_MS=100 timeout 60 "$RLWRAP" --wait=1m -- claude 2> err &
	local pid=$! rc=0
	wait_waiting err
	"$RLWRAP" trip --for 2h claude > /dev/null
	wait "$pid" || rc=$?
	assert_equal "$rc" 75
	grep -q "beyond the --wait budget" err
	! ran
}

@test "SIGINT during a wait exits 130 without spawning; the title says what it waits for" {
	"$RLWRAP" trip --for 60s claude
	# No timeout(1) in front: it would take the signal.  The reset bounds it.
	RLWRAP_POLL_MS=100 "$RLWRAP" --wait=5m -- claude 2> err &
	local pid=$! rc=0
	wait_waiting err
	run ps -o args= -p "$pid"
	assert_output --regexp "^rlwrap: waiting for claude until [0-9]{2}:[0-9]{2}"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
	! ran
}

# ---- the probe ----

@test "half-open: the probe holds a lease, others are refused; a killed holder's lease is taken over" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude $((T0 + 600))
	export RLWRAP_TEST_NOW=$((T0 + 700))
	# The probe: a child that prints nothing real and takes its time.
	"$RLWRAP" -f claude -- sh -c 'echo started > probe.out; sleep 5' > /dev/null 2>&1 &
	local probe=$!
	for _ in $(seq 50); do [ -f probe.out ] && break; sleep 0.1; done
	assert_equal "$(breaker_field claude state)" half-open
	run -75 "$RLWRAP" -- claude
	assert_output --partial "half-open on usage-limit, a probe (pid $probe on"
	assert_output --regexp "a probe \(pid $probe on [^)]*\) runs until [0-9]"
	refute_output --partial "until until"
	! ran
	kill -KILL "$probe"
	exits 137 wait "$probe"   # killed by SIGKILL: 128 + 9
	success_stream ok
	FAKE_STREAM=ok run "$RLWRAP" -- claude
	assert_success
	ran
	assert_equal "$(db "select group_concat(event) from breaker_history")" \
		"trip,probe,probe-takeover,probe-success"
	assert_equal "$(breaker_field claude state)" closed
}

@test "the probe's first real output closes the breaker before it ends; a limit again re-trips" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude $((T0 + 600))
	export RLWRAP_TEST_NOW=$((T0 + 700))
	success_stream ok
	# Output, then a pause until this test says go (60 s at most: a hang's
	# bound): the breaker must be closed while the child still runs.
	FAKE_STREAM=ok "$RLWRAP" -f claude -- sh -c 'claude; i=0
		while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' > /dev/null &
	local pid=$!
	for _ in $(seq 300); do [ "$(breaker_field claude state)" = closed ] && break; sleep 0.1; done
	assert_equal "$(breaker_field claude state)" closed
	kill -0 "$pid"
	touch go
	wait "$pid"
	limit_stream limit2 $((T0 + 3600))
	FAKE_STREAM=limit2 exits 0 "$RLWRAP" -q -- claude > /dev/null
	assert_equal "$(breaker_field claude state)" open
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T13:00:00Z"
}

# ---- --retry and --force ----

@test "--retry: a limit before any output is waited out and run again; the consumer sees one clean run" {
	local t0 took limit
	limit=$(time_limit_ms 25000)   # a hang's bound: ten times the 2 s reset
	t0=$(date +%s%N)
	run --separate-stderr timeout 90 "$RLWRAP" --retry --raw-stream raw --signal-file sig.json \
		-- flaky-claude "$BATS_TEST_TMPDIR/calls" < /dev/null
	took=$(ms_since "$t0")
	assert_success
	[ "$took" -lt "$limit" ] || fail "took $took ms, more than $limit ms"
	assert_equal "$(cat calls)" 2
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.session_id) | .session_id' | sort -u)" second
	refute_output --partial "first"
	# The failed attempt is in the raw stream and the history.
	grep -q '"session_id":"first"' raw
	grep -q '"session_id":"second"' raw
	assert_equal "$(db "select group_concat(reason) from runs order by id")" "usage-limit,none"
	jq -e '.reason == "none" and .attempts == 2' sig.json
	assert_equal "$(jq .run_id sig.json)" "$(db 'select max(id) from runs')"
	[[ $stderr == *"retrying in"* ]]
	assert_equal "$(breaker_field claude state)" closed
}

@test "--retry: stdin from a pipe cannot be given again: a warning, and the first attempt stands" {
	run --separate-stderr sh -c 'echo input | timeout 20 "$RLWRAP" --retry -- flaky-claude calls'
	assert_failure 1
	assert_equal "$(cat calls)" 1
	[[ $stderr == *"--retry: stdin is not a terminal"* ]]
	[[ $output == *'"session_id":"first"'* ]]
}

@test "--retry: a reset beyond the --wait budget is not waited for" {
	FAKE_RESET_IN=7200 run --separate-stderr timeout 20 "$RLWRAP" --retry --wait=1m -- flaky-claude calls < /dev/null
	assert_failure 1
	assert_equal "$(cat calls)" 1
	[[ $stderr == *"not retrying"* ]]
	[[ $output == *'"session_id":"first"'* ]]
}

@test "--force runs anyway and still updates the breaker" {
	export RLWRAP_TEST_NOW=$NOW
	trip_claude $((T0 + 600))
	limit_stream later $((T0 + 7200))
	FAKE_STREAM=later run "$RLWRAP" --force -- claude
	assert_success
	ran
	assert_equal "$(breaker_field claude resets_at)" "2026-11-30T14:00:00Z"
	assert_equal "$(breaker_field claude trips)" 2
}

# ---- fail-open ----

# fail_open_check: the child's stdout bytes and exit status are intact and
# stderr has exactly one line (the warning) matching $1.
fail_open_check() {
	run --separate-stderr "${@:2}" "$RLWRAP" -- sh -c 'printf "out\nput"; exit 3'
	assert_failure 3
	assert_equal "$output" "$(printf 'out\nput')"
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	[[ $stderr == *"$1"* ]] || fail "stderr: $stderr"
}

unprivileged() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}

@test "fail-open: a state directory that cannot be created" {
	sqlite_only
	touch file
	RLWRAP_DB="$BATS_TEST_TMPDIR/file/sub/state.db" fail_open_check "file/sub is not a directory"
}

@test "fail-open: a read-only state file still refuses what it blocks, and runs the rest" {
	sqlite_only
	local dir; dir=$(mktemp -d /tmp/rlwrap-ro.XXXXXX); chmod 755 "$dir"
	export RLWRAP_DB="$dir/state.db" RLWRAP_CONFIG=/nonexistent/config
	"$RLWRAP" trip --for 1h codex > /dev/null
	chmod 644 "$RLWRAP_DB"
	fail_open_check "not writable" unprivileged
	run -75 unprivileged "$RLWRAP" -f codex -- true
	rm -rf "$dir"
	assert_output --partial "refused: codex"
}

@test "fail-open: a corrupt state file" {
	sqlite_only
	head -c 16384 /dev/urandom > "$RLWRAP_DB"
	fail_open_check "corrupt"
	[ "$(stat -c %s "$RLWRAP_DB")" = 16384 ]
}

@test "fail-open: a state file locked past the busy timeout" {
	sqlite_only
	"$RLWRAP" status > /dev/null
	mkfifo fifo
	timeout 20 sqlite3 "$RLWRAP_DB" < fifo > locker.out 2>&1 &
	local locker=$!
	exec 9> fifo
	echo "BEGIN EXCLUSIVE; INSERT INTO waits (at, kind) VALUES (1, 'lock'); SELECT 'locked';" >&9
	for _ in $(seq 50); do grep -q locked locker.out && break; sleep 0.1; done
	RLWRAP_BUSY_TIMEOUT_MS=200 fail_open_check "locked by another process" timeout 10
	exec 9>&-
	exits 0 wait "$locker"
}

@test "on_store_error = closed refuses with 75 instead, and --signal-file says why" {
	sqlite_only
	printf '[breaker]\non_store_error = closed\n' > "$RLWRAP_CONFIG"
	head -c 16384 /dev/urandom > "$RLWRAP_DB"
	run -75 "$RLWRAP" --signal-file sig.json -- claude
	assert_output --partial "refused: state file:"
	! ran
	jq -e '.refused == true and .exit_code == 75 and .reason == null and (.store_error | test("corrupt"))' sig.json
	# --force runs anyway (after the one warning).
	run "$RLWRAP" --force -- claude
	assert_success
	ran
}

@test "on_store_error = closed: a gate that cannot get the lock refuses too" {
	sqlite_only
	printf '[breaker]\non_store_error = closed\n' > "$RLWRAP_CONFIG"
	"$RLWRAP" trip --for 1h claude > /dev/null
	RLWRAP_TEST_NOW=2099-01-01T00:00:00Z "$RLWRAP" status > /dev/null   # expired: the next spawn must write
	mkfifo fifo
	timeout 20 sqlite3 "$RLWRAP_DB" < fifo > locker.out 2>&1 &
	local locker=$!
	exec 9> fifo
	echo "BEGIN EXCLUSIVE; INSERT INTO waits (at, kind) VALUES (1, 'lock'); SELECT 'locked';" >&9
	for _ in $(seq 50); do grep -q locked locker.out && break; sleep 0.1; done
	RLWRAP_TEST_NOW=2099-01-01T00:00:00Z RLWRAP_BUSY_TIMEOUT_MS=200 run -75 timeout 10 "$RLWRAP" -- claude
	exec 9>&-
	exits 0 wait "$locker"
	assert_output --partial "locked by another process"
	assert_output --partial "on_store_error = closed"
	! ran
}

# ---- many at once ----

@test "stress: 40 wrappers at once on one store keep every run and the latest reset" {
	# Timeouts that 40 contending processes on a loaded machine (and a
	# sanitizer build) stay within: a timed-out statement would send its
	# run to the journal, which this test is not about.
	printf '[store]\nconnect_timeout = 30s\nstatement_timeout = 30s\n' > "$RLWRAP_CONFIG"
	export RLWRAP_TEST_NOW=$NOW
	local i pids=()
	for i in $(seq 1 40); do
		limit_stream "s$i" $((T0 + 3600 + i * 60))
	done
	for i in $(seq 1 40); do
		FAKE_STREAM="s$i" timeout 60 "$RLWRAP" -q --force -- claude -p "task $i" > "out$i" 2> "err$i" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || fail "wrapper $((i + 1)) failed: $(cat "err$((i + 1))")"
	done
	run cat err*
	refute_output --partial "locked"
	assert_output ""
	assert_equal "$("$RLWRAP" history --json | jq length)" 40
	assert_equal "$("$RLWRAP" history --json | jq '[.[].argv[2]] | unique | length')" 40
	run "$RLWRAP" status --json
	echo "$output" | jq -e --arg r "$(date -u -d @$((T0 + 3600 + 40 * 60)) +%FT%TZ)" \
		'.breakers[0].resets_at == $r and .breakers[0].trips == 40'
}

@test "config [wrapper] wait: a near reset is waited out without --wait" {
	printf '[wrapper]\nwait = 1h\nquiet = true\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" trip --for 2s claude
	assert_success
	export RLWRAP_POLL_MS=200
	run timeout 20 "$RLWRAP" -- "$FIXTURES/bin/claude" "$FIXTURES/wrapper/claude-success.jsonl"
	assert_success
}

@test "config [wrapper] wait = off, or no config: refused at once" {
	run "$RLWRAP" trip --for 1h claude
	run timeout 10 "$RLWRAP" -- "$FIXTURES/bin/claude" "$FIXTURES/wrapper/claude-success.jsonl"
	assert_failure 75
	printf '[wrapper]\nwait = sometimes\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" -- true
	assert_success
	assert_output --partial "wait: 'sometimes'"
}

@test "every exit rewrites --signal-file: rlwrap's own 125 too, never a stale one" {
	echo stale > sig.json
	run -125 "$RLWRAP" --signal-file sig.json --raw-stream /nonexistent/dir/raw -- true
	assert_equal "$(jq -c '[.exit_code, .refused, .refused_by, .argv]' sig.json)" '[125,true,"error",["true"]]'
	echo stale > sig.json
	printf '[breaker]\non_config_error = closed\nbogus = 1\n' > "$RLWRAP_CONFIG"
	run -125 "$RLWRAP" --signal-file sig.json -- true
	assert_equal "$(jq -c '[.exit_code, .refused_by]' sig.json)" '[125,"error"]'
	echo stale > sig.json
	run -125 "$RLWRAP" --signal-file sig.json --family gpt -- true
	assert_equal "$(jq -r .exit_code sig.json)" 125
}
