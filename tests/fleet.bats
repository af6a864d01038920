#!/usr/bin/env bats
# A fleet on one PostgreSQL server (tests/pg-server, never a mock): three
# simulated hosts, each with its own HOME, XDG directories and RLWRAP_HOST,
# sixteen wrappers each, for a bounded time.  Skipped unless
# RLWRAP_TEST_BACKEND=postgresql (make check-postgresql sets it).

load helpers
bats_require_minimum_version 1.5.0

HOSTS="host-a host-b host-c"
WRAPPERS=16

teardown() {
	private_pg_stop
}

setup() {
	on_postgresql || skip "needs RLWRAP_TEST_BACKEND=postgresql (make check-postgresql)"
	common_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	PATH="$FIXTURES/bin:$PATH"
	local now; now=$(date +%s)
	limit_stream limit $((now + 3600))
	success_stream ok
	for h in $HOSTS; do
		mkdir -p "$h/home/.config" "$h/home/.local/state"
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

# wrapper HOST N SECS: spawns claude through rlwrap until SECS have passed;
# each spawn's marker, exit status and output go to HOST/N.log, its stderr
# to HOST/N.err.
wrapper() {
	local h=$1 n=$2 end=$((SECONDS + $3)) i=0 out rc
	while [ $SECONDS -lt $end ]; do
		i=$((i + 1))
		rc=0
		out=$(on "$h" env FAKE_STREAM="$BATS_TEST_TMPDIR/ok" FAKE_EXIT=$((i % 3)) \
			"$RLWRAP" -q -- claude -p "$h-$n-$i" 2>> "$h/$n.err") || rc=$?
		printf '%s %s %s\n' "$h-$n-$i" "$rc" "$(printf '%s' "$out" | md5sum | cut -c1-8)" >> "$h/$n.log"
	done
}

@test "fleet: a trip on one host refuses the next spawn on the others; every run in the history once" {
	local h n
	# Timeouts that 48 contending wrappers on a loaded machine stay within:
	# a statement that timed out would send its run to the journal, which
	# this test is not about (the partition test below is).
	for h in $HOSTS; do
		printf '[store]\nconnect_timeout = 10s\nstatement_timeout = 10s\n' > "$h/config"
	done
	for h in $HOSTS; do
		for n in $(seq $WRAPPERS); do wrapper "$h" "$n" 6 & done
	done
	sleep 2
	# A trip on host A, then the next spawn on B and on C.
	on host-a env FAKE_STREAM="$BATS_TEST_TMPDIR/limit" "$RLWRAP" -q -- claude -p trip-on-a || true
	run -75 on host-b env FAKE_MARKER="$BATS_TEST_TMPDIR/ran-b" "$RLWRAP" -- claude -p next-on-b
	assert_output --partial "refused: claude"
	run -75 on host-c env FAKE_MARKER="$BATS_TEST_TMPDIR/ran-c" "$RLWRAP" -- claude -p next-on-c
	assert_output --partial "refused: claude"
	[ ! -e ran-b ] && [ ! -e ran-c ]
	wait

	# The children's bytes and statuses: a run that was not refused printed
	# the stream and exited with its FAKE_EXIT.
	local want; want=$(printf '%s' "$(cat ok)" | md5sum | cut -c1-8)   # as wrapper() took it
	cat */*.log > spawns
	awk -v want="$want" '$2 != 75 && $3 != want { print "bytes: " $0; bad = 1 }
		$2 != 75 { split($1, p, "-"); if ($2 != p[4] % 3) { print "status: " $0; bad = 1 } }
		END { exit bad }' spawns
	# Spawns before the trip ran, on every host.
	for h in $HOSTS; do
		[ "$(awk -v h="$h" 'index($1, h "-") == 1 && $2 != 75' spawns | wc -l)" -gt 0 ] || fail "no run on $h"
	done

	# Every run that was not refused is in the history exactly once, with its
	# host; every refused one is kept as a refused run, for recover.
	db "select argv::json->>2 || ' ' || host from runs where argv::json->>2 like 'host-%'
		and state <> 'refused'" | sort > stored
	awk '$2 != 75 { split($1, p, "-"); print $1 " " p[1] "-" p[2] }' spawns | sort > expected
	diff expected stored
	db "select argv::json->>2 || ' ' || host from runs where argv::json->>2 like 'host-%'
		and state = 'refused'" | sort > stored-refused
	awk '$2 == 75 { split($1, p, "-"); print $1 " " p[1] "-" p[2] }' spawns | sort > expected-refused
	diff expected-refused stored-refused
	assert_equal "$(db "select count(*) from runs where argv::json->>2 = 'trip-on-a'")" 1

	# Nothing on stderr but verdict lines.
	if grep -hv '^rlwrap: refused: claude' */*.err; then fail "stderr held more than verdicts"; fi

	# The breaker is what its history says: the last event's state, reset and trips.
	assert_equal "$(db "select state, resets_at, trips from breakers")" \
		"$(db "select state, resets_at, trips from breaker_history order by id desc limit 1")"
	assert_equal "$(db "select count(*) from breaker_history where event = 'trip'")" 1
}

@test "partition: a stopped server costs the timeout, a trip meanwhile refuses locally, the journals replay once" {
	local h n
	private_pg_server   # stopped below: suites beside this one keep theirs
	for h in $HOSTS; do
		printf '[store]\nconnect_timeout = 2s\nstatement_timeout = 1s\n' > "$h/config"
	done
	on host-a "$RLWRAP" status > /dev/null   # the schema exists before the outage
	for h in $HOSTS; do
		for n in $(seq $WRAPPERS); do wrapper "$h" "$n" 10 & done
	done
	sleep 2
	pg_server_stop
	local start=$SECONDS
	# A trip during the outage, then the next spawn on the same host.
	on host-a env FAKE_STREAM="$BATS_TEST_TMPDIR/limit" "$RLWRAP" -q -- claude -p trip-on-a > /dev/null 2> host-a/trip.err || true
	run -75 on host-a env FAKE_MARKER="$BATS_TEST_TMPDIR/ran-a" "$RLWRAP" -- claude -p next-on-a
	assert_output --partial "refused: claude"
	[ ! -e ran-a ]
	[ $((SECONDS - start)) -le 60 ] || fail "two spawns took $((SECONDS - start)) s against a stopped server"
	# The trip waits in host A's journal while the server is away.
	on host-a "$RLWRAP" status --json 2> /dev/null > outage.json || true
	jq -e '.journal.in_use == true and .journal.pending_runs >= 1 and .journal.pending_breakers >= 1' outage.json || { cat outage.json; false; }
	sleep 1
	pg_server_cont
	wait

	# Every spawn answered within the timeouts, with its child's bytes and status.
	local want; want=$(printf '%s' "$(cat ok)" | md5sum | cut -c1-8)
	cat */*.log > spawns
	awk -v want="$want" '$2 != 75 && $3 != want { print "bytes: " $0; bad = 1 }
		$2 != 75 { split($1, p, "-"); if ($2 != p[4] % 3) { print "status: " $0; bad = 1 } }
		END { exit bad }' spawns
	grep -h 'did not answer\|cannot connect\|statement timeout\|no answer' */*.err > /dev/null ||
		fail "no wrapper met the stopped server"

	# Back: the journals are replayed (by whichever process of the host
	# reached the server first: a wrapper still running, the replayer a
	# journaling wrapper left behind, or this status).  A status that meets
	# a replay under way reads the journal as it was until that commits.
	local end
	for h in $HOSTS; do
		end=$((SECONDS + 60))
		until on "$h" "$RLWRAP" status --json | jq -e '.journal.in_use == false and .journal.pending_runs == 0'; do
			[ $SECONDS -lt $end ] || fail "$h's journal still waits: $(on "$h" "$RLWRAP" status --json)"
			sleep 0.2
		done
	done
	# The server holds the trip made during the outage.
	assert_equal "$(db "select state from breakers where family = 'claude'")" open
	assert_equal "$(db "select count(*) from runs where argv::json->>2 = 'trip-on-a'")" 1
	# No run twice, none lost: every spawn that ran is there once, and every
	# refused one (locally, from the journal's trip or the memo) is kept
	# once as a refused run, whether the journal or the server took it.
	db "select argv::json->>2 from runs where argv::json->>2 like 'host-%' and state <> 'refused'" | sort > stored
	awk '$2 != 75 { print $1 }' spawns | sort > expected
	diff expected stored
	db "select argv::json->>2 from runs where argv::json->>2 like 'host-%' and state = 'refused'" | sort > stored-refused
	awk '$2 == 75 { print $1 }' spawns | sort > expected-refused
	diff expected-refused stored-refused
}

@test "the store's own breaker: after one spawn met the stopped server, the host's next spawns go to the journal at once" {
	local i t0 ms
	private_pg_server   # stopped below: suites beside this one keep theirs
	printf '[store]\nconnect_timeout = 10s\nstatement_timeout = 1s\n' > host-a/config
	on host-a "$RLWRAP" status > /dev/null   # the schema exists before the outage
	pg_server_stop
	run on host-a env FAKE_STREAM="$BATS_TEST_TMPDIR/ok" "$RLWRAP" -q -- claude -p first
	assert_success
	t0=$(date +%s%N)
	# A window of a minute: a loaded machine must not outlast it.
	for i in 1 2 3; do
		run on host-a env RLWRAP_STORE_AWAY_MS=60000 FAKE_STREAM="$BATS_TEST_TMPDIR/ok" "$RLWRAP" -- claude -p "then-$i"
		assert_success
		assert_output --partial "did not answer"
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "three spawns after the first: $ms ms" >&3
	# A bound, not a timing: each would have waited out the 10 s timeout.
	[ "$ms" -lt 15000 ] || fail "three spawns took $ms ms against a server known to be away"
	pg_server_cont
	# After the window (0 here) the next spawn asks, and replays the journal.
	run on host-a env RLWRAP_STORE_AWAY_MS=0 FAKE_STREAM="$BATS_TEST_TMPDIR/ok" "$RLWRAP" -q -- claude -p back
	assert_success
	assert_equal "$(db "select count(*) from runs where argv::json->>2 in ('first', 'then-1', 'then-2', 'then-3', 'back')")" 5
}
