//===- QuantQDQToONNX.h - layer ops to ONNX nodes, by pattern ---*- C++ -*-===//
//
// Export's half of the ONNX conversion: one pattern per layer op (and per
// Q/DQ op) rewrites it into the quant_qdq.generic ops of the ONNX nodes
// that compute it, with its parameters as constants. The ONNX writer
// (Target/ONNX) then only translates generic ops and constants. A layer's
// export pattern lives beside its import pattern, in its family file under
// lib/QuantQDQ/Conversion/ONNX/; both are tested on .mlir text.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_QUANTQDQTOONNX_H
#define QUANTQDQ_CONVERSION_QUANTQDQTOONNX_H

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include <string>

namespace mlir::quant_qdq {

/// Creates the ONNX nodes and constants that stand for one op `source`,
/// before it. The node that carries `source`'s name is its own node; helper
/// nodes (the Sigmoid of a swish) and constants (a Clip's bounds) are named
/// `<name>_<suffix>`, where `<name>` is the layer's name or its location's
/// (unnamed when it has neither: the writer then numbers nodes and names a
/// constant after the node input that reads it).
class ONNXNodeBuilder {
public:
  ONNXNodeBuilder(PatternRewriter &rewriter, Operation *source);

  PatternRewriter &getRewriter() const { return rewriter; }
  /// The opset of the default domain that the enclosing module imports.
  int64_t getOpset() const;

  /// A node of `opType` reading `inputs`, with one result of `resultType`.
  /// An empty `suffix` makes it `source`'s own node.
  Value create(StringRef opType, ValueRange inputs, Type resultType,
               ArrayRef<NamedAttribute> attributes = {},
               StringRef suffix = {});

  /// Replaces `source`'s only result by its own node of `opType`, with the
  /// result's type. Returns success, for the patterns' tails.
  LogicalResult replaceWith(StringRef opType, ValueRange inputs,
                            ArrayRef<NamedAttribute> attributes = {});
  /// Replaces `source`'s only result by `value`, the result of a node
  /// created here, which takes over its tensor name; erases `source`.
  LogicalResult replaceWithValue(Value value);
  /// Replaces `source`'s only result by `input` (an op that ONNX does not
  /// need, such as an inference-mode dropout); erases `source`.
  LogicalResult forward(Value input);

  /// Constants: a 0-D tensor of float type `elementType`, a 1-D int64 one,
  /// any elements attribute. `suffix` names them as above; an empty one
  /// leaves them unnamed.
  Value createScalar(double value, Type elementType, StringRef suffix);
  Value createInt64s(ArrayRef<int64_t> values, StringRef suffix);
  Value createConstant(TypedAttr value, StringRef suffix);
  /// A constant named `name` (unnamed when empty).
  Value createNamedConstant(TypedAttr value, StringRef name);

  /// ONNX attributes, in the form the generic op keeps them
  /// (`layer_attributes`: i64, f32, string, array<i64>).
  NamedAttribute getIntAttr(StringRef name, int64_t value) const;
  NamedAttribute getFloatAttr(StringRef name, double value) const;
  NamedAttribute getStringAttr(StringRef name, StringRef value) const;
  NamedAttribute getIntsAttr(StringRef name, ArrayRef<int64_t> value) const;

  /// An error at `source`.
  InFlightDiagnostic emitError() const { return source->emitError(); }

private:
  Location getLocation(StringRef suffix) const;

  PatternRewriter &rewriter;
  Operation *source;
  /// The layer name `source` carries, and the base of the names above.
  std::string layerName, baseName;
};

/// All layer-to-ONNX patterns, each layer family's and Q/DQ's.
void populateQuantQDQToONNXPatterns(RewritePatternSet &patterns);

/// Prepares `module` for the ONNX writer: fixes the default-domain opset
/// it is written at (`opset`; 0: the module's, raised to what its Q/DQ ops
/// need, with a warning) and tags the nodes kept from the model with the
/// opset they were written for when it differs; runs the patterns over
/// each function's ops in program order, writes equal quantization
/// parameters once (scales and zero points that several Q/DQ nodes share),
/// drops constants left unread and refreshes function types. An op that no
/// pattern converts is an error ('...' has no ONNX form), as is any error a
/// pattern reports.
/// With `matmulNBits`, int4 dense layers in blocks become MatMulNBits first.
LogicalResult convertQuantQDQToONNX(ModuleOp module,
                                    const FrozenRewritePatternSet &patterns,
                                    int64_t opset = 0,
                                    bool matmulNBits = false);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_QUANTQDQTOONNX_H
