//===- CalibrationData.cpp - calibration data and the runs over it --------===//

#include "CalibrationData.h"
#include "QuantQDQ/Calibration/Calibration.h"

#include "QuantQDQ/Utils/TensorNames.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::quant_qdq;

func::FuncOp mlir::quant_qdq::findDataPassEntry(ModuleOp module, StringRef pass,
                                                StringRef entry,
                                                int64_t batchSize) {
  if (batchSize < 0) {
    emitError(module.getLoc())
        << pass << ": batch-size must be positive, or 0 to let it choose; got "
        << batchSize;
    return {};
  }
  func::FuncOp function = findEntryFunction(module, entry);
  if (!function || function.getNumArguments() == 0) {
    emitError(module.getLoc())
        << pass
        << " runs models with inputs and one public function (or entry=)";
    return {};
  }
  return function;
}

/// Whether `path` names a calibration file by its extension.
static bool isDataFile(StringRef path) {
  StringRef extension = llvm::sys::path::extension(path);
  return extension == ".npy" || extension == ".npz";
}

/// The .npy and .npz files of `paths`, folders expanded (sorted by name).
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
      if (isDataFile(it->path()))
        inFolder.push_back(it->path());
    if (ec)
      return emitError(loc) << "cannot list '" << path << "': "
                            << ec.message();
    llvm::sort(inFolder);
    llvm::append_range(files, inFolder);
  }
  if (files.empty())
    return emitError(loc) << "no calibration data (.npy or .npz files) in "
                          << llvm::join(paths, ", ");
  return files;
}

/// The names of `entry`'s inputs, as .npz arrays name them.
static SmallVector<std::string> getInputNames(func::FuncOp entry) {
  SmallVector<std::string> names;
  for (BlockArgument arg : entry.getArguments()) {
    StringRef name = getTensorName(arg);
    names.push_back(name.empty() ? "input_" + std::to_string(arg.getArgNumber())
                                 : name.str());
  }
  return names;
}

/// The arrays of `file` by input position: the one array of an .npy file
/// (a model of one input), or an .npz file's arrays by their names.
static FailureOr<SmallVector<NpyArray, 1>>
readFeed(StringRef file, ArrayRef<std::string> inputNames, MLIRContext *context,
         Location loc) {
  std::string inputs = llvm::join(inputNames, ", ");
  if (llvm::sys::path::extension(file) != ".npz") {
    if (inputNames.size() != 1)
      return emitError(loc) << file << ": the model has " << inputNames.size()
                            << " inputs (" << inputs
                            << "): give .npz files whose arrays are named "
                               "after them";
    auto array = readNpy(file, context);
    if (!array)
      return emitError(loc) << llvm::toString(array.takeError());
    return SmallVector<NpyArray, 1>{std::move(*array)};
  }
  auto arrays = readNpzInputs(file, inputNames, context);
  if (!arrays)
    return emitError(loc) << llvm::toString(arrays.takeError());
  return std::move(*arrays);
}

/// Checks `array` against the model's input `type`, named `what` (the
/// file, and the input where the model has several).
static LogicalResult checkArray(const NpyArray &array, RankedTensorType type,
                                const Twine &what, Location loc) {
  if (array.shape.size() != size_t(type.getRank()))
    return emitError(loc) << what << ": expected arrays of rank "
                          << type.getRank() << " (a batch of " << type
                          << " samples), got rank " << array.shape.size();
  // The data is checked before anything compiles, and errors name it.
  // Floating-point data of another width is converted batch by batch.
  if (!holdsElementType(array, type.getElementType()) &&
      !isConvertibleElementType(array.elementType, type.getElementType()))
    return emitError(loc) << what << ": holds elements of type "
                          << array.elementType << " but the model's input "
                          << "is " << type;
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != array.shape[d])
      return emitError(loc) << what << ": dimension " << d << " is "
                            << array.shape[d] << " but the model's input "
                            << "is " << type;
  if (!array.shape.empty() && array.shape[0] == 0)
    return emitError(loc) << what << ": holds no samples";
  return success();
}

