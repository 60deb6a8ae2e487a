#!/usr/bin/env bash
# Packs this build for a GPU machine that has CUDA, PyTorch and Python but
# no LLVM/MLIR (the lent H100/H200 of this workplace): writes .gpu/ at the
# top of the checkout, which git ignores through .git/info/exclude.
#
#   scripts/gpu-pack.sh [BUILD_DIR]       # then, on the GPU machine:
#   bash .gpu/run.sh lit bench            # (the device tool: carry .gpu)
#
# .gpu/ holds, xz-compressed: the shared libraries qdq-run needs beyond
# glibc and libstdc++ (libLLVM and libMLIR are most of its ~62 MB), the MLIR
# runtime libraries the JIT loads, qdq-run/qdq-opt/qdq-translate, FileCheck,
# not and count (stripped); lit itself; the build's lit.site.cfg.py, which
# run.sh rewrites for the machine's paths; and the bench/gpu manifest.
# run.sh registers only the libraries the machine lacks (ldconfig), runs
# lit's GPU tests (`lit`) and bench/gpu (`bench`, results in $OUT).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$root/.gpu
llvm=$(llvm-config-22 --libdir 2>/dev/null || echo /usr/lib/llvm-22/lib)
tools=$(dirname "$llvm")/bin
grep -qx '/.gpu/' "$root/.git/info/exclude" 2>/dev/null ||
  { mkdir -p "$root/.git/info"; echo '/.gpu/' >> "$root/.git/info/exclude"; }
rm -rf "$out" && mkdir -p "$out/lit" "$out/stubs"
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/bin"
# Libraries beyond the C and C++ runtimes, which every Linux has newer.
for lib in $(ldd "$build/bin/qdq-run" "$tools/FileCheck" | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libgcc_s.so*|libstdc++.so*|ld-linux*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
for lib in libmlir_c_runner_utils.so libmlir_float16_utils.so.22.1 \
           libmlir_apfloat_wrappers.so.22.1 libomp.so; do
  cp -L "$llvm/$lib" "$stage/lib/"
done
cp "$build/bin/qdq-run" "$build/bin/qdq-opt" "$build/bin/qdq-translate" \
   "$tools/FileCheck" "$tools/not" "$tools/count" "$stage/bin/"
strip "$stage"/bin/*
cp "$build/lib/libQuantQDQCUDARuntime.so" "$stage/"
tar -C "$stage" -cf - lib | xz -T1 --x86 --lzma2=preset=9e -c > "$out/lib.tar.xz"
tar -C "$stage" -cf - bin libQuantQDQCUDARuntime.so | xz -T0 --x86 --lzma2=preset=9e -c > "$out/bin.tar.xz"
cp -r "$llvm/../utils/lit/lit" "$out/lit/" 2>/dev/null ||
  cp -r "$(python3 -c 'import lit, os; print(os.path.dirname(lit.__file__))')" "$out/lit/"
find "$out/lit" -name __pycache__ -prune -exec rm -rf {} +
sed -e "s#$root/.venv/bin/python3#@PYTHON@#" -e "s#$tools#@TOOLS@#" \
    -e "s#$build#@BUILD@#g" -e "s#$root#@ROOT@#g" \
    "$build/test/lit.site.cfg.py" > "$out/lit.site.cfg.py.in"
cp "$build/lib/stubs/libcuda.so.1" "$out/stubs/"
"$root/bench/gpu/make_kernels.sh" "$build" -o "$stage/kernels.json" > /dev/null
xz -T0 -6 -c "$stage/kernels.json" > "$out/kernels.json.xz"
cp "$root/scripts/gpu-run.sh" "$out/run.sh"
echo "wrote $out: $(du -sh "$out" | cut -f1) (the device tool carries at most 64 MiB with the checkout)"
