#!/bin/bash
# Pass-through with a reader downstream, as every orchestrator has: on each
# stream, three commands run in rotation (bench/paired.c), every one into
# `| cat`:
#   cat f | cat              the baseline (one pipe hop)
#   rlwrap -- cat f | cat    the wrapper (every byte classified)
#   cat f | cat | cat        one extra plain hop, which copies each byte twice
# Wall and CPU time (user + sys of every process) are medians of the
# rounds; the ratios are medians of the paired ratios to the baseline.  Page
# faults (minor + major, every process) are counted per MiB beside `cat f`'s.
# The streams: the Claude stream with a heartbeat every turn
# (gen-claude-stream.py --heartbeat), a Codex `exec --json` stream
# (gen-codex-stream.py) and 100 MiB of short-line plain text (gen-text.py).
# Goals (docs/design.md section 9): wall at most 1.25x the baseline's, CPU
# at most that of the extra hop, faults per MiB within 1.2x of cat's.
#   bench/passthrough.sh [RUNS]        (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-11}
paired=$(paired_bin)
export RLWRAP_DB=$BENCH_DIR/passthrough.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW

# measure NAME FAMILY FILE: one RESULT line and a readable one.
measure() {
	local name=$1 family=$2 f=$3 mib l out
	mib=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1048576 }')
	cat "$f" > /dev/null   # warm the page cache
	l=$(load)
	out=$("$paired" "$runs" 0 0 sh -c 'cat "$1" | cat' _ "$f" \
	    --- sh -c '"$1" -f "$2" -- cat "$3" | cat' _ "$RLWRAP" "$family" "$f" \
	    --- sh -c 'cat "$1" | cat | cat' _ "$f")
	# Faults of one `cat f` and one `rlwrap -- cat f` (no shell, no reader),
	# and on the stream's first MiB: what grows with the input is the
	# difference (the rest is start-up, which bench/startup.sh measures).
	faults=$("$paired" "$runs" 0 0 cat "$f" --- "$RLWRAP" -f "$family" -- cat "$f")
	head -c 1048576 "$f" > "$BENCH_DIR/head.1m"
	faults1=$("$paired" 5 0 0 cat "$BENCH_DIR/head.1m" --- "$RLWRAP" -f "$family" -- cat "$BENCH_DIR/head.1m")
	echo "$out" "$faults" "$faults1" | tr '\n' ' ' | awk -v n="$name" -v mib="$mib" -v l="$l" -v k="$runs" '{
		pw = $1; pc = $2; ww = $6; wc = $7; wr = $9; xw = $11; xc = $12
		cf = $(15 + 8); rf = $(15 + 9); cs = (cf - $(24 + 8)) / (mib - 1); rs = (rf - $(24 + 9)) / (mib - 1)
		cpu_x = wc / xc; fr = rf / cf
		printf "%-9s %5.1f MiB: cat f | cat %6.1f ms (CPU %6.1f); rlwrap %6.1f ms (CPU %6.1f); cat f | cat | cat %6.1f ms (CPU %6.1f)\n",
			n, mib, pw, pc, ww, wc, xw, xc
		printf "          wall %.2fx of the pipe (goal <= 1.25x: %s); CPU %.2fx of the extra hop (goal <= 1: %s); faults %.2f/MiB against cat %.2f/MiB, %.2fx (goal <= 1.2x: %s); %d rounds, load %s\n",
			wr, wr <= 1.25 ? "met" : "missed", cpu_x, cpu_x <= 1 ? "met" : "missed",
			rf / mib, cf / mib, fr, fr <= 1.2 ? "met" : "missed", k, l
		printf "          faults that grow with the input (past the first MiB): rlwrap %.3f/MiB, cat %.3f/MiB\n", rs, cs
		printf "RESULT passthrough_%s mib=%s pipe_ms=%s wrap_ms=%s hop_ms=%s pipe_cpu_ms=%s wrap_cpu_ms=%s hop_cpu_ms=%s wall_ratio=%.3f cpu_hop_ratio=%.3f cat_faults=%s wrap_faults=%s faults_ratio=%.3f cat_fault_slope=%.3f wrap_fault_slope=%.3f load=%s\n",
			n, mib, pw, ww, xw, pc, wc, xc, wr, cpu_x, cf, rf, fr, cs, rs, l }'
}

hb=$(gen_stream claude-hb)
codex=$(gen_codex)
text=$(gen_plain)
measure claude-hb claude "$hb"
measure codex codex "$codex"
measure text claude "$text"
