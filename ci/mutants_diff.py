#!/usr/bin/env python3
"""The diff the mutation gate examines (ci/mutants.sh): the submission's diff less the lines it
only moved, unchanged, from elsewhere in the same diff (docs/mutation.md#moved-lines).

    git diff --color=always --color-moved=blocks --color-moved-ws=allow-indentation-change \\
        -c color.diff.newMoved=blue ... BASE | ci/mutants_diff.py > diff

Reads git's coloured diff, in which git itself marks each added line that belongs to a moved block
(ci/mutants.sh colours those blue and every other added line green), and writes a plain unified
diff that holds only the other added lines, as hunks of added lines at their place in the new
file: all `cargo mutants --in-diff` reads. A file left with no added line is left out. Prints the
count of moved lines it left out on stderr.
"""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MOVED = "\x1b[34m+"  # an added line coloured as moved (ci/mutants.sh sets color.diff.newMoved*)
HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,\d+)? @@")


def examined(lines):
    """Yields the plain diff of the added lines that were not moved; returns the moved count."""
    header = []  # the current file's header, written before its first hunk
    run = []  # the current run of added, not moved lines: their text
    run_start = old_before = new_next = moved = 0

    def flush():
        nonlocal run
        if run:
            yield from header
            header.clear()
            yield f"@@ -{old_before},0 +{run_start},{len(run)} @@"
            yield from ("+" + text for text in run)
            run = []

    in_header = False
    for raw in lines:
        raw = raw.rstrip("\n")
        line = ANSI.sub("", raw)
        if line.startswith("diff --git "):
            yield from flush()
            header[:] = [line]
            in_header = True
        elif in_header and not line.startswith("@@"):
            header.append(line)
        elif line.startswith("@@"):
            yield from flush()
            in_header = False
            hunk = HUNK.match(line)
            old_start, old_count = int(hunk[1]), hunk[2]
            # The old lines before the hunk: a hunk of no old line starts after its line number.
            old_before = old_start if old_count == "0" else old_start - 1
            new_next = int(hunk[3])
        elif line.startswith("+"):
            if raw.startswith(MOVED):
                moved += 1
                yield from flush()
            else:
                if not run:
                    run_start = new_next
                run.append(line[1:])
            new_next += 1
        elif line.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:  # a removed line or a context line
            yield from flush()
            old_before += 1
            if not line.startswith("-"):
                new_next += 1
    yield from flush()
    return moved


def main():
    output = examined(sys.stdin)
    while True:
        try:
            print(next(output))
        except StopIteration as end:
            print(f"mutants: {end.value} moved line(s) not examined again", file=sys.stderr)
            return


if __name__ == "__main__":
    main()
