#!/usr/bin/env python3
"""A tiny external sweep speaking ctxfuzz's --sut protocol, one JSON line each way.

    python3 tests/sut/sweep.py [--rule strict|all-other-roles|none] [--fault crash|hang|garbage]

With a fault, the program misbehaves on any transcript holding a `custom` message: it exits
(crash), stops answering (hang) or prints a line that is not the protocol (garbage). The tests
use it to show that each is a finding, not a harness failure, and that the child is restarted.
"""
import json
import sys

args = sys.argv[1:]
rule = args[args.index("--rule") + 1] if "--rule" in args else "strict"
fault = args[args.index("--fault") + 1] if "--fault" in args else None


def sweep(messages):
    open_ids, kept, swept = set(), [], []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            content = message.get("content")
            blocks = content if isinstance(content, list) else []
            stopped = message.get("stopReason") in ("error", "aborted")
            open_ids = set()
            if not (rule == "strict" and stopped):
                for block in blocks:
                    if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                        open_ids.add(block["id"])
        elif role == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str) and call_id in open_ids:
                open_ids.discard(call_id)
            else:
                swept.append(call_id if isinstance(call_id, str) else json.dumps(call_id, separators=(",", ":"), ensure_ascii=False))
                continue
        elif rule != "none":
            open_ids = set()
        kept.append(message)
    return kept, swept


for line in sys.stdin:
    messages = json.loads(line)["messages"]
    if fault and any(isinstance(m, dict) and m.get("role") == "custom" for m in messages):
        if fault == "crash":
            sys.stderr.write("boom: a custom message\n")
            sys.exit(3)
        if fault == "hang":
            sys.stdin.read()
        if fault == "garbage":
            print("not json", flush=True)
            continue
    kept, swept = sweep(messages)
    print(json.dumps({"messages": kept, "swept": swept}, separators=(",", ":")), flush=True)
