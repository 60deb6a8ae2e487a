//===- NodeTypeInference.cpp - ONNX's type inference on one generic op ----===//
//
// Execution specializes a model to the shapes of its inputs. Layer ops infer
// their own result types; a quant_qdq.generic is an ONNX node, and ONNX's
// schemas carry the inference function for every node type, so the node is
// rebuilt as a NodeProto (no weights: only small constant operands, which
// are what the functions read) and its schema's function answers.
//
//===----------------------------------------------------------------------===//

#include "ONNXCommon.h"
#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// Constant operands up to this many elements are handed to inference: the
/// shape, axes and index vectors inference reads, never weights.
static constexpr int64_t kMaxInferenceData = 1 << 16;

/// `type` as a TypeProto; false when ONNX has no such tensor type.
static bool exportType(Type type, onnx::TypeProto &proto) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return false;
  int32_t element = getONNXElementType(ranked.getElementType());
  if (!element)
    return false;
  auto &tensor = *proto.mutable_tensor_type();
  tensor.set_elem_type(element);
  auto &shape = *tensor.mutable_shape();
  for (int64_t d : ranked.getShape()) {
    auto &dim = *shape.add_dim();
    if (!ShapedType::isDynamic(d))
      dim.set_dim_value(d);
  }
  return true;
}

/// The more precise of `inferred` and `present`, or null when the two
/// disagree on a static dimension or the element type.
static Type joinTypes(MLIRContext *context, const onnx::TypeProto &inferred,
                      Type present) {
  auto presentRanked = dyn_cast<RankedTensorType>(present);
  if (!inferred.has_tensor_type() || !inferred.tensor_type().has_shape())
    return present;
  const auto &tensor = inferred.tensor_type();
  Type element = getElementTypeOrSelf(present);
  if (tensor.elem_type() != 0) {
    Type inferredElement = getElementType(context, tensor.elem_type());
    // Integers of one width are one MLIR type for ONNX's signed and
    // unsigned kinds (uint8 storage is signless i8).
    bool sameInteger = inferredElement && inferredElement.isInteger() &&
                       element.isInteger() &&
                       inferredElement.getIntOrFloatBitWidth() ==
                           element.getIntOrFloatBitWidth();
    if (inferredElement != element && !sameInteger)
      return {};
  }
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim())
    shape.push_back(dim.has_dim_value() ? dim.dim_value()
                                        : ShapedType::kDynamic);
  if (presentRanked) {
    if (presentRanked.getRank() != int64_t(shape.size()))
      return {};
    for (auto [d, p] : llvm::zip(shape, presentRanked.getShape())) {
      if (ShapedType::isDynamic(d))
        d = p;
      else if (!ShapedType::isDynamic(p) && p != d)
        return {};
    }
  }
  return RankedTensorType::get(shape, element);
}

/// The inferred type as MLIR would print it, for errors: its shape and
/// element type where ONNX gives them (an element type MLIR has none for
/// by its ONNX code).
static std::string describeInferred(MLIRContext *context,
                                    const onnx::TypeProto &inferred) {
  if (!inferred.has_tensor_type())
    return "a non-tensor type";
  const auto &tensor = inferred.tensor_type();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tensor<";
  if (!tensor.has_shape())
    os << "*x";
  else
    for (const auto &dim : tensor.shape().dim())
      os << (dim.has_dim_value() ? std::to_string(dim.dim_value()) : "?")
         << "x";
  if (Type element = tensor.elem_type() != 0
                         ? getElementType(context, tensor.elem_type())
                         : Type())
    os << element;
  else
    os << "(ONNX element type " << tensor.elem_type() << ")";
  os << ">";
  return text;
}

/// An error that names the node: an imported node's location prints as the
/// model file alone.
static InFlightDiagnostic emitNodeError(GenericOp op) {
  InFlightDiagnostic diag = op.emitError("cannot infer the result types of ");
  diag << "node '" << (op.getName() ? *op.getName() : StringRef()) << "' ("
       << op.getOpType() << "): ";
  return diag;
}

