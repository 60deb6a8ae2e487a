//===- NumberFormatAttr.cpp - #quant_qdq.number_format --------------------===//
//
// The formats of TensorQuant (seed 004) and their names there: the map files
// TensorQuant reads name a format as `nearest,16,8` or `ternary,1,0.5`, and
// the same strings select formats here.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "QuantQDQ/IR/QuantQDQDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult NumberFormatAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, NumberFormatKind kind,
    std::optional<int64_t> bits, std::optional<int64_t> fractionBits,
    std::optional<FixedPointRounding> rounding, std::optional<int64_t> seed,
    FloatAttr marginalAttr, FloatAttr thresholdAttr) {
  StringRef name = stringifyNumberFormatKind(kind);
  bool fixedPoint = kind == NumberFormatKind::FixedPoint;
  if (fixedPoint != bits.has_value() ||
      fixedPoint != fractionBits.has_value())
    return emitError() << "'bits' and 'fraction_bits' are "
                       << (fixedPoint ? "required by" : "not parameters of")
                       << " the " << name << " format";
  if (!fixedPoint && rounding)
    return emitError() << "'rounding' is not a parameter of the " << name
                       << " format";
  // 24 bits: every grid value is then exact in f32, which computes it.
  if (bits && (*bits < 2 || *bits > 24))
    return emitError() << "fixed-point bits must be in [2, 24], got "
                       << *bits;
  if (fractionBits && (*fractionBits < -64 || *fractionBits > 64))
    return emitError() << "fixed-point fraction_bits must be in [-64, 64], "
                          "got "
                       << *fractionBits;
  if (seed && rounding != FixedPointRounding::Stochastic)
    return emitError() << "'seed' applies to stochastic rounding only";

  float marginal = marginalAttr ? marginalAttr.getValueAsDouble() : 1.0f;
  std::optional<float> threshold;
  if (thresholdAttr)
    threshold = thresholdAttr.getValueAsDouble();
  bool hasMarginal =
      kind == NumberFormatKind::Binary || kind == NumberFormatKind::Ternary;
  if (hasMarginal && !(std::isfinite(marginal) && marginal > 0))
    return emitError() << "the marginal of the " << name
                       << " format must be positive and finite, got "
                       << marginal;
  if (!hasMarginal && marginalAttr)
    return emitError() << "'marginal' is not a parameter of the " << name
                       << " format";

  bool takesThreshold =
      kind == NumberFormatKind::Ternary || kind == NumberFormatKind::Sparse;
  if (!takesThreshold && threshold)
    return emitError() << "'threshold' is not a parameter of the " << name
                       << " format";
  if (kind == NumberFormatKind::Sparse && !threshold)
    return emitError() << "the sparse format needs a 'threshold'";
  if (threshold && !(std::isfinite(*threshold) && *threshold >= 0))
    return emitError() << "a threshold must be non-negative and finite, got "
                       << *threshold;
  return success();
}

FailureOr<FloatAttr> mlir::quant_qdq::parseF32Parameter(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return FloatAttr::get(Float32Type::get(parser.getContext()), value);
}

/// A float as written in a name: shortest form that reads back the same.
static std::string formatFloat(float value) {
  for (int digits = 1;; ++digits) {
    std::string text = llvm::formatv("{0}", llvm::format("%.*g", digits,
                                                         double(value)))
                           .str();
    if (digits >= 9 || float(std::strtod(text.c_str(), nullptr)) == value)
      return text;
  }
}

std::string NumberFormatAttr::getTensorQuantName() const {
  switch (getKind()) {
  case NumberFormatKind::FixedPoint: {
    std::string name =
        llvm::formatv("{0},{1},{2}",
                      stringifyFixedPointRounding(getRoundingOrDefault()),
                      *getBits(), *getFractionBits())
            .str();
    if (getSeed())
      name += "," + std::to_string(*getSeed());
    return name;
  }
  case NumberFormatKind::Binary:
    return "binary," + formatFloat(getMarginalValue());
  case NumberFormatKind::Ternary:
    return "ternary," + formatFloat(getMarginalValue()) +
           (getThreshold() ? "," + formatFloat(*getThresholdValue()) : "");
  case NumberFormatKind::Logarithmic:
    return "logarithmic";
  case NumberFormatKind::Sparse:
    return "sparse," + formatFloat(*getThresholdValue());
  case NumberFormatKind::Half:
    return "fp16";
  }
  llvm_unreachable("unknown number format");
}

