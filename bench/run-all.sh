#!/usr/bin/env bash
# Runs every benchmark (passthrough, classify, startup, refusal, rss, store,
# slots, budgets, status-short) one after the other, keeps their full
# output in $BENCH_DIR/run-all.log, and prints the machine line (its `true`
# time and `cat f | cat` bandwidth, so a reader can tell a fast machine from
# a fast program) and one Markdown table: every goal, met or missed.
# bench/stress.sh is a check, not a benchmark: run it on its own.
#   bench/run-all.sh                 (RLWRAP, BENCH_DIR, BENCH_STATE_DIR override defaults)
#   bench/run-all.sh --busy-core     everything under `taskset -c 0`, beside a
#                                    busy loop on the same core (faults and
#                                    switches dear)
# Every figure is a ratio against a baseline measured in the same run
# (paired, alternating runs), and the load average is printed with each.
# Needs about 2.5 GiB free in BENCH_DIR for the generated inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
export RLWRAP BENCH_DIR

if [ "${1:-}" = --busy-core ]; then
	command -v taskset > /dev/null || { echo "bench: --busy-core needs taskset" >&2; exit 1; }
	taskset -c 0 sh -c 'while :; do :; done' &
	spin=$!
	trap 'kill "$spin" 2>/dev/null || true' EXIT
	RUN_ALL_SITUATION="under taskset -c 0, beside a busy loop on CPU 0" taskset -c 0 "$0"
	exit
fi

log=$BENCH_DIR/run-all.log
: > "$log"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

results=""
for b in passthrough classify startup refusal rss store slots budgets status-short; do
	echo "== $b" | tee -a "$log" >&2
	out=$("$here/$b.sh" 2>&1) || { echo "$out" >> "$log"; echo "bench: $b.sh failed; see $log" >&2; exit 1; }
	echo "$out" >> "$log"
	echo "$out" | grep -v '^RESULT ' >&2
	results+=$(echo "$out" | grep '^RESULT ')$'\n'
done

# get NAME KEY: a value from the RESULT lines.
get() { echo "$results" | awk -v n="$1" -v k="$2" '$2 == n { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }'; }

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "Machine: $(nproc) CPUs ($cpu), Linux $(uname -r), $(date -u '+%F %H:%M UTC')${RUN_ALL_SITUATION:+, $RUN_ALL_SITUATION}"
awk -v t="$(get startup true_ms)" -v mib="$(get passthrough_claude-hb mib)" -v p="$(get passthrough_claude-hb pipe_ms)" \
    -v l0="$load_start" -v l1="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	printf "`true`: %.2f ms; `cat f | cat`: %.0f MiB/s; load average %s at the start, %s at the end\n\n", t, mib / (p / 1000), l0, l1 }'
echo "| measure | rlwrap | baseline | figure (goal) | goal |"
echo "|---|---|---|---|---|"
# row MEASURE RLWRAP BASELINE FIGURE GOAL-TEXT MET(1/0)
row() { printf '| %s | %s | %s | %s (%s) | %s |\n' "$1" "$2" "$3" "$4" "$5" "$([ "$6" = 1 ] && echo met || echo missed)"; }
ok() { awk "BEGIN { exit !($1) }" && echo 1 || echo 0; }
f2() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }
fs() { awk -v v="$1" 'BEGIN { printf "%+.2f", v }'; }
f0() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }

for s in claude-hb codex text; do
	k=passthrough_$s
	case $s in claude-hb) what="Claude stream, heartbeat every turn";; codex) what="Codex exec --json stream";; text) what="plain text, short lines";; esac
	mib=$(f0 "$(get $k mib)")
	wr=$(get $k wall_ratio) cr=$(get $k cpu_hop_ratio) fr=$(get $k faults_ratio)
	row "pass-through wall, $mib MiB $what, \`rlwrap -- cat f \\| cat\`" "$(f0 "$(get $k wrap_ms)") ms" \
	    "\`cat f \\| cat\`: $(f0 "$(get $k pipe_ms)") ms" "$(f2 "$wr")x" "<= 1.25x" "$(ok "$wr <= 1.25")"
	row "pass-through CPU (user + sys, every process), $what" "$(f0 "$(get $k wrap_cpu_ms)") ms" \
	    "\`cat f \\| cat \\| cat\`: $(f0 "$(get $k hop_cpu_ms)") ms" "$(f2 "$cr")x" "<= 1x" "$(ok "$cr <= 1")"
	row "page faults per MiB, \`rlwrap -- cat f\`, $what" "$(awk -v f="$(get $k wrap_faults)" -v m="$(get $k mib)" 'BEGIN { printf "%.2f/MiB", f / m }')" \
	    "\`cat f\`: $(awk -v f="$(get $k cat_faults)" -v m="$(get $k mib)" 'BEGIN { printf "%.2f/MiB", f / m }')" \
	    "$(f2 "$fr")x; past the first MiB $(get $k wrap_fault_slope)/MiB, cat $(get $k cat_fault_slope)/MiB" "<= 1.2x" "$(ok "$fr <= 1.2")"
