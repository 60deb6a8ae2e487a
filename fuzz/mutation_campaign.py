"""The loop the semantic mutation drivers share (mutate_models.py for ONNX,
mutate_keras.py for Keras files): make mutants for a time budget, run a
tool on each, judge and tally the outcome per mutation class, keep the
first mutant of each problem, print a table.
"""
import collections
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path


def add_campaign_arguments(parser, work_prefix):
    """The options both drivers take: how long, how many, the random seed,
    and the folder that keeps the mutants that count. Returns a function
    that makes that folder from the parsed arguments."""
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--count", type=int, default=0,
                        help="stop after this many mutants (0: time only)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", help="keep the mutants that count here")

    def work_folder(args):
        work = Path(args.work or tempfile.mkdtemp(prefix=work_prefix))
        work.mkdir(parents=True, exist_ok=True)
        return work

    return work_folder


class Campaign:
    """Counts per mutation class; `columns` are the outcomes the table
    shows (the first, "mutants", counts them all)."""

    def __init__(self, work, columns, benign=()):
        self.work = work
        self.columns = ["mutants", *columns]
        # Outcomes counted but not failures (by design).
        self.benign = set(benign)
        self.counts = collections.defaultdict(collections.Counter)
        self.examples = {}
        self.start = time.monotonic()
        self.done = 0

    def running(self, seconds, count):
        return time.monotonic() - self.start < seconds and (
            not count or self.done < count)

    def run(self, command, timeout=120):
        """The tool's exit status, "timeout", and its output. A run that
        times out is killed with its children (an importer child)."""
        process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
            return process.returncode, output
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return "timeout", ""

    def record(self, kind, problem, mutant, what):
        """Counts one mutant of class `kind` with outcome `problem` (None:
        as expected); keeps the first mutant of each failing outcome."""
        self.done += 1
        tally = self.counts[kind]
        tally["mutants"] += 1
        if not problem:
            return
        tally[problem] += 1
        if problem not in self.benign and problem not in self.examples:
            kept = self.work / f"{kind}-{tally['mutants']}{mutant.suffix}"
            mutant.rename(kept)
            self.examples[problem] = f"{kept}: {what}"

    def report(self, title):
        """Prints the table; 1 when any mutant had a failing outcome."""
        seconds = time.monotonic() - self.start
        print(f"{self.done} mutants of {title} in {seconds:.0f} s")
        print("class".ljust(20) + "".join(c.rjust(24) for c in self.columns)
              + "  other")
        bad = 0
        for kind in sorted(self.counts):
            tally = self.counts[kind]
            other = {k: v for k, v in tally.items()
                     if k not in self.columns}
            bad += sum(v for k, v in tally.items()
                       if k != "mutants" and k not in self.benign)
            print(kind.ljust(20)
                  + "".join(str(tally[c]).rjust(24) for c in self.columns)
                  + ("  " + str(other) if other else ""))
        for problem, example in self.examples.items():
            print(f"first {problem}: {example}")
        return 1 if bad else 0
