#!/usr/bin/env bats
# Hostile streams, shared machines and `recover --yes`: what
# came from outside is shown, never obeyed; argv is replayed exactly or not
# at all; a re-run keeps its identity and runs once; the files rlwrap
# writes and reads are checked (docs/design.md section 13).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	export RLWRAP_TEST_NOW=$NOW RLWRAP_RECOVER_GAP_MS=0 FAKE_RECORD="$BATS_TEST_TMPDIR/record"
	printf '[family.claude]\ncommands = record-args\n' > "$RLWRAP_CONFIG"
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","api_error_status":529}' > overloaded
	printf '%s\n' \
		'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"ok"}' > success
}

# no_terminal_controls TEXT: fails when TEXT holds an ESC, BEL, CR, a C1
# control or a bidirectional override, or a line that starts like ours.
no_terminal_controls() {
	if printf '%s' "$1" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then
		fail "control characters in: $(printf '%s' "$1" | od -c | head -20)"
	fi
	if printf '%s' "$1" | grep -q $'\xe2\x80\xae\|\xc2\x9b'; then
		fail "a bidirectional override or C1 control in: $1"
	fi
	if printf '%s\n' "$1" | grep -q '^rlwrap: forged'; then
		fail "a forged rlwrap line in: $1"
	fi
}

@test "stream, argv, cwd and account are shown visibly by history, recover, status and the refusal" {
	local forged='opus\u001b]0;T\u0007\u001b[31mRED\nrlwrap: forged'
	printf '%s\n' \
		"{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"$forged\",\"session_id\":\"s\"}" \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$((T0 + 3600)),\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > forged
	mkdir $'dir\e[2J\xe2\x80\xae'
	(cd $'dir\e[2J\xe2\x80\xae' && FAKE_STREAM=../forged run "$RLWRAP" --force -a $'acct\e]0;x\a' -- record-args $'arg\e[31m' \
		&& no_terminal_controls "$output")
	run "$RLWRAP" history
	assert_success
	no_terminal_controls "$output"
	# the stream's model lost its controls where it was read (the one sanitiser)
	assert_output --partial 'claude/opus]0;T[31mRED rlwrap: forged'
	assert_output --partial 'dir\e[2J<U+202E>'
	assert_output --partial 'record-args arg\e[31m'
	run "$RLWRAP" recover
	no_terminal_controls "$output"
	assert_output --partial 'dir\e[2J<U+202E>'
	run "$RLWRAP" status
	no_terminal_controls "$output"
	assert_output --partial 'claude@acct\e]0;x\x07 '
	run "$RLWRAP" history --json
	no_terminal_controls "$output"
	echo "$output" | jq -e '.[0].cwd | endswith("dir\u001b[2J\u202e")'
	run -75 "$RLWRAP" -a $'acct\e]0;x\a' -- record-args again
	no_terminal_controls "$output"
	assert_output --partial 'refused: claude (scope *, account acct\e]0;x\x07) open on usage-limit'
}

# wrapped STREAM DIR [ARGS...]: a wrapped run (forced past any breaker) in DIR.
wrapped() {
	local stream=$1 dir=$2
	shift 2
	(cd "$dir" && FAKE_STREAM="$BATS_TEST_TMPDIR/$stream" "$RLWRAP" -q --force "${WRAP_OPTS[@]}" -- record-args "$@" > /dev/null) || true
}
WRAP_OPTS=()

@test "recover --yes replays an argv that is not UTF-8 byte for byte" {
	mkdir proj
	wrapped overloaded proj $'keep-\xe9' 'a?b'
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover
	assert_output --partial 'record-args keep-\xE9 a?b'
	assert_output --partial "-> run now"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_equal "$(cat "$FAKE_RECORD")" "$BATS_TEST_TMPDIR/proj "$'keep-\xe9 a?b'
}

@test "a run stored before exact argv, with a '?' that may stand for a lost byte, is not replayed" {
	mkdir proj
	wrapped overloaded proj 'keep-?'
	wrapped overloaded proj plain
	# What a store of schema 2 held: the lossy JSON only.
	sqlite3 "$RLWRAP_DB" "UPDATE runs SET argv_exact = NULL"
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover --json
	echo "$output" | jq -e '[.[] | select(.id == 2) | .action] == ["run"]'
	echo "$output" | jq -e '.[] | select(.id == 1) | .action == "skip" and
		(.action_reason | startswith("skip: stored before rlwrap kept exact commands"))'
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	assert_equal "$(cat "$FAKE_RECORD")" "$BATS_TEST_TMPDIR/proj plain"
}

@test "recover --yes re-runs with the original's family, model and account" {
	mkdir proj
	WRAP_OPTS=(-a work -m opus)
	wrapped overloaded proj task
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limited","api_error_status":429}' > rate
	FAKE_STREAM="$BATS_TEST_TMPDIR/rate" run "$RLWRAP" recover --yes
	assert_failure
	assert_output --partial "#1 re-ran as #2"
	run "$RLWRAP" history --json
	echo "$output" | jq -e '.[] | select(.id == 2) | .account == "work" and .model == "opus" and .family == "claude"'
	# the re-run's failure tripped the original's key, not the default account's
	assert_equal "$("$RLWRAP" status --json | jq -r '[.breakers[] | .account] | join(",")')" work
}