done
for s in claude-hb claude text; do
	k=classify_$s
	case $s in claude-hb) what="Claude stream, heartbeat every turn";; claude) what="Claude stream, heartbeat every 40 turns";; text) what="plain text";; esac
	g=$(get $k gbs) jx=$(get $k jq_x) gx=$(get $k grep_x) fr=$(get $k faults_ratio)
	mib=$(f0 "$(get $k mib)")
	# The CPU time's rate beside the wall time's, the goal's: a loaded
	# machine's queue stretches the one and not the other.
	gc=$(awk -v m="$(get $k mib)" -v c="$(get $k rlwrap_cpu_ms)" 'BEGIN { printf "%.2f", m * 1048576 / 1e6 / c }')
	if [ "$s" = text ]; then
		row "\`classify-failure\`, $mib MiB $what" "$(f2 "$g") GB/s (CPU time: $gc GB/s)" "\`grep -c\`: $(f0 "$(get $k grep_ms)") ms" \
		    "$(f2 "$g") GB/s" ">= 1.5 GB/s" "$(ok "$g >= 1.5")"
	else
		row "\`classify-failure\`, $mib MiB $what" "$(f2 "$g") GB/s (CPU time: $gc GB/s)" "\`grep -c\`: $(f0 "$(get $k grep_ms)") ms, jq: $(f0 "$(get $k jq_ms)") ms" \
		    "$(f2 "$g") GB/s, ${jx}x jq, ${gx}x grep -c" ">= 3 GB/s, >= 50x, >= 2x" "$(ok "$g >= 3 && $jx >= 50 && $gx >= 2")"
	fi
	row "page faults, \`classify-failure f\`, $what" "$(f0 "$(get $k faults)")" "\`cat f\`: $(f0 "$(get $k cat_faults)")" \
	    "$(f2 "$fr")x" "<= 1.2x" "$(ok "$fr <= 1.2")"
done
r=$(get startup ratio)
row "start-up, \`rlwrap -- true\` (store check + run record; state file on $(get startup disk | tr _ ' '))" "$(get startup rlwrap_ms) ms" \
    "\`true\`: $(get startup true_ms) ms" "$(f2 "$r")x" "<= 2.5x" "$(ok "$r <= 2.5")"
r=$(get refusal refuse_ratio)
row "refusal, open breaker (exit 75, no spawn)" "$(get refusal refuse_ms) ms" "\`true\`: $(get refusal true_ms) ms" \
    "$(f2 "$r")x" "<= 2x" "$(ok "$r <= 2")"
k=$(get rss wrapper_kib)
row "peak RSS, 512 MiB single line through the wrapper" "$(awk -v k="$k" 'BEGIN { printf "%.1f MiB", k / 1024 }')" "" \
    "$(awk -v k="$k" 'BEGIN { printf "%.1f MiB", k / 1024 }')" "< 16 MiB" "$(ok "$k < 16384")"
k=$(get slots freeslot_extra_ms)
row "start-up with a free concurrency slot (\`max_concurrent\`)" "$(get slots freeslot_ms) ms" "no limit: $(get slots nolimit_ms) ms" \
    "$(fs "$k") ms" "< 1 ms" "$(ok "$k < 1")"
k=$(get slots handover_ms)
row "slot freed -> the next waiting child started (median; worst $(get slots handover_worst_ms) ms)" "$k ms" "" "$k ms" "< 250 ms" "$(ok "$k < 250")"
k=$(get budgets budgets_extra_ms)
row "admission with four budgets" "$(get budgets budgets_ms) ms" "none: $(get budgets nobudget_ms) ms" "$(fs "$k") ms" "< 1 ms" "$(ok "$k < 1")"
k=$(get status_short rlwrap_ms)
row "\`status --short\`, 10000 runs in the store" "$k ms" "\`true\`: $(get status_short true_ms) ms" "$k ms" "< 5 ms" "$(ok "$k < 5")"
echo
echo "store, $(get store writers) concurrent writers: $(get store records_per_s) records/s; one writer: record $(get store record_us) us, refusing gate $(get store gate_us) us (medians)"
