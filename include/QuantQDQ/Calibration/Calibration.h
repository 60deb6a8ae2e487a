//===- Calibration.h - scales from calibration data -------------*- C++ -*-===//
//
// Post-training calibration: run the float network (Q/DQ pairs removed) on
// calibration samples with the CPU JIT, gather statistics of every tensor a
// quantize op reads, and turn them into scales and zero points. Weights get
// per-channel scales from their values. A calibration table can be saved and
// loaded again (JSON, or TensorRT's calibration cache text).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CALIBRATION_CALIBRATION_H
#define QUANTQDQ_CALIBRATION_CALIBRATION_H

#include "QuantQDQ/Calibration/TensorStatistics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include <array>
#include <map>
#include <optional>
#include <string>

namespace mlir::quant_qdq {

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::Max;
  /// For the percentile method.
  double percentile = 99.99;
  /// For the moving-average method: average = decay * average + (1 -
  /// decay) * batch (TFMOT's default 0.999).
  double movingAverageDecay = 0.999;
  /// Histogram bins of the percentile, entropy and MSE methods.
  unsigned bins = 2048;
  /// Samples per run when the model's batch is dynamic. 0: 32 (TFMOT's
  /// batches) where a per-batch method's range is asked for, else one per
  /// thread, within [4, 32] (or a divisor of a file's samples up to twice
  /// that); other methods' ranges do not depend on it.
  int64_t batchSize = 0;
  /// The function to calibrate (default: the only public one).
  std::string entry;
  /// Show progress on stderr: redrawn on a terminal, a line every 10 s in
  /// a log or a pipe.
  bool progress = true;
  /// Also compute what every method would choose (the calibration report);
  /// histograms are then collected whatever the method.
  bool compareMethods = false;
  /// With compareMethods: warn where the method used clips far more than
  /// the others (MethodComparison::clipsFarMore).
  bool warnFarMoreClipping = true;
};

/// What each method would choose for one tensor: the calibration report's
/// row.
struct MethodComparison {
  static constexpr unsigned kNumMethods = 6;
  std::string tensor;
  /// The method calibration used for this tensor.
  CalibrationMethod chosen = CalibrationMethod::Max;
  /// Whether `chosen` was chosen by output error (method=auto, or the
  /// check that replaced a histogram method's ranges).
  bool chosenByOutputError = false;
  /// Whether the tensor's quantizer names its method (which then stays).
  bool ownMethod = false;
  /// amax per method, in CalibrationMethod order (entropy's bounded as
  /// calibration bounds it), and the fraction of values above it.
  std::array<double, kNumMethods> amax{}, clipped{};
  /// Entropy's own threshold, when it clipped too much and was bounded.
  std::optional<double> unboundedEntropyAmax;
  /// The range's amax when the producing layer bounds its output
  /// (softmax): the largest value seen within the bound, whatever the
  /// method.
  std::optional<double> layerBoundAmax;

  /// Whether `method` clips far more than the others: more than 1% of the
  /// values, and more than ten times the median of the other methods.
  bool clipsFarMore(CalibrationMethod method) const;
  /// The median share of values the other methods clip.
  double getMedianOfOthers(CalibrationMethod method) const;
};

/// The range of one tensor, by the name calibration gives it.
struct TensorRange {
  double amax = 0, min = 0, max = 0;
};

struct CalibrationTable {
  std::string method;
  llvm::MapVector<std::string, TensorRange, std::map<std::string, unsigned>>
      ranges;
};

/// Whether a Q/DQ input is a weight (a constant), scaled from its values
/// rather than from calibration data.
bool isCalibrationWeight(Value value);

/// The function calibration and comparison run: the one named `name`, or,
/// when `name` is empty, the only public function with a body. Null when
/// there is none, or several.
func::FuncOp findEntryFunction(ModuleOp module, StringRef name);

/// Turns `func` into its float version, the network calibration observes:
/// every dequantize(quantize(x)) and fake_quant(x) becomes x. A quantize
/// whose result stays integer (a QDQ model's int8 weights read by a lone
/// dequantize) keeps running, with a placeholder scale where it has none.
void removeQuantization(func::FuncOp func);

/// Runs the float version of `module` on the arrays in `dataPaths` (.npy
/// files, or folders of them; each file holds a batch of samples along its
/// first dimension) and fills `table` with the range of every tensor a
/// quantize or fake_quant op reads.
/// With `options.compareMethods`, `comparisons` (when given) receives one
/// row per tensor, in the table's order.
LogicalResult collectCalibrationTable(
    ModuleOp module, ArrayRef<std::string> dataPaths,
    const CalibrationOptions &options, CalibrationTable &table,
    SmallVectorImpl<MethodComparison> *comparisons = nullptr);

/// Sets the scales (and zero points of asymmetric quantizers) of every
/// activation quantize/dequantize/fake_quant op from `table`, and of every
/// weight from its values. A tensor missing from the table is an error.
LogicalResult applyCalibrationTable(ModuleOp module,
                                    const CalibrationTable &table);

/// Writes `table` as JSON (`.json`) or as a TensorRT calibration cache
/// (any other extension): `TRT-8600-<Method>Calibration` then
/// `<tensor>: <scale as big-endian float32 hex>` per line, scale =
/// amax / 127. The file is complete or absent.
LogicalResult writeCalibrationTable(StringRef path,
                                    const CalibrationTable &table,
                                    Location loc);
/// Reads either format back (JSON for `.json`).
FailureOr<CalibrationTable> readCalibrationTable(StringRef path,
                                                 MLIRContext *context);
/// Reads a table from `text`; diagnostics name `name` and the line.
FailureOr<CalibrationTable> parseCalibrationTable(StringRef text,
                                                  StringRef name, bool isJSON,
                                                  MLIRContext *context);

/// Writes the calibration report: per tensor, the amax each method chooses
/// and the share of values it clips, the method used (the row's `chosen`:
/// `defaultMethod` unless the tensor's quantizer names one) marked, and a
/// note where a method clips far more than the others. The file is
/// complete or absent; `-` is stderr.
LogicalResult writeCalibrationReport(StringRef path,
                                     CalibrationMethod defaultMethod,
                                     ArrayRef<MethodComparison> rows,
                                     Location loc);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CALIBRATION_CALIBRATION_H
