"""What a `ctxfuzz fuzz` run printed, read back: the `Summary` of a run, the `FuzzFailure` of one
that charged something.

The CLI's default text is read, not its `--json`: it is the only output that holds a finding in
full (the minimised input and the diff of the program's answer), and the failure shows it as the
CLI printed it. Only its line structure is read here: a finding is a block that starts with
`finding: ` at the first column, the statistics and the class counts are the lines `brief_summary`
of src/cli/fuzz.rs writes (tests/ctxfuzz/package_python.rs reads a real run through this).
"""

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"^fuzzing \S+ \[[^\]]*\] seed (\d+) on ")
_FINDING = re.compile(r"^finding: \S+ \[[^\]]*\] ([^\s:]+)")
_STATS = re.compile(
    r"^\S+ \[[^\]]*\]: (\d+) execs in ([\d.]+)s \(\d+/s\), (\d+) cannot judge, "
    r"(\d+) rejected by the generator, (\d+) failing$"
)
# The periodic progress line the CLI prints when its stdout is no terminal (src/harness/progress.rs).
_PROGRESS = re.compile(r"^\S+ \[[^\]]*\]: execs \d+  execs/s ")
_SKIPPED = re.compile(r"^  cannot express in \S+: \d+ generated transcript\(s\) skipped(?: \((.*)\))?$")
# The class lines of the summary, by the title the CLI prints, named as its --json names them.
_CLASSES = {"reported in their own class": "informational", "unpreventable": "unpreventable"}


@dataclass
class Finding:
    """One charged finding: its invariant, what that invariant promises, and the CLI's report of it
    (the explanation, the minimised input, the diff, the case file and the replay command)."""

    invariant: str
    statement: str
    report: str
    case_file: "str | None" = None
    replay: "str | None" = None


@dataclass
class Summary:
    """A run, as the CLI summarised it: `classes` counts the violations not charged, by class
    (`informational`, `unpreventable`) and invariant; `skipped` the generated transcripts the
    format cannot express, by reason; `output` is everything the CLI printed."""

    seed: int
    execs: int
    seconds: float
    cannot_judge: int
    rejected: int
    failing: int
    verdict: str
    classes: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    output: str = ""


class FuzzFailure(AssertionError):
    """A run that charged a finding (or judged none of its cases): its message is the CLI's report
    of each charged finding, each after the statement of the invariant it breaks, then the CLI's
    summary. `findings` (a list of `Finding`) and `summary` hold the same, read."""

    def __init__(self, message, findings, summary):
        super().__init__(message)
        self.findings = findings
        self.summary = summary


def read_run(output, target, explain):
    """(Summary, FuzzFailure) of a run of `target` that printed `output`; `explain(invariant)` is
    the statement of an invariant. The failure is only raised when the CLI exited 1."""
    lines = output.splitlines()
    summary = Summary(seed=0, execs=0, seconds=0.0, cannot_judge=0, rejected=0, failing=0, verdict="", output=output)
    findings, rest = _findings(lines)
    for line in rest:
        _read_summary_line(line, summary)
    statements = {}
    parts = []
    for finding in findings:
        if finding.invariant not in statements:
            statements[finding.invariant] = explain(finding.invariant)
            parts.append(statements[finding.invariant])
        finding.statement = statements[finding.invariant]
        parts.append(finding.report)
    counted = f"{len(findings)} charged finding(s)" if findings else "nothing judged"
    head = f"ctxfuzz: {counted} in {target} (seed {summary.seed})"
    summary_lines = [line for line in rest if not (_HEADER.match(line) or _PROGRESS.match(line))]
    message = "\n".join([head, "", *parts, "", *summary_lines])
    return summary, FuzzFailure(message, findings, summary)


def _findings(lines):
    """The finding blocks of `lines` (each to the next line at the first column), and the others."""
    findings, rest, block = [], [], None
    for line in lines:
        if line.startswith("finding: "):
            block = [line]
            match = _FINDING.match(line)
            findings.append(Finding(invariant=match.group(1) if match else "", statement="", report=""))
        elif block is not None and (line.startswith(" ") or not line):
            block.append(line)
        else:
            block = None
            rest.append(line)
        if block is not None:
            finding = findings[-1]
            finding.report = "\n".join(block).rstrip()
            if line.startswith("  case file:"):
                finding.case_file = line.split(":", 1)[1].strip()
            elif line.startswith("  replay:"):
                finding.replay = line.split(":", 1)[1].strip()
    return findings, rest


def _read_summary_line(line, summary):
    if header := _HEADER.match(line):
        summary.seed = int(header.group(1))
    elif stats := _STATS.match(line):
        summary.execs = int(stats.group(1))
        summary.seconds = float(stats.group(2))
        summary.cannot_judge, summary.rejected, summary.failing = map(int, stats.group(3, 4, 5))
    elif skipped := _SKIPPED.match(line):
        summary.skipped = _counts(skipped.group(1) or "")
    elif line.startswith("verdict: "):
        summary.verdict = line[len("verdict: ") :]
    else:
        title, colon, counts = line.strip().partition(": ")
        if colon and title in _CLASSES and line.startswith("  "):
            summary.classes[_CLASSES[title]] = _counts(counts.split("; e.g. ")[0].split(" (--verbose")[0])


def _counts(text):
    """`name 3, other name 4` as {name: 3, other name: 4}."""
    counts = {}
    for item in filter(None, text.split(", ")):
        name, _, count = item.rpartition(" ")
        if count.isdigit():
            counts[name] = int(count)
    return counts
