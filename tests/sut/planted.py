#!/usr/bin/env python3
"""Small transcript rewriters written the way their users write them, each careful or with one
realistic defect, for tests/ctxfuzz/planted.rs: every defect must be charged under its contract,
and no careful program may be.

    python3 tests/sut/planted.py PROGRAM

Repairers (OpenAI chat messages, `{"messages"}` in and out; synthetic results carry MARKER):
  repair-careful           keeps every message that is not a tool message; after each assistant
                           message, the tool messages that answer its calls in its own tool block,
                           then a synthetic result for each call left unanswered
  repair-drops-blank       ... and drops messages whose content is an empty string ("noise")
  repair-keeps-stray       ... but keeps a tool message that answers no call of its block
  repair-answers-late      ... but writes the synthetic results at the end of the transcript
  repair-careful-normalised
                           careful, and writes "" for a null content (as LangChain has it)
  repair-chatty            careful, but prints a progress line on stdout before answering a
                           transcript of more than four messages
Repairers (pi messages):
  repair-careful-pi        repair-careful, for pi's `toolCall` blocks and `toolResult` messages;
                           an assistant message that stopped on an error or an abort calls nothing
                           (pi never sends it), so a result for its call is dropped
Repairers (Anthropic messages):
  repair-careful-anthropic keeps the results in the user message right after their call's
                           message, first, and writes a synthetic result there (into the user's
                           message after the call, its text then a part, or a new one) for each
                           call left unanswered; drops results anywhere else
  repair-anthropic-results-last
                           careful, but writes the results after the user's text in its message
  repair-anthropic-keeps-emptied
                           careful, but keeps a user message whose results it dropped, empty
Cut finders (OpenAI chat messages, `{"messages", "target"}` in, `{"boundary"}` out):
  cut-careful              the latest index at or before the target (else after it) that does not
                           start with a tool message; 0 only when there is none
  cut-gives-up-long        careful, but answers 0 ("do not compact") above 12 messages
  cut-at-target            the target itself, whatever stands there
Sweeps (pi messages, `{"messages"}` in, `{"messages", "swept"}` out):
  sweep-drops-calls        sweeps nothing, and removes every tool call from assistant messages
Pruners (AI SDK messages, `{"messages"}` in and out):
  prune-careful            drops reasoning parts, and the tool calls and results of cycles that
                           end before the last two messages; then messages left empty
  prune-drops-last-user    careful, but also drops the last user message ("the prompt is re-sent")
  prune-keeps-results      drops tool calls before the last two messages but keeps their results
Trimmers (OpenAI chat messages, `{"messages"}` in and out; the notice carries MARKER):
  trim-careful             keeps a leading system message and the last six messages, less the
                           tool messages at the start of that window (their calls are gone), with
                           one notice after the system message when anything was dropped
  trim-keeps-orphan        careful, but a window that starts with a tool message keeps it
  trim-shortens-kept       careful, but cuts the text of every kept user message to 20 characters
"""
import json
import sys

MARKER = "[planted-synthetic]"
program = sys.argv[1]


def role(message):
    return message.get("role") if isinstance(message, dict) else None


def call_ids(message):
    """OpenAI's `tool_calls`, or pi's `toolCall` blocks of an assistant message pi sends."""
    if role(message) != "assistant" or message.get("stopReason") in ("error", "aborted"):
        return []
    calls = message.get("tool_calls", message.get("content"))
    calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    return [c.get("id") for c in calls if "tool_calls" in message or c.get("type") == "toolCall"]


def is_result(message):
    return role(message) in ("tool", "toolResult")


def answered_id(message):
    return message.get("tool_call_id", message.get("toolCallId"))


def synthetic_result(call_id):
    if program == "repair-careful-pi":
        text = [{"type": "text", "text": MARKER + " no result"}]
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "unknown", "content": text, "isError": True, "timestamp": 0}
    return {"role": "tool", "tool_call_id": call_id, "content": MARKER + " no result"}


def repair(messages):
    out, late, i = [], [], 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if is_result(message):
            if program == "repair-keeps-stray":
                out.append(message)
            continue
        if program == "repair-drops-blank" and isinstance(message, dict) and message.get("content") == "":
            continue
        if program == "repair-careful-normalised" and isinstance(message, dict) and "content" in message and message["content"] is None:
            message = dict(message, content="")
        out.append(message)
        open_ids = call_ids(message)
        while i < len(messages) and is_result(messages[i]):
            answer = messages[i]
            i += 1
            if answered_id(answer) in open_ids:
                open_ids.remove(answered_id(answer))
                out.append(answer)
            elif program == "repair-keeps-stray":
                out.append(answer)
        synthetic = [synthetic_result(c) for c in open_ids]
        if program == "repair-answers-late":
            late.extend(synthetic)
        else:
            out.extend(synthetic)
    return out + late