FailureOr<CalibrationData> CalibrationData::load(ArrayRef<std::string> paths,
                                                 func::FuncOp entry,
                                                 Location loc) {
  FailureOr<SmallVector<std::string>> files = expandDataPaths(paths, loc);
  if (failed(files))
    return failure();
  CalibrationData data;
  for (Type type : entry.getArgumentTypes()) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return entry.emitError("calibration needs ranked tensor inputs; got ")
             << type;
    data.inputTypes.push_back(ranked);
  }
  SmallVector<std::string> names = getInputNames(entry);
  for (const std::string &file : *files) {
    FailureOr<SmallVector<NpyArray, 1>> arrays =
        readFeed(file, names, entry.getContext(), loc);
    if (failed(arrays))
      return failure();
    CalibrationFeed feed;
    for (auto [i, array] : llvm::enumerate(*arrays)) {
      std::string what =
          names.size() == 1 ? file : file + ", input '" + names[i] + "'";
      if (failed(checkArray(array, data.inputTypes[i], what, loc)))
        return failure();
      int64_t samples = array.shape.empty() ? 1 : array.shape[0];
      if (i == 0)
        feed.samples = samples;
      else if (!array.shape.empty() && samples != feed.samples)
        return emitError(loc)
               << what << ": holds " << samples << " samples where '"
               << names[0] << "' holds " << feed.samples;
    }
    feed.inputs = std::move(*arrays);
    data.totalSamples += feed.samples;
    data.feeds.push_back(std::move(feed));
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
/// Samples [begin, begin + count) of one file.
struct BatchPiece {
  const CalibrationFeed *feed;
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

/// Whether the samples of `a` and `b` have one shape in every input (a
/// dynamic sequence may differ from file to file).
static bool haveSameSampleShape(const CalibrationFeed &a,
                                const CalibrationFeed &b) {
  return llvm::all_of_zip(a.inputs, b.inputs,
                          [](const NpyArray &x, const NpyArray &y) {
                            return ArrayRef<int64_t>(x.shape).drop_front() ==
                                   ArrayRef<int64_t>(y.shape).drop_front();
                          });
}

/// Input `input` of `batch` as one array of `elementType`: a view of the
/// file where it is one unpadded piece of it, else a copy, whose padding
/// repeats the batch's own samples.
static NpyArray materialize(const Batch &batch, unsigned input,
                            Type elementType) {
  const BatchPiece &first = batch.pieces.front();
  const NpyArray &firstArray = first.feed->inputs[input];
  if (batch.pieces.size() == 1 && batch.size == batch.samples)
    return convertFloatElements(firstArray.slice(first.begin, first.count),
                                elementType);
  SmallVector<int64_t> shape(firstArray.shape);
  shape[0] = batch.size;
  NpyArray out = NpyArray::allocate(elementType, shape, firstArray.isUnsigned);
  size_t sampleBytes = out.getNumBytes() / batch.size;
  uint8_t *end = out.bytes;
  for (const BatchPiece &piece : batch.pieces) {
    NpyArray part = convertFloatElements(
        piece.feed->inputs[input].slice(piece.begin, piece.count), elementType);
    end = std::copy_n(part.bytes, part.getNumBytes(), end);
  }
  for (int64_t row = batch.samples; row < batch.size; ++row)
    std::memcpy(out.bytes + row * sampleBytes,
                out.bytes + (row % batch.samples) * sampleBytes, sampleBytes);
  return out;
}

void CalibrationData::keepFirstSamples(int64_t samples) {
  int64_t kept = 0;
  size_t feed = 0;
  for (; feed < feeds.size() && kept < samples; ++feed) {
    CalibrationFeed &current = feeds[feed];
    int64_t take = std::min(current.samples, samples - kept);
    if (take < current.samples) {
      for (NpyArray &input : current.inputs)
        if (!input.shape.empty())
          input = input.slice(0, take);
      current.samples = take;
    }
    kept += take;
  }
  feeds.resize(feed);
  totalSamples = kept;
}

LogicalResult CalibrationData::forEachBatch(
    int64_t batchSize, Location loc,
    function_ref<LogicalResult(MutableArrayRef<NpyArray>, int64_t)> fn,
    function_ref<bool(int64_t, int64_t)> padShortBatch) const {
  if (llvm::any_of(inputTypes,
                   [](RankedTensorType type) { return type.getRank() == 0; })) {
    for (const CalibrationFeed &feed : feeds) {
      SmallVector<NpyArray, 1> inputs;
      for (auto [array, type] : llvm::zip(feed.inputs, inputTypes))
        inputs.push_back(convertFloatElements(array, type.getElementType()));
      if (failed(fn(inputs, feed.samples)))
        return failure();
    }
    return success();
  }
  // The whole plan first, so that the data's errors come before anything
  // compiles. Batches run across files; files whose samples differ in
  // shape (a dynamic sequence) start a batch of their own.
  int64_t modelBatch = inputTypes.front().getDimSize(0);
  bool staticBatch = !ShapedType::isDynamic(modelBatch);
  SmallVector<Batch> batches;
  for (size_t first = 0, end; first < feeds.size(); first = end) {
    int64_t samples = 0;
    for (end = first;
         end < feeds.size() && haveSameSampleShape(feeds[end], feeds[first]);
         ++end)
      samples += feeds[end].samples;
    int64_t step = staticBatch ? modelBatch
                   : batchSize > 0 ? batchSize
                                   : getDefaultStep(samples);
    if (staticBatch && samples % step != 0 && !padShortBatch)
      return emitError(loc) << "the model takes batches of " << modelBatch
                            << " but the calibration data holds " << samples
                            << " samples of this shape, not a multiple";
    Batch current;
    for (const CalibrationFeed &feed :
         ArrayRef(feeds).slice(first, end - first)) {
      for (int64_t begin = 0, count; begin < feed.samples; begin += count) {
        count = std::min(step - current.samples, feed.samples - begin);
        current.pieces.push_back({&feed, begin, count});
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
    SmallVector<NpyArray, 1> inputs;
    for (auto [i, type] : llvm::enumerate(inputTypes))
      inputs.push_back(materialize(batch, i, type.getElementType()));
    if (failed(fn(inputs, batch.samples)))
      return failure();
  }
  return success();
}

/// LLVM's optimization level for the models the data passes observe: the
/// hot loops leave MLIR as vector code already, so O2 runs them as fast as
/// O3 (the trained LM of bench/llm: 15.1 against 15.1-15.6 ms a batch of
/// 8 x 128; ResNet-18: 109 against 107-110 ms a batch of 4) and compiles
/// them 26% and 11% sooner, the larger part of a small model's calibration.
static constexpr unsigned kObservingOptLevel = 2;

JITExecutor *ExecutorsByShape::get(ModuleOp module, StringRef entry,
                                   ArrayRef<NpyArray> inputs,
                                   function_ref<void()> compiling) {
  std::vector<std::vector<int64_t>> key;
  SmallVector<SmallVector<int64_t>> shapes;
  for (const NpyArray &input : inputs) {
    key.emplace_back(input.shape.begin(), input.shape.end());
    shapes.emplace_back(input.shape);
  }
  auto &slot = executors[key];
  if (slot)
    return slot.get();
  if (compiling)
    compiling();
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  prepare(*copy);
  auto executor =
      JITExecutor::create(std::move(copy), entry, shapes, kObservingOptLevel);
  if (failed(executor))
    return nullptr;
  slot = std::move(*executor);
  return slot.get();
}
