//===- QuantizerOverride.h - quantizer fields a user sets -------*- C++ -*-===//
//
// A QuantizationSpec entry, or an insertion case, may change some fields of
// the default quantizer (4 bits, asymmetric, its calibration method) and
// leave the others to the pass's defaults, which are known only when
// insert-qdq runs. An override holds just the fields set; case records
// carry it as a dictionary.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_IR_QUANTIZEROVERRIDE_H
#define QUANTQDQ_IR_QUANTIZEROVERRIDE_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include <optional>

namespace mlir::quant_qdq {

/// A format name, as insert-qdq's format options and a QuantizationSpec's
/// `format` spell it: a width and a storage.
struct QuantizerFormat {
  StringLiteral name;
  unsigned bits;
  StorageFormat storage;
};
/// int4, int8, int16 and fp8 (E4M3FN), in that order.
ArrayRef<QuantizerFormat> getQuantizerFormats();
/// The format named `name`, if any.
std::optional<QuantizerFormat> lookupQuantizerFormat(StringRef name);

struct QuantizerOverride {
  std::optional<unsigned> bits;
  std::optional<bool> isSigned, narrowRange, symmetric, perChannel;
  /// How calibration chooses an activation's range; for a weight, `mse`
  /// chooses its scales by rounding error.
  std::optional<CalibrationMethod> calibration;
  /// Integers or FP8 (a spec's `"format": "fp8"` sets it, with 8 bits).
  std::optional<StorageFormat> storage;
  /// Weights only: scales per block of this many input channels, or per
  /// output channel for 0.
  std::optional<int64_t> blockSize;

  bool empty() const {
    return !bits && !isSigned && !narrowRange && !symmetric && !perChannel &&
           !calibration && !storage && !blockSize;
  }
  /// `base` with the set fields replaced. `channelAxis` is used when
  /// per-channel quantization is asked for; `reductionAxis` when blocks
  /// are (a block size of 0 turns blocks back into per-channel scales).
  /// The fields must be consistent (verify()).
  QuantizerAttr apply(QuantizerAttr base, std::optional<int64_t> channelAxis,
                      std::optional<int64_t> reductionAxis =
                          std::nullopt) const;
  /// Why the set fields cannot describe one quantizer (FP8 that is not
  /// 8-bit, signed and symmetric; a negative block size), or empty.
  std::string verify() const;
  /// `later`'s set fields over these.
  void mergeFrom(const QuantizerOverride &later);

  /// The set fields as a dictionary with the QuantizationSpec's keys
  /// (`{bits = 4 : i64, symmetric = false}`); null when none is set.
  DictionaryAttr toDictionary(MLIRContext *context) const;
  /// Reads such a dictionary; fails (through `emitError`) on an unknown key
  /// or a value of the wrong type or range.
  static FailureOr<QuantizerOverride>
  fromDictionary(DictionaryAttr dictionary,
                 function_ref<InFlightDiagnostic()> emitError);
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_IR_QUANTIZEROVERRIDE_H
