//===- QuantQDQPlugin.cpp - quant-qdq as a plugin of upstream mlir-opt ----===//
//
// The dialect and every pass and pipeline of quant-qdq, for tools built on
// MlirOptMain that load plugins (upstream mlir-opt, or a stack's own opt):
//
//   mlir-opt --load-dialect-plugin=lib/QuantQDQPlugin.so \
//            --load-pass-plugin=lib/QuantQDQPlugin.so model.mlir \
//            --pass-pipeline="builtin.module(insert-qdq{cases=resnet-v1})"
//
// (plugin passes go in --pass-pipeline: mlir-opt makes its --pass flags
// before it loads plugins).
//
// The library carries quant-qdq's code and links the host's libMLIR.so, so
// that both share one MLIR. qdq-opt's own flags (--qdq-spec ...) are
// qdq-opt's: with a plugin, give them as pass options (spec=...).
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/InitQuantQDQ.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QuantQDQ", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            quant_qdq::registerQuantQDQDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QuantQDQ", LLVM_VERSION_STRING,
          [] { quant_qdq::registerAllQuantQDQPasses(); }};
}
