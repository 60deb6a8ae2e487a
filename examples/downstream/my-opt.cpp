// A downstream *-opt with only the dialects it needs and quant-qdq's passes.
#include "QuantQDQ/InitQuantQDQ.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  mlir::quant_qdq::registerQuantQDQDialects(registry);
  mlir::quant_qdq::registerQuantQDQPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "downstream optimizer\n", registry));
}
