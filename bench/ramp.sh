#!/usr/bin/env bash
# The release after a reset: WAITERS spawns (default 20) of one
# family wait out its breaker across HOSTS simulated hosts (default 4: each
# its own HOME and RLWRAP_HOST, as tests/fleet.bats does, on one state
# file), under `release = ramp 4x 1s up to 4`, against a fake provider that
# accepts RATE new sessions a second (default 4: a token bucket of 4, filled
# at 4 a second) and answers any other with a 429.  At the reset: the probe,
# then the ramp.  Reports the re-trips (429s), how many ran, and the time
# from the reset to the last start against the ideal (WAITERS / RATE).
#   bench/ramp.sh     (WAITERS, HOSTS, RATE, RELEASE, RLWRAP, BENCH_DIR)
# Exits 0 with 0 re-trips, every waiter run, and within 1.5x of the ideal.
set -euo pipefail
. "$(dirname "$0")/common.sh"
WAITERS=${WAITERS:-20}
HOSTS=${HOSTS:-4}
RATE=${RATE:-4}
RELEASE=${RELEASE:-ramp 4x 1s up to 4}
dir=$(mktemp -d "$BENCH_DIR/ramp.XXXXXX")
export RLWRAP_DB=$dir/state.db RLWRAP_CONFIG=$dir/config DIR=$dir RATE
# Waiters look again every 250 ms (the default is 5 s): the ramp's turns
# are a quarter of a second apart.
export RLWRAP_POLL_MS=250
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR RLWRAP_HOST
printf '[family.claude]\ncommands = agent\nrelease = %s\n' "$RELEASE" > "$RLWRAP_CONFIG"
# The provider: a token bucket of RATE sessions, RATE a second, shared by
# every process through a ledger under flock.  A session it accepts writes
# its first output at once and ends a second later; one it refuses is a 429.
cat > "$dir/agent" <<'AGENT'
#!/bin/bash
exec 9> "$DIR/ledger.lock"
flock 9
now=$EPOCHREALTIME
read -r tokens at < "$DIR/ledger" 2> /dev/null || { tokens=$RATE; at=$now; }
tokens=$(awk -v t="$tokens" -v a="$at" -v n="$now" -v r="$RATE" 'BEGIN { t += (n - a) * r; if (t > r) t = r; print t }')
if awk -v t="$tokens" 'BEGIN { exit !(t >= 1) }'; then
	echo "$(awk -v t="$tokens" 'BEGIN { print t - 1 }') $now" > "$DIR/ledger"
	flock -u 9
	echo "ok $1 $now" >> "$DIR/log"
	echo '{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"working"}]}}'
	sleep 1
	echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'
	exit 0
fi
echo "$tokens $now" > "$DIR/ledger"
flock -u 9
echo "429 $1 $now" >> "$DIR/log"
echo '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limited","api_error_status":429}'
exit 1
AGENT
chmod +x "$dir/agent"
: > "$dir/log"

on() {
	local h=$1
	shift
	HOME="$dir/$h" XDG_STATE_HOME="$dir/$h/state" RLWRAP_HOST=$h "$@"
}
for h in $(seq 1 "$HOSTS"); do mkdir -p "$dir/h$h/state"; done
reset=$(($(date +%s) + 4))
on h1 "$RLWRAP" trip --until "$(date -u -d "@$reset" +%Y-%m-%dT%H:%M:%SZ)" --reason rate-limit claude > /dev/null
echo "ramp: $WAITERS waiters on $HOSTS hosts, release = $RELEASE, provider $RATE sessions/s ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
pids=()
for i in $(seq 1 "$WAITERS"); do
	h=h$(( (i - 1) % HOSTS + 1 ))
	on "$h" "$RLWRAP" -q --wait=20m -- "$dir/agent" "task-$i" > "$dir/out.$i" 2> "$dir/err.$i" &
	pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
ran=$(grep -c '^ok ' "$dir/log" || :)
trips=$(grep -c '^429 ' "$dir/log" || :)
last=$(awk '$1 == "ok" { if ($3 > m) m = $3 } END { print m }' "$dir/log")
span=$(awk -v l="$last" -v r="$reset" 'BEGIN { printf "%.2f", l - r }')
ideal=$(awk -v n="$WAITERS" -v r="$RATE" 'BEGIN { printf "%.2f", n / r }')
ratio=$(awk -v s="$span" -v i="$ideal" 'BEGIN { printf "%.2f", s / i }')
echo "ran $ran of $WAITERS (wrappers failed: $failed), re-trips $trips; last start ${span}s after the reset, ideal ${ideal}s: ${ratio}x"
awk -v r="$reset" '$1 == "ok" { printf "%.2f\n", $3 - r }' "$dir/log" | sort -n | tr '\n' ' '; echo
echo "store: $dir"
[ "$trips" -eq 0 ] && [ "$ran" -eq "$WAITERS" ] && [ "$failed" -eq 0 ] && awk -v x="$ratio" 'BEGIN { exit !(x <= 1.5) }'
