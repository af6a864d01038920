#!/bin/bash
# The PostgreSQL store against the SQLite file, in the same run: start-up
# (a run let through: gate plus run record) and refusal (exit 75) as
# medians of whole processes, SQLite file vs a server on loopback TCP
# (password, SCRAM) and, for the throwaway server, on its unix socket
# (trust; RLWRAP_BENCH_PG_SOCKET names another); then
# WORKERS wrappers (default 64) on the server for DURATION seconds (default
# 60): runs per second, and the runs started that the history lacks (goal 0).
# The server is a throwaway one (tests/pg-server) unless RLWRAP_BENCH_PG
# names one.
#   bench/pg.sh [RUNS]            (WORKERS, DURATION, RLWRAP, BENCH_DIR override)
set -euo pipefail
. "$(dirname "$0")/common.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-100}
WORKERS=${WORKERS:-64}
DURATION=${DURATION:-60}
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
dir=$(mktemp -d "$BENCH_DIR/pg.XXXXXX")
chmod 755 "$dir"
if [ -z "${RLWRAP_BENCH_PG:-}" ]; then
	"$top/tests/pg-server" start "$dir/server" > /dev/null
	trap '"$top/tests/pg-server" stop "$dir/server"; rm -rf "$dir"' EXIT
	RLWRAP_BENCH_PG=$("$top/tests/pg-server" tcp-url "$dir/server")
	RLWRAP_BENCH_PG_SOCKET=$("$top/tests/pg-server" url "$dir/server")
else
	trap 'rm -rf "$dir"' EXIT
fi
export HOME=$dir RLWRAP_CONFIG=$dir/config RLWRAP_SCHEMA=bench_$$
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR
printf '[store]\nkeep_runs = 0\nkeep_days = 0\n' > "$RLWRAP_CONFIG"
printf '[store]\nkeep_runs = 0\nkeep_days = 0\nmemo_ttl = 0\n' > "$dir/config-asked"

# median_ms WANT_STATUS command...: the median wall time in ms of RUNS runs,
# each of which must end with WANT_STATUS.
median_ms() {
	local want=$1 t0 t1 rc
	shift
	for _ in $(seq "$runs"); do
		t0=$(now_ns)
		rc=0
		"$@" >/dev/null 2>&1 || rc=$?
		t1=$(now_ns)
		[ "$rc" -eq "$want" ] || { echo "bench: $* exited $rc, not $want" >&2; exit 1; }
		echo $(((t1 - t0) / 1000))
	done | median | awk '{ print $1 / 1000 }'
}

# pass_and_refuse DB: "PASS_MS REFUSE_MS ASKED_MS" on the store DB: a
# refusal as it comes (a server store: from the host's memo of the open
# breaker, after the first), and one that asks the server every time
# (memo_ttl = 0: what the first refusal on a host costs).
pass_and_refuse() {
	export RLWRAP_DB=$1
	"$RLWRAP" status > /dev/null
	local pass refuse asked
	pass=$(median_ms 0 "$RLWRAP" -f claude -- "$TRUE")
	"$RLWRAP" trip --for 1h claude > /dev/null
	refuse=$(median_ms 75 "$RLWRAP" -f claude -- "$TRUE")
	asked=$(RLWRAP_CONFIG=$dir/config-asked median_ms 75 "$RLWRAP" -f claude -- "$TRUE")
	"$RLWRAP" reset claude > /dev/null
	echo "$pass $refuse $asked"
}

echo "pg: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); server on loopback TCP${RLWRAP_BENCH_PG_SOCKET:+ and its unix socket}"
read -r s_pass s_refuse _ < <(pass_and_refuse "$dir/state.db")
read -r p_pass p_refuse p_asked < <(pass_and_refuse "$RLWRAP_BENCH_PG")
u_pass=- u_refuse=- u_asked=-
if [ -n "${RLWRAP_BENCH_PG_SOCKET:-}" ]; then
	read -r u_pass u_refuse u_asked < <(pass_and_refuse "$RLWRAP_BENCH_PG_SOCKET")
fi
awk -v sp="$s_pass" -v sr="$s_refuse" -v pp="$p_pass" -v pr="$p_refuse" -v up="$u_pass" -v ur="$u_refuse" \
    -v pa="$p_asked" -v ua="$u_asked" -v n="$runs" 'BEGIN {
	printf "let through (gate + record), SQLite file:  %.3f ms (median of %d)\n", sp, n
	printf "let through (gate + record), PostgreSQL:   %.3f ms (TCP), %s ms (unix socket)\n", pp, up
	printf "refused (75), SQLite file:                 %.3f ms\n", sr
	printf "refused (75), PostgreSQL:                  %.3f ms (TCP), %s ms (unix socket) (goal: under 5 ms)\n", pr, ur
	printf "refused asking the server (memo_ttl = 0):  %.3f ms (TCP), %s ms (unix socket)\n", pa, ua
}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# WORKERS wrappers on the server, successes and usage limits, all --force.
export RLWRAP_DB=$RLWRAP_BENCH_PG
PATH=$top/fixtures/bin:$PATH
printf '%s\n' \
	'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
	'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"done"}]}}' \
	'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$dir/success.jsonl"
worker() {
	local w=$1 end=$2 j=0 rc odd=0
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		j=$((j + 1))
		rc=0
		FAKE_STREAM=$dir/success.jsonl FAKE_EXIT=$((j % 2)) "$RLWRAP" -q --force -- claude -p "w$w-$j" \
			> /dev/null 2>> "$dir/err.$w" || rc=$?
		[ "$rc" -eq $((j % 2)) ] || odd=$((odd + 1))
	done
	echo "$j $odd" > "$dir/count.$w"
}
t0=$(now_ns)
end=$((EPOCHSECONDS + DURATION))
for w in $(seq 1 "$WORKERS"); do worker "$w" "$end" & done
wait
secs=$(awk -v a="$t0" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
read -r started odd < <(cat "$dir"/count.* | awk '{ s += $1; x += $2 } END { print s, x }')
# A wrapper that met a server too slow to answer in time journalled its run;
# the next look that reaches the server replays it, as any later spawn would.
"$RLWRAP" status > /dev/null
recorded=$(psql -qAtX -d "$RLWRAP_BENCH_PG" -c \
	"SELECT count(DISTINCT argv) FROM $RLWRAP_SCHEMA.runs WHERE argv LIKE '%\"w%'")
errlines=$(cat "$dir"/err.* | wc -l)
lost=$((started - recorded))
echo "$WORKERS wrappers for ${secs}s: $started runs, $(awk -v n="$started" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') runs/s;" \
	"lost rows: $lost; wrong exit statuses: $odd; stderr lines: $errlines"
if [ "$errlines" -gt 0 ]; then
	echo "first stderr lines:"
	cat "$dir"/err.* | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -5
fi
printf 'RESULT pg sqlite_pass_ms=%s pg_pass_ms=%s pg_socket_pass_ms=%s sqlite_refuse_ms=%s pg_refuse_ms=%s pg_socket_refuse_ms=%s pg_asked_refuse_ms=%s pg_socket_asked_refuse_ms=%s runs_per_s=%s lost=%s\n' \
	"$s_pass" "$p_pass" "$u_pass" "$s_refuse" "$p_refuse" "$u_refuse" "$p_asked" "$u_asked" "$(awk -v n="$started" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')" "$lost"
[ "$lost" -eq 0 ] && [ "$odd" -eq 0 ] && [ "$errlines" -eq 0 ]
