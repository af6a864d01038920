#!/usr/bin/env bats
# Interactive use: when stdin and stdout are terminals the child runs on a
# pseudo-terminal.  Each test runs rlwrap under a real pseudo-terminal made
# by script(1).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	command -v script >/dev/null || skip "script(1) is not installed"
	PATH="$FIXTURES/bin:$PATH"
	cd "$BATS_TEST_TMPDIR"
}

# in_pty SHELL-COMMAND: runs it on a new terminal; output without CRs.
# script(1) writes an end-of-file character to the terminal when its own
# input ends; echoed by the terminal as "^@" or "^D", that is dropped too.
in_pty() {
	timeout 20 script -qec "$1" /dev/null < /dev/null | tr -d '\r\000' | sed 's/\^[@D]//g'
}

@test "on a terminal the child gets a terminal too" {
	run in_pty "\"$RLWRAP\" -- tty-info"
	assert_line "stdin: tty"
	assert_line "stdout: tty"
}

@test "--no-pty keeps pipes even on a terminal" {
	run in_pty "\"$RLWRAP\" --no-pty -- tty-info"
	assert_line "stdin: tty"
	assert_line "stdout: not a tty"
}

@test "the child's terminal has rlwrap's window size" {
	run in_pty "stty rows 33 cols 101; \"$RLWRAP\" -- tty-info"
	assert_line "size: 33 101"
}

@test "a window size change reaches the child" {
	run in_pty "stty rows 20 cols 70; (sleep 0.5; stty rows 40 cols 120 < /dev/tty) &
		\"$RLWRAP\" -- tty-info wait"
	assert_line "size: 20 70"
	assert_line "resized: 40 120"
}

@test "the exit status passes through in pty mode" {
	run in_pty "\"$RLWRAP\" -- sh -c 'exit 3'; echo \"rc=\$?\""
	assert_line "rc=3"
	run in_pty "\"$RLWRAP\" -- die-with TERM; echo \"rc=\$?\""
	assert_line "rc=143"
}

@test "the terminal is raw while the child runs and restored after it is killed" {
	run in_pty "stty -g > before
		\"$RLWRAP\" -- sleep 1 < /dev/tty & sleep 0.5; stty -g > during; wait
		stty -g > after
		\"$RLWRAP\" -- die-with KILL; echo \"rc=\$?\"; stty -g > after-kill
		\"$RLWRAP\" -- sleep 5 < /dev/tty & sleep 0.5; kill -TERM \$!; wait
		stty -g > after-term"
	assert_line "rc=137"
	[ -s before ] && [ -s during ]
	[ "$(cat before)" != "$(cat during)" ] || fail "rlwrap did not put the terminal in raw mode"
	[ "$(cat before)" = "$(cat after)" ] || fail "mode not restored after a normal exit"
	[ "$(cat before)" = "$(cat after-kill)" ] || fail "mode not restored after the child was killed"
	[ "$(cat before)" = "$(cat after-term)" ] || fail "mode not restored after rlwrap got TERM"
}

@test "input typed at the terminal reaches the child" {
	run bash -c "printf 'hello\n' | timeout 20 script -qec '\"$RLWRAP\" -- head -1' /dev/null | tr -d '\r'"
	assert_line "hello"
}

# The screen tests turn the terminal's echo off: script(1) types an
# end-of-file character when its input ends, which the child's terminal
# would echo under the banner as "^@", as if a person had typed it.
@test "the screen text is scanned for cap messages" {
	run in_pty "stty -echo; \"$RLWRAP\" --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-limit.txt\""
	assert_output --partial "hit your limit"
	run jq -r '.reason' sig.json
	assert_output "usage-limit"
	run jq -r '.message' sig.json
	assert_output --partial "You've hit your limit"
	refute_output --partial $'\e'
}

