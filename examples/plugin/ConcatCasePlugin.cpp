//===- ConcatCasePlugin.cpp - an insertion case as a pass plugin ----------===//
//
// Registers the case `concat`: Q/DQ on every input of every Concatenate, as
// TensorRT needs for an INT8 concat whose inputs come from different scales.
//
//   qdq-opt --load-pass-plugin=build/lib/QDQConcatCasePlugin.so \
//           --insert-qdq=inception,concat model.mlir
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct QuantizeConcatInputs : OpRewritePattern<ConcatOp> {
  QuantizeConcatInputs(MLIRContext *context, StringRef caseName)
      : OpRewritePattern(context), caseName(caseName.str()) {}

  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> inputs = llvm::to_vector(
        llvm::seq<int64_t>(0, concat.getInputs().size()));
    recordCaseDecision(rewriter, concat, caseName, inputs, /*weight=*/false);
    return success();
  }

  std::string caseName;
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QDQConcatCase", LLVM_VERSION_STRING, [] {
            registerInsertionCase(
                "concat", "Q/DQ on every input of every Concatenate",
                [](RewritePatternSet &patterns, StringRef caseName,
                   const CaseOptions &) {
                  patterns.add<QuantizeConcatInputs>(patterns.getContext(),
                                                     caseName);
                });
          }};
}
