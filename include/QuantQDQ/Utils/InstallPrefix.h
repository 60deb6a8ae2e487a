//===- InstallPrefix.h - files installed beside quant-qdq -----*- C++ -*-===//
//
// An installed quant-qdq keeps its files under one prefix: the tools in
// bin/, the CUDA runtime and the mlir-opt plugin in lib/, the .td files in
// include/. That holds for `cmake --install` and for a pip install, whose
// prefix is the environment (bin/ also holds its python3; the package sits
// in lib/pythonX.Y/site-packages/quant_qdq/). The build tree has the same
// bin/ and lib/. Looking there, from where the running code was loaded,
// rather than at paths compiled in, lets a wheel built in one folder run
// from another.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_INSTALLPREFIX_H
#define QUANTQDQ_UTILS_INSTALLPREFIX_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// `<prefix>/<relative>`, when that file or folder exists, for a prefix that
/// holds the shared object this code is linked into
/// (`<prefix>/lib/QuantQDQPlugin.so`, the Python extension in
/// `<prefix>/lib/python3.11/site-packages/quant_qdq/`) or else the running
/// program (`<prefix>/bin/qdq-opt`): the folder of each and its ancestors,
/// four levels up. std::nullopt when none has it.
std::optional<std::string> findInstalled(llvm::StringRef relative);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_INSTALLPREFIX_H
