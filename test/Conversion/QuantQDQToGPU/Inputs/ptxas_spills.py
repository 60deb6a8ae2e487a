#!/usr/bin/env python3
"""Checks ptxas's resource report (`ptxas -v`, read from stdin): every
kernel of the PTX file was compiled, and none spills.

    ptxas -v K.ptx -o K.cubin 2>&1 | ptxas_spills.py K.ptx

Each `.entry` of the PTX must have a "Function properties" block whose
line reads "0 bytes spill stores, 0 bytes spill loads", and so must every
other function ptxas reports (a device function not inlined). Prints the
number of kernels checked; exits 1 naming each function that spills and
each kernel that ptxas did not report.
"""

import re
import sys

ENTRY = re.compile(r"^\s*(?:\.visible\s+)?\.entry\s+(\w+)\s*\(", re.MULTILINE)
PROPERTIES = re.compile(r"Function properties for (\w+)\s*\n\s*(.*)")
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def main():
    kernels = ENTRY.findall(open(sys.argv[1], encoding="utf-8").read())
    report = sys.stdin.read()
    spills = {}
    for name, line in PROPERTIES.findall(report):
        match = SPILLS.search(line)
        spills[name] = (int(match.group(1)), int(match.group(2))) \
            if match else None
    faults = ["%s: not in ptxas's report" % kernel
              for kernel in kernels if kernel not in spills]
    for function, figures in spills.items():
        if figures is None:
            faults.append("%s: no spill figures in ptxas's report" % function)
        elif figures != (0, 0):
            faults.append("%s: %d bytes spill stores, %d bytes spill loads" %
                          ((function,) + figures))
    if not kernels:
        faults.append("%s: no kernel (.entry) in the PTX" % sys.argv[1])
    if faults:
        sys.exit("\n".join(faults))
    print("%d kernels, none spills" % len(kernels))


if __name__ == "__main__":
    main()
