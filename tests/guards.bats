#!/usr/bin/env bats
# The guards against what a path, the stream or a shared store can say
# (docs/design.md section 13): output files never land on
# rlwrap's own files nor hang on a FIFO; stream values reach hooks, JSON
# and files sanitised; store addresses never show a password; usage sums
# saturate.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW FAKE_RECORD="$BATS_TEST_TMPDIR/record"
	printf '[family.claude]\ncommands = record-args\n' > "$RLWRAP_CONFIG"
	printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > success
}

# runs_stored: how many runs the store has.
runs_stored() {
	db 'select count(*) from runs'
}

# ---- output files ----

@test "guard: --signal-file naming the state file, its -wal or a link to it is refused; the run goes on" {
	sqlite_only
	FAKE_STREAM=success "$RLWRAP" -q -- record-args first > /dev/null
	ln -s "$RLWRAP_DB" db-link
	touch "$RLWRAP_DB-wal"
	for target in "$RLWRAP_DB" "$RLWRAP_DB-wal" db-link; do
		FAKE_STREAM=success FAKE_EXIT=4 run -4 "$RLWRAP" --signal-file "$target" -- record-args again
		assert_line --partial "rlwrap's own file (the state file"
		assert_line --partial '"result":"ok"'
	done
	[ -L db-link ]
	assert_equal "$(runs_stored)" 4
	run sqlite3 "$RLWRAP_DB" 'pragma integrity_check'
	assert_output ok
}

@test "guard: the server store's journal, the config and the key file are never written" {
	local dir="$XDG_STATE_HOME/rlwrap"
	mkdir -p "$dir"
	for f in journal.db journal.db-wal key; do echo "keep $f" > "$dir/$f"; done
	for target in "$dir/journal.db" "$dir/journal.db-wal" "$dir/key" "$RLWRAP_CONFIG"; do
		run "$RLWRAP" --raw-stream "$target" -- echo child-ran
		assert_success
		assert_line child-ran
		assert_line --partial "rlwrap's own file (the"
		run "$RLWRAP" --signal-file "$target" -- echo child-ran
		assert_success
		assert_line --partial "rlwrap's own file (the"
	done
	for f in journal.db journal.db-wal key; do assert_equal "$(cat "$dir/$f")" "keep $f"; done
	grep -q record-args "$RLWRAP_CONFIG"
}

@test "guard: a FIFO as --signal-file or --raw-stream is refused at once, reader or not" {
	mkfifo fifo
	run -3 timeout 20 "$RLWRAP" --signal-file fifo -- sh -c 'echo out; exit 3'
	assert_line out
	assert_line --partial "fifo: not a regular file (a FIFO): refused"
	run -3 timeout 20 "$RLWRAP" --raw-stream fifo -- sh -c 'echo out; exit 3'
	assert_line out
	# with a reader waiting, the same
	timeout 20 cat fifo > read.out &
	local reader=$!
	run -3 timeout 20 "$RLWRAP" --signal-file fifo -- sh -c 'echo out; exit 3'
	assert_line --partial "(a FIFO): refused"
	exec 9> fifo
	exec 9>&-
	exits 0 wait "$reader"
	[ ! -s read.out ]
}

@test "guard: /dev/null and an ordinary file are still written" {
	run "$RLWRAP" --signal-file /dev/null --raw-stream raw -- echo hello
	assert_success
	assert_output hello
	assert_equal "$(cat raw)" hello
}

# ---- values from the stream ----

# no_hidden TEXT: fails when TEXT holds a C0 control (a newline included),
# DEL, a C1 control, U+202E or U+2028, raw or as a JSON escape of one.
no_hidden() {
	if printf '%s' "$1" | LC_ALL=C grep -q $'[\x01-\x1f\x7f]\|\xc2[\x80-\x9f]\|\xe2\x80[\xa8\xa9\xaa-\xae]'; then
		fail "hidden characters in: $(printf '%s' "$1" | od -c | head -10)"
	fi
	if printf '%s' "$1" | grep -qi '\\u00[01][0-9a-f]\|\\u009b\|\\u202e\|\\u2028\|\\n'; then
		fail "an escaped control in: $1"
	fi
}

@test "sanitiser: a QuotaFailure model reaches a hook's RLWRAP_SCOPE without its newline, ESC or controls" {
	printf '#!/bin/sh\nprintf "%%s" "$RLWRAP_SCOPE" > "%s/scope.out"\n' "$BATS_TEST_TMPDIR" > scope-hook
	chmod +x scope-hook
	printf '[hooks]\non_trip = %s/scope-hook\n' "$PWD" > "$RLWRAP_CONFIG"
	printf '%s\n' '{"error":{"code":429,"message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"m","quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaDimensions":{"location":"global","model":"evil\n$(touch pwned)\u001b[2J\u009b\u202e\u2028x"},"quotaValue":"1"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"}]}}' > quota
	exits 0 "$RLWRAP" -q -- cat quota > /dev/null
	for _ in $(seq 100); do [ -s scope.out ] && break; sleep 0.1; done
	assert_equal "$(cat scope.out)" 'evil $(touch pwned)[2Jx'
	[ ! -e pwned ]
	run "$RLWRAP" status --json
	no_hidden "$output"
}

