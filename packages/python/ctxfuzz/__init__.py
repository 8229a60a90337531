"""ctxfuzz from Python: fuzz a transcript rewriter of your own code inside your test suite.

    import ctxfuzz
    from myagent.history import repair

    def test_repair_keeps_the_contract():
        ctxfuzz.fuzz(repair, contract="repair", format="openai", seconds=10)

`fuzz` runs the `ctxfuzz` binary installed with this package (`ctxfuzz fuzz --contract ...
--sut CMD`), where CMD is `python -m ctxfuzz.serve` importing your function by name: the CLI
supervises your function in a process of its own, so a crash, a hang or an exception in it is
reported exactly as the CLI reports any program's. A charged finding raises `FuzzFailure` (an
`AssertionError`) with the CLI's own report; a clean run returns a `Summary`. docs/python.md.
"""

from ._report import Finding, FuzzFailure, Summary
from ._run import CtxfuzzError, fuzz


def __getattr__(name):
    """`__version__`, the installed wheel's, read when asked: importlib.metadata costs every
    process that imports ctxfuzz (each child the CLI starts does) about 10 ms."""
    if name != "__version__":
        raise AttributeError(f"module 'ctxfuzz' has no attribute {name!r}")
    from importlib import metadata

    try:
        return metadata.version("ctxfuzz")
    except metadata.PackageNotFoundError:  # imported from the source tree (the tests), not installed
        return None

# Shown by their public names in tracebacks and pytest's reports (ctxfuzz.FuzzFailure).
for _public in (CtxfuzzError, Finding, FuzzFailure, Summary):
    _public.__module__ = __name__

__all__ = ["CtxfuzzError", "Finding", "FuzzFailure", "Summary", "fuzz"]
