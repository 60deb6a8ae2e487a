#!/usr/bin/env python3
"""Checks that the unit-test binary runs every test the sources define.

    unit_test_registry.py UNITTESTS_SOURCE_DIR UNIT_TEST_BINARY

Counts the TEST and TEST_F macros of the .cpp files under the source
folder and the cases `--gtest_list_tests` lists; a source file left out
of unittests/CMakeLists.txt, or a binary that lists nothing, makes them
differ. Prints both counts.
"""

import pathlib
import re
import subprocess
import sys

DEFINITION = re.compile(r"^(TEST|TEST_F)\(\s*(\w+)\s*,\s*(\w+)\s*\)",
                        re.MULTILINE)


def main():
    sources, binary = pathlib.Path(sys.argv[1]), sys.argv[2]
    defined = set()
    for path in sorted(sources.rglob("*.cpp")):
        for _, suite, case in DEFINITION.findall(path.read_text()):
            defined.add("%s.%s" % (suite, case))
    listing = subprocess.run([binary, "--gtest_list_tests"],
                             capture_output=True, text=True, check=True)
    listed, suite = set(), None
    for line in listing.stdout.splitlines():
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif suite:
            listed.add(suite + line.split("#")[0].strip())
    print("defined in the sources: %d, listed by the binary: %d" %
          (len(defined), len(listed)))
    missing = sorted(defined - listed)
    if missing or not listed:
        sys.exit("unit tests defined but not in the binary: %s" %
                 ", ".join(missing or ["(the binary lists none)"]))


if __name__ == "__main__":
    main()
