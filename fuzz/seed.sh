#!/bin/sh
# Builds the seed corpora for the fuzz harnesses in a scratch directory:
#   fuzz/seed.sh OUTDIR    ->  OUTDIR/classify/, OUTDIR/timeparse/, OUTDIR/jsonsubset/
# Each seed starts with the 4-byte header fuzz/invariants.h describes.
# Corpora are never committed; findings go to fixtures/fuzz/<harness>/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz/seed.sh OUTDIR}
mkdir -p "$out/classify" "$out/timeparse" "$out/jsonsubset" "$out/outguard" "$out/sanitise"

# header BYTE... : the header bytes, as octal escapes for printf.
header() {
	for b in "$@"; do printf "\\$(printf '%03o' "$b")"; done
}

# Index of a family in the harness's table (0 = detect from the stream).
family_byte() {
	case $1 in
	claude) echo 7 ;; codex) echo 8 ;; gemini) echo 9 ;; pi) echo 10 ;;
	opencode) echo 11 ;; cursor) echo 12 ;; qwen) echo 13 ;;
	goose) echo 3 ;; amp) echo 4 ;; copilot) echo 5 ;; *) echo 14 ;;
	esac
}

# classify: every golden stream, detected and with its family forced.
n=0
for f in "$top"/fixtures/streams/*/*.jsonl; do
	fam=$(basename "$(dirname "$f")")
	case=$(basename "$f" .jsonl)
	code=255
	args="${f%.jsonl}.args"
	if [ -f "$args" ]; then
		c=$(sed -n 's/.*--exit-code \([0-9]*\).*/\1/p' "$args" | head -n 1)
		[ -n "$c" ] && code=$c
	fi
	{ header 0 "$code" 1 $((n % 256)); cat "$f"; } > "$out/classify/$fam-$case"
	{ header "$(family_byte "$fam")" "$code" 2 $(((n * 7 + 3) % 256)); cat "$f"; } \
	    > "$out/classify/$fam-$case.forced"
	# Now and then behind a line head that reaches the line cap.
	if [ $((n % 8)) -eq 0 ]; then
		{ header 0 "$code" $((0x11 | (n * 4 & 0xec))) $((n % 256)); cat "$f"; } \
		    > "$out/classify/$fam-$case.capped"
	fi
	n=$((n + 1))
done

# timeparse: the grammar of timeparse.h and reset_time.h, one string a seed.
i=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	{ header $((i % 8)) 128 0 0; printf '%s' "$line"; } > "$out/timeparse/t$(printf '%03d' "$i")"
	i=$((i + 1))
done <<'STRINGS'
90
90s
1h30m
6m0s
1h2m3.5s
547ms
1.5us
0.539477544s
2d
2 days 3 hours 10 minutes
~231 min
about 5 minutes
41.2s
35.
1796040000
1765661760000
2026-11-30T14:00:00Z
2026-11-30T15:00:00+01:00
2026-11-30 14:00:00Z
2026-11-30
Sun, 06 Nov 1994 08:49:37 GMT
Sunday, 06-Nov-94 08:49:37 GMT
Sun Nov  6 08:49:37 1994
6:30pm
2am
12:16 PM
6:30pm (Europe/Rome)
11pm (UTC)
Jul 31, 2am (UTC)
Jul 27 at 4:30am (Asia/Calcutta)
Sep 15 at 7pm
Dec 2nd, 2026 1:36 PM
2026-08-01 at 00:00 UTC
10:57 PM GMT-3
3pm (America/Bogota)
retry-after-ms: 20000
Retry-After: 120
Retry-After: Fri, 31 Dec 1999 23:59:59 GMT
anthropic-ratelimit-unified-reset: 1770685200
x-ratelimit-reset-tokens: 6m0s
X-RateLimit-Reset: 1765661760000
"retryDelay": "34s"
{"resetsAt": 1796059800}
try again in 1m2.5s
Please retry in 41.2s
retry after 20 seconds
try again in 5 days 22 hours 11 minutes
You've hit your session limit · resets 6:30pm (Europe/Rome)
try again at 3:28 PM
regain access on 2026-08-01 at 00:00 UTC
usage limit reached|1755615600
Retrying in 4s · attempt 6/10
limit: 20\nPlease retry in 45s
STRINGS
# jsonsubset: the distinct JSON lines of the golden streams, up to 4 KiB
# (no header).
cat "$top"/fixtures/streams/*/*.jsonl | awk -v dir="$out/jsonsubset" '
	length($0) <= 4096 && /^[{[]/ && !seen[$0]++ {
		f = sprintf("%s/j%04d", dir, n++)
		printf "%s", $0 > f
		close(f)
	}'

# outguard: the decoys and own files, each way (byte 0: guard, open,
# replace, plant a link then replace).
i=0
for p in state.db state.db-wal ./state.db-wal ldb lwal hard fifo loop sub lsub/new config key new sub/new; do
	for op in 0 1 2; do
		{ header "$op"; printf '%s' "$p"; } > "$out/outguard/p$i"
		i=$((i + 1))
	done
done
{ header 3; printf 'x\000state.db-wal\000x'; } > "$out/outguard/link-wal"
{ header 3; printf 'sub/y\000z\000sub/y'; } > "$out/outguard/link-sub"
# sanitise: a capacity byte, then a hostile value.
{ header 64; printf 'evil\n$(touch x)\033[2J\302\233\342\200\256\342\200\250x'; } > "$out/sanitise/hostile"
{ header 8; printf 'caf\303\251 \303\251t\303\251'; } > "$out/sanitise/cut"
{ header 255; printf 'claude-opus-4-6\t\r\n\357\273\277'; } > "$out/sanitise/plain"

echo "seed.sh: $(ls "$out/classify" | wc -l) classify seeds, $(ls "$out/timeparse" | wc -l) timeparse seeds," \
    "$(ls "$out/jsonsubset" | wc -l) jsonsubset seeds in $out"
