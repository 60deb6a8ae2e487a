//===- QuantizationSites.cpp - where a network quantizes, and how ---------===//

#include "QuantizationSites.h"

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

/// The layers reading `outputs`, looking through pass-through layers (a
/// max pool or a reshape after the Q/DQ reads it for the layer behind), in
/// program order (`order`: each op's position in a walk of the function).
static SmallVector<Operation *>
findReadingLayers(ArrayRef<Value> outputs,
                  const DenseMap<Operation *, unsigned> &order) {
  llvm::SetVector<Operation *> layers;
  SmallVector<Value> work(outputs.begin(), outputs.end());
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      auto layer = dyn_cast<QDQLayerOpInterface>(user);
      if (!layer || !visited.insert(user).second)
        continue;
      if (layer.isPassThrough())
        llvm::append_range(work, user->getResults());
      else
        layers.insert(user);
    }
  }
  SmallVector<Operation *> sorted(layers.begin(), layers.end());
  llvm::sort(sorted, [&](Operation *a, Operation *b) {
    return order.lookup(a) < order.lookup(b);
  });
  return sorted;
}

template <typename OpT> static SiteQuantizer getSiteQuantizer(OpT op) {
  return {op.getQuantizer(), op.getScaleAttr(), op.getZeroPointAttr()};
}

std::vector<QuantizationSite>
mlir::quant_qdq::collectQuantizationSites(func::FuncOp func) {
  nameTensors(func);
  DenseMap<Operation *, unsigned> order;
  func.walk([&](Operation *op) { order[op] = order.size(); });
  std::vector<QuantizationSite> sites;
  func.walk([&](Operation *op) {
    QuantizationSite site;
    if (auto fake = dyn_cast<FakeQuantOp>(op)) {
      site.input = fake.getInput();
      site.outputs.push_back(fake.getOutput());
      site.ops.push_back(fake);
      site.current = getSiteQuantizer(fake);
    } else if (auto quantize = dyn_cast<QuantizeOp>(op)) {
      // Each dequantize must undo this quantize exactly, back to its input's
      // type: then float is the input itself.
      auto undoes = [&](Operation *user) {
        auto dequantize = dyn_cast<DequantizeOp>(user);
        return dequantize &&
               dequantize.getType() == quantize.getInput().getType() &&
               dequantize.getQuantizer() == quantize.getQuantizer() &&
               dequantize.getScaleAttr() == quantize.getScaleAttr() &&
               dequantize.getZeroPointAttr() == quantize.getZeroPointAttr();
      };
      if (quantize->use_empty() || !llvm::all_of(quantize->getUsers(), undoes))
        return;
      site.input = quantize.getInput();
      site.ops.push_back(quantize);
      for (Operation *user : quantize->getUsers()) {
        site.outputs.push_back(user->getResult(0));
        site.ops.push_back(user);
      }
      site.current = getSiteQuantizer(quantize);
    } else {
      return;
    }
    site.isWeight = matchPattern(site.input, m_Constant());
    // A weight is named after its initializer (its location), as in
    // LayerGraph and export.
    if (site.isWeight)
      site.name = getLocationName(site.input.getLoc()).str();
    if (site.name.empty())
      site.name = getTensorName(site.input).str();
    if (site.name.empty())
      site.name = getTensorName(op->getResult(0)).str();
    site.layers = findReadingLayers(site.outputs, order);
    for (Operation *layer : site.layers)
      site.multiplyAccumulates +=
          cast<QDQLayerOpInterface>(layer).getMultiplyAccumulates();
    sites.push_back(std::move(site));
  });
  return sites;
}

LogicalResult
mlir::quant_qdq::checkSitesCalibrated(ArrayRef<QuantizationSite> sites,
                                      StringRef pass) {
  for (const QuantizationSite &site : sites)
    if (!site.current.scale)
      return site.ops.front()->emitError()
             << pass << " needs a calibrated network: '" << site.name
             << "' has no scale (run calibrate first)";
  return success();
}

