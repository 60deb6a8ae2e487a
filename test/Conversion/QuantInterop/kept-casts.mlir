// RUN: qdq-opt %s --quant-to-qdq | FileCheck %s

// A quantized value that another op reads (here the function's result)
// keeps its qcast; the dcast beside it still becomes a dequantize of the
// new quantize's storage.
// CHECK-LABEL: func.func @returned
// CHECK: %[[Q:.*]] = quant_qdq.quantize %arg0 <bits = 8, narrow_range = false> scale [5.000000e-01] : tensor<4xf32> -> tensor<4xi8>
// CHECK: %[[C:.*]] = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: %[[D:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8, narrow_range = false> scale [5.000000e-01] : tensor<4xi8> -> tensor<4xf32>
// CHECK-NOT: quant.dcast
// CHECK: return %[[C]], %[[D]]
func.func @returned(%x: tensor<4xf32>) -> (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<4xf32>
  return %q, %d : tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>
}
