//===- qdq-translate.cpp - translations in and out of quant_qdq -----------===//
//
// mlir-translate with the upstream translations (MLIR to LLVM IR, ...) and
// the project's own: --qdq-to-dot draws a graph; the ONNX import and export
// register here.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Target/Dot.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::quant_qdq::registerToDotTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "quant-qdq translation driver\n"));
}
