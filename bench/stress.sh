#!/usr/bin/env bash
# Stress: WORKERS wrappers at once (default 64) on one state file for
# DURATION seconds (default 60).  Each worker loops wrapping a fake claude
# that alternates a success and a usage limit with a provider reset of its
# own (1 h to ~3 days ahead), all with --force so no run is refused.  Then:
#   - every run a worker started is in the history (keep_runs = 0);
#   - no "database is locked" (nor any other word) on any wrapper's stderr,
#     and every wrapper exited with its child's status;
#   - PRAGMA integrity_check says ok;
#   - the breaker is what the rules make of the history, replayed in commit
#     order: a trip opens it or extends it to the later reset (never
#     shortens), a success that started after the last trip closes it.
#   bench/stress.sh            (WORKERS, DURATION, RLWRAP, BENCH_DIR override)
# Exits 0 when every check holds.
set -euo pipefail
. "$(dirname "$0")/common.sh"
WORKERS=${WORKERS:-64}
DURATION=${DURATION:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "$BENCH_DIR/stress.XXXXXX")
export RLWRAP_DB=$dir/state.db RLWRAP_CONFIG=$dir/config HOME=$dir
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR
printf '[store]\nkeep_runs = 0\nkeep_days = 0\n' > "$RLWRAP_CONFIG"
PATH=$top/fixtures/bin:$PATH   # the fake claude: replays $FAKE_STREAM, exits $FAKE_EXIT
"$RLWRAP" status > /dev/null   # create the store before the crowd arrives

printf '%s\n' \
	'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
	'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"done"}]}}' \
	'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$dir/success.jsonl"

worker() {
	local w=$1 end=$2 j=0 rc reset ok=0 limits=0 odd=0
	local limit=$dir/limit.$w
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		j=$((j + 1))
		rc=0
		if [ $(((j + w) % 2)) -eq 0 ]; then
			FAKE_STREAM=$dir/success.jsonl "$RLWRAP" -q --force -- claude -p "w$w-$j" \
				> /dev/null 2>> "$dir/err.$w" || rc=$?
			[ "$rc" -eq 0 ] && ok=$((ok + 1)) || odd=$((odd + 1))
		else
			reset=$((EPOCHSECONDS + 3600 + (RANDOM % 24000) * 10))
			printf '%s\n' \
				'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
				"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$reset,\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
				'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > "$limit"
			FAKE_STREAM=$limit FAKE_EXIT=1 "$RLWRAP" -q --force -- claude -p "w$w-$j" \
				> /dev/null 2>> "$dir/err.$w" || rc=$?
			[ "$rc" -eq 1 ] && limits=$((limits + 1)) || odd=$((odd + 1))
		fi
	done
	echo "$j $ok $limits $odd" > "$dir/count.$w"
}

echo "stress: $WORKERS wrappers on one store for ${DURATION}s ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
t0=$(now_ns)
end=$((EPOCHSECONDS + DURATION))
for w in $(seq 1 "$WORKERS"); do
	worker "$w" "$end" &
done
wait
secs=$(awk -v a="$t0" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')

read -r started ok limits odd < <(cat "$dir"/count.* | awk '{ s += $1; o += $2; l += $3; x += $4 } END { print s, o, l, x }')
recorded=$("$RLWRAP" history --json | jq length)
labels=$("$RLWRAP" history --json | jq '[.[].argv[2]] | unique | length')
locked=$(cat "$dir"/err.* | grep -c 'database is locked' || true)
errlines=$(cat "$dir"/err.* | wc -l)
integrity=$(sqlite3 "$RLWRAP_DB" 'PRAGMA integrity_check')

# Replay the rules over the runs in commit order (run id).
expected=$(sqlite3 -separator ' ' "$RLWRAP_DB" \
	"SELECT reason, started_at, ended_at, COALESCE(resets_at, 0) FROM runs ORDER BY id" |
	awk 'BEGIN { open = 0; last = -1 }
	$1 == "usage-limit" { if (!open || $4 > reset) reset = $4; open = 1; last = $3; next }
	$1 == "none" { if (open && last < $2) open = 0 }
	END { if (open) printf "open %d\n", reset; else print "closed" }')
actual=$(sqlite3 -separator ' ' "$RLWRAP_DB" \
	"SELECT state, CAST(resets_at AS INTEGER) FROM breakers WHERE family = 'claude' AND scope = '*'" |
	awk '$1 == "closed" { print "closed"; next } { print $1, $2 }')
[ -n "$actual" ] || actual=closed
trips=$(sqlite3 "$RLWRAP_DB" "SELECT COUNT(*) FROM runs WHERE reason = 'usage-limit'")
closes=$(sqlite3 "$RLWRAP_DB" "SELECT COUNT(*) FROM breaker_history WHERE event = 'close'")
last=$(sqlite3 "$RLWRAP_DB" "SELECT reason FROM runs ORDER BY id DESC LIMIT 1")

fmt_state() { case $1 in open*) echo "open until $(date -u -d "@${1#open }" +%FT%TZ)" ;; *) echo "$1" ;; esac; }
fails=0
verdict() {   # verdict GOT WANT: sets V to ok or FAIL
	if [ "$1" = "$2" ]; then V=ok; else V=FAIL; fails=$((fails + 1)); fi
}
echo "ran:          ${secs}s, $started wrapped runs ($ok successes, $limits usage limits): $(awk -v n="$started" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') runs/s"
verdict "$recorded $labels" "$started $started"
echo "recorded:     $recorded runs in the history, $labels distinct: $V"
verdict "$odd" 0
echo "exit codes:   $odd wrappers did not exit with their child's status: $V"
verdict "$locked $errlines" "0 0"
echo "lock errors:  $locked \"database is locked\", $errlines stderr lines in all: $V"
verdict "$integrity" ok
echo "integrity:    $integrity: $V"
verdict "$actual" "$expected"
echo "breaker:      $(fmt_state "$actual") after $trips trips and $closes closes (last run: $last); the rules replayed say $(fmt_state "$expected"): $V"
if [ "$errlines" -gt 0 ]; then
	echo "first stderr lines:"
	cat "$dir"/err.* | sort | uniq -c | sort -rn | head -5
fi
if [ "$fails" -eq 0 ]; then
	echo "result:       PASS"
	rm -rf "$dir"
else
	echo "result:       FAIL ($fails checks); the store and the stderr files are in $dir"
	exit 1
fi
