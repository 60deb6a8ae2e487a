//===- BufferAliasing.h - which buffers may share memory -------*- C++ -*-===//
//
// Passes that move reads and writes of buffers past one another (a
// window's epilogue into its tiles, a padded buffer's border fill into the
// loop that writes its interior) must know that the buffers they reorder
// share no memory. These helpers answer from how each buffer was made:
// through views to the buffer they view, an allocation is memory nothing
// else reaches, and a static view covers a box of its base's elements.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_BUFFERALIASING_H
#define QUANTQDQ_CODEGEN_BUFFERALIASING_H

#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::quant_qdq {

/// The buffer `buffer` is a view of, through every view.
Value getBaseBuffer(Value buffer);

/// The argument of a function's entry block that `buffer` is, or null.
BlockArgument getFunctionArgument(Value buffer);

/// Whether bases `a` and `b` (getBaseBuffer's) are different memory for
/// certain: an allocation against another allocation, a function's
/// argument or a global.
bool areAllocatedApart(Value a, Value b);

/// The elements of its base buffer that `buffer` covers, as a box of the
/// base's indices: through reshapes outermost (the same elements), then
/// casts and subviews of unit strides (their offsets and sizes static, no
/// dimension dropped); none where another view stands between.
struct BufferBox {
  Value base;
  SmallVector<int64_t> begin, end;
};
std::optional<BufferBox> getBufferBox(Value buffer);

/// Whether two buffers' boxes share no element: of different bases
/// allocated apart, or of one base with boxes apart along some dimension.
bool areBoxesApart(const BufferBox &a, const BufferBox &b);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_BUFFERALIASING_H
