# shellcheck shell=bash
# Shared by the bench scripts: the binary, a scratch directory, timing.
RLWRAP=${RLWRAP:-$(cd "$(dirname "$0")/.." && pwd)/rlwrap}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/rlwrap-bench}
mkdir -p "$BENCH_DIR"
[ -x "$RLWRAP" ] || { echo "bench: no rlwrap binary at $RLWRAP (build first, or set RLWRAP)" >&2; exit 1; }

now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# best_of N command...: prints the fastest wall time in seconds.
best_of() {
	local n=$1 best="" t0 t1 t
	shift
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	awk -v us="$best" 'BEGIN { printf "%.3f", us / 1e6 }'
}

# peak_rss_kib command...: the maximum resident set of the command.
peak_rss_kib() {
	/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
}

# The two Claude streams: one heartbeat every 40 turns, and one every turn
# (what subscription sessions write).  gen_stream NAME: its path, made once.
#   claude     300 MiB, a rate_limit_event every 40 turns
#   claude-hb  300 MiB, a rate_limit_event after every turn
SIZE_MB=${SIZE_MB:-300}
gen_stream() {
	local f="$BENCH_DIR/$1-$SIZE_MB.jsonl" flag=""
	[ "$1" = claude-hb ] && flag=--heartbeat
	if ! [ -f "$f" ]; then
		echo "generating $f ..." >&2
		python3 "$(dirname "$0")/gen-claude-stream.py" "$SIZE_MB" "$f.tmp" $flag && mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# gen_codex: the Codex `exec --json` stream (SIZE_MB MiB); gen_plain: 100
# MiB of short-line plain text.  Their paths, made once.
gen_codex() {
	local f="$BENCH_DIR/codex-$SIZE_MB.jsonl"
	if ! [ -f "$f" ]; then
		echo "generating $f ..." >&2
		python3 "$(dirname "$0")/gen-codex-stream.py" "$SIZE_MB" "$f.tmp" && mv "$f.tmp" "$f"
	fi
	echo "$f"
}
gen_plain() {
	local f="$BENCH_DIR/text-100m.txt"
	if ! [ -f "$f" ]; then
		echo "generating $f ..." >&2
		python3 "$(dirname "$0")/gen-text.py" 100 "$f.tmp" && mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# paired_bin: bench/paired.c built in BENCH_DIR; prints its path.  paired
# runs two commands alternately and prints the medians of their wall times
# and of the paired differences, then the same for CPU time (ms).
paired_bin() {
	local bin="$BENCH_DIR/paired" src
	src="$(cd "$(dirname "$0")" && pwd)/paired.c"
	if ! [ -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		cc -O2 -o "$bin" "$src" || { echo "bench: cannot build $src" >&2; exit 1; }
	fi
	echo "$bin"
}

# A state file on a real disk (not tmpfs): BENCH_STATE_DIR, default under
# $HOME.  state_disk DIR: "/dev/vda (ext4)", the device and file system.
BENCH_STATE_DIR=${BENCH_STATE_DIR:-$HOME/.cache/rlwrap-bench}
state_disk() {
	df -P -T "$1" | awk 'NR == 2 { printf "%s (%s)", $1, $2 }'
}

# busy_start / busy_stop: one process spinning on a core, for the runs
# "with one core busy".
busy_start() {
	sh -c 'while :; do :; done' &
	BUSY_PID=$!
}
busy_stop() {
	kill "$BUSY_PID" 2>/dev/null || true
	wait "$BUSY_PID" 2>/dev/null || true
}

# load: the load average now (1 and 5 minutes).
load() { cut -d' ' -f1-2 /proc/loadavg; }
