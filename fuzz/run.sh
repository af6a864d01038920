#!/bin/sh
# Builds the fuzz harnesses out of tree and runs each for a while, one after
# the other, then prints exec/s and coverage.
#   fuzz/run.sh [SECONDS] [HARNESS...]    (default 600 s; classify timeparse outguard sanitise)
# Scratch space (sources copy, build, corpora, logs, crashes): $FUZZ_DIR,
# default ${TMPDIR:-/tmp}/rlwrap-fuzz.  A crashing input is left in
# $FUZZ_DIR/artifacts/<harness>/; keep it as fixtures/fuzz/<harness>/<name>.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
[ $# -gt 0 ] && shift
harnesses=${*:-classify timeparse outguard sanitise}
dir=${FUZZ_DIR:-${TMPDIR:-/tmp}/rlwrap-fuzz}
mkdir -p "$dir/src" "$dir/build" "$dir/corpus" "$dir/artifacts" "$dir/logs"

# automake refuses an out-of-tree build of a source tree configured in
# place, so build from a copy of the worktree (tracked and new files).
(cd "$top" && git ls-files -co --exclude-standard -z | tar cf - --null -T -) | (cd "$dir/src" && tar xf -)
# shellcheck disable=SC3013 # -nt: dash, bash and every BSD sh have it
(cd "$dir/src" && { [ -x configure ] && [ ! configure.ac -nt configure ] && [ ! Makefile.am -nt Makefile.in ]; } ||
    autoreconf -fi >/dev/null 2>&1)
cd "$dir/build"
[ -f config.status ] || CC=clang ../src/configure --enable-fuzzers >/dev/null
# shellcheck disable=SC2046 # one target a word
make -j"$(nproc 2>/dev/null || echo 2)" $(for h in $harnesses; do printf 'fuzz/fuzz_%s ' "$h"; done) >"$dir/logs/build.log" 2>&1 ||
    { echo "build failed: $dir/logs/build.log" >&2; exit 1; }

"$top/fuzz/seed.sh" "$dir/seeds" >/dev/null
for h in $harnesses; do
	case $h in
	classify) max_len=65536 ;;
	outguard) max_len=512 ;;
	*) max_len=4096 ;;
	esac
	mkdir -p "$dir/corpus/$h" "$dir/artifacts/$h"
	log="$dir/logs/$h.log"
	echo "fuzz_$h: ${secs}s, max_len $max_len, log $log"
	rc=0
	dict=
	[ -f "$top/fuzz/$h.dict" ] && dict=-dict="$top/fuzz/$h.dict"
	mkdir -p "$dir/seeds/$h"
	./fuzz/fuzz_"$h" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
	    $dict -print_final_stats=1 \
	    -artifact_prefix="$dir/artifacts/$h/" "$dir/corpus/$h" "$dir/seeds/$h" >"$log" 2>&1 || rc=$?
	grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | sed 's/^/  last: /'
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|slowest_unit_time_sec|peak_rss_mb)' "$log" |
	    sed 's/^/  /'
	if [ "$rc" -ne 0 ]; then
		echo "  FAILED (exit $rc): $(grep -E '^(==[0-9]+==ERROR|fuzz_|SUMMARY)' "$log" | head -n 2 | tr '\n' ' ')"
		ls "$dir/artifacts/$h" | sed 's/^/  artifact: /'
	fi
done