@test "two recover --yes at once run each failed run once" {
	mkdir proj
	printf '#!/bin/sh\nsleep 1\nexec record-args "$@"\n' > slow-args
	chmod +x slow-args
	printf '[family.claude]\ncommands = record-args, slow-args\n' > "$RLWRAP_CONFIG"
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q --force -- "$BATS_TEST_TMPDIR/slow-args" one > /dev/null)
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q --force -- "$BATS_TEST_TMPDIR/slow-args" two > /dev/null)
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" "$RLWRAP" recover --yes > /dev/null 2> first.err &
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" "$RLWRAP" recover --yes > /dev/null 2> second.err &
	wait
	cat first.err second.err
	run sort "$FAKE_RECORD"
	assert_output "$BATS_TEST_TMPDIR/proj one
$BATS_TEST_TMPDIR/proj two"
	grep -q "a re-run of it (pid [0-9]* on .*) runs now\|recovered meanwhile" first.err second.err
	assert_equal "$("$RLWRAP" recover --json | jq length)" 0
}

@test "a key echoed in a stream's error message is redacted where it is stored and shown" {
	mkdir proj
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-0123 (check ANTHROPIC_API_KEY)","api_error_status":401}' > badkey
	(cd proj && FAKE_STREAM=../badkey run "$RLWRAP" --force --signal-file ../sig -- record-args task)
	run "$RLWRAP" history --json
	assert_output --partial 'Invalid API key [redacted]'
	refute_output --partial 'sk-ant-api03'
	run "$RLWRAP" classify-failure --json badkey
	assert_output --partial 'Invalid API key [redacted]'
	refute_output --partial 'AbCdEfGhIjKl'
	run grep -ls 'AbCdEfGhIjKl' "$RLWRAP_DB" "$RLWRAP_DB-wal" sig
	assert_output ""
}

@test "command lines are stored with the credentials of every shape redacted" {
	mkdir proj
	wrapped overloaded proj -u 'alice:hunter2' 'https://bob:pw1234@git.example.com/r' \
		-H 'Authorization: Basic YWxpY2U6aHVudGVyMg==' --pat glpat-AbCdEfGhIjKlMnOpQrSt \
		'Cookie: sid=s3cr3t' AKIAIOSFODNN7EXAMPLE xai-AbCdEfGhIjKlMnOpQrStUv1234
	run "$RLWRAP" history --json
	echo "$output" | jq -e '.[0].argv == ["record-args","-u","alice:[redacted]",
		"https://bob:[redacted]@git.example.com/r","-H","Authorization: [redacted]","--pat","[redacted]",
		"Cookie: [redacted]","[redacted]","[redacted]"] and .[0].argv_redacted'
	run sqlite3 "$RLWRAP_DB" "select count(*) from runs where argv_exact is not null or argv like '%hunter2%'"
	assert_output 0
}

@test "--signal-file: the argv redacted, mode 0600, replaced by a rename, not written through" {
	mkdir proj
	echo old > sig
	ln sig other-name
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" -q --force --signal-file ../sig -- record-args --api-key sk-secret-value-1234567 task)
	[ "$(stat -c %a sig)" = 600 ]
	jq -e '.argv == ["record-args","--api-key","[redacted]","task"] and .reason == "overloaded"' sig
	# a new file took the name: the old inode, under its other name, is untouched
	assert_equal "$(cat other-name)" old
	run ls -a
	refute_output --partial ".sig."
	refute_output --partial "sk-secret"
}

@test "output files: a symlink another user planted is refused, one of your own is followed" {
	[ "$(id -u)" = 0 ] || skip "needs root to plant a symlink owned by another user"
	mkdir proj
	echo precious > precious
	ln -s precious planted-sig
	ln -s precious planted-raw
	chown -h nobody planted-sig planted-raw
	# refused with one line each; the child runs and its status comes through
	FAKE_EXIT=3 run -3 "$RLWRAP" --force --signal-file planted-sig -- record-args x
	assert_output --partial "planted-sig: a symlink owned by uid"
	FAKE_EXIT=3 run -3 "$RLWRAP" --force --raw-stream planted-raw -- record-args x
	assert_output --partial "planted-raw: a symlink owned by uid"
	assert_equal "$(cat precious)" precious
	: > mine
	ln -s mine my-link
	FAKE_STREAM=overloaded run "$RLWRAP" -q --force --raw-stream my-link --signal-file my-sig-link -- record-args x
	[ -L my-link ]
	assert_equal "$(cat mine)" "$(cat overloaded)"
}

