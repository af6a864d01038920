#!/bin/bash
# Start-up overhead: `rlwrap -- true` against `true`, median of many runs.
# Uses hyperfine when installed, else a bash loop.
#   bench/startup.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi

if command -v hyperfine >/dev/null && command -v jq >/dev/null; then
	json=$BENCH_DIR/startup.json
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$json" "$TRUE" "$RLWRAP -- $TRUE" >/dev/null 2>&1
	t=$(jq '.results[0].median * 1000' "$json")
	w=$(jq '.results[1].median * 1000' "$json")
else
	loop() {
		local i t0 t1
		for i in $(seq "$runs"); do
			t0=$(now_ns); "$@"; t1=$(now_ns)
			echo $(((t1 - t0) / 1000))
		done | median | awk '{ print $1 / 1000 }'
	}
	t=$(loop "$TRUE")
	w=$(loop "$RLWRAP" -- "$TRUE")
fi
awk -v t="$t" -v w="$w" -v n="$runs" 'BEGIN {
	printf "true:            %.3f ms (median of %d)\n", t, n
	printf "rlwrap -- true:  %.3f ms\n", w
	printf "overhead:        %.3f ms (goal: a few ms at most)\n", w - t
	printf "RESULT startup true_ms=%.3f rlwrap_ms=%.3f overhead_ms=%.3f\n", t, w, w - t
}'
