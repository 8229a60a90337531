"""Judges a cargo-mutants run from its outcome counts and the checked-in equivalents list.

usage: python3 ci/mutants_verdict.py EQUIVALENTS MUTANTS_OUT... [--rerun RERUN_OUT] [--root DIR] [--survivors-regex]

Each MUTANTS_OUT is a first pass (ci/mutants.sh: one per package, each mutant against its own
package's tests); RERUN_OUT, if given, the second pass over their survivors against the whole
workspace: a mutant the second pass catches counts as caught. `--survivors-regex` prints instead a
regex (for cargo-mutants' `--re`) naming every mutant of the first passes that was missed and is
not excused, or nothing when there is none.

EQUIVALENTS lists one mutant per line as `FILE: DESCRIPTION  # reason` or
`FILE: DESCRIPTION @ `CODE`  # reason`: the mutant as cargo-mutants names it, without line and
column, so the list survives unrelated edits. A description can name several mutants of one
function (two `+` in it, say); `@ `CODE`` then pins the one meant: CODE must occur on the mutant's
line in DIR (`--root`, default: the current directory) and cover its column. Exit 0 when every mutant
is caught, unviable or a listed equivalent; 1 otherwise, naming each survivor.
"""

import argparse
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


def outcomes(out: Path) -> list[tuple[dict, str]]:
    """Each mutant of a run with its summary (`CaughtMutant`, `MissedMutant`, ...)."""
    every = json.loads((out / "outcomes.json").read_text())["outcomes"]
    return [(o["scenario"]["Mutant"], o["summary"]) for o in every if o["scenario"] != "Baseline"]


def name_regex(mutant: dict) -> str:
    """A regex for cargo-mutants' `--re` that matches this mutant's name alone, whether the name
    is matched with its line and column or without."""
    key = mutant_key(mutant)
    path, _, description = key.partition(": ")
    start = mutant["span"]["start"]
    meta = set("\\.+*?()|[]{}^$")
    escape = lambda text: "".join("\\" + c if c in meta else c for c in text)
    return f"^{escape(path)}:(?:{start['line']}:{start['column']}:)? {escape(description)}$"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("equivalents", type=Path)
    parser.add_argument("first_passes", type=Path, nargs="+")
    parser.add_argument("--rerun", type=Path)
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--survivors-regex", action="store_true")
    options = parser.parse_args()
    listed = equivalents(options.equivalents) if options.equivalents.exists() else {}
    first = [outcome for run in options.first_passes for outcome in outcomes(run)]
    if options.survivors_regex:
        missed = [m for m, summary in first if summary == "MissedMutant" and excuse(m, listed, options.root)]
        if missed:
            print("|".join(f"(?:{name_regex(m)})" for m in missed))
        return 0
    rerun = {m["name"]: summary for m, summary in outcomes(options.rerun)} if options.rerun else {}
    counts = Counter()
    survivors = []
    for mutant, summary in first:
        if summary == "MissedMutant":
            summary = rerun.get(mutant["name"], summary)
        why = excuse(mutant, listed, options.root) if summary == "MissedMutant" else None
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
