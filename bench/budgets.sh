#!/bin/bash
# The cost of admission with budgets: `rlwrap -f claude -- true` with no
# budget against the same with four budgets (tokens per 1m and per 5h,
# dollars per 1d, runs per 1m, far from full): the queue read, each
# budget's counter rows read, the reservation written with the running row,
# the settlement at the end.  Medians of interleaved runs, and `true`
# itself, on a store that already holds RUNS runs' counters.
#   bench/budgets.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
TRUE=$(command -v true)
dir=$BENCH_DIR/budgets
rm -rf "$dir"
mkdir -p "$dir"
# BUDGETS_DB=postgresql://... measures that store instead.
export RLWRAP_DB=${BUDGETS_DB:-$dir/state.db} HOME=$dir XDG_STATE_HOME=$dir XDG_CONFIG_HOME=$dir
printf '' > "$dir/none.conf"
printf '[family.claude]\nbudget = 100000000 tokens per 1m\nbudget = 2000000000 tokens per 5h\nbudget = 100000 usd per 1d\nbudget = 1000000 runs per 1m\nestimate = 4500 tokens\n' > "$dir/budgets.conf"

one() {
	local conf=$1 t0 t1
	shift
	t0=$(now_ns)
	RLWRAP_CONFIG=$conf "$@" > /dev/null
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
}

: > "$dir/true.us"; : > "$dir/none.us"; : > "$dir/budgets.us"
for _ in $(seq 20); do
	one "$dir/none.conf" "$RLWRAP" -f claude -- "$TRUE" > /dev/null
	one "$dir/budgets.conf" "$RLWRAP" -f claude -- "$TRUE" > /dev/null
done
for _ in $(seq "$runs"); do
	one "$dir/none.conf" "$TRUE" >> "$dir/true.us"
	one "$dir/none.conf" "$RLWRAP" -f claude -- "$TRUE" >> "$dir/none.us"
	one "$dir/budgets.conf" "$RLWRAP" -f claude -- "$TRUE" >> "$dir/budgets.us"
done
ms() { median < "$1" | awk '{ printf "%.3f", $1 / 1000 }'; }
t=$(ms "$dir/true.us"); none=$(ms "$dir/none.us"); with=$(ms "$dir/budgets.us")

awk -v t="$t" -v none="$none" -v with="$with" -v n="$runs" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    -v store="$(case $RLWRAP_DB in postgres*) echo PostgreSQL;; *) echo SQLite;; esac)" 'BEGIN {
	printf "store:                               %s\n", store
	printf "load average:                        %s\n", load
	printf "true:                                %.3f ms (median of %d)\n", t, n
	printf "rlwrap -- true, no budget:           %.3f ms\n", none
	printf "rlwrap -- true, four budgets:        %.3f ms (%+.3f ms; goal: under 1 ms more)\n", with, with - none
	printf "RESULT budgets true_ms=%.3f nobudget_ms=%.3f budgets_ms=%.3f budgets_extra_ms=%.3f\n",
	    t, none, with, with - none
}'
