//===- InstallPrefix.cpp - files installed beside the running program -----===//

#include "QuantQDQ/Utils/InstallPrefix.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::optional<std::string>
quant_qdq::findBesideProgram(llvm::StringRef relative) {
  static int anchor;
  std::string program = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (program.empty())
    return std::nullopt;
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(program)));
  llvm::sys::path::append(path, relative);
  if (!llvm::sys::fs::exists(path))
    return std::nullopt;
  return std::string(path);
}
