//===- Scales.h - scales of weights, and defaults for activations -*- C++ -*-===//
//
// Weights need no calibration data: their range is in the constant. These
// helpers compute their scales, and give uncalibrated activations a default
// range when a caller (ONNX export) must write some scale.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_SCALES_H
#define QUANTQDQ_TRANSFORMS_SCALES_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// Calls `fn` with the values of a floating-point constant (dense or
/// resource) as floats, without copying f32 data. Fails for other values.
LogicalResult readFloatConstant(ElementsAttr value,
                                function_ref<void(ArrayRef<float>)> fn);

/// Per-slice scales `max|w| / qmax` of the constant `weight` along `axis`
/// (per tensor when `axis` is absent). A slice of zeros gets scale 1, since
/// any positive scale represents it exactly. Fails when `weight` holds no
/// floating-point values.
FailureOr<SmallVector<float>> computeWeightScales(ElementsAttr weight,
                                                  std::optional<int64_t> axis,
                                                  int64_t qmax);

/// Writes to `out` the storage bytes (one per element) of the float
/// constant `value` quantized with the 8-bit quantizer `q`, `scales` and
/// `zeroPoints` (empty: all 0): clamp(round_half_to_even(w / s) + zp, qmin,
/// qmax) per slice along the quantizer's axis, on the context's threads.
/// Fails for other bit widths, for values that are not a floating-point
/// constant of static shape, and when `out` has not one byte per element.
LogicalResult quantizeConstant(ElementsAttr value, QuantizerAttr q,
                               ArrayRef<float> scales,
                               ArrayRef<int32_t> zeroPoints,
                               MutableArrayRef<char> out);

/// A scale and zero point.
struct QuantParams {
  float scale;
  int32_t zeroPoint;
};

/// The asymmetric parameters of quantizer `q` for values in [lo, hi],
/// widened to hold 0 so that 0.0 is exact (TFMOT's scheme); an empty range
/// gets scale 1.
QuantParams computeAsymmetricParams(QuantizerAttr q, double lo, double hi);

/// Gives every uncalibrated quantize/dequantize/fake_quant op in `root`
/// whose input is a constant (a weight) the scales of computeWeightScales,
/// and, when `activationAmax` is set, every other uncalibrated one the scale
/// `activationAmax / qmax` (warning once that activations are uncalibrated).
/// Dequantize ops fed by a quantize take that quantize's parameters.
LogicalResult assignDefaultScales(Operation *root,
                                  std::optional<double> activationAmax);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_SCALES_H
