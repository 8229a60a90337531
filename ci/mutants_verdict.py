"""Judges a cargo-mutants run from its outcome counts and the checked-in equivalents list.

usage: python3 ci/mutants_verdict.py MUTANTS_OUT EQUIVALENTS [SOURCE_ROOT]

EQUIVALENTS lists one mutant per line as `FILE: DESCRIPTION  # reason` or
`FILE: DESCRIPTION @ `CODE`  # reason`: the mutant as cargo-mutants names it, without line and
column, so the list survives unrelated edits. A description can name several mutants of one
function (two `+` in it, say); `@ `CODE`` then pins the one meant: CODE must occur on the mutant's
line in SOURCE_ROOT (default: the current directory) and cover its column. Exit 0 when every mutant
is caught, unviable or a listed equivalent; 1 otherwise, naming each survivor.
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path

ENTRY = re.compile(r"^(?P<mutant>.+?)(?: @ `(?P<code>[^`]+)`)?$")


def equivalents(path: Path) -> dict[str, list[str | None]]:
    """Each listed mutant key with the code snippets that pin it (`None`: any mutant of that key)."""
    listed: dict[str, list[str | None]] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        entry, sep, reason = line.partition("  # ")
        if not sep or not reason.strip():
            sys.exit(f"{path}:{number}: an equivalent mutant needs a reason: `FILE: DESCRIPTION  # reason`")
        parsed = ENTRY.match(entry.strip())
        listed.setdefault(parsed["mutant"], []).append(parsed["code"])
    return listed


def mutant_key(mutant: dict) -> str:
    """`src/sweep.rs: replace == with != in sweep`: the mutant's name without line and column."""
    return re.sub(r"^([^:]+):\d+:\d+: ", r"\1: ", mutant["name"])


def mutated_line(mutant: dict, root: Path) -> tuple[str, int]:
    """The source line the mutant starts on, and its 0-based column there."""
    start = mutant["span"]["start"]
    lines = (root / mutant["file"]).read_text().splitlines()
    line = lines[start["line"] - 1] if start["line"] <= len(lines) else ""
    return line, start["column"] - 1


def covers(code: str, line: str, column: int) -> bool:
    """Whether an occurrence of `code` on `line` spans `column`."""
    found = line.find(code)
    while found != -1:
        if found <= column < found + len(code):
            return True
        found = line.find(code, found + 1)
    return False


def excuse(mutant: dict, listed: dict[str, list[str | None]], root: Path) -> str | None:
    """Why a missed mutant is not excused by the list, or `None` when it is."""
    snippets = listed.get(mutant_key(mutant))
    if snippets is None:
        return "not listed as equivalent"
    if None in snippets:
        return None
    line, column = mutated_line(mutant, root)
    if any(covers(code, line, column) for code in snippets):
        return None
    pinned = ", ".join(f"`{code}`" for code in snippets)
    return f"listed as equivalent at {pinned}, but the mutated line reads `{line.strip()}`"


def main() -> int:
    out, equivalents_path = Path(sys.argv[1]), Path(sys.argv[2])
    root = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(".")
    outcomes = json.loads((out / "outcomes.json").read_text())
    listed = equivalents(equivalents_path) if equivalents_path.exists() else {}
    counts = Counter()
    survivors = []
    for outcome in outcomes["outcomes"]:
        if outcome["scenario"] == "Baseline":
            continue
        mutant = outcome["scenario"]["Mutant"]
        summary = outcome["summary"]
        why = excuse(mutant, listed, root) if summary == "MissedMutant" else None
        if summary == "MissedMutant" and why is None:
            counts["equivalent"] += 1
            continue
        counts[summary] += 1
        if summary == "MissedMutant":
            survivors.append(f"{summary}: {mutant['name']} ({why})")
        elif summary == "Timeout":
            survivors.append(f"{summary}: {mutant['name']}")
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
