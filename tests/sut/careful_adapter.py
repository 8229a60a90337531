"""examples/python/repairers.py's careful_repair behind an adapter file, the way to fuzz it without
the Python API (peers/templates/adapter.py, with the repairer called where it is marked). The
baseline of benches/python_api.rs, and what tests/ctxfuzz/package_python.rs compares the API's run
with."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../examples/python"))
from repairers import careful_repair  # noqa: E402

answers, sys.stdout = sys.stdout, sys.stderr  # your code's print() must not reach ctxfuzz


def handle(request):
    return {"messages": careful_repair(request["messages"])}


for line in sys.stdin:
    try:
        answer = handle(json.loads(line))
    except Exception as error:  # a throw is an answer, and the loop goes on
        answer = {"error": f"{type(error).__name__}: {error}"}
    answers.write(json.dumps(answer) + "\n")
    answers.flush()
