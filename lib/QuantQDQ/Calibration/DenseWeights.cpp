//===- DenseWeights.cpp - dense layers whose weight a pass rewrites -------===//

#include "DenseWeights.h"
#include "CalibrationData.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/IR/Threading.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

// (Op wrappers' accessors are not const; a copy is a pointer.)
bool QuantizedDenseWeight::hasQuantizedInput() const {
  DenseOp op = dense;
  return isa_and_nonnull<DequantizeOp, FakeQuantOp>(
      op.getInput().getDefiningOp());
}

Operation *QuantizedDenseWeight::getInputQuantizer() const {
  DenseOp op = dense;
  Value input = op.getInput();
  if (auto fake = input.getDefiningOp<FakeQuantOp>())
    return fake;
  if (auto dq = input.getDefiningOp<DequantizeOp>())
    return dq.getInput().getDefiningOp<QuantizeOp>();
  return nullptr;
}

Value QuantizedDenseWeight::getFloatInput() const {
  if (Operation *quantizer = getInputQuantizer())
    return quantizer->getOperand(0);
  DenseOp op = dense;
  return op.getInput();
}

/// The quantizer ops of a symmetric integer weight quantizer on `weight`,
/// or none.
static SmallVector<Operation *> getWeightQuantOps(Value weight,
                                                  QuantizerAttr &quantizer) {
  SmallVector<Operation *> ops;
  if (!weight.hasOneUse())
    return ops;
  if (auto fake = weight.getDefiningOp<FakeQuantOp>()) {
    quantizer = fake.getQuantizer();
    ops.push_back(fake);
  } else if (auto dq = weight.getDefiningOp<DequantizeOp>()) {
    auto q = dq.getInput().getDefiningOp<QuantizeOp>();
    if (!q || !q->hasOneUse())
      return {};
    quantizer = q.getQuantizer();
    ops.push_back(q);
    llvm::append_range(ops, q->getUsers());
  }
  if (ops.empty() || quantizer.isFloatStorage() || !quantizer.getSymmetric() ||
      !quantizer.getIsSigned())
    return {};
  return ops;
}

std::optional<QuantizedDenseWeight>
mlir::quant_qdq::matchQuantizedDenseWeight(DenseOp dense) {
  QuantizedDenseWeight layer;
  layer.dense = dense;
  layer.quantOps = getWeightQuantOps(dense.getWeight(), layer.quantizer);
  if (layer.quantOps.empty())
    return std::nullopt;
  layer.weight =
      layer.quantOps.front()->getOperand(0).getDefiningOp<arith::ConstantOp>();
  if (!layer.weight || !dense.getInput().getType().getElementType().isF32())
    return std::nullopt;
  auto weightType = cast<RankedTensorType>(layer.weight.getType());
  if (!weightType.hasStaticShape() || weightType.getRank() != 2)
    return std::nullopt;
  // From the weight: an input whose last size shape inference left dynamic
  // (attention's output, reshaped from computed sizes) has k channels too.
  layer.transposed = dense.getTransposeWeight();
  layer.k = weightType.getDimSize(layer.transposed ? 1 : 0);
  layer.n = weightType.getDimSize(layer.transposed ? 0 : 1);
  layer.shape.assign(weightType.getShape().begin(),
                     weightType.getShape().end());
  return layer;
}

void mlir::quant_qdq::fakeQuantizeWeight(const QuantizedDenseWeight &layer,
                                         MutableArrayRef<float> weight) {
  QuantizerAttr q = layer.quantizer;
  SmallVector<float> scales = computeWeightScales(weight, layer.getShape(), q);
  float qmin = float(q.getQMin()), qmax = float(q.getQMax());
  for (const ScaleRun &run : getScaleRuns(q, layer.getShape()))
    for (int64_t i = 0; i < run.length; ++i) {
      float scale = scales[run.scale + i * run.scaleStride];
      float &w = weight[run.begin + i];
      w = std::clamp(std::nearbyint(w / scale), qmin, qmax) * scale;
    }
}

std::vector<float>
mlir::quant_qdq::multiplyRows(const QuantizedDenseWeight &layer,
                              ArrayRef<float> rows, ArrayRef<float> w,
                              MLIRContext *context) {
  int64_t k = layer.k, n = layer.n;
  int64_t count = int64_t(rows.size()) / k;
  std::vector<float> y(count * n, 0.0f);
  // Contiguous inner loops in either layout.
  parallelFor(context, 0, count, [&](size_t r) {
    const float *x = &rows[r * k];
    float *out = &y[r * n];
    if (layer.transposed) {
      for (int64_t j = 0; j < n; ++j) {
        const float *column = &w[j * k];
        float sum = 0;
        for (int64_t i = 0; i < k; ++i)
          sum += x[i] * column[i];
        out[j] = sum;
      }
      return;
    }
    for (int64_t i = 0; i < k; ++i) {
      const float *row = &w[i * n];
      for (int64_t j = 0; j < n; ++j)
        out[j] += x[i] * row[j];
    }
  });
  return y;
}

