//===- QDQLayerOpInterface.h - what a layer exposes to Q/DQ -----*- C++ -*-===//

#ifndef QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
#define QUANTQDQ_IR_QDQLAYEROPINTERFACE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::quant_qdq {
/// The discardable attribute with which a front end names a layer's own
/// class where it differs from its op's (Keras's `ReLU` is an `activation`,
/// its `Rescaling` a generic `Mul`): QuantizationSpec classes, reports and
/// cases see that class.
inline constexpr llvm::StringLiteral kLayerClassAttrName =
    "quant_qdq.layer_class";

/// The class `op` was given by its front end, if any.
inline std::optional<llvm::StringRef> getFrontEndLayerClass(Operation *op) {
  if (auto name = op->getAttrOfType<StringAttr>(kLayerClassAttrName))
    return name.getValue();
  return std::nullopt;
}
} // namespace mlir::quant_qdq

#include "QuantQDQ/IR/QDQLayerOpInterface.h.inc"

#endif // QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
