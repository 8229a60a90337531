#!/usr/bin/env python3
"""A reference repairer of OpenAI chat transcripts speaking ctxfuzz's repair contract, one JSON
line each way: {"messages": [...]} in, {"messages": [...]} out (docs/contracts.md).

    python3 tests/sut/repair.py [--bug NAME] [--warn]

It keeps every message that is not a tool message, in order; after each assistant message with
tool_calls it puts, for each call in order, the first tool message answering it anywhere in the
transcript, or a synthetic result marked "[ctxfuzz-synthetic]"; every other tool message is
dropped. With --bug it breaks one promise of the contract, so the tests can show each is caught:
  unanswered      adds no synthetic result (the request stays invalid)
  drops-steering  drops user messages that are not the first
  drops-real      answers every call with a synthetic result, real or not
  extra           adds a synthetic result after each real one
  unmarked        writes synthetic results without the marker
  flips           writes each batch of results in the reverse of their input order (a second
                  repair flips it back)
  throws          refuses any transcript with a system message
With --warn it logs a warning line on stdout (not stderr) before its answer to a transcript of an
odd number of messages: a protocol fault, whatever the repair.
"""
import json
import sys

args = sys.argv[1:]
bug = args[args.index("--bug") + 1] if "--bug" in args else None
warn = "--warn" in args
MARKER = "[ctxfuzz-synthetic]"


def synthetic(call_id):
    text = "no result was recorded" if bug == "unmarked" else MARKER + " no result was recorded"
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def repair(messages):
    results = {}
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "tool":
            results.setdefault(message.get("tool_call_id"), []).append(message)
    position = {id(message): i for i, message in enumerate(messages)}
    out, users = [], 0
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            continue
        if role == "user":
            users += 1
            if bug == "drops-steering" and users > 1:
                continue
        out.append(message)
        batch = []
        for call in (message.get("tool_calls") or []) if role == "assistant" else []:
            call_id = call.get("id") if isinstance(call, dict) else None
            found = results.get(call_id)
            if found and bug != "drops-real":
                batch.append(found.pop(0))
                if bug == "extra":
                    batch.append(synthetic(call_id))
            elif not (found is None and bug == "unanswered"):
                batch.append(synthetic(call_id))
        if bug == "flips":
            batch.sort(key=lambda result: -position.get(id(result), -1))
        out.extend(batch)
    return out


for line in sys.stdin:
    messages = json.loads(line)["messages"]
    if warn and len(messages) % 2:
        print(f"warning: {len(messages)} messages", flush=True)
    if bug == "throws" and any(isinstance(m, dict) and m.get("role") == "system" for m in messages):
        print(json.dumps({"error": "system messages are not supported"}), flush=True)
        continue
    print(json.dumps({"messages": repair(messages)}, separators=(",", ":")), flush=True)
