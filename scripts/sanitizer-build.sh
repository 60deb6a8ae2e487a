#!/usr/bin/env bash
# The sanitizer build: the whole project compiled by clang-22 with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation (LLVM's own LLVM_USE_SANITIZER / LLVM_USE_SANITIZE_COVERAGE
# switches), in its own build folder. Shared by `make fuzz` and
# `make sanitize`.
#
#   sanitizer-build.sh BUILD_DIR [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$1"
shift
# LLVM's own build defines the UBSan flags; an outside project gives them.
# vptr needs RTTI, which LLVM code is built without. The sanitizer runtime
# is linked as a shared library, so that Python (preloading it, see
# test/lit.cfg.py) and the tools it starts share one runtime.
ubsan="-fsanitize=undefined -fno-sanitize=vptr,function"
ubsan+=" -fno-sanitize-recover=all"
runtime_dir="$(clang-22 -print-runtime-dir)"
link="-shared-libsan -Wl,-rpath,$runtime_dir"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_SANITIZER="Address;Undefined" \
    -DLLVM_UBSAN_FLAGS="$ubsan" \
    -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" \
    -DCMAKE_MODULE_LINKER_FLAGS="$link" \
    -DLLVM_USE_SANITIZE_COVERAGE=ON >/dev/null
fi
cmake --build "$build" ${1:+--target "$@"}
