#!/bin/bash
# A fleet on one PostgreSQL server (a throwaway one, tests/pg-server, with
# pg_stat_statements loaded): HOSTS simulated hosts (default 10), each with
# its own HOME and RLWRAP_HOST.  Measures what docs/design.md section 6
# ("The fleet") states:
#   1. statements and connections per spawn (pg_stat_statements,
#      pg_stat_database) for a let-through, a refusal asked of the server,
#      a refusal from the memo, and a spawn with a free slot;
#   2. WRAPPERS wrappers per host (default 50: 500 in all) of agents that
#      sleep AGENT_SECS (default 20): the peak of client backends, and
#      whether every agent ran;
#   3. WAITERS waiters (default 100) on one slot key for WAIT_SECS
#      (default 30): statements, rows read and server CPU per second;
#   4. a host killed (kill -9 of its wrappers) that held both slots of a
#      key: how long until a waiter on another host starts;
#   5. a stopped server (SIGSTOP): how long the second spawn of a host
#      takes from its command to its child's start;
#   6. a trip journaled during an outage by a host that then runs nothing:
#      how long after the server's return another host sees it (the
#      replayer the wrapper left behind carries it).
#   bench/fleet.sh            (HOSTS, WRAPPERS, AGENT_SECS, WAITERS, WAIT_SECS, RUNS, RLWRAP, BENCH_DIR,
#                              SECTIONS, POOL=pgbouncer: through a transaction pool)
set -euo pipefail
. "$(dirname "$0")/common.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
HOSTS=${HOSTS:-10}
WRAPPERS=${WRAPPERS:-50}
AGENT_SECS=${AGENT_SECS:-20}
WAITERS=${WAITERS:-100}
WAIT_SECS=${WAIT_SECS:-30}
RUNS=${RUNS:-50}
SECTIONS=${SECTIONS:-123456}   # which of the six to run
want() { [[ $SECTIONS == *$1* ]]; }
TRUE=$(command -v true)
dir=$(mktemp -d "$BENCH_DIR/fleet.XXXXXX")
chmod 755 "$dir"
"$top/tests/pg-server" start "$dir/server" > /dev/null
url=$("$top/tests/pg-server" url "$dir/server")
bindir=$(pg_config --bindir 2>/dev/null || true)
for d in "$bindir" /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && { bindir=$d; break; }; done
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql -qAtX -d "$url" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" > /dev/null
as_owner "$bindir/pg_ctl" -D "$dir/server/data" -l "$dir/server/server.log" -w restart > /dev/null
psql -qAtX -d "$url" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" > /dev/null
cleanup() {
	local pid
	# shellcheck disable=SC2046
	pid=$(head -1 "$dir/server/data/postmaster.pid" 2> /dev/null) && kill -CONT "$pid" $(pgrep -P "$pid") 2> /dev/null
	jobs -p | xargs -r kill -9 2> /dev/null || true
	"$top/tests/pg-server" stop "$dir/server"
	rm -rf "$dir"
}
trap cleanup EXIT
# POOL=pgbouncer: the wrappers go through a transaction pool in front
# (tests/pg-pool, default_pool_size there); this script's own looks go to
# the server, so the peak of client backends is the pool's server side.
rlwrap_url=$url
if [ "${POOL:-}" = pgbouncer ]; then
	rlwrap_url=$("$top/tests/pg-pool" start "$dir/pool" "$dir/server")
	trap '"$top/tests/pg-pool" stop "$dir/pool"; cleanup' EXIT
	echo "through pgbouncer (transaction pooling, $(sed -n 's/^default_pool_size = //p' "$dir/pool/pgbouncer.ini") server connections at most)"
fi
export RLWRAP_DB=$rlwrap_url RLWRAP_SCHEMA=fleet_bench
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR
q() { psql -qAtX -d "$url" -c "$1"; }

# host N: its directories; on N CMD...: CMD as a process of host N.
for n in $(seq 0 $((HOSTS - 1))); do mkdir -p "$dir/h$n/.config" "$dir/h$n/.local/state"; done
on() {
	local n=$1
	shift
	HOME="$dir/h$n" XDG_STATE_HOME="$dir/h$n/.local/state" XDG_CONFIG_HOME="$dir/h$n/.config" \
		RLWRAP_CONFIG="$dir/h$n/config" RLWRAP_HOST="host-$n" "$@"
}
config_all() { for n in $(seq 0 $((HOSTS - 1))); do printf '%b' "$1" > "$dir/h$n/config"; done; }
stats_reset() { q "SELECT pg_stat_statements_reset(); SELECT pg_stat_reset()" > /dev/null; }
# statements | connections since the reset, rlwrap's own (not this script's psql)
statements() { q "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'"; }
sessions() { q "SELECT sessions FROM pg_stat_database WHERE datname = 'postgres'"; }

