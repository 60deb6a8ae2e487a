//===- CalibrationData.h - calibration data, the runs over it ---*- C++ -*-===//
//
// What every pass that runs a model on calibration data shares (the
// calibrator, the activation-aware weight scales): the .npy and .npz files
// checked against the model's inputs before anything compiles, the batches
// one run takes, one compiled executor per batch shape, and the float model
// that also returns the tensors a pass observes.
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

/// The samples of one calibration file: an array per model input (by
/// position), each holding `samples` samples along its first dimension (a
/// scalar input: one).
struct CalibrationFeed {
  SmallVector<NpyArray, 1> inputs;
  int64_t samples = 1;
};

/// The calibration data of a model: .npy files for a model of one input,
/// .npz files whose arrays are named after the model's inputs for any
/// model; folders stand for their files, sorted by name.
struct CalibrationData {
  std::vector<CalibrationFeed> feeds;
  SmallVector<RankedTensorType> inputTypes;
  int64_t totalSamples = 0;

  /// Reads `paths` for the inputs of `entry`, checking that each array
  /// holds a non-empty batch of samples of its input's type (a float type
  /// other than the input's is converted batch by batch), that a file's
  /// arrays hold one number of samples, and that an .npz file has an array
  /// for each input and no other; errors at `loc` name the file and the
  /// input.
  static FailureOr<CalibrationData> load(ArrayRef<std::string> paths,
                                         func::FuncOp entry, Location loc);

  /// Keeps the first `samples` samples (in file order) and drops the rest;
  /// nothing changes when there are not more. Scalar inputs have one sample
  /// a file.
  void keepFirstSamples(int64_t samples);

  /// Calls `fn` with each batch, an array per input converted to its
  /// element type, and the number of samples of the data it holds. Batches
  /// take the samples in file order, across files whose samples have one
  /// shape: the model's batch when static, else `batchSize` samples (0: one
  /// per thread, from 4 to 32, or a divisor of the samples up to twice
  /// that). The last batch of a shape may be shorter. Where `padShortBatch`
  /// is given, copies of the batch's own samples may fill it up (which, in
  /// a model that keeps samples apart, changes no range): always for a
  /// static batch, and for a dynamic one after full batches of its shape
  /// where `padShortBatch(samples, size)` prefers running the copies to
  /// compiling the short batch's shape. Without it, a short batch runs as
  /// it is, and a static batch's is an error before anything runs. A model
  /// with a scalar input runs each file as it is.
  LogicalResult forEachBatch(
      int64_t batchSize, Location loc,
      function_ref<LogicalResult(MutableArrayRef<NpyArray>, int64_t)> fn,
      function_ref<bool(int64_t, int64_t)> padShortBatch = {}) const;
};

/// The function the data pass `pass` runs: `entry`, or the only public one,
/// with inputs; null, with an error at `module` naming `pass`, when there is
/// none or when `batchSize` is negative.
func::FuncOp findDataPassEntry(ModuleOp module, StringRef pass, StringRef entry,
                               int64_t batchSize);

/// One executor per input shape met (a dynamic batch or sequence takes the
/// data's sizes), each compiled on first use from a clone of the module
/// that `prepare` rewrites.
class ExecutorsByShape {
public:
  explicit ExecutorsByShape(std::function<void(ModuleOp)> prepare)
      : prepare(std::move(prepare)) {}
  /// The executor of `entry` in `module` for `inputs`' shapes, or null
  /// (with a diagnostic); `compiling` is told before one compiles.
  JITExecutor *get(ModuleOp module, StringRef entry, ArrayRef<NpyArray> inputs,
                   function_ref<void()> compiling = {});

private:
  std::function<void(ModuleOp)> prepare;
  std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<JITExecutor>>
      executors;
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
