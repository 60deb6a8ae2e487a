// Quantize, dequantize and fake_quant lower to one element-wise generic each:
// divide, round half to even, add the zero point, saturate, NaN to the zero
// point; per-channel scales are read along the axis, block scales at the
// block's index.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%arg0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i8):
// CHECK-DAG: %[[S:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ZP:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[D:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK: %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK: %[[A:.*]] = arith.addf %[[R]], %[[ZP]] : f32
// CHECK: %[[LO:.*]] = arith.maximumf %[[A]], %{{.*}} : f32
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %{{.*}} : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[SEL:.*]] = arith.select %[[NAN]], %[[ZP]], %[[HI]] : f32
// CHECK: %[[Q:.*]] = arith.fptosi %[[SEL]] : f32 to i8
// CHECK: linalg.yield %[[Q]] : i8
func.func @quantize_per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.5] : tensor<2x3xf32> -> tensor<2x3xi8>
  return %q : tensor<2x3xi8>
}

// -----

// The narrow int8 range is [-127, 127].
// CHECK-LABEL: func.func @quantize_range
// CHECK-DAG: arith.constant -1.270000e+02 : f32
// CHECK-DAG: arith.constant 1.270000e+02 : f32
func.func @quantize_range(%x: tensor<4xf32>) -> tensor<4xi8> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.5] : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

// Unsigned storage converts unsigned, both ways.
// CHECK-LABEL: func.func @unsigned
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.uitofp %{{.*}} : i8 to f32
func.func @unsigned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.5] zero_point [128] : tensor<4xf32> -> tensor<4xi8>
  %d = quant_qdq.dequantize %q <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.5] zero_point [128] : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Per-channel scales and zero points are inputs read along the axis.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK: #[[AXIS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func.func @per_channel
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[ZPS:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[AXIS]], #[[AXIS]], #[[ID]]]
// CHECK-SAME: ins(%arg0, %[[SCALES]], %[[ZPS]] :
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.divf %[[X]], %[[S]]
// CHECK: arith.subf %{{.*}}, %[[Z]]
// CHECK: arith.mulf %{{.*}}, %[[S]]
func.func @per_channel(%w: tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32> {
  %f = quant_qdq.fake_quant %w <bits = 8, axis = 0> scale [0.1, 0.2] : tensor<2x3x1x1xf32>
  return %f : tensor<2x3x1x1xf32>
}

// -----

// Block scales are a tensor of the data's rank, read at the block's index
// along the axis.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[BLOCK:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
// CHECK-LABEL: func.func @blocks
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[BLOCK]], #[[BLOCK]], #[[ID]]]
// CHECK-SAME: ins(%arg0, %[[SCALES]], %{{.*}} : tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: arith.sitofp %{{.*}} : i4 to f32
func.func @blocks(%q: tensor<2x4xi4>) -> tensor<2x4xf32> {
  %d = quant_qdq.dequantize %q <bits = 4, axis = 1, block_size = 2> scale [1.0, 2.0, 3.0, 4.0] : tensor<2x4xi4> -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// FP8: saturate to 448, round on the f32 bits to E4M3FN's step, encode
// the byte, and store it as f8E4M3FN.
// CHECK-LABEL: func.func @fp8
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.roundeven
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
func.func @fp8(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.5] : tensor<4xf32> -> tensor<4xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.5] : tensor<4xf8E4M3FN> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// f16 is computed in f32.
// CHECK-LABEL: func.func @half
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %f = quant_qdq.fake_quant %x <bits = 4> scale [0.25] : tensor<4xf16>
  return %f : tensor<4xf16>
}
