// A C++ insertion case from a pass plugin (examples/plugin) joins the
// library cases by name.
// RUN: qdq-opt --load-pass-plugin=%qdq_obj_root/lib/QDQConcatCasePlugin.so %s --insert-qdq=inception,concat --qdq-report=- 2>&1 | FileCheck %s
// Without the plugin the name is unknown:
// RUN: not qdq-opt %s --insert-qdq=concat 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

func.func @mixed(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %a = quant_qdq.max_pool2d "pool" %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %b = quant_qdq.avg_pool2d "avg" %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %c = quant_qdq.concat "concat" %a, %b {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// CHECK: pool MaxPooling2D [0] no case maxpool
// CHECK: avg AveragePooling2D [0] no default table
// CHECK: concat Concatenate [0,1] no case concat
// CHECK: %[[QX:.*]] = quant_qdq.quantize %arg0
// CHECK: quant_qdq.concat "concat" %[[DQA:.*]], %[[DQB:.*]] {axis = 1 : i64}

// NOPLUGIN: error: unknown insertion case 'concat'
