//===- PerfMap.h - JIT code's names for perf --------------------*- C++ -*-===//
//
// `perf report` names JIT-compiled code from /tmp/perf-<pid>.map, which
// qdq-run writes when QDQ_PERF_MAP is set.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_EXECUTION_PERFMAP_H
#define QUANTQDQ_LIB_EXECUTION_PERFMAP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <utility>

namespace mlir::quant_qdq {

/// Names the compiled functions (the entry, the functions that hold its
/// parallel loops, and the regions OpenMP outlines from those) in
/// /tmp/perf-<pid>.map. The JIT does not report code sizes: each function
/// is taken to run up to the next one.
void writePerfMap(ArrayRef<std::pair<std::string, uint64_t>> functions);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_EXECUTION_PERFMAP_H
