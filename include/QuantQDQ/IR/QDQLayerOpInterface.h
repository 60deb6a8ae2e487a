//===- QDQLayerOpInterface.h - what a layer exposes to Q/DQ -----*- C++ -*-===//

#ifndef QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
#define QUANTQDQ_IR_QDQLAYEROPINTERFACE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
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

/// The elements of a ranked tensor `type`, its dynamic sizes counted as 1;
/// 1 for a scalar or an unranked type.
inline int64_t getStaticElementCount(Type type) {
  auto shaped = llvm::dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 1;
  int64_t count = 1;
  for (int64_t size : shaped.getShape())
    count *= ShapedType::isDynamic(size) ? 1 : size;
  return count;
}
} // namespace mlir::quant_qdq

#include "QuantQDQ/IR/QDQLayerOpInterface.h.inc"

#endif // QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
