//===- ONNXRuntimeTarget.h - Q/DQ placed for ONNX Runtime -------*- C++ -*-===//
//
// ONNX Runtime's CPU provider runs a convolution, an addition or a pooling
// on integers only as a QOperator node (QLinearConv, QLinearAdd, ...), which
// it forms from DequantizeLinear on every input, the op, and QuantizeLinear
// on its output. TensorRT's placement quantizes inputs only, so under ORT
// those layers stay in float and dequantize their weights on every run. The
// `onnxruntime` target of insert-qdq completes each such layer's group.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_ONNXRUNTIMETARGET_H
#define QUANTQDQ_TRANSFORMS_ONNXRUNTIMETARGET_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::quant_qdq {

/// The 8-bit activation quantizer ONNX Runtime's x86 kernels run fastest:
/// unsigned, asymmetric, full range (u8 activations with s8 weights). A
/// zero point of 0 lets ORT drop a relu or clip(0, c) in front of it.
QuantizerAttr getONNXRuntimeActivationQuantizer(MLIRContext *context);

/// Whether ORT's integer kernels read data of `quantizer`: 8-bit integers,
/// per tensor for activations (weights may be per channel).
bool isONNXRuntimeIntegerFormat(QuantizerAttr quantizer, bool weight);

/// What quantizeQLinearOutputs did.
struct QLinearOutputCounts {
  /// Outputs of QOperator layers quantized (pairs created or shared).
  unsigned layerOutputs = 0;
  /// Outputs of pass-through layers quantized like their inputs.
  unsigned passThroughOutputs = 0;
  /// Q/DQ pairs created.
  unsigned pairs = 0;
  /// Fully connected layers whose bias export writes as a separate Add.
  unsigned separateBiases = 0;
  /// Layers with a quantized weight that ORT runs in float all the same
  /// (marked kFloatKernelAttrName).
  unsigned floatKernels = 0;

  QLinearOutputCounts &operator+=(const QLinearOutputCounts &other) {
    layerOutputs += other.layerOutputs;
    passThroughOutputs += other.passThroughOutputs;
    pairs += other.pairs;
    separateBiases += other.separateBiases;
    floatKernels += other.floatKernels;
    return *this;
  }
};

/// In program order, quantizes with `activation`:
/// - the output of every layer with a QOperator kernel
///   (QDQLayerOpInterface::hasQLinearKernel) whose activation inputs and
///   weight all come dequantized, after the relu, relu6 or clip(0, c) that
///   alone reads it, which ORT then removes;
/// - the output of every pass-through layer (reshape, max pooling, ...)
///   whose input comes dequantized, with the input's quantizer, so that ORT
///   runs it on integers (calibration gives both the same range).
/// - a fully connected layer whose input and weight come dequantized and
///   which has a bias is marked DenseOp::kSeparateBiasAttrName, so that
///   ORT fuses its Gemm into QGemm;
/// - a layer with a quantized weight whose inputs or output stay in float
///   (so ORT runs it in float) is marked kFloatKernelAttrName, so that its
///   weight is stored as float values.
/// Every reader of such an output takes the pair, except the function's
/// return: a layer whose output the graph returns stays as it was. An
/// output that a pair already quantizes shares it.
QLinearOutputCounts quantizeQLinearOutputs(func::FuncOp func,
                                           QuantizerAttr activation);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_ONNXRUNTIMETARGET_H
