#!/bin/bash
# Plain text at byte speed: a 100 MiB file of short and medium lines (build,
# test, log and agent prose lines, some about rate limits, quotas and 429s;
# bench/gen-text.py) through
#   - the wrapper, `rlwrap -f claude -- cat FILE`, against `cat FILE | cat`
#     (goal: at most 1.10x the pipe's time), and
#   - `classify-failure --family claude FILE` (goal: at least 1 GB/s),
# in the same run.  Wall times are medians of RUNS runs; CPU time (user +
# sys) is printed beside them, since other work on the machine stretches
# wall times but not CPU time.
#   bench/text.sh [RUNS]        (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-7}
f=$BENCH_DIR/text-100m.txt
[ -f "$f" ] || { echo "generating $f ..." >&2; python3 "$(dirname "$0")/gen-text.py" 100 "$f"; }
cat "$f" > /dev/null   # warm the page cache
bytes=$(stat -c %s "$f")
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
lines=$(wc -l < "$f")

# run_ms COMMAND...: wall ms, then CPU ms (user + sys of the command and its children).
run_ms() {
	local t0 t1 cpu
	t0=$(now_ns)
	/usr/bin/time -o "$BENCH_DIR/time.out" -f '%U %S' "$@" > /dev/null 2>&1 || true
	t1=$(now_ns)
	echo "$(((t1 - t0) / 1000000)) $(tail -1 "$BENCH_DIR/time.out" | awk '{ printf "%d", ($1 + $2) * 1000 }')"
}
pipe() { cat "$f" | cat > /dev/null; }
export -f pipe
export f

pipe_ms="" wrap_ms="" cls_ms="" cls_cpu="" wrap_cpu=""
for _ in $(seq "$runs"); do
	pipe_ms+=" $(run_ms bash -c pipe | cut -d' ' -f1)"
	read -r w c < <(run_ms "$RLWRAP" -f claude -- cat "$f")
	wrap_ms+=" $w" wrap_cpu+=" $c"
	read -r w c < <(run_ms "$RLWRAP" classify-failure --family claude "$f")
	cls_ms+=" $w" cls_cpu+=" $c"
done
med() { echo $1 | tr ' ' '\n' | median; }
best() { echo $1 | tr ' ' '\n' | sort -n | head -1; }
p=$(med "$pipe_ms") w=$(med "$wrap_ms") c=$(med "$cls_ms") cc=$(med "$cls_cpu") wc=$(med "$wrap_cpu")
pb=$(best "$pipe_ms") wb=$(best "$wrap_ms") cb=$(best "$cls_ms")
verdict=$("$RLWRAP" classify-failure --family claude --exit-code 0 "$f")

echo "text:               $mib MiB, $lines lines ($(awk -v b="$bytes" -v l="$lines" 'BEGIN { printf "%.0f", b / l }') bytes a line), $runs runs each"
echo "load average:       $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "cat f | cat:        median $p ms, best $pb ms   runs:$pipe_ms"
echo "rlwrap -- cat f:    median $w ms, best $wb ms (CPU $wc ms)   runs:$wrap_ms"
awk -v p="$p" -v w="$w" -v pb="$pb" -v wb="$wb" 'BEGIN { printf "wrapper/pipe:       %.2fx median, %.2fx best (goal <= 1.10x): %s\n", w / p, wb / pb, w / p <= 1.10 ? "ok" : "OVER" }'
echo "classify-failure:   median $c ms, best $cb ms, CPU $cc ms ($verdict)"
awk -v b="$bytes" -v c="$c" -v cb="$cb" -v cc="$cc" 'BEGIN {
	printf "classify-failure:   %.2f GB/s median wall, %.2f GB/s best wall, %.2f GB/s of CPU time (goal >= 1 GB/s)\n",
		b / c / 1e6, b / cb / 1e6, b / cc / 1e6 }'
# For bench/run-all.sh: one machine-readable line.
awk -v m="$mib" -v p="$p" -v w="$w" -v c="$c" -v cc="$cc" -v b="$bytes" 'BEGIN {
	printf "RESULT text mib=%s pipe_ms=%s wrap_ms=%s ratio=%.2f classify_ms=%s classify_cpu_ms=%s classify_gbs=%.2f classify_cpu_gbs=%.2f\n",
		m, p, w, w / p, c, cc, b / c / 1e6, b / cc / 1e6 }'
