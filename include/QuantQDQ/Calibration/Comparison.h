//===- Comparison.h - what quantization does to the numbers -----*- C++ -*-===//
//
// Runs a quantized network and a float reference on the same inputs and
// measures the difference: per output, the signal-to-quantization-noise
// ratio (SQNR), the largest error and, for a classifier's [N, classes]
// output or a language model's [batch, sequence, vocabulary] logits, how
// often the top-1 class agrees (per position), and given the token ids,
// both networks' perplexity; per layer, the SQNR at its
// output and the SQNR of the error the layer adds itself, so that the
// layers that cost accuracy stand out. The reference is another model
// (tensors matched by name) or the quantized one with its Q/DQ removed.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CALIBRATION_COMPARISON_H
#define QUANTQDQ_CALIBRATION_COMPARISON_H

#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/Execution/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::quant_qdq {

/// The difference between the reference's and the quantized network's
/// values of one tensor.
struct TensorComparison {
  /// The tensor's name (an ONNX tensor name for imported models).
  std::string name;
  /// The layer producing it (its ONNX node name) and its op, e.g. conv2d.
  std::string layer, op;
  SmallVector<int64_t> shape;
  /// 10 log10(sum ref^2 / sum (ref - q)^2) in dB; +inf when equal.
  double sqnr = 0;
  /// The SQNR of the error this tensor's layer adds to what its inputs
  /// already carried, errors adding as powers (layers only).
  double ownSqnr = 0;
  double maxError = 0;
  double referenceMin = 0, referenceMax = 0;
  /// For a classifier's output [N, C], C > 1, or a language model's logits
  /// [B, S, V] (named `logits`, or scored on the token ids): rows
  /// (positions) whose largest value is at the same class in both.
  std::optional<int64_t> top1Agreeing;
  int64_t rows = 0;
  /// For logits [B, S, V] and token ids [B, S]: exp of the mean next-token
  /// cross-entropy over positions 0..S-2, of the reference and of the
  /// quantized network.
  std::optional<double> referencePerplexity, perplexity;
};

struct ComparisonOptions {
  /// The function to run in both (default: the only public one).
  std::string entry;
  /// Also compare every layer's output (both networks return them all).
  bool layers = true;
  /// Token ids [B, S] (int64 or int32) the perplexity of logits [B, S, V]
  /// (V above every id) is measured on, or null.
  const NpyArray *tokens = nullptr;
  ExecutorOptions executor;
};

struct ComparisonResult {
  SmallVector<TensorComparison> outputs;
  /// In the quantized network's order.
  SmallVector<TensorComparison> layers;
  /// Outputs of other than f32 elements, not compared.
  SmallVector<std::string> skippedOutputs;
  /// Why no output got a perplexity although token ids were given.
  std::string perplexityNote;
};

/// Compiles and runs `quantized` and `reference` (when null: `quantized`
/// with its Q/DQ removed, see removeQuantization) on `inputs`, and compares
/// their outputs and, with `options.layers`, the f32 outputs of the layers
/// that both have (by tensor name). Consumes both modules. Fails with a
/// diagnostic when the networks' signatures differ or a run fails.
FailureOr<ComparisonResult>
compareNetworks(OwningOpRef<ModuleOp> quantized,
                OwningOpRef<ModuleOp> reference, ArrayRef<NpyArray> inputs,
                const ComparisonOptions &options);

/// A dB figure with two decimals: "inf" (or "-inf") where there is no
/// error (or no signal), "nan" where it is undefined.
std::string formatDecibels(double db);

/// Writes `result`: one line per output, then the `worstLayers` layers
/// whose own SQNR is lowest, as a table.
void printComparison(llvm::raw_ostream &os, const ComparisonResult &result,
                     unsigned worstLayers);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CALIBRATION_COMPARISON_H
