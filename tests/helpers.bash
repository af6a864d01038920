# Shared set-up for the bats suites: every test gets its own HOME, state
# file and config, so none touches the user's.
# bats-support and bats-assert (Debian's place, Homebrew's, FreeBSD's), each
# file sourced directly: their load.bash forks a dirname per file, which
# cost every test a third of a second.
for bats_lib in /usr/lib/bats /opt/homebrew/lib /usr/local/lib /usr/local/lib/bats; do
	[ -f "$bats_lib/bats-support/load.bash" ] && break
done
for _lib in "$bats_lib"/bats-support/src/*.bash "$bats_lib"/bats-assert/src/*.bash; do
	# shellcheck source=/dev/null
	source "$_lib"
done
unset _lib bats_lib

: "${RLWRAP:?RLWRAP must name the rlwrap binary (make check sets it)}"
: "${FIXTURES:=$(cd "$BATS_TEST_DIRNAME/../fixtures" && pwd)}"

# A test whose name ends in [slow] runs real time against a provider's
# window, a kill loop under strace or a hook's timeout: `make check-slow`
# runs those (RLWRAP_TEST_SLOW=1), once, on the plain build; `make check`
# skips them.
slow_gate() {
	case $BATS_TEST_DESCRIPTION in
	*' [slow]') [ -n "${RLWRAP_TEST_SLOW:-}" ] || skip "slow: make check-slow runs it" ;;
	esac
}

common_setup() {
	slow_gate
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
	export XDG_STATE_HOME="$HOME/.local/state"
	export XDG_CONFIG_HOME="$HOME/.config"
	export RLWRAP_DB="$BATS_TEST_TMPDIR/state.db"
	export RLWRAP_CONFIG="$BATS_TEST_TMPDIR/config"
	unset RLWRAP_ACCOUNT CLAUDE_CONFIG_DIR CODEX_HOME RLWRAP_TEST_NOW RLWRAP_SCHEMA RLWRAP_HOST
	export TZ=UTC
	export NOW=2026-11-30T12:00:00Z
	backend_setup
}

# The store suites run against RLWRAP_TEST_BACKEND: sqlite (the default, a
# fresh file per test) or postgresql (a fresh schema per test on the server
# RLWRAP_TEST_PG names, a throwaway one from tests/pg-server).  With
# RLWRAP_TEST_PG_VIA=pgbouncer (make check-postgresql PG_VIA=pgbouncer)
# RLWRAP_TEST_PG is a transaction pool in front of it (tests/pg-pool), and
# RLWRAP_TEST_PG_SERVER the server itself, which the suites' own looks
# (db, the server's pid) go to.
backend_setup() {
	if [ "${RLWRAP_TEST_BACKEND:-sqlite}" = postgresql ]; then
		: "${RLWRAP_TEST_PG:?RLWRAP_TEST_PG must name the test server (tests/pg-server start DIR)}"
		export RLWRAP_DB="$RLWRAP_TEST_PG"
		RLWRAP_SCHEMA="t_$(printf '%s_%s_%s' "$BATS_SUITE_TEST_NUMBER" "$$" "$RANDOM" | tr -c 'a-z0-9_' _)"
		export RLWRAP_SCHEMA
	fi
}

# private_pg_server: a server of the test's own (tests/pg-server), for a
# test that stops its server: suites running beside it under make -j keep
# the shared one.  teardown stops it (private_pg_stop).
private_pg_server() {
	PRIVATE_PG=$(mktemp -d /tmp/rlwrap-pgp.XXXXXX) || return 1
	RLWRAP_TEST_PG=$("$BATS_TEST_DIRNAME/pg-server" start "$PRIVATE_PG") || return 1
	RLWRAP_TEST_PG_SERVER=$RLWRAP_TEST_PG
	if [ "${RLWRAP_TEST_PG_VIA:-}" = pgbouncer ]; then
		PRIVATE_POOL=$(mktemp -d /tmp/rlwrap-pgq.XXXXXX) || return 1
		RLWRAP_TEST_PG=$("$BATS_TEST_DIRNAME/pg-pool" start "$PRIVATE_POOL" "$PRIVATE_PG") || return 1
		export PRIVATE_POOL
	fi
	RLWRAP_DB=$RLWRAP_TEST_PG
	export RLWRAP_TEST_PG RLWRAP_TEST_PG_SERVER RLWRAP_DB PRIVATE_PG
}

private_pg_stop() {
	[ -n "${PRIVATE_PG:-}" ] || return 0
	local pid
	# a test that failed during its outage left the server stopped
	pid=$(head -1 "$PRIVATE_PG/data/postmaster.pid" 2> /dev/null) &&
		kill -CONT "$pid" $(pgrep -P "$pid") 2> /dev/null
	[ -z "${PRIVATE_POOL:-}" ] || "$BATS_TEST_DIRNAME/pg-pool" stop "$PRIVATE_POOL"
	"$BATS_TEST_DIRNAME/pg-server" stop "$PRIVATE_PG"
}

# The server's own URL (not the pool's) and its postmaster's pid.
pg_server_url() {
	echo "${RLWRAP_TEST_PG_SERVER:-$RLWRAP_TEST_PG}"
}

pg_server_pid() {
	local dir
	dir=$(pg_server_url | sed -E 's/.*host=([^&]+).*/\1/')
	head -1 "$dir/data/postmaster.pid"
}

