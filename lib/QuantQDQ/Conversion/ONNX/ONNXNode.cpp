//===- ONNXNode.cpp - a generic op read as its ONNX node ------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Target/ONNX/ONNXAttrNames.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"

#include <cstring>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;
using namespace mlir::quant_qdq::onnx_patterns;

/// Constants read element by element (shapes, scales, clip bounds) are at
/// most this large; weights are never read so.
static constexpr int64_t kMaxParameterElements = 1 << 20;

//===----------------------------------------------------------------------===//
// Inputs and attributes
//===----------------------------------------------------------------------===//

int64_t mlir::quant_qdq::getImportedOpset(Operation *op, StringRef domain) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  auto opsets =
      module ? module->getAttrOfType<DictionaryAttr>(kOpsetImport) : nullptr;
  if (auto version = opsets ? opsets.getAs<IntegerAttr>(
                                  domain.empty() ? StringRef(kDefaultDomain)
                                                 : domain)
                            : nullptr)
    return version.getInt();
  return kDefaultOpsetVersion;
}

int64_t onnx_patterns::getDefaultDomainOpset(Operation *op) {
  return getImportedOpset(op);
}

int64_t ONNXNode::getOpset() const { return getDefaultDomainOpset(op); }

/// The ONNX input positions left out, sorted.
static ArrayRef<int64_t> getOmittedInputs(GenericOp op) {
  auto omitted = op->getAttrOfType<DenseI64ArrayAttr>(kOmittedInputs);
  return omitted ? omitted.asArrayRef() : ArrayRef<int64_t>();
}

/// The number of trailing operands that are subgraph captures.
static unsigned getNumCaptures(GenericOp op) {
  auto captures = op->getAttrOfType<ArrayAttr>(kCaptures);
  return captures ? captures.size() : 0;
}

unsigned ONNXNode::getNumInputs() const {
  return op.getInputs().size() - getNumCaptures(op) +
         getOmittedInputs(op).size();
}

Value ONNXNode::getInput(unsigned index) const {
  if (index >= getNumInputs())
    return {};
  unsigned operand = index;
  for (int64_t omitted : getOmittedInputs(op)) {
    if (omitted == int64_t(index))
      return {};
    if (omitted < int64_t(index))
      --operand;
  }
  return op.getInputs()[operand];
}

bool ONNXNode::onlyFirstOutputUsed() const {
  return llvm::all_of(op.getOutputs().drop_front(),
                      [](Value v) { return v.use_empty(); });
}

Attribute ONNXNode::getAttr(StringRef name) const {
  DictionaryAttr attrs = op.getLayerAttributesAttr();
  return attrs ? attrs.get(name) : Attribute();
}

FailureOr<int64_t> ONNXNode::getInt(StringRef name,
                                    int64_t defaultValue) const {
  Attribute attr = getAttr(name);
  if (!attr)
    return defaultValue;
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value)
    return emitError() << "attribute '" << name << "' must be an integer";
  return value.getInt();
}

FailureOr<float> ONNXNode::getFloat(StringRef name, float defaultValue) const {
  Attribute attr = getAttr(name);
  if (!attr)
    return defaultValue;
  auto value = dyn_cast<FloatAttr>(attr);
  if (!value)
    return emitError() << "attribute '" << name << "' must be a float";
  return float(value.getValueAsDouble());
}

FailureOr<std::string> ONNXNode::getString(StringRef name,
                                           StringRef defaultValue) const {
  Attribute attr = getAttr(name);
  if (!attr)
    return defaultValue.str();
  auto value = dyn_cast<StringAttr>(attr);
  if (!value)
    return emitError() << "attribute '" << name << "' must be a string";
  return value.str();
}

FailureOr<std::optional<SmallVector<int64_t>>>
ONNXNode::getInts(StringRef name) const {
  Attribute attr = getAttr(name);
  if (!attr)
    return std::optional<SmallVector<int64_t>>();
  auto value = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!value)
    return emitError() << "attribute '" << name
                       << "' must be a list of integers";
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(value.asArrayRef()));
}

InFlightDiagnostic ONNXNode::emitError() const {
  InFlightDiagnostic diag = mlir::emitError(op.getLoc());
  diag << "node '" << (op.getName() ? *op.getName() : StringRef()) << "' ("
       << getOpType() << "): ";
  return diag;
}

