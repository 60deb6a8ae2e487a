//===- CalibrationData.cpp - calibration data and the runs over it --------===//

#include "CalibrationData.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The .npy files of `paths`, folders expanded (sorted by name).
static FailureOr<SmallVector<std::string>>
expandDataPaths(ArrayRef<std::string> paths, Location loc) {
  SmallVector<std::string> files;
  for (const std::string &path : paths) {
    if (!llvm::sys::fs::is_directory(path)) {
      files.push_back(path);
      continue;
    }
    SmallVector<std::string> inFolder;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".npy")
        inFolder.push_back(it->path());
    if (ec)
      return emitError(loc) << "cannot list '" << path << "': "
                            << ec.message();
    llvm::sort(inFolder);
    llvm::append_range(files, inFolder);
  }
  if (files.empty())
    return emitError(loc) << "no calibration data (.npy files) in "
                          << llvm::join(paths, ", ");
  return files;
}

FailureOr<CalibrationData>
CalibrationData::load(ArrayRef<std::string> paths, RankedTensorType inputType,
                      Location loc) {
  FailureOr<SmallVector<std::string>> files = expandDataPaths(paths, loc);
  if (failed(files))
    return failure();
  MLIRContext *context = loc.getContext();
  CalibrationData data;
  for (const std::string &file : *files) {
    auto array = readNpy(file, context);
    if (!array)
      return emitError(loc) << llvm::toString(array.takeError());
    if (array->shape.size() != size_t(inputType.getRank()))
      return emitError(loc) << file << ": expected arrays of rank "
                            << inputType.getRank() << " (a batch of "
                            << inputType << " samples), got rank "
                            << array->shape.size();
    // The data is checked before anything compiles, and errors name it.
    // Floating-point data of another width is converted batch by batch.
    if (!isConvertibleElementType(array->elementType,
                                  inputType.getElementType()))
      return emitError(loc) << file << ": holds elements of type "
                            << array->elementType << " but the model's input "
                            << "is " << inputType;
    for (int64_t d = 1; d < inputType.getRank(); ++d)
      if (!inputType.isDynamicDim(d) &&
          inputType.getDimSize(d) != array->shape[d])
        return emitError(loc) << file << ": dimension " << d << " is "
                              << array->shape[d] << " but the model's input "
                              << "is " << inputType;
    if (!array->shape.empty() && array->shape[0] == 0)
      return emitError(loc) << file << ": holds no samples";
    data.totalSamples += array->shape.empty() ? 1 : array->shape[0];
    data.arrays.push_back(std::move(*array));
  }

  return data;
}

/// The batch for a file of `samples` when the model's batch is dynamic and
/// no size was asked for: few, so that a run's tensors stay in cache and
/// memory stays low, but one per thread at least (up to 32), for loops
/// shared among threads along the batch (ResNet-50, 16 images, 2 cores:
/// 4.1 s and 0.48 GiB in batches of 4, 4.6 s and 0.94 GiB in one batch of
/// 16); or up to twice that where it divides the file, so that no shorter
/// last batch compiles a shape of its own (16 samples on 6 threads: 8 and
/// 8, not 6, 6 and 4).
static int64_t getDefaultStep(int64_t samples) {
  int64_t base = std::clamp<int64_t>(getExecutionThreads(), 4, 32);
  for (int64_t step = base; step <= 2 * base; ++step)
    if (samples % step == 0)
      return step;
  return base;
}

LogicalResult CalibrationData::forEachBatch(
    RankedTensorType inputType, int64_t batchSize, Location loc,
    function_ref<LogicalResult(NpyArray &)> fn) const {
  int64_t modelBatch = inputType.getDimSize(0);
  for (const NpyArray &array : arrays) {
    int64_t samples = array.shape[0];
    int64_t step = ShapedType::isDynamic(modelBatch)
                       ? (batchSize > 0 ? batchSize : getDefaultStep(samples))
                       : modelBatch;
    if (!ShapedType::isDynamic(modelBatch) && samples % modelBatch != 0)
      return emitError(loc) << "the model takes batches of " << modelBatch
                            << " but a calibration file holds " << samples
                            << " samples";
    for (int64_t begin = 0; begin < samples; begin += step) {
      int64_t count = std::min(step, samples - begin);
      NpyArray chunk = convertFloatElements(array.slice(begin, count),
                                            inputType.getElementType());
      if (failed(fn(chunk)))
        return failure();
    }
  }
  return success();
}

JITExecutor *ExecutorsByShape::get(ModuleOp module, StringRef entry,
                                   ArrayRef<int64_t> shape,
                                   function_ref<void()> compiling) {
  auto &slot = executors[std::vector<int64_t>(shape.begin(), shape.end())];
  if (slot)
    return slot.get();
  if (compiling)
    compiling();
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  prepare(*copy);
  auto executor = JITExecutor::create(std::move(copy), entry,
                                      {SmallVector<int64_t>(shape)});
  if (failed(executor))
    return nullptr;
  slot = std::move(*executor);
  return slot.get();
}
