//===- LibraryCases.cpp - register the seed toolkit's cases ---------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"

#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace mlir::quant_qdq;

#include "LibraryCases.h.inc"

/// A building block made of one PDLL pattern of LibraryCases.pdll.
template <typename PatternT>
static InsertionCasePopulateFn makeBlock() {
  return [](RewritePatternSet &patterns, StringRef caseName,
            const CaseOptions &options) {
    patterns.add<PatternT>(patterns.getContext());
    registerCaseNatives(patterns.getPDLPatterns(), caseName, options);
  };
}

void mlir::quant_qdq::registerLibraryInsertionCases() {
  registerInsertionCase(
      "residual",
      "Q/DQ on the skip branches of every Add; the convolution-fed input "
      "stays in float so TensorRT fuses the Add into it",
      makeBlock<ResidualCase>());
  registerInsertionCase(
      "bn", "Q/DQ on the input of every BatchNormalization not fed by a "
            "convolution",
      makeBlock<BatchNormCase>());
  registerInsertionCase("maxpool",
                        "Q/DQ on the input of every MaxPooling2D",
                        makeBlock<MaxPoolCase>());
  registerInsertionCase(
      "se-multiply",
      "Q/DQ on both inputs of every Multiply (squeeze-and-excitation)",
      makeBlock<SqueezeExciteCase>());

  registerInsertionCase(
      "residual-gemm",
      "on an Add fed by a GEMM or convolution chain, that input stays in "
      "float and the residual stream gets Q/DQ; other Adds are left alone",
      makeBlock<GemmResidualCase>());
  registerInsertionCase(
      "attention-matmul",
      "Q/DQ on both inputs of attention's batched MatMuls (sequence length "
      "at most attention-max-sequence, 512, or unknown), for TensorRT's INT8 "
      "fused attention",
      makeBlock<AttentionMatMulCase>());
  registerInsertionCase(
      "small-gemm",
      "GEMV-like (M or N = 1) and tiny (K or N < 16) dense layers stay in "
      "float",
      makeBlock<SmallGemmCase>());

  registerCompositeInsertionCase("resnet-v1", "ResNet-v1: residual",
                                 {"residual"});
  registerCompositeInsertionCase("resnet-v2",
                                 "ResNet-v2: residual, bn, maxpool",
                                 {"residual", "bn", "maxpool"});
  registerCompositeInsertionCase("efficientnet",
                                 "EfficientNet: residual, se-multiply",
                                 {"residual", "se-multiply"});
  registerCompositeInsertionCase("mobilenet", "MobileNet: residual",
                                 {"residual"});
  registerCompositeInsertionCase("inception", "Inception: maxpool",
                                 {"maxpool"});
  // Not residual-gemm: quantizing the residual stream cost ViT-B/16 and a
  // BERT-like encoder 5.3 dB of output SQNR (bench/peers/RESULTS.md); it
  // stays a building block for those who trade that for speed.
  registerCompositeInsertionCase(
      "transformer",
      "Transformers (ViT, Swin, BERT) and hybrids: attention-matmul, "
      "small-gemm; residual Adds in float",
      {"attention-matmul", "small-gemm"});
}
