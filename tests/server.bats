#!/usr/bin/env bats
# The PostgreSQL store on a real server (tests/pg-server; never a mock):
# selecting it, its schema and migrations, timeouts against a dead server,
# and no password in any message, history row or status output.  Skipped
# unless RLWRAP_TEST_BACKEND=postgresql (make check-postgresql sets it).

load helpers
bats_require_minimum_version 1.5.0

teardown() {
	private_pg_stop
}

setup() {
	on_postgresql || skip "needs RLWRAP_TEST_BACKEND=postgresql (make check-postgresql)"
	agent_setup
	export RLWRAP_TEST_NOW=$NOW
	limit_stream "$BATS_TEST_TMPDIR/limit" $((T0 + 3600))
}

# The loopback URL with the fleet role's password in it.
tcp_url() {
	local port
	port=$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*port=([0-9]+).*/\1/')
	echo "postgresql://fleet:fleet-secret@127.0.0.1:$port/postgres"
}

@test "--version lists the backends this build has" {
	run "$RLWRAP" --version
	assert_success
	assert_line "store backends: sqlite, postgresql"
}

@test "RLWRAP_DB=postgresql:// and postgres:// select the server; tables in their own schema" {
	run "$RLWRAP" trip --for 1h claude
	assert_success
	assert_equal "$(db "select count(*) from breakers")" 1
	assert_equal "$(db "select version from schema_version")" "$(db "select max(version) from schema_version")"
	export RLWRAP_DB="postgres://${RLWRAP_TEST_PG#postgresql://}"
	run "$RLWRAP" status --json
	assert_success
	assert_equal "$(echo "$output" | jq -r '.breakers[0].key')" "claude"
	# Nothing in public.
	assert_equal "$(psql -qAtX -d "$RLWRAP_TEST_PG" -c "select count(*) from pg_tables where schemaname = 'public'")" 0
}

@test "[store] url and schema in the config select the server; RLWRAP_DB still beats them" {
	unset RLWRAP_DB
	local schema=$RLWRAP_SCHEMA
	unset RLWRAP_SCHEMA
	printf '[store]\nurl = %s\nschema = %s\n' "$RLWRAP_TEST_PG" "$schema" > "$RLWRAP_CONFIG"
	run "$RLWRAP" trip --for 1h codex
	assert_success
	export RLWRAP_SCHEMA=$schema
	assert_equal "$(db "select family from breakers")" codex
	[ ! -e "$XDG_STATE_HOME/rlwrap/state.db" ]
	unset RLWRAP_SCHEMA
	RLWRAP_DB="$BATS_TEST_TMPDIR/local.db" run "$RLWRAP" status
	assert_output "no open breakers"
}

@test "a schema written by a newer rlwrap is refused untouched" {
	"$RLWRAP" trip --for 1h claude > /dev/null
	db "update schema_version set version = 42"
	local before; before=$(db "select resets_at from breakers")
	run "$RLWRAP" trip --for 2h claude
	assert_failure 1
	assert_output --partial "version 42, newer than this rlwrap knows"
	assert_equal "$(db "select resets_at from breakers")" "$before"
	assert_equal "$(db "select version from schema_version")" 42
}

@test "forty first-time openers at once: one schema, no error" {
	for i in $(seq 40); do
		"$RLWRAP" record "$BATS_TEST_TMPDIR/limit" > /dev/null 2> "err.$i" &
	done
	wait
	cat err.* >&2
	[ -z "$(cat err.*)" ]
	assert_equal "$(db "select count(*) from runs")" 40
	assert_equal "$(db "select count(*) from schema_version")" 1
}

@test "the password in the URL appears in no message, history row or status output" {
	export RLWRAP_DB; RLWRAP_DB=$(tcp_url)
	run "$RLWRAP" status --json
	assert_success
	refute_output --partial fleet-secret
	assert_output --partial '"store":"postgresql://fleet:***@127.0.0.1'
	# A wrong password: the error says so, without either password.
	RLWRAP_DB=${RLWRAP_DB/fleet-secret/wrong-secret} run "$RLWRAP" status
	assert_failure 1
	assert_output --regexp "(password|SASL) authentication failed"   # the server's words, or a pool's
	refute_output --partial wrong-secret
	# A run whose argv holds the URL: the history keeps it without the password.
	run "$RLWRAP" -q -- echo "$RLWRAP_DB"
	assert_success
	run "$RLWRAP" history --json
	refute_output --partial fleet-secret
	[ -z "$(db "select argv from runs where argv like '%fleet-secret%'")" ]
}

