#!/usr/bin/env bash
# classify-failure throughput on a 300 MiB Claude-like stream, against jq
# selecting the same records and grep -c, in the same run; peak RSS on that
# stream and on a 512 MiB single line.
set -euo pipefail
. "$(dirname "$0")/common.sh"
SIZE_MB=${SIZE_MB:-300}
stream="$BENCH_DIR/claude-$SIZE_MB.jsonl"
[ -f "$stream" ] || python3 "$(dirname "$0")/gen-claude-stream.py" "$SIZE_MB" "$stream"
bytes=$(stat -c %s "$stream")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')

# Output goes to a file: GNU grep stops at the first match when it sees
# its output is /dev/null.
out="$BENCH_DIR/out"
t_rl=$(best_of 5 sh -c '"$1" classify-failure --json "$2" > "$3"' _ "$RLWRAP" "$stream" "$out")
t_jq=$(best_of 2 sh -c 'jq -c '\''select(.type=="result" or .type=="rate_limit_event")'\'' "$1" > "$2"' _ "$stream" "$out")
t_grep=$(best_of 5 sh -c 'grep -c rate_limit "$1" > "$2"' _ "$stream" "$out")
rss=$(peak_rss_kib "$RLWRAP" classify-failure --json "$stream")

line="$BENCH_DIR/line-512.txt"
[ -f "$line" ] || { printf '{"type":"user","x":"'; head -c 536870912 /dev/zero | tr '\0' 'a'; printf '"}\n'; } > "$line"
rss_line=$(peak_rss_kib "$RLWRAP" classify-failure --json "$line")

verdict=$("$RLWRAP" classify-failure "$stream")
printf 'classify-failure on %s MiB (%s)\n' "$mb" "$verdict"
printf '%-28s %8s s %8s MB/s\n' "rlwrap classify-failure" "$t_rl" "$(awk -v m="$mb" -v t="$t_rl" 'BEGIN{printf "%.0f", m/t}')"
printf '%-28s %8s s %8s MB/s\n' "jq select(result|rle)" "$t_jq" "$(awk -v m="$mb" -v t="$t_jq" 'BEGIN{printf "%.0f", m/t}')"
printf '%-28s %8s s %8s MB/s\n' "grep -c rate_limit" "$t_grep" "$(awk -v m="$mb" -v t="$t_grep" 'BEGIN{printf "%.0f", m/t}')"
printf 'speed-up vs jq: %sx; time vs grep: %sx\n' \
	"$(awk -v a="$t_jq" -v b="$t_rl" 'BEGIN{printf "%.1f", a/b}')" \
	"$(awk -v a="$t_rl" -v b="$t_grep" 'BEGIN{printf "%.2f", a/b}')"
printf 'peak RSS: %s KiB on the stream, %s KiB on a 512 MiB single line\n' "$rss" "$rss_line"
# For bench/run-all.sh: one machine-readable line.
awk -v m="$mb" -v r="$t_rl" -v j="$t_jq" -v g="$t_grep" -v rs="$rss" -v rl="$rss_line" 'BEGIN {
	printf "RESULT classify mib=%s rlwrap_s=%s jq_s=%s grep_s=%s rlwrap_mibs=%.0f jq_mibs=%.0f grep_mibs=%.0f rss_stream_kib=%s rss_line_kib=%s\n",
		m, r, j, g, m / r, m / j, m / g, rs, rl }'
