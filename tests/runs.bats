#!/usr/bin/env bats
# Runs from spawn to exit: running rows, lost runs, the child that dies with
# its wrapper, `status` of what runs, and the concurrency gate
# ([family.NAME] max_concurrent) with its first-come queue, across
# processes and simulated hosts (RLWRAP_HOST).  Real processes throughout.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	# The fake agent logs its own start and end ("start N PID", "end N")
	# to agents.log, and runs for ${AGENT_SECS:-1} s in between.
	# A SIGTERM ends it and its sleep, the way an agent ends its tools.
	cat > agent <<-'EOF'
	#!/bin/sh
	echo "start $1 $$" >> "$AGENT_LOG"
	sleep "${AGENT_SECS:-1}" &
	sleeper=$!
	trap 'kill $sleeper; exit 143' TERM
	wait $sleeper
	echo "end $1" >> "$AGENT_LOG"
	EOF
	chmod +x agent
	export AGENT_LOG="$BATS_TEST_TMPDIR/agents.log"
	: > "$AGENT_LOG"
}

teardown() {
	local pid
	kill_background
	if [ -s "$AGENT_LOG" ]; then
		awk '$1 == "start" { print $3 }' "$AGENT_LOG" | while read -r pid; do
			kill -TERM "$pid" 2>/dev/null || true
		done
	fi
}

# first_run_is STATE: the newest run in the history is in STATE.
first_run_is() {
	"$RLWRAP" history --json | jq -e --arg s "$1" '.[0].state == $s' > /dev/null
}

# until_true SECS CMD...: retries CMD every 50 ms for SECS seconds.
until_true() {
	local secs=$1 i
	shift
	for i in $(seq $((secs * 20))); do
		"$@" && return 0
		sleep 0.05
	done
	fail "timed out after ${secs}s: $*"
}

running_count() { "$RLWRAP" status --json | jq '.running | length'; }
waiting_count() { "$RLWRAP" status --json | jq '.waiting | length'; }
has_running() { [ "$(running_count)" -eq "$1" ]; }
# arrived N: N spawns have a run row or a place in the queue (one snapshot).
arrived() {
	[ "$(db "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM slot_queue)" \
		2>/dev/null)" = "$1" ]
}
logged() { grep -q "^$1\$" "$AGENT_LOG" 2>/dev/null; }
started() { grep -q "^start $1 " "$AGENT_LOG" 2>/dev/null; }
child_pid() { awk -v n="$1" '$1 == "start" && $2 == n { print $3 }' "$AGENT_LOG"; }
# gone PID: exited (a zombie waiting for whoever adopted it counts).
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1")" = Z ]; }

# max_at_once: the most agents running at once, from their own log.
max_at_once() {
	awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }' "$AGENT_LOG"
}

limit() {
	printf '[family.claude]\nmax_concurrent = %s\n' "$1" > "$RLWRAP_CONFIG"
}

@test "a run is in the store from spawn to exit: running, then finished" {
	AGENT_SECS=30 "$RLWRAP" -f claude -m opus -a work -- ./agent 1 &
	local wrapper=$!
	until_true 10 started 1
	run "$RLWRAP" status --json
	assert_success
	echo "$output" | jq -e --arg host "$(hostname)" --argjson pid "$wrapper" --arg cwd "$PWD" \
		'.running | length == 1 and (.[0] | .host == $host and .pid == $pid and .family == "claude"
		  and .model == "opus" and .account == "work" and .cwd == $cwd and .running_secs >= 0)'
	run "$RLWRAP" status
	assert_output --regexp "running #1 claude/opus \(account work\) on .*, pid $wrapper, for [0-9]+s"
	run "$RLWRAP" history --json
	echo "$output" | jq -e '.[0].state == "running" and .[0].ended_at == null and .[0].argv == ["./agent", "1"]'
	kill -TERM "$wrapper"
	wait "$wrapper" || true
	run "$RLWRAP" history --json
	echo "$output" | jq -e 'length == 1 and .[0].state == "finished" and .[0].ended_at != null'
	assert_equal "$(running_count)" 0
}

@test "RLWRAP_HOST names the host in the running row" {
	AGENT_SECS=30 RLWRAP_HOST=builder-7 "$RLWRAP" -f claude -- ./agent 1 &
	until_true 10 started 1
	run "$RLWRAP" status --json
	echo "$output" | jq -e '.running[0].host == "builder-7"'
	kill -TERM $!
}

