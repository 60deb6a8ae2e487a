//===- DenseWeights.h - dense layers a pass rewrites ------------*- C++ -*-===//
//
// What the passes that rewrite quantized dense layers from calibration data
// (qdq-awq, qdq-gptq, qdq-smooth) share: the layers they may change, a run
// of the float network that hands them the layers' inputs, the new weight
// constant with the scales its quantizer ops take, the multiply that
// divides an input by per-channel scales, and their reports.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_DENSEWEIGHTS_H
#define QUANTQDQ_LIB_CALIBRATION_DENSEWEIGHTS_H

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::quant_qdq {

struct NpyArray;

/// A dense layer (MatMul, Gemm) whose weight is a float constant of its
/// own under a symmetric signed integer quantizer, and whose input is f32.
struct QuantizedDenseWeight {
  DenseOp dense;
  arith::ConstantOp weight;
  /// The ops that quantize the weight (quantize and its dequantizes, or a
  /// fake_quant): they take the new weight's scales.
  SmallVector<Operation *> quantOps;
  QuantizerAttr quantizer;
  /// The weight is stored [k x n], or [n x k] when transposed.
  int64_t k = 0, n = 0;
  bool transposed = false;
  /// The stored shape.
  SmallVector<int64_t, 2> shape;

  ArrayRef<int64_t> getShape() const { return shape; }
  /// The input channel (row of W) of element `e` of the stored weight.
  int64_t getInputChannel(size_t e) const {
    return transposed ? int64_t(e) % k : int64_t(e) / n;
  }
  /// The output channel (column of W) of element `e` of the stored weight.
  int64_t getOutputChannel(size_t e) const {
    return transposed ? int64_t(e) / k : int64_t(e) % n;
  }
  /// The stored element of input channel `i`, output channel `j`.
  size_t getElement(int64_t i, int64_t j) const {
    return transposed ? size_t(j * k + i) : size_t(i * n + j);
  }
  /// Whether the layer's input is quantized (W8A8 rather than weight-only).
  bool hasQuantizedInput() const;
  /// The quantize or fake_quant op that quantizes the layer's input, or
  /// null.
  Operation *getInputQuantizer() const;
  /// The layer's input before its quantization, if any: what the float
  /// network computes there.
  Value getFloatInput() const;
};

/// `dense` as a layer whose quantized weight can be rewritten, or nothing.
/// The quantized weight must be this layer's alone: changing one that
/// another layer also reads (shared layers, ALBERT) would change that layer
/// too. (A float constant others read stays: the new weight is a new
/// constant.)
std::optional<QuantizedDenseWeight> matchQuantizedDenseWeight(DenseOp dense);

/// Fake-quantizes `weight` (`layer`'s stored layout) in place with the
/// layer's quantizer and the scales export would give it
/// (computeWeightScales): plain rounding to nearest.
void fakeQuantizeWeight(const QuantizedDenseWeight &layer,
                        MutableArrayRef<float> weight);

/// rows . w ([rows x n]) for input rows ([rows x k], row-major) and `w` in
/// `layer`'s stored layout, on the context's threads.
std::vector<float> multiplyRows(const QuantizedDenseWeight &layer,
                                ArrayRef<float> rows, ArrayRef<float> w,
                                MLIRContext *context);

/// `input` times 1 / scales along its last dimension: a multiply (ONNX
/// Mul) named `name` before `before`, of a constant named `name`_divisor.
Value divideInput(OpBuilder &builder, Operation *before, Value input,
                  ArrayRef<float> scales, StringRef name);

/// The migration strengths a search tries: 0, step, 2 step, ... and 1.
SmallVector<double> getAlphaGrid(double step);
/// Checks a migration-strength search's settings: a step in [0.001, 1] (a
/// thousand and one tries at most) and a positive number of rows; the
/// error at `loc` names `pass`.
LogicalResult checkAlphaSearch(Location loc, StringRef pass, double step,
                               int64_t rows);

/// Writes a pass's report `text` to `path` ('-': stdout); errors at `loc`
/// name the `what`.
LogicalResult writeReport(StringRef path, StringRef text, Location loc,
                          StringRef what);

/// Runs the float version of `function` on the calibration files `data`
/// (CalibrationData's batches; short batches run as they are, so that no
/// sample counts twice) and calls `consume(i, values)` with each batch's
/// values of the i-th tensor `findTensors` returns. `findTensors` must find
/// the same tensors, in the same order, in `function` and in its clones.
LogicalResult
observeTensors(ModuleOp module, func::FuncOp function,
               ArrayRef<std::string> data, int64_t batchSize,
               function_ref<SmallVector<Value>(func::FuncOp)> findTensors,
               function_ref<void(size_t, const NpyArray &)> consume);

/// Gives `layer` a new weight constant holding `values` (stored layout),
/// named after the old one with `suffix`. Its quantizer ops take `scales`
/// when given; otherwise the scales of the new values, on the ops that
/// had scales (an uncalibrated pair stays uncalibrated).
void replaceWeight(QuantizedDenseWeight &layer, ArrayRef<float> values,
                   StringRef suffix,
                   std::optional<ArrayRef<float>> scales = std::nullopt);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_DENSEWEIGHTS_H
