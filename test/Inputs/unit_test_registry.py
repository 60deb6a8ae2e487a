#!/usr/bin/env python3
"""Checks that the unit-test binary runs every test the sources define.

    unit_test_registry.py UNITTESTS_SOURCE_DIR UNIT_TEST_BINARY

Compares the TEST and TEST_F cases of the .cpp files under the source
folder with those `--gtest_list_tests` lists: a source file left out of
unittests/CMakeLists.txt, or a binary that lists nothing, fails. So do a
DISABLED_ case (lit's GoogleTest format skips them silently) and the
macros this check cannot count (TEST_P, TYPED_TEST). Prints the count.
"""

import pathlib
import re
import subprocess
import sys

DEFINITION = re.compile(r"^(TEST|TEST_F)\(\s*(\w+)\s*,\s*(\w+)\s*\)",
                        re.MULTILINE)
UNCOUNTED = re.compile(r"^(TEST_P|TYPED_TEST\w*|INSTANTIATE_\w+)\(",
                       re.MULTILINE)


def main():
    sources, binary = pathlib.Path(sys.argv[1]), sys.argv[2]
    defined, faults = set(), []
    for path in sorted(sources.rglob("*.cpp")):
        text = path.read_text()
        for _, suite, case in DEFINITION.findall(text):
            defined.add("%s.%s" % (suite, case))
        faults += ["%s: %s cases are not counted by this check" % (path, m)
                   for m in sorted(set(UNCOUNTED.findall(text)))]
    faults += ["%s is disabled: lit never runs it" % name
               for name in sorted(defined) if "DISABLED_" in name]
    try:
        listing = subprocess.run([binary, "--gtest_list_tests"],
                                 capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        sys.exit("cannot list the unit tests of %s: %s" % (binary, error))
    listed, suite = set(), None
    for line in listing.stdout.splitlines():
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif suite:
            listed.add(suite + line.split("#")[0].strip())
    faults += ["%s is defined but not in %s" % (name, binary)
               for name in sorted(defined - listed)]
    if listing.returncode != 0 or not listed:
        faults.append("%s lists no unit test (exit %d)" %
                      (binary, listing.returncode))
    if faults:
        sys.exit("\n".join(faults))
    print("%d unit tests, every one compiled in" % len(defined))


if __name__ == "__main__":
    main()