FailureOr<std::optional<NumberFormatAttr>>
NumberFormatAttr::parseTensorQuantName(
    MLIRContext *context, StringRef name,
    function_ref<InFlightDiagnostic()> emitError) {
  // Callers outside a pass (readers of map files) may not have it loaded.
  context->getOrLoadDialect<QuantQDQDialect>();
  SmallVector<StringRef> fields;
  name.split(fields, ',');
  for (StringRef &field : fields)
    field = field.trim();
  StringRef kindName = fields.front();
  ArrayRef<StringRef> args = ArrayRef(fields).drop_front();
  if (kindName == "none" && args.empty())
    return std::optional<NumberFormatAttr>();

  auto badArgs = [&](StringRef expected) {
    return emitError() << "quantizer '" << name << "': expected '"
                       << expected << "'";
  };
  auto readInt = [&](StringRef text, int64_t &value) {
    return !text.getAsInteger(10, value);
  };
  auto readFloat = [&](StringRef text, float &value) {
    double d;
    if (!llvm::to_float(text, d))
      return false;
    value = float(d);
    return true;
  };

  std::optional<FixedPointRounding> rounding =
      symbolizeFixedPointRounding(kindName);
  auto get = [&](NumberFormatKind kind, std::optional<int64_t> bits,
                 std::optional<int64_t> fractionBits,
                 std::optional<int64_t> seed, std::optional<float> marginal,
                 std::optional<float> threshold)
      -> FailureOr<std::optional<NumberFormatAttr>> {
    auto f32 = [&](std::optional<float> value) {
      return value ? FloatAttr::get(Float32Type::get(context), *value)
                   : FloatAttr();
    };
    NumberFormatAttr attr = getChecked(
        emitError, context, kind, bits, fractionBits,
        // Nearest is the default, written as no rounding at all.
        rounding == FixedPointRounding::Nearest ? std::nullopt : rounding,
        seed,
        f32(marginal), f32(threshold));
    if (!attr)
      return failure();
    return std::optional<NumberFormatAttr>(attr);
  };

  if (rounding) {
    int64_t bits, fraction, seed = 0;
    bool stochastic = *rounding == FixedPointRounding::Stochastic;
    if ((args.size() != 2 && !(stochastic && args.size() == 3)) ||
        !readInt(args[0], bits) || !readInt(args[1], fraction) ||
        (args.size() == 3 && !readInt(args[2], seed)))
      return badArgs(stochastic ? "stochastic,<bits>,<fraction bits>[,<seed>]"
                                : (kindName + ",<bits>,<fraction bits>").str());
    return get(NumberFormatKind::FixedPoint, bits, fraction,
               args.size() == 3 ? std::optional<int64_t>(seed) : std::nullopt,
               std::nullopt, std::nullopt);
  }
  float marginal = 1.0f, threshold = 0.0f;
  if (kindName == "binary") {
    if (args.size() > 1 || (args.size() == 1 && !readFloat(args[0], marginal)))
      return badArgs("binary[,<marginal>]");
    return get(NumberFormatKind::Binary, {}, {}, {},
               args.empty() ? std::nullopt : std::optional<float>(marginal),
               {});
  }
  if (kindName == "ternary") {
    if (args.size() > 2 ||
        (args.size() >= 1 && !readFloat(args[0], marginal)) ||
        (args.size() == 2 && !readFloat(args[1], threshold)))
      return badArgs("ternary[,<marginal>[,<threshold>]]");
    return get(NumberFormatKind::Ternary, {}, {}, {},
               args.empty() ? std::nullopt : std::optional<float>(marginal),
               args.size() == 2 ? std::optional<float>(threshold)
                                : std::nullopt);
  }
  if (kindName == "sparse") {
    if (args.size() != 1 || !readFloat(args[0], threshold))
      return badArgs("sparse,<threshold>");
    return get(NumberFormatKind::Sparse, {}, {}, {}, {}, threshold);
  }
  if (kindName == "logarithmic" || kindName == "fp16") {
    if (!args.empty())
      return badArgs(kindName);
    return get(kindName == "fp16" ? NumberFormatKind::Half
                                  : NumberFormatKind::Logarithmic,
               {}, {}, {}, {}, {});
  }
  return emitError() << "unknown quantizer '" << name
                     << "'; expected none, nearest, zero, down, stochastic, "
                        "binary, ternary, logarithmic, sparse or fp16";
}
