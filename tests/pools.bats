#!/usr/bin/env bats
# Account pools: [family.claude] accounts = work personal, each
# [account.NAME] with the environment that selects it.  A spawn nothing
# pinned runs on the account that can run it now (not tripped, not in its
# reserve, the most headroom, then the soonest reset), with that account's
# environment set for the child; --account, $RLWRAP_ACCOUNT or the config
# directory already set pin one; every account held: refused with the
# earliest reset, or --wait waits for it.  The fake claude here logs the
# environment it got to $ENV_LOG.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW ENV_LOG="$BATS_TEST_TMPDIR/env.log"
	mkdir -p bin
	cat > bin/claude <<-'EOF2'
		#!/bin/sh
		echo "${CLAUDE_CONFIG_DIR:-none} ${TEAM:-none}" >> "$ENV_LOG"
		[ -z "${FAKE_STREAM:-}" ] || cat "$FAKE_STREAM"
		exit "${FAKE_EXIT:-0}"
	EOF2
	chmod +x bin/claude
	PATH="$BATS_TEST_TMPDIR/bin:$PATH"
	pool_config
}

# pool_config [EXTRA FAMILY LINE]: two accounts, each its own directory.
pool_config() {
	printf '%s\n' '[family.claude]' 'accounts = work personal' ${1:+"$1"} \
		'[account.work]' 'env = CLAUDE_CONFIG_DIR=~/.claude-work TEAM=w' \
		'[account.personal]' 'env = CLAUDE_CONFIG_DIR=~/.claude-personal' 'env = TEAM=p' > "$RLWRAP_CONFIG"
}

# The account the last child ran on, from the environment it got.
ran_on() { tail -1 "$ENV_LOG"; }
WORK="$BATS_TEST_TMPDIR/home/.claude-work w"
PERSONAL="$BATS_TEST_TMPDIR/home/.claude-personal p"

# warning_at FILE RESETS_AT UTILIZATION: a stream with one five_hour reading.
warning_at() {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-sonnet-4-5","session_id":"s"}' \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed_warning\",\"resetsAt\":$2,\"rateLimitType\":\"five_hour\",\"utilization\":$3,\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$1"
}

@test "pool: a free pool runs on its first account with that account's environment, stored with the run" {
	run --separate-stderr "$RLWRAP" -v -- claude -p x
	assert_success
	assert_equal "$(ran_on)" "$WORK"
	assert_equal "$stderr" "rlwrap: claude: account work, of the pool (work: free, 100% left; personal: free, 100% left)"
	assert_equal "$("$RLWRAP" history --json | jq -r '.[0].account')" work
}

@test "pool: two accounts, one tripped: the spawn runs on the other with its environment set" {
	"$RLWRAP" trip --for 1h claude@work > /dev/null
	run --separate-stderr "$RLWRAP" -v -- claude -p x
	assert_success
	assert_equal "$(ran_on)" "$PERSONAL"
	assert_equal "$stderr" "rlwrap: claude: account personal, of the pool (work: breaker open on usage-limit until 2026-11-30T13:00:00Z; personal: free, 100% left)"
	assert_equal "$("$RLWRAP" history --json | jq -r '.[0].account')" personal
	# without -v, not a word
	run --separate-stderr "$RLWRAP" -- claude -p y
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(ran_on)" "$PERSONAL"
}

@test "pool: both tripped: refused 75, the message and the signal file name the earlier reset" {
	"$RLWRAP" trip --for 2h claude@work > /dev/null
	"$RLWRAP" trip --for 30m claude@personal > /dev/null
	run -75 "$RLWRAP" --signal-file sig.json -- claude -p x
	[ ! -e "$ENV_LOG" ] || fail "a child ran: $(cat "$ENV_LOG")"
	assert_line --index 0 "rlwrap: claude: every account of the pool is held; personal is free first, at 2026-11-30T12:30:00Z"
	assert_line --index 1 --partial "rlwrap: refused: claude (scope *, account personal) open on usage-limit until 2026-11-30T12:30:00Z"
	assert_equal "$(jq -c '[.refused_by, .resets_at, .exit_code]' sig.json)" '["breaker","2026-11-30T12:30:00Z",75]'
	assert_equal "$(db "select account from runs where state = 'refused'")" personal
}

@test "pool: --wait with every account held waits for the earlier reset and runs on that account" {
	"$RLWRAP" trip --for 1h claude@work > /dev/null
	"$RLWRAP" trip --for 3s claude@personal > /dev/null
	local start
	start=$(date +%s%N)
	RLWRAP_POLL_MS=100 run --separate-stderr timeout 60 "$RLWRAP" --wait=10m -- claude -p x
	assert_success
	assert_equal "$(ran_on)" "$PERSONAL"
	[ "$(ms_since "$start")" -ge 2000 ] || fail "it did not wait for the reset"
	assert_equal "$(printf '%s\n' "$stderr" | head -1)" \
		"rlwrap: claude: every account of the pool is held; personal is free first, at 2026-11-30T12:00:03Z"
	assert_equal "$(printf '%s' "$stderr" | grep -c "waiting for claude (account personal)")" 1
}

