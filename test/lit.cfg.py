# -*- Python -*-
# lit configuration of the quant-qdq regression tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUANTQDQ"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qdq_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%qdq_src_root", config.qdq_src_root))
config.substitutions.append(("%qdq_obj_root", config.qdq_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%downstream_cmake_args",
                             config.qdq_downstream_cmake_args))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))

# ONNX Runtime (the Python package, pinned in requirements.txt and installed
# by scripts/setup.sh into the environment %python belongs to) runs exported
# models. A missing package makes those tests fail, never skip.
config.substitutions.append(
    ("%run_models",
     "%s %s" % (config.python_executable,
                os.path.join(config.qdq_src_root, "test", "Integration",
                             "Inputs", "run_models.py"))))
config.substitutions.append(("%llvm_prefix", os.path.dirname(config.llvm_tools_dir)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Sanitizer build (make sanitize): the tools link the shared ASan/UBSan
# runtime; Python, which loads the instrumented extension, preloads it
# (config.python_executable is then a wrapper, test/CMakeLists.txt), and so
# do the tools it starts. Other programs (compilers, shells) run without
# it.
sys.path.insert(0, os.path.dirname(__file__))
from lit_sanitizer import set_sanitizer_environment  # noqa: E402
set_sanitizer_environment(config)
tool_dirs = [config.qdq_tools_dir, config.llvm_tools_dir]
tools = ["qdq-opt", "qdq-translate", "qdq-run", "qdq-capi-test", "mlir-opt",
         "mlir-pdll", "qdq-onnx-import-fuzzer", "qdq-npy-fuzzer", "qdq-npz-fuzzer",
         "qdq-external-data-fuzzer",
         "qdq-calibration-table-fuzzer", "qdq-spec-fuzzer", "qdq-mlir-fuzzer"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# CUDA. The toolkit is required, a GPU is not: without the toolkit, %ptxas
# is a command that fails saying what to install, and the runtime and stub
# paths are names that say it where they fail (tests fail loudly, never
# skip). Only tests that execute on a GPU may be UNSUPPORTED, through
# `REQUIRES: cuda-device`, a feature present when qdq-run finds a device.
import subprocess
cuda_toolkit = config.qdq_cuda_toolkit
cuda_missing = "-missing:install-the-CUDA-toolkit-in-/usr/local/cuda-and-reconfigure"
ptxas = os.path.join(cuda_toolkit, "bin", "ptxas") if cuda_toolkit else ""
if ptxas and os.access(ptxas, os.X_OK):
    config.substitutions.append(("%ptxas", ptxas))
else:
    config.substitutions.append(
        ("%ptxas", "%s -c \"import sys; sys.exit('ptxas not found: install "
         "the CUDA toolkit (/usr/local/cuda)')\"" % config.python_executable))
# The project's runtime, and the driver stub it is linked against (a
# libcuda.so.1 whose every call fails) for the runtime's error path without a
# GPU.
config.substitutions.append(
    ("%cuda_runtime",
     config.qdq_cuda_runtime or "libQuantQDQCUDARuntime.so" + cuda_missing))
config.substitutions.append(
    ("%cuda_driver_stub",
     config.qdq_cuda_driver_stub or "libcuda-stub" + cuda_missing))
# Builds test doubles such as Execution/Inputs/fake_libcuda.c.
config.substitutions.append(("%cc", config.c_compiler))

qdq_run = os.path.join(config.qdq_tools_dir, "qdq-run")
try:
    probe = subprocess.run([qdq_run, "--probe-device=cuda"],
                           capture_output=True, text=True, timeout=300)
    if probe.returncode == 0:
        config.available_features.add("cuda-device")
        lit_config.note("GPU tests run on " + probe.stdout.strip())
    else:
        lit_config.note("GPU execution tests are unsupported: " +
                        (probe.stderr.strip() or "qdq-run --probe-device=cuda "
                         "failed"))
except (OSError, subprocess.TimeoutExpired) as error:
    lit_config.note("GPU execution tests are unsupported: %s" % error)
