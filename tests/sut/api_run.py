"""Runs one scenario of the Python API (packages/python) and prints its outcome as one JSON line:
what `ctxfuzz.fuzz` returned or raised, read. tests/ctxfuzz/package_python.rs runs it with
packages/python on PYTHONPATH and the test build's binary on PATH.

    python3 tests/sut/api_run.py SCENARIO
"""

import json
import os
import sys

import api_functions
import ctxfuzz


def closure():
    def inner(messages):
        return messages

    return inner


def in_main(messages):
    return messages


SCENARIOS = {
    "crash": lambda: ctxfuzz.fuzz(api_functions.crashes, runs=5, seed=1),
    "hang": lambda: ctxfuzz.fuzz(api_functions.hangs, runs=2, seed=1, timeout_ms=300),
    "exception": lambda: ctxfuzz.fuzz(api_functions.raises, runs=50, seed=1),
    "careful": lambda: ctxfuzz.fuzz("repairers:careful_repair", runs=300, seed=1, marker="[no result was recorded]"),
    "unknown-format": lambda: ctxfuzz.fuzz(api_functions.unchanged, format="yaml", runs=1),
    "lambda": lambda: ctxfuzz.fuzz(lambda messages: messages, runs=1),
    "closure": lambda: ctxfuzz.fuzz(closure(), runs=1),
    "main": lambda: ctxfuzz.fuzz(in_main, runs=1),
    "no-module": lambda: ctxfuzz.fuzz("no_such_module:repair", runs=1),
    "block": lambda: ctxfuzz.fuzz(api_functions.blocks, runs=1000, jobs=1, timeout_ms=600_000),
}
for contract, format, function in [
    ("repair", "anthropic", api_functions.unchanged),
    ("prune", "ai-sdk", api_functions.unchanged),
    ("trim", "gemini", api_functions.unchanged),
    ("cut", "langchain", api_functions.no_cut),
    ("sweep", "pi", api_functions.no_sweep),
]:
    SCENARIOS[contract] = lambda c=contract, f=format, fn=function: ctxfuzz.fuzz(fn, c, f, runs=200, seed=1)


def main(scenario):
    try:
        summary = SCENARIOS[scenario]()
    except ctxfuzz.FuzzFailure as failure:
        outcome = {
            "outcome": "failure",
            "invariants": [finding.invariant for finding in failure.findings],
            "case_files": [finding.case_file for finding in failure.findings],
            "message": str(failure),
        }
    except (ctxfuzz.CtxfuzzError, TypeError, ValueError) as error:
        outcome = {"outcome": type(error).__name__, "message": str(error)}
    except KeyboardInterrupt:
        outcome = {"outcome": "interrupted"}
    else:
        outcome = {"outcome": "summary", "seed": summary.seed, "execs": summary.execs, "classes": summary.classes,
                   "skipped": summary.skipped, "verdict": summary.verdict}
    outcome["findings_dir"] = os.path.isdir("findings")
    print(json.dumps(outcome))


if __name__ == "__main__":
    main(sys.argv[1])
