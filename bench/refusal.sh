#!/bin/bash
# Refusal latency: `rlwrap -- true` refused by an open breaker (exit 75),
# against a run it lets through (store check plus history write) and plain
# `true`: medians of many whole processes on a scratch state file.
#   bench/refusal.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-100}
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
export RLWRAP_DB=$BENCH_DIR/refusal.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT
rm -f "$RLWRAP_DB" "$RLWRAP_DB"-wal "$RLWRAP_DB"-shm

# median_ms WANT_STATUS command...: the median wall time in ms; every run
# must end with WANT_STATUS.
median_ms() {
	local want=$1 i t0 t1 rc
	shift
	for i in $(seq "$runs"); do
		t0=$(now_ns)
		rc=0
		"$@" >/dev/null 2>&1 || rc=$?
		t1=$(now_ns)
		[ "$rc" -eq "$want" ] || { echo "bench: $* exited $rc, not $want" >&2; exit 1; }
		echo $(((t1 - t0) / 1000))
	done | median | awk '{ print $1 / 1000 }'
}

t=$(median_ms 0 "$TRUE")
"$RLWRAP" reset --all >/dev/null 2>&1 || true
pass=$(median_ms 0 "$RLWRAP" -f claude -- "$TRUE")
"$RLWRAP" trip --for 1h claude >/dev/null
refuse=$(median_ms 75 "$RLWRAP" -f claude -- "$TRUE")
awk -v t="$t" -v p="$pass" -v r="$refuse" -v n="$runs" 'BEGIN {
	printf "true:                          %.3f ms (median of %d)\n", t, n
	printf "rlwrap -- true, let through:   %.3f ms (store check + run record)\n", p
	printf "rlwrap -- true, refused (75):  %.3f ms (goal: milliseconds, no spawn)\n", r
	printf "RESULT refusal true_ms=%.3f pass_ms=%.3f refuse_ms=%.3f\n", t, p, r
}'
