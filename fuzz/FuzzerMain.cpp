//===- FuzzerMain.cpp - replay inputs without libFuzzer ------------------===//
//
// In a build without libFuzzer (any compiler, no LLVM_USE_SANITIZE_COVERAGE)
// each fuzz target is a replay tool: it runs its LLVMFuzzerTestOneInput on
// every file named on the command line, which is how the tests run the
// corpora and the inputs fuzzing once crashed on.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
