//===- Npy.h - NumPy .npy arrays in and out ----------------------*- C++ -*-===//
//
// The .npy format (version 1.0 to 3.0, C order, little-endian) for the
// tensors qdq-run reads and writes: float32/float64/float16, int8/uint8,
// int32/int64 and bool.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_NPY_H
#define QUANTQDQ_EXECUTION_NPY_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::quant_qdq {

/// An array in memory: its element type (an MLIR type: f32, i8, ...), shape
/// and bytes in C order.
struct NpyArray {
  Type elementType;
  SmallVector<int64_t> shape;
  std::vector<uint8_t> storage;
  /// Bytes per element.
  unsigned elementBytes = 0;
  /// Whether signless integer storage holds unsigned values (uint8).
  bool isUnsigned = false;

  int64_t getNumElements() const;
  uint8_t *data() { return storage.data(); }
};

/// Reads `path`. Malformed headers, Fortran order, big-endian or
/// unsupported dtypes, and files shorter than the header says, are errors
/// naming the file.
llvm::Expected<NpyArray> readNpy(StringRef path, MLIRContext *context);

/// Writes `array` to `path` atomically: a failed write leaves no file.
llvm::Error writeNpy(StringRef path, const NpyArray &array);

/// The .npy dtype string of an element type ("<f4", "|i1", ...), or empty.
std::string getNpyDtype(Type elementType, bool isUnsigned);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_EXECUTION_NPY_H