std::string mlir::quant_qdq::describeSiteLayers(const QuantizationSite &site) {
  if (site.layers.empty())
    return site.name;
  return llvm::join(
      llvm::map_range(site.layers,
                      [](Operation *op) -> std::string {
                        StringRef name =
                            cast<QDQLayerOpInterface>(op).getLayerName();
                        return name.empty() ? op->getName().getStringRef().str()
                                            : name.str();
                      }),
      ",");
}

FailureOr<SmallVector<SiteFormat>>
mlir::quant_qdq::parseSiteFormats(ArrayRef<std::string> names, StringRef option,
                                  Location loc) {
  SmallVector<SiteFormat> formats;
  for (const std::string &name : names) {
    SiteFormat format;
    format.name = name;
    if (name != "float") {
      format.quantizer = lookupQuantizerFormat(name);
      if (!format.quantizer)
        return emitError(loc) << option << ": unknown format '" << name
                              << "': expected int4, int8, int16, fp8 or float";
      format.bits = format.quantizer->bits;
    }
    if (llvm::any_of(formats, [&](const SiteFormat &other) {
          return other.name == name;
        }))
      return emitError(loc) << option << " names '" << name << "' twice";
    formats.push_back(std::move(format));
  }
  if (formats.empty())
    return emitError(loc) << option << " needs at least one format";
  return formats;
}

/// `q` storing `format`: see reformatSite.
static QuantizerAttr reformatQuantizer(QuantizerAttr q,
                                       const QuantizerFormat &format,
                                       bool isWeight) {
  bool fp8 = format.storage != StorageFormat::Int;
  // A weight in another format is symmetric and signed, as insert-qdq
  // places weights: computeWeightScales gives no zero points.
  bool isSigned = fp8 || isWeight || q.getIsSigned();
  bool symmetric = fp8 || isWeight || q.getSymmetric();
  bool narrow = q.getNarrowRange();
  if (!fp8 && isWeight && format.bits == 4 && isSigned && symmetric)
    narrow = false;
  if (fp8)
    narrow = true;
  return QuantizerAttr::get(q.getContext(), format.bits, isSigned, narrow,
                            symmetric, q.getAxis(), q.getCalibration(),
                            q.getBlockSize(), format.storage);
}

FailureOr<SiteQuantizer>
mlir::quant_qdq::reformatSite(const QuantizationSite &site,
                              const SiteFormat &format) {
  assert(format.quantizer && "float is no quantizer");
  MLIRContext *context = site.input.getContext();
  QuantizerAttr q = site.current.quantizer;
  // The site's own format stays as calibrated.
  if (q.getBits() == format.quantizer->bits &&
      q.getStorage() == format.quantizer->storage)
    return site.current;
  QuantizerAttr target = reformatQuantizer(q, *format.quantizer, site.isWeight);
  SiteQuantizer result;
  result.quantizer = target;
  if (site.isWeight) {
    Attribute value;
    matchPattern(site.input, m_Constant(&value));
    FailureOr<SmallVector<float>> scales =
        computeWeightScales(cast<ElementsAttr>(value), target);
    if (failed(scales))
      return failure();
    result.scale = DenseF32ArrayAttr::get(context, *scales);
    return result;
  }
  if (!site.current.scale)
    return failure();
  // The range each slice's scale and zero point cover now, on the new grid.
  ArrayRef<float> scales = site.current.scale.asArrayRef();
  SmallVector<float> newScales;
  SmallVector<int32_t> newZeroPoints;
  for (unsigned i = 0; i < scales.size(); ++i) {
    int32_t zp = 0;
    if (site.current.zeroPoint)
      zp = site.current.zeroPoint
               .asArrayRef()[site.current.zeroPoint.size() == 1 ? 0 : i];
    double lo = double(q.getQMin() - zp) * scales[i];
    double hi = double(q.getQMax() - zp) * scales[i];
    double amax = std::max(std::abs(lo), std::abs(hi));
    if (q.getSymmetric() && q.getIsSigned())
      lo = -amax, hi = amax;
    QuantParams params = computeActivationParams(target, lo, hi, amax);
    newScales.push_back(params.scale);
    newZeroPoints.push_back(params.zeroPoint);
  }
  result.scale = DenseF32ArrayAttr::get(context, newScales);
  if (llvm::any_of(newZeroPoints, [](int32_t zp) { return zp != 0; }))
    result.zeroPoint = DenseI32ArrayAttr::get(context, newZeroPoints);
  return result;
}