# The server's CPU in clock ticks: its live backends' utime + stime, and
# the ended ones' (the postmaster's cutime + cstime).
pgcpu() {
	local pm p
	pm=$(head -1 "$dir/server/data/postmaster.pid")
	{
		sed 's/.*) //' "/proc/$pm/stat" | awk '{ print $14 + $15 }'
		for p in $(pgrep -P "$pm"); do
			sed 's/.*) //' "/proc/$p/stat" 2> /dev/null | awk '{ print $12 + $13 }'
		done
	} | awk '{ s += $1 } END { print s + 0 }'
}
# per_spawn LABEL STATUS CMD...: RUNS spawns on host 0; statements and
# connections per spawn.
per_spawn() {
	local label=$1 want=$2 i rc s0 c0 t0
	shift 2
	stats_reset
	s0=$(statements)
	c0=$(sessions)
	t0=$(pgcpu)
	for i in $(seq "$RUNS"); do
		rc=0
		on 0 "$@" > /dev/null 2>&1 || rc=$?
		[ "$rc" -eq "$want" ] || { echo "fleet: $label exited $rc, not $want" >&2; exit 1; }
	done
	awk -v l="$label" -v s="$(( $(statements) - s0 ))" -v c="$(( $(sessions) - c0 - 2 ))" -v n="$RUNS" \
		-v cpu="$(( ($(pgcpu) - t0) * 1000 / $(getconf CLK_TCK) ))" \
		'BEGIN { printf "%-28s %6.1f statements  %4.2f connections  %5.1f ms of server CPU per spawn\n", l, s / n, c / n, cpu / n }'
	# LIST=1: which statements, and how many of each per spawn
	[ -z "${LIST:-}" ] || q "SELECT round(calls::numeric / $RUNS, 2) || ' ' || left(regexp_replace(query, '\s+', ' ', 'g'), 110)
		FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' ORDER BY calls DESC" | sed 's/^/     /'
}

if want 1; then
echo "== 1. per spawn ($RUNS spawns each, host 0)"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\n'
on 0 "$RLWRAP" status > /dev/null
on 0 "$RLWRAP" -q -f claude -- "$TRUE"   # the schema, the host's lease
per_spawn "let-through" 0 "$RLWRAP" -q -f claude -- "$TRUE"
printf '[store]\nkeep_runs = 0\nkeep_days = 0\n[family.claude]\nmax_concurrent = 64\n' > "$dir/h0/config"
per_spawn "free slot (max_concurrent)" 0 "$RLWRAP" -q -f claude -- "$TRUE"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\n'
on 0 "$RLWRAP" trip --for 1h claude > /dev/null
per_spawn "refusal, from the memo" 75 "$RLWRAP" -q -f claude -- "$TRUE"
printf '[store]\nkeep_runs = 0\nkeep_days = 0\nmemo_ttl = 0\n' > "$dir/h0/config"
per_spawn "refusal, asked" 75 "$RLWRAP" -q -f claude -- "$TRUE"
on 0 "$RLWRAP" reset --all > /dev/null
q "SELECT query, calls, rows FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' ORDER BY calls DESC LIMIT 12" \
	| sed 's/^/   /' | cut -c1-160
fi

if want 2; then
echo "== 2. $((HOSTS * WRAPPERS)) wrappers of ${AGENT_SECS}s agents on $HOSTS hosts"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\n'
peak=0
for n in $(seq 0 $((HOSTS - 1))); do
	for _ in $(seq "$WRAPPERS"); do
		on "$n" "$RLWRAP" -q -f claude -- sh -c "echo \$\$ >> '$dir/ran'; sleep $AGENT_SECS" &
	done
done
end=$((SECONDS + AGENT_SECS + 60))
while [ "$(jobs -rp | wc -l)" -gt 0 ] && [ $SECONDS -lt $end ]; do
	b=$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
	[ "$b" -gt "$peak" ] && peak=$b
	sleep 0.2
done
wait
echo "peak client backends: $peak; agents that ran: $(wc -l < "$dir/ran") of $((HOSTS * WRAPPERS))"
fi

if want 3; then
echo "== 3. $WAITERS waiters on one slot key for ${WAIT_SECS}s"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\n[family.claude]\nmax_concurrent = 1\n'
# The holder outlasts the measurement (100 wrappers take a while to start
# on a busy machine); ended by its wrapper's pid afterwards.
on 0 exec "$RLWRAP" -q -f claude -- sleep $((WAIT_SECS + 120)) &
holder=$!
sleep 1
for i in $(seq "$WAITERS"); do
	on $((i % HOSTS)) "$RLWRAP" -q --wait=$((WAIT_SECS + 60)) -f claude -- "$TRUE" &
