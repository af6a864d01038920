#!/bin/bash
# The cost of admission with budgets: `rlwrap -f claude -- true` with no
# budget against the same with four budgets (tokens per 1m and per 5h,
# dollars per 1d, runs per 1m, far from full), run alternately
# (bench/paired.c): the queue read, one read of the key's counter rows and
# the reservation in the transaction that writes the running row, the
# settlement in the run record's.  Medians of the paired differences, wall
# and CPU time, on a store that keeps the counters of every run before.
# The state file lives on a real disk (BENCH_STATE_DIR, as bench/refusal.sh).
# Goal (docs/design.md section 10): under 1 ms per spawn.
#   bench/budgets.sh [RUNS]
# BUDGETS_DB=postgresql://... measures that store instead.
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
paired=$(paired_bin)
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
dir=$BENCH_DIR/budgets
rm -rf "$dir"
mkdir -p "$dir" "$BENCH_STATE_DIR"
db=$BENCH_STATE_DIR/budgets.db
rm -f "$db" "$db"-wal "$db"-shm
export RLWRAP_DB=${BUDGETS_DB:-$db} HOME=$dir XDG_STATE_HOME=$dir XDG_CONFIG_HOME=$dir
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT RLWRAP_CONFIG
printf '' > "$dir/none.conf"
printf '[family.claude]\nbudget = 100000000 tokens per 1m\nbudget = 2000000000 tokens per 5h\nbudget = 100000 usd per 1d\nbudget = 1000000 runs per 1m\nestimate = 4500 tokens\n' > "$dir/budgets.conf"
none=(env RLWRAP_CONFIG="$dir/none.conf" "$RLWRAP" -f claude -- "$TRUE")
with=(env RLWRAP_CONFIG="$dir/budgets.conf" "$RLWRAP" -f claude -- "$TRUE")
for _ in $(seq 20); do "${none[@]}"; "${with[@]}"; done
l=$(load)
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 "${none[@]}" --- "${with[@]}")
none_ms=$1 with_ms=$2 extra=$3 extra_cpu=$6

awk -v none="$none_ms" -v with="$with_ms" -v d="$extra" -v c="$extra_cpu" -v n="$runs" -v load="$l" \
    -v store="$(case $RLWRAP_DB in postgres*) echo PostgreSQL;; *) echo "SQLite on $(state_disk "$BENCH_STATE_DIR")";; esac)" 'BEGIN {
	printf "store: %s; %d pairs; load %s\n", store, n, load
	printf "rlwrap -- true, no budget:      %.3f ms (median)\n", none
	printf "rlwrap -- true, four budgets:   %.3f ms, %+.3f ms paired (goal: under 1 ms: %s; CPU %+.3f ms)\n",
	    with, d, d < 1 ? "ok" : "OVER", c
	printf "RESULT budgets nobudget_ms=%.3f budgets_ms=%.3f budgets_extra_ms=%.3f budgets_extra_cpu_ms=%.3f\n",
	    none, with, d, c
}'
