//===- GatheredConstants.cpp - constants rearranged at compile time -------===//

#include "GatheredConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

Value mlir::quant_qdq::createGatheredConstant(
    OpBuilder &b, Location loc, ElementsAttr source, RankedTensorType type,
    int64_t origin, ArrayRef<int64_t> strides, StringRef blobName) {
  if (!type.getElementType().isF32())
    return nullptr;
  auto dense = dyn_cast<DenseElementsAttr>(source);
  if (dense && dense.isSplat() && dense.getElementType().isF32())
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, dense.getSplatValue<float>()));
  ArrayRef<float> data;
  if (dense && dense.getElementType().isF32())
    data = ArrayRef<float>(
        reinterpret_cast<const float *>(dense.getRawData().data()),
        dense.getNumElements());
  else if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(source);
           resource && resource.tryGetAsArrayRef())
    data = *resource.tryGetAsArrayRef();
  else
    return nullptr;

  ArrayRef<int64_t> shape = type.getShape();
  int64_t count = type.getNumElements();
  std::vector<float> denseData;
  AsmResourceBlob blob;
  float *result;
  if (dense) {
    denseData.resize(count);
    result = denseData.data();
  } else {
    blob = HeapAsmResourceBlob::allocate(count * sizeof(float), alignof(float),
                                         /*dataIsMutable=*/true);
    result = reinterpret_cast<float *>(blob.getMutableData().data());
  }
  // The innermost dimension is one strided run per row.
  int64_t inner = shape.empty() ? 1 : shape.back();
  int64_t innerStride = shape.empty() ? 0 : strides.back();
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t row = 0; row * inner < count; ++row) {
    int64_t at = origin;
    for (auto [i, stride] : llvm::zip(index, strides))
      at += i * stride;
    for (int64_t c = 0; c < inner; ++c)
      result[row * inner + c] = data[at + c * innerStride];
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  if (dense)
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, ArrayRef<float>(denseData)));
  return arith::ConstantOp::create(
      b, loc, DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
}
