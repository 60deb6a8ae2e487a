//===- qdq-translate.cpp - translations in and out of quant_qdq -----------===//
//
// mlir-translate with the upstream translations (MLIR to LLVM IR, ...). The
// ONNX import and export register here.
//
//===----------------------------------------------------------------------===//

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "quant-qdq translation driver\n"));
}
