#!/usr/bin/env bats
# rlwrap classify-failure: the command line around the classifier.  The
# per-family golden cases are checked in process by tests/test_fixtures.

load helpers

setup() {
	common_setup
	export CAP="$BATS_TEST_TMPDIR/cap.jsonl"
	cat > "$CAP" <<'JSONL'
{"type":"system","subtype":"init","cwd":"/w","session_id":"s","model":"claude-opus-4-6","apiKeySource":"none","claude_code_version":"2.1.219"}
{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":1000,"error_status":529,"error":"overloaded","session_id":"s"}
{"type":"assistant","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"Looking."}]},"session_id":"s"}
{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796063400,"rateLimitType":"five_hour","overageStatus":"rejected","isUsingOverage":false},"session_id":"s"}
{"type":"assistant","message":{"id":"m2","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"You've hit your session limit · resets 6:30pm (UTC)"}]},"error":"rate_limit","session_id":"s"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit · resets 6:30pm (UTC)","terminal_reason":"api_error","session_id":"s"}
JSONL
}

@test "the JSON verdict has exactly the docs/design.md fields, in order" {
	run "$RLWRAP" classify-failure --json --now "$NOW" --exit-code 1 "$CAP"
	assert_success
	run jq -r 'keys_unsorted | join(",")' <<< "$output"
	assert_output "reason,confidence,terminal,family,model,scope,http_status,error_type,limit_type,retry_after_secs,resets_at,reset_source,message,line,exit_code,after_output"
}

@test "the design's example: a session limit with a provider reset" {
	run "$RLWRAP" classify-failure --json --now 2026-11-30T12:00:00Z --exit-code 1 "$CAP"
	assert_success
	run jq -c '[.reason, .confidence, .family, .limit_type, .http_status, .error_type, .resets_at, .retry_after_secs, .reset_source, .line, .exit_code, .after_output]' <<< "$output"
	assert_output '["usage-limit",1,"claude","five_hour",429,"rate_limit","2026-11-30T18:30:00Z",23400,"provider",6,1,true]'
}

@test "the human line names reason, confidence, family, window and reset" {
	run "$RLWRAP" classify-failure --now 2026-11-30T14:00:00Z "$CAP"
	assert_success
	assert_output "usage-limit (confidence 1.0): claude five_hour, http 429, resets 2026-11-30 18:30 UTC (in 4h30m)"
}

@test "--all prints every signal, one per line, the terminal verdict last" {
	run "$RLWRAP" classify-failure --all --json --now "$NOW" "$CAP"
	assert_success
	[ "${#lines[@]}" -ge 4 ]
	run jq -s -c '[.[] | .terminal] | (.[-1] == true) and (.[:-1] | all(. == false))' <<< "$output"
	assert_output true
	run "$RLWRAP" classify-failure --all --json --now "$NOW" "$CAP"
	run jq -s -r '.[0].reason' <<< "$output"
	assert_output "overloaded"
}

@test "stdin is read when no file is named, and - means stdin" {
	run bash -c '"$RLWRAP" classify-failure --json --now "$NOW" < "$CAP" | jq -r .reason'
	assert_output "usage-limit"
	run bash -c 'cat "$CAP" | "$RLWRAP" classify-failure --json --now "$NOW" - | jq -r .reason'
	assert_output "usage-limit"
}

@test "several files give one verdict each, in order" {
	printf '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}\n' > "$BATS_TEST_TMPDIR/ok.jsonl"
	run "$RLWRAP" classify-failure --json --now "$NOW" "$CAP" "$BATS_TEST_TMPDIR/ok.jsonl"
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	run jq -s -r 'map(.reason + "/" + .family) | join(" ")' <<< "$output"
	assert_output "usage-limit/claude none/codex"
}

@test "--family overrides detection" {
	run "$RLWRAP" classify-failure --json --family cursor --now "$NOW" "$CAP"
	run jq -r .family <<< "$output"
	assert_output "cursor"
}

@test "exit status alone: exit-nonzero at 0.2, or none" {
	run "$RLWRAP" classify-failure --json --exit-code 3 /dev/null
	run jq -c '[.reason, .confidence, .exit_code, .line]' <<< "$output"
	assert_output '["exit-nonzero",0.2,3,null]'
	run "$RLWRAP" classify-failure --json --exit-code 0 /dev/null
	run jq -r .reason <<< "$output"
	assert_output "none"
}

@test "random bytes never crash it and give valid JSON" {
	head -c 2000000 /dev/urandom > "$BATS_TEST_TMPDIR/junk"
	run "$RLWRAP" classify-failure --json --exit-code 0 "$BATS_TEST_TMPDIR/junk"
	assert_success
	run jq -r .reason <<< "$output"
	assert_success
}

@test "a rate_limit_event injected mid-line is still found" {
	{
		printf '{"type":"system","subtype":"init","model":"claude-sonnet-4-5"}\n'
		printf '{"type":"assistant","message":{"model":"claude-sonnet-4-5","content":[{"type":"text","text":"hal'
		printf '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796050000,"rateLimitType":"seven_day"}}\n'
		printf 'f done"}]}}\n'
	} > "$BATS_TEST_TMPDIR/inject.jsonl"
	run "$RLWRAP" classify-failure --json --now "$NOW" "$BATS_TEST_TMPDIR/inject.jsonl"
	run jq -c '[.reason, .limit_type, .resets_at, .reset_source]' <<< "$output"
	assert_output '["usage-limit","seven_day","2026-11-30T14:46:40Z","provider"]'
}

@test "a 5 MiB line is cut, and the record after it still decides" {
	{
		printf '{"type":"system","subtype":"init","model":"claude-opus-4-6"}\n'
		head -c 5242880 /dev/zero | tr '\0' 'x'
		printf '\n{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"Overloaded"}\n'
	} > "$BATS_TEST_TMPDIR/long.jsonl"
	run "$RLWRAP" classify-failure --json "$BATS_TEST_TMPDIR/long.jsonl"
	run jq -c '[.reason, .http_status, .line]' <<< "$output"
	assert_output '["overloaded",529,3]'
}

@test "confidence prints as the ladder writes it (0.8, 0.5, 0.2), not as a 17-digit double" {
	printf '%s\n' '{"error":{"message":"Provider returned error","code":429}}' > "$BATS_TEST_TMPDIR/s.jsonl"
	run "$RLWRAP" classify-failure --json --now "$NOW" --exit-code 1 "$BATS_TEST_TMPDIR/s.jsonl"
	assert_success
	assert_output --partial '"confidence":0.8,'
	printf 'Error: monthly limit reached\n' > "$BATS_TEST_TMPDIR/t.jsonl"
	run "$RLWRAP" classify-failure --json --now "$NOW" --exit-code 1 "$BATS_TEST_TMPDIR/t.jsonl"
	assert_output --partial '"confidence":0.5,'
	run "$RLWRAP" classify-failure --json --now "$NOW" --exit-code 1 /dev/null
	assert_output --partial '"confidence":0.2,'
}

@test "a long synthetic record is read whether its model comes before or after the long part" {
	pad=$(printf '%3000s' '' | tr ' ' x)
	init='{"type":"system","subtype":"init","cwd":"/w","session_id":"s","model":"claude-opus-4-6"}'
	said='{"type":"assistant","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"Looking."}]},"session_id":"s"}'
	text='"content":[{"type":"text","text":"You'"'"'ve hit your session limit · resets 6:30pm (UTC)"}]'
	for msg in "{\"id\":\"m2\",\"model\":\"<synthetic>\",\"role\":\"assistant\",$text,\"container\":\"$pad\"}" \
	    "{\"id\":\"m2\",\"container\":\"$pad\",\"role\":\"assistant\",$text,\"model\":\"<synthetic>\"}"; do
		printf '%s\n%s\n{"type":"assistant","message":%s,"session_id":"s"}\n' "$init" "$said" "$msg" > "$BATS_TEST_TMPDIR/long.jsonl"
		run "$RLWRAP" classify-failure --now 2026-11-30T14:00:00Z --exit-code 1 "$BATS_TEST_TMPDIR/long.jsonl"
		assert_success
		assert_output "usage-limit (confidence 0.5): claude five_hour, resets 2026-11-30 18:30 UTC (in 4h30m)"
	done
}
