#!/usr/bin/env python3
"""A reference cut-point finder for OpenAI chat transcripts speaking ctxfuzz's cut contract, one
JSON line each way: {"messages": [...], "target": T} in, {"boundary": N} out (docs/contracts.md).

    python3 tests/sut/cut.py [--bug out-of-range|splits]

It starts at T and moves back while a kept tool message answers a call of an assistant message
before the boundary (the assistant whose calls were open when the tool message came). With --bug
it answers len + 1 (out-of-range) or T itself (splits a call from its result).
"""
import json
import sys

args = sys.argv[1:]
bug = args[args.index("--bug") + 1] if "--bug" in args else None


def answered_call(messages):
    """For each message, the index of the assistant whose open call it answers (or None)."""
    out, opener, open_ids = [], None, []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            opener = i
            open_ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if role == "tool" and message.get("tool_call_id") in open_ids:
            open_ids.remove(message.get("tool_call_id"))
            out.append(opener)
        else:
            out.append(None)
    return out


def cut(messages, target):
    if bug == "out-of-range":
        return len(messages) + 1
    if bug == "splits":
        return target
    calls = answered_call(messages)
    boundary = target
    while True:
        split = [c for c in calls[boundary:] if c is not None and c < boundary]
        if not split:
            return boundary
        boundary = min(split)


for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"boundary": cut(request["messages"], request["target"])}), flush=True)
