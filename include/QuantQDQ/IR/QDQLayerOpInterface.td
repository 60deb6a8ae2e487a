//===- QDQLayerOpInterface.td - what a layer exposes to Q/DQ -*- tablegen -*-//
//
// The MLIR counterpart of the toolkits' per-layer quantize wrappers: how a
// layer tells the insertion pass which operands are activations, which is a
// weight and along which axis its output channels lie, and whether the
// default table quantizes it. A new layer gains Q/DQ support by implementing
// this interface; no pass switches over op names.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LAYER_OP_INTERFACE_TD
#define QUANTQDQ_LAYER_OP_INTERFACE_TD

include "mlir/IR/OpBase.td"

def QDQLayerOpInterface : OpInterface<"QDQLayerOpInterface"> {
  let cppNamespace = "::mlir::quant_qdq";
  let description = [{
    A network layer that quantization can reason about. Ops defined with
    the `QDQ_LayerOp` ODS class get every method from the class's template
    arguments; an op overrides a method only when the answer depends on its
    attributes (a grouped convolution is a `DepthwiseConv2D`).
  }];

  let methods = [
    InterfaceMethod<[{
        The layer's class as the Keras-based toolkits name it (`Conv2D`,
        `Dense`, `Add`, ...). QuantizationSpec entries with
        `is_keras_class` match against it. A `quant_qdq.layer_class`
        attribute, set by a front end, names it instead.
      }],
      "::llvm::StringRef", "getLayerClass", (ins), "", [{
        if (auto own = ::mlir::quant_qdq::getFrontEndLayerClass($_op))
          return *own;
        return ConcreteOp::getDefaultLayerClass();
      }]>,
    InterfaceMethod<[{
        The layer's name, or an empty string for an unnamed layer.
      }],
      "::llvm::StringRef", "getLayerName", (ins), "", [{
        if (auto name = $_op->template getAttrOfType<::mlir::StringAttr>("name"))
          return name.getValue();
        return {};
      }]>,
    InterfaceMethod<[{
        Indices of the operands that carry activations (input Q/DQ goes
        there). Multi-input layers list every input; `quantization_index`
        in a spec selects among them, in this order.
      }],
      "::llvm::SmallVector<unsigned>", "getActivationOperandIndices", (ins),
      "", [{
        if (ConcreteOp::kAllOperandsAreActivations) {
          ::llvm::SmallVector<unsigned> all;
          for (unsigned i = 0, e = $_op->getNumOperands(); i < e; ++i)
            all.push_back(i);
          return all;
        }
        return {0};
      }]>,
    InterfaceMethod<[{
        Index of the operand holding the layer's weight (kernel), if any.
        Biases and batch-norm statistics are not weights in this sense:
        TensorRT keeps them in higher precision.
      }],
      "std::optional<unsigned>", "getWeightOperandIndex", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        Axis of the weight along which output channels lie, i.e. the axis
        of per-channel weight scales.
      }],
      "std::optional<int64_t>", "getWeightChannelAxis", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        Axis of the weight that the layer reduces over (input channels), the
        axis along which blocked weight quantizers form their blocks.
      }],
      "std::optional<int64_t>", "getWeightReductionAxis", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        Whether the default insertion table puts Q/DQ on the activations.
      }],
      "bool", "quantizesInputByDefault", (ins), "",
      [{ return ConcreteOp::kQuantizeInputByDefault; }]>,
    InterfaceMethod<[{
        Whether the default insertion table puts Q/DQ on the weight.
      }],
      "bool", "quantizesWeightByDefault", (ins), "",
      [{ return ConcreteOp::kQuantizeWeightByDefault; }]>,
    InterfaceMethod<[{
        Whether the layer only moves or selects values (reshape, flatten,
        transpose, padding, max pooling, dropout), so that a quantized
        value stays quantized through it with the same scale.
      }],
      "bool", "isPassThrough", (ins), "",
      [{ return ConcreteOp::kPassThrough; }]>,
    InterfaceMethod<[{
        Whether the layer has a QOperator kernel, one that reads quantized
        inputs and writes a quantized output (ONNX `QLinearConv`; ONNX
        Runtime's `QLinearAdd`, `QLinearMul`, `QLinearConcat`,
        `QLinearAveragePool`, `QLinearGlobalAveragePool`, `QLinearSigmoid`,
        `QLinearLeakyRelu`): a runtime runs such a layer on integers only
        when its output is quantized as well as its inputs. The
        `onnxruntime` target of `insert-qdq` quantizes its output when its
        activation inputs (and its weight) are quantized.
      }],
      "bool", "hasQLinearKernel", (ins), "",
      [{ return ConcreteOp::kQLinearKernel; }]>,
    InterfaceMethod<[{
        The multiply-accumulates (or, for layers without a contraction,
        element operations) one run of the layer takes: the cost that
        precision choices weigh bits by. Dynamic sizes count as 1, so
        that layers compare at one sample.
      }],
      "int64_t", "getMultiplyAccumulates", (ins), "", [{
        if ($_op->getNumResults() == 0)
          return 0;
        return ::mlir::quant_qdq::getStaticElementCount(
            $_op->getResult(0).getType());
      }]>,
    InterfaceMethod<[{
        The interval every output value lies in whatever the input, when
        the layer bounds it (softmax: [0, 1]). Calibration takes the
        largest values seen within it as the range of the layer's output,
        whatever the method: the rare large values of a bounded output
        (attention's peaks) are its signal, not outliers to clip.
      }],
      "std::optional<std::pair<double, double>>", "getOutputBounds", (ins),
      "", [{ return std::nullopt; }]>,
  ];

  let extraSharedClassDeclaration = [{
    /// The weight operand's value, if the layer has one.
    ::mlir::Value getQuantizableWeight() {
      if (auto index = $_op.getWeightOperandIndex())
        return $_op->getOperand(*index);
      return {};
    }
  }];
}

#endif // QUANTQDQ_LAYER_OP_INTERFACE_TD
