//===- GPTQWeights.cpp - GPTQ: rounding error spread over later channels --===//
//
// The qdq-gptq pass. Rounding each weight to its grid independently
// ignores that the layer's inputs are correlated: the error of one input
// channel's weights can be cancelled in X W by adjusting the channels not
// yet quantized. GPTQ (Frantar et al., 2022) does that greedily, channel by
// channel, with the inverse Hessian H^-1 of the layer's squared output
// error, H = X^T X over the calibration rows; its Cholesky factor gives each
// step's update in closed form. Every row of W (output channel) is solved
// independently; only the scale of a group spanning several rows needs them
// in step.
//
//===----------------------------------------------------------------------===//

#include "CalibrationData.h"
#include "DenseWeights.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Execution/Npy.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/IR/Threading.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_GPTQWEIGHTS
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// The Gram matrix X^T X of one tensor's rows of k channels, row-major.
struct Gram {
  int64_t k = 0;
  std::vector<double> h;
  int64_t rows = 0;
};

/// GPTQ's settings.
struct Settings {
  int64_t block;
  double damp;
  bool actOrder;
};

/// A weight in GPTQ's layout: [n x k], output channels by input channels,
/// the input channels in the order they are quantized.
struct WorkingWeight {
  int64_t n, k;
  /// Input channel of each position, and position of each input channel.
  std::vector<int64_t> order, position;
  std::vector<double> w;
  /// The scale group of each element, and the elements of each group.
  std::vector<int64_t> group, groupStart, groupElements;
  /// The groups whose first element (in quantization order) is in each
  /// column, as ranges into `groupsByColumn`.
  std::vector<int64_t> groupsByColumn, columnStart;
};
} // namespace

/// Adds x^T x of the rows of `x` ([rows x k]) to `gram`, on the context's
/// threads, one row of H each.
static void accumulate(Gram &gram, ArrayRef<float> x, MLIRContext *context) {
  int64_t k = gram.k, rows = int64_t(x.size()) / k;
  parallelFor(context, 0, k, [&](size_t i) {
    double *out = &gram.h[i * k];
    for (int64_t r = 0; r < rows; ++r) {
      const float *row = &x[r * k];
      double xi = row[i];
      if (xi == 0)
        continue;
      for (int64_t j = 0; j < k; ++j)
        out[j] += xi * double(row[j]);
    }
  });
  gram.rows += rows;
}

/// Cholesky factor L (lower, row-major, in place) of the symmetric
/// positive definite `a` [k x k]; fails when `a` is not.
static LogicalResult choleskyLower(MutableArrayRef<double> a, int64_t k,
                                   MLIRContext *context) {
  for (int64_t j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (int64_t p = 0; p < j; ++p)
      d -= a[j * k + p] * a[j * k + p];
    if (!(d > 0) || !std::isfinite(d))
      return failure();
    d = std::sqrt(d);
    a[j * k + j] = d;
    parallelFor(context, j + 1, k, [&](size_t i) {
      double s = a[i * k + j];
      for (int64_t p = 0; p < j; ++p)
        s -= a[i * k + p] * a[j * k + p];
      a[i * k + j] = s / d;
    });
  }
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i + 1; j < k; ++j)
      a[i * k + j] = 0;
  return success();
}

/// The upper Cholesky factor U of H^-1 (H^-1 = U^T U) for the lower factor
/// `l` of H: with M = L^-1, H^-1 = M^T M, and U is the transpose of the
/// lower factor of that. Row-major [k x k].
static FailureOr<std::vector<double>>
getInverseUpperFactor(ArrayRef<double> l, int64_t k, MLIRContext *context) {
  // M = L^-1, lower triangular, column by column (each independent).
  std::vector<double> m(k * k, 0.0);
  parallelFor(context, 0, k, [&](size_t c) {
    m[c * k + c] = 1.0 / l[c * k + c];
    for (int64_t i = c + 1; i < k; ++i) {
      double s = 0;
      for (int64_t p = c; p < i; ++p)
        s += l[i * k + p] * m[p * k + c];
      m[i * k + c] = -s / l[i * k + i];
    }
  });
  // H^-1 = M^T M.
  std::vector<double> inverse(k * k);
  parallelFor(context, 0, k, [&](size_t i) {
    for (int64_t j = 0; j <= int64_t(i); ++j) {
      double s = 0;
      for (int64_t p = i; p < k; ++p)
        s += m[p * k + i] * m[p * k + j];
      inverse[i * k + j] = s;
    }
  });
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i + 1; j < k; ++j)
      inverse[i * k + j] = inverse[j * k + i];
  if (failed(choleskyLower(inverse, k, context)))
    return failure();
  std::vector<double> upper(k * k);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i; j < k; ++j)
      upper[i * k + j] = inverse[j * k + i];
  return upper;
}

