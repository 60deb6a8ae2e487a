//===- SampleAnalysis.h - where a function's samples are --------*- C++ -*-===//
//
// qdq-split-batch runs a batch in groups of samples only where every sample
// is computed independently of the others. That is proved, not assumed: a
// forward analysis follows where the samples are in every tensor (a
// dimension, or a factor of one, that counts them) through linalg ops,
// gathers in their bodies, reshapes, pads, slices, concats and
// calibration's histograms, and gives up on anything that reads across
// samples (a reduction over them, a slice of some of them, an index
// expression, an unknown op).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CODEGEN_SAMPLEANALYSIS_H
#define QUANTQDQ_LIB_CODEGEN_SAMPLEANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// Where a tensor's samples are: dimension `dim` holds `outer * samples *
/// inner` entries, sample `s` at [o * samples * inner + s * inner, ... +
/// inner) for each `o` below `outer`. Outer factors come from reshapes that
/// merge another dimension before the samples' ([sequence, batch] into one,
/// as PyTorch's attention does).
struct SampleDim {
  int64_t dim;
  int64_t outer = 1;
  int64_t inner = 1;

  bool operator==(const SampleDim &other) const {
    return dim == other.dim && outer == other.outer && inner == other.inner;
  }
  bool operator!=(const SampleDim &other) const { return !(*this == other); }
  /// The same layout of samples in dimension `d`.
  SampleDim at(int64_t d) const { return {d, outer, inner}; }
};

/// Which tensors of a function hold its samples, and where; `run` fails
/// where some op reads across samples, saying which and why.
class SampleAnalysis {
public:
  explicit SampleAnalysis(func::FuncOp func) : func(func) {}

  LogicalResult run();

  /// The batch: the size of every argument's dimension 0.
  int64_t samples = 0;
  /// Tensors that depend on the samples. The others (weights, constants,
  /// shapes) are the same for any group.
  DenseMap<Value, SampleDim> dims;
  /// Operands that do not depend on the samples but are read along a
  /// sample dimension (a bias broadcast over the batch, a convolution's
  /// empty output): the group's function makes them its own size.
  DenseMap<OpOperand *, SampleDim> widened;
  /// Bytes per sample of each linalg op's tensors that hold samples, and
  /// of the largest.
  DenseMap<Operation *, int64_t> bytesPerSampleOf;
  int64_t bytesPerSample = 0;
  /// Bytes of each linalg op's tensors that every sample reads (weights).
  DenseMap<Operation *, int64_t> sharedBytesOf;
  /// Why the function cannot be split, at the op that reads across
  /// samples.
  Operation *blocker = nullptr;
  std::string reason;

private:
  LogicalResult block(Operation *op, const Twine &why) {
    blocker = op;
    reason = why.str();
    return failure();
  }
  std::optional<SampleDim> lookup(Value value) const {
    auto it = dims.find(value);
    if (it == dims.end())
      return std::nullopt;
    return it->second;
  }
  /// Records that `operand`, which does not depend on the samples, is read
  /// along its dimension `dim`: it must hold the same values for every
  /// sample there.
  LogicalResult widen(OpOperand &operand, SampleDim where);
  LogicalResult visit(Operation *op);
  LogicalResult visitLinalg(linalg::LinalgOp op);
  LogicalResult visitExpandShape(tensor::ExpandShapeOp op, SampleDim source);
  LogicalResult visitCollapseShape(tensor::CollapseShapeOp op,
                                   SampleDim source);
  LogicalResult visitExtractSlice(tensor::ExtractSliceOp op, SampleDim source);
  LogicalResult visitInsertSlice(tensor::InsertSliceOp op);
  LogicalResult visitConcat(tensor::ConcatOp op);

  func::FuncOp func;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CODEGEN_SAMPLEANALYSIS_H
