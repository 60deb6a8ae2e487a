//===- GPUKernelSpec.h - what a GPU kernel is specialized on ----*- C++ -*-===//
//
// Private to the GPU lowering: the description of one kernel (op kind,
// element types, shape, quantizer and launch geometry), shared by the pass,
// which finds and launches kernels (ConvertQuantQDQToGPU.cpp), and the
// builder of their bodies (GPUKernelBuilder.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_QUANTQDQTOGPU_GPUKERNELSPEC_H
#define QUANTQDQ_CONVERSION_QUANTQDQTOGPU_GPUKERNELSPEC_H

#include "../QDQArithmetic.h"
#include "QuantQDQ/Conversion/GPUKernelABI.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace mlir::quant_qdq {

/// Everything a kernel is specialized on. Scales are not: they are
/// arguments.
struct KernelSpec {
  QuantOpKind kind;
  Type inElement, outElement;
  int64_t numElements = 0;
  /// Channels along the quantizer axis (1 per tensor) and the number of
  /// contiguous elements of one channel slice.
  int64_t channels = 1, inner = 1;
  /// Blocked quantizers: the block along the axis (0: not blocked). Scales
  /// are then a row-major [outer, ceil(channels / block), inner] table.
  int64_t quantBlock = 0;
  double qmin = 0, qmax = 0;
  bool reciprocal = true;
  /// FP8 E4M3FN storage, converted by sm_89's cvt instructions when
  /// `hardwareFP8`.
  bool fp8 = false, hardwareFP8 = false;
  /// For round_to_format kernels, the format (then `kind` and the
  /// quantizer fields do not apply).
  NumberFormatAttr format;

  // Launch geometry, derived.
  int64_t vectorWidth = 1, vectorsPerThread = 1, blockSize = 256;
  int64_t numBlocks = 0;
  /// Per-channel: channel entries staged in shared memory per block, or 0
  /// to read them from global memory.
  int64_t staged = 0;

  int64_t elementsPerBlock() const {
    return blockSize * vectorsPerThread * vectorWidth;
  }
  /// Whether parameters vary over the tensor (per channel or per block;
  /// a blocked axis of size 1 still has a scale per element of the rest).
  bool perChannel() const {
    return channels > 1 || inner != numElements || blocked();
  }
  bool blocked() const { return quantBlock > 0; }
  int64_t blocksPerSlice() const {
    return (channels + quantBlock - 1) / quantBlock;
  }
  /// Entries of each parameter table.
  int64_t numScales() const {
    if (!blocked())
      return channels;
    return numElements / (channels * inner) * blocksPerSlice() * inner;
  }
  std::string name() const;
  /// The kernel's arguments, in order.
  ArrayRef<KernelArgRole> roles() const {
    if (format)
      return getRoundToFormatArgRoles(format.needsMeanMagnitude());
    return getKernelArgRoles(kind == QuantOpKind::FakeQuantGrad);
  }
};

/// Chooses the vector width V, the vectors per thread U, the grid and the
/// staging of `spec` in place.
void chooseGeometry(KernelSpec &spec, int64_t blockSize,
                    int64_t vectorsPerThread);

/// Fills the body of `func`, an empty kernel with `spec.roles()`'s
/// arguments.
void buildKernelBody(const KernelSpec &spec, gpu::GPUFuncOp func);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_QUANTQDQTOGPU_GPUKERNELSPEC_H
