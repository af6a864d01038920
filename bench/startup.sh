#!/bin/bash
# Start-up overhead: `rlwrap -- true` against `true`, whole processes run
# alternately (bench/paired.c), median of the paired differences.  The state
# file lives on a real disk (BENCH_STATE_DIR, default ~/.cache/rlwrap-bench;
# the disk is printed): a tmpfs would hide what syncs cost.  Goal
# (docs/design.md section 9): at most 2.5x the time of `true` (median of
# the paired ratios; two execs are the floor).
#   bench/startup.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
paired=$(paired_bin)
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
mkdir -p "$BENCH_STATE_DIR"
export RLWRAP_DB=$BENCH_STATE_DIR/startup.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT
rm -f "$RLWRAP_DB" "$RLWRAP_DB"-wal "$RLWRAP_DB"-shm
disk=$(state_disk "$BENCH_STATE_DIR")
"$RLWRAP" -f claude -- "$TRUE"   # the store exists, as on every run but the first
l=$(load)
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 "$TRUE" --- "$RLWRAP" -f claude -- "$TRUE")
awk -v t="$1" -v w="$2" -v d="$3" -v ct="$4" -v cw="$5" -v r="$7" -v n="$runs" -v disk="$disk" -v l="$l" 'BEGIN {
	printf "state file on %s; %d pairs; load %s\n", disk, n, l
	printf "true:            %.3f ms (CPU %.3f ms)\n", t, ct
	printf "rlwrap -- true:  %.3f ms (CPU %.3f ms)\n", w, cw
	printf "overhead:        %.3f ms, median of the paired differences; %.2fx true, median of the paired ratios (goal <= 2.5x: %s)\n", d, r, r <= 2.5 ? "met" : "missed"
	gsub(/ /, "_", disk)
	printf "RESULT startup true_ms=%.3f rlwrap_ms=%.3f overhead_ms=%.3f true_cpu_ms=%.3f rlwrap_cpu_ms=%.3f ratio=%.3f disk=%s\n", t, w, d, ct, cw, r, disk
}'
