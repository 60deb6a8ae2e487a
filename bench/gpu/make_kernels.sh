#!/usr/bin/env bash
# Builds the GPU benchmark's kernels here (where qdq-translate exists) into a
# manifest that run_bench.py runs on a GPU machine without MLIR/LLVM.
#
#   bench/gpu/make_kernels.sh [BUILD_DIR] [--chip sm_90] [--format bin|isa|fatbin]
#                             [-o OUT.json] [--mlir-only] [-- EXTRA qdq-translate ARGS]
#
# Writes OUT.mlir (gen_mlir.py: 80 functions, one quant_qdq op each, f32 and
# bf16: int8 per tensor and per channel, FP8, int4 blocks, TensorQuant's
# formats; 1 MiB .. 1 GiB of input) and
# OUT.json (qdq-translate --export-gpu-kernels), then validates the manifest
# with run_bench.py --dry-run. OUT defaults to BUILD_DIR/bench/gpu/kernels.json;
# BUILD_DIR to build/. QDQ_TRANSLATE overrides the translator, PYTHON the
# Python (python3). --mlir-only writes OUT.mlir (OUT ending in .mlir) and stops.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/../.." && pwd)/build
chip=sm_90
format=bin
out=
mlir_only=0
extra=()
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --chip) chip=${2:?--chip needs a value}; shift 2 ;;
    --chip=*) chip=${1#*=}; shift ;;
    --format) format=${2:?--format needs a value}; shift 2 ;;
    --format=*) format=${1#*=}; shift ;;
    -o) out=${2:?-o needs a path}; shift 2 ;;
    --mlir-only) mlir_only=1; shift ;;
    -h|--help) usage ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "make_kernels.sh: unknown option $1" >&2; usage ;;
    *) build=$1; shift ;;
  esac
done
case $format in bin|isa|fatbin) ;; *)
  echo "make_kernels.sh: --format must be bin, isa or fatbin, not '$format'" >&2; exit 2 ;; esac
[[ $chip =~ ^sm_[0-9]+[af]?$ ]] || {
  echo "make_kernels.sh: --chip must look like sm_90, not '$chip'" >&2; exit 2; }
python=${PYTHON:-python3}
out=${out:-$build/bench/gpu/kernels.json}
mkdir -p "$(dirname "$out")"
case $out in
  *.json) mlir=${out%.json}.mlir ;;
  *.mlir) mlir=$out
          [ "$mlir_only" = 1 ] || { echo "make_kernels.sh: -o names the manifest (.json)" >&2; exit 2; } ;;
  *) mlir=$out.mlir ;;
esac

"$python" "$here/gen_mlir.py" > "$mlir"
echo "wrote $mlir ($(grep -c 'func.func' "$mlir") functions)"
[ "$mlir_only" = 0 ] || exit 0

translate=${QDQ_TRANSLATE:-$build/bin/qdq-translate}
if [ ! -x "$translate" ]; then
  echo "make_kernels.sh: $translate not found; build the project first (make build)" >&2
  exit 1
fi
help=$("$translate" --help 2>/dev/null || true)
missing=()
for opt in --export-gpu-kernels --gpu-chip --gpu-format; do
  grep -qE -- "(^|[[:space:]])$opt([=[:space:]]|\$)" <<<"$help" || missing+=("$opt")
done
if [ ${#missing[@]} -gt 0 ]; then
  {
    echo "make_kernels.sh: $translate has no ${missing[*]}:"
    echo "  the GPU kernel export (qdq-translate --export-gpu-kernels --gpu-chip=... --gpu-format=...)"
    echo "  is not in this build yet. Its translations and GPU options:"
    grep -E -- '^ *--(export-|import-|gpu-|qdq-to-)' <<<"$help" | sed -E 's/^ *(--[^ ]*) *- /    \1: /' || echo "    (none)"
    echo "  $mlir was written; bench/gpu/standin_kernels.py makes a stand-in manifest."
  } >&2
  exit 1
fi
"$translate" --export-gpu-kernels --gpu-chip="$chip" --gpu-format="$format" \
  ${extra[@]+"${extra[@]}"} "$mlir" -o "$out"
echo "wrote $out ($(du -h "$out" | cut -f1))"
"$python" "$here/run_bench.py" --dry-run --expect-bench-set "$out" | tail -n 1
echo "on the GPU machine: python3 bench/gpu/run_bench.py $out --out RESULTS.md"
