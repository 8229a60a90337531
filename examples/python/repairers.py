"""Two repairers of OpenAI chat transcripts, as an agent harness would write them: each puts every
tool call's result right after the assistant message that made the call, and answers a call that
has no result with a synthetic one, so that the provider accepts the request.

`lossy_repair` has a real defect, the one litellm 1.110.2 has (docs/peers.md#findings): it gathers
a call's results from the messages that follow, up to the next assistant message, and a user
message between the call and its result (the user steering the agent mid-turn) is gathered with
them and lost. `careful_repair` keeps every message that is not a tool result, in order.
"""

MARKER = "[no result was recorded]"


def synthetic(call_id):
    return {"role": "tool", "tool_call_id": call_id, "content": MARKER}


def call_ids(message):
    if message.get("role") != "assistant":
        return []
    return [call.get("id") for call in message.get("tool_calls") or []]


def lossy_repair(messages):
    repaired, i = [], 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if message.get("role") == "tool":
            continue  # a result that follows no call: dropped
        repaired.append(message)
        calls = call_ids(message)
        if not calls:
            continue
        results = {}
        while i < len(messages) and messages[i].get("role") != "assistant":
            if messages[i].get("role") == "tool":
                results.setdefault(messages[i].get("tool_call_id"), messages[i])
            i += 1  # the defect: a user message here is passed over, never copied
        repaired.extend(results.get(call_id) or synthetic(call_id) for call_id in calls)
    return repaired


def careful_repair(messages):
    results = {}
    for message in messages:
        if message.get("role") == "tool":
            results.setdefault(message.get("tool_call_id"), []).append(message)
    repaired = []
    for message in messages:
        if message.get("role") == "tool":
            continue  # placed after its call below, or dropped when no call of it is left
        repaired.append(message)
        for call_id in call_ids(message):
            found = results.get(call_id)
            repaired.append(found.pop(0) if found else synthetic(call_id))
    return repaired
