#!/usr/bin/env bats
# Plain text through the wrapper, in pipe mode and on a pseudo-terminal:
# every text-only fixture under fixtures/streams that says `none` (an agent
# or a build talking about limits, quotas, 429s, credits) must end with
# verdict none, exit 0 and no breaker; every text-only banner fixture must
# trip with its reason and reset.  tests/test_fixtures checks the same files
# in process, as classify-failure reads them.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW
}

# The text-only fixtures (no JSON record) by golden reason, listed once for
# the file: "BASE REASON" a line in $BATS_FILE_TMPDIR/text-fixtures.
setup_file() {
	# A JSONL stream starts with a record; a text one with text.
	awk 'FNR == 1 { seen = 0 } !seen && NF { seen = 1
		if ($0 !~ /^[[:space:]]*(\{|\[[[:space:]]*[{\["])/) { sub(/\.jsonl$/, "", FILENAME); print FILENAME } }' \
		"$FIXTURES"/streams/*/*.jsonl > "$BATS_FILE_TMPDIR/text-bases"
	sed 's/$/.expected.json/' "$BATS_FILE_TMPDIR/text-bases" | xargs jq -r '
		input_filename + " " + .reason' | sed 's/\.expected\.json / /' > "$BATS_FILE_TMPDIR/text-fixtures"
}

# text_fixtures VERDICT: the text-only fixtures whose golden reason is
# VERDICT ("none") or trips ("trips"), one base path a line.
text_fixtures() {
	case $1 in
	none) awk '$2 == "none" { print $1 }' "$BATS_FILE_TMPDIR/text-fixtures" ;;
	trips) awk '$2 ~ /^(rate-limit|usage-limit|credit-exhausted)$/ { print $1 }' "$BATS_FILE_TMPDIR/text-fixtures" ;;
	esac
}

# fixture_arg BASE OPTION: the value of --family/--exit-code in BASE.args.
fixture_arg() {
	[ -f "$1.args" ] || return 0
	tr ' ' '\n' < "$1.args" | awk -v o="$2" 'prev == o { print; exit } { prev = $0 }'
}

# fixture_tz BASE: the TZ a fixture runs in.
fixture_tz() {
	local tz
	tz=$( [ -f "$1.args" ] && sed -n 's/^TZ=//p' "$1.args")
	echo "${tz:-UTC}"
}

# in_pty SHELL-COMMAND: runs it on a new terminal.  script(1)'s input stays
# open (a sleep that ends on its own), so no end-of-file character is echoed
# into the screen text.  The sleep holds no other descriptor: `run` reads
# the output to its end, and a sleep holding stderr kept it waiting 60 s.
in_pty() {
	timeout 60 script -qec "$1" /dev/null < <(exec sleep 60 2>/dev/null 3>&-) | tr -d '\r\000'
}

# no_breakers: the store holds no breaker at all.
no_breakers() {
	[ "$("$RLWRAP" status --all --json | jq '.breakers | length')" = 0 ]
}

@test "the text corpus is large and covers every family" {
	local n fam
	n=$(text_fixtures none | wc -l)
	[ "$n" -ge 60 ] || fail "only $n text-mode success fixtures"
	for fam in claude codex gemini pi opencode cursor qwen generic; do
		text_fixtures none | grep -q "/streams/$fam/" || fail "no text-mode success fixture for $fam"
	done
}

@test "text-mode success transcripts never trip in pipe mode" {
	local base fam bad=""
	while read -r base; do
		fam=$(fixture_arg "$base" --family)
		rm -f sig.json "$RLWRAP_DB"*
		if ! "$RLWRAP" -f "${fam:-generic}" --signal-file sig.json -- cat "$base.jsonl" > out.txt < /dev/null; then
			bad+=" $(basename "$base")(exit)"
		elif ! cmp -s out.txt "$base.jsonl"; then
			bad+=" $(basename "$base")(bytes)"
		elif [ "$(jq -r .reason sig.json)" != none ] || ! no_breakers; then
			bad+=" $(basename "$base")($(jq -r .reason sig.json))"
		fi
	done < <(text_fixtures none)
	[ -z "$bad" ] || fail "tripped or changed:$bad"
}

@test "text-mode success transcripts never trip in pty mode" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local base fam bad=""
	while read -r base; do
		fam=$(fixture_arg "$base" --family)
		rm -f sig.json "$RLWRAP_DB"*
		in_pty "\"$RLWRAP\" -f ${fam:-generic} --signal-file sig.json -- cat \"$base.jsonl\"; echo \"rc=\$?\"" > out.txt
		# script(1) has lost the end of a screen under load (twice in many
		# runs, never reproduced): once more before it counts, said in the log.
		if ! grep -q 'rc=0$' out.txt; then
			echo "# $(basename "$base"): no status line, once more (the screen ended: $(tail -c 80 out.txt | tr '\n' ' '))" >&3
			rm -f sig.json "$RLWRAP_DB"*
			in_pty "\"$RLWRAP\" -f ${fam:-generic} --signal-file sig.json -- cat \"$base.jsonl\"; echo \"rc=\$?\"" > out.txt
		fi
		if ! grep -q 'rc=0$' out.txt; then
			bad+=" $(basename "$base")(exit; the screen ended: $(tail -c 120 out.txt | tr '\n' ' '))"
		elif [ "$(jq -r .reason sig.json)" != none ] || ! no_breakers; then
			bad+=" $(basename "$base")($(jq -r .reason sig.json))"
		fi
	done < <(text_fixtures none)
	[ -z "$bad" ] || fail "tripped:$bad"
}

# Runs BASE's text through the wrapper as an agent that prints it and ends
# with the fixture's exit code; checks reason, reset and the breaker.
check_banner() {
	local base=$1 mode=$2 fam code want_reason want_reset cmd
	fam=$(fixture_arg "$base" --family)
	code=$(fixture_arg "$base" --exit-code)
	want_reason=$(jq -r .reason "$base.expected.json")
	want_reset=$(jq -r .resets_at "$base.expected.json")
	rm -f sig.json "$RLWRAP_DB"*
	cmd="TZ=$(fixture_tz "$base") \"$RLWRAP\" -q -f ${fam:-generic} --signal-file sig.json -- sh -c 'cat \"\$1\"; exit ${code:-0}' _ \"$base.jsonl\""
	if [ "$mode" = pty ]; then
		in_pty "$cmd" > /dev/null
	else
		sh -c "$cmd" > /dev/null < /dev/null || true
	fi
	[ "$(jq -r .reason sig.json)" = "$want_reason" ] || { echo "$(basename "$base"): $(jq -r .reason sig.json), want $want_reason"; return 1; }
	[ "$(jq -r .resets_at sig.json)" = "$want_reset" ] || { echo "$(basename "$base"): reset $(jq -r .resets_at sig.json), want $want_reset"; return 1; }
	! no_breakers || { echo "$(basename "$base"): no breaker opened"; return 1; }
}

@test "text-mode banners trip with their reason and reset in pipe mode" {
	local base bad="" n=0
	while read -r base; do
		n=$((n + 1))
		check_banner "$base" pipe || bad+=" $(basename "$base")"
	done < <(text_fixtures trips)
	[ "$n" -ge 10 ] || fail "only $n text banner fixtures"
	[ -z "$bad" ] || fail "did not trip right:$bad"
}

@test "text-mode banners trip with their reason and reset in pty mode" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local base bad=""
	local why
	while read -r base; do
		# A banner missed once on a loaded machine (the portable build beside
		# the sanitizer suite, never reproduced): once more, said in the log.
		why=$(check_banner "$base" pty) && continue
		echo "# $why; once more" >&3
		check_banner "$base" pty || bad+=" $(basename "$base")"
	done < <(text_fixtures trips)
	[ -z "$bad" ] || fail "did not trip right:$bad"
}

@test "an interactive screen: the user's prompt and the reply about limits do not trip" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run in_pty "\"$RLWRAP\" -f claude --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-prose.txt\"; echo \"rc=\$?\""
	assert_output --partial "rc=0"
	run jq -r .reason sig.json
	assert_output none
	no_breakers
}

@test "the banner on a screen still trips after the prompt box is drawn again" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run in_pty "\"$RLWRAP\" -f claude --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-limit-redrawn.txt\""
	run jq -r '.reason + " " + .resets_at' sig.json
	assert_output "usage-limit 2026-11-30T18:30:00Z"
}
