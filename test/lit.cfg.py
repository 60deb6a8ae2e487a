# -*- Python -*-
# lit configuration of the quant-qdq regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUANTQDQ"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "node_modules", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qdq_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%qdq_src_root", config.qdq_src_root))
config.substitutions.append(("%qdq_obj_root", config.qdq_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))

# onnxruntime-node runs exported models (test/Integration). A missing node
# or npm package makes those tests fail, never skip: scripts/setup.sh
# installs both.
import shutil
node = shutil.which("node") or "node"
config.substitutions.append(
    ("%run_models",
     "%s %s" % (node, os.path.join(config.qdq_src_root, "test", "Integration",
                                   "node", "run_models.mjs"))))
config.substitutions.append(("%llvm_prefix", os.path.dirname(config.llvm_tools_dir)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.qdq_tools_dir, config.llvm_tools_dir]
tools = ["qdq-opt", "qdq-translate", "qdq-run", "mlir-opt", "mlir-pdll"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