def anthropic_repair(messages):
    def blocks(message):
        content = message.get("content") if isinstance(message, dict) else None
        return [{"type": "text", "text": content}] if isinstance(content, str) else content or []

    def is_result(block):
        return isinstance(block, dict) and block.get("type") == "tool_result"

    out, i = [], 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if role(message) == "user" and any(is_result(b) for b in blocks(message)):
            rest = [b for b in blocks(message) if not is_result(b)]  # answers no call in place
            if rest or program == "repair-anthropic-keeps-emptied":
                out.append(dict(message, content=rest))
            continue
        out.append(message)
        calls = blocks(message) if role(message) == "assistant" else []
        ids = [b.get("id") for b in calls if isinstance(b, dict) and b.get("type") == "tool_use"]
        if not ids:
            continue
        if i < len(messages) and role(messages[i]) == "user":
            after = messages[i]
            i += 1
        else:
            after = {"role": "user", "content": []}
        answers = {}
        for b in blocks(after):
            if is_result(b) and b.get("tool_use_id") in ids:
                answers.setdefault(b.get("tool_use_id"), b)
        results = [answers.get(c, {"type": "tool_result", "tool_use_id": c, "content": MARKER + " no result"}) for c in ids]
        others = [b for b in blocks(after) if not is_result(b)]
        if program == "repair-anthropic-results-last":
            out.append(dict(after, content=others + results))
        else:
            out.append(dict(after, content=results + others))
    return out


def opens_cycle_at(messages, boundary):
    """Whether cutting at `boundary` keeps a tool message whose call is summarised away."""
    return boundary < len(messages) and role(messages[boundary]) == "tool"


def cut(messages, target):
    if program == "cut-at-target":
        return target
    if program == "cut-gives-up-long" and len(messages) > 12:
        return 0
    if target == 0:
        return 0
    candidates = list(range(min(target, len(messages)), 0, -1)) + list(range(target + 1, len(messages) + 1))
    return next((b for b in candidates if not opens_cycle_at(messages, b)), 0)


def parts(message):
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else None


def prune(messages):
    keep_from = max(len(messages) - 2, 0)
    recent = set()
    for message in messages[keep_from:]:
        for part in parts(message) or []:
            if isinstance(part, dict) and part.get("type") in ("tool-call", "tool-result"):
                recent.add(part.get("toolCallId"))
    out = []
    for at, message in enumerate(messages):
        content = parts(message)
        if at >= keep_from or content is None:
            out.append(message)
            continue

        def dropped(part):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "reasoning":
                return True
            if kind == "tool-call":
                return True if program == "prune-keeps-results" else part.get("toolCallId") not in recent
            if kind == "tool-result":
                return False if program == "prune-keeps-results" else part.get("toolCallId") not in recent
            return False

        kept = [part for part in content if not dropped(part)]
        if kept or not content:
            out.append(dict(message, content=kept))
    if program == "prune-drops-last-user":
        last_user = max((i for i, m in enumerate(out) if role(m) == "user"), default=None)
        if last_user is not None:
            del out[last_user]
    return out


def trim(messages):
    head = messages[:1] if messages and role(messages[0]) == "system" else []
    window = messages[max(len(head), len(messages) - 6):]
    if program != "trim-keeps-orphan":
        while window and role(window[0]) == "tool":
            window = window[1:]
    if program == "trim-shortens-kept":
        window = [dict(m, content=m["content"][:20]) if role(m) == "user" and isinstance(m.get("content"), str) else m for m in window]
    dropped = len(messages) - len(head) - len(window)
    notice = [{"role": "user", "content": f"{MARKER} Skipped {dropped} messages."}] if dropped else []
    return head + notice + window


for line in sys.stdin:
    request = json.loads(line)
    if program == "sweep-drops-calls":
        drop = lambda m: dict(m, content=[b for b in m["content"] if not (isinstance(b, dict) and b.get("type") == "toolCall")])
        kept = [drop(m) if role(m) == "assistant" and isinstance(m.get("content"), list) else m for m in request["messages"]]
        answer = {"messages": kept, "swept": []}
    elif program.startswith("cut-"):
        answer = {"boundary": cut(request["messages"], request["target"])}
    elif program.startswith("prune-"):
        answer = {"messages": prune(request["messages"])}
    elif program.startswith("trim-"):
        answer = {"messages": trim(request["messages"])}
    elif program in ("repair-careful-anthropic", "repair-anthropic-results-last", "repair-anthropic-keeps-emptied"):
        answer = {"messages": anthropic_repair(request["messages"])}
    else:
        if program == "repair-chatty" and len(request["messages"]) > 4:
            print(f"repairing {len(request['messages'])} messages", flush=True)
        answer = {"messages": repair(request["messages"])}
    print(json.dumps(answer), flush=True)
