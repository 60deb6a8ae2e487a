//===- CalibrationData.h - calibration data, the runs over it ---*- C++ -*-===//
//
// What every pass that runs a model on calibration data shares (the
// calibrator, the activation-aware weight scales): the .npy files checked
// against the model's input before anything compiles, the batches one run
// takes, one compiled executor per batch shape, and the float model that
// also returns the tensors a pass observes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_CALIBRATIONDATA_H
#define QUANTQDQ_LIB_CALIBRATION_CALIBRATIONDATA_H

#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/Execution/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <memory>
#include <vector>

namespace mlir::quant_qdq {

/// The arrays of calibration .npy files (folders expanded, sorted by name).
struct CalibrationData {
  std::vector<NpyArray> arrays;
  int64_t totalSamples = 0;

  /// Reads `paths`, checking that each holds a non-empty batch of samples
  /// of `inputType` (a float type other than the input's is converted
  /// batch by batch); errors at `loc` name the file.
  static FailureOr<CalibrationData> load(ArrayRef<std::string> paths,
                                         RankedTensorType inputType,
                                         Location loc);

  /// Calls `fn` with each batch, converted to `inputType`'s element type,
  /// and the number of samples of the data it holds. Batches take the
  /// samples in file order, across files whose samples have one shape: the
  /// model's batch when static, else `batchSize` samples (0: one per
  /// thread, from 4 to 32, or a divisor of the samples up to twice that).
  /// The last batch of a shape may be shorter. Where `padShortBatch` is
  /// given, copies of the batch's own samples may fill it up (which, in a
  /// model that keeps samples apart, changes no range): always for a static
  /// batch, and for a dynamic one after full batches of its shape where
  /// `padShortBatch(samples, size)` prefers running the copies to
  /// compiling the short batch's shape. Without it, a short batch runs as
  /// it is, and a static batch's is an error before anything runs.
  LogicalResult
  forEachBatch(RankedTensorType inputType, int64_t batchSize, Location loc,
               function_ref<LogicalResult(NpyArray &, int64_t)> fn,
               function_ref<bool(int64_t, int64_t)> padShortBatch = {}) const;
};

/// One executor per input shape met (a dynamic batch or sequence takes the
/// data's sizes), each compiled on first use from a clone of the module
/// that `prepare` rewrites.
class ExecutorsByShape {
public:
  explicit ExecutorsByShape(std::function<void(ModuleOp)> prepare)
      : prepare(std::move(prepare)) {}
  /// The executor of `entry` in `module` for inputs of `shape`, or null
  /// (with a diagnostic); `compiling` is told before one compiles.
  JITExecutor *get(ModuleOp module, StringRef entry, ArrayRef<int64_t> shape,
                   function_ref<void()> compiling = {});

private:
  std::function<void(ModuleOp)> prepare;
  std::map<std::vector<int64_t>, std::unique_ptr<JITExecutor>> executors;
};

/// Turns `func` into its float version (removeQuantization) that also
/// returns `observed` (whole: what qdq-awq reads). With `rangesOnly`, each
/// observed tensor is returned instead as what calibration's first pass
/// needs, computed where it is produced in f32 (other float types cast
/// there): quant_qdq.tensor_range's minima and maxima per row, and its
/// element count.
void makeObservingFunction(func::FuncOp func, ArrayRef<Value> observed,
                           bool rangesOnly);
/// Turns `func` into its float version that also returns, for each observed
/// tensor with a bin scale, its histogram: `bins` counts of |x| per row
/// (quant_qdq.histogram), computed where the tensor is produced.
void makeHistogramFunction(func::FuncOp func, ArrayRef<Value> observed,
                           ArrayRef<std::optional<double>> binScales,
                           unsigned bins);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_CALIBRATIONDATA_H
