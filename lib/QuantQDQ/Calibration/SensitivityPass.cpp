//===- SensitivityPass.cpp - what each layer's quantization costs ---------===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Comparison.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "QuantQDQ/Utils/BareOption.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "CalibrationData.h"
#include "DenseWeights.h"
#include "QuantizationSites.h"
#include "SiteChoiceRunner.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_SENSITIVITY
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// One layer's row: its quantized tensors and the four measurements.
struct SensitivityRow {
  std::string layer, op;
  int64_t multiplyAccumulates = 0;
  SmallVector<unsigned> weightSites, activationSites;
  /// Output SQNR with only the weight (activations) quantized, and with
  /// everything but the weight (activations) quantized; none where the
  /// layer has no such site.
  std::optional<double> weightsOnly, activationsOnly, weightsFloat,
      activationsFloat;
};

struct SensitivityPass
    : public quant_qdq::impl::SensitivityBase<SensitivityPass> {
  using SensitivityBase::SensitivityBase;

  /// `--qdq-sensitivity=FILE` names the output.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<SensitivityPass, SensitivityBase>(
        *this, options, "output", errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

/// The rows, one per layer reading a quantized tensor, in program order; a
/// quantized tensor no layer reads (a quantized output) gets a row of its
/// own.
static std::vector<SensitivityRow>
groupByLayer(ArrayRef<QuantizationSite> sites) {
  llvm::MapVector<Operation *, SensitivityRow> byLayer;
  std::vector<SensitivityRow> unread;
  for (auto [i, site] : llvm::enumerate(sites)) {
    if (site.layers.empty()) {
      SensitivityRow &row = unread.emplace_back();
      row.layer = site.name;
      row.op = "output";
      row.activationSites.push_back(i);
      continue;
    }
    for (Operation *op : site.layers) {
      auto layer = cast<QDQLayerOpInterface>(op);
      SensitivityRow &row = byLayer[op];
      if (row.layer.empty()) {
        row.layer = layer.getLayerName().str();
        if (row.layer.empty())
          row.layer = op->getName().getStringRef().str();
        row.op = layer.getLayerClass().str();
        row.multiplyAccumulates = layer.getMultiplyAccumulates();
      }
      (site.isWeight ? row.weightSites : row.activationSites).push_back(i);
    }
  }
  std::vector<SensitivityRow> rows;
  for (auto &entry : byLayer)
    rows.push_back(std::move(entry.second));
  llvm::append_range(rows, unread);
  return rows;
}

/// A dB figure for text: "inf", or two decimals; "-" for none.
/// A dB figure of the table: "-" where the layer has no such tensor.
static std::string formatDecibels(std::optional<double> db) {
  return db ? quant_qdq::formatDecibels(*db) : "-";
}

/// The figures every format of the table shares.
struct SensitivitySummary {
  int64_t samples = 0, runs = 0;
  double sqnr = 0;
  std::optional<double> top1;
};

static std::string formatText(const SensitivitySummary &summary,
                              ArrayRef<SensitivityRow> rows) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "quantization sensitivity on " << summary.samples
     << " samples: the whole network quantized has an output SQNR of "
     << formatDecibels(summary.sqnr) << " dB";
  if (summary.top1)
    os << llvm::formatv(", top-1 agreement {0:F1}%", *summary.top1);
  os << " (" << summary.runs << " runs)\n"
     << "output SQNR in dB with only the layer's weight or input activations "
        "quantized, and with all but them quantized:\n";
  const char *headers[] = {"layer",       "op",          "MACs",
                           "weight only", "inputs only", "weight float",
                           "inputs float"};
  std::vector<std::vector<std::string>> cells;
  cells.push_back(
      std::vector<std::string>(std::begin(headers), std::end(headers)));
  for (const SensitivityRow &row : rows)
    cells.push_back({row.layer, row.op, std::to_string(row.multiplyAccumulates),
                     formatDecibels(row.weightsOnly),
                     formatDecibels(row.activationsOnly),
                     formatDecibels(row.weightsFloat),
                     formatDecibels(row.activationsFloat)});
  std::vector<size_t> widths(std::size(headers), 0);
  for (const auto &line : cells)
    for (auto [i, cell] : llvm::enumerate(line))
      widths[i] = std::max(widths[i], cell.size());
  for (const auto &line : cells) {
    os << " ";
    for (auto [i, cell] : llvm::enumerate(line)) {
      os << " ";
      if (i < 2)
        os << llvm::left_justify(cell, widths[i]);
      else
        os << llvm::right_justify(cell, widths[i]);
    }
    os << "\n";
  }
  return text;
}

