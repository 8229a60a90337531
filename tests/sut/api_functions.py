"""Functions of a user's code that misbehave, and trivial ones for every contract, fuzzed through
the Python API by tests/sut/api_run.py (tests/ctxfuzz/package_python.rs)."""

import os
import time


def crashes(messages):
    os._exit(3)


def hangs(messages):
    time.sleep(600)


def raises(messages):
    raise ValueError("cannot repair this")


def blocks(messages):
    """Tells the test its pid and its parent's (the ctxfuzz binary), then hangs: a run to stop."""
    with open(os.environ["CTXFUZZ_TEST_PIDS"], "a") as pids:
        pids.write(f"{os.getpid()} {os.getppid()}\n")
    time.sleep(600)


def unchanged(messages):
    """repair, prune, trim: the messages as they came (no repair at all)."""
    return messages


def no_cut(messages, target):
    """cut: never compact."""
    return 0


def no_sweep(messages):
    """sweep: sweeps nothing."""
    return messages, []
