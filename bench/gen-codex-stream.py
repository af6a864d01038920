#!/usr/bin/env python3
"""Writes a Codex `exec --json` run of about SIZE_MB MiB to OUT, compact JSON
as the CLI writes it: thread.started and turn.started (`exec` runs one
prompt: one turn), then items: reasoning, command executions (started,
then completed with their aggregated output, which mentions 429s and rate
limits as real tool output does), agent messages, file changes, now and
then a "Reconnecting..." error notice; turn.completed with its usage at
the end.  Seeded: every run measures the same bytes.

    gen-codex-stream.py SIZE_MB OUT"""
import json, random, sys

size = int(sys.argv[1]) * 1024 * 1024
out = open(sys.argv[2], "w")
rnd = random.Random(7)
words = ("the rate limit test 429 error retry handler session quota usage "
         "function return value module import config token stream build "
         "json parse line buffer fixture migration index".split())

def text(n):
    return " ".join(rnd.choice(words) for _ in range(n))

def emit(o):
    s = json.dumps(o, separators=(",", ":"))
    out.write(s + "\n")
    return len(s) + 1

written = emit({"type": "thread.started", "thread_id": "01a22c45-2638-7a9b-a624-101ab99ec1ac"})
written += emit({"type": "turn.started"})
item = 0
while written < size:
    for _ in range(rnd.randint(2, 6)):
        item += 1
        kind = rnd.random()
        if kind < 0.25:
            written += emit({"type": "item.completed", "item": {"id": "item_%d" % item, "type": "reasoning",
                             "text": "**" + text(rnd.randint(3, 8)) + "**\n\n" + text(rnd.randint(10, 120))}})
        elif kind < 0.75:
            cmd = "bash -lc 'pytest -k %s'" % rnd.choice(words)
            written += emit({"type": "item.started", "item": {"id": "item_%d" % item, "type": "command_execution",
                             "command": cmd, "aggregated_output": "", "exit_code": None, "status": "in_progress"}})
            written += emit({"type": "item.completed", "item": {"id": "item_%d" % item, "type": "command_execution",
                             "command": cmd, "aggregated_output": "\n".join(text(rnd.randint(5, 20)) for _ in range(rnd.randint(1, 40))),
                             "exit_code": 0, "status": "completed"}})
        elif kind < 0.85:
            written += emit({"type": "item.completed", "item": {"id": "item_%d" % item, "type": "file_change",
                             "changes": [{"path": "src/%s.py" % rnd.choice(words), "kind": "update"}], "status": "completed"}})
        elif kind < 0.852:
            written += emit({"type": "error", "message": "Reconnecting... 1/5 (stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses))"})
        else:
            written += emit({"type": "item.completed", "item": {"id": "item_%d" % item, "type": "agent_message",
                             "text": text(rnd.randint(10, 200))}})
emit({"type": "turn.completed", "usage": {"input_tokens": 8812345, "cached_input_tokens": 7654321,
      "output_tokens": 234567, "reasoning_output_tokens": 123456}})
out.close()