@test "sanitiser: classify-failure --json and --signal-file drop C1, bidi and line separators from model and limit_type" {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude\u009b-opus\u202e-4\u2028-6\u2029","session_id":"s"}' \
		'{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796061600,"rateLimitType":"five\u009b_hour\u202e\u2028\u200b","isUsingOverage":false}}' \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > hostile
	run "$RLWRAP" classify-failure --json < hostile
	no_hidden "$output"
	assert_equal "$(printf '%s' "$output" | jq -r '.model + "|" + .limit_type')" "claude-opus-4-6|five_hour"
	FAKE_STREAM=hostile exits 0 "$RLWRAP" -q --signal-file sig.json -- claude -p x > /dev/null
	no_hidden "$(cat sig.json)"
	assert_equal "$(jq -r '.model + "|" + .limit_type' sig.json)" "claude-opus-4-6|five_hour"
}

@test "sanitiser: a breaker row another host wrote reaches the refusal's --signal-file and a hook sanitised" {
	printf '#!/bin/sh\nprintf "%%s" "$RLWRAP_MESSAGE" > "%s/message.out"\n' "$BATS_TEST_TMPDIR" > msg-hook
	chmod +x msg-hook
	printf '[family.claude]\ncommands = record-args\n[hooks]\non_close = %s/msg-hook\n' "$PWD" > "$RLWRAP_CONFIG"
	"$RLWRAP" trip --for 1h claude > /dev/null
	db "update breakers set last_message = 'limit' || char(8238) || char(10) || 'forged' || char(155) || char(27) || '[2J'"
	run -75 "$RLWRAP" --signal-file sig.json -- record-args x
	no_hidden "$(cat sig.json)"
	assert_equal "$(jq -r .message sig.json)" 'limit forged[2J'
	exits 0 "$RLWRAP" reset claude > /dev/null
	for _ in $(seq 100); do [ -s message.out ] && break; sleep 0.1; done
	assert_equal "$(cat message.out)" 'limit forged[2J'
}

# ---- store addresses ----

@test "a percent-encoded PostgreSQL password is masked in messages, the journal's server and status --json" {
	export RLWRAP_DB='postgresql://fleet:p%40ss%3Aw%2Frd%231@127.0.0.1:1/db?connect_timeout=1'
	run "$RLWRAP" status --json
	if [[ $output == *"not in this build"* ]]; then skip "built without PostgreSQL"; fi
	assert_output --partial 'postgresql://fleet:***@127.0.0.1:1/db'
	run "$RLWRAP" status
	assert_output --partial "store: postgresql://fleet:***@127.0.0.1:1/db?connect_timeout=1 did not answer"
	run "$RLWRAP" -- echo child-ran
	assert_line child-ran
	for form in 'p%40ss%3Aw%2Frd%231' 'p@ss:w/rd#1' 'p%40ss' 'w%2Frd'; do
		run "$RLWRAP" status --json
		refute_output --partial "$form"
		run "$RLWRAP" -- true
		refute_output --partial "$form"
	done
	export RLWRAP_DB='postgresql://fleet@127.0.0.1:1/db?connect_timeout=1&password=s3cr%20et'
	run "$RLWRAP" status
	assert_output --partial 'password=***'
	refute_output --partial 's3cr'
}

# ---- usage ----

@test "usage: token sums held at INT64_MAX and cost sums at 1e15, with one warning; history and usage stay numbers" {
	local max=9223372036854775807
	printf '%s\n' \
		"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"usage\":{\"input_tokens\":$max,\"output_tokens\":$max},\"total_cost_usd\":1e308}" \
		"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"usage\":{\"input_tokens\":$max,\"output_tokens\":1},\"total_cost_usd\":1e308}" > big
	run "$RLWRAP" -f claude -- cat big
	assert_success
	assert_line --partial "usage went past what a run reports: held at the maximum"
	assert_equal "$(db 'select input_tokens, output_tokens from runs')" "$max|$max"
	assert_equal "$(db 'select cast(cost_usd as int) from runs')" 1000000000000000
	run "$RLWRAP" history --json
	assert_equal "$(printf '%s' "$output" | jq '.[0].cost_usd')" 1000000000000000
	[ "$(printf '%s' "$output" | jq '.[0].input_tokens > 0')" = true ]
	# a second run: the sums over runs hold too
	"$RLWRAP" -q -f claude -- cat big > /dev/null 2>&1
	run "$RLWRAP" usage
	assert_line --partial "tokens $max in $max out, \$1000000000000000.00"
	refute_output --partial inf
	refute_output --partial -- "-2 in"
}

# ---- redaction ----

@test "redaction: a token-only URL, PASS= and *_PASS=, --bearer and a JWT's signature are stored redacted" {
	local jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c
	FAKE_STREAM=success exits 0 "$RLWRAP" -q -f claude -- record-args \
		https://abcdefghijklmnopqrstuvwxyz@github.com/x.git PASS=hunter2 DB_PASS=hunter3 \
		--bearer b3arer-value "Authorization: Bearer $jwt" "$jwt" > /dev/null
	run db 'select argv from runs'
	assert_success
	for secret in abcdefghijklmnop hunter2 hunter3 b3arer-value SflKxwRJSMeKKF2QT4fw; do
		refute_output --partial "$secret"
	done
	assert_output --partial 'https://[redacted]@github.com/x.git'
	assert_output --partial 'PASS=[redacted]'
	assert_output --partial '"--bearer","[redacted]"'
}
