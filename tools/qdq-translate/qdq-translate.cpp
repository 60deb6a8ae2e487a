//===- qdq-translate.cpp - translations in and out of quant_qdq -----------===//
//
// mlir-translate with the upstream translations (MLIR to LLVM IR, ...) and
// the project's own: --qdq-to-dot draws a graph; --import-onnx and
// --export-onnx read and write ONNX models; --export-gpu-kernels compiles
// Q/DQ ops to GPU kernels described in a JSON manifest.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Target/Dot.h"
#include "QuantQDQ/Target/GPUKernels.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::quant_qdq::registerToDotTranslation(
      [](llvm::MemoryBufferRef buffer, mlir::MLIRContext *context) {
        return mlir::quant_qdq::importONNX(buffer, context);
      },
      mlir::quant_qdq::isONNXFilename);
  mlir::quant_qdq::registerONNXTranslations();
  mlir::quant_qdq::registerGPUKernelsExport();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "quant-qdq translation driver\n"));
}
