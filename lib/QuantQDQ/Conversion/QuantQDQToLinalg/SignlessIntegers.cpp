//===- SignlessIntegers.cpp - unsigned tensors as signless ones -----------===//
//
// ONNX's UINT8 (an image model's pixels) and the other unsigned types import
// as `ui8` tensors, and the lowering of each node reads their signedness
// (Cast extends a ui8 by zeros, converts it with uitofp). After lowering
// nothing needs it, and arithmetic, bufferization and LLVM take signless
// integers only: every signed or unsigned integer type under the root
// becomes the signless one of its width, in place, and the bitcasts the
// lowering put between the two become identities and go.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Conversion/QuantQDQToLinalg.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::quant_qdq;

void mlir::quant_qdq::eraseIntegerSignedness(Operation *root) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](IntegerType type) -> std::optional<Type> {
    if (type.isSignless())
      return std::nullopt;
    return IntegerType::get(type.getContext(), type.getWidth());
  });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  root->walk([](tensor::BitcastOp bitcast) {
    if (bitcast.getSource().getType() != bitcast.getType())
      return;
    bitcast.replaceAllUsesWith(bitcast.getSource());
    bitcast.erase();
  });
}