FailureOr<Value> ONNXNode::createLayer(RewriterBase &rewriter,
                                       StringRef opName, ValueRange operands,
                                       ArrayRef<NamedAttribute> attrs,
                                       Type resultType) const {
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attrs);
  // Layers carry the node name; Q/DQ ops keep it in their location only.
  if (StringAttr name = op.getNameAttr())
    if (std::optional<RegisteredOperationName> info =
            state.name.getRegisteredInfo();
        info && info->hasInterface<QDQLayerOpInterface>())
      state.addAttribute("name", name);
  // A placeholder until inference runs on the created op, whose properties
  // then hold the attributes.
  state.addTypes(resultType ? resultType : NoneType::get(context));
  Operation *created = rewriter.create(state);

  // Shape-function and verifier messages are re-emitted naming the node.
  std::string message;
  LogicalResult ok = success();
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    if (!resultType) {
      SmallVector<Type, 1> types;
      auto infer = dyn_cast<InferTypeOpInterface>(created);
      ok = infer ? infer.inferReturnTypes(
                       context, loc, created->getOperands(),
                       created->getRawDictionaryAttrs(),
                       created->getPropertiesStorage(),
                       created->getRegions(), types)
                 : failure();
      if (succeeded(ok) && types.size() == 1)
        created->getResult(0).setType(types.front());
      else
        ok = failure();
    }
    if (succeeded(ok))
      ok = verify(created, /*verifyRecursively=*/false);
  }
  if (failed(ok)) {
    rewriter.eraseOp(created);
    return emitError() << (message.empty()
                               ? std::string("cannot build ") + opName.str()
                               : message);
  }
  return created->getResult(0);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Calls `fn` with each element's little-endian bytes (`width` bits), for a
/// small constant of static shape; false when `attr` is not one.
static bool forEachElement(ElementsAttr attr, unsigned width,
                           function_ref<void(uint64_t)> fn) {
  auto type = cast<ShapedType>(attr.getType());
  if (!type.hasStaticShape() || type.getNumElements() > kMaxParameterElements)
    return false;
  // A byte per element up to 8 bits (i1 and i4 included), as dense
  // constants store them.
  unsigned size = (width + 7) / 8;
  if (size == 0 || size > 8 || (width > 8 && width % 8 != 0))
    return false;
  uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  int64_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size_t(count) * size)
      return false;
    ArrayRef<char> data = blob->getData();
    for (int64_t i = 0; i < count; ++i) {
      uint64_t raw = 0;
      std::memcpy(&raw, data.data() + i * size, size);
      fn(raw & mask);
    }
    return true;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return false;
  if (isa<IntegerType>(type.getElementType())) {
    for (const APInt &v : dense.getValues<APInt>())
      fn(v.getZExtValue());
    return true;
  }
  for (const APFloat &v : dense.getValues<APFloat>())
    fn(v.bitcastToAPInt().getZExtValue());
  return true;
}

/// The element type of the constant `attr` as T (IntegerType, FloatType),
/// or null.
template <typename T>
static T getElementTypeAs(ElementsAttr attr) {
  return attr ? dyn_cast<T>(cast<ShapedType>(attr.getType()).getElementType())
              : T();
}

std::optional<SmallVector<int64_t>>
mlir::quant_qdq::getConstantInts(Value value) {
  ElementsAttr attr = getConstantAttr(value);
  auto intType = getElementTypeAs<IntegerType>(attr);
  if (!intType)
    return std::nullopt;
  unsigned width = intType.getWidth();
  bool isSigned = !intType.isUnsigned() && width != 1;
  SmallVector<int64_t> ints;
  if (!forEachElement(attr, width, [&](uint64_t raw) {
        llvm::APInt v(width, raw);
        ints.push_back(isSigned ? v.getSExtValue() : int64_t(v.getZExtValue()));
      }))
    return std::nullopt;
  return ints;
}

std::optional<SmallVector<float>>
mlir::quant_qdq::getConstantFloats(Value value) {
  ElementsAttr attr = getConstantAttr(value);
  auto floatType = getElementTypeAs<FloatType>(attr);
  if (!floatType)
    return std::nullopt;
  unsigned width = floatType.getWidth();
  SmallVector<float> floats;
  if (!forEachElement(attr, width, [&](uint64_t raw) {
        llvm::APFloat v(floatType.getFloatSemantics(), llvm::APInt(width, raw));
        bool lost;
        v.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        floats.push_back(v.convertToFloat());
      }))
    return std::nullopt;
  return floats;
}

RankedTensorType onnx_patterns::getFloatTensor(Value v) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return type && isa<FloatType>(type.getElementType()) ? type
                                                       : RankedTensorType();
}

//===----------------------------------------------------------------------===//
// The pattern base
//===----------------------------------------------------------------------===//

ONNXOpPattern::ONNXOpPattern(MLIRContext *context, ArrayRef<StringRef> types,
                             int64_t sinceVersion, int64_t untilVersion,
                             PatternBenefit benefit)
    : OpRewritePattern<GenericOp>(context, benefit),
      sinceVersion(sinceVersion), untilVersion(untilVersion) {
  for (StringRef type : types)
    opTypes.push_back(type.str());
  setDebugName(opTypes.front());
}

LogicalResult ONNXOpPattern::matchAndRewrite(GenericOp op,
                                             PatternRewriter &rewriter) const {
  if (!op.isInDefaultDomain() || !llvm::is_contained(opTypes, op.getOpType()))
    return failure();
  ONNXNode node(op);
  int64_t opset = node.getOpset();
  if (opset < sinceVersion || opset > untilVersion ||
      !node.onlyFirstOutputUsed())
    return failure();
  return convert(node, rewriter);
}
