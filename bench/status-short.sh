#!/bin/bash
# `rlwrap status --short` is meant for a shell prompt: its median must stay
# under 5 ms.  Runs it against a store the size the defaults let it grow to
# (10000 runs in the last 24 hours, 6 families, a few open breakers), next
# to `true` and the sqlite3 shell reading the same store in the same run.
#   bench/status-short.sh [RUNS]
set -eu
. "$(dirname "$0")/common.sh"
runs=${1:-300}
export RLWRAP_DB=$BENCH_DIR/status-short.db RLWRAP_CONFIG=/dev/null
rm -f "$RLWRAP_DB" "$RLWRAP_DB"-*

# The store: real trips through rlwrap, then 10000 runs spread over a day.
"$RLWRAP" trip --for 83m claude >/dev/null
"$RLWRAP" trip --for 3h codex:o3@work >/dev/null
"$RLWRAP" trip --for 20m gemini >/dev/null
"$RLWRAP" -q -f pi -- true
now=$(date +%s)
sqlite3 "$RLWRAP_DB" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
	INSERT INTO runs (family, account, started_at, ended_at, exit_code, reason, source)
	SELECT CASE i % 6 WHEN 0 THEN 'claude' WHEN 1 THEN 'codex' WHEN 2 THEN 'gemini' WHEN 3 THEN 'pi'
		WHEN 4 THEN 'opencode' ELSE 'qwen' END, 'default', $now - i * 8, $now - i * 8 + 5,
		i % 7 = 0, CASE WHEN i % 7 = 0 THEN 'rate-limit' ELSE 'none' END, 'wrap' FROM n;"
echo "line: $("$RLWRAP" status --short)"

# Median wall time of each command, spawned the same way (python3's
# posix_spawn: no shell, no date(1) in the measured interval).
python3 - "$runs" /bin/true "$RLWRAP" "$RLWRAP_DB" <<'PY'
import os, resource, sys, time
runs, true, rlwrap, db = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
devnull = os.open(os.devnull, os.O_WRONLY)
acts = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
# Median wall time and median CPU time (user + system) of the child: on a
# loaded machine the wall time includes waiting for a core, the CPU time not.
def medians_ms(argv):
    wall, used = [], []
    for _ in range(runs):
        c0, t0 = cpu(), time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=acts)
        os.waitpid(pid, 0)
        wall.append((time.perf_counter_ns() - t0) / 1e6)
        used.append((cpu() - c0) * 1e3)
    wall.sort(); used.sort()
    return wall[len(wall) // 2], used[len(used) // 2]
t = medians_ms([true])
q = medians_ms(["/usr/bin/sqlite3", db, "SELECT DISTINCT family FROM runs"])
s = medians_ms([rlwrap, "status", "--short"])
print("median of %d       wall ms   cpu ms" % runs)
for name, (w, c) in (("true", t), ("sqlite3 one query", q), ("rlwrap status --short", s)):
    print("%-22s %7.3f  %7.3f" % (name, w, c))
print("goal: rlwrap status --short under 5 ms")
print("RESULT status_short true_ms=%.3f sqlite3_ms=%.3f rlwrap_ms=%.3f rlwrap_cpu_ms=%.3f ratio_sqlite3=%.2f"
    % (t[0], q[0], s[0], s[1], s[0] / q[0]))
PY
