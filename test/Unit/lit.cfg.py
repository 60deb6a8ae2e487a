# -*- Python -*-
# The gtest unit tests, run by lit one test case at a time.

import os

import lit.formats

config.name = "QUANTQDQ-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.qdq_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
