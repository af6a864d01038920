#!/bin/bash
# Keystroke echo on a pty: `rlwrap --pty -- cat` typed into (bench/pty-echo.c:
# each key's time from the write to its echo), with the terminal emulator
# that reads the screen for the verdict (lib/screen.c) and without it
# (RLWRAP_TEST_SCREEN=off: the stripped text classified as it comes, as
# before the emulator), in alternating rounds, and `cat` on the pty alone
# for the floor.  Goal (docs/design.md section 9): the emulator adds at
# most 0.5 ms to the median echo.
#   bench/pty-echo.sh [ROUNDS] [KEYS]      (RLWRAP, BENCH_DIR override defaults)
set -eu
. "$(dirname "$0")/common.sh"
rounds=${1:-10}
keys=${2:-200}
bin=$BENCH_DIR/pty-echo
src="$(cd "$(dirname "$0")" && pwd)/pty-echo.c"
if ! [ -x "$bin" ] || [ "$src" -nt "$bin" ]; then
	cc -O2 -o "$bin" "$src" -lutil || { echo "bench: cannot build $src" >&2; exit 1; }
fi
mkdir -p "$BENCH_STATE_DIR"
export RLWRAP_DB=$BENCH_STATE_DIR/pty-echo.db RLWRAP_CONFIG=/nonexistent/config
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT RLWRAP_TEST_SCREEN
out=$BENCH_DIR/pty-echo.out
rm -rf "$out"
mkdir -p "$out"
l=$(load)
med() { median < "$1"; }
for r in $(seq "$rounds"); do
	order="on off"
	[ $((r % 2)) -eq 0 ] && order="off on"
	for c in $order; do
		if [ "$c" = off ]; then
			RLWRAP_TEST_SCREEN=off "$bin" "$keys" "$RLWRAP" --pty -- cat > "$out/$c-$r"
		else
			"$bin" "$keys" "$RLWRAP" --pty -- cat > "$out/$c-$r"
		fi
	done
	"$bin" "$keys" cat > "$out/cat-$r"
	echo "$(med "$out/on-$r") - $(med "$out/off-$r")" | awk '{ print $1 - $3 }' >> "$out/diff"
done
cat "$out"/on-* > "$out/on"
cat "$out"/off-* > "$out/off"
cat "$out"/cat-* > "$out/cat"
p90() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int(NR * 0.9)] }'; }
awk -v on="$(med "$out/on")" -v off="$(med "$out/off")" -v c="$(med "$out/cat")" -v d="$(med "$out/diff")" \
    -v on90="$(p90 "$out/on")" -v off90="$(p90 "$out/off")" -v c90="$(p90 "$out/cat")" -v n="$((rounds * keys))" -v l="$l" 'BEGIN {
	printf "%d keys each; load %s\n", n, l
	printf "cat alone:                     median %.1f us (p90 %.1f)\n", c, c90
	printf "rlwrap --pty, emulator off:    median %.1f us (p90 %.1f)\n", off, off90
	printf "rlwrap --pty, emulator on:     median %.1f us (p90 %.1f)\n", on, on90
	printf "emulator cost: %.1f us, median of the rounds'"'"' median differences (goal <= 500 us: %s)\n", d, d <= 500 ? "ok" : "OVER"
	printf "RESULT pty-echo cat_us=%.1f off_us=%.1f on_us=%.1f added_us=%.1f\n", c, off, on, d
}'