/// Einsum's result shape from its equation; the ONNX library Debian ships
/// (1.12) infers only the rank. Null where the equation is not the explicit
/// or implicit form without '...', or sizes are unknown.
static Type inferEinsumType(GenericOp op, Type present) {
  auto presentType = dyn_cast<RankedTensorType>(present);
  DictionaryAttr attrs = op.getLayerAttributesAttr();
  auto equation = attrs ? attrs.getAs<StringAttr>("equation") : StringAttr();
  if (!presentType || !equation || equation.getValue().contains("..."))
    return {};
  std::string compact;
  for (char ch : equation.getValue())
    if (ch != ' ')
      compact.push_back(ch);
  auto [lhs, rhs] = StringRef(compact).split("->");
  std::string out = rhs.str();
  if (!StringRef(compact).contains("->"))
    for (char ch = 'A'; ch <= 'z'; ++ch)
      if (llvm::count(lhs, ch) == 1)
        out.push_back(ch);
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != op.getInputs().size())
    return {};
  SmallVector<int64_t> shape;
  for (char ch : out) {
    int64_t size = ShapedType::kDynamic;
    for (auto [term, input] : llvm::zip(terms, op.getInputs())) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      size_t at = term.find(ch);
      if (type && at != StringRef::npos && int64_t(term.size()) == type.getRank())
        size = type.getDimSize(at);
    }
    shape.push_back(size);
  }
  if (int64_t(shape.size()) != presentType.getRank())
    return {};
  return RankedTensorType::get(shape, presentType.getElementType());
}

/// The entries of a 1-D shape vector that are known: constants, and the
/// constant pieces of a Concat of pieces (how exporters build a target shape
/// around a dynamic batch); kDynamic where unknown. Empty when `shape` is not
/// a 1-D vector of static length.
static SmallVector<int64_t> getKnownShapeEntries(Value shape) {
  auto type = dyn_cast<RankedTensorType>(shape.getType());
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return {};
  if (std::optional<SmallVector<int64_t>> values = getConstantInts(shape))
    return *values;
  SmallVector<int64_t> entries(type.getDimSize(0), ShapedType::kDynamic);
  auto concat = shape.getDefiningOp<GenericOp>();
  if (!concat || !concat.isDefaultDomainNode("Concat"))
    return entries;
  SmallVector<int64_t> pieces;
  for (Value piece : concat.getInputs()) {
    auto pieceType = dyn_cast<RankedTensorType>(piece.getType());
    if (!pieceType || pieceType.getRank() != 1 || pieceType.isDynamicDim(0))
      return entries;
    std::optional<SmallVector<int64_t>> values = getConstantInts(piece);
    if (values)
      llvm::append_range(pieces, *values);
    else
      pieces.append(pieceType.getDimSize(0), ShapedType::kDynamic);
  }
  return pieces.size() == entries.size() ? pieces : entries;
}

/// Reshape's result when its target shape is computed (Shape, Gather,
/// Concat around a dynamic batch): the ONNX library Debian ships (1.12)
/// then infers nothing, though the target's length is the rank. Known
/// positive entries are sizes, a 0 copies the input's size (unless
/// `allowzero`); the rest stay dynamic. Null where the target's length is
/// unknown.
static Type inferReshapeType(GenericOp op, Type present) {
  if (isa<RankedTensorType>(present) || op.getInputs().size() != 2)
    return {};
  SmallVector<int64_t> shape = getKnownShapeEntries(op.getInputs()[1]);
  if (shape.empty())
    return {};
  DictionaryAttr attrs = op.getLayerAttributesAttr();
  auto allowZero = attrs ? attrs.getAs<IntegerAttr>("allowzero") : nullptr;
  auto input = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 0 && !(allowZero && allowZero.getInt()))
      d = input && int64_t(i) < input.getRank() ? input.getDimSize(i)
                                                : ShapedType::kDynamic;
    else if (d < 0)
      d = ShapedType::kDynamic;
  }
  return RankedTensorType::get(shape, getElementTypeOrSelf(present));
}

