# Shared by the bench scripts: where the binary and the scratch data live,
# and a best-of-N wall-clock timer.
RLWRAP=${RLWRAP:-$(cd "$(dirname "$0")/.." && pwd)/rlwrap}
BENCH_DIR=${BENCH_DIR:-/tmp/rlwrap-bench}
mkdir -p "$BENCH_DIR"
[ -x "$RLWRAP" ] || { echo "bench: build rlwrap first ($RLWRAP)" >&2; exit 1; }

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
