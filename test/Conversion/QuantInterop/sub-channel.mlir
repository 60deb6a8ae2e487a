// RUN: qdq-opt %s --qdq-to-quant | FileCheck %s --check-prefix=QUANT
// RUN: qdq-opt %s --qdq-to-quant --quant-to-qdq | FileCheck %s --check-prefix=BACK
// Upstream's lowering reads the scales at the block's index too.
// RUN: qdq-opt %s --qdq-to-quant --lower-quant-ops | FileCheck %s --check-prefix=LOWERED
// LOWERED: affine_map<(d0, d1) -> (d0, d1 floordiv 2)>

// Blocks become a sub-channel type blocked along every dimension: the
// block size along the axis, 1 along the others; and back.
// QUANT-LABEL: func.func @blocks
// QUANT: quant.qcast %arg0 : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i4<-7:7>:f32:{0:1, 1:2}, {{\{}}{1.000000e+00, 2.000000e+00}, {3.000000e+00, 4.000000e+00}}>>
// BACK-LABEL: func.func @blocks
// BACK: quant_qdq.quantize %arg0 <bits = 4, axis = 1, block_size = 2> scale [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00] : tensor<2x4xf32> -> tensor<2x4xi4>
// BACK: quant_qdq.dequantize %{{.*}} <bits = 4, axis = 1, block_size = 2> scale [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00] : tensor<2x4xi4> -> tensor<2x4xf32>
func.func @blocks(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %q = quant_qdq.quantize %x <bits = 4, axis = 1, block_size = 2> scale [1.0, 2.0, 3.0, 4.0] : tensor<2x4xf32> -> tensor<2x4xi4>
  %d = quant_qdq.dequantize %q <bits = 4, axis = 1, block_size = 2> scale [1.0, 2.0, 3.0, 4.0] : tensor<2x4xi4> -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
