#!/usr/bin/env bash
# Runs every benchmark (passthrough, classify, startup, refusal, rss, store, slots, budgets,
# status-short, text)
# one after the other, keeps their full output in $BENCH_DIR/run-all.log,
# and prints the machine and one Markdown table built from the RESULT line
# each script ends with.  bench/stress.sh is a check, not a benchmark: run
# it on its own.
#   bench/run-all.sh                 (RLWRAP, BENCH_DIR, BENCH_STATE_DIR override defaults)
# Run it on an otherwise idle machine: every figure is a ratio against a
# baseline measured in the same run (paired, alternating runs where it
# matters), and the load average is printed with each.
# Needs about 2.5 GiB free in BENCH_DIR for the generated inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
export RLWRAP BENCH_DIR
log=$BENCH_DIR/run-all.log
: > "$log"

machine() {
	local cpu mem
	cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "Machine: $(nproc) CPUs ($cpu), $mem RAM, Linux $(uname -r), $(date -u +%F)"
	echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
machine_line=$(machine)

results=""
for b in passthrough classify startup refusal rss store slots budgets status-short text; do
	echo "== $b" | tee -a "$log" >&2
	out=$("$here/$b.sh" 2>&1) || { echo "$out" >> "$log"; echo "bench: $b.sh failed; see $log" >&2; exit 1; }
	echo "$out" >> "$log"
	echo "$out" | grep -v '^RESULT ' >&2
	results+=$(echo "$out" | grep '^RESULT ')$'\n'
done

# get NAME KEY: a value from the RESULT lines.
get() { echo "$results" | awk -v n="$1" -v k="$2" '$2 == n { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }'; }

echo
echo "$machine_line"
echo
awk -v pmi_p="$(get passthrough_mix_idle pipe_ms)" -v pmi_w="$(get passthrough_mix_idle wrap_ms)" -v pmi_r="$(get passthrough_mix_idle ratio)" \
	-v phi_p="$(get passthrough_claude-hb_idle pipe_ms)" -v phi_w="$(get passthrough_claude-hb_idle wrap_ms)" -v phi_r="$(get passthrough_claude-hb_idle ratio)" \
	-v pmb_p="$(get passthrough_mix_busy pipe_ms)" -v pmb_w="$(get passthrough_mix_busy wrap_ms)" -v pmb_r="$(get passthrough_mix_busy ratio)" \
	-v phb_p="$(get passthrough_claude-hb_busy pipe_ms)" -v phb_w="$(get passthrough_claude-hb_busy wrap_ms)" -v phb_r="$(get passthrough_claude-hb_busy ratio)" \
	-v cl_mib="$(get classify mib)" -v cl_r="$(get classify rlwrap_mibs)" -v cl_j="$(get classify jq_mibs)" \
	-v cl_g="$(get classify grep_mibs)" -v cl_gb="$(get classify rlwrap_gbs)" -v cl_rss="$(get classify rss_line_kib)" \
	-v ch_mib="$(get classify_hb mib)" -v ch_r="$(get classify_hb rlwrap_mibs)" -v ch_j="$(get classify_hb jq_mibs)" \
	-v ch_g="$(get classify_hb grep_mibs)" -v ch_gb="$(get classify_hb rlwrap_gbs)" \
	-v su_t="$(get startup true_ms)" -v su_w="$(get startup rlwrap_ms)" -v su_o="$(get startup overhead_ms)" \
	-v su_d="$(get startup disk)" \
	-v rf_t="$(get refusal true_ms)" -v rf_p="$(get refusal pass_ms)" -v rf_r="$(get refusal refuse_ms)" \
	-v rf_o="$(get refusal refuse_over_ms)" \
	-v rss_w="$(get rss wrapper_kib)" \
	-v st_g="$(get store gate_us)" -v st_r="$(get store record_us)" -v st_n="$(get store writers)" \
	-v st_ops="$(get store records_per_s)" \
	-v sl_n="$(get slots nolimit_ms)" -v sl_f="$(get slots freeslot_ms)" -v sl_x="$(get slots freeslot_extra_ms)" \
	-v sl_h="$(get slots handover_ms)" -v sl_hw="$(get slots handover_worst_ms)" \
	-v ss_w="$(get status_short rlwrap_ms)" -v ss_c="$(get status_short rlwrap_cpu_ms)" \
	-v ss_t="$(get status_short true_ms)" -v ss_q="$(get status_short sqlite3_ms)" \
	-v tx_mib="$(get text mib)" -v tx_p="$(get text pipe_ms)" -v tx_w="$(get text wrap_ms)" \
	-v tx_r="$(get text ratio)" -v tx_g="$(get text classify_gbs)" -v tx_cg="$(get text classify_cpu_gbs)" 'BEGIN {
	print "| measure | rlwrap | baseline | ratio (goal) |"
	print "|---|---|---|---|"
	printf "| pass-through, 300 MiB mixed JSONL, idle (`rlwrap -- cat f`) | %.0f ms | `cat f \\| cat`: %.0f ms | %.2fx (<= 1.10x) |\n", pmi_w, pmi_p, pmi_r
	printf "| pass-through, 300 MiB Claude stream, heartbeat every turn, idle | %.0f ms | `cat f \\| cat`: %.0f ms | %.2fx (<= 1.10x) |\n", phi_w, phi_p, phi_r
	printf "| pass-through, mixed JSONL, one core busy | %.0f ms | `cat f \\| cat`: %.0f ms | %.2fx (<= 1.10x) |\n", pmb_w, pmb_p, pmb_r
	printf "| pass-through, heartbeat every turn, one core busy | %.0f ms | `cat f \\| cat`: %.0f ms | %.2fx (<= 1.10x) |\n", phb_w, phb_p, phb_r
	printf "| `classify-failure`, %.0f MiB Claude stream, heartbeat every 40 turns | %d MiB/s (%.2f GB/s) | jq: %d MiB/s; `grep -c`: %d MiB/s | %.1fx jq, %.2fx grep |\n",
		cl_mib, cl_r, cl_gb, cl_j, cl_g, cl_r / cl_j, cl_r / cl_g
	printf "| `classify-failure`, %.0f MiB Claude stream, heartbeat every turn | %d MiB/s (%.2f GB/s) | jq: %d MiB/s; `grep -c`: %d MiB/s | %.1fx jq, %.2fx grep (>= 3 GB/s, >= 50x jq, >= 1x grep) |\n",
		ch_mib, ch_r, ch_gb, ch_j, ch_g, ch_r / ch_j, ch_r / ch_g
	printf "| start-up, `rlwrap -- true` (store check + run record; state file on %s) | %.2f ms | `true`: %.2f ms | +%.2f ms (<= 2 ms) |\n",
		su_d, su_w, su_t, su_o
	printf "| refusal, open breaker (exit 75, no spawn) | %.2f ms | let through: %.2f ms | +%.2f ms over `true` (<= 1.5 ms) |\n",
		rf_r, rf_p, rf_o
	printf "| peak RSS, 512 MiB single line through the wrapper | %.1f MiB | | (< 16 MiB) |\n", rss_w / 1024
	printf "| peak RSS, `classify-failure` on a 512 MiB single line | %.1f MiB | | (bounded) |\n", cl_rss / 1024
	printf "| store, %d concurrent writers (run record transactions) | %d records/s | one writer: record %.0f us, refusing gate %.0f us (medians) | |\n",
		st_n, st_ops, st_r, st_g
	printf "| start-up with a free concurrency slot (`max_concurrent`) | %.2f ms | no limit: %.2f ms | %+.2f ms (< 1 ms) |\n",
		sl_f, sl_n, sl_x
	printf "| slot freed -> the next waiting child started (median, worst of 20) | %d ms, %d ms | | (< 250 ms) |\n",
		sl_h, sl_hw
	printf "| `status --short`, 10000 runs in the store (median; CPU time) | %.2f ms; %.2f ms CPU | `true`: %.2f ms; sqlite3 shell, one query: %.2f ms | (< 5 ms) |\n",
		ss_w, ss_c, ss_t, ss_q
	printf "| pass-through, %.0f MiB plain text (`rlwrap -f claude -- cat f`) | %d ms | `cat f \\| cat`: %d ms | %.2fx (<= 1.10x) |\n",
		tx_mib, tx_w, tx_p, tx_r
	printf "| `classify-failure`, %.0f MiB plain text | %.2f GB/s (%.2f GB/s of CPU time) | | (>= 1 GB/s) |\n",
		tx_mib, tx_g, tx_cg
}'
