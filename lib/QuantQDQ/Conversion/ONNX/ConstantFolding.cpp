//===- ConstantFolding.cpp - Constant nodes and shape computations --------===//
//
// Constant nodes become arith.constant. Exporters write `x.view(x.size(0),
// -1)` as Shape -> Gather -> Unsqueeze -> Concat -> Reshape; when the shapes
// are static, those nodes compute a constant, and evaluating them lets the
// Reshape become a quant_qdq.reshape with a static target instead of a
// generic node fed by a shape subgraph. Only small integer tensors are
// evaluated; anything else stays for the layer patterns or generic.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

/// Tensors larger than this are not evaluated (shape vectors are tiny).
static constexpr int64_t kMaxFoldedElements = 4096;
/// TensorProto::INT64, the `to` of a Cast that keeps folded values as they
/// are.
static constexpr int64_t kONNXInt64 = 7;

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

/// The tensor a Constant node holds, or null for the kinds MLIR has no
/// elements attribute for (strings, sparse tensors).
static TypedAttr getConstantValue(ONNXNode node, Builder &b) {
  DictionaryAttr attrs = node.getOp().getLayerAttributesAttr();
  if (!attrs || attrs.size() != 1 || node.getOp().getNumResults() != 1)
    return {};
  NamedAttribute attr = *attrs.begin();
  StringRef name = attr.getName();
  Attribute value = attr.getValue();
  if (name == "value")
    return dyn_cast<ElementsAttr>(value) ? cast<TypedAttr>(value)
                                         : TypedAttr();
  if (name == "value_float")
    if (auto f = dyn_cast<FloatAttr>(value))
      return DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                    ArrayRef<float>{float(
                                        f.getValueAsDouble())});
  if (name == "value_int")
    if (auto i = dyn_cast<IntegerAttr>(value))
      return DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                    ArrayRef<int64_t>{i.getInt()});
  if (name == "value_floats")
    if (auto fs = dyn_cast<DenseF32ArrayAttr>(value))
      return DenseElementsAttr::get(
          RankedTensorType::get({fs.size()}, b.getF32Type()),
          fs.asArrayRef());
  if (name == "value_ints")
    if (auto is = dyn_cast<DenseI64ArrayAttr>(value))
      return DenseElementsAttr::get(
          RankedTensorType::get({is.size()}, b.getI64Type()),
          is.asArrayRef());
  return {};
}

static LogicalResult convertConstant(ONNXNode node,
                                     PatternRewriter &rewriter) {
  TypedAttr value = getConstantValue(node, rewriter);
  if (!value)
    return failure();
  return replaceNode(rewriter, node,
                     arith::ConstantOp::create(rewriter, node.getOp().getLoc(),
                                               value)
                         .getResult());
}

//===----------------------------------------------------------------------===//
// Shape computations
//===----------------------------------------------------------------------===//

namespace {
/// A small int64 tensor being evaluated.
struct IntTensor {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> values;
};
} // namespace

/// The node's input `index` when it is a small constant integer tensor.
static std::optional<IntTensor> getIntInput(ONNXNode node, unsigned index) {
  Value value = node.getInput(index);
  ElementsAttr attr = getConstantAttr(value);
  if (!attr)
    return std::nullopt;
  auto type = cast<ShapedType>(attr.getType());
  if (!type.hasStaticShape() || type.getNumElements() > kMaxFoldedElements)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> values = getConstantInts(value);
  if (!values)
    return std::nullopt;
  return IntTensor{SmallVector<int64_t>(type.getShape()), std::move(*values)};
}