static std::string formatCSV(ArrayRef<SensitivityRow> rows) {
  std::string text = "layer,op,macs,weight_only_sqnr_db,inputs_only_sqnr_db,"
                     "weight_float_sqnr_db,inputs_float_sqnr_db\n";
  auto cell = [](std::optional<double> db) {
    return db ? formatDecibels(db) : std::string();
  };
  for (const SensitivityRow &row : rows)
    text += llvm::formatv("\"{0}\",{1},{2},{3},{4},{5},{6}\n", row.layer,
                          row.op, row.multiplyAccumulates,
                          cell(row.weightsOnly), cell(row.activationsOnly),
                          cell(row.weightsFloat), cell(row.activationsFloat))
                .str();
  return text;
}

/// JSON has no infinity: an infinite SQNR (no error at all) is the string
/// "inf", a missing one null.
static llvm::json::Value toJSON(std::optional<double> db) {
  if (!db)
    return nullptr;
  if (std::isinf(*db))
    return *db > 0 ? "inf" : "-inf";
  return *db;
}

static std::string formatJSON(const SensitivitySummary &summary,
                              ArrayRef<SensitivityRow> rows,
                              ArrayRef<QuantizationSite> sites) {
  llvm::json::Array layers;
  auto names = [&](ArrayRef<unsigned> indices) {
    llvm::json::Array array;
    for (unsigned i : indices)
      array.push_back(sites[i].name);
    return array;
  };
  for (const SensitivityRow &row : rows)
    layers.push_back(llvm::json::Object{
        {"layer", row.layer},
        {"op", row.op},
        {"macs", row.multiplyAccumulates},
        {"weights", names(row.weightSites)},
        {"inputs", names(row.activationSites)},
        {"weight_only_sqnr_db", toJSON(row.weightsOnly)},
        {"inputs_only_sqnr_db", toJSON(row.activationsOnly)},
        {"weight_float_sqnr_db", toJSON(row.weightsFloat)},
        {"inputs_float_sqnr_db", toJSON(row.activationsFloat)}});
  llvm::json::Object root{{"samples", summary.samples},
                          {"runs", summary.runs},
                          {"sqnr_db", toJSON(summary.sqnr)},
                          {"layers", std::move(layers)}};
  if (summary.top1)
    root["top1_agreement"] = *summary.top1;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return text;
}

/// Escapes `text` for SVG text content.
static std::string escapeXML(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// A horizontal bar chart: per layer, the output SQNR with only its weight
/// and only its inputs quantized (shorter: more sensitive), and the whole
/// network's SQNR as a dashed line.
static std::string formatChart(const SensitivitySummary &summary,
                               ArrayRef<SensitivityRow> rows) {
  double top = std::isfinite(summary.sqnr) ? summary.sqnr : 0;
  for (const SensitivityRow &row : rows)
    for (std::optional<double> db : {row.weightsOnly, row.activationsOnly})
      if (db && std::isfinite(*db))
        top = std::max(top, *db);
  top = top > 0 ? std::ceil(top / 10) * 10 : 10;
  size_t labelChars = 5;
  for (const SensitivityRow &row : rows)
    labelChars = std::max(labelChars, row.layer.size());
  const double label = 12 + 7 * double(std::min<size_t>(labelChars, 40));
  const double barsWidth = 480, rowHeight = 22, header = 48;
  double width = label + barsWidth + 24;
  double height = header + rowHeight * double(rows.size()) + 40;
  auto x = [&](double db) {
    return label + barsWidth * std::clamp(db, 0.0, top) / top;
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0:F0}\" height=\"{1:F0}\" "
                      "font-family=\"sans-serif\" font-size=\"12\">\n",
                      width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"8\" y=\"18\" font-size=\"14\">Output SQNR "
                      "(dB) with one layer quantized; whole network: {0} "
                      "dB</text>\n",
                      formatDecibels(summary.sqnr));
  os << llvm::formatv(
      "<rect x=\"{0:F0}\" y=\"28\" width=\"10\" height=\"10\" "
      "fill=\"#3b75af\"/><text x=\"{1:F0}\" y=\"37\">weight only</text>\n"
      "<rect x=\"{2:F0}\" y=\"28\" width=\"10\" height=\"10\" "
      "fill=\"#ef8636\"/><text x=\"{3:F0}\" y=\"37\">inputs only</text>\n",
      label, label + 14, label + 110, label + 124);
  for (auto [i, row] : llvm::enumerate(rows)) {
    double y = header + rowHeight * double(i);
    os << llvm::formatv("<text x=\"{0:F0}\" y=\"{1:F1}\" "
                        "text-anchor=\"end\">{2}</text>\n",
                        label - 6, y + 14, escapeXML(row.layer));
    auto bar = [&](std::optional<double> db, double offset,
                   const char *colour) {
      if (!db)
        return;
      double end = std::isinf(*db) ? x(top) : x(*db);
      os << llvm::formatv("<rect x=\"{0:F1}\" y=\"{1:F1}\" width=\"{2:F1}\" "
                          "height=\"8\" fill=\"{3}\"><title>{4} dB</title>"
                          "</rect>\n",
                          label, y + offset, end - label, colour,
                          formatDecibels(db));
    };
    bar(row.weightsOnly, 3, "#3b75af");
    bar(row.activationsOnly, 11, "#ef8636");
  }
  double axis = header + rowHeight * double(rows.size()) + 4;
  for (double db = 0; db <= top + 1e-9; db += top / 5)
    os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1:F0}\" x2=\"{0:F1}\" "
                        "y2=\"{2:F0}\" stroke=\"#ccc\"/><text x=\"{0:F1}\" "
                        "y=\"{3:F0}\" text-anchor=\"middle\">{4:F0}</text>\n",
                        x(db), header - 4, axis, axis + 14, db);
  if (std::isfinite(summary.sqnr))
    os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1:F0}\" x2=\"{0:F1}\" "
                        "y2=\"{2:F0}\" stroke=\"black\" "
                        "stroke-dasharray=\"4 3\"/>\n",
                        x(summary.sqnr), header - 4, axis);
  os << "</svg>\n";
  return text;
}

void SensitivityPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  if (output.empty() && chart.empty()) {
    emitError(loc) << "qdq-sensitivity needs an output: "
                      "--qdq-sensitivity=FILE (or chart=FILE.svg)";
    return signalPassFailure();
  }
  if (data.empty()) {
    emitError(loc) << "qdq-sensitivity needs validation data: data=<.npy or "
                      ".npz files>";
    return signalPassFailure();
  }
  func::FuncOp function =
      findDataPassEntry(module, "qdq-sensitivity", entry, batchSize);
  if (!function)
    return signalPassFailure();
  std::vector<QuantizationSite> sites = collectQuantizationSites(function);
  if (failed(checkSitesCalibrated(sites, "qdq-sensitivity")))
    return signalPassFailure();
  if (sites.empty())
    emitWarning(loc) << "qdq-sensitivity: the network quantizes nothing it "
                        "holds in float";

  SmallVector<SmallVector<SiteQuantizer>> alternatives;
  for (const QuantizationSite &site : sites)
    alternatives.push_back({site.current});
  SmallVector<std::string> paths(data.begin(), data.end());
  FailureOr<std::unique_ptr<SiteChoiceRunner>> runner =
      SiteChoiceRunner::create(module, function, alternatives, paths, batchSize,
                               loc);
  if (failed(runner))
    return signalPassFailure();
  if ((*runner)->hasNonFiniteReference()) {
    emitError(loc) << "qdq-sensitivity: the float network's outputs on the "
                      "validation data hold NaN or infinite values";
    return signalPassFailure();
  }

  std::vector<int32_t> all(sites.size(), 1);
  FailureOr<OutputError> whole = (*runner)->measure(all);
  if (failed(whole))
    return signalPassFailure();
  std::vector<SensitivityRow> rows = groupByLayer(sites);
  // Only `subset` quantized, or all but `subset`.
  auto measure = [&](ArrayRef<unsigned> subset,
                     bool only) -> FailureOr<std::optional<double>> {
    if (subset.empty())
      return std::optional<double>();
    std::vector<int32_t> choice(sites.size(), only ? 0 : 1);
    for (unsigned i : subset)
      choice[i] = only ? 1 : 0;
    FailureOr<OutputError> error = (*runner)->measure(choice);
    if (failed(error))
      return failure();
    return std::optional<double>(error->getSQNR());
  };
  for (SensitivityRow &row : rows) {
    auto weightsOnly = measure(row.weightSites, true);
    auto activationsOnly = measure(row.activationSites, true);
    auto weightsFloat = measure(row.weightSites, false);
    auto activationsFloat = measure(row.activationSites, false);
    if (failed(weightsOnly) || failed(activationsOnly) ||
        failed(weightsFloat) || failed(activationsFloat))
      return signalPassFailure();
    row.weightsOnly = *weightsOnly;
    row.activationsOnly = *activationsOnly;
    row.weightsFloat = *weightsFloat;
    row.activationsFloat = *activationsFloat;
  }

  SensitivitySummary summary;
  summary.samples = (*runner)->getSamples();
  summary.runs = (*runner)->getRuns();
  summary.sqnr = whole->getSQNR();
  summary.top1 = whole->getTop1Agreement();
  if (!output.empty()) {
    StringRef path = output;
    std::string text = path.ends_with(".json")
                           ? formatJSON(summary, rows, sites)
                       : path.ends_with(".csv") ? formatCSV(rows)
                                                : formatText(summary, rows);
    if (failed(writeReport(path, text, loc, "sensitivity")))
      return signalPassFailure();
  }
  if (!chart.empty() && failed(writeReport(chart, formatChart(summary, rows),
                                           loc, "sensitivity chart")))
    return signalPassFailure();
}
