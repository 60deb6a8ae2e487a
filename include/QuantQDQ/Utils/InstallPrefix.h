//===- InstallPrefix.h - files beside the running program --*- C++ -*-===//
//
// An installed quant-qdq keeps its files under one prefix: the tools in
// bin/, the CUDA runtime and the mlir-opt plugin in lib/, the .td files in
// include/. That holds for `cmake --install` and for a pip install, whose
// prefix is the environment (bin/ also holds its python3). The build tree
// has the same bin/ and lib/ layout. Looking there first, rather than at
// paths compiled in, lets a wheel built in one folder run from another.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_INSTALLPREFIX_H
#define QUANTQDQ_UTILS_INSTALLPREFIX_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// `<prefix>/<relative>`, where the running program is `<prefix>/bin/NAME`,
/// when that file or folder exists; std::nullopt otherwise.
std::optional<std::string> findBesideProgram(llvm::StringRef relative);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_INSTALLPREFIX_H
