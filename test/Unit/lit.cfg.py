# -*- Python -*- runs the GoogleTest unit tests from the same lit invocation.
import os

import lit.formats

config.name = "mpilift-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.mpilift_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
