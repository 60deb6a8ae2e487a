#!/bin/bash
# On the GPU machine, from the checkout's top (scripts/gpu-pack.sh copies
# this to .gpu/run.sh): unpacks .gpu/, registers the libraries the machine
# lacks, points lit at the unpacked build, then runs each step named:
#   lit    lit's CUDA tests (test/Execution/gpu and the runtime's errors)
#   bench  bench/gpu/run_bench.py on the packed manifest, to $OUT/RESULTS.md
root=$PWD; g=$root/.gpu; t=/tmp/qdq-gpu
out=${OUT:-$root/gpu-out}; mkdir -p "$out"
if [ ! -x $t/bin/qdq-run ]; then
  mkdir -p $t/all $t/lib
  python3 -c "import tarfile
for a in ('lib', 'bin'): tarfile.open('$g/%s.tar.xz' % a).extractall('$t/all')"
  mv $t/all/bin $t/bin; mv $t/all/libQuantQDQCUDARuntime.so $t/
  for f in $t/all/lib/*; do
    ldconfig -p | grep -q "^\s*$(basename "$f") " || cp "$f" $t/lib/
  done
  echo $t/lib > /etc/ld.so.conf.d/zz-qdq.conf && ldconfig
fi
mkdir -p build/bin build/lib/stubs build/test
cp $t/bin/qdq-* build/bin/; cp $t/libQuantQDQCUDARuntime.so build/lib/
cp $g/stubs/libcuda.so.1 build/lib/stubs/
# The build looks for ptxas where it was configured.
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -1)
[ -e /usr/local/cuda-13.0 ] || ln -s "$(dirname "$(dirname "$nvcc")")" /usr/local/cuda-13.0
sed -e "s#@PYTHON@#$(command -v python3)#" -e "s#@TOOLS@#$t/bin#" \
    -e "s#@BUILD@#$root/build#g" -e "s#@ROOT@#$root#g" \
    $g/lit.site.cfg.py.in > build/test/lit.site.cfg.py
nvidia-smi -L; build/bin/qdq-run --probe-device=cuda
status=0
for step in "$@"; do
  case $step in
    lit) python3 -c "import sys; sys.path.insert(0, '$g/lit')
from lit.main import main; main()" -v build/test \
           --filter 'Execution/gpu|device-errors|Execution/cuda-' > $out/lit.log 2>&1 ||
           status=1
         tail -12 $out/lit.log ;;
    bench) python3 -c "import lzma; open('/tmp/kernels.json', 'wb').write(lzma.open('$g/kernels.json.xz').read())"
           PYTHONUNBUFFERED=1 python3 bench/gpu/run_bench.py /tmp/kernels.json \
             --out $out/RESULTS.md > $out/bench.log 2>&1 || status=1
           tail -5 $out/bench.log ;;
    *) echo "gpu-run.sh: unknown step '$step' (lit, bench)" >&2; status=2 ;;
  esac
done
exit $status
