//===- JSONText.h - JSON files the passes read ------------------*- C++ -*-===//
//
// QuantizationSpec and TensorQuant map files are JSON; a syntax error in
// either is reported the same way, at its line and column in the file.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_JSONTEXT_H
#define QUANTQDQ_UTILS_JSONTEXT_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

namespace mlir::quant_qdq {

/// Parses `text`, the contents of `bufferName`; on a syntax error, emits
/// "malformed <what> JSON: <message>" at its line and column.
FailureOr<llvm::json::Value> parseJSONText(StringRef text,
                                           StringRef bufferName,
                                           StringRef what,
                                           MLIRContext *context);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_JSONTEXT_H
