#!/usr/bin/env bats
# rlwrap metrics: the state file as OpenMetrics text, with the
# names and labels rlwrap(1) documents: breakers, usage readings, slots,
# budgets, runs and refusals of the last 24 hours.  promtool (Debian's
# prometheus package) checks it where it is installed; the exposition's
# grammar is checked here either way.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW
	export FAKE_MARKER=/dev/null
}

# A store with something in every family: an open breaker, readings in a
# reserve, a refusal by it, a budget, finished runs.
populate() {
	printf '[family.claude]\nreserve = 10%%\nbudget = 50000 tokens per 5h\n' > "$RLWRAP_CONFIG"
	FAKE_STREAM="$FIXTURES/readings/claude-five-hour-warning.jsonl" exits 0 "$RLWRAP" -q -- claude -p x > /dev/null
	exits 75 "$RLWRAP" -q -- claude -p y 2> /dev/null
	"$RLWRAP" trip --for 1h 'codex@work' > /dev/null
}

# grammar FILE: every line a TYPE, a HELP or a sample of the family last
# typed, each family typed once, samples' label values quoted, "# EOF" last.
grammar() {
	awk '
		/^# TYPE / { if (seen[$3]++) { print "family twice: " $3; bad = 1 } fam = $3; next }
		/^# HELP / { if ($3 != fam) { print "HELP of another family: " $0; bad = 1 } next }
		/^# EOF$/ { eof = NR; next }
		/^#/ { print "stray comment: " $0; bad = 1; next }
		{
			name = $0; sub(/[{ ].*/, "", name)
			if (name != fam) { print "sample outside its family: " $0; bad = 1 }
			if ($0 !~ /^[a-z_][a-z0-9_]*(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? -?[0-9.e+-]+$/) { print "bad sample: " $0; bad = 1 }
		}
		END { if (eof != NR) { print "no # EOF at the end"; bad = 1 } exit bad }
	' "$1"
}

@test "metrics: every family typed and described once, samples well formed, # EOF last" {
	populate
	"$RLWRAP" metrics > out.prom
	run grammar out.prom
	assert_success
	assert_equal "$(grep -c '^# TYPE ' out.prom)" 13
}

@test "metrics: the figures of breakers, readings, reserve, budgets, runs and refusals" {
	populate
	run "$RLWRAP" metrics
	assert_success
	assert_line 'rlwrap_breaker_open{family="codex",account="work",scope="*",reason="usage-limit"} 1'
	assert_line 'rlwrap_breaker_reset_timestamp_seconds{family="codex",account="work",scope="*"} 1796043600'
	assert_line 'rlwrap_usage_used_ratio{family="claude",account="default",window="five_hour",model=""} 0.92'
	assert_line 'rlwrap_usage_reset_timestamp_seconds{family="claude",account="default",window="five_hour",model=""} 1796050800'
	assert_line 'rlwrap_usage_read_timestamp_seconds{family="claude",account="default",window="seven_day",model=""} 1796040000'
	assert_line 'rlwrap_usage_reserve_holding{family="claude",account="default",window="five_hour",model=""} 1'
	assert_line 'rlwrap_usage_reserve_holding{family="claude",account="default",window="seven_day",model=""} 0'
	assert_line --regexp '^rlwrap_usage_runway_seconds\{family="claude",account="default",window="five_hour",model=""\} 626\.0869'
	assert_line 'rlwrap_budget_limit{family="claude",account="default",unit="tokens",window_seconds="18000",model=""} 50000'
	assert_line --regexp '^rlwrap_budget_used\{family="claude",account="default",unit="tokens",window_seconds="18000",model=""\} [0-9]+$'
	assert_line 'rlwrap_runs_24h{family="claude",reason="none"} 1'
	assert_line 'rlwrap_refusals_24h{family="claude",by="reserve"} 1'
}

@test "metrics: an empty store has the families and no samples; a label value is escaped" {
	run "$RLWRAP" metrics
	assert_success
	assert_equal "$(grep -vc '^#' <<< "$output")" 0
	assert_line "# EOF"
	"$RLWRAP" trip --for 1h 'claude@we"ird\acct' > /dev/null
	run "$RLWRAP" metrics
	assert_line --partial 'account="we\"ird\\acct"'
}

@test "metrics: promtool check metrics accepts the output" {
	command -v promtool > /dev/null || skip "promtool is not installed (Debian: prometheus)"
	populate
	"$RLWRAP" metrics > out.prom
	run promtool check metrics < out.prom
	assert_success
}

@test "metrics: a running run and a waiting spawn are counted per key" {
	printf '[family.claude]\nmax_concurrent = 1\n' > "$RLWRAP_CONFIG"
	printf '#!/bin/sh\ntouch "$1.started"\nwhile [ ! -f "$1.go" ]; do sleep 0.1; done\n' > hold
	chmod +x hold
	"$RLWRAP" -q -f claude -- ./hold one > /dev/null 2>&1 &
	for _ in $(seq 300); do [ -f one.started ] && break; sleep 0.1; done
	[ -f one.started ] || fail "the first run never started"
	"$RLWRAP" -q -f claude -w5m -- ./hold two > /dev/null 2>&1 &
	for _ in $(seq 300); do
		"$RLWRAP" metrics | grep -q '^rlwrap_slots_waiting{family="claude",account="default"} 1$' && break
		sleep 0.1
	done
	run "$RLWRAP" metrics
	assert_line 'rlwrap_slots_in_use{family="claude",account="default"} 1'
	assert_line 'rlwrap_slots_waiting{family="claude",account="default"} 1'
	touch one.go two.go
	wait
}

@test "examples/metrics: the cron line and the service's command leave a whole textfile" {
	local src line cmd
	src=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	populate
	mkdir textfiles
	line=$(grep -v '^#' "$src/examples/metrics/crontab")
	line=$(sed 's/^\([^ ]* \)\{5\}//' <<< "$line")
	PATH="$(dirname "$RLWRAP"):$PATH" sh -c "${line//\/var\/lib\/prometheus\/node-exporter/$PWD/textfiles}"
	run grammar textfiles/rlwrap.prom
	assert_success
	rm textfiles/rlwrap.prom
	cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$src/examples/metrics/rlwrap-metrics.service")
	[ -n "$cmd" ] || fail "no ExecStart in the service"
	TEXTFILE_DIR=$PWD/textfiles PATH="$(dirname "$RLWRAP"):$PATH" sh -c "$cmd"
	run grammar textfiles/rlwrap.prom
	assert_success
	assert_equal "$(ls textfiles)" rlwrap.prom
}
