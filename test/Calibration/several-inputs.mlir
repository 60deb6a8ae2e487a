// A model of several inputs calibrates on .npz files whose arrays are
// named after its inputs (numpy.savez; numpy.savez_compressed alike), one
// file or a folder of them; .npy files serve models of one input only.
// RUN: rm -rf %t && mkdir -p %t/folder
// RUN: %python -c "import numpy as np; x = np.arange(8, dtype=np.float32).reshape(2, 4); m = np.full((2, 4), 10, np.float32); np.savez('%t/feeds.npz', x=x, mask=m); np.savez_compressed('%t/packed.npz', mask=m, x=x); np.savez('%t/folder/a.npz', x=x[:1], mask=m[:1]); np.savez('%t/folder/b.npz', x=x[1:], mask=m[1:]); np.save('%t/x.npy', x); np.save('%t/m.npy', m); np.savez('%t/nomask.npz', x=x); np.savez('%t/extra.npz', x=x, mask=m, labels=x); np.savez('%t/short.npz', x=x, mask=m[:1]); np.savez('%t/int.npz', x=x, mask=m.astype(np.int32))"
// RUN: printf 'PK garbage' > %t/garbage.npz
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/feeds.npz save=%t/feeds.json" -o /dev/null
// RUN: FileCheck %s < %t/feeds.json
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/packed.npz save=%t/packed.json" -o /dev/null
// RUN: diff %t/feeds.json %t/packed.json
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/folder save=%t/folder.json" -o /dev/null
// RUN: diff %t/feeds.json %t/folder.json
// CHECK: "sum_output_0"
// CHECK-NEXT: "amax": 17
// CHECK-NEXT: "min": 10
// CHECK-NEXT: "max": 17

// qdq-run takes such a file for all its inputs, too.
// RUN: qdq-run %s --input %t/feeds.npz --output %t/y.npz.npy
// RUN: qdq-run %s --input %t/x.npy --input %t/m.npy --output %t/y.npy
// RUN: cmp %t/y.npz.npy %t/y.npy
// RUN: not qdq-run %s --input %t/nomask.npz 2>&1 | FileCheck %s --check-prefix=RUNMISSING
// RUNMISSING: nomask.npz: has no array for the model's input 'mask' (its inputs: x, mask)

// The data must match the model: an error names the file and the input,
// before anything compiles.
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/x.npy 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: error: {{.*}}x.npy: the model has 2 inputs (x, mask): give .npz files whose arrays are named after them
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/nomask.npz 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: {{.*}}nomask.npz: has no array for the model's input 'mask' (its inputs: x, mask)
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/extra.npz 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: error: {{.*}}extra.npz: holds an array 'labels', which is no input of the model (its inputs: x, mask)
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/short.npz 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: {{.*}}short.npz, input 'mask': holds 1 samples where 'x' holds 2
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/int.npz 2>&1 | FileCheck %s --check-prefix=INT
// INT: error: {{.*}}int.npz, input 'mask': holds elements of type 'i32' but the model's input is 'tensor<?x4xf32>'
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/garbage.npz 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: error: {{.*}}garbage.npz: not an .npz file (no zip directory)

func.func @net(%x: tensor<?x4xf32> {quant_qdq.onnx.name = "x"},
               %mask: tensor<?x4xf32> {quant_qdq.onnx.name = "mask"})
    -> tensor<?x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %s = quant_qdq.add "sum" %x, %mask : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = quant_qdq.dense "fc" %s, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
