//===- PackContractionPanels.cpp - right operands stored as column panels -===//
//
// A register tile (qdq-vectorize-contractions) reads one `columns`-wide row
// of the right operand per step of k. Read in place from a K x N matrix,
// those rows lie N floats apart: for N = 3072 they are 12 KiB apart, all in
// one L1 set, and a tile's panel of K rows falls out of cache before the
// next tile reads it again. This pass stores the right operand as panels,
// [..., N / columns, K, columns], each one contiguous, and rewrites the
// contraction to iterate (nb, ni) for n = nb * columns + ni, so that the
// tiles read each panel in order (the packing of BLAS's GEMM). Constant
// operands (weights) are packed once, here; others by a transpose in the
// program, where enough rows reuse each panel to repay the copy. Columns
// that do not fill a panel are split off first and keep the operand as it
// is.
//
//===----------------------------------------------------------------------===//

#include "GatheredConstants.h"
#include "MatmulDims.h"
#include "QuantQDQ/Codegen/Passes.h"
#include "QuantQDQ/IR/LayerConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_PACKCONTRACTIONPANELS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// Where the right operand's dimensions go in its panels: those of parallel
/// loops (a batch) first, in its order, then n's panel index, those of
/// reductions other than k (a filter's window), k, and n's column within
/// the panel: a tile reads its panel from one contiguous block.
struct PanelLayout {
  SmallVector<unsigned> outer; // operand dimensions of other parallel loops
  SmallVector<unsigned> inner; // operand dimensions of other reductions
  unsigned k, n;               // operand dimensions of k and n
  int64_t columns;

  /// The operand dimension of each panel dimension but the last (n's
  /// column), n's standing for its panel index.
  SmallVector<unsigned> getRowDims() const {
    SmallVector<unsigned> dims(outer);
    dims.push_back(n);
    dims.append(inner.begin(), inner.end());
    dims.push_back(k);
    return dims;
  }

  /// Whether an operand of type `type` is one such panel already: n of
  /// `columns` last, k before it.
  bool isOnePanel(RankedTensorType type) const {
    return type.getDimSize(n) == columns && n + 1 == type.getRank() &&
           k + 2 == type.getRank();
  }

  /// The panels' shape for an operand of shape `shape`.
  SmallVector<int64_t> getShape(ArrayRef<int64_t> shape) const {
    SmallVector<int64_t> result;
    for (unsigned d : getRowDims())
      result.push_back(d == n ? shape[n] / columns : shape[d]);
    result.push_back(columns);
    return result;
  }
};

/// A constant seen through a static, unit-stride slice of it (what is left
/// of an operand once the columns that do not fill a panel are split off)
/// and through a reshape of it (a dense layer's weight with a unit batch
/// dimension added).
struct ConstantSlice {
  ElementsAttr value;
  SmallVector<int64_t> offsets;
};
} // namespace

/// The layout of `op`'s right operand as panels, or nothing when it cannot
/// be packed: its indexing map must name each of its dimensions once, k
/// and n among them.
static std::optional<PanelLayout> getPanelLayout(linalg::GenericOp op,
                                                 const MatmulDims &dims,
                                                 int64_t columns) {
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(dims.rhs));
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return std::nullopt;
  PanelLayout layout{{}, {}, 0, 0, columns};
  bool hasK = false, hasN = false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    unsigned d = *getDimPosition(e);
    if (d == dims.k) {
      layout.k = i;
      hasK = true;
    } else if (d == dims.n) {
      layout.n = i;
      hasN = true;
    } else if (iterators[d] == utils::IteratorType::parallel) {
      layout.outer.push_back(i);
    } else {
      layout.inner.push_back(i);
    }
  }
  if (!hasK || !hasN)
    return std::nullopt;
  return layout;
}

static std::optional<ConstantSlice> getConstantSlice(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0);
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (slice.getSourceType().getRank() != type.getRank() ||
        !slice.hasUnitStride() ||
        llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
      return std::nullopt;
    offsets = llvm::to_vector(slice.getStaticOffsets());
    v = slice.getSource();
  }
  // A reshape keeps the data in order: the constant seen with its shape.
  ElementsAttr value;
  if (isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          v.getDefiningOp())) {
    if (ElementsAttr reshaped =
            getConstantAttr(v.getDefiningOp()->getOperand(0));
        reshaped && isa<DenseElementsAttr, DenseResourceElementsAttr>(reshaped))
      value = retypeConstant(reshaped, cast<ShapedType>(v.getType()));
  } else {
    value = getConstantAttr(v);
  }
  if (!value || !isa<DenseElementsAttr, DenseF32ResourceElementsAttr>(value))
    return std::nullopt;
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(value);
      resource && !resource.tryGetAsArrayRef())
    return std::nullopt;
  return ConstantSlice{value, offsets};
}

