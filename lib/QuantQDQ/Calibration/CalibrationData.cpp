//===- CalibrationData.cpp - calibration data and the runs over it --------===//

#include "CalibrationData.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>

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

/// The batch for `samples` samples of one shape when the model's batch is
/// dynamic and no size was asked for: few, so that a run's tensors stay in
/// cache and memory stays low, but one per thread at least (up to 32), for
/// loops shared among threads along the batch (ResNet-50, 16 images, 2
/// cores: 4.1 s and 0.48 GiB in batches of 4, 4.6 s and 0.94 GiB in one
/// batch of 16); or up to twice that where it divides the samples, so that
/// no shorter last batch compiles a shape of its own or runs padding (16
/// samples on 6 threads: 8 and 8, not 6, 6 and 4).
static int64_t getDefaultStep(int64_t samples) {
  int64_t base = std::clamp<int64_t>(getExecutionThreads(), 4, 32);
  for (int64_t step = base; step <= 2 * base; ++step)
    if (samples % step == 0)
      return step;
  return base;
}

namespace {
/// Samples [begin, begin + count) of one array.
struct BatchPiece {
  const NpyArray *array;
  int64_t begin, count;
};

/// The samples of one run of the model, in order, and the batch it runs
/// them in (more than `samples` where a short batch is padded).
struct Batch {
  SmallVector<BatchPiece, 1> pieces;
  int64_t samples = 0, size = 0;
  /// A short batch after full ones of its shape, which may run padded to
  /// `step` rather than compile a shape of its own.
  int64_t step = 0;
  bool mayPad = false;
};
} // namespace

/// Whether the samples of `a` and `b` have one shape (a dynamic sequence
/// may differ from file to file).
static bool haveSameSampleShape(const NpyArray &a, const NpyArray &b) {
  return ArrayRef<int64_t>(a.shape).drop_front() ==
         ArrayRef<int64_t>(b.shape).drop_front();
}

/// `batch` as one array of `elementType`: a view of the file where it is
/// one unpadded piece of it, else a copy, whose padding repeats the batch's
/// own samples.
static NpyArray materialize(const Batch &batch, Type elementType) {
  const BatchPiece &first = batch.pieces.front();
  if (batch.pieces.size() == 1 && batch.size == batch.samples)
    return convertFloatElements(first.array->slice(first.begin, first.count),
                                elementType);
  SmallVector<int64_t> shape(first.array->shape);
  shape[0] = batch.size;
  NpyArray out =
      NpyArray::allocate(elementType, shape, first.array->isUnsigned);
  size_t sampleBytes = out.getNumBytes() / batch.size;
  uint8_t *end = out.bytes;
  for (const BatchPiece &piece : batch.pieces) {
    NpyArray part = convertFloatElements(
        piece.array->slice(piece.begin, piece.count), elementType);
    end = std::copy_n(part.bytes, part.getNumBytes(), end);
  }
  for (int64_t row = batch.samples; row < batch.size; ++row)
    std::memcpy(out.bytes + row * sampleBytes,
                out.bytes + (row % batch.samples) * sampleBytes, sampleBytes);
  return out;
}

LogicalResult CalibrationData::forEachBatch(
    RankedTensorType inputType, int64_t batchSize, Location loc,
    function_ref<LogicalResult(NpyArray &, int64_t)> fn,
    function_ref<bool(int64_t, int64_t)> padShortBatch) const {
  if (inputType.getRank() == 0) {
    for (const NpyArray &array : arrays) {
      NpyArray sample =
          convertFloatElements(array, inputType.getElementType());
      if (failed(fn(sample, 1)))
        return failure();
    }
    return success();
  }
  // The whole plan first, so that the data's errors come before anything
  // compiles. Batches run across files; files whose samples differ in
  // shape (a dynamic sequence) start a batch of their own.
  int64_t modelBatch = inputType.getDimSize(0);
  bool staticBatch = !ShapedType::isDynamic(modelBatch);
  SmallVector<Batch> batches;
  for (size_t first = 0, end; first < arrays.size(); first = end) {
    int64_t samples = 0;
    for (end = first; end < arrays.size() &&
                      haveSameSampleShape(arrays[end], arrays[first]);
         ++end)
      samples += arrays[end].shape[0];
    int64_t step = staticBatch ? modelBatch
                   : batchSize > 0 ? batchSize
                                   : getDefaultStep(samples);
    if (staticBatch && samples % step != 0 && !padShortBatch)
      return emitError(loc) << "the model takes batches of " << modelBatch
                            << " but the calibration data holds " << samples
                            << " samples of this shape, not a multiple";
    Batch current;
    for (const NpyArray &array : ArrayRef(arrays).slice(first, end - first)) {
      for (int64_t begin = 0, count; begin < array.shape[0]; begin += count) {
        count = std::min(step - current.samples, array.shape[0] - begin);
        current.pieces.push_back({&array, begin, count});
        current.samples += count;
        if (current.samples == step) {
          current.size = step;
          batches.push_back(std::move(current));
          current = Batch();
        }
      }
    }
    if (current.samples) {
      // A static batch can only run padded; a dynamic one may.
      current.size = staticBatch ? step : current.samples;
      current.step = step;
      current.mayPad = !staticBatch && padShortBatch && samples > step;
      batches.push_back(std::move(current));
    }
  }
  for (Batch &batch : batches) {
    if (batch.mayPad && padShortBatch(batch.samples, batch.step))
      batch.size = batch.step;
    NpyArray array = materialize(batch, inputType.getElementType());
    if (failed(fn(array, batch.samples)))
      return failure();
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
