//===- JSONText.cpp - JSON files the passes read --------------------------===//

#include "QuantQDQ/Transforms/JSONText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::quant_qdq;

FailureOr<llvm::json::Value>
mlir::quant_qdq::parseJSONText(StringRef text, StringRef bufferName,
                               StringRef what, MLIRContext *context) {
  llvm::Expected<llvm::json::Value> root = llvm::json::parse(text);
  if (root)
    return std::move(*root);
  // ParseError prints "[line:col, byte=N]: message".
  std::string message = llvm::toString(root.takeError());
  unsigned line = 1, col = 1;
  StringRef rest(message);
  if (rest.consume_front("[")) {
    StringRef lineText, colText;
    std::tie(lineText, rest) = rest.split(':');
    std::tie(colText, rest) = rest.split(',');
    (void)lineText.getAsInteger(10, line);
    if (!colText.getAsInteger(10, col))
      ++col; // llvm::json counts columns from 0.
    rest = rest.split("]: ").second;
  }
  emitError(FileLineColLoc::get(context, bufferName, line, col))
      << "malformed " << what << " JSON: " << rest;
  return failure();
}
