#!/usr/bin/env python3
"""A reference cut-point finder for OpenAI chat transcripts speaking ctxfuzz's cut contract, one
JSON line each way: {"messages": [...], "target": T} in, {"boundary": N} out (docs/contracts.md).

    python3 tests/sut/cut.py [--bug out-of-range|splits|gives-up]

It starts at T and moves back while a kept tool message answers a call of an assistant message
before the boundary (the assistant whose calls were open when the tool message came). Asked to
compact (T > 0), it never answers 0: when moving back reaches 0 it moves forward from T instead,
past the results of the calls it would split. With --bug it answers len + 1 (out-of-range), T
itself (splits a call from its result), or 0 whenever T splits a call from its result (gives-up:
the AutoBot defect, a compaction that summarises nothing).
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


def split(calls, boundary):
    """The kept messages (index, opener) whose result answers a call before the boundary."""
    return [(i, c) for i, c in enumerate(calls) if i >= boundary and c is not None and c < boundary]


def cut(messages, target):
    if bug == "out-of-range":
        return len(messages) + 1
    if bug == "splits":
        return target
    calls = answered_call(messages)
    if bug == "gives-up" and split(calls, target):
        return 0
    boundary = target
    while split(calls, boundary):
        boundary = min(c for _, c in split(calls, boundary))
    if boundary == 0 < target:
        boundary = target
        while split(calls, boundary):
            boundary = max(i for i, _ in split(calls, boundary)) + 1
    return boundary


for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"boundary": cut(request["messages"], request["target"])}), flush=True)