@test "a percent-encoded password (the only way to write @ : / #) is masked in both forms on a live server" {
	local role="enc_${RANDOM}_$$" port
	port=$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*port=([0-9]+).*/\1/')
	psql -qAtX -d "$RLWRAP_TEST_PG" -c "create role $role login password 'p@ss:w/rd#1'" \
		-c "grant create on database postgres to $role"
	export RLWRAP_DB="postgresql://$role:p%40ss%3Aw%2Frd%231@127.0.0.1:$port/postgres"
	run "$RLWRAP" status --json
	assert_success
	assert_output --partial "\"store\":\"postgresql://$role:***@127.0.0.1"
	for form in 'p%40ss%3Aw%2Frd%231' 'p@ss:w/rd#1' 'p%40ss' 'p@ss'; do refute_output --partial "$form"; done
	RLWRAP_DB=${RLWRAP_DB/rd%231/rd%232} run "$RLWRAP" status
	assert_failure 1
	assert_output --regexp "(password|SASL) authentication failed"
	for form in 'p%40ss%3Aw%2Frd%232' 'p@ss:w/rd#2' 'p%40ss' 'p@ss'; do refute_output --partial "$form"; done
}

@test "a server that is not there: said once, the child runs, within the connect timeout" {
	export RLWRAP_DB="postgresql://nobody@127.0.0.1:1/none"
	local start=$SECONDS
	run "$RLWRAP" -- sh -c 'echo child-output; exit 7'
	assert_failure 7
	assert_line child-output
	assert_equal "$(grep -c 'rlwrap:' <<< "$output")" 1
	[ $((SECONDS - start)) -le 10 ]   # a hang's bound: refused at once, not waited
}

@test "on_store_error = closed: an unreachable server refuses with 75" {
	export RLWRAP_DB="postgresql://nobody@127.0.0.1:1/none"
	printf '[breaker]\non_store_error = closed\n' > "$RLWRAP_CONFIG"
	run -75 "$RLWRAP" -- touch ran
	assert_output --partial "refused: state file:"
	[ ! -e ran ]
}

@test "a stopped server (SIGSTOP) costs at most the timeouts: the child's bytes and status intact" {
	private_pg_server   # stopped below: suites beside this one keep theirs
	"$RLWRAP" status > /dev/null
	printf '[store]\nconnect_timeout = 2s\nstatement_timeout = 1s\n' > "$RLWRAP_CONFIG"
	pg_server_stop
	local start=$SECONDS
	run "$RLWRAP" -- sh -c 'printf "a\0b"; exit 3'
	pg_server_cont
	assert_failure 3
	[ $((SECONDS - start)) -le 30 ]   # a hang's bound: a stopped server never answers
	assert_output --partial "$(printf 'a\0b')"
}

@test "a run the server started and the journal completed (the server away at its end) is replayed finished, once" {
	"$RLWRAP" status > /dev/null   # the schema, and the journal's directory
	# The child waits for go; meanwhile another process of this host met
	# the server away (its mark), so the run's end is written to a journal
	# opened in the server's place.  Its row there must carry the run's
	# identity: the server's id names another run or none in the journal.
	RLWRAP_STORE_AWAY_MS=60000 "$RLWRAP" -f claude -- sh -c 'i=0
		while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; exit 3' &
	local pid=$!
	for _ in $(seq 300); do [ "$(db "select count(*) from runs where state = 'running'")" = 1 ] && break; sleep 0.1; done
	assert_equal "$(db "select count(*) from runs where state = 'running'")" 1
	touch "$XDG_STATE_HOME/rlwrap/journal.db.away"
	touch go
	exits 3 wait "$pid"
	rm -f "$XDG_STATE_HOME/rlwrap/journal.db.away"
	run "$RLWRAP" status --json   # the server answers: the journal is replayed
	assert_success
	echo "$output" | jq -e '.journal.pending_runs == 0'
	assert_equal "$(db "select count(*) from runs")" 1
	assert_equal "$(db "select state, exit_code from runs")" "finished|3"
}

# host NAME: this shell's HOME, state directory and host id become NAME's,
# on the same server and schema.
host() {
	export HOME="$BATS_TEST_TMPDIR/$1" XDG_STATE_HOME="$BATS_TEST_TMPDIR/$1/state" RLWRAP_HOST=$1
	mkdir -p "$HOME"
}

refusals() {
	db "select count(*) from waits where kind = 'refuse'"
}

