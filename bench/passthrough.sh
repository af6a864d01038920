#!/bin/bash
# Pass-through throughput: `rlwrap -- cat FILE` against `cat FILE | cat`
# on a 300 MiB JSONL agent stream, in the same run.  Goal: rlwrap's time at
# most 1.25x the pipe's (docs/design.md section 9 asks for >= 80% throughput).
#   bench/passthrough.sh [RUNS]        (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-7}
f=$BENCH_DIR/stream-300m.jsonl
size=$((300 * 1024 * 1024))

# A Claude-like stream: assistant text and tool results (some quoting a
# "429 rate_limit_error", which must not count), a rate-limit event every
# hundred lines or so, an init and a result every thousand; line lengths
# vary widely.
generate() {
	awk -v size="$size" 'BEGIN {
		srand(42)
		words = "the of and to in is that for it as with was on be by this are or from at an build test fix error file function value return change"
		nw = split(words, w, " ")
		total = 0; n = 0
		while (total < size) {
			n++
			# Mostly assistant and user/tool-result lines, as in real runs.
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
	}' > "$f.tmp"
	mv "$f.tmp" "$f"
}

[ -f "$f" ] && [ "$(stat -c %s "$f")" -ge "$size" ] || { echo "generating $f ..." >&2; generate; }
cat "$f" > /dev/null   # warm the page cache

time_ms() {
	local t0 t1
	t0=$(now_ns)
	"$@"
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000000))
}
pipe() { cat "$f" | cat > /dev/null; }
wrapped() { "$RLWRAP" -- cat "$f" > /dev/null; }

pipe_ms="" wrap_ms=""
for i in $(seq "$runs"); do
	pipe_ms="$pipe_ms $(time_ms pipe)"
	wrap_ms="$wrap_ms $(time_ms wrapped)"
done
p=$(echo $pipe_ms | tr ' ' '\n' | median)
w=$(echo $wrap_ms | tr ' ' '\n' | median)
mib=$(($(stat -c %s "$f") / 1048576))
echo "stream:             $mib MiB, $runs runs each (median)"
echo "cat f | cat:        $p ms  ($(awk -v m="$mib" -v t="$p" 'BEGIN { printf "%.0f", m / (t / 1000) }') MiB/s)  runs:$pipe_ms"
echo "rlwrap -- cat f:    $w ms  ($(awk -v m="$mib" -v t="$w" 'BEGIN { printf "%.0f", m / (t / 1000) }') MiB/s)  runs:$wrap_ms"
awk -v p="$p" -v w="$w" 'BEGIN { r = w / p; printf "ratio:              %.2fx (goal <= 1.25x): %s\n", r, r <= 1.25 ? "ok" : "OVER" }'
# For bench/run-all.sh: one machine-readable line.
awk -v m="$mib" -v p="$p" -v w="$w" 'BEGIN { printf "RESULT passthrough mib=%d pipe_ms=%s wrap_ms=%s pipe_mibs=%.0f wrap_mibs=%.0f throughput=%.2f\n", m, p, w, m / (p / 1000), m / (w / 1000), p / w }'
