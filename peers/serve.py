"""The peer protocol (docs/peers.md), shared by the Python adapters: one JSON request a line on
stdin, one JSON answer a line on stdout, for as long as stdin stays open. An exception of the
package's function is answered as {"error": "<Name>: <message>"} and the process goes on.

Importing this module first makes the adapter reproducible and its stdout clean: the interpreter
is restarted once with PYTHONHASHSEED=0 (a package that iterates over a set of ids then answers the
same input the same way in every run), and print() of the packages goes to stderr.
"""

import json
import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, sys.orig_argv)

_answers = sys.stdout
sys.stdout = sys.stderr


def serve(handle):
    """Answers every request line with `handle(request)`, the answer or the exception it raised."""
    for line in sys.stdin:
        try:
            answer = handle(json.loads(line))
        except Exception as error:  # noqa: BLE001 - every failure of the package is an answer
            answer = {"error": f"{type(error).__name__}: {error}"}
        _answers.write(json.dumps(answer) + "\n")
        _answers.flush()
