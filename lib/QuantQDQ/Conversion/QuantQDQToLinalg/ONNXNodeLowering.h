//===- ONNXNodeLowering.h - generic ONNX nodes to linalg --------*- C++ -*-===//
//
// A quant_qdq.generic that no layer op models is an ONNX node; execution
// lowers it by its op type. Each family's file adds its functions to one
// table, which a single pattern consults. The lowerings assume static
// shapes (execution specializes the function to its inputs first) and read
// the shape-like inputs (axes, starts, pads) as constants.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_ONNXNODELOWERING_H
#define QUANTQDQ_LIB_CONVERSION_ONNXNODELOWERING_H

#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::quant_qdq {

/// Rewrites `node` (replacing all its results) or reports why it cannot, at
/// the node, and fails.
using ONNXNodeLowerFn = LogicalResult (*)(ONNXNode node,
                                          PatternRewriter &rewriter);

/// The lowering functions of default-domain ONNX nodes, by op type.
class ONNXNodeLowerings {
public:
  void add(ArrayRef<StringRef> opTypes, ONNXNodeLowerFn fn) {
    for (StringRef type : opTypes)
      byType[type] = fn;
  }
  ONNXNodeLowerFn lookup(StringRef opType) const {
    return byType.lookup(opType);
  }

private:
  llvm::StringMap<ONNXNodeLowerFn> byType;
};

void addONNXElementwiseLowerings(ONNXNodeLowerings &lowerings);
void addONNXDataMovementLowerings(ONNXNodeLowerings &lowerings);
void addONNXReductionLowerings(ONNXNodeLowerings &lowerings);
void addONNXContractionLowerings(ONNXNodeLowerings &lowerings);

/// Whether `op` is an ONNX node that a lowering exists for.
bool hasONNXNodeLowering(GenericOp op);

/// The node's input `index` as constant integers, or an error at the node
/// naming `what`.
FailureOr<SmallVector<int64_t>> getConstantIntInput(ONNXNode node,
                                                    unsigned index,
                                                    StringRef what);
/// The result type of `node`'s result `index`, which must be a ranked
/// tensor of static shape.
RankedTensorType getStaticResultType(ONNXNode node, unsigned index = 0);
/// `x` converted to `to` as ONNX's Cast does (and ONNX Runtime computes
/// it): float to integer truncates toward zero, through 32 bits for
/// narrower integers so that out-of-range values wrap as they do there;
/// anything to bool is "not zero", bool to a number is 0 or 1. Both are
/// signless; `fromUnsigned` and `toUnsigned` say which integers were
/// unsigned in the model (zero extension, unsigned conversions).
Value castScalar(OpBuilder &b, Location loc, Value x, Type to,
                 bool fromUnsigned = false, bool toUnsigned = false);

/// `type` with a signless integer element type in place of an unsigned (or
/// signed) one of the same width. Arithmetic takes signless integers only.
RankedTensorType getSignlessType(RankedTensorType type);
/// `tensor` as getSignlessType's type, through a tensor.bitcast of the same
/// bits where it differs.
Value castToSignless(OpBuilder &b, Location loc, Value tensor);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CONVERSION_ONNXNODELOWERING_H
