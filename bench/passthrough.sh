#!/bin/bash
# Pass-through: `rlwrap -- cat FILE > /dev/null` against `cat FILE | cat >
# /dev/null`, run alternately (bench/paired.c), on two 300 MiB streams: a
# Claude-like mix (assistant text, tool results, a rate-limit event every
# hundred lines or so) and the heartbeat-per-turn Claude stream
# (gen-claude-stream.py --heartbeat).  Each with the machine otherwise idle,
# with one core busy (a spinning shell), and with both commands confined to
# one CPU (taskset -c 0: what one free core costs, whatever the scheduler
# does with the busy one).  Goal (docs/design.md section 9): the wrapper's
# wall time at most 1.10x the pipe's, median of the paired ratios.
#   bench/passthrough.sh [RUNS]        (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-7}
paired=$(paired_bin)
mix=$BENCH_DIR/stream-300m.jsonl
size=$((300 * 1024 * 1024))

# The mix: mostly assistant and user/tool-result lines, as in real runs;
# tool results quoting a "429 rate_limit_error", which must not count; line
# lengths vary widely.
generate() {
	awk -v size="$size" 'BEGIN {
		srand(42)
		words = "the of and to in is that for it as with was on be by this are or from at an build test fix error file function value return change"
		nw = split(words, w, " ")
		total = 0; n = 0
		while (total < size) {
			n++
			r = rand()
			k = r < 0.001 ? 0 : r < 0.5 ? 1 : r < 0.985 ? 3 : r < 0.999 ? 4 : 5
			len = int(rand() * (rand() < 0.05 ? 4000 : 60)) + 3
			text = ""
			for (i = 0; i < len; i++) text = text w[int(rand() * nw) + 1] " "
			if (k == 0) line = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s" n "\",\"model\":\"claude-opus-4-6\",\"tools\":[\"Bash\",\"Edit\",\"Read\"]}"
			else if (k == 1 || k == 2) line = "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_" n "\",\"model\":\"claude-opus-4-6\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]},\"session_id\":\"s\"}"
			else if (k == 3) line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_" n "\",\"content\":\"" text " 429 rate_limit_error\"}]}}"
			else if (k == 4) line = "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\",\"resetsAt\":" (1796063400 + n) ",\"rateLimitType\":\"five_hour\"}}"
			else line = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"" substr(text, 1, 200) "\",\"usage\":{\"input_tokens\":" n ",\"output_tokens\":" n "}}"
			print line
			total += length(line) + 1
		}
	}' > "$mix.tmp"
	mv "$mix.tmp" "$mix"
}
[ -f "$mix" ] && [ "$(stat -c %s "$mix")" -ge "$size" ] || { echo "generating $mix ..." >&2; generate; }
hb=$(gen_stream claude-hb)
export RLWRAP_DB=$BENCH_DIR/passthrough.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW

# measure NAME FILE MODE: one RESULT line and a readable one.
measure() {
	local name=$1 f=$2 mode=$3 mib out
	mib=$(($(stat -c %s "$f") / 1048576))
	cat "$f" > /dev/null   # warm the page cache
	[ "$mode" = busy ] && busy_start
	local l pin=""
	l=$(load)
	[ "$mode" = onecpu ] && pin="taskset -c 0"
	out=$($pin "$paired" "$runs" 0 0 sh -c 'cat "$1" | cat > /dev/null' _ "$f" \
	    --- sh -c '"$1" -- cat "$2" > /dev/null' _ "$RLWRAP" "$f")
	[ "$mode" = busy ] && busy_stop
	set -- $out
	awk -v n="$name" -v m="$mode" -v mib="$mib" -v p="$1" -v w="$2" -v cp="$4" -v cw="$5" -v r="$7" -v l="$l" -v k="$runs" 'BEGIN {
		printf "%-9s %-6s %4d MiB: pipe %7.1f ms (%5.0f MiB/s, CPU %6.1f ms), rlwrap %7.1f ms (%5.0f MiB/s, CPU %6.1f ms); ratio %.3f (goal <= 1.10: %s); %d pairs, load %s\n",
			n, m, mib, p, mib / (p / 1000), cp, w, mib / (w / 1000), cw, r, r <= 1.10 ? "ok" : "OVER", k, l
		printf "RESULT passthrough_%s_%s mib=%d pipe_ms=%s wrap_ms=%s pipe_cpu_ms=%s wrap_cpu_ms=%s ratio=%s pipe_mibs=%.0f wrap_mibs=%.0f\n",
			n, m, mib, p, w, cp, cw, r, mib / (p / 1000), mib / (w / 1000) }'
}

trap busy_stop EXIT
modes="idle busy"
command -v taskset > /dev/null && modes="$modes onecpu"
for mode in $modes; do
	measure mix "$mix" "$mode"
	measure claude-hb "$hb" "$mode"
done
