//===- HostCPU.h - what the CPU pipeline tunes to ---------------*- C++ -*-===//
//
// Facts of the host that the CPU pipeline's options follow: its vector
// registers and its caches. (Its thread count, getExecutionThreads, is
// public: JITExecutor.h.)
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_EXECUTION_HOSTCPU_H
#define QUANTQDQ_LIB_EXECUTION_HOSTCPU_H

#include <cstdint>

namespace mlir::quant_qdq {

/// Whether the host has AVX-512's 32 vector registers: room for register
/// tiles of 8 rows (eight independent FMA chains cover the FMA's latency on
/// two units: ResNet-50 at batch 8, 295 to 270 ms a run) and, where there
/// are enough columns, 32 columns (16 FMAs per 2 loads of the panel:
/// ViT-B/16 at batch 8, 1.15-1.18 to 0.96-0.97 s). AVX2's 16 registers
/// hold a 6 x 16 tile and its operands.
bool hostHasAVX512();

/// The size of the largest cache that the first CPU reports (Linux's
/// sysfs, which a virtual machine fills with its own share), else 0.
int64_t getLastLevelCacheBytes();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_EXECUTION_HOSTCPU_H
