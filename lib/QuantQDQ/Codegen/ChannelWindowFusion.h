//===- ChannelWindowFusion.h - ops a window's tiles take in ----*- C++ -*-===//
//
// A depthwise convolution with a bias and an activation bufferizes, per
// chunk of rows a thread computes, to three passes over a buffer of its
// own: the bias broadcast into it, the window adding into it, and the
// activation reading it into the layer's output (a pooling: its -inf or
// zero fill, then its division). qdq-vectorize-channel-windows folds the
// first and the last into the register tiles: the accumulators start from
// the bias's vectors and leave through the activation straight into the
// output, and the chunk's buffer goes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_CHANNELWINDOWFUSION_H
#define QUANTQDQ_CODEGEN_CHANNELWINDOWFUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::quant_qdq {

/// The loop of an op over an NHWC output's dimensions that walks the
/// channels: the one a tile's vectors run along.
constexpr unsigned kWindowChannelLoop = 3;

/// The op that writes every element of `window`'s output `output` just
/// before it, with nothing touching memory in between, and that a tile may
/// compute per channel vector instead: a `linalg.fill` of an f32, or an
/// element-wise generic over the output's dimensions (a bias broadcast
/// along the channels) that does not read the output. Null if none.
/// `root` is the op the pass runs on (see findWindowEpilogue).
Operation *findWindowInit(linalg::LinalgOp window, Value output,
                          Operation *root);

/// The element-wise generic that, just after `window` with nothing
/// touching memory in between, reads `window`'s output `output` as it lies
/// and writes another buffer of its shape, where `output` is a buffer of
/// its own that nothing but `init` (may be null), `window`, that op and
/// its deallocation uses, and where what the op writes cannot alias what
/// `window` and `init` read, nor what it reads itself but in place, element
/// for element (a residual sum). Null if none. `root` is the op the pass runs
/// on: a private function's arguments are known apart by its calls there.
linalg::GenericOp findWindowEpilogue(linalg::LinalgOp window, Value output,
                                     Operation *init, Operation *root);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_CHANNELWINDOWFUSION_H
