#!/usr/bin/env bash
# The prepared GPU check of the nvidia platform, for a session lent an NVIDIA GPU (the device
# tool; about 5 minutes there). Two steps:
#
#   1. Here, on the development machine (has network):   bash bench/gpu_check.sh --prepare
#      downloads the wheels the GPU machine lacks (tree-sitter, tree-sitter-cuda; its image has
#      numpy, ml-dtypes, cuda-bindings, nvidia-cuda-nvrtc, CuPy, pytest) into .whl/ (ignored).
#   2. On the GPU machine, with .whl carried:             bash bench/gpu_check.sh
#      i.e. device run: command "bash bench/gpu_check.sh", carry [".whl"], timeout_s 420.
#      Installs the wheels under /tmp/site, runs bench/bench_gpu.py (copy and saxpy bandwidth,
#      launch overhead against CuPy), the whole test suite with OPENHIP_PLATFORM=nvidia, then
#      the cpu-vs-nvidia bitwise comparison of the conformance results, each under a timeout.
#      NVIDIA's cuBLAS/cuFFT/cuSOLVER wheels (1.1 GB) are too large to carry: step 2b uses them
#      where the image has them (site-packages, CUDA_HOME or the loader's path) and says so.
#      Everything it writes goes to $OUT (nvidia-smi.txt, tests.log, junit.xml, bench.log,
#      bench_gpu.json, results_gpu.md, vendor.log): copy the figures into bench/results_gpu.md.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--prepare" ]]; then
  mkdir -p .whl
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl "tree-sitter==0.26.1" "tree-sitter-cuda==0.21.2"
  ls -l .whl
  exit 0
fi

OUT="${OUT:-$PWD/gpu_out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export OPENHIP_CACHE_DIR=/tmp/openhip-cache
start=$(date +%s)

if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || echo "wheel install failed" | tee -a "$OUT/tests.log"
  export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  python3 -c "import cuda.bindings, numpy; print('cuda-bindings', cuda.bindings.__version__, 'numpy', numpy.__version__)"
  python3 -c "from openhip import platforms; print(platforms.platform_status())"
} > "$OUT/nvidia-smi.txt" 2>&1

# 1. bandwidth and launch benchmarks first (about 30 s), so they are measured whatever follows
OPENHIP_PLATFORM=nvidia timeout 100 python3 bench/bench_gpu.py --out "$OUT" --skip-bitwise \
  > "$OUT/bench.log" 2>&1
echo "bench: exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/bench.log"

# 2. the whole test suite on the nvidia platform (GPU tests run; CPU-only ones skip or use cpu);
#    spread over the machine's cores with pytest-xdist where the image has it
parallel=()
python3 -c "import xdist" 2>/dev/null && parallel=(-n 8 --dist loadfile)
OPENHIP_PLATFORM=nvidia timeout 150 python3 -m pytest -q -ra -p no:cacheprovider \
  "${parallel[@]}" --timeout 120 --junitxml="$OUT/junit.xml" tests 2>&1 | tail -n 400 \
  > "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s" | tee -a "$OUT/tests.log"

# 2b. the vendor libraries (issue #12): which of cuBLAS/cuFFT/cuSOLVER load, their tests on the
#     nvidia route (real libraries), matmul 4096^2 f32 TFLOP/s and an fft of 2^24 complex64
{ OPENHIP_PLATFORM=nvidia timeout 20 python3 -c "from openhip.numpy import _vendor as v
for n in ('cublas', 'cufft', 'cusolver'):
    b = v.get(n, 'nvidia'); print(n, b.lib.path if b else 'MISSING: ' + v.why_missing(n, 'nvidia'))"
  OPENHIP_PLATFORM=nvidia timeout 60 python3 -m pytest -q -ra -p no:cacheprovider --timeout 50 \
    -k nvidia tests/numpy/linalg/test_linalg_vendor_fake.py tests/numpy/fft/test_fft_vendor_fake.py \
    2>&1 | tail -n 40
  OPENHIP_PLATFORM=nvidia timeout 45 python3 bench/bench_linalg_fft.py --gpu --repeats 10 2>&1
} > "$OUT/vendor.log" 2>&1
echo "vendor: exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/vendor.log"

# 3. the bitwise cpu-vs-nvidia comparison of the conformance results, in the time left
left=$(( 285 - ($(date +%s) - start) ))
(( left < 45 )) && left=45
OPENHIP_PLATFORM=nvidia timeout "$left" python3 bench/bench_gpu.py --out "$OUT" --bitwise-only \
  >> "$OUT/bench.log" 2>&1
echo "bitwise: exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/bench.log"
rm -f "$OUT"/record_*.npz
tail -n 3 "$OUT/tests.log"
tail -n 12 "$OUT/vendor.log"
cat "$OUT/results_gpu.md" 2>/dev/null || tail -n 30 "$OUT/bench.log"