/// `layer`'s weight `stored` in GPTQ's layout, with its quantizer's scale
/// groups, input channels in the order `order`.
static WorkingWeight getWorkingWeight(const QuantizedDenseWeight &layer,
                                      ArrayRef<float> stored,
                                      std::vector<int64_t> order) {
  WorkingWeight ww;
  ww.n = layer.n;
  ww.k = layer.k;
  int64_t n = ww.n, k = ww.k;
  ww.order = std::move(order);
  ww.position.resize(k);
  for (int64_t p = 0; p < k; ++p)
    ww.position[ww.order[p]] = p;
  auto at = [&](size_t e) {
    return layer.getOutputChannel(e) * k +
           ww.position[layer.getInputChannel(e)];
  };
  ww.w.resize(n * k);
  ww.group.resize(n * k);
  for (size_t e = 0; e < stored.size(); ++e)
    ww.w[at(e)] = stored[e];
  int64_t groups = 0;
  for (const ScaleRun &run : getScaleRuns(layer.quantizer, layer.getShape()))
    for (int64_t i = 0; i < run.length; ++i) {
      int64_t g = run.scale + i * run.scaleStride;
      ww.group[at(run.begin + i)] = g;
      groups = std::max(groups, g + 1);
    }
  // The elements of each group, and the column where each group starts.
  ww.groupStart.assign(groups + 1, 0);
  std::vector<int64_t> firstColumn(groups, k);
  for (int64_t e = 0; e < n * k; ++e) {
    ++ww.groupStart[ww.group[e] + 1];
    firstColumn[ww.group[e]] = std::min(firstColumn[ww.group[e]], e % k);
  }
  std::partial_sum(ww.groupStart.begin(), ww.groupStart.end(),
                   ww.groupStart.begin());
  ww.groupElements.resize(n * k);
  std::vector<int64_t> next(ww.groupStart.begin(), ww.groupStart.end() - 1);
  for (int64_t e = 0; e < n * k; ++e)
    ww.groupElements[next[ww.group[e]]++] = e;
  ww.columnStart.assign(k + 1, 0);
  for (int64_t g = 0; g < groups; ++g)
    ++ww.columnStart[firstColumn[g] + 1];
  std::partial_sum(ww.columnStart.begin(), ww.columnStart.end(),
                   ww.columnStart.begin());
  ww.groupsByColumn.resize(groups);
  std::vector<int64_t> slot(ww.columnStart.begin(), ww.columnStart.end() - 1);
  for (int64_t g = 0; g < groups; ++g)
    ww.groupsByColumn[slot[firstColumn[g]]++] = g;
  return ww;
}

/// The scale of group `g` (chooseWeightScale) for its values as GPTQ has
/// updated them so far: columns from `end` on still owe the lazy update of
/// the block's columns before `column`, whose errors are in `error`, so a
/// scale does not depend on the block size.
static float getGroupScale(const WorkingWeight &ww, int64_t g,
                           QuantizerAttr quantizer, ArrayRef<double> u,
                           ArrayRef<double> error, int64_t blockSize,
                           int64_t begin, int64_t column, int64_t end) {
  int64_t k = ww.k;
  SmallVector<float, 128> values;
  values.reserve(ww.groupStart[g + 1] - ww.groupStart[g]);
  for (int64_t i = ww.groupStart[g]; i < ww.groupStart[g + 1]; ++i) {
    int64_t e = ww.groupElements[i];
    int64_t j = e / k, d = e % k;
    double v = ww.w[e];
    if (d >= end)
      for (int64_t c = begin; c < column; ++c)
        v -= error[j * blockSize + c - begin] * u[c * k + d];
    values.push_back(float(v));
  }
  return chooseWeightScale(values, quantizer);
}

