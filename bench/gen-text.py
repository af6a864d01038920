#!/usr/bin/env python3
"""Writes SIZE_MB MiB of plain text as an agent or a build prints it in text
mode: compiler and test lines, log lines, short agent prose; some lines talk
about rate limits, quotas, 429s and credits (never a real failure).  Short
and medium lines, seeded, so every run measures the same bytes.
   gen-text.py SIZE_MB OUT"""
import random
import sys

size = int(sys.argv[1]) * 1024 * 1024
rng = random.Random(9)
files = ["src/app.ts", "lib/classify.c", "cmd/run.c", "pkg/limiter/bucket.go",
         "api/handlers.py", "tests/test_retry.py", "web/Chart.tsx"]
words = ("the of and to in is that for it as with on be by this are or from at "
         "build test fix file function value return change request handler cache "
         "retry backoff token bucket window budget queue worker parser").split()
limit_talk = [
    "I added rate limiting middleware to {f}.",
    "The API returns 429 Too Many Requests when the bucket is empty.",
    "Retry-After is honoured on 429 and 503 responses.",
    "Quota exceeded errors are now surfaced to the caller.",
    "We stay under the provider's rate limit by batching requests.",
    "Credit balance checks run before each job is queued.",
    "Overloaded upstreams are retried with exponential backoff.",
]
build = [
    "cc -O2 -Wall -c {f} -o {o}",
    "[{p:3d}%] Building C object CMakeFiles/app.dir/{f}.o",
    "  CC       {o}",
    "   Compiling limiter v0.{p}.1",
    "make[2]: Leaving directory '/build/src'",
]
tests = [
    "test_rate_limit_exceeded_returns_429 ... ok",
    "test_quota_{p}_resets_daily ... ok",
    "PASS  {f} ({p} ms)",
    "ok   github.com/acme/limiter  0.{p}s",
    "tests/test_retry.py::test_backoff_on_429[{p}] PASSED",
    "✓ handles overloaded upstream ({p} ms)",
]
logs = [
    "2026-11-30T11:{m:02d}:07.120Z INFO worker: processed {p} jobs",
    "2026-11-30 11:{m:02d}:09,412 DEBUG limiter: tokens={p} refill=10/s",
    "I1130 11:{m:02d}:01.000 server.go:{p}] listening on :8080",
]
out = open(sys.argv[2], "w", encoding="utf-8")
total = 0
while total < size:
    r = rng.random()
    p = rng.randrange(100)
    f = rng.choice(files)
    o = f.rsplit(".", 1)[0] + ".o"
    if r < 0.30:
        line = rng.choice(build)
    elif r < 0.55:
        line = rng.choice(tests)
    elif r < 0.70:
        line = rng.choice(logs)
    elif r < 0.78:
        line = rng.choice(limit_talk)
    elif r < 0.85:
        line = ""
    elif r < 0.92:
        line = rng.choice(["ok", "done", "}}", "  return nil", "+    retries += 1", "-    retries = 0"])
    else:
        line = " ".join(rng.choice(words) for _ in range(rng.randrange(3, 24))).capitalize() + "."
    line = line.format(f=f, o=o, p=p, m=p % 60) + "\n"
    out.write(line)
    total += len(line.encode("utf-8"))
out.close()
