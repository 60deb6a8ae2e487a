//===- qdq-opt.cpp - the quant-qdq optimizer driver -----------------------===//
//
// mlir-opt with the quant_qdq dialect and its passes, beside every upstream
// dialect and pass a lowering pipeline may need.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/InitQuantQDQ.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::quant_qdq::registerAllQuantQDQPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::quant_qdq::registerQuantQDQDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "quant-qdq optimizer driver\n", registry));
}
