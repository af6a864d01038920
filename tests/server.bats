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
	assert_output --partial "password authentication failed"
	refute_output --partial wrong-secret
	# A run whose argv holds the URL: the history keeps it without the password.
	run "$RLWRAP" -q -- echo "$RLWRAP_DB"
	assert_success
	run "$RLWRAP" history --json
	refute_output --partial fleet-secret
	[ -z "$(db "select argv from runs where argv like '%fleet-secret%'")" ]
}

@test "a server that is not there: said once, the child runs, within the connect timeout" {
	export RLWRAP_DB="postgresql://nobody@127.0.0.1:1/none"
	local start=$SECONDS
	run "$RLWRAP" -- sh -c 'echo child-output; exit 7'
	assert_failure 7
	assert_line child-output
	assert_equal "$(grep -c 'rlwrap:' <<< "$output")" 1
	[ $((SECONDS - start)) -le 5 ]
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
	local pid; pid=$(head -1 "$(dirname "$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*host=([^&]+).*/\1/')/data")/postmaster.pid" 2>/dev/null ||
		head -1 "$(printf '%s' "$RLWRAP_TEST_PG" | sed -E 's/.*host=([^&]+).*/\1/')/data/postmaster.pid")
	printf '[store]\nconnect_timeout = 2s\nstatement_timeout = 1s\n' > "$RLWRAP_CONFIG"
	kill -STOP "$pid"
	local start=$SECONDS
	run "$RLWRAP" -- sh -c 'printf "a\0b"; exit 3'
	kill -CONT "$pid"
	assert_failure 3
	[ $((SECONDS - start)) -le 8 ]
	assert_output --partial "$(printf 'a\0b')"
}
