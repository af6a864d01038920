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

@test "the screen text is scanned for cap messages" {
	run in_pty "\"$RLWRAP\" --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-limit.txt\""
	assert_output --partial "hit your limit"
	run jq -r '.reason' sig.json
	assert_output "usage-limit"
	run jq -r '.message' sig.json
	assert_output --partial "You've hit your limit"
	refute_output --partial $'\e'
}

@test "a banner drawn in the TUI and again after leaving the alternate screen is stored once" {
	run in_pty "\"$RLWRAP\" --signal-file sig.json -- cat \"$FIXTURES/wrapper/claude-screen-limit-repeated.txt\""
	run jq -r '.message' sig.json
	assert_output --partial "You've hit your limit"
	[ "$(grep -o "You've hit your limit" <<<"$output" | wc -l)" -eq 1 ] || fail "stored twice: $output"
	refute_output --partial "America/New_York) "
}