/// Runs GPTQ on `ww` with the upper factor `u` of the (ordered, damped)
/// inverse Hessian: `ww.w` becomes the dequantized weight. Returns the
/// scales of the groups.
static std::vector<float> quantizeColumns(WorkingWeight &ww, ArrayRef<double> u,
                                          QuantizerAttr quantizer,
                                          int64_t blockSize,
                                          MLIRContext *context) {
  int64_t n = ww.n, k = ww.k;
  double qmin = double(quantizer.getQMin()), qmax = double(quantizer.getQMax());
  std::vector<float> scales(ww.groupStart.size() - 1, 1.0f);
  std::vector<double> error(n * blockSize);
  for (int64_t begin = 0; begin < k; begin += blockSize) {
    int64_t end = std::min(begin + blockSize, k);
    // Columns between group starts run with all rows in parallel; a group
    // starting at a column needs every row's updates up to there.
    for (int64_t segment = begin; segment < end;) {
      for (int64_t i = ww.columnStart[segment]; i < ww.columnStart[segment + 1];
           ++i) {
        int64_t g = ww.groupsByColumn[i];
        scales[g] = getGroupScale(ww, g, quantizer, u, error, blockSize, begin,
                                  segment, end);
      }
      int64_t segmentEnd = segment + 1;
      while (segmentEnd < end &&
             ww.columnStart[segmentEnd] == ww.columnStart[segmentEnd + 1])
        ++segmentEnd;
      parallelFor(context, 0, n, [&](size_t j) {
        double *row = &ww.w[j * k];
        double *rowError = &error[j * blockSize];
        for (int64_t c = segment; c < segmentEnd; ++c) {
          double w = row[c];
          float scale = scales[ww.group[j * k + c]];
          double q =
              std::clamp(double(std::nearbyint(float(w) / scale)), qmin, qmax);
          // As DequantizeLinear computes it, in f32.
          double dequantized = double(float(q) * scale);
          double e = (w - dequantized) / u[c * k + c];
          row[c] = dequantized;
          rowError[c - begin] = e;
          const double *uRow = &u[c * k];
          for (int64_t d = c + 1; d < end; ++d)
            row[d] -= e * uRow[d];
        }
      });
      segment = segmentEnd;
    }
    // The lazy update of the columns after the block.
    if (end == k)
      continue;
    parallelFor(context, 0, n, [&](size_t j) {
      double *row = &ww.w[j * k];
      const double *rowError = &error[j * blockSize];
      for (int64_t c = begin; c < end; ++c) {
        double e = rowError[c - begin];
        const double *uRow = &u[c * k];
        for (int64_t d = end; d < k; ++d)
          row[d] -= e * uRow[d];
      }
    });
  }
  return scales;
}

/// The output error tr(D H D^T) / (rows * n) of replacing the weight
/// `original` by `quantized` (stored layout), for the undamped Gram matrix.
static double outputError(const QuantizedDenseWeight &layer,
                          ArrayRef<float> original, ArrayRef<float> quantized,
                          const Gram &gram, MLIRContext *context) {
  int64_t n = layer.n, k = layer.k;
  std::vector<double> perRow(n, 0.0);
  parallelFor(context, 0, n, [&](size_t j) {
    std::vector<double> d(k), hd(k, 0.0);
    for (int64_t c = 0; c < k; ++c) {
      size_t e = layer.getElement(c, j);
      d[c] = double(quantized[e]) - double(original[e]);
    }
    double sum = 0;
    for (int64_t a = 0; a < k; ++a) {
      if (d[a] == 0)
        continue;
      const double *h = &gram.h[a * k];
      double dot = 0;
      for (int64_t b = 0; b < k; ++b)
        dot += h[b] * d[b];
      sum += d[a] * dot;
    }
    perRow[j] = sum;
  });
  double total = std::accumulate(perRow.begin(), perRow.end(), 0.0);
  return total / double(std::max<int64_t>(1, gram.rows) * n);
}

namespace {
/// GPTQ's result for one layer: the dequantized weight (stored layout) and
/// its scales.
struct Solution {
  std::vector<float> weight;
  std::vector<float> scales;
};
} // namespace

/// The order GPTQ quantizes `k` input channels in: as they come, or with
/// `actOrder` by decreasing diag(H).
static std::vector<int64_t> getOrder(const Gram &gram, bool actOrder) {
  int64_t k = gram.k;
  std::vector<int64_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  if (actOrder)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return gram.h[a * k + a] > gram.h[b * k + b];
    });
  return order;
}

