#!/usr/bin/env python3
"""Writes a Claude-like stream-json run of about SIZE_MB megabytes to OUT,
compact JSON as the CLI writes it: init, then turns of assistant text,
tool_use and tool_result lines (whose content mentions 429s and rate
limits, as real tool output does), an allowed rate_limit_event now and
then, and a final result.

    gen-claude-stream.py SIZE_MB OUT                 one heartbeat every 40 turns
    gen-claude-stream.py SIZE_MB OUT --heartbeat     one heartbeat every turn

With --heartbeat every turn ends with a rate_limit_event in the shape
subscription sessions write after each API response: uuid and session_id,
the unifiedWindows object whose utilization creeps up every few turns, a
five-hour reset that moves on when the window rolls over, and now and then
an allowed_warning."""
import json, random, sys

size = int(sys.argv[1]) * 1024 * 1024
out = open(sys.argv[2], "w")
per_turn = "--heartbeat" in sys.argv[3:]
rnd = random.Random(42)
words = ("the rate limit test 429 error retry handler session limit resets "
         "function return value module import config token usage stream "
         "json parse line buffer".split())

def text(n):
    return " ".join(rnd.choice(words) for _ in range(n))

def emit(o):
    s = json.dumps(o, separators=(",", ":"))
    out.write(s + "\n")
    return len(s) + 1

def uuid():
    return "%08x-%04x-4%03x-%04x-%012x" % (rnd.getrandbits(32), rnd.getrandbits(16),
                                          rnd.getrandbits(12), rnd.getrandbits(16) | 0x8000,
                                          rnd.getrandbits(48))

session = uuid()
window = {"five": 0.0, "week": 0.0, "reset5": 1796059800, "reset7": 1796500800}

def heartbeat(turn):
    w = window
    if turn % 300 == 0:                      # the five-hour window rolls over
        w["five"], w["reset5"] = 0.0, w["reset5"] + 5 * 3600
    if rnd.random() < 0.3:
        w["five"] = min(0.99, w["five"] + 0.01)
        w["week"] = min(0.99, w["week"] + 0.001)
    five, week = round(w["five"], 2), round(w["week"], 3)
    status = "allowed_warning" if five >= 0.9 and rnd.random() < 0.05 else "allowed"
    info = {"status": status, "resetsAt": w["reset5"], "rateLimitType": "five_hour",
            "overageStatus": "rejected", "overageDisabledReason": "org_level_disabled",
            "isUsingOverage": False,
            "unifiedWindows": {"five_hour": {"utilization": five, "resetsAt": w["reset5"]},
                               "seven_day": {"utilization": week, "resetsAt": w["reset7"]}}}
    if status == "allowed_warning":
        info["utilization"], info["surpassedThreshold"] = five, 0.9
    return {"type": "rate_limit_event", "rate_limit_info": info, "uuid": uuid(),
            "session_id": session}

written = emit({"type": "system", "subtype": "init", "cwd": "/home/user/repo", "session_id": "s",
                "tools": ["Bash", "Read", "Edit"], "mcp_servers": [], "model": "claude-opus-4-6",
                "permissionMode": "default", "apiKeySource": "none", "claude_code_version": "2.1.219"})
turn = 0
while written < size:
    turn += 1
    mid = "msg_%06d" % turn
    written += emit({"type": "assistant", "message": {"id": mid, "model": "claude-opus-4-6",
                     "role": "assistant", "type": "message", "content": [{"type": "text", "text": text(rnd.randint(20, 300))}],
                     "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 40}},
                     "parent_tool_use_id": None, "session_id": "s", "uuid": "u%d" % turn})
    written += emit({"type": "assistant", "message": {"id": mid, "model": "claude-opus-4-6",
                     "role": "assistant", "type": "message", "content": [{"type": "tool_use", "id": "toolu_%d" % turn,
                     "name": "Bash", "input": {"command": "pytest -k " + rnd.choice(words)}}]},
                     "parent_tool_use_id": None, "session_id": "s"})
    written += emit({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": "toolu_%d" % turn,
                     "type": "tool_result", "content": text(rnd.randint(50, 800)), "is_error": False}]},
                     "parent_tool_use_id": None, "session_id": "s",
                     "tool_use_result": {"stdout": text(30), "stderr": "", "interrupted": False}})
    if per_turn:
        written += emit(heartbeat(turn))
    elif turn % 40 == 0:
        written += emit({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed",
                         "resetsAt": 1796059800, "rateLimitType": "five_hour", "overageStatus": "rejected",
                         "overageDisabledReason": "org_level_disabled", "isUsingOverage": False}})
emit({"type": "result", "subtype": "success", "is_error": False, "api_error_status": None,
      "duration_ms": 1000, "num_turns": turn, "result": "done", "session_id": "s",
      "total_cost_usd": 1.5, "usage": {"input_tokens": 100, "output_tokens": 100}})
