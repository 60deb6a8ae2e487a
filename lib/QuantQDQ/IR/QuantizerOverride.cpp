//===- QuantizerOverride.cpp - quantizer fields a user sets ---------------===//

#include "QuantQDQ/IR/QuantizerOverride.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::quant_qdq;

ArrayRef<QuantizerFormat> mlir::quant_qdq::getQuantizerFormats() {
  static const QuantizerFormat formats[] = {
      {"int4", 4, StorageFormat::Int},
      {"int8", 8, StorageFormat::Int},
      {"int16", 16, StorageFormat::Int},
      {"fp8", 8, StorageFormat::E4M3FN}};
  return formats;
}

std::optional<QuantizerFormat>
mlir::quant_qdq::lookupQuantizerFormat(StringRef name) {
  for (const QuantizerFormat &format : getQuantizerFormats())
    if (format.name == name)
      return format;
  return std::nullopt;
}

std::string QuantizerOverride::verify() const {
  if (storage == StorageFormat::E4M3FN &&
      ((bits && *bits != 8) || (isSigned && !*isSigned) ||
       (symmetric && !*symmetric)))
    return "fp8 (e4m3fn) is 8-bit, signed and symmetric";
  if (blockSize && *blockSize < 0)
    return "block_size must be 0 (per channel) or positive";
  return "";
}

QuantizerAttr QuantizerOverride::apply(
    QuantizerAttr base, std::optional<int64_t> channelAxis,
    std::optional<int64_t> reductionAxis) const {
  std::optional<int64_t> axis = base.getAxis();
  if (perChannel)
    axis = *perChannel ? channelAxis : std::nullopt;
  std::optional<int64_t> block =
      axis == base.getAxis() ? base.getBlockSize() : std::nullopt;
  // Blocks replace per-channel scales, along the input channels.
  if (blockSize && (!perChannel || *perChannel)) {
    if (*blockSize > 0 && reductionAxis) {
      axis = reductionAxis;
      block = *blockSize;
    } else if (*blockSize == 0 && block) {
      axis = channelAxis;
      block = std::nullopt;
    }
  }
  // FP8 is 8-bit, signed and symmetric: an entry that asks otherwise asks
  // for integers, and one that asks for FP8 gets all three.
  StorageFormat storageFormat = storage.value_or(base.getStorage());
  if (!storage && ((bits && *bits != 8) || (isSigned && !*isSigned) ||
                   (symmetric && !*symmetric)))
    storageFormat = StorageFormat::Int;
  bool fp8 = storageFormat == StorageFormat::E4M3FN;
  return QuantizerAttr::get(
      base.getContext(), fp8 ? 8 : bits.value_or(base.getBits()),
      fp8 || isSigned.value_or(base.getIsSigned()),
      narrowRange.value_or(base.getNarrowRange()),
      fp8 || symmetric.value_or(base.getSymmetric()), axis,
      calibration ? calibration : base.getCalibration(), block, storageFormat);
}

void QuantizerOverride::mergeFrom(const QuantizerOverride &later) {
  auto take = [](auto &mine, const auto &theirs) {
    if (theirs)
      mine = theirs;
  };
  take(bits, later.bits);
  take(isSigned, later.isSigned);
  take(narrowRange, later.narrowRange);
  take(symmetric, later.symmetric);
  take(perChannel, later.perChannel);
  take(calibration, later.calibration);
  take(storage, later.storage);
  take(blockSize, later.blockSize);
}

// The keys are the QuantizationSpec's, so a record reads as the entry did.
static constexpr StringLiteral kBits = "bits", kSigned = "signed",
                               kNarrowRange = "narrow_range",
                               kSymmetric = "symmetric",
                               kPerChannel = "per_channel",
                               kCalibration = "calibration",
                               kStorage = "storage",
                               kBlockSize = "block_size";

DictionaryAttr QuantizerOverride::toDictionary(MLIRContext *context) const {
  if (empty())
    return nullptr;
  Builder b(context);
  SmallVector<NamedAttribute> fields;
  if (bits)
    fields.push_back(b.getNamedAttr(kBits, b.getI64IntegerAttr(*bits)));
  for (auto [key, flag] : {std::pair{kSigned, isSigned},
                           std::pair{kNarrowRange, narrowRange},
                           std::pair{kSymmetric, symmetric},
                           std::pair{kPerChannel, perChannel}})
    if (flag)
      fields.push_back(b.getNamedAttr(key, b.getBoolAttr(*flag)));
  if (calibration)
    fields.push_back(b.getNamedAttr(
        kCalibration, b.getStringAttr(stringifyCalibrationMethod(*calibration))));
  if (storage)
    fields.push_back(b.getNamedAttr(
        kStorage, b.getStringAttr(stringifyStorageFormat(*storage))));
  if (blockSize)
    fields.push_back(
        b.getNamedAttr(kBlockSize, b.getI64IntegerAttr(*blockSize)));
  return b.getDictionaryAttr(fields);
}

FailureOr<QuantizerOverride>
QuantizerOverride::fromDictionary(DictionaryAttr dictionary,
                                  function_ref<InFlightDiagnostic()> emitError) {
  QuantizerOverride result;
  if (!dictionary)
    return result;
  for (NamedAttribute field : dictionary) {
    StringRef key = field.getName().getValue();
    Attribute value = field.getValue();
    if (key == kBits) {
      auto bits = dyn_cast<IntegerAttr>(value);
      if (!bits || bits.getInt() < 2 || bits.getInt() > 16)
        return emitError() << "quantizer override: bits must be an integer "
                              "in [2, 16]";
      result.bits = bits.getInt();
    } else if (key == kCalibration) {
      auto name = dyn_cast<StringAttr>(value);
      std::optional<CalibrationMethod> method =
          name ? symbolizeCalibrationMethod(name.getValue()) : std::nullopt;
      if (!method)
        return emitError() << "quantizer override: unknown calibration "
                              "method "
                           << value;
      result.calibration = method;
    } else if (key == kStorage) {
      auto name = dyn_cast<StringAttr>(value);
      result.storage =
          name ? symbolizeStorageFormat(name.getValue()) : std::nullopt;
      if (!result.storage)
        return emitError() << "quantizer override: storage must be int or "
                              "e4m3fn, got "
                           << value;
    } else if (key == kBlockSize) {
      auto size = dyn_cast<IntegerAttr>(value);
      if (!size)
        return emitError() << "quantizer override: block_size must be an "
                              "integer";
      result.blockSize = size.getInt();
    } else {
      std::optional<bool> *flag = key == kSigned        ? &result.isSigned
                                  : key == kNarrowRange ? &result.narrowRange
                                  : key == kSymmetric   ? &result.symmetric
                                  : key == kPerChannel  ? &result.perChannel
                                                        : nullptr;
      auto boolean = dyn_cast<BoolAttr>(value);
      if (!flag)
        return emitError() << "quantizer override: unknown field '" << key
                           << "'";
      if (!boolean)
        return emitError() << "quantizer override: '" << key
                           << "' must be a bool";
      *flag = boolean.getValue();
    }
  }
  if (std::string why = result.verify(); !why.empty())
    return emitError() << "quantizer override: " << why;
  return result;
}
