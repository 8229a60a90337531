#!/usr/bin/env python3
"""A reference pruner of AI SDK ModelMessage[] transcripts speaking ctxfuzz's prune contract, one
JSON line each way: {"messages": [...]} in, {"messages": [...]} out (docs/contracts.md).

    python3 tests/sut/prune.py [--bug NAME]

It removes every tool-call and tool-result part of the messages before the last two whose call
id the last two do not mention, then every message left with an empty content list. With --bug it
breaks one promise of the contract, so the tests can show each is caught:
  adds     appends a copy of the last message
  splits   removes the old tool-call parts but keeps their results
"""
import json
import sys

args = sys.argv[1:]
bug = args[args.index("--bug") + 1] if "--bug" in args else None
TOOL_PARTS = ("tool-call", "tool-result")


def parts(message):
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def prune(messages):
    recent = {p.get("toolCallId") for m in messages[-2:] for p in parts(m) if isinstance(p, dict)}
    removed = ("tool-call",) if bug == "splits" else TOOL_PARTS
    out = []
    for i, message in enumerate(messages):
        if i < len(messages) - 2 and parts(message):
            kept = [p for p in parts(message)
                    if not (isinstance(p, dict) and p.get("type") in removed and p.get("toolCallId") not in recent)]
            if not kept:
                continue
            message = {**message, "content": kept}
        out.append(message)
    if bug == "adds" and out:
        out.append(out[-1])
    return out


for line in sys.stdin:
    print(json.dumps({"messages": prune(json.loads(line)["messages"])}, separators=(",", ":")), flush=True)