Value mlir::quant_qdq::divideInput(OpBuilder &builder, Operation *before,
                                   Value input, ArrayRef<float> scales,
                                   StringRef name) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(before);
  SmallVector<float> inverse;
  for (float s : scales)
    inverse.push_back(1.0f / s);
  MLIRContext *context = builder.getContext();
  Location loc = before->getLoc();
  auto divisor = arith::ConstantOp::create(
      builder, NameLoc::get(StringAttr::get(context, name + "_divisor"), loc),
      DenseElementsAttr::get(RankedTensorType::get({int64_t(inverse.size())},
                                                   builder.getF32Type()),
                             ArrayRef<float>(inverse)));
  return MultiplyOp::create(builder, loc, input.getType(),
                            ValueRange{input, divisor},
                            builder.getStringAttr(name))
      .getResult();
}

SmallVector<double> mlir::quant_qdq::getAlphaGrid(double step) {
  SmallVector<double> grid;
  for (int64_t i = 0; double(i) * step < 1.0 - 1e-9; ++i)
    grid.push_back(double(i) * step);
  grid.push_back(1.0);
  return grid;
}

LogicalResult mlir::quant_qdq::checkAlphaSearch(Location loc, StringRef pass,
                                                double step, int64_t rows) {
  if (step >= 1e-3 && step <= 1 && rows >= 1)
    return success();
  return emitError(loc) << pass
                        << ": alpha-step must be in [0.001, 1] and rows "
                           "positive";
}

LogicalResult mlir::quant_qdq::writeReport(StringRef path, StringRef text,
                                           Location loc, StringRef what) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << "cannot write the " << what
                          << " report: " << error;
  file->os() << text;
  file->keep();
  return success();
}

LogicalResult mlir::quant_qdq::observeTensors(
    ModuleOp module, func::FuncOp function, ArrayRef<std::string> data,
    int64_t batchSize,
    function_ref<SmallVector<Value>(func::FuncOp)> findTensors,
    function_ref<void(size_t, const NpyArray &)> consume) {
  Location loc = module.getLoc();
  FailureOr<CalibrationData> samples =
      CalibrationData::load(data, function, loc);
  if (failed(samples))
    return failure();
  ExecutorsByShape executors([&](ModuleOp copy) {
    auto func = copy.lookupSymbol<func::FuncOp>(function.getName());
    makeObservingFunction(func, findTensors(func), /*rangesOnly=*/false);
  });
  unsigned numResults = function.getNumResults();
  return samples->forEachBatch(
      batchSize, loc,
      [&](MutableArrayRef<NpyArray> inputs, int64_t) -> LogicalResult {
        JITExecutor *executor =
            executors.get(module, function.getName(), inputs);
        if (!executor)
          return failure();
        SmallVector<NpyArray> outputs;
        if (llvm::Error error = executor->run(inputs, outputs))
          return emitError(loc) << llvm::toString(std::move(error));
        for (size_t i = numResults; i < outputs.size(); ++i)
          consume(i - numResults, outputs[i]);
        return success();
      });
}

void mlir::quant_qdq::replaceWeight(QuantizedDenseWeight &layer,
                                    ArrayRef<float> values, StringRef suffix,
                                    std::optional<ArrayRef<float>> scales) {
  auto type = cast<RankedTensorType>(layer.weight.getType());
  std::string name = getLocationName(layer.weight.getLoc()).str();
  if (name.empty())
    name = (layer.dense.getLayerName() + "_weight").str();
  name += suffix;
  OpBuilder b(layer.weight);
  arith::ConstantOp weight =
      createFloatResourceConstant(b, layer.weight.getLoc(), type, values, name);
  layer.quantOps.front()->setOperand(0, weight);
  if (layer.weight->use_empty())
    layer.weight->erase();
  layer.weight = weight;

  if (scales) {
    for (Operation *op : layer.quantOps)
      op->setAttr("scale", b.getDenseF32ArrayAttr(*scales));
    return;
  }
  FailureOr<SmallVector<float>> computed = computeWeightScales(
      cast<ElementsAttr>(weight.getValue()), layer.quantizer);
  for (Operation *op : layer.quantOps)
    if (op->hasAttr("scale") && succeeded(computed))
      op->setAttr("scale", b.getDenseF32ArrayAttr(*computed));
}
