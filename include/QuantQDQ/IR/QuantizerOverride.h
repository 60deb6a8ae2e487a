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

struct QuantizerOverride {
  std::optional<unsigned> bits;
  std::optional<bool> isSigned, narrowRange, symmetric, perChannel;
  /// How calibration chooses the range (activations only).
  std::optional<CalibrationMethod> calibration;

  bool empty() const {
    return !bits && !isSigned && !narrowRange && !symmetric && !perChannel &&
           !calibration;
  }
  /// `base` with the set fields replaced. `channelAxis` is used when
  /// per-channel quantization is asked for.
  QuantizerAttr apply(QuantizerAttr base,
                      std::optional<int64_t> channelAxis) const;
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
