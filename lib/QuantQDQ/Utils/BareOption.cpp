//===- BareOption.cpp - a pass's main option given without its key --------===//

#include "QuantQDQ/Utils/BareOption.h"

using namespace mlir;

std::string
quant_qdq::nameBareLeadingEntry(StringRef options, StringRef mainOption,
                                function_ref<bool(StringRef)> isOption) {
  StringRef trimmed = options.trim();
  // The first entry: up to the first space (a case list, `{a,b}` too, or
  // a data path has none).
  StringRef first = trimmed.take_until([](char c) { return c == ' '; });
  if (first.empty() || first.contains('=') || isOption(first))
    return trimmed.str();
  return (mainOption + "=" + trimmed).str();
}
