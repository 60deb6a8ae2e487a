//===- MatmulDims.cpp - a contraction as a CPU matmul kernel sees it ------===//

#include "MatmulDims.h"
#include "LinearIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::quant_qdq;

std::optional<unsigned> mlir::quant_qdq::getDimPosition(AffineExpr e) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition();
  return std::nullopt;
}

bool mlir::quant_qdq::hasStaticF32Operands(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type t) {
           auto type = dyn_cast<RankedTensorType>(t);
           return type && type.hasStaticShape() &&
                  type.getElementType().isF32();
         });
}

/// Whether `e` is a sum of loops, each scaled by a positive constant (a
/// convolution's window index, oh sh + kh dh).
static bool isSumOfScaledDims(AffineExpr e, unsigned numDims) {
  if (!isLinear(e))
    return false;
  SmallVector<int64_t> origin(numDims, 0);
  if (AffineMap::get(numDims, 0, e).compose(origin)[0] != 0)
    return false;
  for (unsigned d = 0; d < numDims; ++d)
    if (e.isFunctionOfDim(d) && *getLinearCoefficient(e, d, numDims) <= 0)
      return false;
  return true;
}

/// The matmul view of a direct convolution: an image read through window
/// indices (sums of loops) and a filter read through a projected
/// permutation that holds the output's last dimension (n) and the image's
/// last (k, the input channel, a plain loop). m is the last output loop
/// the filter does not read (the output image column); the filter's other
/// reductions (the window) are loops around k.
static std::optional<MatmulDims>
getConvolutionMatmulDims(linalg::GenericOp op) {
  auto isMultiplyAdd = [](Operation *first, Operation *second) {
    return isa<arith::MulFOp>(first) && isa<arith::AddFOp>(second);
  };
  if (!linalg::detail::isContractionBody(*op.getBlock(), isMultiplyAdd))
    return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation() || out.getNumResults() == 0)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineExpr e : out.getResults())
    if (iterators[cast<AffineDimExpr>(e).getPosition()] !=
        utils::IteratorType::parallel)
      return std::nullopt;
  unsigned n = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  for (unsigned rhs = 0; rhs < 2; ++rhs) {
    AffineMap filter = op.getMatchingIndexingMap(op.getDpsInputOperand(rhs));
    AffineMap image = op.getMatchingIndexingMap(op.getDpsInputOperand(1 - rhs));
    if (!filter.isProjectedPermutation() || !filter.isFunctionOfDim(n) ||
        image.isFunctionOfDim(n) || image.isProjectedPermutation() ||
        !llvm::all_of(image.getResults(), [&](AffineExpr e) {
          return isSumOfScaledDims(e, op.getNumLoops());
        }))
      continue;
    std::optional<unsigned> k = getDimPosition(image.getResults().back());
    if (!k || iterators[*k] != utils::IteratorType::reduction ||
        !filter.isFunctionOfDim(*k))
      continue;
    MatmulDims result{std::nullopt, n, *k, rhs};
    for (AffineExpr e : llvm::reverse(out.getResults().drop_back()))
      if (unsigned d = cast<AffineDimExpr>(e).getPosition();
          !filter.isFunctionOfDim(d)) {
        result.m = d;
        break;
      }
    return result;
  }
  return std::nullopt;
}

std::optional<MatmulDims> mlir::quant_qdq::getMatmulDims(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !hasStaticF32Operands(op))
    return std::nullopt;
  if (!linalg::isaContractionOpInterface(op))
    return getConvolutionMatmulDims(op);
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.empty() || dims->n.empty())
    return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() == 0)
    return std::nullopt;
  std::optional<unsigned> n = getDimPosition(out.getResults().back());
  if (!n || !llvm::is_contained(dims->n, *n))
    return std::nullopt;
  MatmulDims result{std::nullopt, *n, dims->k.back(), 0};
  // The m dimension with the most rows, the nearest the end among equals:
  // a short one nearer the end (the batch of a [sequence, batch, features]
  // activation, as PyTorch's attention exports it) would make tiles of one
  // row, which reuse no column they load, or of a few and a remainder.
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  for (AffineExpr e : llvm::reverse(out.getResults()))
    if (std::optional<unsigned> d = getDimPosition(e);
        d && llvm::is_contained(dims->m, *d) &&
        (!result.m || bounds[*d] > bounds[*result.m]))
      result.m = d;
  result.rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(0))
                       .isFunctionOfDim(*n)
                   ? 0
                   : 1;
  return result;
}

SmallVector<std::pair<linalg::GenericOp, MatmulDims>>
mlir::quant_qdq::getStaticF32Matmuls(RewriterBase &rewriter, Operation *root) {
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op) && hasStaticF32Operands(op) &&
        linalg::isaContractionOpInterface(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  SmallVector<std::pair<linalg::GenericOp, MatmulDims>> matmuls;
  root->walk([&](linalg::GenericOp op) {
    // A product over an empty dimension has nothing to tile or pack (and
    // tiles of zero rows or columns have no shape): its loops run as they
    // are.
    if (llvm::is_contained(op.getStaticLoopRanges(), 0))
      return;
    if (std::optional<MatmulDims> dims = getMatmulDims(op))
      matmuls.emplace_back(op, *dims);
  });
  return matmuls;
}

bool mlir::quant_qdq::isOneOddPanel(int64_t n, int64_t columns) {
  return columns >= 2 && columns % 2 == 0 && n > columns && n < 2 * columns &&
         n % (columns / 2) == 0;
}
