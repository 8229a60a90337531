"""Judges a cargo-mutants run from its outcome counts and the checked-in equivalents list.

usage: python3 ci/mutants_verdict.py MUTANTS_OUT EQUIVALENTS

EQUIVALENTS lists one mutant per line as `FILE: DESCRIPTION  # reason` (the mutant as cargo-mutants
names it, without line and column, so the list survives unrelated edits). Exit 0 when every
mutant is caught, unviable or a listed equivalent; 1 otherwise, naming each survivor.
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path


def equivalents(path: Path) -> dict[str, str]:
    listed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        mutant, sep, reason = line.partition("  # ")
        if not sep or not reason.strip():
            sys.exit(f"{path}:{number}: an equivalent mutant needs a reason: `FILE: DESCRIPTION  # reason`")
        listed[mutant.strip()] = reason.strip()
    return listed


def mutant_key(outcome: dict) -> str:
    """`src/sweep.rs: replace == with != in sweep`: the mutant's name without line and column."""
    return re.sub(r"^([^:]+):\d+:\d+: ", r"\1: ", outcome["scenario"]["Mutant"]["name"])


def main() -> int:
    out, equivalents_path = Path(sys.argv[1]), Path(sys.argv[2])
    outcomes = json.loads((out / "outcomes.json").read_text())
    listed = equivalents(equivalents_path) if equivalents_path.exists() else {}
    counts = Counter()
    survivors = []
    for outcome in outcomes["outcomes"]:
        if outcome["scenario"] == "Baseline":
            continue
        summary = outcome["summary"]
        key = mutant_key(outcome)
        if summary == "MissedMutant" and key in listed:
            counts["equivalent"] += 1
        else:
            counts[summary] += 1
            if summary in ("MissedMutant", "Timeout"):
                survivors.append(f"{summary}: {key}")
    total = sum(counts.values())
    print(
        f"mutants: {total}  caught: {counts['CaughtMutant']}  unviable: {counts['Unviable']}  "
        f"equivalent: {counts['equivalent']}  missed: {counts['MissedMutant']}  timeouts: {counts['Timeout']}"
    )
    for survivor in survivors:
        print(f"  {survivor}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
