#!/bin/sh
# Prints one line "N passed, N failed" from the automake .trs files of the
# tests named on the command line (every TAP test point counts once).
pass=0 fail=0
for t in "$@"; do
	trs="${t%.bats}.trs"
	[ -f "$trs" ] || { fail=$((fail + 1)); continue; }
	p=$(grep -c '^:test-result: \(PASS\|XFAIL\|SKIP\)' "$trs")
	f=$(grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$trs")
	pass=$((pass + p)) fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