/// The panels of the constant operand `slice` (of type `type`), computed
/// here: one copy of the weights, made once.
static Value packConstant(RewriterBase &rewriter, Location loc,
                          const ConstantSlice &slice, RankedTensorType type,
                          const PanelLayout &layout) {
  auto panelsType = RankedTensorType::get(layout.getShape(type.getShape()),
                                          type.getElementType());
  // Strides of the whole constant, and where the slice starts in it.
  SmallVector<int64_t> strides =
      computeStrides(cast<ShapedType>(slice.value.getType()).getShape());
  int64_t origin = linearize(slice.offsets, strides);
  // A panel's dimensions walk the operand's by its strides, n's panel index
  // by `columns` of n's, n's column within the panel by one of n's.
  SmallVector<int64_t> panelStrides;
  for (unsigned d : layout.getRowDims())
    panelStrides.push_back(d == layout.n ? layout.columns * strides[d]
                                         : strides[d]);
  panelStrides.push_back(strides[layout.n]);
  return createGatheredConstant(rewriter, loc, slice.value, panelsType, origin,
                                panelStrides, "panels");
}

/// The panels of `operand`, computed by the program: n split into (nb, ni)
/// by a view, then one transpose.
static Value packInProgram(RewriterBase &rewriter, Location loc,
                           Value operand, const PanelLayout &layout) {
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> expandedShape;
  SmallVector<int64_t> position(type.getRank());
  for (int64_t d = 0; d < type.getRank(); ++d) {
    position[d] = expandedShape.size();
    if (d == layout.n) {
      groups.push_back({position[d], position[d] + 1});
      expandedShape.append({type.getDimSize(d) / layout.columns,
                            layout.columns});
    } else {
      groups.push_back({position[d]});
      expandedShape.push_back(type.getDimSize(d));
    }
  }
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(expandedShape, type.getElementType()), operand,
      groups);
  SmallVector<int64_t> perm;
  for (unsigned d : layout.getRowDims())
    perm.push_back(position[d]);
  perm.push_back(position[layout.n] + 1);
  Value init = tensor::EmptyOp::create(rewriter, loc,
                                       layout.getShape(type.getShape()),
                                       type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, expanded, init, perm)
      .getResult()[0];
}

/// `op` on the panels of its right operand: a new loop `ni` (the column
/// within a panel) beside n (now the panel), the output seen as
/// [..., N / columns, columns] through a view.
static void rewriteOnPanels(RewriterBase &rewriter, linalg::GenericOp op,
                            const MatmulDims &dims, const PanelLayout &layout,
                            Value panels) {
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops();
  AffineExpr nb = getAffineDimExpr(dims.n, context);
  AffineExpr ni = getAffineDimExpr(loops, context);

  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    ArrayRef<AffineExpr> results =
        op.getMatchingIndexingMap(input).getResults();
    if (input->getOperandNumber() != dims.rhs) {
      maps.push_back(AffineMap::get(loops + 1, 0, results, context));
      inputs.push_back(input->get());
      continue;
    }
    SmallVector<AffineExpr> exprs;
    for (unsigned d : layout.getRowDims())
      exprs.push_back(d == layout.n ? nb : results[d]);
    exprs.push_back(ni);
    maps.push_back(AffineMap::get(loops + 1, 0, exprs, context));
    inputs.push_back(panels);
  }
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<AffineExpr> outExprs(
      op.getMatchingIndexingMap(init).getResults());
  outExprs.push_back(ni);
  maps.push_back(AffineMap::get(loops + 1, 0, outExprs, context));

  auto outType = cast<RankedTensorType>(init->get().getType());
  int64_t rank = outType.getRank();
  SmallVector<int64_t> shape(outType.getShape());
  shape.back() /= layout.columns;
  shape.push_back(layout.columns);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  auto panelsOutType = RankedTensorType::get(shape, outType.getElementType());
  Value out = tensor::ExpandShapeOp::create(rewriter, loc, panelsOutType,
                                            init->get(), groups);

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto packed =
      linalg::GenericOp::create(rewriter, loc, TypeRange{panelsOutType},
                                inputs, ValueRange{out}, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), packed.getRegion(),
                              packed.getRegion().end());
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, outType, packed.getResult(0), groups);
  rewriter.replaceOp(op, result);
}

