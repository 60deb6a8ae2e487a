//===- Npy.h - NumPy .npy and .npz arrays in and out ------------*- C++ -*-===//
//
// The .npy format (version 1.0 to 3.0, C order, little-endian) for the
// tensors qdq-run reads and writes: float32/float64/float16, int8/uint8,
// int32/int64 and bool; and .npz archives of named .npy arrays, for models
// of several inputs.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_NPY_H
#define QUANTQDQ_EXECUTION_NPY_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::quant_qdq {

/// An array in memory: its element type (an MLIR type: f32, i8, ...), shape
/// and bytes in C order. The bytes are shared, not copied, by slices and
/// copies of the array: a file read is mapped, and its slices point into it.
struct NpyArray {
  Type elementType;
  SmallVector<int64_t> shape;
  /// Bytes per element.
  unsigned elementBytes = 0;
  /// Whether signless integer storage holds unsigned values (uint8).
  bool isUnsigned = false;
  /// The first byte, and what keeps the bytes alive.
  uint8_t *bytes = nullptr;
  std::shared_ptr<void> owner;

  /// A zero-filled array of its own.
  static NpyArray allocate(Type elementType, ArrayRef<int64_t> shape,
                           bool isUnsigned = false);
  int64_t getNumElements() const;
  size_t getNumBytes() const { return getNumElements() * elementBytes; }
  /// Rows [begin, begin + count) along the first dimension, sharing bytes.
  NpyArray slice(int64_t begin, int64_t count) const;
};

/// Maps the regular file at `path` (a device or a pipe, which would be read
/// until memory runs out, is an error); errors name the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> mapDataFile(StringRef path);

/// Reads `path`, mapping it rather than copying it. A path that is not a
/// regular file (a device, a pipe), malformed headers, Fortran order,
/// big-endian or unsupported dtypes, and data sizes other than the header
/// says, are errors naming the file.
llvm::Expected<NpyArray> readNpy(StringRef path, MLIRContext *context);

/// Reads the .npz archive at `path` (numpy.savez stores its arrays,
/// numpy.savez_compressed deflates them): its arrays in archive order, each
/// named as saved (the entry's name without ".npy"). Stored arrays are read
/// from the mapped file, deflated ones inflated. A malformed archive, an
/// entry that is not a .npy file or another compression is an error naming
/// the file (and the entry).
llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
readNpz(StringRef path, MLIRContext *context);

/// The arrays of the .npz archive in `archive` (which the arrays it stores
/// keep alive), as readNpz reads them; errors name `path`.
llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
parseNpz(std::shared_ptr<llvm::MemoryBuffer> archive, StringRef path,
         MLIRContext *context);

/// The arrays of the .npz archive at `path` as a model of inputs named
/// `inputNames` takes them: by input position, each the array of its name.
/// An input without an array, or an array that names no input, is an
/// error naming the file, the array or input, and the model's inputs.
llvm::Expected<SmallVector<NpyArray, 1>>
readNpzInputs(StringRef path, ArrayRef<std::string> inputNames,
              MLIRContext *context);

/// Reads the array in `file`, which the result keeps alive; errors name
/// `name`.
llvm::Expected<NpyArray> parseNpy(std::unique_ptr<llvm::MemoryBuffer> file,
                                  StringRef name, MLIRContext *context);

/// Writes `array` to `path` atomically: a failed write leaves no file.
/// Floats NumPy has no dtype for (bf16, FP8) are written as float32.
llvm::Error writeNpy(StringRef path, const NpyArray &array);

/// Whether elements of type `from` can feed an input of element type `to`:
/// the same type, or two floating-point types (float64 data, NumPy's
/// default, for a float32 model), which convertFloatElements converts.
bool isConvertibleElementType(Type from, Type to);

/// Whether `array`'s bytes are elements of type `type` as they are: the
/// same type, or integers of one width where an unsigned model type (ui8,
/// an image model's pixels) takes an unsigned array (NumPy's uint8) and a
/// signless one takes either.
bool holdsElementType(const NpyArray &array, Type type);

/// `array` with its elements converted to `elementType` when both are
/// floating-point types and differ, in an array of its own; otherwise
/// `array` itself.
NpyArray convertFloatElements(const NpyArray &array, Type elementType);

/// The .npy dtype string of an element type ("<f4", "|i1", ...), or empty.
std::string getNpyDtype(Type elementType, bool isUnsigned);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_EXECUTION_NPY_H
