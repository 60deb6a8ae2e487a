//===- LayerGraphTest.cpp - the layer graph and case records in C++ -------===//
//
// The C++ API that Python's QDQCase and layer graph bind: buildLayerGraph,
// recordSpecAsCase, previewInsertionCase, and the case record's merge.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Utils/LayerGraph.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// conv -> relu -> add(relu, x), with Q/DQ pairs on the conv's weight and
/// between conv and relu.
constexpr const char *kResidualBlock = R"mlir(
func.func @block(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x4x3x3xf32> loc("conv.weight")
  %wq = quant_qdq.quantize %w <bits = 8> : tensor<4x4x3x3xf32> -> tensor<4x4x3x3xi8>
  %wdq = quant_qdq.dequantize %wq <bits = 8> : tensor<4x4x3x3xi8> -> tensor<4x4x3x3xf32>
  %c = quant_qdq.conv2d "conv" %x, %wdq {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %q = quant_qdq.quantize %c <bits = 8> : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi8>
  %dq = quant_qdq.dequantize %q <bits = 8> : tensor<1x4x8x8xi8> -> tensor<1x4x8x8xf32>
  %r = quant_qdq.activation relu "relu" %dq : tensor<1x4x8x8xf32>
  %a = quant_qdq.add "add" %r, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}
)mlir";

class LayerGraphTest : public ::testing::Test {
protected:
  LayerGraphTest() {
    context.loadDialect<QuantQDQDialect, func::FuncDialect,
                        arith::ArithDialect, pdl::PDLDialect,
                        pdl_interp::PDLInterpDialect>();
    module = parseSourceString<ModuleOp>(kResidualBlock, &context);
    registerLibraryInsertionCases();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(LayerGraphTest, LayersTensorsAndEdges) {
  ASSERT_TRUE(module);
  std::vector<LayerNode> graph = buildLayerGraph(*module);
  ASSERT_EQ(graph.size(), 3u);
  const LayerNode &conv = graph[0], &relu = graph[1], &add = graph[2];
  EXPECT_EQ(conv.name, "conv");
  EXPECT_EQ(conv.layerClass, "Conv2D");
  ASSERT_TRUE(conv.weight.has_value());
  EXPECT_EQ(conv.weight->name, "conv.weight");
  EXPECT_EQ(*conv.weight->shape, SmallVector<int64_t>({4, 4, 3, 3}));
  EXPECT_EQ(conv.weightChannelAxis, 0);
  // A graph input has no producer; the Q/DQ pair is looked through.
  EXPECT_FALSE(conv.inputs[0].producer.has_value());
  EXPECT_EQ(relu.inputs[0].producer, 0u);
  EXPECT_EQ(relu.inputs[0].name, conv.outputs[0].name);
  EXPECT_EQ(conv.consumers, SmallVector<unsigned>({1}));
  // The add reads the relu and the graph input, which the conv reads too.
  ASSERT_EQ(add.inputs.size(), 2u);
  EXPECT_EQ(add.inputs[0].producer, 1u);
  EXPECT_EQ(add.inputs[1].name, conv.inputs[0].name);
  EXPECT_TRUE(add.consumers.empty());
  // What placement quantized: the conv's weight and the relu's input, read
  // through their pairs.
  EXPECT_TRUE(conv.weight->quantized);
  EXPECT_TRUE(relu.inputs[0].quantized);
  EXPECT_FALSE(conv.inputs[0].quantized || add.inputs[0].quantized ||
               add.inputs[1].quantized);
  EXPECT_FALSE(conv.passThrough);
  EXPECT_TRUE(conv.quantizesInputByDefault && conv.quantizesWeightByDefault);
}

TEST_F(LayerGraphTest, PreviewLeavesTheModuleAlone) {
  ASSERT_TRUE(module);
  FailureOr<SmallVector<CaseDecision>> decisions =
      previewInsertionCase(*module, "residual");
  ASSERT_TRUE(succeeded(decisions));
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_EQ((*decisions)[0].layerName, "add");
  EXPECT_EQ((*decisions)[0].record.getCaseNames(), "residual");
  module->walk([](Operation *op) {
    EXPECT_FALSE(op->hasAttr(kCaseAttrName)) << op->getName().getStringRef().str();
  });
}

TEST_F(LayerGraphTest, SpecRecordedAsCase) {
  ASSERT_TRUE(module);
  FailureOr<QuantizationSpec> spec = QuantizationSpec::parse(
      R"([{"name": "add", "quantization_index": [1]},
          {"name": "Activation", "is_keras_class": true,
           "quantize_input": false}])",
      "<spec>", &context);
  ASSERT_TRUE(succeeded(spec));
  ASSERT_TRUE(succeeded(recordSpecAsCase(*module, "mine", *spec)));
  SmallVector<CaseRecordAttr> records;
  module->walk([&](QDQLayerOpInterface layer) {
    if (auto r = layer->getAttrOfType<CaseRecordAttr>(kCaseAttrName))
      records.push_back(r);
  });
  ASSERT_EQ(records.size(), 2u);
  // The relu is kept in float; the add quantizes its second input.
  EXPECT_TRUE(records[0].getInputPositions().empty());
  EXPECT_FALSE(records[0].getWeight());
  EXPECT_EQ(records[1].getInputPositions(), ArrayRef<int64_t>({1}));
  EXPECT_EQ(records[1].getCaseNames(), "mine");
}

TEST(CaseRecordAttrTest, DecisionsMerge) {
  MLIRContext context;
  context.loadDialect<QuantQDQDialect>();
  QuantizerOverride fourBits, asymmetric;
  fourBits.bits = 4;
  asymmetric.symmetric = false;
  asymmetric.bits = 6;
  auto first = CaseRecordAttr::addDecision(&context, {}, "residual", {1, 0},
                                           /*weight=*/false,
                                           /*keepInFloat=*/false, fourBits,
                                           {});
  EXPECT_EQ(first.getInputPositions(), ArrayRef<int64_t>({0, 1}));
  auto second = CaseRecordAttr::addDecision(&context, first, "bn", {1, 2},
                                            /*weight=*/true,
                                            /*keepInFloat=*/false,
                                            asymmetric, fourBits);
  EXPECT_EQ(second.getInputPositions(), ArrayRef<int64_t>({0, 1, 2}));
  EXPECT_TRUE(second.getWeight());
  EXPECT_EQ(second.getCaseNames(), "residual+bn");
  // The later case's fields win; fields it leaves unset stay.
  QuantizerOverride input = second.getInputOverride();
  EXPECT_EQ(input.bits, 6u);
  EXPECT_EQ(input.symmetric, false);
  EXPECT_FALSE(input.isSigned.has_value());
  EXPECT_EQ(second.getWeightOverride().bits, 4u);
  auto base = QuantizerAttr::get(&context);
  EXPECT_EQ(input.apply(base, std::nullopt).getBits(), 6u);
  EXPECT_FALSE(input.apply(base, std::nullopt).getSymmetric());
  // Keeping the layer in float drops what earlier cases asked for.
  auto kept = CaseRecordAttr::addDecision(&context, second, "keep", {},
                                          /*weight=*/false,
                                          /*keepInFloat=*/true, {}, {});
  EXPECT_TRUE(kept.getInputPositions().empty());
  EXPECT_FALSE(kept.getWeight());
  EXPECT_FALSE(kept.getInputQuantizer());
  EXPECT_FALSE(kept.getWeightQuantizer());
  EXPECT_EQ(kept.getCaseNames(), "residual+bn+keep");
}