done
sleep 3
queued() { q "SELECT count(*) FROM fleet_bench.slot_queue"; }
q0=$(queued)
stats_reset
c0=$(pgcpu)
t0=$(now_ns)
sleep "$WAIT_SECS"
secs=$(( ($(now_ns) - t0) / 1000000000 ))
cpu=$(( ($(pgcpu) - c0) * 1000 / $(getconf CLK_TCK) ))
echo "waiters in the queue: $q0 at the start, $(queued) at the end"
echo "per second: $(q "SELECT round(sum(calls) / $secs) || ' statements, ' || round(sum(rows) / $secs) || ' rows returned, ' || round(sum(total_exec_time) / $secs) || ' ms executing' FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'"), $(q "SELECT round(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)) / $secs) FROM pg_stat_user_tables WHERE schemaname = 'fleet_bench'") rows read (pg_stat_user_tables); server CPU: $cpu ms in $secs s"
q "SELECT calls, rows, query FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' ORDER BY calls DESC LIMIT 6" \
	| sed 's/^/   /' | cut -c1-160
q "SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch FROM pg_stat_user_tables WHERE schemaname = 'fleet_bench' AND seq_tup_read + coalesce(idx_tup_fetch, 0) > 0" \
	| sed 's/^/   /'
kill "$holder"
wait "$holder" || true
wait
fi

if want 4; then
echo "== 4. a host killed while it holds both slots"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\n[family.claude]\nmax_concurrent = 2\n'
doomed=()
for i in 1 2; do
	on 1 exec "$RLWRAP" -q -f claude -- sleep 120 &   # exec: $! is the wrapper
	doomed+=($!)
done
sleep 2
on 2 "$RLWRAP" -q --wait=120 -f claude -- sh -c "date +%s%N > '$dir/freed'" &
waiter=$!
sleep 2
t0=$(now_ns)
kill -9 "${doomed[@]}"
wait "$waiter"
echo "slot taken on another host $(( ($(cat "$dir/freed") - t0) / 1000000 )) ms after the kill -9"
# Their children had SIGTERM from the kernel when their wrappers died.
fi

if want 5; then
echo "== 5. a stopped server: the second spawn of a host"
config_all '[store]\nkeep_runs = 0\nkeep_days = 0\nconnect_timeout = 2s\nstatement_timeout = 1s\n'
pids="$(head -1 "$dir/server/data/postmaster.pid") $(pgrep -P "$(head -1 "$dir/server/data/postmaster.pid")" | tr '\n' ' ')"
# shellcheck disable=SC2086
kill -STOP $pids
t0=$(now_ns)
on 3 "$RLWRAP" -q -f claude -- sh -c "date +%s%N > '$dir/first'" 2> /dev/null
echo "first spawn: child started $(( ($(cat "$dir/first") - t0) / 1000000 )) ms after its command"
for i in 1 2 3; do
	t0=$(now_ns)
	on 3 "$RLWRAP" -q -f claude -- sh -c "date +%s%N > '$dir/next'" 2> /dev/null
	echo "spawn $((i + 1)): child started $(( ($(cat "$dir/next") - t0) / 1000000 )) ms after its command"
done
# shellcheck disable=SC2086
kill -CONT $pids
fi

if want 6; then
echo "== 6. a trip journaled in an outage by a host that then goes idle"
config_all '[store]\nconnect_timeout = 2s\nstatement_timeout = 1s\n'
on 5 "$RLWRAP" -f claude -- "$TRUE"   # host 5 knows the server
pids="$(head -1 "$dir/server/data/postmaster.pid") $(pgrep -P "$(head -1 "$dir/server/data/postmaster.pid")" | tr '\n' ' ')"
# shellcheck disable=SC2086
kill -STOP $pids
# Host 4's one spawn hits the limit; it journals the trip and leaves a
# replayer behind; host 4 runs nothing after it.
on 4 "$RLWRAP" -q -f claude -- printf '%s\n' \
	'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' \
	> /dev/null 2>&1 || true
sleep "${OUTAGE_SECS:-10}"
# shellcheck disable=SC2086
kill -CONT $pids
t0=$(now_ns)
until on 5 "$RLWRAP" status --json 2> /dev/null | jq -e '.breakers | any(.family == "claude" and .state == "open")' > /dev/null; do
	[ $(( ($(now_ns) - t0) / 1000000000 )) -lt 120 ] || { echo "no breaker on host 5 after 120 s"; break; }
	sleep 0.2
done
echo "the trip reached host 5 $(( ($(now_ns) - t0) / 1000000 )) ms after the server's return (outage ${OUTAGE_SECS:-10} s)"
fi