/// H in quantization order with `damp` times its mean diagonal added; a
/// channel never seen (all zeros) gets a unit diagonal, which leaves it to
/// plain rounding.
static std::vector<double> getDampedHessian(const Gram &gram,
                                            ArrayRef<int64_t> order,
                                            double damp, MLIRContext *context) {
  int64_t k = gram.k;
  std::vector<double> h(k * k);
  double meanDiagonal = 0;
  for (int64_t p = 0; p < k; ++p)
    meanDiagonal += gram.h[order[p] * k + order[p]];
  meanDiagonal /= double(k);
  parallelFor(context, 0, k, [&](size_t p) {
    for (int64_t q = 0; q < k; ++q)
      h[p * k + q] = gram.h[order[p] * k + order[q]];
  });
  for (int64_t p = 0; p < k; ++p) {
    double &d = h[p * k + p];
    if (d == 0)
      d = 1;
    d += damp * (meanDiagonal > 0 ? meanDiagonal : 1.0);
  }
  return h;
}

/// GPTQ on `layer`'s weight `w` (stored layout) with its input's Gram
/// matrix; fails when the damped Hessian is not positive definite.
static FailureOr<Solution> solve(const QuantizedDenseWeight &layer,
                                 ArrayRef<float> w, const Gram &gram,
                                 const Settings &settings,
                                 MLIRContext *context) {
  std::vector<int64_t> order = getOrder(gram, settings.actOrder);
  std::vector<double> h = getDampedHessian(gram, order, settings.damp, context);
  if (failed(choleskyLower(h, layer.k, context)))
    return failure();
  FailureOr<std::vector<double>> u = getInverseUpperFactor(h, layer.k, context);
  if (failed(u))
    return failure();
  h = {}; // The factor is all that is needed from here.

  WorkingWeight ww = getWorkingWeight(layer, w, std::move(order));
  Solution solution;
  // A block past the last channel changes nothing.
  solution.scales = quantizeColumns(ww, *u, layer.quantizer,
                                    std::min(settings.block, layer.k), context);
  solution.weight.resize(w.size());
  for (size_t e = 0; e < w.size(); ++e)
    solution.weight[e] = float(ww.w[layer.getOutputChannel(e) * layer.k +
                                    ww.position[layer.getInputChannel(e)]]);
  return solution;
}

