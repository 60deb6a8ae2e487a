//===- IntegerWeights.cpp - weights stored as int8 initializers -----------===//
//
// With --onnx-weights=int8, export writes a quantized weight as an integer
// initializer read by a DequantizeLinear, instead of float + QuantizeLinear.
//
//===----------------------------------------------------------------------===//

#include "ONNXCommon.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Scales.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

FailureOr<std::string> mlir::quant_qdq::onnx_io::quantizeConstant(
    ElementsAttr value, Attribute quantizerAttr, ArrayRef<float> scales,
    ArrayRef<int32_t> zeroPoints) {
  auto q = dyn_cast<QuantizerAttr>(quantizerAttr);
  auto type = cast<ShapedType>(value.getType());
  if (!q || q.getBits() != 8 || !type.hasStaticShape() || scales.empty())
    return failure();
  std::optional<int64_t> axis = q.getAxis();
  int64_t slices = axis ? type.getDimSize(*axis) : 1;
  if (int64_t(scales.size()) != slices)
    return failure();
  int64_t inner = 1;
  if (axis)
    for (int64_t d = *axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  std::string bytes;
  LogicalResult ok = readFloatConstant(value, [&](ArrayRef<float> data) {
    bytes.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      int64_t s = slices == 1 ? 0 : (int64_t(i) / inner) % slices;
      int64_t zp = zeroPoints.empty() ? 0 : zeroPoints[s];
      // nearbyint rounds half to even in the default rounding mode.
      float scaled = std::nearbyint(data[i] / scales[s]);
      int64_t v = std::isnan(scaled) ? zp
                  : scaled > 1e9f    ? q.getQMax()
                  : scaled < -1e9f   ? q.getQMin()
                                     : int64_t(scaled) + zp;
      v = std::clamp(v, q.getQMin(), q.getQMax());
      bytes[i] = char(uint8_t(v & 0xff));
    }
  });
  if (failed(ok))
    return failure();
  return bytes;
}
