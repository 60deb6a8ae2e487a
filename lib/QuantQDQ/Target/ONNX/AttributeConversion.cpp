//===- AttributeConversion.cpp - ONNX node attributes <-> MLIR ------------===//
//
// A node that no layer op models keeps its attributes in the generic op's
// `layer_attributes` dictionary, in a form that export turns back into the
// same AttributeProto:
//
//   INT -> i64, FLOAT -> f32, STRING -> string, TENSOR -> elements,
//   INTS -> array<i64>, FLOATS -> array<f32>, STRINGS -> [strings],
//   TENSORS -> [elements], GRAPH / SPARSE_TENSOR / TYPE_PROTO ->
//   {onnx.graph = "<serialized proto>"} (and the like), GRAPHS -> [those],
//   a reference to a function attribute -> {onnx.ref_attr_name = ...}.
//
//===----------------------------------------------------------------------===//

#include "ONNXCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;
using onnx::AttributeProto;

/// Wraps a serialized proto in a one-entry dictionary keyed by its kind.
template <typename Proto>
static Attribute wrapProto(MLIRContext *ctx, StringRef key,
                           const Proto &proto) {
  std::string bytes;
  proto.SerializeToString(&bytes);
  return DictionaryAttr::get(
      ctx,
      {NamedAttribute(StringAttr::get(ctx, key), StringAttr::get(ctx, bytes))});
}

FailureOr<Attribute> onnx_io::importAttribute(AttributeProto &attr,
                                              Location loc,
                                              StringRef resourcePrefix) {
  MLIRContext *ctx = loc.getContext();
  Builder b(ctx);
  if (!attr.ref_attr_name().empty()) {
    return Attribute(DictionaryAttr::get(
        ctx,
        {b.getNamedAttr(kRefAttrKey, b.getStringAttr(attr.ref_attr_name())),
         b.getNamedAttr(kRefAttrTypeKey, b.getI64IntegerAttr(attr.type()))}));
  }
  std::string resourceName = (resourcePrefix + "." + attr.name()).str();
  switch (attr.type()) {
  case AttributeProto::FLOAT:
    return Attribute(b.getF32FloatAttr(attr.f()));
  case AttributeProto::INT:
    return Attribute(b.getI64IntegerAttr(attr.i()));
  case AttributeProto::STRING:
    return Attribute(b.getStringAttr(attr.s()));
  case AttributeProto::TENSOR: {
    FailureOr<ElementsAttr> t =
        importTensor(*attr.mutable_t(), loc, resourceName);
    if (failed(t))
      return failure();
    return Attribute(*t);
  }
  case AttributeProto::GRAPH:
    return wrapProto(ctx, kGraphKey, attr.g());
  case AttributeProto::SPARSE_TENSOR:
    return wrapProto(ctx, kSparseTensorKey, attr.sparse_tensor());
  case AttributeProto::TYPE_PROTO:
    return wrapProto(ctx, kTypeProtoKey, attr.tp());
  case AttributeProto::FLOATS:
    return Attribute(b.getDenseF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end())));
  case AttributeProto::INTS:
    return Attribute(b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end())));
  case AttributeProto::STRINGS: {
    SmallVector<Attribute> items;
    for (const std::string &s : attr.strings())
      items.push_back(b.getStringAttr(s));
    return Attribute(b.getArrayAttr(items));
  }
  case AttributeProto::TENSORS: {
    SmallVector<Attribute> items;
    for (auto [i, t] : llvm::enumerate(*attr.mutable_tensors())) {
      FailureOr<ElementsAttr> v =
          importTensor(t, loc, resourceName + "." + std::to_string(i));
      if (failed(v))
        return failure();
      items.push_back(*v);
    }
    return Attribute(b.getArrayAttr(items));
  }
  case AttributeProto::GRAPHS: {
    SmallVector<Attribute> items;
    for (const onnx::GraphProto &g : attr.graphs())
      items.push_back(wrapProto(ctx, kGraphKey, g));
    return Attribute(b.getArrayAttr(items));
  }
  case AttributeProto::SPARSE_TENSORS: {
    SmallVector<Attribute> items;
    for (const onnx::SparseTensorProto &t : attr.sparse_tensors())
      items.push_back(wrapProto(ctx, kSparseTensorKey, t));
    return Attribute(b.getArrayAttr(items));
  }
  case AttributeProto::TYPE_PROTOS: {
    SmallVector<Attribute> items;
    for (const onnx::TypeProto &t : attr.type_protos())
      items.push_back(wrapProto(ctx, kTypeProtoKey, t));
    return Attribute(b.getArrayAttr(items));
  }
  default:
    return emitError(loc) << "attribute '" << attr.name()
                          << "' has an unknown type (" << int(attr.type())
                          << ")";
  }
}

/// Parses a wrapped proto back; `key` says which kind it must be.
template <typename Proto>
static LogicalResult unwrapProto(DictionaryAttr dict, StringRef key,
                                 Proto &proto, Location loc) {
  auto bytes = dict.getAs<StringAttr>(key);
  if (!bytes || !proto.ParseFromString(bytes.getValue().str()))
    return emitError(loc) << "attribute dictionary does not hold a valid "
                          << key;
  return success();
}

/// The kind of a wrapped-proto dictionary, or "" when `attr` is not one.
static StringRef getWrappedKind(Attribute attr) {
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict || dict.size() != 1)
    return {};
  StringRef key = dict.begin()->getName().getValue();
  if (key == kGraphKey || key == kSparseTensorKey || key == kTypeProtoKey)
    return key;
  return {};
}

