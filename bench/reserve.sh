#!/bin/bash
# What a reserve costs admission and refusal: `rlwrap -f claude -- true`
# with `reserve = 10%` and a reading in the store, against a BASELINE
# binary (an older rlwrap, without readings) with no config, run alternately
# (bench/paired.c, medians of the paired differences).  Three pairs:
#   admission: let through (a reading at 50%: the reserve is read, holds nothing)
#   refusal:   the baseline refused by an open breaker, this binary by its
#              reserve (a reading at 95%)
#   breaker:   both refused by an open breaker, this one with a reserve set
#   itself:    this binary against itself without the config (what the
#              reserve's read costs, apart from the two builds)
# With a pool too (a reserve and two accounts, `accounts = work personal`,
# each with its env and a reading), this binary against itself without a
# config:
#   pool admission: chosen from the pool (two breaker reads, two readings)
#   pool refusal:   both accounts tripped, against the one breaker tripped
# and, with BASELINE, both against the baseline binary with no config.
# Each binary keeps its own state file (a newer schema is not the old
# binary's).  Goal: within 0.5 ms of the baseline.
#   BASELINE=path/to/old/rlwrap bench/reserve.sh [RUNS]
#   bench/reserve.sh [RUNS]        # without BASELINE: the pool pairs only
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-200}
paired=$(paired_bin)
TRUE=$(command -v true)
if [[ $TRUE != /* ]]; then TRUE=/bin/true; fi
dir=$BENCH_STATE_DIR/reserve
rm -rf "$dir"
mkdir -p "$dir"
unset RLWRAP_TEST_NOW RLWRAP_ACCOUNT
printf '[family.claude]\nreserve = 10%%\n' > "$dir/reserve.conf"
printf '%s\n' '[family.claude]' 'reserve = 10%' 'accounts = work personal' '[account.work]' \
    "env = CLAUDE_CONFIG_DIR=$dir/work" '[account.personal]' "env = CLAUDE_CONFIG_DIR=$dir/personal" > "$dir/pool.conf"
disk=$(state_disk "$BENCH_STATE_DIR")
l=$(load)

# db NAME USED [ACCOUNT]: a state file of this binary with a five_hour reading of USED.
db() {
	RLWRAP_DB=$dir/$1.db RLWRAP_CONFIG=$dir/reserve.conf "$RLWRAP" -f claude -- "$TRUE"
	sqlite3 "$dir/$1.db" "INSERT OR REPLACE INTO usage_readings (account, family, win, model, window_secs,
	    used, status, resets_at, at) VALUES ('${3:-default}', 'claude', 'five_hour', '', 18000, $2,
	    'allowed_warning', strftime('%s', 'now') + 3 * 3600, strftime('%s', 'now'))"
}
plain() { echo env RLWRAP_DB="$dir/$1.db" RLWRAP_CONFIG=/nonexistent/config "$RLWRAP" -f claude -- "$TRUE"; }
pooled() { echo env RLWRAP_DB="$dir/$1.db" RLWRAP_CONFIG="$dir/pool.conf" "$RLWRAP" -f claude -- "$TRUE"; }

# The pool: this binary with a reserve and two accounts against itself with
# no config, on the same state file (which holds both sides' breakers).
db pool 0.50 work
db pool 0.40 personal
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 $(plain pool) --- $(pooled pool))
pool_admit_d=$3 pool_admit_cpu_d=$6
db poolrefuse 0.50 work
RLWRAP_DB=$dir/poolrefuse.db "$RLWRAP" trip --for 1h claude > /dev/null
RLWRAP_DB=$dir/poolrefuse.db "$RLWRAP" trip --for 1h claude@work > /dev/null
RLWRAP_DB=$dir/poolrefuse.db "$RLWRAP" trip --for 2h claude@personal > /dev/null
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 75 75 $(plain poolrefuse) --- $(pooled poolrefuse))
pool_refuse_d=$3 pool_refuse_cpu_d=$6
awk -v n="$runs" -v disk="$disk" -v l="$l" -v a="$pool_admit_d" -v ac="$pool_admit_cpu_d" -v r="$pool_refuse_d" \
    -v rc="$pool_refuse_cpu_d" 'BEGIN {
	printf "state files on %s; %d pairs each; load %s; with a reserve and a pool of two accounts minus no config (medians):\n", disk, n, l
	printf "pool admission:                         %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", a, ac, a <= 0.5 ? "ok" : "OVER"
	printf "pool refusal, both accounts tripped:    %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", r, rc, r <= 0.5 ? "ok" : "OVER"
	printf "RESULT pool admit_over_ms=%.3f refuse_over_ms=%.3f\n", a, r
}'
[ -n "${BASELINE:-}" ] || exit 0
base() { echo env RLWRAP_DB="$dir/$1.db" RLWRAP_CONFIG=/nonexistent/config "$BASELINE" -f claude -- "$TRUE"; }
ours() { echo env RLWRAP_DB="$dir/$1.db" RLWRAP_CONFIG="$dir/reserve.conf" "$RLWRAP" -f claude -- "$TRUE"; }

RLWRAP_DB=$dir/base.db RLWRAP_CONFIG=/nonexistent/config "$BASELINE" -f claude -- "$TRUE"
db pass 0.50
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 $(base base) --- $(ours pass))
admit_d=$3 admit_cpu_d=$6
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 $(base base) --- $(pooled pool))
pool_base_admit_d=$3 pool_base_admit_cpu_d=$6
RLWRAP_DB=$dir/base.db "$BASELINE" trip --for 1h claude > /dev/null
db refuse 0.95
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 75 75 $(base base) --- $(ours refuse))
refuse_d=$3 refuse_cpu_d=$6
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 75 75 $(base base) --- $(pooled poolrefuse))
pool_base_refuse_d=$3 pool_base_refuse_cpu_d=$6
db breaker 0.50
RLWRAP_DB=$dir/breaker.db "$RLWRAP" trip --for 1h claude > /dev/null
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 75 75 $(base base) --- $(ours breaker))
breaker_d=$3 breaker_cpu_d=$6
# shellcheck disable=SC2046 # the figures, a word each
set -- $("$paired" "$runs" 0 0 env RLWRAP_DB="$dir/pass.db" RLWRAP_CONFIG=/nonexistent/config "$RLWRAP" -f claude -- "$TRUE" \
    --- $(ours pass))
self_d=$3 self_cpu_d=$6
awk -v n="$runs" -v disk="$disk" -v l="$l" -v a="$admit_d" -v ac="$admit_cpu_d" -v r="$refuse_d" \
    -v rc="$refuse_cpu_d" -v b="$breaker_d" -v bc="$breaker_cpu_d" -v s="$self_d" -v sc="$self_cpu_d" \
    -v pa="$pool_base_admit_d" -v pac="$pool_base_admit_cpu_d" -v pr="$pool_base_refuse_d" -v prc="$pool_base_refuse_cpu_d" 'BEGIN {
	printf "state files on %s; %d pairs each; load %s; this binary minus the baseline (medians):\n", disk, n, l
	printf "admission, reserve read, nothing held:  %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", a, ac, a <= 0.5 ? "ok" : "OVER"
	printf "refusal, by the reserve vs a breaker:   %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", r, rc, r <= 0.5 ? "ok" : "OVER"
	printf "refusal by a breaker, reserve set:      %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", b, bc, b <= 0.5 ? "ok" : "OVER"
	printf "admission, with the reserve vs without: %+.3f ms wall, %+.3f ms CPU (this binary against itself)\n", s, sc
	printf "pool admission vs the baseline:         %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", pa, pac, pa <= 0.5 ? "ok" : "OVER"
	printf "pool refusal vs the baseline, refused:  %+.3f ms wall, %+.3f ms CPU (goal at most +0.5: %s)\n", pr, prc, pr <= 0.5 ? "ok" : "OVER"
	printf "RESULT reserve admit_over_ms=%.3f refuse_over_ms=%.3f breaker_over_ms=%.3f self_over_ms=%.3f pool_admit_over_ms=%.3f pool_refuse_over_ms=%.3f\n", a, r, b, s, pa, pr
}'
