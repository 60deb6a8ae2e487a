//===- CalibrationReport.cpp - what each method would choose --------------===//
//
// The methods disagree most where a distribution has a long tail or a spike:
// there a histogram method may clip a large share of the values, which is
// how entropy calibration once collapsed squeeze-excitation gates. The
// report puts the four choices side by side, per tensor, so that a user
// sees which tensors are sensitive to the method before trusting one.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Calibration/Calibration.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::quant_qdq;

/// A method clips far more than the others when it clips more than this
/// share of the values...
static constexpr double kOutlierClipping = 0.01;
/// ...and more than this many times the median share of the others.
static constexpr double kOutlierRatio = 10.0;

double MethodComparison::getMedianOfOthers(CalibrationMethod method) const {
  SmallVector<double, kNumMethods> others;
  for (unsigned m = 0; m < kNumMethods; ++m)
    if (m != unsigned(method))
      others.push_back(clipped[m]);
  llvm::sort(others);
  size_t n = others.size();
  return n % 2 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
}

bool MethodComparison::clipsFarMore(CalibrationMethod method) const {
  double share = clipped[unsigned(method)];
  return share > kOutlierClipping &&
         share > kOutlierRatio * getMedianOfOthers(method);
}

LogicalResult
mlir::quant_qdq::writeCalibrationReport(StringRef path,
                                        CalibrationMethod defaultMethod,
                                        ArrayRef<MethodComparison> rows,
                                        Location loc) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << "cannot write the calibration report: " << error;
  llvm::raw_ostream &os = file->os();

  size_t width = 6;
  for (const MethodComparison &row : rows)
    width = std::max(width, row.tensor.size());
  os << llvm::left_justify("tensor", width) << " ";
  for (unsigned m = 0; m < MethodComparison::kNumMethods; ++m)
    os << llvm::formatv(
        "{0,-24}",
        stringifyCalibrationMethod(static_cast<CalibrationMethod>(m)));
  os << "note\n";

  unsigned flagged = 0, ownMethod = 0, byOutputError = 0;
  for (const MethodComparison &row : rows) {
    byOutputError += row.chosenByOutputError;
    ownMethod += !row.chosenByOutputError && row.chosen != defaultMethod;
    os << llvm::left_justify(row.tensor, width) << " ";
    std::string note;
    for (unsigned m = 0; m < MethodComparison::kNumMethods; ++m) {
      auto method = static_cast<CalibrationMethod>(m);
      // amax, the share it clips, and * on the method used.
      std::string cell = llvm::formatv(
          "{0:F2} ({1:F2}%){2}", row.amax[m], 100.0 * row.clipped[m],
          method == row.chosen && !row.layerBoundAmax ? "*" : "");
      os << llvm::formatv("{0,-24}", cell);
      if (row.clipsFarMore(method)) {
        note += llvm::formatv("{0}{1} clips far more", note.empty() ? "" : "; ",
                              stringifyCalibrationMethod(method))
                    .str();
        ++flagged;
      }
    }
    if (row.layerBoundAmax)
      note += llvm::formatv("{0}largest value, within its layer's bound "
                            "(amax {1:F2})",
                            note.empty() ? "" : "; ", *row.layerBoundAmax)
                  .str();
    if (row.unboundedEntropyAmax)
      note += llvm::formatv("{0}entropy bounded (KL amax {1:F2})",
                            note.empty() ? "" : "; ", *row.unboundedEntropyAmax)
                  .str();
    os << note << "\n";
  }
  os << llvm::formatv("{0} tensors; * the method used ({1}", rows.size(),
                      stringifyCalibrationMethod(defaultMethod));
  if (ownMethod)
    os << llvm::formatv(", {0} by their quantizer's own", ownMethod);
  if (byOutputError)
    os << llvm::formatv(", {0} chosen by output error", byOutputError);
  os << llvm::formatv("); {0} method choices clip far more than the others "
                      "(over {1:F0}% of the values, {2:F0}x the others' "
                      "median)\n",
                      flagged, 100 * kOutlierClipping, kOutlierRatio);
  file->keep();
  return success();
}
