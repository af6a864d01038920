#!/bin/bash
# Plain text at byte speed: a 100 MiB file of short and medium lines (build,
# test, log and agent prose lines, some about rate limits, quotas and 429s;
# bench/gen-text.py) through
#   - the wrapper, `rlwrap -f claude -- cat FILE > /dev/null`, against
#     `cat FILE | cat > /dev/null` (goal: at most 1.10x the pipe's time), and
#   - `classify-failure --family claude FILE` (goal: at least 1 GB/s),
# in the same run.  Both are timed by bench/paired.c, alternating with their
# reference (the pipe; `cat FILE > /dev/null` for classify-failure), so both
# sides see the same machine: the wrapper's ratio is the median of the
# paired ratios.  CPU time (user + sys) is printed beside wall time, since
# other work on the machine stretches wall times but not CPU time; the load
# average is printed before and after.
#   bench/text.sh [RUNS]        (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-11}
paired=$(paired_bin)
f=$BENCH_DIR/text-100m.txt
[ -f "$f" ] || { echo "generating $f ..." >&2; python3 "$(dirname "$0")/gen-text.py" 100 "$f"; }
export RLWRAP_DB=$BENCH_DIR/text.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW
cat "$f" > /dev/null   # warm the page cache
bytes=$(stat -c %s "$f")
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
lines=$(wc -l < "$f")
load() { cut -d' ' -f1-3 /proc/loadavg; }

load0=$(load)
# paired prints: A wall, B wall, B-A wall, A CPU, B CPU, B-A CPU, B/A wall (medians, ms)
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 sh -c 'cat "$1" | cat > /dev/null' _ "$f" \
    --- sh -c '"$1" -f claude -- cat "$2" > /dev/null' _ "$RLWRAP" "$f")
p=$1 w=$2 pc=$4 wc=$5 ratio=$7
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 sh -c 'cat "$1" > /dev/null' _ "$f" \
    --- "$RLWRAP" classify-failure --family claude "$f")
cat_ms=$1 c=$2 cc=$5
load1=$(load)
verdict=$("$RLWRAP" classify-failure --family claude --exit-code 0 "$f")

echo "text:               $mib MiB, $lines lines ($(awk -v b="$bytes" -v l="$lines" 'BEGIN { printf "%.0f", b / l }') bytes a line), $runs pairs each"
echo "load average:       $load0 before, $load1 after, on $(nproc) CPUs"
echo "cat f | cat:        median $p ms (CPU $pc ms)"
echo "rlwrap -- cat f:    median $w ms (CPU $wc ms)"
awk -v r="$ratio" 'BEGIN { printf "wrapper/pipe:       %.2fx, median of paired ratios (goal <= 1.10x): %s\n", r, (r <= 1.10 ? "ok" : "OVER") }'
echo "classify-failure:   median $c ms, CPU $cc ms ($verdict); cat f > /dev/null: $cat_ms ms"
awk -v b="$bytes" -v c="$c" -v cc="$cc" 'BEGIN {
	printf "classify-failure:   %.2f GB/s of wall time, %.2f GB/s of CPU time (goal >= 1 GB/s): %s\n",
		b / c / 1e6, b / cc / 1e6, (b / c / 1e6 >= 1 ? "ok" : "UNDER") }'
# For bench/run-all.sh: one machine-readable line.
awk -v m="$mib" -v p="$p" -v w="$w" -v r="$ratio" -v c="$c" -v cc="$cc" -v b="$bytes" -v l="$load1" 'BEGIN {
	printf "RESULT text mib=%s pipe_ms=%s wrap_ms=%s ratio=%.2f classify_ms=%s classify_cpu_ms=%s classify_gbs=%.2f classify_cpu_gbs=%.2f load=%s\n",
		m, p, w, r, c, cc, b / c / 1e6, b / cc / 1e6, l }'
