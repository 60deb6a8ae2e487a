"""The figures a RESULTS.md records, and a run checked against them.

The benchmark tests (test/bench) run a benchmark with `--check-recorded`:
its figures must then agree, within stated tolerances, with the table of
RESULTS.md they are meant to reproduce, so that a figure the docs quote
cannot go stale unnoticed. A changed figure that is right is recorded as
the new truth, with the prose that quotes it.
"""
import argparse
import re
from pathlib import Path

# How far an accuracy benchmark's run may stray from what RESULTS.md
# records: two of the 540 test digits, and 1 dB of SQNR.
ACCURACY_TOLERANCES = {"top-1": 0.4, "SQNR dB": 1.0}


def accuracy_arguments(doc, build_default):
    """The accuracy benchmarks' parsed arguments: the build folder, and
    --check-recorded; `doc`'s first paragraph describes the script."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("build", nargs="?", type=Path, default=build_default)
    parser.add_argument("--check-recorded", action="store_true",
                        help="compare the figures with RESULTS.md's")
    return parser.parse_args()


def recorded_table(path, heading, caption=None):
    """The rows of the first Markdown table in the section of `path` whose
    heading contains `heading` (after the line `caption`, when given), as
    {first cell: {column: cell}}."""
    lines = Path(path).read_text().splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith("#") and heading in line), None)
    if start is None:
        raise SystemExit(f"{path}: no section headed '{heading}'")
    if caption is not None:
        start = next((i for i in range(start, len(lines))
                      if lines[i].strip() == caption), None)
        if start is None:
            raise SystemExit(f"{path}: no '{caption}' in section '{heading}'")
    while start < len(lines) and not lines[start].startswith("|"):
        start += 1
    table = []
    while start < len(lines) and lines[start].startswith("|"):
        table.append([c.strip() for c in lines[start].strip("|").split("|")])
        start += 1
    if len(table) < 3:
        raise SystemExit(f"{path}: no table under '{caption or heading}'")
    columns = table[0]
    return {row[0]: dict(zip(columns, row)) for row in table[2:]}


def number(cell):
    """The number in a cell such as '99.63 %', '+0.00' or '-0.0'."""
    match = re.search(r"[-+]?\d+(?:\.\d+)?", cell)
    if not match:
        raise ValueError(f"no number in table cell '{cell}'")
    return float(match.group())


def check_recorded(path, heading, caption, measured, tolerances,
                   whole_table=True):
    """Compares `measured` ({row: {column: value}}) with the table of
    RESULTS.md at `path` (see recorded_table): the same rows (or, without
    `whole_table`, rows of it), and each column of `tolerances` ({column:
    largest difference}) within its tolerance. Prints what agreed, and
    returns the differences, one line each (empty when all agree)."""
    recorded = recorded_table(path, heading, caption)
    faults = []
    for row in sorted(recorded.keys() - measured.keys() if whole_table
                      else ()):
        faults.append(f"'{row}' is recorded but was not measured")
    for row in sorted(measured.keys() - recorded.keys()):
        faults.append(f"'{row}' was measured but is not recorded")
    for row in sorted(measured.keys() & recorded.keys()):
        for column, tolerance in tolerances.items():
            want = number(recorded[row][column])
            got = measured[row][column]
            if abs(got - want) > tolerance:
                faults.append(f"'{row}' {column}: measured {got:.2f}, "
                              f"recorded {want:.2f} (tolerance {tolerance})")
    where = (f"{Path(path).parent.name}/{Path(path).name}, "
             f"{(caption or heading).rstrip(':')}")
    if faults:
        return [f"{where}: {fault}" for fault in faults]
    limits = ", ".join(f"{c} within {t}" for c, t in tolerances.items())
    print(f"recorded in {where}: {len(measured)} rows agree ({limits})")
    return []


def exit_on_differences(differences):
    """Ends the run naming every difference check_recorded returned."""
    if differences:
        raise SystemExit("the run disagrees with what RESULTS.md records:\n  "
                         + "\n  ".join(differences))
