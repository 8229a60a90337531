"""The tests a user of ctxfuzz writes: each fuzzes one repairer under the repair contract. With a
fixed seed and number of cases the suite judges the same cases on any machine; drop them
(`seconds=10`) to search further on each run. The careful repairer passes; the lossy one and
litellm 1.110.2 fail, each with the user message they lose in the failure message."""

import ctxfuzz
from repairers import MARKER, careful_repair, lossy_repair


def test_careful_repair():
    summary = ctxfuzz.fuzz(careful_repair, contract="repair", format="openai", runs=500, seed=1, marker=MARKER)
    assert summary.execs > 0


def test_lossy_repair():
    ctxfuzz.fuzz(lossy_repair, contract="repair", format="openai", runs=500, seed=1, marker=MARKER)


def test_litellm_repair():
    marker = "[System: Tool execution skipped/interrupted by user. No result provided for tool"
    ctxfuzz.fuzz("litellm_repair:repair", contract="repair", format="openai", runs=500, seed=1, marker=marker)
