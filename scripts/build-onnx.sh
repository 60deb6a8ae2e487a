#!/usr/bin/env bash
# ONNX's C++ library (checker, shape inference, version converter, the
# schemas of every opset), built from the source distribution of the onnx
# version requirements.txt pins, against Debian's protobuf, once: the
# result is kept in a cache that outlives build folders and clones,
#   ${QUANTQDQ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quant-qdq}/onnx-<version>-<key>
# where the key changes with protobuf, the compiler and this script.
# Prints the install prefix (what CMake's find_package(ONNX) is given).
#
#   scripts/build-onnx.sh            build if missing, print the prefix
#   scripts/build-onnx.sh --prefix   print the prefix only
#
# Needs .venv (scripts/setup.sh): its pip fetches the source distribution
# and its cmake (ONNX asks for 3.26; Debian has 3.25) configures it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=$(sed -n 's/^onnx==\([0-9.]*\).*/\1/p' "$root/requirements.txt")
if [[ -z "$version" ]]; then
  echo "build-onnx: requirements.txt pins no onnx version" >&2
  exit 1
fi
protobuf=$(dpkg-query -W -f='${Version}' libprotobuf-dev 2>/dev/null || true)
compiler=$(c++ --version 2>/dev/null | head -1 || true)
key=$( { echo "$protobuf"; echo "$compiler"; cat "${BASH_SOURCE[0]}"; } |
  sha256sum | cut -c1-12)
cache="${QUANTQDQ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quant-qdq}"
prefix="$cache/onnx-$version-$key"

if [[ "${1:-}" == "--prefix" || -f "$prefix/lib/cmake/ONNX/ONNXConfig.cmake" ]]; then
  echo "$prefix"
  exit 0
fi

venv="$root/.venv"
for tool in "$venv/bin/pip" "$venv/bin/cmake"; do
  if [[ ! -x "$tool" ]]; then
    echo "build-onnx: $tool is missing: run scripts/setup.sh first" >&2
    exit 1
  fi
done

mkdir -p "$cache"
# One build at a time (make test configures two build folders); whoever
# waited finds the library built.
exec 9>"$cache/onnx.lock"
flock 9
if [[ -f "$prefix/lib/cmake/ONNX/ONNXConfig.cmake" ]]; then
  echo "$prefix"
  exit 0
fi

work=$(mktemp -d "$cache/onnx-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "build-onnx: building ONNX $version's C++ library into $prefix (once)" >&2
"$venv/bin/pip" download -q --disable-pip-version-check --no-deps \
  --no-binary onnx "onnx==$version" -d "$work" 2>&1 |
  { grep -v "^WARNING: Location '.*' is ignored" || true; } >&2
tar -xzf "$work/onnx-$version.tar.gz" -C "$work"
# Static, position-independent (the Python extension links it), the ML
# proto (ONNX_ML: what ONNX Runtime and the exporters write), no Python
# and no tests of its own; in a namespace of its own, whose proto file and
# messages cannot meet another ONNX's in one process (Debian's torch loads
# Debian's libonnx, which registers onnx/onnx-ml.proto with the same
# protobuf: importing torch after quant_qdq aborted).
"$venv/bin/cmake" -S "$work/onnx-$version" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DONNX_ML=ON -DONNX_BUILD_PYTHON=OFF -DONNX_BUILD_TESTS=OFF \
  -DONNX_GEN_PB_TYPE_STUBS=OFF -DONNX_NAMESPACE=onnx_qdq \
  -DCMAKE_INSTALL_PREFIX="$work/install" \
  >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  exit 1
}
"$venv/bin/cmake" --build "$work/build" >"$work/build.log" 2>&1 || {
  tail -50 "$work/build.log" >&2
  exit 1
}
"$venv/bin/cmake" --install "$work/build" >/dev/null
rm -rf "$prefix"
mv "$work/install" "$prefix"
echo "$prefix"