/// Slice's result when its starts or ends are computed: the library infers
/// nothing, though the rank is the input's and only the sliced axes (all
/// of them when `axes` is not a constant) change size.
static Type inferSliceType(GenericOp op, Type present) {
  auto input = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  if (isa<RankedTensorType>(present) || !input)
    return {};
  SmallVector<int64_t> shape(input.getShape());
  auto omitted = op->getAttrOfType<DenseI64ArrayAttr>(kOmittedInputs);
  bool hasAxes = op.getInputs().size() >= 4 &&
                 !(omitted && llvm::is_contained(omitted.asArrayRef(), 3));
  std::optional<SmallVector<int64_t>> axes =
      hasAxes ? getConstantInts(op.getInputs()[3]) : std::nullopt;
  if (!axes) {
    if (hasAxes)
      return RankedTensorType::get(
          SmallVector<int64_t>(input.getRank(), ShapedType::kDynamic),
          input.getElementType());
    auto starts = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
    if (!starts || starts.getRank() != 1 || starts.isDynamicDim(0))
      return {};
    axes.emplace();
    for (int64_t i = 0; i < starts.getDimSize(0); ++i)
      axes->push_back(i);
  }
  for (int64_t axis : *axes) {
    if (axis < -input.getRank() || axis >= input.getRank())
      return {};
    shape[axis < 0 ? axis + input.getRank() : axis] = ShapedType::kDynamic;
  }
  return RankedTensorType::get(shape, input.getElementType());
}

FailureOr<SmallVector<Type>> mlir::quant_qdq::inferONNXNodeTypes(GenericOp op) {
  if (op->hasAttr(kCaptures) || op->getNumRegions() != 0)
    return emitNodeError(op) << "it reads an outer tensor from a subgraph";
  StringRef domain = op.getDomain() ? *op.getDomain() : StringRef();
  int64_t opset = getImportedOpset(op, domain);

  onnx::NodeProto node;
  node.set_op_type(op.getOpType().str());
  if (!domain.empty())
    node.set_domain(domain.str());
  auto omittedIn = op->getAttrOfType<DenseI64ArrayAttr>(kOmittedInputs);
  std::vector<onnx::TypeProto> types(op.getInputs().size());
  std::vector<onnx::TensorProto> data(op.getInputs().size());
  SmallVector<onnx::TypeProto *> typeBySlot;
  SmallVector<const onnx::TensorProto *> dataBySlot;
  unsigned next = 0;
  for (int64_t slot = 0; next < op.getInputs().size(); ++slot) {
    if (omittedIn && llvm::is_contained(omittedIn.asArrayRef(), slot)) {
      node.add_input("");
      typeBySlot.push_back(nullptr);
      dataBySlot.push_back(nullptr);
      continue;
    }
    unsigned index = next++;
    Value input = op.getInputs()[index];
    node.add_input("input_" + std::to_string(slot));
    typeBySlot.push_back(exportType(input.getType(), types[index])
                             ? &types[index]
                             : nullptr);
    ElementsAttr value;
    const onnx::TensorProto *known = nullptr;
    if (matchPattern(input, m_Constant(&value)) &&
        value.getNumElements() <= kMaxInferenceData &&
        succeeded(exportTensor(value, data[index], op.getLoc())))
      known = &data[index];
    dataBySlot.push_back(known);
  }
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    node.add_output("output_" + std::to_string(i));
  if (DictionaryAttr attrs = op.getLayerAttributesAttr())
    for (NamedAttribute attr : attrs) {
      int schemaType = getSchemaAttributeType(op.getOpType(), domain, opset,
                                              attr.getName().getValue());
      if (failed(exportAttribute(attr.getName().getValue(), attr.getValue(),
                                 *node.add_attribute(), op.getLoc(),
                                 schemaType)))
        return failure();
    }

  std::vector<onnx::TypeProto> inferred;
  std::string error =
      inferNodeTypesIsolated(node, opset, typeBySlot, dataBySlot, inferred);
  if (!error.empty())
    return emitNodeError(op) << error;
  SmallVector<Type> results;
  for (OpResult result : op->getResults()) {
    unsigned i = result.getResultNumber();
    Type type = i < inferred.size()
                    ? joinTypes(op.getContext(), inferred[i], result.getType())
                    : result.getType();
    if (!type)
      return emitNodeError(op)
             << "ONNX infers result #" << i << " to be "
             << describeInferred(op.getContext(), inferred[i])
             << ", which contradicts its present type " << result.getType();
    if (op.isDefaultDomainNode("Einsum"))
      if (Type einsum = inferEinsumType(op, type))
        type = einsum;
    if (op.isDefaultDomainNode("Reshape"))
      if (Type reshape = inferReshapeType(op, type))
        type = reshape;
    if (op.isDefaultDomainNode("Slice") && op.getInputs().size() >= 3)
      if (Type slice = inferSliceType(op, type))
        type = slice;
    results.push_back(type);
  }
  return results;
}
