//===- BareOption.h - a pass's main option given without its key -*- C++
//-*-===//
//
// Some passes have a main option that users write bare: the case list of
// insert-qdq and qdq-quantize (`--insert-qdq=resnet-v1`), calibrate's data.
// The bare value may lead other options
// (`--insert-qdq="transformer weight-format=int4"`); it is the first entry
// when that entry has no '=' and is not itself one of the pass's options
// (a boolean written bare, `awq`).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_BAREOPTION_H
#define QUANTQDQ_UTILS_BAREOPTION_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::quant_qdq {

/// `options` (MLIR's space-separated pass option syntax) with a bare
/// leading entry given to `mainOption`: `resnet-v1,bn weight-format=int4`
/// becomes `cases=resnet-v1,bn weight-format=int4`. `isOption(entry)` says
/// whether a bare entry is one of the pass's own options, which stays as
/// it is.
std::string
nameBareLeadingEntry(llvm::StringRef options, llvm::StringRef mainOption,
                     llvm::function_ref<bool(llvm::StringRef)> isOption);

/// What a pass `PassT` (generated base `BaseT`) with a main option written
/// bare does in its `initializeOptions` override: names a bare leading
/// entry that is not one of its options (parsed alone by the base, which
/// knows nothing of bare values) and parses the result with the base.
template <typename PassT, typename BaseT>
LogicalResult initializeWithMainOption(
    PassT &pass, llvm::StringRef options, llvm::StringRef mainOption,
    llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler) {
  std::string named =
      nameBareLeadingEntry(options, mainOption, [](llvm::StringRef entry) {
        PassT probe;
        return succeeded(probe.BaseT::initializeOptions(
            entry, [](const llvm::Twine &) { return failure(); }));
      });
  return pass.BaseT::initializeOptions(named, errorHandler);
}

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_BAREOPTION_H
