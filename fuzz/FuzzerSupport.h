//===- FuzzerSupport.h - what every fuzz target shares ----------*- C++ -*-===//
//
// A fresh context per input (nothing one input leaves behind, resource
// blobs included, reaches the next) whose diagnostics are dropped: a fuzz
// target looks for crashes, leaks and sanitizer reports, not for errors,
// which bad input is meant to give.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_FUZZ_FUZZERSUPPORT_H
#define QUANTQDQ_FUZZ_FUZZERSUPPORT_H

#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlir::quant_qdq::fuzz {

/// A single-threaded context with `registry`'s dialects loaded and a handler
/// that swallows every diagnostic.
class QuietContext {
public:
  explicit QuietContext(const DialectRegistry &registry)
      : context(registry, MLIRContext::Threading::DISABLED),
        handler(&context, [](Diagnostic &) { return success(); }) {
    context.loadAllAvailableDialects();
  }
  MLIRContext *get() { return &context; }

private:
  MLIRContext context;
  ScopedDiagnosticHandler handler;
};

/// The dialects of a quant_qdq module, as an imported model holds them.
/// Only targets that link the ONNX library call it.
inline const DialectRegistry &getModuleDialects() {
  static const DialectRegistry registry = [] {
    DialectRegistry dialects;
    registerONNXDialects(dialects);
    return dialects;
  }();
  return registry;
}

inline llvm::StringRef asText(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

} // namespace mlir::quant_qdq::fuzz

#endif // QUANTQDQ_FUZZ_FUZZERSUPPORT_H
