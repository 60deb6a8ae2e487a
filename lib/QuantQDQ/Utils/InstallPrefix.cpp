//===- InstallPrefix.cpp - files installed beside quant-qdq's code --------===//

#include "QuantQDQ/Utils/InstallPrefix.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

using namespace mlir;

/// The file this code was loaded from: the program, or the shared object
/// (Python extension, mlir-opt plugin) it is linked into.
static std::string loadedObject() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&loadedObject), &info) && info.dli_fname)
    return info.dli_fname;
  return "";
}

std::optional<std::string> quant_qdq::findInstalled(llvm::StringRef relative) {
  static int anchor;
  std::string program = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  // The shared object first: inside python3 or mlir-opt, the program's
  // prefix is the interpreter's or LLVM's, not quant-qdq's.
  for (const std::string &file : {loadedObject(), program}) {
    if (file.empty())
      continue;
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(file, real))
      real = file;
    llvm::StringRef folder = llvm::sys::path::parent_path(real);
    for (int level = 0; level <= 4 && !folder.empty(); ++level) {
      llvm::SmallString<256> path(folder);
      llvm::sys::path::append(path, relative);
      if (llvm::sys::fs::exists(path))
        return std::string(path);
      folder = llvm::sys::path::parent_path(folder);
    }
  }
  return std::nullopt;
}
