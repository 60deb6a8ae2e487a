// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s -emit-bytecode | qdq-opt | FileCheck %s

// The dialect's attributes on their own, outside the ops that own them: the
// quantizer prints its non-default parameters only, in declaration order.

// CHECK-LABEL: func.func private @quantizers()
// CHECK-SAME: q.default = #quant_qdq.quantizer<bits = 8>
// CHECK-SAME: q.explicit_defaults = #quant_qdq.quantizer<bits = 8>
// CHECK-SAME: q.full = #quant_qdq.quantizer<bits = 4, is_signed = false, narrow_range = false, symmetric = false, axis = 3>
// CHECK-SAME: q.reordered = #quant_qdq.quantizer<bits = 16, symmetric = false, axis = 0>
func.func private @quantizers() attributes {
  q.default = #quant_qdq.quantizer<bits = 8>,
  q.explicit_defaults = #quant_qdq.quantizer<bits = 8, is_signed = true, narrow_range = true, symmetric = true>,
  q.full = #quant_qdq.quantizer<axis = 3, symmetric = false, narrow_range = false, is_signed = false, bits = 4>,
  q.reordered = #quant_qdq.quantizer<axis = 0, bits = 16, symmetric = false>
}

// CHECK-LABEL: func.func private @enums()
// CHECK-SAME: e.activation = #quant_qdq<activation hard_swish>
// CHECK-SAME: e.layout = #quant_qdq<layout nhwc>
// CHECK-SAME: e.pad_mode = #quant_qdq<pad_mode edge>
func.func private @enums() attributes {
  e.layout = #quant_qdq<layout nhwc>,
  e.activation = #quant_qdq<activation hard_swish>,
  e.pad_mode = #quant_qdq<pad_mode edge>
}

// A generic layer may carry them in its layer_attributes.
// CHECK-LABEL: func.func @in_layer_attributes(
// CHECK-NEXT: %0 = quant_qdq.generic "QLinearConv" "qconv" %arg0 {layer_attributes = {layout = #quant_qdq<layout nchw>, quantizer = #quant_qdq.quantizer<bits = 8, axis = 0>}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
func.func @in_layer_attributes(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = quant_qdq.generic "QLinearConv" "qconv" %x {layer_attributes = {quantizer = #quant_qdq.quantizer<bits = 8, axis = 0>, layout = #quant_qdq<layout nchw>}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}
