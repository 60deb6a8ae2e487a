//===- ONNXToQuantQDQ.h - ONNX nodes to layer ops, by pattern ---*- C++ -*-===//
//
// The ONNX translation (Target/ONNX) turns every node into a
// quant_qdq.generic carrying its op type, attributes and operands. The
// patterns declared here give those nodes their meaning: one pattern per
// ONNX op type (or family) and opset range rewrites a generic op into the
// layer op that means exactly the same, or leaves it generic. They need no
// protobuf, so every mapping is tested on .mlir text.
//
// Adding an ONNX op: derive from ONNXOpPattern in the file of its layer
// family under lib/QuantQDQ/Conversion/ONNX/, add it to that
// file's populate function, and write its lit test.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_ONNXTOQUANTQDQ_H
#define QUANTQDQ_CONVERSION_ONNXTOQUANTQDQ_H

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include <limits>
#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// The opset that the module of `op` (or `op`, a module) imports for ONNX
/// `domain` (empty or "ai.onnx": the default domain); kDefaultOpsetVersion
/// when the module says none.
int64_t getImportedOpset(Operation *op, StringRef domain = "");

/// A quant_qdq.generic seen as the ONNX node it was translated from: its
/// inputs by ONNX position (omitted optional inputs and subgraph captures
/// accounted for), typed readers of its attributes, and diagnostics that
/// name it.
class ONNXNode {
public:
  explicit ONNXNode(GenericOp op) : op(op) {}

  GenericOp getOp() const { return op; }
  StringRef getOpType() const { return op.getOpType(); }
  /// The opset of the default domain that the enclosing module imports.
  int64_t getOpset() const;

  /// The number of ONNX inputs, omitted ones included.
  unsigned getNumInputs() const;
  /// Input `index`, or null when absent or omitted.
  Value getInput(unsigned index) const;
  bool hasInput(unsigned index) const { return bool(getInput(index)); }
  /// Whether no result but the first is read.
  bool onlyFirstOutputUsed() const;

  /// Typed attribute readers: the default when absent, a diagnostic naming
  /// the node when present with another type.
  FailureOr<int64_t> getInt(StringRef name, int64_t defaultValue) const;
  FailureOr<float> getFloat(StringRef name, float defaultValue) const;
  FailureOr<std::string> getString(StringRef name,
                                   StringRef defaultValue) const;
  /// Absent: an empty optional.
  FailureOr<std::optional<SmallVector<int64_t>>> getInts(StringRef name) const;
  /// The raw attribute, or null.
  Attribute getAttr(StringRef name) const;

  /// An error at the node, its text starting "node 'name' (OpType): ".
  InFlightDiagnostic emitError() const;

  /// Creates `opName` with `operands` and `attrs` at the node's location,
  /// with the node's name when the op is a layer. Without `resultType`, the
  /// op's InferTypeOpInterface computes it. Inference and verifier failures
  /// become one diagnostic naming the node.
  FailureOr<Value> createLayer(RewriterBase &rewriter, StringRef opName,
                               ValueRange operands,
                               ArrayRef<NamedAttribute> attrs,
                               Type resultType = {}) const;

private:
  // Op handles are values; their accessors are not const.
  mutable GenericOp op;
};

/// The values of a constant (arith.constant, dense or resource) of integer
/// / floating-point type, up to a million elements; nothing otherwise.
std::optional<SmallVector<int64_t>> getConstantInts(Value value);
std::optional<SmallVector<float>> getConstantFloats(Value value);

/// Rewrites the generic ops of some default-domain ONNX op types, for the
/// opsets in [sinceVersion, untilVersion], whose outputs beyond the first
/// are unread (a MaxPool's indices, a Dropout's mask): `convert` replaces
/// the first. It returns failure when the node keeps its generic form; a
/// malformed node emits an error first (convert-onnx-to-quant-qdq fails on
/// any error).
class ONNXOpPattern : public OpRewritePattern<GenericOp> {
public:
  static constexpr int64_t kNoUpperBound = std::numeric_limits<int64_t>::max();

  ONNXOpPattern(MLIRContext *context, ArrayRef<StringRef> opTypes,
                int64_t sinceVersion = 1,
                int64_t untilVersion = kNoUpperBound,
                PatternBenefit benefit = 1);

  LogicalResult matchAndRewrite(GenericOp op,
                                PatternRewriter &rewriter) const final;

protected:
  virtual LogicalResult convert(ONNXNode node,
                                PatternRewriter &rewriter) const = 0;

private:
  SmallVector<std::string, 2> opTypes;
  int64_t sinceVersion, untilVersion;
};

/// All ONNX-to-layer patterns: each layer family's, and the evaluation of
/// constants and shape computations.
void populateONNXToQuantQDQPatterns(RewritePatternSet &patterns);

/// Runs the patterns over `func` in program order, each node once, so that
/// a node sees its inputs already converted; then the layer ops'
/// canonicalization patterns (the fusions: x * sigmoid(x) to swish, a
/// dense and its bias add to one dense); then refreshes the function type.
/// Fails when a pattern reported an error. `refineTypes`, when given, is
/// called on each generic node whose results include an unranked tensor
/// just before the patterns see it (the importer's ONNX inference node by
/// node, now that the node's inputs have their converted types).
LogicalResult
convertONNXToQuantQDQ(Operation *func, const FrozenRewritePatternSet &patterns,
                      function_ref<void(GenericOp)> refineTypes = nullptr);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_ONNXTOQUANTQDQ_H