@test "--raw-stream naming the state file, its -wal or -shm is refused and the store survives" {
	mkdir proj
	wrapped overloaded proj first
	ln -s "$RLWRAP_DB" db-link
	# (the last process to close the store removed them: empty ones are what a writer leaves)
	touch "$RLWRAP_DB-wal" "$RLWRAP_DB-shm"
	for target in "$RLWRAP_DB" db-link "$RLWRAP_DB-wal" "$RLWRAP_DB-shm"; do
		FAKE_STREAM=overloaded run "$RLWRAP" --force --raw-stream "$target" -- record-args again
		assert_output --partial "rlwrap's own file (the state file"
	done
	assert_equal "$(sqlite3 "$RLWRAP_DB" 'select count(*) from runs')" 5
}

@test "a config path that is a directory or a FIFO is a problem naming it, at once" {
	rm -f "$RLWRAP_CONFIG"
	mkdir "$RLWRAP_CONFIG"
	run timeout 5 "$RLWRAP" status
	assert_success
	assert_line --index 0 "rlwrap: $RLWRAP_CONFIG: not a regular file (a directory); the file is ignored, every key has its default"
	rmdir "$RLWRAP_CONFIG"
	mkfifo "$RLWRAP_CONFIG"
	run timeout 5 "$RLWRAP" status
	assert_success
	assert_line --index 0 --partial "rlwrap: $RLWRAP_CONFIG: not a regular file (a FIFO)"
	run -1 timeout 5 "$RLWRAP" config check
	assert_line --index 0 --partial "$RLWRAP_CONFIG: not a regular file (a FIFO)"
	run timeout 5 "$RLWRAP" -- true
	assert_success
	assert_output --partial "$RLWRAP_CONFIG: not a regular file (a FIFO)"
	# /dev/null is the usual way to say "no config" and stays accepted.
	RLWRAP_CONFIG=/dev/null run timeout 5 "$RLWRAP" -- echo ok
	assert_success
	assert_output ok
}

@test "a state file others can write is warned about, and recover --yes refuses it" {
	mkdir proj
	wrapped overloaded proj task
	chmod 666 "$RLWRAP_DB"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "state file: $RLWRAP_DB is world-writable (mode 0666): others can write it"
	: > "$FAKE_RECORD"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -1 "$RLWRAP" recover --yes
	assert_output --partial "recover --yes: refused: $RLWRAP_DB is world-writable"
	[ ! -s "$FAKE_RECORD" ]
	chmod 600 "$RLWRAP_DB"
	# the directory too (no sticky bit)
	mkdir shared
	chmod 775 shared
	RLWRAP_DB="$BATS_TEST_TMPDIR/shared/state.db" wrapped overloaded proj task
	: > "$FAKE_RECORD"
	RLWRAP_DB="$BATS_TEST_TMPDIR/shared/state.db" FAKE_STREAM="$BATS_TEST_TMPDIR/success" run -1 "$RLWRAP" recover --yes
	assert_output --partial "refused: $BATS_TEST_TMPDIR/shared is group-writable (mode 0775)"
	[ ! -s "$FAKE_RECORD" ]
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	refute_output --partial "writable"
	[ -s "$FAKE_RECORD" ]
}

@test "a state file deleted while a run goes on is noticed and opened again" {
	mkdir proj
	printf '#!/bin/sh\necho started > "$BATS_TEST_TMPDIR/started"\nsleep 1\nexec record-args "$@"\n' > slow-args
	chmod +x slow-args
	printf '[family.claude]\ncommands = record-args, slow-args\n' > "$RLWRAP_CONFIG"
	wrapped overloaded proj before
	(cd proj && FAKE_STREAM=../overloaded "$RLWRAP" --force -- "$BATS_TEST_TMPDIR/slow-args" during > /dev/null 2> ../err) &
	for _ in $(seq 50); do [ -e started ] && break; sleep 0.1; done
	rm -f "$RLWRAP_DB" "$RLWRAP_DB-wal" "$RLWRAP_DB-shm"
	wait
	run cat err
	assert_output --partial "state file $RLWRAP_DB was deleted or replaced while this run went on; opening it again"
	run "$RLWRAP" history --json
	echo "$output" | jq -e 'length == 1 and .[0].argv[1] == "during"'
}

@test "recover: a working directory replaced by a symlink is named in the dry run and skipped unless --follow-symlinks" {
	mkdir -p proj elsewhere
	wrapped overloaded proj task
	mv proj proj.orig
	ln -s elsewhere proj
	: > "$FAKE_RECORD"
	run "$RLWRAP" recover
	assert_output --partial "-> skip: its working directory now leads through a symlink to $BATS_TEST_TMPDIR/elsewhere (--follow-symlinks runs it there)"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes
	assert_success
	[ ! -s "$FAKE_RECORD" ]
	run "$RLWRAP" recover --follow-symlinks
	assert_output --partial "-> run now, in $BATS_TEST_TMPDIR/elsewhere (its working directory leads there through a symlink)"
	FAKE_STREAM="$BATS_TEST_TMPDIR/success" run "$RLWRAP" recover --yes --follow-symlinks
	assert_success
	assert_equal "$(cat "$FAKE_RECORD")" "$BATS_TEST_TMPDIR/elsewhere task"
}