# pg_server_stop: SIGSTOP to the server's processes, the postmaster first,
# so that no backend forked meanwhile escapes (a pool in front keeps its
# backends, and one left running would still serve it); pg_server_cont
# lets them all go on.
pg_server_stop() {
	local pid
	pid=$(pg_server_pid)
	kill -STOP "$pid"
	PG_STOPPED="$pid $(pgrep -P "$pid" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	kill -STOP $PG_STOPPED
}

pg_server_cont() {
	# shellcheck disable=SC2086
	kill -CONT $PG_STOPPED
}

on_postgresql() {
	[ "${RLWRAP_TEST_BACKEND:-sqlite}" = postgresql ]
}

# A test about the SQLite file itself (modes, corruption, locks).
sqlite_only() {
	if on_postgresql; then skip "the SQLite file itself"; fi
}

# db SQL: one query on the test's store, whichever the backend, printed as
# sqlite3 prints it.  group_concat(X) and cast(X as int) are rewritten for
# PostgreSQL (string_agg in id order; truncation as in SQLite).
db() {
	if on_postgresql; then
		local q=$1
		q=$(printf '%s' "$q" | sed -E 's/ order by id$//; s/group_concat\(([a-z_]+)\)/string_agg(\1::text, '"','"' ORDER BY id)/g; s/cast\(([a-z_]+) as int\)/trunc(\1)::bigint/g')
		PGOPTIONS="-c search_path=$RLWRAP_SCHEMA" psql -qAtX -d "$(pg_server_url)" -c "$q"
	else
		sqlite3 "$RLWRAP_DB" "$1"
	fi
}

# provider_setup LIMIT WINDOW: common_setup in the test's own directory,
# with tests/fake-provider as $PROVIDER, allowing LIMIT tokens per WINDOW
# seconds across processes; its ledger and its log ($FAKE_LOG, one line per
# answer) are the test's.
provider_setup() {
	common_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	# shellcheck disable=SC2034 # used by the suites
	PROVIDER="$BATS_TEST_DIRNAME/fake-provider"
	export FAKE_LIMIT="$1" FAKE_WINDOW="$2" FAKE_LEDGER="$BATS_TEST_TMPDIR/ledger"
	export FAKE_LOG="$BATS_TEST_TMPDIR/provider.log"
}

# How many times the fake provider answered 429.
count_429() { grep -c '^429 ' "$FAKE_LOG" || true; }

# kill_background: the test's background runs, gone before the next test.
kill_background() {
	local pid
	for pid in $(jobs -p); do kill -9 "$pid" 2>/dev/null || true; done
}

# common_setup, plus the fake agents on PATH and the test's own directory
# as cwd; T0 is $NOW in epoch seconds.
agent_setup() {
	common_setup
	PATH="$FIXTURES/bin:$PATH"
	cd "$BATS_TEST_TMPDIR" || return 1
	# shellcheck disable=SC2034 # used by the suites
	T0=1796040000
}

# Claude streams for the breaker and store suites.
# limit_stream FILE RESETS_AT [TYPE] [MODEL]: a run cut off on a limit.
limit_stream() {
	printf '%s\n' \
		"{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"${4:-claude-opus-4-6}\",\"session_id\":\"s\"}" \
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$2,\"rateLimitType\":\"${3:-five_hour}\",\"isUsingOverage\":false}}" \
		'{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","api_error_status":429}' > "$1"
}

# bare_429 FILE: a 429 with no reset stated.
bare_429() {
	printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limited","api_error_status":429}' > "$1"
}

# success_stream FILE: a run with real output that succeeded.
success_stream() {
	printf '%s\n' \
		'{"type":"system","subtype":"init","model":"claude-opus-4-6","session_id":"s"}' \
		'{"type":"assistant","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"done"}]}}' \
		'{"type":"result","subtype":"success","is_error":false,"result":"done"}' > "$1"
}

# breaker_field KEY FIELD: one field of a breaker, from status --all --json.
breaker_field() {
	"$RLWRAP" status --all --json | jq -r --arg k "$1" ".breakers[] | select(.key == \$k) | .$2"
}

# exits STATUS COMMAND [ARG ...]: runs the command (output untouched) and
# fails the test unless it exits with STATUS.  For commands whose output must
# go elsewhere than $output, where `run -N` does not fit.
exits() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" = "$want" ] || fail "exit status $rc, want $want: $*"
}

# time_limit_ms MS: a time limit of MS ms, set for the real binary on a
# quiet machine, widened by what slows rlwrap without anything being wrong:
# a sanitizer build (make check sets RLWRAP_SANITIZERS; 3x) and the load of
# the moment, taken as twice what `rlwrap status` takes now.  A test that
# checks rlwrap does not wait for something keeps that something longer
# than any limit it may get (or bounds the limit below it).
time_limit_ms() {
	local start base limit=$1
	start=$(date +%s%N)
	"$RLWRAP" status > /dev/null 2>&1 || true
	base=$((($(date +%s%N) - start) / 1000000))
	[ -z "${RLWRAP_SANITIZERS:-}" ] || limit=$((3 * limit))
	echo $((limit + 2 * base))
}

# ms_since START_NS: milliseconds since START_NS (from date +%s%N).
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}
