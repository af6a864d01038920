#!/bin/bash
# Peak memory while a 512 MiB single line (no newline until the end) passes
# through `rlwrap -- cat`.  Goal: peak RSS under 16 MiB.  The output is
# checked too (size), so a wrapper that dropped bytes would not look good.
#   bench/rss.sh
set -eu
. "$(dirname "$0")/common.sh"
f=$BENCH_DIR/line-512m.json
size=$((512 * 1024 * 1024))
if ! [ -f "$f" ] || [ "$(stat -c %s "$f")" -ne "$size" ]; then
	echo "generating $f ..." >&2
	{ printf '{"type":"assistant","message":{"content":[{"type":"text","text":"'
	  head -c $((size - 60)) /dev/zero | tr '\0' 'x'
	  printf '"}]}}'; } | head -c $((size - 1)) > "$f.tmp"
	printf '\n' >> "$f.tmp"
	mv "$f.tmp" "$f"
fi
export RLWRAP_DB=$BENCH_DIR/rss.db RLWRAP_CONFIG=/nonexistent/config
out=$BENCH_DIR/rss.out
/usr/bin/time -f '%M' -o "$out" "$RLWRAP" -- cat "$f" | wc -c > "$BENCH_DIR/rss.bytes"
kib=$(tail -1 "$out")
bytes=$(cat "$BENCH_DIR/rss.bytes")
[ "$bytes" -eq "$size" ] || { echo "bytes through: $bytes, expected $size" >&2; exit 1; }
awk -v k="$kib" 'BEGIN { printf "peak RSS (rlwrap and child, max): %.1f MiB (goal < 16 MiB): %s\n", k / 1024, k < 16384 ? "ok" : "OVER" }'
echo "RESULT rss line_mib=512 wrapper_kib=$kib"