@test "the memo: a host that read an open breaker refuses without asking the server until memo_ttl" {
	host a
	FAKE_STREAM=$BATS_TEST_TMPDIR/limit run -0 "$RLWRAP" -q -- claude
	# Host b asks the server once, then refuses from what it read (with
	# --no-record nothing reaches the server: the refusal is counted beside
	# the memo until the next contact).
	host b
	run -75 "$RLWRAP" -- claude
	assert_output --partial "refused: claude (scope *, account default) open on usage-limit until 2026-11-30T13:00:00Z"
	assert_equal "$(refusals)" 1
	run -75 "$RLWRAP" --no-record -- claude
	assert_output --partial "until 2026-11-30T13:00:00Z"
	assert_equal "$(refusals)" 1
	# A model the breaker covers too (family-wide), and --signal-file as ever.
	run -75 "$RLWRAP" --no-record -m sonnet --signal-file "$BATS_TEST_TMPDIR/sig.json" -- claude
	assert_equal "$(jq -r '.reason + " " + .resets_at + " " + .refused_by' "$BATS_TEST_TMPDIR/sig.json")" \
		"usage-limit 2026-11-30T13:00:00Z breaker"
	assert_equal "$(refusals)" 1
	# A reset on host a: b refuses from its memo until memo_ttl (30 s) has passed.
	host a
	run "$RLWRAP" reset claude
	assert_success
	assert_output "closed 1 breaker; other hosts see it within 30s (memo_ttl)"
	host b
	RLWRAP_TEST_NOW=$((T0 + 29)) run -75 "$RLWRAP" --no-record -- claude
	assert_equal "$(refusals)" 1
	# b's status says what refuses its spawns: its memo, not the server;
	# and it is a contact: the three refusals counted meanwhile reach the waits.
	RLWRAP_TEST_NOW=$((T0 + 29)) run -0 "$RLWRAP" status
	assert_output --regexp "claude +open \(from this host's memo\) until 2026-11-30T12:00:3[0-9]Z"
	refute_output --partial "no open breakers"
	assert_equal "$(refusals)" 4
	RLWRAP_TEST_NOW=$((T0 + 29)) run -0 "$RLWRAP" status --json
	assert_equal "$(jq -r '.memo | length' <<< "$output")" 1
	RLWRAP_TEST_NOW=$((T0 + 31)) run -0 "$RLWRAP" status
	assert_output --partial "no open breakers"
	success_stream "$BATS_TEST_TMPDIR/ok"
	RLWRAP_TEST_NOW=$((T0 + 31)) FAKE_STREAM=$BATS_TEST_TMPDIR/ok run "$RLWRAP" -- claude
	assert_success
	[ ! -e "$XDG_STATE_HOME"/rlwrap/server-*.memo ]
}

@test "the memo: a reset or a success here forgets it at once; memo_ttl = 0 always asks; --wait asks" {
	host a
	FAKE_STREAM=$BATS_TEST_TMPDIR/limit run -0 "$RLWRAP" -q -- claude
	ls "$XDG_STATE_HOME"/rlwrap/server-*.memo
	run "$RLWRAP" reset claude
	success_stream "$BATS_TEST_TMPDIR/ok"
	FAKE_STREAM=$BATS_TEST_TMPDIR/ok run "$RLWRAP" -- claude
	assert_success
	# A trip again, then a success under --force: it closes the breaker, and
	# the memo with it.
	FAKE_STREAM=$BATS_TEST_TMPDIR/limit run -0 "$RLWRAP" -q -- claude
	export RLWRAP_TEST_NOW=$((T0 + 5))   # a success closes a breaker tripped before it started
	FAKE_STREAM=$BATS_TEST_TMPDIR/ok run "$RLWRAP" --force -- claude
	assert_success
	FAKE_STREAM=$BATS_TEST_TMPDIR/ok run "$RLWRAP" -- claude
	assert_success
	# memo_ttl = 0: every refusal is the server's (and writes its row).
	FAKE_STREAM=$BATS_TEST_TMPDIR/limit run -0 "$RLWRAP" -q -- claude
	printf '[store]\nmemo_ttl = 0\n' > "$RLWRAP_CONFIG"
	run -75 "$RLWRAP" -- claude
	run -75 "$RLWRAP" -- claude
	assert_equal "$(refusals)" 2
	# A wait within the --wait budget is the server's to plan, memo or not.
	printf '[store]\nmemo_ttl = 1m\n' > "$RLWRAP_CONFIG"
	RLWRAP_TEST_NOW=$((T0 + 3597)) run -75 "$RLWRAP" -- claude   # the memo is stale: asks
	RLWRAP_TEST_NOW=$((T0 + 3598)) run -75 "$RLWRAP" --no-record -- claude   # from the memo
	assert_equal "$(refusals)" 3
	RLWRAP_POLL_MS=50 RLWRAP_TEST_NOW=$((T0 + 3599)) FAKE_STREAM=$BATS_TEST_TMPDIR/ok run "$RLWRAP" --wait=10s -- claude
	assert_success
	assert_output --partial "done"
	printf '[store]\nmemo_ttl = soon\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_success
	assert_output --partial "memo_ttl: 'soon' is not a duration"
}

# via_pool: the suites run through a transaction pool (PG_VIA=pgbouncer).
via_pool() {
	[ "${RLWRAP_TEST_PG_VIA:-}" = pgbouncer ]
}

