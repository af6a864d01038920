#!/usr/bin/env bats
# The command line: dispatch, help, version, usage errors.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

# The commands of cmd/main.c's table, and the long options of one
# cmd/<verb>.c's getopt table: what help and the completions must cover.
commands() {
	sed -n '/cmd_table\[\] = {/,/};/s/^\t&cmd_\([a-z_]*\)_entry,$/\1/p' "$SRC/cmd/main.c" | tr _ -
}
long_options() {
	sed -n '/static const struct option [a-z_]*longopts\[\] = {/,/};/s/^\t{ "\([a-z-]*\)",.*/\1/p' \
		"$SRC/cmd/$(echo "$1" | tr - _).c"
}

@test "--version prints the version, the store backends and the library versions" {
	run "$RLWRAP" --version
	assert_success
	assert_line --index 0 --regexp '^rlwrap [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --index 1 --regexp '^store backends: sqlite(, postgresql)?$'
	assert_line --index 2 --regexp '^libraries: SQLite 3\.[0-9]+\.[0-9]+, jansson [0-9]+\.[0-9]+(\.[0-9]+)?(, libpq [0-9]+\.[0-9]+)?$'
	# The store backends and libpq go together.
	if [[ ${lines[1]} == *postgresql* ]]; then assert_line --index 2 --partial ", libpq "; fi
	run "$RLWRAP" -V
	assert_line --index 0 --regexp '^rlwrap [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "help COMMAND and COMMAND --help list every option with what it does and an example" {
	local cmd opt items examples
	[ "$(commands | wc -l)" -ge 10 ] || fail "cannot read the command table: $(commands)"
	for cmd in $(commands); do
		run "$RLWRAP" help "$cmd"
		assert_success
		local help=$output
		run "$RLWRAP" "$cmd" --help
		assert_success
		assert_equal "$output" "$help"
		assert_line --index 0 --partial "usage: rlwrap "
		for opt in $(long_options "$cmd") help; do
			# "  --opt ARG   description", or "  -o, --opt[=X] ...".
			assert_line --regexp "^  (-[a-zA-Z], )?--$opt([ =[]|$)"
		done
		# Each item (an option or an operand) has a description and one example.
		items=$(grep -cE '^  [-A-Z]' <<< "$help")
		examples=$(grep -cE '^ +\$ .*rlwrap' <<< "$help")
		[ "$items" -gt 0 ] && [ "$items" = "$examples" ] || fail "$cmd: $items items, $examples examples"
		# No item without a description: text after it, or on the next line.
		run awk '/^  [-A-Z]/ { item = $0; if (item ~ /^  [^ ].*[^ ]  +[^ $]/) item = ""; next }
			item != "" { if ($0 ~ /^ +\$ / || $0 !~ /^ +[^ ]/) print "no description: " item; item = "" }' <<< "$help"
		assert_output ""
	done
}

@test "rlwrap COMMAND --help wins over missing operands; after the command it is the command's" {
	run "$RLWRAP" trip --help
	assert_success
	assert_output --partial "usage: rlwrap trip"
	run "$RLWRAP" -q --help
	assert_success
	assert_output --partial "--signal-file FILE"
	run "$RLWRAP" -- sh -c 'echo "child got $1"' sh --help
	assert_success
	assert_output "child got --help"
}

