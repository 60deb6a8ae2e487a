//===- ShapeFolding.cpp - evaluate shape computations at import -----------===//
//
// Exporters write `x.view(x.size(0), -1)` as Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape. When the shapes are static, those nodes compute a
// constant; evaluating them here lets Reshape become a quant_qdq.reshape
// with a static target instead of a generic node fed by a shape subgraph.
// Constant nodes land here too. Only small integer tensors are evaluated;
// anything else is left to the node handlers.
//
//===----------------------------------------------------------------------===//

#include "ModelImporter.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// Tensors larger than this are not evaluated (shape vectors are tiny).
static constexpr int64_t kMaxFoldedElements = 4096;

namespace {
/// A small int64 tensor being evaluated.
struct IntTensor {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> values;
};
} // namespace

static ElementsAttr makeAttr(MLIRContext *ctx, const IntTensor &t) {
  auto type = RankedTensorType::get(t.shape, IntegerType::get(ctx, 64));
  return cast<ElementsAttr>(
      DenseElementsAttr::get(type, ArrayRef<int64_t>(t.values)));
}

/// The constant integer input `index` of `node`, if it is one.
static std::optional<IntTensor>
getIntInput(ModelImporter &importer, const onnx::NodeProto &node, int index) {
  if (index >= node.input_size() || node.input(index).empty())
    return std::nullopt;
  FailureOr<ElementsAttr> attr = importer.getConstant(node.input(index));
  if (failed(attr) || !*attr)
    return std::nullopt;
  auto type = cast<ShapedType>(attr->getType());
  if (!type.hasStaticShape() || type.getNumElements() > kMaxFoldedElements)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> values =
      importer.getConstantInts(node.input(index));
  if (!values)
    return std::nullopt;
  return IntTensor{SmallVector<int64_t>(type.getShape()), std::move(*values)};
}