/// dequantize(quantize(x)) with `quantizer`, at the builder's point.
static Value buildFakeQuantization(OpBuilder &builder, Location loc, Value x,
                                   const SiteQuantizer &quantizer) {
  auto type = cast<RankedTensorType>(x.getType());
  auto quantize = QuantizeOp::create(
      builder, loc, type.clone(quantizer.quantizer.getStorageType()), x,
      quantizer.quantizer, quantizer.scale, quantizer.zeroPoint);
  return DequantizeOp::create(builder, loc, type, quantize, quantizer.quantizer,
                              quantizer.scale, quantizer.zeroPoint);
}

/// Replaces every use of the site's outputs with `value`, and erases the
/// site's ops.
static void replaceSite(QuantizationSite &site, Value value) {
  for (Value output : site.outputs)
    output.replaceAllUsesWith(value);
  for (Operation *op : llvm::reverse(site.ops))
    op->erase();
  site.ops.clear();
  site.outputs.assign({value});
}

void mlir::quant_qdq::makeSwitchable(
    func::FuncOp func, ArrayRef<QuantizationSite> sites,
    ArrayRef<SmallVector<SiteQuantizer>> alternatives) {
  MLIRContext *context = func.getContext();
  OpBuilder builder(context);
  Block &body = func.getBody().front();
  auto choiceType = RankedTensorType::get({int64_t(sites.size())},
                                          IntegerType::get(context, 32));
  Value choice = body.addArgument(choiceType, func.getLoc());
  // Last site first: a site may quantize an earlier one's output, which
  // the earlier one's rewrite then replaces in the later one's new ops too.
  for (int64_t i = int64_t(sites.size()) - 1; i >= 0; --i) {
    QuantizationSite site = sites[i];
    Location loc = site.ops.front()->getLoc();
    builder.setInsertionPoint(site.ops.front());
    Value position = arith::ConstantIndexOp::create(builder, loc, i);
    Value picked = tensor::ExtractOp::create(builder, loc, choice, position);
    Value selected = site.input;
    for (auto [k, quantizer] : llvm::enumerate(alternatives[i])) {
      Value computed =
          buildFakeQuantization(builder, loc, site.input, quantizer);
      Value code = arith::ConstantIntOp::create(builder, loc, k + 1, 32);
      Value isPicked = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, picked, code);
      selected =
          arith::SelectOp::create(builder, loc, isPicked, computed, selected);
    }
    replaceSite(site, selected);
  }
  func.setType(FunctionType::get(context, body.getArgumentTypes(),
                                 func.getResultTypes()));
}

void mlir::quant_qdq::setSiteQuantizer(QuantizationSite &site,
                                       std::optional<SiteQuantizer> quantizer) {
  if (!quantizer) {
    replaceSite(site, site.input);
    return;
  }
  OpBuilder builder(site.ops.front());
  Location loc = site.ops.front()->getLoc();
  Value computed = buildFakeQuantization(builder, loc, site.input, *quantizer);
  SmallVector<Operation *> created = {
      computed.getDefiningOp()->getOperand(0).getDefiningOp(),
      computed.getDefiningOp()};
  replaceSite(site, computed);
  site.ops = created;
  site.current = *quantizer;
}
