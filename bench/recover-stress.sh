#!/usr/bin/env bash
# Recovery under faults: WRAPPERS wrappers (default 32) start
# new tasks on one state file while RECOVERS loops (default 4) run
# `rlwrap recover --yes` over and over, for DURATION seconds (default 60).
# The fake agent fails now and then with a 529 and, while the provider is
# "tripped", with a usage limit whose reset is a few seconds ahead; a
# tripper trips and resets (`rlwrap reset --all`) at random, and a killer
# sends SIGKILL to a random wrapper, recover or re-run every half second.
# Then, per task (one origin row: its first spawn, run or refused):
#   executions counted by the agent itself == (ran ? 1 : 0) + its recorded
#   attempts (its re-runs' rows that spawned), and attempts <= max (a
#   first spawn whose wrapper was killed before its agent started is lost
#   and ran 0 times: counted apart);
#   no two executions of one task overlapped.
#   bench/recover-stress.sh     (WRAPPERS, RECOVERS, DURATION, RLWRAP, BENCH_DIR)
# Prints the counts; exits 0 when every task's counts agree.
set -euo pipefail
. "$(dirname "$0")/common.sh"
WRAPPERS=${WRAPPERS:-32}
RECOVERS=${RECOVERS:-4}
DURATION=${DURATION:-60}
MAX_ATTEMPTS=3
dir=$(mktemp -d "$BENCH_DIR/recover-stress.XXXXXX")
export RLWRAP_DB=$dir/state.db RLWRAP_CONFIG=$dir/config HOME=$dir/home XDG_STATE_HOME=$dir/home/state
export RLWRAP_RECOVER_GAP_MS=0 DIR=$dir
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR RLWRAP_HOST
mkdir -p "$HOME" "$dir/pids"
printf '[store]\nkeep_runs = 0\nkeep_days = 0\n[family.claude]\ncommands = agent\n' > "$RLWRAP_CONFIG"
printf '%s\n' '{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"done"}]}}' \
	'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$dir/success.jsonl"
printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' \
	> "$dir/overloaded.jsonl"
# The agent: logs its start and end (the child's side of the count).
cat > "$dir/agent" <<'AGENT'
#!/bin/bash
echo "start $1 $$ $EPOCHREALTIME" >> "$DIR/exec.log"
sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
if [ -e "$DIR/tripped" ]; then out=$DIR/limit.jsonl rc=1
elif [ $((RANDOM % 3)) -eq 0 ]; then out=$DIR/overloaded.jsonl rc=1
else out=$DIR/success.jsonl rc=0; fi
cat "$out"
echo "end $1 $$ $EPOCHREALTIME" >> "$DIR/exec.log"
exit $rc
AGENT
chmod +x "$dir/agent"
"$RLWRAP" status > /dev/null

wrapper_loop() {
	local w=$1 end=$2 j=0
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		j=$((j + 1))
		"$RLWRAP" -q -- "$dir/agent" "w$w-$j" > /dev/null 2>> "$dir/err.w$w" &
		echo $! > "$dir/pids/w$w"
		wait $! || :
	done
}

recover_loop() {
	local k=$1 end=$2
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		"$RLWRAP" recover --yes --max-attempts $MAX_ATTEMPTS > /dev/null 2>> "$dir/err.r$k" &
		echo $! > "$dir/pids/r$k"
		wait $! || :
		sleep 0.2
	done
}

tripper() {
	local end=$1
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		sleep "$((RANDOM % 4 + 2))"
		printf '%s\n' "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$((EPOCHSECONDS + 3)),\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
			'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' \
			> "$dir/limit.jsonl"
		touch "$dir/tripped"
		sleep "$((RANDOM % 3 + 1))"
		rm -f "$dir/tripped"
		"$RLWRAP" reset --all > /dev/null 2>&1 || :
		echo trip >> "$dir/trips"
	done
}

# Three times a second, SIGKILL of one live process this script started:
# a wrapper, a recover, or the re-run a recover is waiting for.
killer() {
	local end=$1 files pid child
	while [ "$EPOCHSECONDS" -lt "$end" ]; do
		sleep 0.3
		files=("$dir"/pids/*)
		pid=$(cat "${files[RANDOM % ${#files[@]}]}" 2> /dev/null) || continue
		kill -0 "$pid" 2> /dev/null || continue
		if [ $((RANDOM % 2)) -eq 0 ] && child=$(pgrep -P "$pid" | head -1) && [ -n "$child" ]; then
			pid=$child
		fi
		kill -9 "$pid" 2> /dev/null && echo "$pid" >> "$dir/kills" || :
	done
}

echo "recover-stress: $WRAPPERS wrappers, $RECOVERS recover --yes loops, ${DURATION}s ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
end=$((EPOCHSECONDS + DURATION))
pids=()
for w in $(seq 1 "$WRAPPERS"); do wrapper_loop "$w" "$end" & pids+=($!); done
for k in $(seq 1 "$RECOVERS"); do recover_loop "$k" "$end" & pids+=($!); done
tripper "$end" & pids+=($!)
killer "$end" & pids+=($!)
wait "${pids[@]}"
# A re-run left by a killed recover still runs: let it end (its agent logs "end").
sleep 3

sqlite3 -separator ' ' "$RLWRAP_DB" "SELECT json_extract(argv, '\$[1]'), state,
	(SELECT count(*) FROM runs r WHERE r.origin = o.id AND r.state <> 'refused'),
	CASE WHEN recovered_by IS NULL THEN 0 ELSE 1 END
	FROM runs o WHERE origin IS NULL ORDER BY id" > "$dir/origins"
awk '$1 == "start" { n[$2]++ } END { for (t in n) print t, n[t] }' "$dir/exec.log" | sort > "$dir/executions"
# overlaps: a task started again before its previous execution ended
overlaps=$(awk '$1 == "start" { if (live[$2] > 0) o++; live[$2]++ } $1 == "end" { live[$2]-- } END { print o + 0 }' \
	<(sort -k4 -n "$dir/exec.log"))
awk -v max=$MAX_ATTEMPTS '
	FNR == NR { ex[$1] = $2; next }
	{ tasks++; want = ($2 == "refused" ? 0 : 1) + $3; got = ex[$1] + 0
	  if ($2 == "refused") refused++; if ($2 == "lost") lost++; if ($4) recovered++
	  attempts += $3; executions += got; if ($3 > 0) chains++; if ($3 > max) over++
	  # a wrapper killed between its running row and its agent: lost, never ran
	  if ($2 == "lost" && got == $3) { unstarted++; ok++ } else if (got == want) ok++; else if (got < want) short++; else extra++ }
	END {
	  printf "tasks %d (refused at first %d, lost %d, recovered %d, with re-runs %d)\n", tasks, refused, lost, recovered, chains
	  printf "executions %d, recorded attempts %d\n", executions, attempts
	  printf "executions == first run + attempts: %d of %d (%d of them lost before their agent started); more: %d; fewer: %d; attempts over %d: %d\n", ok, tasks, unstarted, extra, short, max, over
	  exit (extra > 0 || over > 0) ? 1 : (short > 0 ? 2 : 0) }' "$dir/executions" "$dir/origins" && rc=0 || rc=$?
echo "kills $(wc -l < "$dir/kills" 2> /dev/null || echo 0), trips $(wc -l < "$dir/trips" 2> /dev/null || echo 0), overlapping executions $overlaps"
echo "store: $dir"
[ "$overlaps" -eq 0 ] || rc=1
exit "$rc"
