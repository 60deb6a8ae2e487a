//===- DriverFlags.cpp - user-level flags as pass options -----------------===//

#include "QuantQDQ/Driver/DriverFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

#include <optional>

using namespace mlir;
using namespace mlir::quant_qdq;

// A flag may set an option of several passes (insert-qdq and the
// qdq-quantize pipeline that contains it): it applies to each of them on
// the command line, and needs one. The first entry of a flag describes it.
static const DriverFlag driverFlags[] = {
    {"qdq-spec", "insert-qdq", "spec",
     "QuantizationSpec JSON file (insert-qdq's and qdq-quantize's spec=)"},
    {"qdq-spec", "qdq-quantize", "spec", ""},
    {"qdq-mode", "insert-qdq", "mode",
     "full (default table, then cases and spec) or partial (only what the "
     "spec names) (insert-qdq's and qdq-quantize's mode=)"},
    {"qdq-mode", "qdq-quantize", "mode", ""},
    {"qdq-report", "insert-qdq", "report",
     "Write insert-qdq's per-layer decisions to this file, '-' for stdout "
     "(insert-qdq's and qdq-quantize's report=)"},
    {"qdq-report", "qdq-quantize", "report", ""},
    {"qdq-target", "insert-qdq", "target",
     "The runtime Q/DQ is placed for: tensorrt (default) or onnxruntime "
     "(insert-qdq's and qdq-quantize's target=)"},
    {"qdq-target", "qdq-quantize", "target", ""},
    {"calibration-method", "calibrate", "method",
     "max, percentile, entropy, mse, last-value or moving-average "
     "(calibrate's and qdq-quantize's "
     "method=)"},
    {"calibration-method", "qdq-quantize", "method", ""},
    {"calibration-report", "calibrate", "report",
     "Write what every calibration method would choose, per tensor, to this "
     "file, '-' for stdout (calibrate's report=, qdq-quantize's "
     "calibration-report=)"},
    {"calibration-report", "qdq-quantize", "calibration-report", ""},
};

ArrayRef<DriverFlag> mlir::quant_qdq::getDriverFlags() { return driverFlags; }

namespace {
/// `-name`, `--name` or `--name=value` split; `name` is empty for anything
/// else (positional arguments, `-` alone).
struct Argument {
  StringRef name;
  std::optional<StringRef> value;
};

Argument splitArgument(StringRef arg) {
  if (!arg.consume_front("-") || arg.empty())
    return {};
  arg.consume_front("-");
  auto [name, value] = arg.split('=');
  if (name.size() == arg.size())
    return {name, std::nullopt};
  return {name, value};
}

/// The keys a pass option string sets, in MLIR's syntax: space-separated
/// `key=value` (or bare `key`) entries whose values may be quoted with
/// '...', "..." or {...}.
std::vector<std::pair<StringRef, StringRef>> optionEntries(StringRef options) {
  std::vector<std::pair<StringRef, StringRef>> entries;
  size_t i = 0;
  while (i < options.size()) {
    while (i < options.size() && options[i] == ' ')
      ++i;
    size_t start = i;
    int depth = 0;
    char quote = 0;
    for (; i < options.size(); ++i) {
      char c = options[i];
      if (quote) {
        if (c == quote)
          quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        --depth;
      } else if (c == ' ' && depth == 0) {
        break;
      }
    }
    StringRef entry = options.slice(start, i);
    if (!entry.empty()) {
      auto [key, value] = entry.split('=');
      entries.emplace_back(key, value);
    }
  }
  return entries;
}

/// `value` as an option value: quoted when it holds characters that would
/// end or nest the entry.
std::string quoteOptionValue(StringRef value) {
  if (value.find_first_of(" '\"{}") == StringRef::npos && !value.empty())
    return value.str();
  return "\"" + value.str() + "\"";
}
} // namespace

FailureOr<std::vector<std::string>>
mlir::quant_qdq::expandDriverFlags(ArrayRef<std::string> args,
                                   std::string &error) {
  // The driver flags given, in order, and the arguments without them.
  std::vector<std::pair<const DriverFlag *, std::string>> given;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    Argument arg = splitArgument(args[i]);
    const DriverFlag *flag = llvm::find_if(
        driverFlags, [&](const DriverFlag &f) { return f.flag == arg.name; });
    if (flag == std::end(driverFlags)) {
      rest.push_back(args[i]);
      continue;
    }
    if (arg.value) {
      given.emplace_back(flag, arg.value->str());
    } else if (i + 1 < args.size()) {
      given.emplace_back(flag, args[++i]);
    } else {
      error = "--" + flag->flag.str() + " needs a value";
      return failure();
    }
  }
  if (given.empty())
    return rest;

  // Flags apply in the order given: a flag repeated with another value
  // contradicts the option its first occurrence wrote.
  for (auto &[first, value] : given) {
    bool found = false;
    std::string passes;
    for (const DriverFlag &flag : driverFlags) {
      if (flag.flag != first->flag)
        continue;
      passes += (passes.empty() ? "--" : " or --") + flag.pass.str();
      for (std::string &arg : rest) {
        Argument passArg = splitArgument(arg);
        if (passArg.name != flag.pass)
          continue;
        found = true;
        // A bare leading value (`resnet-v1`) stays first: the pass reads
        // it as its main option.
        std::string options = passArg.value ? passArg.value->trim().str() : "";
        bool present = false;
        for (auto [key, current] : optionEntries(options))
          if (key == flag.option) {
            present = true;
            StringRef unquoted = current;
            if (unquoted.size() >= 2 &&
                (unquoted.front() == '"' || unquoted.front() == '\'') &&
                unquoted.back() == unquoted.front())
              unquoted = unquoted.drop_front().drop_back();
            if (unquoted != value) {
              error = "--" + flag.flag.str() + "=" + value + " contradicts " +
                      flag.option.str() + "=" + current.str() +
                      " given to --" + flag.pass.str();
              return failure();
            }
          }
        if (!present)
          options += (options.empty() ? "" : " ") + flag.option.str() + "=" +
                     quoteOptionValue(value);
        arg = "--" + flag.pass.str() + "=" + options;
      }
    }
    if (!found) {
      error = "--" + first->flag.str() + " sets the " + first->option.str() +
              " option of " + passes +
              ", which is not on the command line; in a --pass-pipeline, "
              "write it on the pass: " +
              first->pass.str() + "{" + first->option.str() + "=" + value +
              "}";
      return failure();
    }
  }
  return rest;
}

namespace {
struct HelpFlags {
  std::vector<std::unique_ptr<llvm::cl::opt<std::string>>> flags;
  HelpFlags() {
    for (const DriverFlag &f : driverFlags)
      if (!f.description.empty())
        flags.push_back(std::make_unique<llvm::cl::opt<std::string>>(
            f.flag, llvm::cl::desc(f.description),
            llvm::cl::value_desc("value")));
  }
};
} // namespace

static llvm::ManagedStatic<HelpFlags> helpFlags;

void mlir::quant_qdq::registerDriverFlagsForHelp() { (void)*helpFlags; }