namespace {
struct PackContractionPanelsPass
    : public quant_qdq::impl::PackContractionPanelsBase<
          PackContractionPanelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (columns < 1) {
      emitError(getOperation()->getLoc())
          << "columns must be positive, got " << int64_t(columns);
      return signalPassFailure();
    }
    if (wideColumns < 0) {
      emitError(getOperation()->getLoc())
          << "wide-columns must be 0 or more, got " << int64_t(wideColumns);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (auto [op, dims] : getStaticF32Matmuls(rewriter, getOperation()))
      pack(rewriter, op, dims);
  }

  void pack(RewriterBase &rewriter, linalg::GenericOp op,
            const MatmulDims &dims) {
    if (op.hasIndexSemantics())
      return;
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    int64_t columns = this->columns;
    // Wide panels where their remainder is small against N, or none (a
    // convolution's output channels, an attention head's features: one
    // wide panel a head does half the loads of two narrow ones).
    if (wideColumns > 0 &&
        (bounds[dims.n] >= 8 * wideColumns ||
         (bounds[dims.n] >= wideColumns && bounds[dims.n] % wideColumns == 0)))
      columns = wideColumns;
    else if (isOneOddPanel(bounds[dims.n], columns))
      columns = bounds[dims.n];
    std::optional<PanelLayout> layout = getPanelLayout(op, dims, columns);
    if (!layout)
      return;
    int64_t whole = bounds[dims.n] / columns * columns;
    if (whole == 0)
      return;
    Value rhs = op.getDpsInputOperand(dims.rhs)->get();
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    // One panel that already is one needs no copy.
    if (layout->isOnePanel(rhsType))
      return;
    bool constant = getConstantSlice(rhs).has_value();
    if (!constant && (!dims.m || bounds[*dims.m] < minRows))
      return;

    rewriter.setInsertionPoint(op);
    if (whole < bounds[dims.n]) {
      auto [head, rest] = linalg::splitOp(
          rewriter, cast<TilingInterface>(op.getOperation()), dims.n,
          rewriter.getIndexAttr(whole));
      op = cast<linalg::GenericOp>(head.getOperation());
      packRest(rewriter, cast<linalg::GenericOp>(rest.getOperation()), dims,
               bounds[dims.n] - whole);
      rewriter.setInsertionPoint(op);
      rhs = op.getDpsInputOperand(dims.rhs)->get();
      rhsType = cast<RankedTensorType>(rhs.getType());
    }
    Value panels;
    if (std::optional<ConstantSlice> slice = getConstantSlice(rhs))
      panels = packConstant(rewriter, op.getLoc(), *slice, rhsType, *layout);
    else
      panels = packInProgram(rewriter, op.getLoc(), rhs, *layout);
    rewriteOnPanels(rewriter, op, dims, *layout, panels);
  }

  /// The columns past the last whole panel, where they read a constant
  /// that is not already one panel (a classifier's 1000 - 992 columns of a
  /// weight stored (n, k)): one panel as wide as they are, packed here once.
  /// Left as it is, the tiles would read it through a transpose that runs,
  /// on one thread, at every run.
  void packRest(RewriterBase &rewriter, linalg::GenericOp rest,
                const MatmulDims &dims, int64_t columns) {
    Value rhs = rest.getDpsInputOperand(dims.rhs)->get();
    std::optional<ConstantSlice> slice = getConstantSlice(rhs);
    std::optional<PanelLayout> layout = getPanelLayout(rest, dims, columns);
    if (!slice || !layout)
      return;
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    if (layout->isOnePanel(rhsType))
      return; // already (k, n): rows of it are contiguous
    rewriter.setInsertionPoint(rest);
    Value panels =
        packConstant(rewriter, rest.getLoc(), *slice, rhsType, *layout);
    rewriteOnPanels(rewriter, rest, dims, *layout, panels);
  }
};
} // namespace
