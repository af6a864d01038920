#!/bin/bash
# Refusal latency: `rlwrap -- true` refused by an open breaker (exit 75, no
# spawn) and let through (store check plus run record), each run alternately
# with plain `true` (bench/paired.c), medians of the paired differences.  The
# state file lives on a real disk (BENCH_STATE_DIR, default
# ~/.cache/rlwrap-bench; the disk is printed).  Goal (docs/design.md section
# 9): a refusal at most 2x the time of `true` (median of the paired ratios).
#   bench/refusal.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
paired=$(paired_bin)
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
mkdir -p "$BENCH_STATE_DIR"
export RLWRAP_DB=$BENCH_STATE_DIR/refusal.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT
rm -f "$RLWRAP_DB" "$RLWRAP_DB"-wal "$RLWRAP_DB"-shm
disk=$(state_disk "$BENCH_STATE_DIR")
l=$(load)

"$RLWRAP" -f claude -- "$TRUE"
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 "$TRUE" --- "$RLWRAP" -f claude -- "$TRUE")
t=$1 pass=$2 pass_d=$3
"$RLWRAP" trip --for 1h claude > /dev/null
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 75 "$TRUE" --- "$RLWRAP" -f claude -- "$TRUE")
refuse=$2 refuse_d=$3 refuse_cpu=$5 refuse_r=$7
awk -v t="$t" -v p="$pass" -v pd="$pass_d" -v r="$refuse" -v rd="$refuse_d" -v rc="$refuse_cpu" -v rr="$refuse_r" -v n="$runs" \
    -v disk="$disk" -v l="$l" 'BEGIN {
	printf "state file on %s; %d pairs each; load %s\n", disk, n, l
	printf "true:                          %.3f ms (median)\n", t
	printf "rlwrap -- true, let through:   %.3f ms, +%.3f ms over true (store check + run record)\n", p, pd
	printf "rlwrap -- true, refused (75):  %.3f ms, +%.3f ms over true, %.2fx (goal <= 2x: %s; CPU %.3f ms)\n", r, rd, rr, rr <= 2 ? "met" : "missed", rc
	gsub(/ /, "_", disk)
	printf "RESULT refusal true_ms=%.3f pass_ms=%.3f refuse_ms=%.3f pass_over_ms=%.3f refuse_over_ms=%.3f refuse_ratio=%.3f disk=%s\n", t, p, r, pd, rd, rr, disk
}'