@test "a user's own startup options (PGOPTIONS, the URL's options) reach the server; a transaction pool refuses them" {
	"$RLWRAP" status > /dev/null   # the schema, made without options
	local want="read-only transaction"
	if via_pool; then want="unsupported startup parameter: options"; fi
	PGOPTIONS="-c default_transaction_read_only=on" run "$RLWRAP" trip --for 1h claude
	assert_failure
	assert_output --partial "$want"
	RLWRAP_DB="$RLWRAP_TEST_PG&options=-c%20default_transaction_read_only%3Don" run "$RLWRAP" trip --for 1h claude
	assert_failure
	assert_output --partial "$want"
	assert_equal "$(db "select count(*) from breakers")" 0
	# rlwrap's own settings are no session's: none reaches the next client.
	run -0 "$RLWRAP" trip --for 1h claude
	assert_equal "$(psql -qAtX -d "$RLWRAP_TEST_PG" -c "show statement_timeout")" 0
	assert_equal "$(psql -qAtX -d "$RLWRAP_TEST_PG" -c "select current_setting('search_path') not like '%$RLWRAP_SCHEMA%'")" t
}

@test "every table is named with its schema, quoted: a reserved word is a schema like any other" {
	export RLWRAP_SCHEMA="user"
	run -0 "$RLWRAP" trip --for 1h claude
	assert_equal "$(db "select family from \"user\".breakers")" claude
	psql -qAtX -d "$(pg_server_url)" -c "drop schema \"user\" cascade"
}

@test "every table is named with its schema: a search_path of the user's names another" {
	via_pool && skip "a pool refuses startup options"
	PGOPTIONS="-c search_path=public" run -0 "$RLWRAP" trip --for 1h codex
	assert_equal "$(db "select family from breakers")" codex
	assert_equal "$(psql -qAtX -d "$(pg_server_url)" -c "select count(*) from pg_tables where schemaname = 'public'")" 0
}

@test "through a transaction pool (PG_VIA=pgbouncer) rlwrap's transactions are the pool's" {
	via_pool || skip "needs make check-postgresql PG_VIA=pgbouncer"
	local dir port before after
	dir=$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*host=([^&]+).*/\1/')
	port=$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*port=([0-9]+).*/\1/')
	[ "$(pg_server_url)" != "$RLWRAP_TEST_PG" ]
	stats() { psql -qAtX -h "$dir" -p "$port" -U postgres -d pgbouncer -c "show stats" | awk -F'|' '$1 == "postgres" { print $2 }'; }
	before=$(stats)
	run -0 "$RLWRAP" trip --for 1h claude
	run -0 "$RLWRAP" status
	after=$(stats)
	[ "$after" -ge $((before + 3)) ] || fail "the pool counted $before then $after transactions"
}

# slot_wait_setup POOL: max_concurrent 1, a holder of a second, and waiters
# that look again only after ten minutes: only a NOTIFY wakes them sooner.
slot_wait_setup() {
	printf '[store]\npool = %s\n[family.claude]\nmax_concurrent = 1\n' "$1" > "$RLWRAP_CONFIG"
	export RLWRAP_SLOT_POLL_MS=600000 RLWRAP_SLOT_POLL_MAX_MS=600000
	"$RLWRAP" -q -f claude -- sh -c 'touch holding; sleep 1' &
	for _ in $(seq 100); do [ -e holding ] && break; sleep 0.1; done
	[ -e holding ]
}

@test "a waiter LISTENs on the backend's own connection (pool = auto, none): told of the freed slot at once" {
	via_pool && skip "the backend's own connection: make check-postgresql without PG_VIA"
	for pool in auto none; do
		rm -f holding
		slot_wait_setup "$pool"
		# the 10 s budget is ten times the holder's second: only a hang's bound
		run -0 "$RLWRAP" -q --wait=10s -f claude -- echo "ran-$pool"
		assert_output "ran-$pool"
		wait
	done
}

@test "pool = transaction, or auto through a pool: a waiter never LISTENs, and waits for its next look" {
	local pool=transaction
	if via_pool; then pool=auto; fi
	slot_wait_setup "$pool"
	run -75 "$RLWRAP" --wait=4s -f claude -- echo ran
	refute_output --partial ran
	assert_output --partial "no slot free"
	wait
	# The slot is free: the next look takes it, told or not.
	run -0 "$RLWRAP" -q --wait=4s -f claude -- echo ran
	assert_output ran
}

@test "[store] pool takes auto, transaction or none" {
	printf '[store]\npool = session\n' > "$RLWRAP_CONFIG"
	run "$RLWRAP" status
	assert_output --partial "pool: 'session' is not auto, transaction or none"
	printf '[store]\npool = transaction\n' > "$RLWRAP_CONFIG"
	run -0 "$RLWRAP" config show
	assert_line "pool = transaction"
}
