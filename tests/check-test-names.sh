#!/bin/sh
# check-test-names.sh SRCDIR: prints every test name used more than once
# across the bats suites (@test "...") and the cmocka programs
# (cmocka_unit_test(...)) under SRCDIR/tests, and exits 1 when there is one.
# A name says what broke; two tests of one name make a failure ambiguous.
dir=${1:-.}/tests
dups=$(
	{
		sed -n 's/^@test "\(.*\)" {$/\1/p' "$dir"/*.bats
		sed -n 's/.*cmocka_unit_test(\([A-Za-z0-9_]*\)).*/\1/p' "$dir"/test_*.c
	} | sort | uniq -d
)
[ -z "$dups" ] && exit 0
printf 'test name used more than once: %s\n' "$dups" >&2
exit 1
