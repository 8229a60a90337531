"""ctxfuzz adapter template (docs/peers.md#your-own): copy it, call your function where marked,
then `ctxfuzz fuzz --contract repair|cut|prune|trim --format FORMAT --sut "python3 adapter.py"`."""
import json
import sys


def handle(request):
    messages = request["messages"]
    if "target" in request:  # cut: the first kept index near `target` (0: do not compact)
        # as copied: asked to compact (target > 0), summarise everything
        return {"boundary": len(messages) if request["target"] else 0}  # <- your compactor(messages, request["target"])
    return {"messages": messages}  # <- your repairer, pruner or trimmer(messages)


def serve(handle):
    """Answers each request line with handle's answer, one line each, until stdin ends."""
    answers, sys.stdout = sys.stdout, sys.stderr  # your code's print() must not reach ctxfuzz
    for line in sys.stdin:
        try:
            answer = handle(json.loads(line))
        except Exception as error:  # a throw is an answer, and the loop goes on
            answer = {"error": f"{type(error).__name__}: {error}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve(handle)
