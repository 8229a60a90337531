#!/usr/bin/env python3
"""A reference pruner of AI SDK ModelMessage[] transcripts speaking ctxfuzz's prune contract, one
JSON line each way: {"messages": [...]} in, {"messages": [...]} out (docs/contracts.md).

    python3 tests/sut/prune.py [--notice MARKER] [--bug NAME] [--hang-first FILE]

It removes every tool-call and tool-result part of the messages before the last two whose call
id the last two do not mention, then every message left with an empty content list. With
--notice, when it removed anything it puts one system message first, "MARKER Pruned N messages."
With --bug it breaks one promise of the contract, so the tests can show each is caught:
  adds        appends a copy of the last message
  splits      removes the old tool-call parts but keeps their results
  drops-user  drops the last user message too
  hides       (with --notice) drops the first user message too, the notice standing in for it
With --hang-first FILE, the first request any copy of it reads (FILE does not exist yet: it
creates it) is never answered; every later one is, so a program asked again answers.
"""
import json
import os
import sys

args = sys.argv[1:]
bug = args[args.index("--bug") + 1] if "--bug" in args else None
notice = args[args.index("--notice") + 1] if "--notice" in args else None
hang_first = args[args.index("--hang-first") + 1] if "--hang-first" in args else None
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
    users = [m for m in out if isinstance(m, dict) and m.get("role") == "user"]
    if bug == "drops-user" and users:
        out.remove(users[-1])
    if bug == "hides" and users:
        out.remove(users[0])
    if notice and out != messages:
        out.insert(0, {"role": "system", "content": f"{notice} Pruned {len(messages) - len(out)} messages."})
    return out


for line in sys.stdin:
    if hang_first and not os.path.exists(hang_first):
        open(hang_first, "w").close()
        sys.stdin.read()
    print(json.dumps({"messages": prune(json.loads(line)["messages"])}, separators=(",", ":")), flush=True)