static int64_t getCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Normalizes `axis` into [0, rank), or nothing.
static std::optional<int64_t> normalize(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Axes from the attribute (old opsets) or the second input (new ones).
static std::optional<SmallVector<int64_t>>
getAxes(ModelImporter &importer, const onnx::NodeProto &node) {
  if (const onnx::AttributeProto *attr =
          ModelImporter::findAttr(node, "axes")) {
    if (attr->type() != onnx::AttributeProto::INTS)
      return std::nullopt;
    return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
  }
  if (std::optional<IntTensor> axes = getIntInput(importer, node, 1))
    return axes->values;
  return std::nullopt;
}

static std::optional<IntTensor> foldElementwise(StringRef op, IntTensor a,
                                                IntTensor b) {
  // Same shape, or one side a single element.
  bool aScalar = a.values.size() == 1, bScalar = b.values.size() == 1;
  if (a.shape != b.shape && !aScalar && !bScalar)
    return std::nullopt;
  IntTensor result = (aScalar && !bScalar) ? b : a;
  if (aScalar && bScalar && b.shape.size() > a.shape.size())
    result.shape = b.shape;
  for (size_t i = 0; i < result.values.size(); ++i) {
    int64_t x = a.values[aScalar ? 0 : i], y = b.values[bScalar ? 0 : i], r;
    if (op == "Add") {
      if (llvm::AddOverflow(x, y, r))
        return std::nullopt;
    } else if (op == "Sub") {
      if (llvm::SubOverflow(x, y, r))
        return std::nullopt;
    } else if (op == "Mul") {
      if (llvm::MulOverflow(x, y, r))
        return std::nullopt;
    } else {
      if (y == 0 || (x == INT64_MIN && y == -1))
        return std::nullopt;
      r = x / y;
    }
    result.values[i] = r;
  }
  return result;
}

/// Evaluates one node on constant integer inputs.
static std::optional<IntTensor> foldIntNode(ModelImporter &importer,
                                            const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  auto input = [&](int i) { return getIntInput(importer, node, i); };

  if (op == "Shape" || op == "Size") {
    if (node.input_size() < 1)
      return std::nullopt;
    Value v = importer.getValue(node.input(0));
    auto type =
        v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (!type)
      if (FailureOr<ElementsAttr> c = importer.getConstant(node.input(0));
          succeeded(c) && *c)
        type = cast<RankedTensorType>(c->getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    if (op == "Size")
      return IntTensor{{}, {type.getNumElements()}};
    int64_t rank = type.getRank();
    int64_t start = 0, end = rank;
    if (const onnx::AttributeProto *a = ModelImporter::findAttr(node, "start"))
      start = a->i();
    if (const onnx::AttributeProto *a = ModelImporter::findAttr(node, "end"))
      end = a->i();
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    IntTensor t;
    for (int64_t d = start; d < end; ++d)
      t.values.push_back(type.getDimSize(d));
    t.shape = {int64_t(t.values.size())};
    return t;
  }

  // Everything below needs its first input constant.
  std::optional<IntTensor> data = input(0);
  if (!data)
    return std::nullopt;

  if (op == "Identity")
    return data;
  if (op == "Cast") {
    const onnx::AttributeProto *to = ModelImporter::findAttr(node, "to");
    if (!to)
      return std::nullopt;
    // Folded tensors are int64: a cast to int32 would change the type.
    if (to->i() != onnx::TensorProto::INT64)
      return std::nullopt;
    return data;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    std::optional<IntTensor> rhs = input(1);
    if (!rhs)
      return std::nullopt;
    return foldElementwise(op, *data, *rhs);
  }
  if (op == "Gather") {
    std::optional<IntTensor> indices = input(1);
    const onnx::AttributeProto *axisAttr =
        ModelImporter::findAttr(node, "axis");
    if (!indices || data->shape.size() != 1 || (axisAttr && axisAttr->i() != 0))
      return std::nullopt;
    IntTensor t{indices->shape, {}};
    int64_t n = data->shape[0];
    for (int64_t i : indices->values) {
      std::optional<int64_t> k = normalize(i, n);
      if (!k)
        return std::nullopt;
      t.values.push_back(data->values[*k]);
    }
    return t;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::optional<SmallVector<int64_t>> axes = getAxes(importer, node);
    IntTensor t = *data;
    if (op == "Unsqueeze") {
      if (!axes)
        return std::nullopt;
      int64_t rank = t.shape.size() + axes->size();
      SmallVector<int64_t> sorted;
      for (int64_t a : *axes) {
        std::optional<int64_t> k = normalize(a, rank);
        if (!k)
          return std::nullopt;
        sorted.push_back(*k);
      }
      llvm::sort(sorted);
      for (int64_t a : sorted)
        t.shape.insert(t.shape.begin() + std::min<int64_t>(a, t.shape.size()),
                       1);
      return t;
    }
    SmallVector<int64_t> shape;
    int64_t rank = t.shape.size();
    for (int64_t d = 0; d < rank; ++d) {
      bool drop =
          axes ? llvm::any_of(
                     *axes, [&](int64_t a) { return normalize(a, rank) == d; })
               : t.shape[d] == 1;
      if (!drop)
        shape.push_back(t.shape[d]);
    }
    t.shape = shape;
    return t;
  }
  if (op == "Concat") {
    IntTensor t{{0}, {}};
    for (int i = 0; i < node.input_size(); ++i) {
      std::optional<IntTensor> part = input(i);
      if (!part || part->shape.size() != 1)
        return std::nullopt;
      llvm::append_range(t.values, part->values);
    }
    t.shape[0] = t.values.size();
    return t;
  }
  if (op == "Slice") {
    if (data->shape.size() != 1)
      return std::nullopt;
    SmallVector<int64_t> starts, ends, steps{1};
    if (node.input_size() >= 3) {
      std::optional<IntTensor> s = input(1), e = input(2);
      if (!s || !e)
        return std::nullopt;
      starts = s->values;
      ends = e->values;
      if (node.input_size() >= 4 && !node.input(3).empty()) {
        std::optional<IntTensor> ax = input(3);
        if (!ax || ax->values.size() != 1 || normalize(ax->values[0], 1) != 0)
          return std::nullopt;
      }
      if (node.input_size() >= 5 && !node.input(4).empty()) {
        std::optional<IntTensor> st = input(4);
        if (!st)
          return std::nullopt;
        steps = st->values;
      }
    } else {
      const onnx::AttributeProto *s = ModelImporter::findAttr(node, "starts");
      const onnx::AttributeProto *e = ModelImporter::findAttr(node, "ends");
      if (!s || !e || ModelImporter::findAttr(node, "axes"))
        return std::nullopt;
      starts.assign(s->ints().begin(), s->ints().end());
      ends.assign(e->ints().begin(), e->ints().end());
    }
    if (starts.size() != 1 || ends.size() != 1 || steps.size() != 1 ||
        steps[0] <= 0)
      return std::nullopt;
    int64_t n = data->shape[0];
    auto clampIndex = [n](int64_t i) {
      if (i < 0)
        i += n;
      return std::clamp<int64_t>(i, 0, n);
    };
    IntTensor t{{0}, {}};
    for (int64_t i = clampIndex(starts[0]), e = clampIndex(ends[0]); i < e;
         i += steps[0])
      t.values.push_back(data->values[i]);
    t.shape[0] = t.values.size();
    return t;
  }
  if (op == "Reshape") {
    std::optional<IntTensor> shape = input(1);
    if (!shape || shape->shape.size() != 1)
      return std::nullopt;
    SmallVector<int64_t> newShape;
    int64_t known = 1, inferred = -1;
    for (auto [i, d] : llvm::enumerate(shape->values)) {
      if (d == 0 && i < data->shape.size())
        d = data->shape[i];
      if (d == -1) {
        if (inferred >= 0)
          return std::nullopt;
        inferred = i;
      } else if (d < 0) {
        return std::nullopt;
      } else {
        known *= d;
      }
      newShape.push_back(d);
    }
    int64_t count = data->values.size();
    if (inferred >= 0) {
      if (known == 0 || count % known)
        return std::nullopt;
      newShape[inferred] = count / known;
    } else if (known != count) {
      return std::nullopt;
    }
    return IntTensor{newShape, data->values};
  }
  return std::nullopt;
}

/// The tensor a Constant node holds, or nothing for the kinds MLIR has no
/// elements attribute for (strings, sparse tensors).
static FailureOr<std::optional<ElementsAttr>>
foldConstant(ModelImporter &importer, onnx::NodeProto &node) {
  MLIRContext *ctx = importer.getContext();
  if (node.attribute_size() != 1 || node.output_size() != 1)
    return std::optional<ElementsAttr>();
  onnx::AttributeProto &attr = *node.mutable_attribute(0);
  StringRef name = attr.name();
  auto f32 = Float32Type::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  if (name == "value" && attr.type() == onnx::AttributeProto::TENSOR) {
    // A Constant's tensor is named after its output, for the resource name.
    FailureOr<ElementsAttr> value = importTensor(
        *attr.mutable_t(), importer.getNodeLoc(node), node.output(0));
    if (failed(value))
      return failure();
    return std::optional<ElementsAttr>(*value);
  }
  if (name == "value_float" && attr.type() == onnx::AttributeProto::FLOAT)
    return std::optional<ElementsAttr>(
        cast<ElementsAttr>(DenseElementsAttr::get(
            RankedTensorType::get({}, f32), ArrayRef<float>{attr.f()})));
  if (name == "value_int" && attr.type() == onnx::AttributeProto::INT)
    return std::optional<ElementsAttr>(
        cast<ElementsAttr>(DenseElementsAttr::get(
            RankedTensorType::get({}, i64), ArrayRef<int64_t>{attr.i()})));
  if (name == "value_floats" && attr.type() == onnx::AttributeProto::FLOATS) {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    return std::optional<ElementsAttr>(cast<ElementsAttr>(
        DenseElementsAttr::get(RankedTensorType::get({int64_t(v.size())}, f32),
                               ArrayRef<float>(v))));
  }
  if (name == "value_ints" && attr.type() == onnx::AttributeProto::INTS) {
    SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    return std::optional<ElementsAttr>(cast<ElementsAttr>(
        DenseElementsAttr::get(RankedTensorType::get({int64_t(v.size())}, i64),
                               ArrayRef<int64_t>(v))));
  }
  return std::optional<ElementsAttr>();
}

FailureOr<std::optional<SmallVector<ElementsAttr>>>
onnx_io::foldShapeNode(ModelImporter &importer, onnx::NodeProto &node) {
  using Result = std::optional<SmallVector<ElementsAttr>>;
  if (node.op_type() == "Constant") {
    FailureOr<std::optional<ElementsAttr>> value = foldConstant(importer, node);
    if (failed(value))
      return failure();
    if (!*value)
      return Result();
    return Result(SmallVector<ElementsAttr>{**value});
  }
  static const llvm::StringSet<> foldable = {
      "Shape", "Size",   "Identity",  "Cast",    "Add",    "Sub",   "Mul",
      "Div",   "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Reshape"};
  if (!foldable.count(node.op_type()) || node.output_size() != 1)
    return Result();
  std::optional<IntTensor> result = foldIntNode(importer, node);
  if (!result || getCount(result->shape) != int64_t(result->values.size()))
    return Result();
  return Result(
      SmallVector<ElementsAttr>{makeAttr(importer.getContext(), *result)});
}