LogicalResult onnx_io::exportAttribute(StringRef name, Attribute value,
                                       AttributeProto &attr, Location loc,
                                       int schemaType) {
  attr.set_name(name.str());
  if (auto dict = dyn_cast<DictionaryAttr>(value)) {
    if (auto ref = dict.getAs<StringAttr>(kRefAttrKey)) {
      attr.set_ref_attr_name(ref.getValue().str());
      if (auto type = dict.getAs<IntegerAttr>(kRefAttrTypeKey))
        attr.set_type(AttributeProto::AttributeType(type.getInt()));
      return success();
    }
    StringRef kind = getWrappedKind(dict);
    if (kind == kGraphKey) {
      attr.set_type(AttributeProto::GRAPH);
      return unwrapProto(dict, kind, *attr.mutable_g(), loc);
    }
    if (kind == kSparseTensorKey) {
      attr.set_type(AttributeProto::SPARSE_TENSOR);
      return unwrapProto(dict, kind, *attr.mutable_sparse_tensor(), loc);
    }
    if (kind == kTypeProtoKey) {
      attr.set_type(AttributeProto::TYPE_PROTO);
      return unwrapProto(dict, kind, *attr.mutable_tp(), loc);
    }
    return emitError(loc) << "attribute '" << name
                          << "': a dictionary is not an ONNX attribute";
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    attr.set_type(AttributeProto::FLOAT);
    attr.set_f(f.getValueAsDouble());
    return success();
  }
  if (auto b = dyn_cast<BoolAttr>(value)) {
    attr.set_type(AttributeProto::INT);
    attr.set_i(b.getValue());
    return success();
  }
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    attr.set_type(AttributeProto::INT);
    attr.set_i(i.getValue().getSExtValue());
    return success();
  }
  if (auto s = dyn_cast<StringAttr>(value)) {
    attr.set_type(AttributeProto::STRING);
    attr.set_s(s.getValue().str());
    return success();
  }
  if (auto t = dyn_cast<ElementsAttr>(value)) {
    attr.set_type(AttributeProto::TENSOR);
    return exportTensor(t, *attr.mutable_t(), loc);
  }
  if (auto floats = dyn_cast<DenseF32ArrayAttr>(value)) {
    attr.set_type(AttributeProto::FLOATS);
    for (float f : floats.asArrayRef())
      attr.add_floats(f);
    return success();
  }
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
    attr.set_type(AttributeProto::INTS);
    for (int64_t i : ints.asArrayRef())
      attr.add_ints(i);
    return success();
  }
  auto array = dyn_cast<ArrayAttr>(value);
  if (!array)
    return emitError(loc) << "attribute '" << name
                          << "' has no ONNX form: " << value;
  if (array.empty()) {
    // An empty list does not say what it lists; the schema does.
    attr.set_type(schemaType ? AttributeProto::AttributeType(schemaType)
                             : AttributeProto::STRINGS);
    return success();
  }
  Attribute first = array[0];
  if (isa<StringAttr>(first)) {
    attr.set_type(AttributeProto::STRINGS);
    for (Attribute item : array) {
      auto s = dyn_cast<StringAttr>(item);
      if (!s)
        return emitError(loc)
               << "attribute '" << name << "' mixes strings and other values";
      attr.add_strings(s.getValue().str());
    }
    return success();
  }
  if (isa<ElementsAttr>(first)) {
    attr.set_type(AttributeProto::TENSORS);
    for (Attribute item : array) {
      auto t = dyn_cast<ElementsAttr>(item);
      if (!t || failed(exportTensor(t, *attr.add_tensors(), loc)))
        return emitError(loc) << "attribute '" << name
                              << "' holds a value that is not a tensor";
    }
    return success();
  }
  // Lists written as [1, 2] or [1.0, 2.0] by hand.
  if (isa<IntegerAttr>(first) || isa<FloatAttr>(first)) {
    bool isInt = isa<IntegerAttr>(first);
    attr.set_type(isInt ? AttributeProto::INTS : AttributeProto::FLOATS);
    for (Attribute item : array) {
      if (auto i = dyn_cast<IntegerAttr>(item); i && isInt)
        attr.add_ints(i.getValue().getSExtValue());
      else if (auto f = dyn_cast<FloatAttr>(item); f && !isInt)
        attr.add_floats(f.getValueAsDouble());
      else
        return emitError(loc)
               << "attribute '" << name << "' mixes integers and floats";
    }
    return success();
  }
  StringRef kind = getWrappedKind(first);
  if (kind.empty())
    return emitError(loc) << "attribute '" << name
                          << "' has no ONNX form: " << value;
  for (Attribute item : array) {
    auto dict = dyn_cast<DictionaryAttr>(item);
    if (!dict || getWrappedKind(dict) != kind)
      return emitError(loc)
             << "attribute '" << name << "' mixes kinds of values";
    LogicalResult ok = failure();
    if (kind == kGraphKey) {
      attr.set_type(AttributeProto::GRAPHS);
      ok = unwrapProto(dict, kind, *attr.add_graphs(), loc);
    } else if (kind == kSparseTensorKey) {
      attr.set_type(AttributeProto::SPARSE_TENSORS);
      ok = unwrapProto(dict, kind, *attr.add_sparse_tensors(), loc);
    } else {
      attr.set_type(AttributeProto::TYPE_PROTOS);
      ok = unwrapProto(dict, kind, *attr.add_type_protos(), loc);
    }
    if (failed(ok))
      return failure();
  }
  return success();
}
