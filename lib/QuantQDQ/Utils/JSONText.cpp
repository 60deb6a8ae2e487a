//===- JSONText.cpp - JSON files the passes read --------------------------===//

#include "QuantQDQ/Utils/JSONText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Arrays and objects deeper than this are refused before parsing:
/// llvm::json recurses once per level, and would overflow the stack.
static constexpr unsigned kMaxDepth = 256;

/// The offset of the first bracket nested deeper than kMaxDepth, if any.
static std::optional<size_t> findTooDeep(StringRef text) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        return i;
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return std::nullopt;
}

FailureOr<llvm::json::Value>
mlir::quant_qdq::parseJSONText(StringRef text, StringRef bufferName,
                               StringRef what, MLIRContext *context) {
  if (std::optional<size_t> at = findTooDeep(text)) {
    StringRef before = text.take_front(*at);
    unsigned line = before.count('\n') + 1;
    size_t lineStart = before.rfind('\n');
    unsigned col = *at - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
    emitError(FileLineColLoc::get(context, bufferName, line, col))
        << "malformed " << what << " JSON: nested deeper than " << kMaxDepth
        << " levels";
    return failure();
  }
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
