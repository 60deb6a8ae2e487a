// RUN: qdq-opt %s --split-input-file --verify-diagnostics --quant-to-qdq

// Sub-channel blocks along two dimensions have no quant_qdq form: its
// blocks run along one axis, with a scale per index of the others.
func.func @blocks(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{sub-channel blocks along more than one dimension have no quant_qdq form}}
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:{0:2,1:2}, {{2.0:10, 3.0:20}}>>
  %d = quant.dcast %q : tensor<2x4x!quant.uniform<i8:f32:{0:2,1:2}, {{2.0:10, 3.0:20}}>> to tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// A storage range that is neither full nor narrow.
func.func @range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{storage range [-100, 100] is neither the full nor the narrow range of 8-bit storage}}
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8<-100:100>:f32, 0.5>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8<-100:100>:f32, 0.5>> to tensor<4xf32>
  return %d : tensor<4xf32>
}