@test "kill -9 of the wrapper: the child gets SIGTERM, the run shows lost, recover --include-lost selects it" {
	AGENT_SECS=60 "$RLWRAP" -f claude -- ./agent 1 &
	local wrapper=$!
	until_true 10 started 1
	local child
	child=$(child_pid 1)
	kill -9 "$wrapper"
	# The parent-death signal is at once; the bound only catches a child
	# left running its 60 s.
	until_true 10 gone "$child"
	run "$RLWRAP" history
	assert_output --regexp "^#1 .* claude lost exit=-1 "
	run "$RLWRAP" history --json --filter state=lost
	echo "$output" | jq -e 'length == 1 and .[0].state == "lost"'
	run "$RLWRAP" recover --include-lost --filter state=lost --json
	assert_success
	echo "$output" | jq -e 'length == 1 and .[0].state == "lost" and .[0].action == "run"'
	run "$RLWRAP" history --filter state=dead
	assert_failure 2
}

@test "orphan = keep: the child outlives a killed wrapper" {
	printf '[wrapper]\norphan = keep\n' > "$RLWRAP_CONFIG"
	AGENT_SECS=60 "$RLWRAP" -f claude -- ./agent 1 &
	local wrapper=$!
	until_true 10 started 1
	kill -9 "$wrapper"
	sleep 1
	kill -0 "$(child_pid 1)"
	printf '[wrapper]\norphan = sometimes\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "orphan: 'sometimes' is not kill or keep"
}

@test "max_concurrent = 3: 12 agents, never more than 3 at once, all done, in arrival order" {
	limit 3
	local i pids=()
	# 3 s each: three of them overlap however slowly a loaded machine
	# brings the next one in.
	for i in $(seq 1 12); do
		AGENT_SECS=3 "$RLWRAP" -q -f claude -- ./agent "$i" &
		pids+=($!)
		# Arrival order made certain: the next one comes once this one
		# runs or holds its place in the queue, and a little later, so
		# that no two of them end (and free their slots) together.
		until_true 10 arrived "$i"
		sleep 0.2
	done
	for i in "${pids[@]}"; do wait "$i"; done
	assert_equal "$(grep -c '^end ' "$AGENT_LOG")" 12
	assert_equal "$(max_at_once)" 3
	# In arrival order: two admitted together (two slots freed at once on a
	# loaded machine) may log their start either way round, one place off.
	awk '$1 == "start" { n++; d = $2 - n; if (d < -1 || d > 1) bad = bad " " $2 "@" n }
		END { if (n != 12 || bad != "") { print "out of order:" bad; exit 1 } }' "$AGENT_LOG"
	run "$RLWRAP" history --json
	echo "$output" | jq -e 'length == 12 and all(.[]; .state == "finished")'
	assert_equal "$(waiting_count)" 0
}

@test "a slot wait is seen: one line, the title, a waits row; --wait budget ends it with 75" {
	limit 1
	AGENT_SECS=60 "$RLWRAP" -f claude -- ./agent 1 &
	until_true 10 started 1
	"$RLWRAP" --wait=2s --signal-file sig.json -f claude -- ./agent 2 2> err &
	local waiter=$! rc=0
	until_true 10 grep -q "waiting for" err
	run ps -o args= -p "$waiter"
	assert_output --regexp "^rlwrap: waiting for a claude slot"
	run "$RLWRAP" status --json
	echo "$output" | jq -e --argjson pid "$waiter" '.waiting | length == 1 and .[0].pid == $pid and .[0].position == 1'
	wait "$waiter" || rc=$?
	assert_equal "$rc" 75
	run cat err
	assert_line --index 0 --regexp "waiting for claude \(account default\): a slot \(1 running of max_concurrent 1, 0 ahead\)"
	assert_output --partial "refused: claude (account default): no slot free"
	jq -e '.refused == true and .refused_by == "max_concurrent" and .exit_code == 75 and .attempts == 0' sig.json
	! started 2
	assert_equal "$(waiting_count)" 0
	run db "SELECT kind, family, reason, pid, CASE WHEN ended_at - at >= 1.5 THEN 1 ELSE 0 END FROM waits"
	assert_output "wait|claude|max-concurrent|$waiter|1"
}

