//===- FoldBatchNorm.cpp - fold BN into the convolution before it ---------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// The values of an f32 constant tensor, dense or resource, or nothing.
static std::optional<SmallVector<float>> readConstant(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return llvm::to_vector(dense.getValues<float>());
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr))
    if (std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef())
      return SmallVector<float>(*data);
  return std::nullopt;
}

/// An arith.constant holding `data` in a resource blob.
static Value makeConstant(PatternRewriter &rewriter, Location loc,
                          RankedTensorType type, ArrayRef<float> data,
                          StringRef blobName) {
  auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(data);
  auto attr = DenseResourceElementsAttr::get(type, blobName, std::move(blob));
  return arith::ConstantOp::create(rewriter, loc, attr);
}

namespace {
struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<Conv2DOp>();
    if (!conv || !conv->hasOneUse() || conv.getLayout() != bn.getLayout())
      return rewriter.notifyMatchFailure(bn, "not the only user of a conv");
    std::optional<SmallVector<float>> weight = readConstant(conv.getWeight());
    std::optional<SmallVector<float>> gamma = readConstant(bn.getScale()),
                                      beta = readConstant(bn.getBias()),
                                      mean = readConstant(bn.getMean()),
                                      variance = readConstant(bn.getVariance());
    if (!weight || !gamma || !beta || !mean || !variance)
      return rewriter.notifyMatchFailure(bn, "parameters are not constant");
    int64_t channels = gamma->size();
    SmallVector<float> bias(channels, 0.0f);
    if (conv.getBias()) {
      std::optional<SmallVector<float>> convBias =
          readConstant(conv.getBias());
      if (!convBias)
        return rewriter.notifyMatchFailure(bn, "bias is not constant");
      bias = std::move(*convBias);
    }
    RankedTensorType weightType = conv.getWeight().getType();
    int64_t axis = *conv.getWeightChannelAxis();
    if (weightType.getDimSize(axis) != channels ||
        int64_t(bias.size()) != channels)
      return rewriter.notifyMatchFailure(bn, "channel counts differ");

    float epsilon = bn.getEpsilon().convertToFloat();
    SmallVector<float> factor(channels);
    for (int64_t c = 0; c < channels; ++c)
      factor[c] = (*gamma)[c] / std::sqrt((*variance)[c] + epsilon);

    // Element i of the weight lies in output channel (i / inner) % channels,
    // inner being the product of the dimensions after the channel axis.
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < weightType.getRank(); ++d)
      inner *= weightType.getDimSize(d);
    for (size_t i = 0; i < weight->size(); ++i)
      (*weight)[i] *= factor[(i / inner) % channels];
    for (int64_t c = 0; c < channels; ++c)
      bias[c] = (bias[c] - (*mean)[c]) * factor[c] + (*beta)[c];

    Location loc = rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()});
    std::string name = conv.getName().value_or("conv").str();
    rewriter.setInsertionPoint(conv);
    Value newWeight =
        makeConstant(rewriter, loc, weightType, *weight, name + "_folded_w");
    Value newBias = makeConstant(
        rewriter, loc,
        RankedTensorType::get({channels}, weightType.getElementType()), bias,
        name + "_folded_b");
    auto folded = Conv2DOp::create(
        rewriter, loc, bn.getType(), conv.getInput(), newWeight, newBias,
        conv.getNameAttr(), conv.getLayoutAttr(), conv.getStridesAttr(),
        conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupsAttr());
    // The old parameters' constants, each once: BN statistics are often one
    // shared constant.
    llvm::SmallSetVector<Operation *, 6> oldConstants;
    for (Value param : {conv.getWeight(), conv.getBias(), bn.getScale(),
                        bn.getBias(), bn.getMean(), bn.getVariance()})
      if (Operation *def = param ? param.getDefiningOp() : nullptr)
        if (def->hasTrait<OpTrait::ConstantLike>())
          oldConstants.insert(def);
    rewriter.replaceOp(bn, folded);
    rewriter.eraseOp(conv);
    // Drop the old weights now rather than keep two copies until a DCE.
    for (Operation *def : oldConstants)
      if (def->use_empty())
        rewriter.eraseOp(def);
    return success();
  }
};

struct FoldBatchNormPass
    : public quant_qdq::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConv>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
