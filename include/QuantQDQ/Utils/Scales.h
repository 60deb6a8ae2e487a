//===- Scales.h - scales of weights, and defaults for activations -*- C++ -*-===//
//
// Weights need no calibration data: their range is in the constant. These
// helpers compute their scales, and give uncalibrated activations a default
// range when a caller (ONNX export) must write some scale.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_SCALES_H
#define QUANTQDQ_UTILS_SCALES_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// Calls `fn` with the values of a floating-point constant (dense or
/// resource) as floats, without copying f32 data. Fails for other values.
LogicalResult readFloatConstant(ElementsAttr value,
                                function_ref<void(ArrayRef<float>)> fn);

/// An arith.constant of `type` holding a copy of `values` in a resource
/// blob named `name`, at a NameLoc of `name` (the tensor name export gives
/// it): how a pass writes a weight it has recomputed.
arith::ConstantOp createFloatResourceConstant(OpBuilder &builder, Location loc,
                                              RankedTensorType type,
                                              ArrayRef<float> values,
                                              StringRef name);

/// Consecutive elements of a tensor (row-major) and the scales they use:
/// element `begin + i` takes scale `scale + i * scaleStride`, for i below
/// `length`. A quantizer's runs cover the tensor in order: one run per
/// tensor; per axis, runs of the elements after the axis (stride 0), or
/// whole rows when the axis is the last (stride 1); per block, runs that
/// step through the block row of scales (stride 1), or a block along the
/// last axis (stride 0). Kernels walk them with no division per element.
struct ScaleRun {
  int64_t begin, length, scale, scaleStride;
};
SmallVector<ScaleRun> getScaleRuns(QuantizerAttr q, ArrayRef<int64_t> shape);

/// Scales of the constant `weight` (static shape), one per tensor, slice
/// along the axis, or block, as `q` says: the smallest scale that fits the
/// group's minimum and maximum into [qmin, qmax] (`max|w| / qmax` for a
/// narrow range; with the full range the side of the larger magnitude may
/// take the extra negative level), clipped, when `q` is a signed integer
/// quantizer with calibration `mse`, by whichever of a few factors down to
/// 0.8 rounds the group with the least squared error. A group of zeros
/// gets scale 1, since any positive scale represents it exactly. Fails
/// when `weight` holds no floating-point values.
FailureOr<SmallVector<float>> computeWeightScales(ElementsAttr weight,
                                                  QuantizerAttr q);
/// The same for weights held as floats of `shape` (row-major).
SmallVector<float> computeWeightScales(ArrayRef<float> weight,
                                       ArrayRef<int64_t> shape,
                                       QuantizerAttr q);

/// The scale computeWeightScales gives one group holding `values`.
float chooseWeightScale(ArrayRef<float> values, QuantizerAttr q);

/// The number of bytes one storage element of `q` takes in memory and in
/// a dense constant: 1 up to 8 bits, 2 up to 16.
inline int64_t getStorageBytes(QuantizerAttr q) {
  return q.getBits() <= 8 ? 1 : 2;
}

/// Writes to `out` the storage (getStorageBytes per element, little
/// endian) of the float constant `value` quantized with `q`, `scales` and
/// `zeroPoints` (empty: all 0): clamp(round_half_to_even(w / s) + zp, qmin,
/// qmax) with the scale of each element's group, on the context's threads.
/// Fails for values that are not a floating-point constant of static shape,
/// for scales that do not fit `q`, and when `out` has the wrong size.
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

/// The scale and zero point of an activation quantizer `q` for a tensor
/// whose calibrated range is [lo, hi] with threshold `amax`: amax / qmax
/// for a symmetric signed quantizer (1 for an empty range), else the
/// asymmetric parameters of [lo, hi] clipped to [-amax, amax], so that a
/// method that clips (percentile, entropy, mse) clips asymmetric
/// quantizers too.
QuantParams computeActivationParams(QuantizerAttr q, double lo, double hi,
                                    double amax);

/// Gives every uncalibrated quantize/dequantize/fake_quant op in `root`
/// whose input is a constant (a weight) the scales of computeWeightScales,
/// and, when `activationAmax` is set, every other uncalibrated one the scale
/// `activationAmax / qmax` (warning once that activations are uncalibrated).
/// Dequantize ops fed by a quantize take that quantize's parameters.
LogicalResult assignDefaultScales(Operation *root,
                                  std::optional<double> activationAmax);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_SCALES_H
