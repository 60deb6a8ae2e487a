// calibrate method=auto: per activation, the amax among max's,
// percentile's, entropy's and mse's that costs the output least, among the
// others' choices (kept only where it helps both halves of the data); and
// the check that replaces a histogram method's ranges when they cost over
// 0.5 dB against max's. The network: a ReLU whose second channel holds rare
// large values (1% of them 50x) that the convolution after it ignores, so
// that max's range wastes the first channel's resolution.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); x = r.standard_normal((16, 2, 32, 32)); x[:, 1] *= np.where(r.random((16, 32, 32)) < 0.01, 50.0, 1.0); np.save('%t/x.npy', x.astype(np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=max save=%t/max.json" -o %t/max.mlir
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=entropy check-ranges=false save=%t/entropy.json" -o /dev/null
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=auto save=%t/auto.json report=%t/auto.txt" -o %t/auto.mlir 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: warning
// RUN: FileCheck %s --check-prefix=REPORT < %t/auto.txt
// REPORT: act_output_0 {{[0-9.]+}} (0.00%) {{.*}} {{[0-9.]+}} ({{[0-9.]+}}%)* {{.*}}
// REPORT: 1 tensors; * the method used (max, 1 chosen by output error)

// Clipping the ignored outliers as entropy does costs the output least:
// auto takes entropy's amax, and measures better than max (qdq-run
// --compare: 21 dB against 11 here).
// RUN: %python -c "import json, sys; a, m = (json.load(open(p))['tensors']['act_output_0']['amax'] for p in sys.argv[1:]); print('auto is entropy:', a == m)" %t/auto.json %t/entropy.json | FileCheck %s --check-prefix=ENTROPY
// ENTROPY: auto is entropy: True
// RUN: qdq-run %t/max.mlir --input=%t/x.npy --compare --compare-layers=0 > %t/max-sqnr.txt
// RUN: qdq-run %t/auto.mlir --input=%t/x.npy --compare --compare-layers=0 > %t/auto-sqnr.txt
// RUN: %python -c "import re, sys; m, a = (float(re.search(r'SQNR ([0-9.]+)', open(p).read()).group(1)) for p in sys.argv[1:]); print('auto above max:', a > m)" %t/max-sqnr.txt %t/auto-sqnr.txt | FileCheck %s --check-prefix=BETTER
// BETTER: auto above max: True

// The 40th percentile clips far too much: the check says so and puts
// method=auto's choice in its place.
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile percentile=40 save=%t/checked.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKED
// CHECKED: warning: calibration: percentile's ranges give an output SQNR of {{[0-9.]+}} dB on 16 calibration samples, {{[0-9.]+}} dB below max's ({{[0-9.]+}} dB); using method=auto's ranges instead, {{[0-9.]+}} dB (check-ranges=false keeps them)
// RUN: %python -c "import json, sys; a, m = (json.load(open(p))['tensors']['act_output_0']['amax'] for p in sys.argv[1:]); print('checked is auto:', a == m)" %t/checked.json %t/auto.json | FileCheck %s --check-prefix=REPLACED
// REPLACED: checked is auto: True
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile percentile=40 check-ranges=false" -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET

// A quantizer that names its own method keeps it, under auto too.
// RUN: echo '{"layers": [{"name": "conv", "input_quantizer": {"calibration": "max"}}]}' > %t/own.json
// RUN: qdq-opt %s --insert-qdq --qdq-spec=%t/own.json --calibrate="data=%t/x.npy method=auto save=%t/own-table.json" -o /dev/null
// RUN: %python -c "import json, sys; a, m = (json.load(open(p))['tensors']['act_output_0']['amax'] for p in sys.argv[1:]); print('own is max:', a == m)" %t/own-table.json %t/max.json | FileCheck %s --check-prefix=OWN
// OWN: own is max: True

// Data on which the float network gives NaN: nothing to measure, a
// warning, and max's ranges.
// RUN: %python -c "import numpy as np; d = np.load('%t/x.npy'); d[0, 0, 0, 0] = np.nan; np.save('%t/nan.npy', d)"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/nan.npy method=auto" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: warning: calibration: the float network's outputs on the first 16 calibration samples hold NaN or infinite values; method=auto keeps max's ranges

// The same through qdq-quantize; a bad sample count is an error.
// RUN: qdq-opt %s --qdq-quantize="data=%t/x.npy method=auto save=%t/pipeline.json" -o /dev/null
// RUN: %python -c "import json, sys; a, m = (json.load(open(p))['tensors']['act_output_0']['amax'] for p in sys.argv[1:]); print('auto is entropy:', a == m)" %t/pipeline.json %t/entropy.json | FileCheck %s --check-prefix=ENTROPY
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=auto search-samples=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SAMPLES
// SAMPLES: error: search-samples must be 0 (all) or positive, got -1

func.func @net(%x: tensor<1x2x32x32xf32>) -> tensor<1x1x32x32xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]]]> : tensor<1x2x1x1xf32>
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x32x32xf32>
  %c = quant_qdq.conv2d "conv" %a, %w : (tensor<1x2x32x32xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x32x32xf32>
  return %c : tensor<1x1x32x32xf32>
}
