# Shared by the bench scripts: the binary, a scratch directory, timing.
RLWRAP=${RLWRAP:-$(cd "$(dirname "$0")/.." && pwd)/rlwrap}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/rlwrap-bench}
mkdir -p "$BENCH_DIR"
[ -x "$RLWRAP" ] || { echo "bench: no rlwrap binary at $RLWRAP (build first, or set RLWRAP)" >&2; exit 1; }

now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
