#!/usr/bin/env bats
# Adaptive concurrency ([family.NAME] max_concurrent = auto [LO..HI]): the
# key's limit lives in the store, halves on a rate limit or an overload
# and grows by one after a clean window.  Against tests/fake-provider with
# FAKE_INFLIGHT, which answers 429 beyond K requests at once.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	provider_setup 100000000 60
}

teardown() {
	kill_background
}

# eight OPTIONS...: 8 runs at once of 0.5 s each; FAILED counts those that
# did not exit 0.
eight() {
	local i pids=()
	for i in 1 2 3 4 5 6 7 8; do
		"$RLWRAP" "$@" -f claude -- "$PROVIDER" 100 0.5 > "out.$i" 2> "err.$i" &
		pids+=($!)
	done
	FAILED=0
	for i in "${pids[@]}"; do wait "$i" || FAILED=$((FAILED + 1)); done
}

@test "config: max_concurrent = auto, auto LO..HI; bad bounds name the form" {
	printf '[family.claude]\nmax_concurrent = auto\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	printf '[family.claude]\nmax_concurrent = auto 2..8\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	printf '[family.claude]\nmax_concurrent = auto 8..2\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "max_concurrent: 'auto 8..2' is not auto or auto LO..HI (1 <= LO <= HI <= 100000)"
}

@test "auto starting above what the provider takes: the 429s stop once the limit settles, status shows it [slow]" {
	export FAKE_INFLIGHT=3
	# the 429s trip no breaker here: the limit alone is under test
	printf '[breaker]\ntrip_on = usage-limit\n[family.claude]\nmax_concurrent = auto 1..8\n' > "$RLWRAP_CONFIG"
	local round hits=1 total=0
	# rounds of eight until one has no 429 (each round's 429s halve the limit)
	for round in 1 2 3 4; do
		: > "$FAKE_LOG"
		eight --retry=20
		assert_equal "$FAILED" 0
		hits=$(count_429)
		total=$((total + hits))
		echo "# round $round: $hits 429s, limit $(db 'select limit_now from adaptive_limits') (load $(cut -d' ' -f1 /proc/loadavg))" >&3
		[ "$hits" -eq 0 ] && break
	done
	[ "$total" -ge 1 ]
	assert_equal "$hits" 0
	assert_equal "$(grep -c '^ok ' "$FAKE_LOG")" 8
	run "$RLWRAP" status --json
	assert_success
	echo "$output" | jq -e '.adaptive_limits | length == 1 and (.[0] | .family == "claude"
		and .account == "default" and .limit >= 1 and .limit <= 3 and (.why | test("^halved from")))'
	local settled
	settled=$(echo "$output" | jq '.adaptive_limits[0].limit')
	# settled: eight more runs, still no 429
	: > "$FAKE_LOG"
	eight --retry=20
	assert_equal "$FAILED" 0
	assert_equal "$(count_429)" 0
	run "$RLWRAP" status
	assert_success
	assert_line --regexp "^max_concurrent auto $settled for claude \(account default\): halved from [0-9]+ on a rate limit or overload, at .*; [0-9]+ clean runs since$"
}

@test "auto grows by one after a clean window, within its bounds; once per congestion event down [slow]" {
	printf '[family.claude]\nmax_concurrent = auto 1..3\n' > "$RLWRAP_CONFIG"
	export RLWRAP_ADAPTIVE_WINDOW_MS=1
	db_limit() { db "select limit_now from adaptive_limits"; }
	# no row yet: the upper bound; a clean run at the upper bound keeps it
	"$RLWRAP" --wait=30s -f claude -- "$PROVIDER" 10 0 > /dev/null
	assert_equal "$(db_limit)" 3
	# a 429 halves it (3 -> 1)
	export FAKE_INFLIGHT=0
	run "$RLWRAP" -f claude -- "$PROVIDER" 10 0
	assert_equal "$(db_limit)" 1
	unset FAKE_INFLIGHT
	# at 1, one clean run is the window: 2; at 2, two
	"$RLWRAP" --wait=30s -f claude -- "$PROVIDER" 10 0 > /dev/null
	assert_equal "$(db_limit)" 2
	"$RLWRAP" --wait=30s -f claude -- "$PROVIDER" 10 0 > /dev/null
	assert_equal "$(db_limit)" 2
	"$RLWRAP" --wait=30s -f claude -- "$PROVIDER" 10 0 > /dev/null
	assert_equal "$(db_limit)" 3
	run "$RLWRAP" status
	assert_line --regexp "^max_concurrent auto 3 for claude \(account default\): grew from 2 after a clean window"
}
