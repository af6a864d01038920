#!/usr/bin/env bash
# classify-failure throughput against jq selecting the same records and
# `grep -c`, in the same run, on the two 300 MiB Claude streams (`claude`:
# a rate_limit_event heartbeat every 40 turns; `claude-hb`: one after
# every turn, as subscription sessions write, the harder input) and on 100
# MiB of short-line plain text.  classify-failure and grep alternate
# (bench/paired.c, medians); jq, a hundred times slower, runs twice (the
# faster counts).  Page faults per MiB beside `cat f`'s.  Peak RSS on the
# heartbeat stream and on a 512 MiB single line.
#   bench/classify.sh [RUNS]         (RLWRAP, BENCH_DIR, SIZE_MB override defaults)
# Goals (docs/design.md section 9): on both Claude streams >= 3 GB/s, >=
# 50x jq, >= 2x grep -c; on plain text >= 1.5 GB/s; faults per MiB within
# 1.2x of cat's.
set -euo pipefail
. "$(dirname "$0")/common.sh"
runs=${1:-11}
paired=$(paired_bin)

# Output goes to a file: GNU grep stops at the first match when it sees
# its output is /dev/null.
out="$BENCH_DIR/out"
line="$BENCH_DIR/line-512.txt"
[ -f "$line" ] || { printf '{"type":"user","x":"'; head -c 536870912 /dev/zero | tr '\0' 'a'; printf '"}\n'; } > "$line"
rss_line=$(peak_rss_kib "$RLWRAP" classify-failure --json "$line")

for name in claude claude-hb text; do
	case $name in
	text) stream=$(gen_plain); family="--family claude" ;;
	*) stream=$(gen_stream "$name"); family="" ;;
	esac
	bytes=$(stat -c %s "$stream")
	mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	cat "$stream" > /dev/null   # warm the page cache
	load0=$(load)
	# shellcheck disable=SC2046 # the figures, a word each
	set -- $("$paired" "$runs" 0 0 sh -c 'grep -c rate_limit "$1" > "$2"' _ "$stream" "$out" \
	    --- sh -c '"$1" classify-failure $2 --json "$3" > "$4"' _ "$RLWRAP" "$family" "$stream" "$out")
	t_grep=$1 t_rl=$2 c_rl=$5
	# shellcheck disable=SC2046 # the figures, a word each
	set -- $("$paired" "$runs" 0 0 cat "$stream" --- "$RLWRAP" classify-failure $family --json "$stream")
	f_cat=$8 f_rl=$9
	t_jq=0   # jq reads no plain text: no figure for it there
	[ "$name" = text ] || t_jq=$(best_of 2 sh -c 'jq -c '\''select(.type=="result" or .type=="rate_limit_event")'\'' "$1" > "$2"' _ "$stream" "$out")
	rss=$(peak_rss_kib "$RLWRAP" classify-failure --json "$stream")
	verdict=$("$RLWRAP" classify-failure $family "$stream" || true)   # the verdict is shown, whatever its exit
	printf 'classify-failure on %s: %s MiB (%s); load %s\n' "$name" "$mb" "$verdict" "$load0"
	awk -v by="$bytes" -v mb="$mb" -v r="$t_rl" -v c="$c_rl" -v g="$t_grep" -v j="$t_jq" -v fc="$f_cat" -v fr="$f_rl" -v n="$name" 'BEGIN {
		gbs = by / 1e6 / r; jx = j * 1000 / r; gx = g / r; ff = fr / fc
		printf "  rlwrap classify-failure %8.1f ms  %6.2f GB/s (CPU %.1f ms)\n", r, gbs, c
		printf "  grep -c rate_limit      %8.1f ms  %6.2f GB/s\n", g, by / 1e6 / g
		printf "  jq select(result|rle)   %8.1f ms  %6.3f GB/s\n", j * 1000, by / 1e9 / j
		printf "  %.1fx jq, %.2fx grep -c; faults %.2f/MiB against cat %.2f/MiB (%.2fx)\n", jx, gx, fr / mb, fc / mb, ff
		printf "RESULT classify_%s mib=%s rlwrap_ms=%s rlwrap_cpu_ms=%s grep_ms=%s jq_ms=%.1f gbs=%.3f jq_x=%.1f grep_x=%.2f cat_faults=%s faults=%s faults_ratio=%.3f\n",
			n, mb, r, c, g, j * 1000, gbs, jx, gx, fc, fr, ff }'
	[ "$name" = claude-hb ] && printf 'RESULT classify_rss stream_kib=%s line_kib=%s\n' "$rss" "$rss_line"
done
printf 'peak RSS: %s KiB on a 512 MiB single line\n' "$rss_line"