@test "the shell completions offer every command and every option" {
	local cmd opt
	for cmd in $(commands); do
		grep -qw -- "$cmd" "$SRC/completions/rlwrap.bash" || fail "rlwrap.bash lacks $cmd"
		grep -q -- "'$cmd:" "$SRC/completions/_rlwrap" || fail "_rlwrap lacks $cmd"
		for opt in $(long_options "$cmd"); do
			grep -qE -- "--$opt\b" "$SRC/completions/rlwrap.bash" || fail "rlwrap.bash lacks $cmd --$opt"
			grep -qE -- "--$opt\b" "$SRC/completions/_rlwrap" || fail "_rlwrap lacks $cmd --$opt"
		done
	done
	# Per command, not only somewhere in the file: what bash offers after
	# "rlwrap CMD --".  A stand-in for bash-completion's _init_completion.
	cat > "$BATS_TEST_TMPDIR/complete.sh" <<-'EOF'
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_filedir() { :; }; _command_offset() { :; }; compopt() { :; }
		source "$1"
		COMP_WORDS=(rlwrap "$2" --); COMP_CWORD=2; COMPREPLY=()
		_rlwrap
		printf '%s\n' "${COMPREPLY[@]}"
	EOF
	for cmd in $(commands); do
		run bash "$BATS_TEST_TMPDIR/complete.sh" "$SRC/completions/rlwrap.bash" "$cmd"
		for opt in $(long_options "$cmd"); do
			assert_line -- "--$opt"
		done
	done
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

@test "no arguments is the wrapper's usage error, exit 125" {
	run "$RLWRAP"
	assert_failure 125
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

# Fake commands named like the values and the typo: a marker if one runs.
fake_commands() {
	local name
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	for name in "$@"; do
		printf '#!/bin/sh\ntouch "%s/ran-%s"\n' "$BATS_TEST_TMPDIR" "$name" > "$BATS_TEST_TMPDIR/bin/$name"
		chmod +x "$BATS_TEST_TMPDIR/bin/$name"
	done
	PATH="$BATS_TEST_TMPDIR/bin:$PATH"
}

@test "--wait 2h -- true and -w 5m -- true take the value; the value never runs" {
	fake_commands 2h 5m
	run "$RLWRAP" --wait 2h -- sh -c 'echo "child ran"'
	assert_success
	assert_output "child ran"
	run "$RLWRAP" -w 5m -- true
	assert_success
	run "$RLWRAP" -r 2 -- true
	assert_success
	[ ! -e "$BATS_TEST_TMPDIR/ran-2h" ] && [ ! -e "$BATS_TEST_TMPDIR/ran-5m" ] || fail "a value ran as a command"
	run "$RLWRAP" history
	assert_success
	refute_output --partial "2h"
	refute_output --partial "5m"
	assert_output --partial ": true"
}

@test "an optional value with no command after it names the attached form" {
	fake_commands 2h
	run "$RLWRAP" --wait 2h
	assert_failure 125
	assert_line --index 0 --partial "--wait=2h"
	run "$RLWRAP" -w 5m
	assert_failure 125
	assert_line --index 0 --partial "-w5m"
	[ ! -e "$BATS_TEST_TMPDIR/ran-2h" ] || fail "2h ran"
}

@test "a first operand like a duration, a number or a mistyped subcommand never runs" {
	fake_commands 2h 3
	run "$RLWRAP" statsu
	assert_failure 125
	assert_line --index 0 --partial "did you mean \`rlwrap status\`"
	run "$RLWRAP" 2h claude -p hi
	assert_failure 125
	assert_line --index 0 --partial "--wait=2h"
	run "$RLWRAP" 3 true
	assert_failure 125
	assert_line --index 0 --partial "--retry=3"
	[ ! -e "$BATS_TEST_TMPDIR/ran-2h" ] && [ ! -e "$BATS_TEST_TMPDIR/ran-3" ] || fail "a value ran as a command"
	# Nothing recorded: the store was never opened.
	[ ! -e "$RLWRAP_DB" ] || [ "$(db 'select count(*) from runs')" = 0 ] || fail "a run was recorded"
	# After --, the word is the command, whatever it looks like.
	run "$RLWRAP" -- 2h
	assert_success
	[ -e "$BATS_TEST_TMPDIR/ran-2h" ] || fail "-- 2h did not run 2h"
}

@test "a word two edits from a subcommand still runs when it is a command" {
	fake_commands statsu
	run "$RLWRAP" statsu
	assert_success
	[ -e "$BATS_TEST_TMPDIR/ran-statsu" ] || fail "statsu did not run"
}

@test "every command whose standard output cannot be written exits 1" {
	local cmd line want covered=" "
	export RLWRAP_TEST_NOW=$NOW
	cd "$BATS_TEST_TMPDIR" || fail "no test directory"
	printf '%s\n' '{"type":"result","is_error":true,"result":"rate limit"}' > limit.jsonl
	run "$RLWRAP" -- true
	assert_success
	# The status wanted, then one invocation, the command first.  wait
	# writes nothing on standard output, so it has nothing to fail.
	while read -r want line; do
		# shellcheck disable=SC2086
		run sh -c '"$0" "$@" > /dev/full' "$RLWRAP" $line
		[ "$status" -eq "$want" ] || fail "rlwrap $line >/dev/full exited $status: $output"
		[ "$want" = 0 ] || assert_output --partial "standard output"
		covered="$covered${line%% *} "
	done <<-'EOF2'
		1 --version
		1 --help
		1 help
		1 help trip
		1 trip --help
		1 classify-failure --json limit.jsonl
		1 classify-failure limit.jsonl
		1 record --family claude limit.jsonl
		1 history
		1 history --json
		1 usage
		1 metrics
		1 replay
		1 recover
		1 recover --json
		1 trip --for 1h claude
		1 status
		1 status --json
		1 status --short
		1 reset claude
		1 config show
		1 config check
		0 wait --timeout 1 claude
	EOF2
	for cmd in $(commands); do
		[ "$cmd" = run ] || [[ $covered == *" $cmd "* ]] || fail "$cmd is not checked against /dev/full"
	done
}

# complete WORD...: what bash completion offers for the last word (a
# stand-in for bash-completion's helpers; _command_offset says where the
# command starts).
complete() {
	cat > "$BATS_TEST_TMPDIR/complete-words.sh" <<-'EOF2'
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_filedir() { :; }; _command_offset() { echo "command at $1"; }; compopt() { :; }
		source "$1"; shift
		COMP_WORDS=(rlwrap "$@"); COMP_CWORD=$#; COMPREPLY=()
		_rlwrap
		printf '%s\n' "${COMPREPLY[@]}"
	EOF2
	bash "$BATS_TEST_TMPDIR/complete-words.sh" "$SRC/completions/rlwrap.bash" "$@"
}

@test "bash completion: filter keys and their values, --by values, nothing of ours after the command" {
	run complete history --filter ''
	assert_line "state="
	assert_line "reason="
	run complete recover --filter state=
	assert_line "state=running"
	assert_line "state=lost"
	run complete usage --by ''
	assert_line "family"
	assert_line "account"
	run complete -f claude claude ''
	assert_output "command at 3"
	run complete run -q codex --
	assert_output "command at 3"
	run complete -f claude --
	assert_line -- "--signal-file"
	run complete config ''
	assert_line "check"
	assert_line "show"
}

@test "the README's tour is what examples/demo prints" {
	local readme demo
	mkdir -p "$BATS_TEST_TMPDIR/t"
	readme=$(sed -n '/^<!-- tour: the output of examples\/demo -->$/,/^<!-- \/tour -->$/p' "$SRC/README.md" |
		sed '1d;$d;s/^    //')
	[ -n "$readme" ] || fail "no tour in README.md"
	demo=$(TZ=UTC TMPDIR="$BATS_TEST_TMPDIR/t" RLWRAP_TEST_NOW=1796058000 RLWRAP="$RLWRAP" \
		"$SRC/examples/demo" 2>&1 | sed "s|$BATS_TEST_TMPDIR/t/rlwrap-demo\.[A-Za-z0-9]*|/tmp/rlwrap-demo|g")
	demo=$(sed '1{/^$/d}' <<< "$demo")
	assert_equal "$demo" "$readme"
}

@test "the README's usage block lists every command" {
	local cmd usage
	usage=$(sed -n '/^## Usage$/,/^## /p' "$SRC/README.md")
	for cmd in $(commands); do
		[ "$cmd" = run ] && continue
		grep -qE "^    rlwrap $cmd( |$)" <<< "$usage" || fail "README's usage block lacks $cmd"
	done
	grep -q -- "--version" <<< "$usage" || fail "README's usage block lacks --version"
}
