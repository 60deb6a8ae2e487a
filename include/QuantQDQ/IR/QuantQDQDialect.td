//===- QuantQDQDialect.td - quant_qdq dialect definition ---*- tablegen -*-===//
//
// The quant_qdq dialect: network layers and the quantize/dequantize ops that
// decide how a network runs in INT8.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_DIALECT_TD
#define QUANTQDQ_DIALECT_TD

include "mlir/IR/OpBase.td"

def QuantQDQ_Dialect : Dialect {
  let name = "quant_qdq";
  let cppNamespace = "::mlir::quant_qdq";
  let summary = "Network layers and quantize/dequantize (Q/DQ) ops for INT8 deployment";
  let description = [{
    The `quant_qdq` dialect expresses a neural network as a graph of *layer
    ops* (convolution, dense, pooling, batch normalization, element-wise
    arithmetic, activations...) and the *Q/DQ ops* that quantization toolkits
    place on the inputs and weights of those layers so that TensorRT or ONNX
    Runtime runs them in INT8.

    Every layer op carries an optional layer `name` and answers to the
    `QDQLayerOpInterface`: its Keras class name (`Conv2D`, `Add`, ...), which
    of its operands are activations and which is a weight with its channel
    axis, and whether the default insertion table quantizes it. Layers that no
    op models are carried untouched by `quant_qdq.generic`, in float. A front
    end whose layer class differs from its op's (Keras's `ReLU` imports as an
    `activation`) says so with the discardable attribute
    `quant_qdq.layer_class = "ReLU"`.

    Q/DQ ops carry a `#quant_qdq.quantizer` (bit width, signedness, narrow
    range, symmetric, per-channel axis) and, once known, their scales and zero
    points. A dequantize of a quantize is a real computation (fake
    quantization) and is never folded away.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class QDQ_Op<string mnemonic, list<Trait> traits = []>
    : Op<QuantQDQ_Dialect, mnemonic, traits>;

#endif // QUANTQDQ_DIALECT_TD
