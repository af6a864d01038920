#!/usr/bin/env bats
# The command line: dispatch, help, version, usage errors.

load helpers
bats_require_minimum_version 1.5.0

setup() { common_setup; }

@test "--version prints the version" {
	run "$RLWRAP" --version
	assert_success
	assert_output --regexp '^rlwrap [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "--help lists every subcommand" {
	run "$RLWRAP" --help
	assert_success
	assert_output --partial "classify-failure"
	assert_output --partial "usage: rlwrap [options] [--] command"
}

@test "help COMMAND prints that command's synopsis" {
	run "$RLWRAP" help classify-failure
	assert_success
	assert_output --partial "usage: rlwrap classify-failure [--json]"
}

@test "help of an unknown command is a usage error" {
	run "$RLWRAP" help nosuch
	assert_failure 2
	assert_output --partial "no such command: nosuch"
}

@test "no arguments is a usage error" {
	run "$RLWRAP"
	assert_failure 2
	assert_output --partial "usage:"
}

@test "an unknown option is a one-line usage error, exit 2" {
	run "$RLWRAP" classify-failure --bogus
	assert_failure 2
	assert_line --index 0 --partial "unknown option --bogus"
}

@test "an option missing its value is a usage error" {
	run "$RLWRAP" classify-failure --family
	assert_failure 2
	assert_output --partial "needs a value"
}

@test "a bad --exit-code is a usage error naming the value" {
	run "$RLWRAP" classify-failure --exit-code abc /dev/null
	assert_failure 2
	assert_output --partial "--exit-code abc"
}

@test "a bad --now is a usage error" {
	run "$RLWRAP" classify-failure --now yesterday /dev/null
	assert_failure 2
	assert_output --partial "not a time"
}

@test "an unknown --family is a usage error listing the families" {
	run "$RLWRAP" classify-failure --family gpt /dev/null
	assert_failure 2
	assert_output --partial "claude"
}

@test "subcommand names match exactly, never by prefix" {
	run -127 "$RLWRAP" classify /dev/null
	refute_output --partial "FailureSignal"
	# "classify" is not a subcommand, so it is a command to wrap: not found.
	assert_failure 127
}

@test "a missing input file fails with exit 1 and names the file" {
	run "$RLWRAP" classify-failure /nonexistent/stream.jsonl
	assert_failure 1
	assert_output --partial "/nonexistent/stream.jsonl"
}