@test "pool: --account, RLWRAP_ACCOUNT and the config directory pin one, even a tripped one" {
	"$RLWRAP" trip --for 1h claude@work > /dev/null
	run -75 "$RLWRAP" -a work -- claude -p x
	assert_output --partial "refused: claude (scope *, account work) open on usage-limit"
	RLWRAP_ACCOUNT=work run -75 "$RLWRAP" -- claude -p x
	CLAUDE_CONFIG_DIR="$HOME/.claude-work/" run -75 "$RLWRAP" -- claude -p x
	assert_output --partial "account work) open"
	[ ! -e "$ENV_LOG" ] || fail "a child ran: $(cat "$ENV_LOG")"
	# a pinned account of the pool gets its environment; one outside the pool runs as it is
	run --separate-stderr "$RLWRAP" -v -a personal -- claude -p x
	assert_success
	assert_equal "$stderr" "rlwrap: claude: account personal, pinned"
	assert_equal "$(ran_on)" "$PERSONAL"
	run "$RLWRAP" -a other -- claude -p x
	assert_success
	assert_equal "$(ran_on)" "none none"
}

@test "pool: a reading at 95% with reserve 10% on one account sends the spawn to the other" {
	pool_config 'reserve = 10%'
	warning_at hot 1796050800 0.95
	FAKE_STREAM=hot run "$RLWRAP" -a work -- claude -p x
	assert_success
	run --separate-stderr "$RLWRAP" -v -- claude -p next
	assert_success
	assert_equal "$(ran_on)" "$PERSONAL"
	assert_equal "$stderr" "rlwrap: claude: account personal, of the pool (work: in its reserve (five_hour) until 2026-11-30T15:00:00Z; personal: free, 100% left)"
	# an interactive spawn is not held by the reserve, and goes by headroom
	warning_at warm 1796047200 0.30
	FAKE_STREAM=warm run "$RLWRAP" -a personal -- claude -p x
	run "$RLWRAP" --priority high -- claude -p now
	assert_success
	assert_equal "$(ran_on)" "$PERSONAL"
}

@test "pool: the most headroom wins, then the sooner reset" {
	warning_at w60 1796050800 0.60
	warning_at p20 1796050800 0.20
	FAKE_STREAM=w60 "$RLWRAP" -q -a work -- claude -p x > /dev/null
	FAKE_STREAM=p20 "$RLWRAP" -q -a personal -- claude -p x > /dev/null
	run "$RLWRAP" -- claude -p next
	assert_success
	assert_equal "$(ran_on)" "$PERSONAL"
	# the same headroom: the window that resets first is spent first
	warning_at w20 1796047200 0.20
	FAKE_STREAM=w20 "$RLWRAP" -q -a work -- claude -p x > /dev/null
	run "$RLWRAP" -- claude -p next
	assert_success
	assert_equal "$(ran_on)" "$WORK"
}

@test "pool: recover re-runs a pooled run on its account with that account's environment again" {
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' > overloaded
	printf '%s\n' '{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > success
	"$RLWRAP" trip --for 1h claude@work > /dev/null
	FAKE_STREAM=overloaded run "$RLWRAP" -q -- claude -p task
	assert_equal "$(ran_on)" "$PERSONAL"
	"$RLWRAP" reset claude@work > /dev/null
	# the pool would now choose work; the re-run stays on personal, TEAM from the pool's config
	: > "$ENV_LOG"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" TEAM=stale run "$RLWRAP" recover --yes
	assert_success
	assert_output --partial "#1 re-ran as #2"
	assert_equal "$(cat "$ENV_LOG")" "$PERSONAL"
	assert_equal "$("$RLWRAP" history --json | jq -r '.[] | select(.id == 2) | .account')" personal
}

@test "pool: a bad accounts or env value is a config problem; the spawn runs without the pool" {
	printf '%s\n' '[family.claude]' 'accounts = work work' '[account.work]' 'env = CLAUDE_CONFIG_DIR=~/w' > "$RLWRAP_CONFIG"
	run "$RLWRAP" config check
	assert_failure
	assert_output --partial "accounts: 'work work' is not a list of up to 8 distinct account names"
	printf '%s\n' '[family.claude]' 'accounts = work personal' '[account.work]' 'env = CLAUDE_CONFIG_DIR=~/w' \
		'[account.personal]' 'env = 9X=1' 'enf = A=1' '[acount.spare]' > "$RLWRAP_CONFIG"
	run "$RLWRAP" config check
	assert_failure
	assert_output --partial "config:6: env: '9X=1' is not up to 8 of VAR=value (like CLAUDE_CONFIG_DIR=~/.claude-work); nothing of this line is set"
	assert_output --partial "config:7: unknown key 'enf' in [account.personal] (did you mean env?)"
	assert_output --partial "config:8: unknown section [acount.spare] (did you mean [account.spare]?)"
	assert_output --partial "config:2: accounts: 'personal' has no [account.personal] with an env; the default is used (no pool)"
	run --separate-stderr "$RLWRAP" -- claude -p x
	assert_success
	assert_equal "$(ran_on)" "none none"
	assert_equal "$("$RLWRAP" history --json | jq -r '.[0].account')" default
}
