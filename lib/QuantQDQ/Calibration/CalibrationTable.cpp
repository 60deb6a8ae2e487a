//===- CalibrationTable.cpp - apply, save and load calibration ranges -----===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult
mlir::quant_qdq::applyCalibrationTable(ModuleOp module,
                                       const CalibrationTable &table) {
  Builder b(module.getContext());
  module.walk([](FunctionOpInterface func) { nameTensors(func); });
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (!isa<QuantizeOp, FakeQuantOp>(op))
      return WalkResult::advance();
    Value input = op->getOperand(0);
    if (isCalibrationWeight(input))
      return WalkResult::advance(); // a weight: scaled from its values below
    std::string name = getTensorName(input).str();
    auto it = table.ranges.find(name);
    if (it == table.ranges.end()) {
      op->emitError("no calibration range for tensor '") << name << "'";
      return WalkResult::interrupt();
    }
    auto quantizer = op->getAttrOfType<QuantizerAttr>("quantizer");
    if (quantizer.getAxis()) {
      op->emitError("per-channel activation quantizers cannot be calibrated "
                    "per tensor");
      return WalkResult::interrupt();
    }
    const TensorRange &range = it->second;
    QuantParams params =
        computeActivationParams(quantizer, range.min, range.max, range.amax);
    auto set = [&](Operation *target) {
      target->setAttr("scale", b.getDenseF32ArrayAttr({params.scale}));
      if (params.zeroPoint != 0)
        target->setAttr("zero_point",
                        b.getDenseI32ArrayAttr({params.zeroPoint}));
      else
        target->removeAttr("zero_point");
    };
    set(op);
    // The dequantize ops of this quantize read its integers back.
    for (Operation *user : op->getUsers())
      if (auto dq = dyn_cast<DequantizeOp>(user))
        if (dq.getQuantizer() == quantizer)
          set(dq);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // Weights: per-channel max|w| / qmax from the constants themselves.
  return assignDefaultScales(module, /*activationAmax=*/std::nullopt);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

static bool isJSONPath(StringRef path) {
  return llvm::sys::path::extension(path) == ".json";
}

/// TensorRT names its cache header after the calibrator that wrote it.
static StringRef getTensorRTHeader(StringRef method) {
  return method == "entropy" ? "TRT-8600-EntropyCalibration2"
                             : "TRT-8600-MinMaxCalibration";
}

LogicalResult
mlir::quant_qdq::writeCalibrationTable(StringRef path,
                                       const CalibrationTable &table,
                                       Location loc) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << "cannot write the calibration table: " << error;
  llvm::raw_ostream &os = file->os();
  if (isJSONPath(path)) {
    llvm::json::OStream json(os, 2);
    json.object([&] {
      json.attribute("method", table.method);
      json.attributeObject("tensors", [&] {
        for (const auto &entry : table.ranges) {
          const TensorRange &range = entry.second;
          json.attributeObject(entry.first, [&] {
            json.attribute("amax", range.amax);
            json.attribute("min", range.min);
            json.attribute("max", range.max);
          });
        }
      });
    });
    os << "\n";
  } else {
    os << getTensorRTHeader(table.method) << "\n";
    for (const auto &[name, range] : table.ranges) {
      float scale = range.amax > 0 ? float(range.amax / 127.0) : 1.0f;
      uint32_t bits;
      std::memcpy(&bits, &scale, sizeof(bits));
      os << name << ": " << llvm::format_hex_no_prefix(bits, 8) << "\n";
    }
  }
  file->keep();
  return success();
}

FailureOr<CalibrationTable>
mlir::quant_qdq::readCalibrationTable(StringRef path, MLIRContext *context) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return emitError(FileLineColLoc::get(context, path, 0, 0))
           << "cannot read the calibration table: "
           << buffer.getError().message();
  return parseCalibrationTable((*buffer)->getBuffer(), path,
                               isJSONPath(path), context);
}

FailureOr<CalibrationTable>
mlir::quant_qdq::parseCalibrationTable(StringRef text, StringRef name,
                                       bool isJSON, MLIRContext *context) {
  CalibrationTable table;
  auto fail = [&](unsigned line, const Twine &why) {
    return emitError(FileLineColLoc::get(context, name, line, 1)) << why;
  };

  if (isJSON) {
    auto root = llvm::json::parse(text);
    if (!root)
      return fail(1, "malformed JSON: " + llvm::toString(root.takeError()));
    const llvm::json::Object *object = root->getAsObject();
    const llvm::json::Object *tensors =
        object ? object->getObject("tensors") : nullptr;
    if (!tensors)
      return fail(1, "expected {\"method\": ..., \"tensors\": {...}}");
    if (auto method = object->getString("method"))
      table.method = method->str();
    for (const auto &[name, value] : *tensors) {
      const llvm::json::Object *entry = value.getAsObject();
      std::optional<double> amax = entry ? entry->getNumber("amax")
                                         : std::nullopt;
      if (!amax || *amax < 0 || !std::isfinite(*amax))
        return fail(1, "tensor '" + name.str() +
                           "' needs a finite, non-negative \"amax\"");
      TensorRange range;
      range.amax = *amax;
      range.min = entry->getNumber("min").value_or(-*amax);
      range.max = entry->getNumber("max").value_or(*amax);
      table.ranges[name.str()] = range;
    }
    return table;
  }

  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (lines.empty() || !lines.front().starts_with("TRT-"))
    return fail(1, "expected a TensorRT calibration cache (first line "
                   "TRT-<version>-<Calibrator>) or a .json table");
  table.method = lines.front().contains("Entropy") ? "entropy" : "max";
  for (auto [i, line] : llvm::enumerate(llvm::drop_begin(lines))) {
    auto [name, hex] = line.rtrim().rsplit(": ");
    uint32_t bits;
    if (name.empty() || hex.size() != 8 || hex.getAsInteger(16, bits))
      return fail(i + 2, "expected '<tensor>: <8 hex digits>'");
    float scale;
    std::memcpy(&scale, &bits, sizeof(scale));
    if (!std::isfinite(scale) || scale < 0)
      return fail(i + 2, "scale must be finite and non-negative");
    TensorRange range;
    range.amax = double(scale) * 127.0;
    range.min = -range.amax;
    range.max = range.amax;
    table.ranges[name.str()] = range;
  }
  return table;
}
