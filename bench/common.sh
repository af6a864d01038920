# Shared by the bench scripts: the binary, a scratch directory, timing.
RLWRAP=${RLWRAP:-$(cd "$(dirname "$0")/.." && pwd)/rlwrap}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/rlwrap-bench}
mkdir -p "$BENCH_DIR"
[ -x "$RLWRAP" ] || { echo "bench: no rlwrap binary at $RLWRAP (build first, or set RLWRAP)" >&2; exit 1; }

now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# best_of N command...: prints the fastest wall time in seconds.
best_of() {
	local n=$1 best="" t0 t1 t
	shift
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	awk -v us="$best" 'BEGIN { printf "%.3f", us / 1e6 }'
}

# peak_rss_kib command...: the maximum resident set of the command.
peak_rss_kib() {
	/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
}
