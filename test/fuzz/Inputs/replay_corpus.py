#!/usr/bin/env python3
"""Replays a corpus through a fuzz target's replay tool and checks that
every input ran.

    replay_corpus.py TOOL CORPUS_DIR

The tool (FuzzerMain.cpp) reports "Running: FILE" before each input; a
crash, a sanitizer report or a non-zero exit fails, and so does an input
that never ran (a target that exits early would skip the rest silently).
Prints how many inputs ran, and how many of them once crashed or hung a
target (fuzz/regressions, named regression-* in the corpus).
"""

import pathlib
import subprocess
import sys


def main():
    tool, corpus = sys.argv[1], pathlib.Path(sys.argv[2])
    inputs = sorted(str(p) for p in corpus.iterdir() if p.is_file())
    if not inputs:
        sys.exit("%s: no input to replay" % corpus)
    result = subprocess.run([tool] + inputs, capture_output=True, text=True)
    # "Running: PATH (N bytes)"
    ran = {line[len("Running: "):].rsplit(" (", 1)[0]
           for line in result.stderr.splitlines()
           if line.startswith("Running: ")}
    if result.returncode != 0:
        sys.exit("%s exited with %d:\n%s" % (tool, result.returncode,
                                            result.stderr[-4000:]))
    skipped = [p for p in inputs if p not in ran]
    if skipped:
        sys.exit("%s did not run %d of %d inputs, the first %s" %
                 (tool, len(skipped), len(inputs), skipped[0]))
    regressions = sum(pathlib.Path(p).name.startswith("regression-")
                      for p in inputs)
    print("%s: %d inputs replayed, %d of them from fuzz/regressions" %
          (corpus.name, len(inputs), regressions))


if __name__ == "__main__":
    main()
