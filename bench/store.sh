#!/usr/bin/env bash
# The state file's cost: median latency of a refusing breaker check and of a
# run-record write, in process (bench/store_bench.c) and as whole rlwrap
# processes (start-up included); records per second under 8 concurrent
# writers.  Needs a built tree (lib/librlwrap.a).
set -euo pipefail
. "$(dirname "$0")/common.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-2000}
bin="$BENCH_DIR/store_bench"
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -include "$top/config.h" -iquote "$top" -iquote "$top/lib" -iquote "$top/lib/store" -iquote "$top/lib/dialect" $(pkg-config --cflags libbsd-overlay jansson sqlite3) \
	-o "$bin" "$top/bench/store_bench.c" "$top/lib/librlwrap.a" \
	$(pkg-config --libs jansson sqlite3 libbsd-overlay inih) -lm
rm -f "$BENCH_DIR"/store-*.db*
out="$BENCH_DIR/store-bench.out"
"$bin" gate "$BENCH_DIR/store-gate.db" "$N" | tee "$out"
"$bin" record "$BENCH_DIR/store-record.db" "$N" | tee -a "$out"
"$bin" writers "$BENCH_DIR/store-writers.db" $((N / 4)) 8 | tee -a "$out"

# Whole processes: median wall time of N/10 runs each.
median_ms() {
	local n=$1 t0 t1
	shift
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }'
}
export RLWRAP_DB="$BENCH_DIR/store-proc.db" RLWRAP_CONFIG=/nonexistent
"$RLWRAP" trip --for 1h claude >/dev/null
stream="$BENCH_DIR/store-ok.jsonl"
printf '%s\n' '{"type":"system","subtype":"init","model":"claude-opus-4-6"}' \
	'{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > "$stream"
P=$((N / 10))
printf 'process: rlwrap --version                    median %s ms\n' "$(median_ms $P "$RLWRAP" --version)"
printf 'process: rlwrap wait --timeout 0 (refusal)   median %s ms\n' "$(median_ms $P "$RLWRAP" wait --timeout 0 claude)"
printf 'process: rlwrap record (run write)           median %s ms\n' "$(median_ms $P "$RLWRAP" record --account other "$stream")"
# For bench/run-all.sh: one machine-readable line.
awk '/^refusing gate/ { g = $(NF - 6) } /^run record/ { r = $(NF - 6) }
	/records\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "records/s") n = $i; w = $1 }
	END { printf "RESULT store gate_us=%s record_us=%s writers=%s records_per_s=%s\n", g, r, w, n }' "$out"
