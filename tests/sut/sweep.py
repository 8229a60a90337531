#!/usr/bin/env python3
"""A tiny external sweep speaking ctxfuzz's --sut protocol, one JSON line each way.

    python3 tests/sut/sweep.py [--rule strict|all-other-roles|none] [--fault FAULT]
                               [--trigger ROLE] [--pids FILE] [--delay-per-message S]

With a fault, the program misbehaves, mostly on a "trigger": a request, after its first one,
holding a message of role ROLE [default: custom]. The tests use it to show that each way is a
finding, that the run ends on time, and that no process of the program is left behind:

    exit-at-once   exits (status 3) before reading anything
    crash          on a trigger: says "boom" on stderr and exits (status 3)
    hang           on a trigger: stops answering (and reads on)
    half-line      on a trigger: prints half an answer, then nothing
    close-stdout   on a trigger: closes its stdout and stays alive
    close-stdin    closes its stdin after reading the first request, answers it and stays alive
    ignore-term    ignores SIGTERM, and hangs on a trigger
    grandchild     on a trigger: starts a child holding the pipes open, then exits (status 3)
    huge           on a trigger: prints an answer line of 17 MiB (over ctxfuzz's 16 MiB limit)
    not-utf8       on a trigger: prints a line that is not UTF-8
    garbage        on a trigger: prints a line that is not JSON
    wrong-shape    on a trigger: prints JSON of the wrong shape
    twice          on a trigger: prints its answer twice
    slow-start     takes 8 s to start (reads its first request 8 s after it started)

With --pids FILE, every process it starts appends its pid and process group to FILE. With
--delay-per-message S, it takes S seconds per message of a request before answering (a program
whose time is proportional to its input).
"""
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
rule = args[args.index("--rule") + 1] if "--rule" in args else "strict"
fault = args[args.index("--fault") + 1] if "--fault" in args else None
trigger = args[args.index("--trigger") + 1] if "--trigger" in args else "custom"
pids = args[args.index("--pids") + 1] if "--pids" in args else None
delay = float(args[args.index("--delay-per-message") + 1]) if "--delay-per-message" in args else 0.0


def record(pid):
    if pids:
        with open(pids, "a") as f:
            f.write(f"{pid} {os.getpgid(pid)}\n")


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


def answer(messages):
    kept, swept = sweep(messages)
    return json.dumps({"messages": kept, "swept": swept}, separators=(",", ":"))


def misbehave(messages):
    """Misbehaves on a trigger as `fault` says; returns whether it answered instead."""
    if fault == "crash":
        sys.stderr.write(f"boom: a {trigger} message\n")
        sys.exit(3)
    if fault in ("hang", "ignore-term"):
        sys.stdin.read()
    if fault == "half-line":
        sys.stdout.write('{"messages": [')
        sys.stdout.flush()
        sys.stdin.read()
    if fault == "close-stdout":
        sys.stdout.flush()
        os.close(1)
        sys.stdin.read()
        time.sleep(3600)
    if fault == "grandchild":
        import subprocess

        record(subprocess.Popen(["sleep", "3600"]).pid)
        sys.exit(3)
    if fault == "huge":
        sys.stdout.write("x" * (17 << 20) + "\n")
    if fault == "not-utf8":
        sys.stdout.buffer.write(b'{"messages": [], "swept": ["\xff\xfe"]}\n')
    if fault == "garbage":
        sys.stdout.write("not json\n")
    if fault == "wrong-shape":
        sys.stdout.write('{"kept": [], "swept": []}\n')
    if fault == "twice":
        sys.stdout.write(answer(messages) + "\n" + answer(messages) + "\n")
    sys.stdout.flush()


record(os.getpid())
if fault == "exit-at-once":
    sys.exit(3)
if fault == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if fault == "slow-start":
    time.sleep(8)
first = True
for line in sys.stdin:
    messages = json.loads(line)["messages"]
    time.sleep(delay * len(messages))
    if fault == "close-stdin" and first:
        os.close(0)
        print(answer(messages), flush=True)
        time.sleep(3600)
    triggered = not first and any(isinstance(m, dict) and m.get("role") == trigger for m in messages)
    if triggered and fault not in (None, "close-stdin", "slow-start"):
        misbehave(messages)
    else:
        print(answer(messages), flush=True)
    first = False
