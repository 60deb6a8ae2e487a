//===- LayerInterfaceTest.cpp - QDQLayerOpInterface on built layers -------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// Builds layers with result types inferred from their operands, inside a
/// function whose arguments stand for activations and weights.
class LayerInterfaceTest : public ::testing::Test {
protected:
  LayerInterfaceTest() : builder(&context) {
    context.loadDialect<QuantQDQDialect, func::FuncDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A block argument of type tensor<shape x f32>.
  Value arg(ArrayRef<int64_t> shape) {
    if (!block) {
      auto func = func::FuncOp::create(builder, loc, "f",
                                       builder.getFunctionType({}, {}));
      block = func.addEntryBlock();
      builder.setInsertionPointToEnd(block);
    }
    return block->addArgument(
        RankedTensorType::get(shape, builder.getF32Type()), loc);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
  Block *block = nullptr;
};
} // namespace

TEST_F(LayerInterfaceTest, ConvInfersShapeAndReportsItsWeight) {
  Value x = arg({1, 3, 224, 224}), w = arg({64, 3, 7, 7});
  auto conv = Conv2DOp::create(builder, loc, x, w, Value(),
                               builder.getStringAttr("conv1"), Layout::NCHW,
                               /*strides=*/{2, 2}, /*pads=*/{3, 3, 3, 3});
  EXPECT_EQ(conv.getType().getShape(), ArrayRef<int64_t>({1, 64, 112, 112}));
  auto layer = cast<QDQLayerOpInterface>(conv.getOperation());
  EXPECT_EQ(layer.getLayerClass(), "Conv2D");
  EXPECT_EQ(layer.getLayerName(), "conv1");
  EXPECT_TRUE(layer.quantizesInputByDefault());
  EXPECT_TRUE(layer.quantizesWeightByDefault());
  EXPECT_EQ(layer.getWeightOperandIndex(), std::optional<unsigned>(1));
  EXPECT_EQ(layer.getWeightChannelAxis(), std::optional<int64_t>(0));
  EXPECT_EQ(layer.getQuantizableWeight(), w);
  EXPECT_EQ(layer.getActivationOperandIndices(),
            SmallVector<unsigned>({0}));
}

TEST_F(LayerInterfaceTest, GroupedConvIsDepthwiseOnlyPerChannel) {
  Value x = arg({1, 32, 56, 56});
  Value dw = arg({32, 1, 3, 3}), grouped = arg({32, 8, 3, 3});
  auto depthwise = Conv2DOp::create(builder, loc, x, dw, Value(), nullptr,
                                    Layout::NCHW, {1, 1}, {1, 1, 1, 1}, {1, 1},
                                    /*groups=*/32);
  auto conv = Conv2DOp::create(builder, loc, x, grouped, Value(), nullptr,
                               Layout::NCHW, {1, 1}, {1, 1, 1, 1}, {1, 1},
                               /*groups=*/4);
  EXPECT_EQ(depthwise.getLayerClass(), "DepthwiseConv2D");
  EXPECT_EQ(conv.getLayerClass(), "Conv2D");
}

TEST_F(LayerInterfaceTest, NhwcLayersUseKerasAxes) {
  Value x = arg({1, 32, 32, 16}), w = arg({3, 3, 16, 8});
  auto conv = Conv2DOp::create(builder, loc, x, w, Value(), nullptr,
                               Layout::NHWC, {1, 1}, {1, 1, 1, 1});
  EXPECT_EQ(conv.getType().getShape(), ArrayRef<int64_t>({1, 32, 32, 8}));
  EXPECT_EQ(conv.getWeightChannelAxis(), std::optional<int64_t>(3));

  Value features = arg({4, 128}), kernel = arg({128, 10});
  auto dense = DenseOp::create(builder, loc, features, kernel, Value(),
                               nullptr, /*transpose_weight=*/false);
  EXPECT_EQ(dense.getWeightChannelAxis(), std::optional<int64_t>(1));
}

TEST_F(LayerInterfaceTest, MultiInputLayersExposeEveryInput) {
  Value a = arg({1, 64, 8, 8}), b = arg({1, 64, 1, 1}), c = arg({1, 64, 8, 8});
  auto add = AddOp::create(builder, loc, ValueRange{a, c}, nullptr);
  auto mul = MultiplyOp::create(builder, loc, ValueRange{a, b}, nullptr);
  EXPECT_EQ(cast<QDQLayerOpInterface>(add.getOperation())
                .getActivationOperandIndices(),
            SmallVector<unsigned>({0, 1}));
  EXPECT_FALSE(add.quantizesInputByDefault());
  EXPECT_EQ(mul.getType().getShape(), ArrayRef<int64_t>({1, 64, 8, 8}));
  EXPECT_FALSE(add.getWeightOperandIndex().has_value());
}

TEST_F(LayerInterfaceTest, PassThroughLayers) {
  Value x = arg({1, 64, 8, 8});
  auto pool = MaxPool2DOp::create(builder, loc, x, nullptr, Layout::NCHW,
                                  /*kernel_shape=*/{2, 2}, /*strides=*/{2, 2});
  auto flat = FlattenOp::create(builder, loc, pool, nullptr, /*axis=*/1);
  EXPECT_TRUE(pool.isPassThrough());
  EXPECT_TRUE(flat.isPassThrough());
  EXPECT_EQ(flat.getType().getShape(), ArrayRef<int64_t>({1, 1024}));
  auto gap = GlobalAvgPool2DOp::create(builder, loc, x, nullptr, Layout::NCHW,
                                       /*keep_dims=*/true);
  EXPECT_FALSE(gap.isPassThrough());
  EXPECT_TRUE(gap.quantizesInputByDefault());
}
