//===- NumberFormatMap.h - TensorQuant's layer-to-format maps ---*- C++ -*-===//
//
// TensorQuant selects layers by name substring: a JSON object maps
// substrings to format names, and the first key, in file order, that a
// layer's name contains decides. A format name alone applies to every
// layer, as TensorQuant does when its option is not a file.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_NUMBERFORMATMAP_H
#define QUANTQDQ_TRANSFORMS_NUMBERFORMATMAP_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "mlir/IR/Location.h"
#include <optional>
#include <string>

namespace mlir::quant_qdq {

class NumberFormatMap {
public:
  struct Entry {
    std::string substring;
    /// None: the layers it matches keep their values (`"none"`).
    std::optional<NumberFormatAttr> format;
    Location loc;
  };

  /// Reads `option`: the path of a JSON map, or else a format name. Errors
  /// in a map (syntax, unknown formats, repeated keys, values that are not
  /// strings) are reported at their line and column; an unreadable map or
  /// a bad format name at `loc`.
  static FailureOr<NumberFormatMap> parse(StringRef option, Location loc);
  /// Reads a JSON map from `text`, named `bufferName` in diagnostics.
  static FailureOr<NumberFormatMap> parseMap(StringRef text,
                                             StringRef bufferName,
                                             MLIRContext *context);

  /// The entry that decides for `layerName`, or null.
  const Entry *lookup(StringRef layerName) const;
  ArrayRef<Entry> getEntries() const { return entries; }

private:
  SmallVector<Entry> entries;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_NUMBERFORMATMAP_H