/// Elements of `shape`, saturated at INT64_MAX (a shape of huge
/// dimensions is never folded).
static int64_t getCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (llvm::MulOverflow(n, d, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

/// The row-major strides of `shape`.
static SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Normalizes `axis` into [0, rank), or nothing.
static std::optional<int64_t> normalize(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Axes from the attribute (old opsets) or the second input (new ones).
static std::optional<SmallVector<int64_t>> getAxes(ONNXNode node) {
  if (Attribute attr = node.getAttr("axes")) {
    auto ints = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!ints)
      return std::nullopt;
    return SmallVector<int64_t>(ints.asArrayRef());
  }
  if (std::optional<IntTensor> axes = getIntInput(node, 1))
    return axes->values;
  return std::nullopt;
}

/// An integer attribute, or `defaultValue` when absent or of another kind.
static int64_t getIntOr(ONNXNode node, StringRef name, int64_t defaultValue) {
  auto attr = dyn_cast_or_null<IntegerAttr>(node.getAttr(name));
  return attr ? attr.getInt() : defaultValue;
}

/// The shape ONNX's multidirectional (numpy) broadcasting gives `shapes`,
/// or nothing when they do not broadcast or the result is too large to
/// evaluate.
static std::optional<SmallVector<int64_t>>
broadcastShapes(ArrayRef<const IntTensor *> tensors) {
  SmallVector<int64_t> shape;
  for (const IntTensor *t : tensors) {
    if (t->shape.size() > shape.size())
      shape.insert(shape.begin(), t->shape.size() - shape.size(), 1);
    size_t offset = shape.size() - t->shape.size();
    for (auto [i, d] : llvm::enumerate(t->shape)) {
      int64_t &into = shape[offset + i];
      if (into == 1)
        into = d;
      else if (d != 1 && d != into)
        return std::nullopt;
    }
  }
  if (getCount(shape) > kMaxFoldedElements)
    return std::nullopt;
  return shape;
}

/// `t`'s values broadcast to `shape` (which broadcastShapes gave).
static SmallVector<int64_t> broadcastValues(const IntTensor &t,
                                            ArrayRef<int64_t> shape) {
  int64_t rank = shape.size(), offset = rank - t.shape.size();
  SmallVector<int64_t> strides = getStrides(t.shape);
  SmallVector<int64_t> values;
  for (int64_t n = getCount(shape), i = 0; i < n; ++i) {
    int64_t source = 0, rest = i;
    for (int64_t d = rank - 1; d >= offset; --d) {
      int64_t index = rest % shape[d];
      rest /= shape[d];
      if (t.shape[d - offset] != 1)
        source += index * strides[d - offset];
    }
    values.push_back(t.values[source]);
  }
  return values;
}

/// An element-wise integer op on inputs that broadcast.
static std::optional<IntTensor>
foldElementwise(StringRef op, const IntTensor &a, const IntTensor &b) {
  std::optional<SmallVector<int64_t>> shape = broadcastShapes({&a, &b});
  if (!shape)
    return std::nullopt;
  SmallVector<int64_t> lhs = broadcastValues(a, *shape);
  SmallVector<int64_t> rhs = broadcastValues(b, *shape);
  IntTensor result{*shape, {}};
  for (auto [x, y] : llvm::zip(lhs, rhs)) {
    int64_t r;
    if (op == "Add") {
      if (llvm::AddOverflow(x, y, r))
        return std::nullopt;
    } else if (op == "Sub") {
      if (llvm::SubOverflow(x, y, r))
        return std::nullopt;
    } else if (op == "Mul") {
      if (llvm::MulOverflow(x, y, r))
        return std::nullopt;
    } else if (op == "Equal") {
      r = x == y;
    } else if (op == "Less") {
      r = x < y;
    } else if (op == "Greater") {
      r = x > y;
    } else if (op == "And") {
      r = x && y;
    } else if (op == "Or") {
      r = x || y;
    } else if (op == "Xor") {
      r = bool(x) != bool(y);
    } else if (op == "Mod") {
      // Integer Mod (fmod = 0) takes the divisor's sign, as Python's %.
      if (y == 0 || (x == INT64_MIN && y == -1))
        return std::nullopt;
      r = x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    } else {
      if (y == 0 || (x == INT64_MIN && y == -1))
        return std::nullopt;
      r = x / y;
    }
    result.values.push_back(r);
  }
  return result;
}

/// Where(condition, x, y) on inputs that broadcast.
static std::optional<IntTensor> foldWhere(ONNXNode node,
                                          const IntTensor &condition) {
  std::optional<IntTensor> x = getIntInput(node, 1), y = getIntInput(node, 2);
  if (!x || !y)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes({&condition, &*x, &*y});
  if (!shape)
    return std::nullopt;
  SmallVector<int64_t> pick = broadcastValues(condition, *shape);
  SmallVector<int64_t> whenTrue = broadcastValues(*x, *shape);
  SmallVector<int64_t> whenFalse = broadcastValues(*y, *shape);
  IntTensor result{*shape, {}};
  for (auto [c, t, f] : llvm::zip(pick, whenTrue, whenFalse))
    result.values.push_back(c ? t : f);
  return result;
}

/// ConstantOfShape with an integer value (0 when absent).
static std::optional<IntTensor> foldConstantOfShape(ONNXNode node,
                                                    const IntTensor &shape) {
  if (shape.shape.size() != 1 ||
      llvm::any_of(shape.values, [](int64_t d) { return d < 0; }) ||
      getCount(shape.values) > kMaxFoldedElements)
    return std::nullopt;
  int64_t fill = 0;
  if (Attribute attr = node.getAttr("value")) {
    auto value = dyn_cast<DenseIntElementsAttr>(attr);
    if (!value || value.getNumElements() != 1)
      return std::nullopt;
    fill = (*value.begin()).getSExtValue();
  }
  return IntTensor{shape.values,
                   SmallVector<int64_t>(getCount(shape.values), fill)};
}

/// Range(start, limit, delta) on scalars.
static std::optional<IntTensor> foldRange(ONNXNode node,
                                          const IntTensor &start) {
  std::optional<IntTensor> limit = getIntInput(node, 1),
                           delta = getIntInput(node, 2);
  if (!limit || !delta || start.values.size() != 1 ||
      limit->values.size() != 1 || delta->values.size() != 1 ||
      delta->values[0] == 0)
    return std::nullopt;
  int64_t first = start.values[0], last = limit->values[0],
          step = delta->values[0];
  IntTensor t{{0}, {}};
  for (int64_t v = first; step > 0 ? v < last : v > last; v += step) {
    if (int64_t(t.values.size()) >= kMaxFoldedElements)
      return std::nullopt;
    t.values.push_back(v);
  }
  t.shape[0] = t.values.size();
  return t;
}

static std::optional<IntTensor> foldShape(ONNXNode node) {
  auto type = dyn_cast_or_null<RankedTensorType>(
      node.getInput(0) ? node.getInput(0).getType() : Type());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  if (node.getOpType() == "Size")
    return IntTensor{{}, {type.getNumElements()}};
  int64_t rank = type.getRank();
  int64_t start = getIntOr(node, "start", 0), end = getIntOr(node, "end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  IntTensor t;
  for (int64_t d = start; d < end; ++d)
    t.values.push_back(type.getDimSize(d));
  t.shape = {int64_t(t.values.size())};
  return t;
}

static std::optional<IntTensor> foldGather(ONNXNode node,
                                           const IntTensor &data) {
  std::optional<IntTensor> indices = getIntInput(node, 1);
  if (!indices || data.shape.size() != 1 || getIntOr(node, "axis", 0) != 0)
    return std::nullopt;
  IntTensor t{indices->shape, {}};
  int64_t n = data.shape[0];
  for (int64_t i : indices->values) {
    std::optional<int64_t> k = normalize(i, n);
    if (!k)
      return std::nullopt;
    t.values.push_back(data.values[*k]);
  }
  return t;
}

static std::optional<IntTensor> foldUnsqueeze(ONNXNode node, IntTensor t) {
  std::optional<SmallVector<int64_t>> axes = getAxes(node);
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
    t.shape.insert(t.shape.begin() + std::min<int64_t>(a, t.shape.size()), 1);
  return t;
}

static std::optional<IntTensor> foldSqueeze(ONNXNode node, IntTensor t) {
  std::optional<SmallVector<int64_t>> axes = getAxes(node);
  SmallVector<int64_t> shape;
  int64_t rank = t.shape.size();
  for (int64_t d = 0; d < rank; ++d) {
    bool drop =
        axes ? llvm::any_of(*axes,
                            [&](int64_t a) { return normalize(a, rank) == d; })
             : t.shape[d] == 1;
    if (!drop)
      shape.push_back(t.shape[d]);
  }
  t.shape = shape;
  return t;
}

static std::optional<IntTensor> foldConcat(ONNXNode node) {
  IntTensor t{{0}, {}};
  for (unsigned i = 0, e = node.getNumInputs(); i < e; ++i) {
    std::optional<IntTensor> part = getIntInput(node, i);
    if (!part || part->shape.size() != 1)
      return std::nullopt;
    llvm::append_range(t.values, part->values);
  }
  t.shape[0] = t.values.size();
  return t;
}

/// Slice on any rank: starts, ends, axes and steps as ONNX defines them
/// (negative steps walk backwards; ends clamp to the dimension).
static std::optional<IntTensor> foldSlice(ONNXNode node,
                                          const IntTensor &data) {
  int64_t rank = data.shape.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (node.getNumInputs() >= 3) {
    // Slice-10 on: starts, ends, axes and steps are inputs.
    std::optional<IntTensor> s = getIntInput(node, 1), e = getIntInput(node, 2);
    if (!s || !e)
      return std::nullopt;
    starts = s->values;
    ends = e->values;
    if (node.hasInput(3)) {
      std::optional<IntTensor> ax = getIntInput(node, 3);
      if (!ax)
        return std::nullopt;
      axes = ax->values;
    }
    if (node.hasInput(4)) {
      std::optional<IntTensor> st = getIntInput(node, 4);
      if (!st)
        return std::nullopt;
      steps = st->values;
    }
  } else {
    auto s = dyn_cast_or_null<DenseI64ArrayAttr>(node.getAttr("starts"));
    auto e = dyn_cast_or_null<DenseI64ArrayAttr>(node.getAttr("ends"));
    if (!s || !e)
      return std::nullopt;
    starts.assign(s.asArrayRef().begin(), s.asArrayRef().end());
    ends.assign(e.asArrayRef().begin(), e.asArrayRef().end());
    if (auto ax = dyn_cast_or_null<DenseI64ArrayAttr>(node.getAttr("axes")))
      axes.assign(ax.asArrayRef().begin(), ax.asArrayRef().end());
  }
  if (axes.empty())
    for (int64_t d = 0; d < int64_t(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return std::nullopt;

  // Per dimension: first index, step and count.
  SmallVector<int64_t> first(rank, 0), step(rank, 1), count(data.shape);
  for (auto [start, end, axis, st] : llvm::zip(starts, ends, axes, steps)) {
    std::optional<int64_t> d = normalize(axis, rank);
    if (!d || st == 0)
      return std::nullopt;
    int64_t n = data.shape[*d];
    auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
      if (i < 0)
        i = i < -n ? lo : i + n;
      return std::clamp<int64_t>(i, lo, hi);
    };
    int64_t b = st > 0 ? clampIndex(start, 0, n) : clampIndex(start, -1, n - 1);
    int64_t e = st > 0 ? clampIndex(end, 0, n) : clampIndex(end, -1, n - 1);
    first[*d] = b;
    step[*d] = st;
    count[*d] = st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st)
                       : std::max<int64_t>(0, (b - e - st - 1) / -st);
  }
  SmallVector<int64_t> strides = getStrides(data.shape);
  IntTensor t{count, {}};
  SmallVector<int64_t> index(rank, 0);
  for (int64_t n = getCount(count), i = 0; i < n; ++i) {
    int64_t offset = 0, rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += (first[d] + (rest % count[d]) * step[d]) * strides[d];
      rest /= count[d];
    }
    t.values.push_back(data.values[offset]);
  }
  return t;
}

static std::optional<IntTensor> foldTranspose(ONNXNode node,
                                              const IntTensor &data) {
  int64_t rank = data.shape.size();
  SmallVector<int64_t> perm;
  if (auto attr = dyn_cast_or_null<DenseI64ArrayAttr>(node.getAttr("perm")))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  for (int64_t d = 0; d < rank; ++d)
    if (int64_t(sorted.size()) != rank || sorted[d] != d)
      return std::nullopt;
  IntTensor t;
  for (int64_t d : perm)
    t.shape.push_back(data.shape[d]);
  SmallVector<int64_t> strides = getStrides(data.shape);
  for (int64_t n = getCount(t.shape), i = 0; i < n; ++i) {
    int64_t offset = 0, rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += (rest % t.shape[d]) * strides[perm[d]];
      rest /= t.shape[d];
    }
    t.values.push_back(data.values[offset]);
  }
  return t;
}

static std::optional<IntTensor> foldReshape(ONNXNode node,
                                            const IntTensor &data) {
  std::optional<IntTensor> shape = getIntInput(node, 1);
  if (!shape || shape->shape.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> newShape;
  int64_t known = 1, inferred = -1;
  for (auto [i, d] : llvm::enumerate(shape->values)) {
    if (d == 0 && i < data.shape.size())
      d = data.shape[i];
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
  int64_t count = data.values.size();
  if (inferred >= 0) {
    if (known == 0 || count % known)
      return std::nullopt;
    newShape[inferred] = count / known;
  } else if (known != count) {
    return std::nullopt;
  }
  return IntTensor{newShape, data.values};
}

/// Evaluates the node on constant integer inputs.
static std::optional<IntTensor> foldIntNode(ONNXNode node) {
  StringRef op = node.getOpType();
  if (op == "Shape" || op == "Size")
    return foldShape(node);
  if (op == "Concat")
    return foldConcat(node);

  // Everything below needs its first input constant.
  std::optional<IntTensor> data = getIntInput(node, 0);
  if (!data)
    return std::nullopt;
  if (op == "Identity")
    return data;
  if (op == "Cast") {
    // Folded tensors are int64: a cast to int32 would change the type.
    if (getIntOr(node, "to", 0) != kONNXInt64)
      return std::nullopt;
    return data;
  }
  if (op == "Not")
    return IntTensor{data->shape, llvm::map_to_vector(
                                      data->values,
                                      [](int64_t v) -> int64_t { return !v; })};
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Equal" || op == "Less" || op == "Greater" || op == "And" ||
      op == "Or" || op == "Xor" ||
      (op == "Mod" && getIntOr(node, "fmod", 0) == 0)) {
    std::optional<IntTensor> rhs = getIntInput(node, 1);
    if (!rhs)
      return std::nullopt;
    return foldElementwise(op, *data, *rhs);
  }
  if (op == "Where")
    return foldWhere(node, *data);
  if (op == "ConstantOfShape")
    return foldConstantOfShape(node, *data);
  if (op == "Range")
    return foldRange(node, *data);
  if (op == "Gather")
    return foldGather(node, *data);
  if (op == "Unsqueeze")
    return foldUnsqueeze(node, *data);
  if (op == "Squeeze")
    return foldSqueeze(node, *data);
  if (op == "Slice")
    return foldSlice(node, *data);
  if (op == "Reshape")
    return foldReshape(node, *data);
  if (op == "Transpose")
    return foldTranspose(node, *data);
  return std::nullopt;
}

static LogicalResult foldShapeComputation(ONNXNode node,
                                          PatternRewriter &rewriter) {
  if (node.getOp().getNumResults() != 1)
    return failure();
  std::optional<IntTensor> result = foldIntNode(node);
  if (!result || getCount(result->shape) != int64_t(result->values.size()))
    return failure();
  // Comparisons give booleans, ConstantOfShape its value's integer type,
  // the rest int64.
  auto element =
      dyn_cast<IntegerType>(getElementTypeOrSelf(node.getOp()->getResult(0)));
  if (!element)
    return failure();
  auto type = RankedTensorType::get(result->shape, element);
  SmallVector<APInt> values;
  for (int64_t v : result->values)
    values.push_back(APInt(element.getWidth(), uint64_t(v),
                           /*isSigned=*/element.getWidth() != 1,
                           /*implicitTrunc=*/true));
  auto value = DenseElementsAttr::get(type, values);
  return replaceNode(rewriter, node,
                     arith::ConstantOp::create(rewriter, node.getOp().getLoc(),
                                               value)
                         .getResult());
}

void onnx_patterns::populateConstantFoldingPatterns(
    RewritePatternSet &patterns) {
  addConversion<convertConstant>(patterns, {"Constant"});
  addConversion<foldShapeComputation>(patterns,
                                      {"Shape",   "Size",     "Identity",
                                       "Cast",    "Add",      "Sub",
                                       "Mul",     "Div",      "Mod",
                                       "Equal",   "Less",     "Greater",
                                       "And",     "Or",       "Xor",
                                       "Not",     "Where",    "ConstantOfShape",
                                       "Range",   "Gather",   "Unsqueeze",
                                       "Squeeze", "Concat",   "Slice",
                                       "Reshape", "Transpose"});
}
