#!/usr/bin/env bats
# The journal's replayer and the memo's counted refusals, on a real
# PostgreSQL server (tests/pg-server, a private one where the test stops
# it): simulated hosts, each with its own HOME, XDG directories and
# RLWRAP_HOST.  Skipped unless RLWRAP_TEST_BACKEND=postgresql (make
# check-postgresql sets it).

load helpers
bats_require_minimum_version 1.5.0

teardown() {
	local pid
	# A replayer a test left behind ends with it.
	for pid in $(cat "$BATS_TEST_TMPDIR"/*/home/.local/state/rlwrap/journal.db.replayer 2> /dev/null); do
		kill "$pid" 2> /dev/null || true
	done
	private_pg_stop
}

setup() {
	on_postgresql || skip "needs RLWRAP_TEST_BACKEND=postgresql (make check-postgresql)"
	common_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	PATH="$FIXTURES/bin:$PATH"
	local now h; now=$(date +%s)
	limit_stream limit $((now + 3600))
	success_stream ok
	for h in host-a host-b; do
		mkdir -p "$h/home/.config" "$h/home/.local/state"
		# Timeouts a loaded machine stays within (a first contact migrates
		# the schema): the outages here are a stopped server, whose socket
		# is gone, so they cost no timeout.
		printf '[store]\nconnect_timeout = 10s\nstatement_timeout = 10s\n' > "$h/config"
	done
}

# on HOST CMD...: CMD as a process of HOST (its own HOME, XDG dirs, RLWRAP_HOST).
on() {
	local h=$1
	shift
	HOME="$BATS_TEST_TMPDIR/$h/home" XDG_STATE_HOME="$BATS_TEST_TMPDIR/$h/home/.local/state" \
	XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/$h/home/.config" RLWRAP_CONFIG="$BATS_TEST_TMPDIR/$h/config" \
	RLWRAP_HOST=$h "$@"
}

journal_of() { echo "$BATS_TEST_TMPDIR/$1/home/.local/state/rlwrap/journal.db"; }

# replayer_of HOST: the pid the running replayer of HOST's journal wrote, or nothing.
replayer_of() {
	local lock; lock="$(journal_of "$1").replayer"
	[ -s "$lock" ] && ! flock -n "$lock" true && cat "$lock"
}

# until_true SECS CMD...: polls CMD every 0.2 s; fails after SECS.
until_true() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# pg_pause, pg_resume: an outage, the server stopped whole (its socket
# gone: no timeout to wait out).  Behind a pool the pool answers instead
# (an error, not an outage), so those tests need the server direct.
pg_pause() { "$BATS_TEST_DIRNAME/pg-server" pause "$PRIVATE_PG"; }
outage_gate() {
	[ "${RLWRAP_TEST_PG_VIA:-}" != pgbouncer ] ||
		skip "a stopped server behind a pool is the pool's error, not an outage: make check-postgresql without PG_VIA"
}
pg_resume() { "$BATS_TEST_DIRNAME/pg-server" resume "$PRIVATE_PG"; }

host_b_sees_open() {
	on host-b "$RLWRAP" status --json 2> /dev/null | jq -e '.breakers[] | select(.family == "claude" and .state == "open")' > /dev/null
}

not_running() { ! kill -0 "$1" 2> /dev/null; }

replayer_held() { ! flock -n "$1" true; }

host_a_running() { [ -n "$(db "select pid from runs where state = 'running' and host = 'host-a'" 2> /dev/null)" ]; }

@test "replay: a trip journaled in an outage reaches the other hosts through the replayer, with no spawn after it on its host" {
	outage_gate
	local pid t0 ms
	private_pg_server   # stopped below: suites beside this one keep theirs
	on host-a "$RLWRAP" status > /dev/null   # the schema exists before the outage
	pg_pause
	t0=$(date +%s%N)
	run on host-a env RLWRAP_REPLAY_BACKOFF_MS=200 RLWRAP_REPLAY_FOR_MS=120000 \
		FAKE_STREAM="$BATS_TEST_TMPDIR/limit" FAKE_EXIT=3 "$RLWRAP" -- claude -p trip-in-outage
	ms=$(ms_since "$t0")
	# The child's status, not held up by the replayer left behind (which
	# runs for two minutes here).
	[ "$status" -eq 3 ] || fail "exit $status: $output"
	assert_output --partial "recording in the local journal"
	[ "$ms" -lt 60000 ] || fail "the wrapper took $ms ms"
	[ -e "$(journal_of host-a).replay" ] || fail "nothing waits in host-a's journal"
	until_true 20 replayer_of host-a > /dev/null || fail "no replayer holds host-a's journal"
	pid=$(replayer_of host-a)
	# Not replayed while the server is away: the replayer keeps trying.
	sleep 1
	kill -0 "$pid" || fail "the replayer gave up while the server was away"
	pg_resume
	# Host A runs nothing more; host B sees the trip once the replayer got it in.
	until_true 60 host_b_sees_open || fail "host-b never saw the trip made on host-a"
	until_true 60 not_running "$pid" || fail "the replayer $pid still runs after the replay"
	[ ! -e "$(journal_of host-a).replay" ] || fail "the journal still waits"
	assert_equal "$(db "select count(*) from runs where argv::json->>2 = 'trip-in-outage' and host = 'host-a'")" 1
	assert_equal "$(db "select count(*) from breaker_history where event = 'replay'")" 1
}

@test "replay: one replayer per journal; the others say so and leave it" {
	local lock holder
	private_pg_server
	lock="$(journal_of host-a).replayer"
	mkdir -p "$(dirname "$lock")"
	: > "$(journal_of host-a).replay"
	flock "$lock" sleep 30 &
	holder=$!
	until_true 10 replayer_held "$lock" || fail "the lock was not taken"
	run on host-a "$RLWRAP" replay
	assert_success
	assert_output --partial "is being replayed by another rlwrap replay"
	[ -e "$(journal_of host-a).replay" ] || fail "the journal was touched"
	kill "$holder"
}

@test "replay gives up after --for with status 1 and leaves the journal for the next rlwrap" {
	outage_gate
	private_pg_server
	on host-a "$RLWRAP" status > /dev/null
	pg_pause
	on host-a env RLWRAP_REPLAY_FOR_MS=1 FAKE_STREAM="$BATS_TEST_TMPDIR/limit" "$RLWRAP" -q -- claude -p trip 2> /dev/null
	# The replayer that run left behind gives up at once (1 ms).
	until_true 20 flock -n "$(journal_of host-a).replayer" true || fail "the left-behind replayer did not end"
	run -1 on host-a env RLWRAP_REPLAY_BACKOFF_MS=200 "$RLWRAP" replay --for 2s
	assert_output --partial "was not replayed within 2s"
	assert_output --partial "the next rlwrap that reaches the server replays it"
	[ -e "$(journal_of host-a).replay" ] || fail "the journal was dropped"
	pg_resume
	run on host-a "$RLWRAP" replay
	assert_success
	assert_output --regexp "^replayed [0-9]+ runs? and 1 breaker of .*journal.db into postgresql"
	run on host-a "$RLWRAP" replay
	assert_success
	assert_output --partial "nothing waits in"
	run -2 on host-a "$RLWRAP" replay --for soon
	run -2 on host-a "$RLWRAP" replay extra
}

@test "replay --background returns at once; the replayer it starts holds nothing of the caller's" {
	outage_gate
	local t0 ms pid out
	private_pg_server
	on host-a "$RLWRAP" status > /dev/null
	pg_pause
	on host-a env RLWRAP_REPLAY_FOR_MS=1 FAKE_STREAM="$BATS_TEST_TMPDIR/limit" "$RLWRAP" -q -- claude -p trip 2> /dev/null
	until_true 20 flock -n "$(journal_of host-a).replayer" true || fail "the left-behind replayer did not end"
	t0=$(date +%s%N)
	# $(...) returns only when every holder of its pipe is gone.
	out=$(on host-a env RLWRAP_REPLAY_BACKOFF_MS=200 RLWRAP_REPLAY_FOR_MS=120000 "$RLWRAP" replay --background)
	ms=$(ms_since "$t0")
	assert_equal "$out" ""
	[ "$ms" -lt "$(time_limit_ms 5000)" ] || fail "replay --background took $ms ms"
	until_true 20 replayer_of host-a > /dev/null || fail "no replayer started"
	pid=$(replayer_of host-a)
	# A session of its own (its parent's, which exited), no pipe of ours.
	[ "$(ps -o sid= -p "$pid")" != "$(ps -o sid= -p $$)" ] || fail "the replayer is in the test's session"
	[ "$(find /proc/"$pid"/fd -lname 'pipe:*' | wc -l)" = 0 ] || fail "the replayer holds a pipe"
	pg_resume
	until_true 60 not_running "$pid" || fail "the replayer $pid still runs after the replay"
	[ ! -e "$(journal_of host-a).replay" ] || fail "the journal still waits"
}

@test "refusals the memo decided reach the server's waits at the next contact, and usage counts them" {
	local n
	on host-a env FAKE_STREAM="$BATS_TEST_TMPDIR/limit" "$RLWRAP" -q -- claude -p trip || true
	n=$(db "select count(*) from waits where kind = 'refuse'")
	# Refused from host A's memo: no server contact, no row yet.
	for i in 1 2 3; do
		run -75 on host-a "$RLWRAP" --no-record -- claude -p "refused-$i"
		assert_output --partial "refused: claude"
	done
	assert_equal "$(db "select count(*) from waits where kind = 'refuse'")" "$n"
	# The next contact (any command that writes: usage) writes them, with their host.
	run on host-a "$RLWRAP" usage --json
	assert_success
	assert_equal "$(db "select count(*) from waits where kind = 'refuse' and host = 'host-a'")" $((n + 3))
	# Counted once: a second contact writes nothing more, and another host's usage counts them.
	run on host-a "$RLWRAP" status
	assert_equal "$(db "select count(*) from waits where kind = 'refuse'")" $((n + 3))
	run on host-b "$RLWRAP" usage --json
	assert_success
	assert_equal "$(echo "$output" | jq '[.[0].keys[] | select(.family == "claude") | .refusals] | add')" $((n + 3))
	run on host-b "$RLWRAP" usage
	assert_line --regexp "claude .*, $((n + 3)) refused by a breaker$"
}

@test "status names another host whose runs were lost after its lease lapsed, until that host is back" {
	local wrapper
	on host-a env RLWRAP_LEASE_RENEW_MS=200 "$RLWRAP" -q -- sleep 60 &
	until_true 20 host_a_running || fail "no running row of host-a"
	# The wrapper itself (the job is the shell function around it); its child dies with it.
	wrapper=$(db "select pid from runs where state = 'running' and host = 'host-a'")
	kill -9 "$wrapper"
	wait || true
	# Its lease (10/3 of 200 ms) lapses; host B's status marks the run lost and names the host.
	until_true 30 bash -c "HOME=$BATS_TEST_TMPDIR/host-b/home RLWRAP_CONFIG=$BATS_TEST_TMPDIR/host-b/config \
		RLWRAP_HOST=host-b '$RLWRAP' status --json | jq -e '.hosts_away[] | select(.host == \"host-a\" and .lost_runs == 1)'" ||
		fail "host-b never named host-a"
	run on host-b "$RLWRAP" status
	assert_line --regexp "^host host-a: 1 run lost since .*, its lease lapsed: their ends and any trip may wait in its journal until it replays \(or the host is gone\)$"
	# Not itself: host A's own status does not name host A.
	run on host-a "$RLWRAP" status --json
	assert_equal "$(echo "$output" | jq '.hosts_away | length')" 0
	# Host A is back (a run renews its lease, at the default interval: the
	# stamp of the last renewal made old): no longer named.
	touch -d '1 minute ago' "$BATS_TEST_TMPDIR"/host-a/home/.local/state/rlwrap/*.lease
	run on host-a "$RLWRAP" -q -- true
	assert_success
	run on host-b "$RLWRAP" status --json
	assert_equal "$(echo "$output" | jq '.hosts_away | length')" 0
}