@test "a banner drawn in the TUI and again after leaving the alternate screen is stored once" {
	run in_pty "stty -echo; \"$RLWRAP\" --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-limit-repeated.txt\""
	run jq -r '.message' sig.json
	assert_output --partial "You've hit your limit"
	[ "$(grep -o "You've hit your limit" <<<"$output" | wc -l)" -eq 1 ] || fail "stored twice: $output"
	refute_output --partial "America/New_York) "
}

# ink-screen draws the way Claude Code's renderer does: a spinner redrawn
# in place with ESC[2K ESC[1A ... ESC[G, a reply the terminal wraps, and
# (with "limit") the session-limit banner as the last message, then exits
# 0.  The screen's text is judged, and the raw capture read back through
# the same emulator gives the same verdict.
# (The verdict rules are the text rules: a banner that is the
# agent's last message on the final screen trips whatever the exit status.)
@test "an Ink screen ending on the session-limit banner trips, live and from its raw capture" {
	export RLWRAP_TEST_NOW=2026-11-30T12:00:00Z
	run in_pty "stty rows 24 cols 80 -echo; \"$RLWRAP\" --pty --raw-stream cap --signal-file sig.json -- ink-screen limit"
	run jq -r '[.reason, .exit_code, .resets_at, .message] | @tsv' sig.json
	assert_output $'usage-limit\t0\t2026-11-30T18:30:00Z\t\u23bf  You\'ve hit your session limit \u00b7 resets 6:30pm (UTC)'
	grep -q $'\e\\[2K\e\\[1A' cap || fail "the raw stream does not hold the terminal's bytes"
	run "$RLWRAP" classify-failure --json --exit-code 0 --now 2026-11-30T12:00:00Z --screen 80x24 cap
	assert_success
	run jq -r '[.reason, .resets_at, .message] | @tsv' <<<"$output"
	assert_output $'usage-limit\t2026-11-30T18:30:00Z\t\u23bf  You\'ve hit your session limit \u00b7 resets 6:30pm (UTC)'
	# Found to be a terminal capture without being told (--pty forces it).
	run "$RLWRAP" classify-failure --exit-code 0 --now 2026-11-30T12:00:00Z cap
	assert_output --partial "usage-limit"
}

@test "an Ink screen with no banner does not trip, live or from its raw capture" {
	export RLWRAP_TEST_NOW=2026-11-30T12:00:00Z
	run in_pty "stty rows 24 cols 80 -echo; \"$RLWRAP\" --pty --raw-stream cap --signal-file sig.json -- ink-screen"
	run jq -r '.reason' sig.json
	assert_output "none"
	run "$RLWRAP" classify-failure --pty --exit-code 0 cap
	assert_output --partial "none"
}

# On 40 columns the banner starts a row of its own, under 40 x's that are
# then erased: it stands.  A screen still 80 wide would have erased the
# banner's start with them.
@test "the screen follows a window size change" {
	export RLWRAP_TEST_NOW=2026-11-30T12:00:00Z
	cat > draw <<-'EOF'
		sleep 1.5
		printf 'x%.0s' $(seq 40)
		printf 'You have hit your session limit \302\267 resets 6:30pm (UTC)\033[2A\033[G\033[2K'
	EOF
	run in_pty "stty rows 24 cols 80 -echo; (sleep 0.5; stty cols 40 < /dev/tty) &
		\"$RLWRAP\" --pty --signal-file sig.json -- sh draw"
	run jq -r '[.reason, .resets_at] | @tsv' sig.json
	assert_output $'usage-limit\t2026-11-30T18:30:00Z'
}

# stderr sent elsewhere is a pipe, not the pty: its bare line feeds would
# leave the next line indented on the screen where the stdout line ended.
@test "stderr on a pipe in pty mode: its lines start their rows on the screen" {
	export RLWRAP_TEST_NOW=2026-11-30T12:00:00Z
	run in_pty "stty -echo; \"$RLWRAP\" --pty --raw-stream cap --signal-file sig.json -- sh -c 'echo working; printf \"Error: one\\nAPI Error: 429 You have hit your session limit \\302\\267 resets 6:30pm (UTC)\\n\" >&2; exit 1' 2>err.txt"
	run jq -r '[.reason, .resets_at] | @tsv' sig.json
	assert_output $'usage-limit\t2026-11-30T18:30:00Z'
	# The command's stderr itself is relayed as it was.
	grep -q $'^Error: one$' err.txt || fail "stderr changed: $(cat -A err.txt)"
	grep -q $'Error: one\r$' cap || fail "no carriage return in the raw stream's stderr line"
	run "$RLWRAP" classify-failure --exit-code 1 --now 2026-11-30T12:00:00Z cap
	assert_output --partial "usage-limit"
}
