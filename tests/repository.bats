#!/usr/bin/env bats
# The repository stands on its own: man pages lint clean, shell scripts
# shellcheck clean, no test name used twice, and nothing in code, docs, man pages or tests points outside it.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	cd "$BATS_TEST_TMPDIR" || return 1
}

@test "the man pages are mandoc -Tlint clean" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	for page in "$SRC"/man/*.[0-9]; do
		run mandoc -Tlint -Wwarning "$page"
		assert_success
		assert_output ""
	done
}

@test "the shell scripts are shellcheck clean (warnings and above)" {
	command -v shellcheck >/dev/null || skip "shellcheck not installed (Debian: shellcheck)"
	run shellcheck -S warning "$SRC"/bootstrap "$SRC"/.ci/* "$SRC"/bench/*.sh "$SRC"/tests/*.bash \
		"$SRC"/tests/pg-server "$SRC"/tests/pg-pool "$SRC"/fuzz/*.sh "$SRC"/examples/demo
	assert_success
}

@test "no call cycle among lib/ modules but inside the classifier and one backend (nm)" {
	run python3 "$SRC/tests/check-lib-cycles.py" "$TESTBIN/.."
	assert_success
	assert_output ""
}

@test "no test name is used twice, in bats suites or unit tests" {
	run "$SRC/tests/check-test-names.sh" "$SRC"
	assert_success
	# And the check does find one: two suites sharing a name.
	mkdir -p copy/tests
	printf '@test "same" {\n}\n' > copy/tests/a.bats
	printf '@test "same" {\n}\n' > copy/tests/b.bats
	printf 'cmocka_unit_test(only_once),\n' > copy/tests/test_x.c
	run "$SRC/tests/check-test-names.sh" copy
	assert_failure 1
	assert_output "test name used more than once: same"
}

@test "nothing points outside the repository" {
	# A sibling checkout, the machine it was written on, or the design
	# document under its old name outside docs/.
	run grep -rnIE '\.\./shared|/work/|(^|[^/a-z])DESIGN\.md' \
		--exclude-dir=.git --exclude-dir=autom4te.cache --exclude='*.log' --exclude='*.trs' \
		--exclude=repository.bats \
		"$SRC"/cmd "$SRC"/lib "$SRC"/tests "$SRC"/docs "$SRC"/man "$SRC"/bench "$SRC"/fuzz \
		"$SRC"/completions "$SRC"/examples "$SRC"/README.md "$SRC"/CONTRIBUTING.md \
		"$SRC"/fixtures/README.md "$SRC"/Makefile.am "$SRC"/configure.ac
	assert_failure 1
	assert_output ""
}
