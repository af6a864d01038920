#!/usr/bin/env bash
# classify-failure throughput on two 300 MiB Claude streams, against jq
# selecting the same records and grep -c, in the same run: `claude` has a
# rate_limit_event heartbeat every 40 turns, `claude-hb` one after every
# turn (as subscription sessions write; the harder input).  Peak RSS on the
# heartbeat stream and on a 512 MiB single line.
#   bench/classify.sh                (RLWRAP, BENCH_DIR, SIZE_MB override defaults)
# Goals (docs/design.md section 9), on claude-hb: >= 3 GB/s, >= 50x jq,
# at least as fast as grep -c.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Output goes to a file: GNU grep stops at the first match when it sees
# its output is /dev/null.
out="$BENCH_DIR/out"
line="$BENCH_DIR/line-512.txt"
[ -f "$line" ] || { printf '{"type":"user","x":"'; head -c 536870912 /dev/zero | tr '\0' 'a'; printf '"}\n'; } > "$line"
rss_line=$(peak_rss_kib "$RLWRAP" classify-failure --json "$line")

for name in claude claude-hb; do
	stream=$(gen_stream "$name")
	bytes=$(stat -c %s "$stream")
	mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	cat "$stream" > /dev/null   # warm the page cache
	load0=$(load)
	t_rl=$(best_of 5 sh -c '"$1" classify-failure --json "$2" > "$3"' _ "$RLWRAP" "$stream" "$out")
	t_jq=$(best_of 2 sh -c 'jq -c '\''select(.type=="result" or .type=="rate_limit_event")'\'' "$1" > "$2"' _ "$stream" "$out")
	t_grep=$(best_of 5 sh -c 'grep -c rate_limit "$1" > "$2"' _ "$stream" "$out")
	rss=$(peak_rss_kib "$RLWRAP" classify-failure --json "$stream")
	verdict=$("$RLWRAP" classify-failure "$stream")
	beats=$(grep -c '"type":"rate_limit_event"' "$stream")
	printf 'classify-failure on %s: %s MiB, %s heartbeats (%s); load %s\n' "$name" "$mb" "$beats" "$verdict" "$load0"
	printf '  %-26s %8s s %8s MB/s\n' "rlwrap classify-failure" "$t_rl" "$(awk -v b="$bytes" -v t="$t_rl" 'BEGIN{printf "%.0f", b/1e6/t}')"
	printf '  %-26s %8s s %8s MB/s\n' "jq select(result|rle)" "$t_jq" "$(awk -v b="$bytes" -v t="$t_jq" 'BEGIN{printf "%.0f", b/1e6/t}')"
	printf '  %-26s %8s s %8s MB/s\n' "grep -c rate_limit" "$t_grep" "$(awk -v b="$bytes" -v t="$t_grep" 'BEGIN{printf "%.0f", b/1e6/t}')"
	awk -v a="$t_jq" -v b="$t_rl" -v g="$t_grep" -v by="$bytes" -v n="$name" 'BEGIN {
		r = by / 1e9 / b
		printf "  speed-up vs jq: %.1fx; speed vs grep: %.2fx; %.2f GB/s", a / b, g / b, r
		if (n == "claude-hb")
			printf " (goals: >= 50x jq %s, >= 1x grep %s, >= 3 GB/s %s)", (a / b >= 50) ? "ok" : "MISSED",
				(g / b >= 1) ? "ok" : "MISSED", (r >= 3) ? "ok" : "MISSED"
		printf "\n" }'
	printf '  peak RSS: %s KiB on the stream\n' "$rss"
	# For bench/run-all.sh: one machine-readable line per stream.
	key=classify; [ "$name" = claude-hb ] && key=classify_hb
	awk -v k="$key" -v m="$mb" -v by="$bytes" -v r="$t_rl" -v j="$t_jq" -v g="$t_grep" -v rs="$rss" -v rl="$rss_line" 'BEGIN {
		printf "RESULT %s mib=%s rlwrap_s=%s jq_s=%s grep_s=%s rlwrap_mibs=%.0f jq_mibs=%.0f grep_mibs=%.0f rlwrap_gbs=%.2f rss_stream_kib=%s rss_line_kib=%s\n",
			k, m, r, j, g, m / r, m / j, m / g, by / 1e9 / r, rs, rl }'
done
printf 'peak RSS: %s KiB on a 512 MiB single line\n' "$rss_line"
