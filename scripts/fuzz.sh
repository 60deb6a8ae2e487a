#!/usr/bin/env bash
# Fuzzes every reader of untrusted input (fuzz/) for SECONDS each (or, with
# FUZZ_RUNS set, for that many inputs each from a fixed random seed, the
# short and repeatable run of `make test`), in the sanitizer build,
# starting from the seed corpus (fuzz/make_seeds.py) and
# the corpus earlier runs grew (BUILD_DIR/fuzz-corpus/<target>, kept).
# A crash, hang (over 20 s on one input), leak or sanitizer report stops
# that target and leaves its input in BUILD_DIR/fuzz-artifacts/<target>/;
# the script then exits 1. Add such an input to fuzz/regressions/<target>/
# with the fix.
#
#   fuzz.sh BUILD_DIR SECONDS [TARGET...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "$1")"
seconds="$2"
shift 2
targets=("$@")
((${#targets[@]})) ||
  targets=(onnx-import external-data npy npz calibration-table spec mlir)

fuzzers=()
for t in "${targets[@]}"; do fuzzers+=("qdq-$t-fuzzer"); done
"$root/scripts/sanitizer-build.sh" "$build" "${fuzzers[@]}" || exit 1

python="$root/.venv/bin/python3"
[[ -x "$python" ]] || python=python3
seeds="$build/fuzz-seeds"
rm -rf "$seeds"
"$python" "$root/fuzz/make_seeds.py" "$seeds" || exit 1

# The build links the sanitizer runtime as a shared library; libFuzzer's
# link puts libstdc++ before it, which the runtime refuses unless preloaded.
export LD_PRELOAD="$(clang-22 -print-file-name=libclang_rt.asan-x86_64.so)"
# LLVM's allocators poison their free space only where their inline code
# is compiled with ASan (ours), not in Debian's libMLIR: with user poisoning
# on, MLIR's uniquer allocating from a slab our code poisoned is reported.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
: "${ASAN_SYMBOLIZER_PATH:=/usr/lib/llvm-22/bin/llvm-symbolizer}"
export ASAN_SYMBOLIZER_PATH
failed=()
for t in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  amount="${seconds}s"
  [[ -z "${FUZZ_RUNS:-}" ]] || amount="$FUZZ_RUNS inputs"
  echo "fuzz: $t for $amount" >&2
  if [[ -n "${FUZZ_RUNS:-}" ]]; then
    limit=(-runs="$FUZZ_RUNS" -seed=1)
  else
    limit=(-max_total_time="$seconds")
  fi
  # Only the corpus folder is written to; the seeds are read.
  "$build/bin/qdq-$t-fuzzer" "$corpus" "$seeds/$t" \
    "${limit[@]}" -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 \
    >"$build/fuzz-$t.log" 2>&1
  status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|cov: .* ft:" \
    "$build/fuzz-$t.log" | tail -3 >&2
  if ((status != 0)); then
    failed+=("$t")
    echo "fuzz: $t FAILED (see $build/fuzz-$t.log, input in $artifacts)" >&2
  fi
done
((${#failed[@]} == 0)) || { echo "fuzz: failed: ${failed[*]}" >&2; exit 1; }
