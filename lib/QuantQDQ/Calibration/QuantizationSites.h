//===- QuantizationSites.h - where a network quantizes, and how -*- C++ -*-===//
//
// The places a calibrated network quantizes (a quantize read only by
// dequantizes, or a fake_quant), each with the float value it quantizes and
// the layers that read the result, and the ways each could quantize instead
// (another format, the same range). Sensitivity analysis and automatic
// precision measure the network with each site in one of its ways or in
// float; one compiled network does all of it: `makeSwitchable` gives the
// function an input that picks, per site, what the site computes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_QUANTIZATIONSITES_H
#define QUANTQDQ_LIB_CALIBRATION_QUANTIZATIONSITES_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "QuantQDQ/IR/QuantizerOverride.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::quant_qdq {

/// How a site quantizes: a quantizer with its scales and zero points.
struct SiteQuantizer {
  QuantizerAttr quantizer;
  DenseF32ArrayAttr scale;
  DenseI32ArrayAttr zeroPoint;
};

/// One place where the network quantizes.
struct QuantizationSite {
  /// The float tensor quantized (a weight constant, or an activation).
  Value input;
  /// The values that carry the fake-quantized tensor: the dequantizes'
  /// results, or the fake_quant's.
  SmallVector<Value> outputs;
  /// The site's own ops (the quantize and its dequantizes, or the
  /// fake_quant), erased when the site changes.
  SmallVector<Operation *> ops;
  SiteQuantizer current;
  bool isWeight = false;
  /// The quantized tensor's name: an activation's calibration-table name,
  /// a weight's initializer name.
  std::string name;
  /// The layers reading the result (through pass-through layers), in
  /// program order, each once.
  SmallVector<Operation *> layers;
  /// The multiply-accumulates of those layers (QDQLayerOpInterface).
  int64_t multiplyAccumulates = 0;
};

/// The sites of `func` in program order, its tensors named first. A
/// quantize whose result is read by anything but dequantizes that undo it
/// (same parameters, back to the input's type), and a dequantize without a
/// quantize (a QDQ ONNX model's stored weights), are no sites: they have no
/// float side to switch to.
std::vector<QuantizationSite> collectQuantizationSites(func::FuncOp func);

/// Fails, with an error at the first site without scales naming `pass`,
/// unless every site is calibrated.
LogicalResult checkSitesCalibrated(ArrayRef<QuantizationSite> sites,
                                   StringRef pass);

/// The name of a site's layers: their layer names joined with ',' (their
/// ops' names where unnamed), or the tensor's name when no layer reads it.
std::string describeSiteLayers(const QuantizationSite &site);

/// A format a site may take: a quantizer format (int4, int8, int16, fp8),
/// or float (no quantization).
struct SiteFormat {
  std::string name;
  /// Bits per value: 32 for float.
  unsigned bits = 32;
  std::optional<QuantizerFormat> quantizer;
  bool isFloat() const { return !quantizer; }
};

/// Reads a list of format names (`int8`, `int4`, `int16`, `fp8`,
/// `float`); errors at `loc` name `option`.
FailureOr<SmallVector<SiteFormat>>
parseSiteFormats(ArrayRef<std::string> names, StringRef option, Location loc);

/// How `site` quantizes in `format` (a quantizer format): as it is when
/// that is its own format; else its quantizer storing the format instead
/// (axis, blocks and calibration method kept; FP8, and weights, symmetric
/// and signed; 4-bit integer weights use all 16 levels, as insert-qdq's
/// weight-scale=auto does), a weight scaled from its values, an activation
/// over the range its current scales cover.
FailureOr<SiteQuantizer> reformatSite(const QuantizationSite &site,
                                      const SiteFormat &format);

/// Adds a last argument `tensor<N x i32>` (N: the sites) to `func`: value
/// 0 at position i runs site i in float, value k > 0 with its alternative
/// k - 1. The site's float input is left as it was; every alternative is
/// computed and the chosen one selected, so that each choice computes
/// exactly what a network quantized that way computes. `sites` must be
/// collectQuantizationSites(func).
void makeSwitchable(func::FuncOp func, ArrayRef<QuantizationSite> sites,
                    ArrayRef<SmallVector<SiteQuantizer>> alternatives);

/// Quantizes `site` with `quantizer` (nullopt: leaves it in float),
/// replacing its ops. Sites of one function change last first (a site may
/// read an earlier one's output).
void setSiteQuantizer(QuantizationSite &site,
                      std::optional<SiteQuantizer> quantizer);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_QUANTIZATIONSITES_H
