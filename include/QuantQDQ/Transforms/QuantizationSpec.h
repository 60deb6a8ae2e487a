//===- QuantizationSpec.h - the user's per-layer choices --------*- C++ -*-===//
//
// The QuantizationSpec of the NVIDIA toolkit, read from a JSON (or YAML)
// file: which layers, by name, class or name substring, get Q/DQ on their
// inputs and weights, and with which quantizer.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_QUANTIZATIONSPEC_H
#define QUANTQDQ_TRANSFORMS_QUANTIZATIONSPEC_H

#include "QuantQDQ/IR/QuantizerOverride.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// One entry of the spec, for one layer name, class or substring.
struct SpecEntry {
  enum class Match { Name, Class, Substring };

  std::string pattern;
  Match match = Match::Name;
  bool quantizeInput = true;
  bool quantizeWeight = true;
  /// Which activation inputs (positions in the layer's activation list) get
  /// Q/DQ; all of them when unset.
  std::optional<SmallVector<unsigned>> quantizationIndex;
  QuantizerOverride inputQuantizer, weightQuantizer;
  /// Where the entry is written, for diagnostics.
  Location loc;
};

class QuantizationSpec {
public:
  /// Reads a spec file. Syntax errors and wrong field types are reported as
  /// diagnostics at their line and column in the file.
  static FailureOr<QuantizationSpec> parseFile(StringRef path,
                                               MLIRContext *context);
  /// Same, from text in memory (`bufferName` names it in diagnostics).
  static FailureOr<QuantizationSpec> parse(StringRef text,
                                           StringRef bufferName,
                                           MLIRContext *context);

  /// The entry that decides for a layer: an exact name match first, then a
  /// class match, then the first matching substring entry.
  const SpecEntry *lookup(StringRef layerName, StringRef layerClass) const;

  ArrayRef<SpecEntry> getEntries() const { return entries; }

private:
  void index();

  SmallVector<SpecEntry> entries;
  /// First entry for each exact name and each class.
  llvm::StringMap<unsigned> byName, byClass;
  friend class SpecParser;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_QUANTIZATIONSPEC_H
