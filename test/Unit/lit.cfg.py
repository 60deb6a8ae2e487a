# -*- Python -*-
# The gtest unit tests (unittests/), run by lit in check-qdq: lit's
# GoogleTest format runs the binary in shards and reports every test case
# as a test of its own (QUANTQDQ-Unit :: QuantQDQUnitTests/<suite>/<case>).

import os
import subprocess
import sys

import lit.formats

config.name = "QUANTQDQ-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.qdq_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from lit_sanitizer import set_sanitizer_environment  # noqa: E402
set_sanitizer_environment(config)

# The format finds nothing, silently, when the binary is missing or lists
# no test: that is how the unit tests once went unrun. Either stops lit.
unit_tests = os.path.join(config.test_source_root, "QuantQDQUnitTests")
try:
    listing = subprocess.run([unit_tests, "--gtest_list_tests"],
                             env=config.environment, capture_output=True,
                             text=True, timeout=120)
except (OSError, subprocess.TimeoutExpired) as error:
    lit_config.fatal("cannot run the unit tests (%s): %s; build the "
                     "QuantQDQUnitTests target" % (unit_tests, error))
listed = sum(line.startswith("  ") for line in listing.stdout.splitlines())
if listing.returncode != 0 or listed == 0:
    lit_config.fatal("%s lists no unit test (exit %d): %s" %
                     (unit_tests, listing.returncode, listing.stderr.strip()))