@test "SIGKILL of a wrapper holding a slot: child gone at once, slot free at the next check, run lost" {
	limit 1
	AGENT_SECS=60 "$RLWRAP" -f claude -- ./agent 1 &
	local holder=$!
	until_true 10 started 1
	AGENT_SECS=0 "$RLWRAP" -q -f claude -- ./agent 2 &
	local waiter=$!
	until_true 10 arrived 2
	local child t0
	child=$(child_pid 1)
	t0=$(date +%s%N)
	kill -9 "$holder"
	# Hang bounds: the child gets its parent-death signal at once, and the
	# waiter sees the slot free at its next check (bench/slots.sh times it).
	until_true 10 gone "$child"
	until_true 10 started 2
	echo "slot taken $(( ($(date +%s%N) - t0) / 1000000 )) ms after the kill" >&3
	wait "$waiter"
	run "$RLWRAP" history --json
	echo "$output" | jq -e '[.[] | {(.argv[1]): .state}] | add == {"1": "lost", "2": "finished"}'
}

@test "a host that dies (kill -9 of all its wrappers) frees its slots for the others once its lease runs out" {
	limit 2
	# The doomed host renews its lease every 300 ms, trusted for a second.
	local doomed=() i
	for i in 1 2; do
		RLWRAP_LEASE_RENEW_MS=300 AGENT_SECS=60 RLWRAP_HOST=doomed "$RLWRAP" -q -f claude -- ./agent "$i" &
		doomed+=($!)
		until_true 10 started "$i"
	done
	RLWRAP_HOST=survivor AGENT_SECS=0 "$RLWRAP" -q -f claude -- ./agent 3 &
	local waiter=$!
	until_true 10 arrived 3
	# Killed as a crashed host would be: its wrappers say nothing to the store.
	kill -9 "${doomed[@]}"
	# Bound, not a timing: the lease lasts a second, the old rule 90 s.
	until_true 30 started 3
	wait "$waiter"
	run "$RLWRAP" history --json
	echo "$output" | jq -e '[.[] | {(.argv[1]): .state}] | add == {"1": "lost", "2": "lost", "3": "finished"}'
	assert_equal "$(db "SELECT count(*) FROM hosts WHERE host IN ('doomed', 'survivor')")" 2
}

@test "two hosts on one store share the limit" {
	limit 2
	local i pids=()
	for i in 1 2 3 4 5 6; do
		AGENT_SECS=3 RLWRAP_HOST=host-$(( i % 2 )) "$RLWRAP" -q -f claude -- ./agent "$i" &
		pids+=($!)
		until_true 10 arrived "$i"
	done
	for i in "${pids[@]}"; do wait "$i"; done
	assert_equal "$(grep -c '^end ' "$AGENT_LOG")" 6
	assert_equal "$(max_at_once)" 2
	run db "SELECT count(DISTINCT host) FROM runs WHERE state = 'finished'"
	assert_output 2
}

@test "another host's run lives by its host's lease: renewed while it runs, lost once its wrapper dies" {
	export RLWRAP_LEASE_RENEW_MS=200
	AGENT_SECS=60 RLWRAP_HOST=elsewhere "$RLWRAP" -f claude -- ./agent 1 &
	local wrapper=$!
	until_true 10 started 1
	# Three heartbeat lifetimes later it is still alive for this host.
	sleep 2
	assert_equal "$(running_count)" 1
	# Killed, not stopped: a stopped wrapper can hold the store's write lock
	# for good, and then nobody may write the run lost.  Another host sees
	# no pid of this one: only the lease's end (a few renewals) says it is
	# gone; 10 s is a hang bound.
	kill -9 "$wrapper"
	until_true 10 first_run_is lost
}

@test "the heartbeat's thread is made once the command has run a while, never for a short run" {
	# threads: how many the wrapper (the command's parent) has now.
	run timeout 20 "$RLWRAP" -f claude -- sh -c 'threads() { ls /proc/$PPID/task | wc -l; }
		a=$(threads); sleep 1.6; echo "$a $(threads)"'
	assert_success
	assert_output "1 2"
}

@test "a bad max_concurrent is a config error naming the line" {
	printf '[family.claude]\nmax_concurrent = lots\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	assert_output --partial ":2: max_concurrent: 'lots' is not a whole number"
}