namespace {
struct GPTQWeightsPass
    : public quant_qdq::impl::GPTQWeightsBase<GPTQWeightsPass> {
  using GPTQWeightsBase::GPTQWeightsBase;

  /// `--qdq-gptq=data.npy` names the data.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<GPTQWeightsPass, GPTQWeightsBase>(
        *this, options, "data", errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

/// The layers GPTQ can rewrite, in program order.
static SmallVector<QuantizedDenseWeight> collectLayers(func::FuncOp func) {
  SmallVector<QuantizedDenseWeight> layers;
  func.walk([&](DenseOp dense) {
    if (std::optional<QuantizedDenseWeight> layer =
            matchQuantizedDenseWeight(dense))
      layers.push_back(std::move(*layer));
  });
  return layers;
}

/// The float inputs of `layers`, each once, in order of first use.
static SmallVector<Value>
getDistinctInputs(ArrayRef<QuantizedDenseWeight> layers) {
  SmallVector<Value> inputs;
  llvm::SmallDenseSet<Value> seen;
  for (const QuantizedDenseWeight &layer : layers)
    if (seen.insert(layer.getFloatInput()).second)
      inputs.push_back(layer.getFloatInput());
  return inputs;
}

/// Warns when a layer saw fewer calibration rows (tokens, pixels) than it
/// has inputs: its Gram matrix is then singular, held up by the damping
/// alone, and GPTQ fits the calibration rows rather than the layer (on a
/// decoder, 14 tokens for 64 inputs cost about 3 dB of logits SQNR against
/// rounding).
static void warnIfFewRows(ArrayRef<Gram> grams, Location loc) {
  const Gram *worst = nullptr;
  for (const Gram &gram : grams)
    if (gram.rows < gram.k && (!worst || gram.k > worst->k))
      worst = &gram;
  if (worst)
    emitWarning(loc) << "qdq-gptq: the calibration data give " << worst->rows
                     << " rows (tokens, pixels) for a layer of " << worst->k
                     << " inputs; with fewer rows than inputs GPTQ fits the "
                        "data rather than the layer, and may do worse than "
                        "rounding: give at least "
                     << worst->k << " rows";
}

void GPTQWeightsPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  MLIRContext *context = &getContext();
  if (data.empty()) {
    emitError(loc) << "qdq-gptq needs calibration data: data=<.npy or .npz "
                      "files>";
    return signalPassFailure();
  }
  if (block < 1 || !(damp > 0 && damp < 1)) {
    emitError(loc) << "qdq-gptq: block must be positive and damp in (0, 1); "
                      "got block="
                   << static_cast<int64_t>(block)
                   << " damp=" << static_cast<double>(damp);
    return signalPassFailure();
  }
  func::FuncOp function =
      findDataPassEntry(module, "qdq-gptq", entry, batchSize);
  if (!function)
    return signalPassFailure();
  SmallVector<QuantizedDenseWeight> layers = collectLayers(function);
  if (layers.empty()) {
    emitWarning(loc) << "qdq-gptq found no dense layer with a quantized "
                        "weight of its own (symmetric, signed integer)";
    return;
  }
  nameTensors(function);

  SmallVector<Value> inputs = getDistinctInputs(layers);
  std::vector<Gram> grams(inputs.size());
  llvm::DenseMap<Value, size_t> gramOf;
  for (auto [i, input] : llvm::enumerate(inputs))
    gramOf[input] = i;
  for (const QuantizedDenseWeight &layer : layers)
    grams[gramOf[layer.getFloatInput()]].k = layer.k;
  for (Gram &gram : grams)
    gram.h.assign(gram.k * gram.k, 0.0);
  SmallVector<std::string> paths(data.begin(), data.end());
  if (failed(observeTensors(
          module, function, paths, batchSize,
          [](func::FuncOp func) {
            return getDistinctInputs(collectLayers(func));
          },
          [&](size_t i, const NpyArray &x) {
            accumulate(grams[i],
                       ArrayRef<float>(reinterpret_cast<const float *>(x.bytes),
                                       x.getNumElements()),
                       context);
          })))
    return signalPassFailure();

  warnIfFewRows(grams, loc);

  Settings settings{block, damp, actOrder};
  std::string text;
  llvm::raw_string_ostream report(text);
  report << "layer rows rounding-mse gptq-mse\n";
  for (QuantizedDenseWeight &layer : layers) {
    const Gram &gram = grams[gramOf[layer.getFloatInput()]];
    if (!llvm::all_of(gram.h, [](double v) { return std::isfinite(v); })) {
      layer.dense.emitError("qdq-gptq: this layer's inputs on the "
                            "calibration data hold NaN or infinite values");
      return signalPassFailure();
    }
    std::vector<float> w;
    if (failed(readFloatConstant(
            cast<ElementsAttr>(layer.weight.getValue()),
            [&](ArrayRef<float> v) { w.assign(v.begin(), v.end()); }))) {
      layer.dense.emitError("qdq-gptq: the weight is not a float constant");
      return signalPassFailure();
    }
    std::vector<float> rounded = w;
    fakeQuantizeWeight(layer, rounded);
    double roundingError = outputError(layer, w, rounded, gram, context);
    FailureOr<Solution> solution = solve(layer, w, gram, settings, context);
    if (failed(solution)) {
      layer.dense.emitWarning("qdq-gptq: the damped Hessian of this layer's "
                              "input is not positive definite; the weight "
                              "keeps plain rounding (raise damp=)");
      report << llvm::formatv("{0} {1} {2:E3} -\n", layer.dense.getLayerName(),
                              gram.rows, roundingError);
      continue;
    }
    double gptqError = outputError(layer, w, solution->weight, gram, context);
    report << llvm::formatv("{0} {1} {2:E3} {3:E3}\n",
                            layer.dense.getLayerName(), gram.rows,
                            roundingError, gptqError);
    if (!(gptqError < roundingError))
      continue;
    replaceWeight(layer, solution->weight, "_gptq",
                  ArrayRef<float>(solution->scales));
    ++numChanged;
  }
  if (!reportPath.empty() && failed(writeReport(reportPath, text, loc, "GPTQ")))
    signalPassFailure();
}
