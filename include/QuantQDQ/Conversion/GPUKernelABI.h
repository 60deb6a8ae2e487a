//===- GPUKernelABI.h - how Q/DQ kernels are called -------------*- C++ -*-===//
//
// The contract between convert-quant-qdq-to-gpu, which writes the kernels,
// qdq-gpu-launchers, which calls them from host code, and
// `qdq-translate --export-gpu-kernels`, which describes them to other
// runtimes (a training framework, the GPU benchmark).
//
// Every argument is a bare pointer to device memory, in this order: input,
// grad (fake_quant_grad only), output, scale[C], reciprocal[C], zero_point[C]
// (f32 holding integers), with C = 1 per tensor. reciprocal[c] must be
// RN(1 / scale[c]) (IEEE f32 division), and a kernel whose name ends in
// `_rcp` needs every scale in [2^-100, 2^100]. Buffers are 16-byte aligned.
// The launch is a 1-D grid and block, given by the kernel's
// `known_grid_size` and `known_block_size`.
//
// round_to_format kernels take input and output, and a ternary format
// without a threshold also threshold[1], 0.7 * mean|input| (computed on
// the host before the launch).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_GPUKERNELABI_H
#define QUANTQDQ_CONVERSION_GPUKERNELABI_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::quant_qdq {

enum class KernelArgRole {
  Input,
  Grad,
  Output,
  Scale,
  Reciprocal,
  ZeroPoint,
  Threshold
};

/// The roles of a kernel's arguments, in order.
inline ArrayRef<KernelArgRole> getKernelArgRoles(bool hasGrad) {
  static const KernelArgRole withGrad[] = {
      KernelArgRole::Input,      KernelArgRole::Grad,
      KernelArgRole::Output,     KernelArgRole::Scale,
      KernelArgRole::Reciprocal, KernelArgRole::ZeroPoint};
  static const KernelArgRole plain[] = {
      KernelArgRole::Input, KernelArgRole::Output, KernelArgRole::Scale,
      KernelArgRole::Reciprocal, KernelArgRole::ZeroPoint};
  if (hasGrad)
    return withGrad;
  return plain;
}

/// The roles of a round_to_format kernel's arguments, in order.
inline ArrayRef<KernelArgRole> getRoundToFormatArgRoles(bool hasThreshold) {
  static const KernelArgRole withThreshold[] = {
      KernelArgRole::Input, KernelArgRole::Output, KernelArgRole::Threshold};
  if (hasThreshold)
    return withThreshold;
  return ArrayRef(withThreshold).drop_back();
}

/// The position of `role` among a kernel's arguments `roles`.
inline unsigned getKernelArgIndex(ArrayRef<KernelArgRole> roles,
                                  KernelArgRole role) {
  return std::find(roles.begin(), roles.end(), role) - roles.begin();
}

inline StringRef getKernelArgRoleName(KernelArgRole role) {
  switch (role) {
  case KernelArgRole::Input:
    return "input";
  case KernelArgRole::Grad:
    return "grad";
  case KernelArgRole::Output:
    return "output";
  case KernelArgRole::Scale:
    return "scale";
  case KernelArgRole::Reciprocal:
    return "reciprocal";
  case KernelArgRole::ZeroPoint:
    return "zero_point";
  case KernelArgRole::Threshold:
    return "threshold";
  }
  return "";
}

/// The gpu.module holding the kernels.
constexpr llvm::StringLiteral kKernelModuleName = "qdq_kernels";
/// On each kernel: the role names of its arguments.
constexpr llvm::StringLiteral kKernelArgsAttr = "quant_qdq.kernel_args";
/// On each kernel: how many elements one thread moves (the grid covers the
/// tensor with grid x block x this many).
constexpr llvm::StringLiteral kKernelElementsPerThreadAttr =
    "quant_qdq.elements_per_thread";
/// On each launcher declaration: the kernel it launches.
constexpr llvm::StringLiteral kLauncherAttr = "quant_qdq.gpu_launcher";

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_GPUKERNELABI_H
