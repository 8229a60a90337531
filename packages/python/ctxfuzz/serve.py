"""The program `ctxfuzz.fuzz` hands to the CLI as `--sut`: the protocol loop around a function.

    python -m ctxfuzz.serve --contract CONTRACT module:function

One JSON request a line on stdin, one JSON answer a line on stdout (docs/contracts.md), the loop
of peers/templates/adapter.py. The function is called as the contract asks:

    repair, prune, trim   function(messages) -> messages
    cut                   function(messages, target) -> the first kept index (0: do not compact)
    sweep                 function(messages) -> (messages, swept call ids)

and a dict it returns is the answer itself. An exception of the function is the answer
{"error": "<Name>: <message>"} (the CLI's `sut-threw`) and the loop goes on; anything else that
goes wrong (an import that fails, an answer that is not JSON) ends the process with a traceback on
stderr, which the CLI reports as the program's crash with that traceback as its evidence.
The command the CLI runs sets PYTHONHASHSEED=0, so a function that iterates over a set of ids
answers the same input the same way in every run and its case files replay.
"""

import json
import sys

from ._function import load

CONTRACTS = ("repair", "prune", "trim", "cut", "sweep")


def answer_of(contract, function, request):
    """The protocol's answer of `function` to one request under `contract`."""
    messages = request["messages"]
    result = function(messages, request["target"]) if contract == "cut" else function(messages)
    if isinstance(result, dict):
        return result
    if contract == "cut":
        return {"boundary": result}
    if contract == "sweep":
        kept, swept = result
        return {"messages": kept, "swept": list(swept)}
    return {"messages": result}


def main(argv):
    if len(argv) != 3 or argv[0] != "--contract" or argv[1] not in CONTRACTS:
        sys.exit(f"usage: python -m ctxfuzz.serve --contract {'|'.join(CONTRACTS)} module:function")
    contract, target = argv[1], argv[2]
    answers, sys.stdout = sys.stdout, sys.stderr  # the function's print() must not reach ctxfuzz
    function = load(target)
    for line in sys.stdin:
        try:
            answer = answer_of(contract, function, json.loads(line))
        except Exception as error:  # noqa: BLE001 - a throw is an answer, and the loop goes on
            answer = {"error": f"{type(error).__name__}: {error}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
