#!/bin/bash
# The concurrency gate ([family.NAME] max_concurrent), measured two ways:
#  1. start-up: `rlwrap -f claude -- true` with no limit (the running row
#     only) against the same with max_concurrent = 1000 (a free slot: the
#     queue read and the row in one transaction), medians of interleaved
#     runs, and `true` itself; BASELINE=path/to/an/older/rlwrap adds it.
#  2. hand-over: with max_concurrent = 1, one wrapper holds the slot and its
#     child ends at a time it writes down; another waits, and its child
#     writes down when it starts.  The median of (start - end) over ROUNDS
#     is what a waiter loses to the poll, the lock and the spawn.
#   bench/slots.sh [RUNS] [ROUNDS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
rounds=${2:-20}
TRUE=$(command -v true)
dir=$BENCH_DIR/slots
rm -rf "$dir"
mkdir -p "$dir"
# SLOTS_DB=postgresql://... measures that store instead (waiters told by
# LISTEN/NOTIFY there, where SQLite's poll).
export RLWRAP_DB=${SLOTS_DB:-$dir/state.db} HOME=$dir XDG_STATE_HOME=$dir XDG_CONFIG_HOME=$dir
printf '' > "$dir/none.conf"
printf '[family.claude]\nmax_concurrent = 1000\n' > "$dir/free.conf"
printf '[family.claude]\nmax_concurrent = 1\n' > "$dir/one.conf"

# One timed run in microseconds: CONFIG BINARY ARGS...
one() {
	local conf=$1 t0 t1
	shift
	t0=$(now_ns)
	RLWRAP_CONFIG=$conf "$@" > /dev/null
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
}

: > "$dir/true.us"; : > "$dir/none.us"; : > "$dir/free.us"; : > "$dir/base.us"
for _ in $(seq 20); do one "$dir/none.conf" "$RLWRAP" -f claude -- "$TRUE" > /dev/null; done
for _ in $(seq "$runs"); do
	one "$dir/none.conf" "$TRUE" >> "$dir/true.us"
	one "$dir/none.conf" "$RLWRAP" -f claude -- "$TRUE" >> "$dir/none.us"
	one "$dir/free.conf" "$RLWRAP" -f claude -- "$TRUE" >> "$dir/free.us"
	if [ -n "${BASELINE:-}" ]; then   # its own file: an older schema
		RLWRAP_DB=$dir/base.db one "$dir/none.conf" "$BASELINE" -f claude -- "$TRUE" >> "$dir/base.us"
	fi
done
ms() { median < "$1" | awk '{ printf "%.3f", $1 / 1000 }'; }
t=$(ms "$dir/true.us"); none=$(ms "$dir/none.us"); free=$(ms "$dir/free.us")
base=-1
[ -n "${BASELINE:-}" ] && base=$(ms "$dir/base.us")

# The hand-over.
: > "$dir/handover.ms"
for _ in $(seq "$rounds"); do
	rm -f "$dir/ended" "$dir/started"
	RLWRAP_CONFIG=$dir/one.conf "$RLWRAP" -q -f claude -- sh -c "sleep 0.4; date +%s%N > $dir/ended" &
	holder=$!
	sleep 0.1
	RLWRAP_CONFIG=$dir/one.conf "$RLWRAP" -q -f claude -- sh -c "date +%s%N > $dir/started" &
	waiter=$!
	wait "$holder" "$waiter"
	echo $(( ($(cat "$dir/started") - $(cat "$dir/ended")) / 1000000 )) >> "$dir/handover.ms"
done
hand=$(median < "$dir/handover.ms")
worst=$(sort -n "$dir/handover.ms" | tail -1)

awk -v t="$t" -v none="$none" -v free="$free" -v base="$base" -v n="$runs" -v hand="$hand" \
    -v worst="$worst" -v r="$rounds" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    -v store="$(case $RLWRAP_DB in postgres*) echo PostgreSQL;; *) echo SQLite;; esac)" 'BEGIN {
	printf "store:                               %s\n", store
	printf "load average:                        %s\n", load
	printf "true:                                %.3f ms (median of %d)\n", t, n
	if (base >= 0)
		printf "baseline rlwrap -- true:             %.3f ms\n", base
	printf "rlwrap -- true, no limit:            %.3f ms\n", none
	printf "rlwrap -- true, a free slot:         %.3f ms (%+.3f ms; goal: under 1 ms more)\n", free, free - none
	printf "slot freed -> next child started:    %d ms median, %d ms worst of %d (goal: under 250 ms)\n", hand, worst, r
	printf "RESULT slots true_ms=%.3f nolimit_ms=%.3f freeslot_ms=%.3f freeslot_extra_ms=%.3f baseline_ms=%.3f handover_ms=%d handover_worst_ms=%d\n",
	    t, none, free, free - none, base, hand, worst
}'
