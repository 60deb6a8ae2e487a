//===- DriverFlags.h - user-level flags as pass options ---------*- C++ -*-===//
//
// The tools' user-level flags named after the seed toolkit's arguments
// (--qdq-spec, --qdq-mode, --qdq-report, --calibration-method) are shorthand
// for options of the passes they concern. They are expanded into those
// options on the command line, before it is parsed, so that a pass reads
// only its own options: the same pipeline behaves the same whatever else is
// on the command line, and crash reproducers and --dump-pass-pipeline show
// what the pass was given.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_DRIVER_DRIVERFLAGS_H
#define QUANTQDQ_DRIVER_DRIVERFLAGS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::quant_qdq {

/// One user-level flag: `--<flag>=V` means `<option>=V` on every `--<pass>`
/// of the command line.
struct DriverFlag {
  StringRef flag;
  StringRef pass;
  StringRef option;
  StringRef description;
};

/// The driver flags (a flag appears once per pass it sets; its first entry
/// carries the description).
ArrayRef<DriverFlag> getDriverFlags();

/// Rewrites `args` (the command line without the program name): every
/// driver flag is removed and its value added to the options of each flag of
/// its passes. Fails, with `error` set, when a driver flag has no value,
/// when none of its passes is on the command line as a flag (inside
/// --pass-pipeline the option must be written on the pass), or when a pass
/// flag already sets that option to another value.
FailureOr<std::vector<std::string>>
expandDriverFlags(ArrayRef<std::string> args, std::string &error);

/// Registers the driver flags with llvm::cl so that --help lists them. The
/// parser never sees them once expandDriverFlags has run.
void registerDriverFlagsForHelp();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_DRIVER_DRIVERFLAGS_H
