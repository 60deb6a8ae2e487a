//===- TensorConversion.cpp - ONNX tensors to and from MLIR attributes ----===//
//
// Weights are most of a model's bytes, so the import moves them: the
// std::string that protobuf parsed raw_data into becomes the storage of a
// resource blob, freed when the blob dies. Nothing is allocated from a
// declared shape before the data is known to match it, so a hostile
// "dims = [1e12]" costs nothing.
//
//===----------------------------------------------------------------------===//

#include "ExternalData.h"
#include "ONNXCommon.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;
using onnx::TensorProto;

/// Raw data up to this size becomes a DenseElementsAttr: readable in tests
/// and foldable. Larger data (weights) becomes a resource blob.
static constexpr size_t kMaxInlineBytes = 1024;

Type onnx_io::getElementType(MLIRContext *ctx, int32_t onnxType) {
  switch (onnxType) {
  case TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case TensorProto::FLOAT8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case TensorProto::INT4:
    return IntegerType::get(ctx, 4);
  case TensorProto::UINT4:
    return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  default:
    return {};
  }
}

int32_t onnx_io::getONNXElementType(Type type) {
  if (type.isF32())
    return TensorProto::FLOAT;
  if (type.isF64())
    return TensorProto::DOUBLE;
  if (type.isF16())
    return TensorProto::FLOAT16;
  if (type.isBF16())
    return TensorProto::BFLOAT16;
  if (isa<Float8E4M3FNType>(type))
    return TensorProto::FLOAT8E4M3FN;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return TensorProto::UNDEFINED;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return TensorProto::BOOL;
  case 4:
    return isUnsigned ? TensorProto::UINT4 : TensorProto::INT4;
  case 8:
    return isUnsigned ? TensorProto::UINT8 : TensorProto::INT8;
  case 16:
    return isUnsigned ? TensorProto::UINT16 : TensorProto::INT16;
  case 32:
    return isUnsigned ? TensorProto::UINT32 : TensorProto::INT32;
  case 64:
    return isUnsigned ? TensorProto::UINT64 : TensorProto::INT64;
  default:
    return TensorProto::UNDEFINED;
  }
}

unsigned onnx_io::getElementByteSize(int32_t onnxType) {
  switch (onnxType) {
  case TensorProto::BOOL:
  case TensorProto::INT8:
  case TensorProto::UINT8:
  case TensorProto::INT4:
  case TensorProto::UINT4:
  case TensorProto::FLOAT8E4M3FN:
    return 1;
  case TensorProto::INT16:
  case TensorProto::UINT16:
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    return 2;
  case TensorProto::FLOAT:
  case TensorProto::INT32:
  case TensorProto::UINT32:
    return 4;
  case TensorProto::DOUBLE:
  case TensorProto::INT64:
  case TensorProto::UINT64:
    return 8;
  default:
    return 0;
  }
}

std::optional<uint64_t> onnx_io::getRawDataSize(int32_t onnxType,
                                               int64_t count) {
  unsigned size = getElementByteSize(onnxType);
  if (size == 0 || count < 0)
    return std::nullopt;
  if (isNibblePacked(onnxType))
    return (uint64_t(count) + 1) / 2;
  if (uint64_t(count) > std::numeric_limits<uint64_t>::max() / size)
    return std::nullopt;
  return uint64_t(count) * size;
}

std::string onnx_io::describeElements(int32_t onnxType, int64_t count) {
  return std::to_string(count) + " elements of " +
         (isNibblePacked(onnxType)
              ? std::string("4 bits")
              : std::to_string(getElementByteSize(onnxType)) + " bytes");
}

/// Two 4-bit elements per byte, low nibble first, from one byte each.
static std::string packNibbles(StringRef bytes) {
  std::string packed((bytes.size() + 1) / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i)
    packed[i / 2] |= char((uint8_t(bytes[i]) & 0xf) << (i % 2 ? 4 : 0));
  return packed;
}

/// `count` elements of one byte each from packed nibbles, sign-extended
/// when `isSigned`.
static std::string unpackNibbles(StringRef packed, int64_t count,
                                 bool isSigned) {
  std::string bytes(count, '\0');
  for (int64_t i = 0; i < count; ++i) {
    uint8_t nibble = (uint8_t(packed[i / 2]) >> (i % 2 ? 4 : 0)) & 0xf;
    bytes[i] = char(isSigned && (nibble & 0x8) ? nibble | 0xf0 : nibble);
  }
  return bytes;
}

FailureOr<int64_t> onnx_io::getNumElements(Location loc, StringRef what,
                                           ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return emitError(loc)
             << what << " has a negative dimension (" << dim << ")";
    if (llvm::MulOverflow(count, dim, count))
      return emitError(loc) << what
                            << " has more elements than fit in 64 "
                               "bits";
  }
  return count;
}

/// The typed-field payload of `tensor` as raw little-endian bytes of
/// `onnxType`, checking that it holds `count` elements.
static FailureOr<std::string> packTypedData(const TensorProto &tensor,
                                            int32_t onnxType, int64_t count,
                                            Location loc) {
  auto mismatch = [&](int64_t have) {
    return emitError(loc) << "tensor '" << tensor.name() << "' declares "
                          << count << " elements but holds " << have;
  };
  std::string bytes;
  auto packAs = [&](const auto &field, auto convert) -> LogicalResult {
    if (int64_t(field.size()) != count)
      return mismatch(field.size());
    using Out = decltype(convert(*field.begin()));
    bytes.resize(size_t(count) * sizeof(Out));
    char *out = bytes.data();
    for (const auto &v : field) {
      Out converted = convert(v);
      std::memcpy(out, &converted, sizeof(Out));
      out += sizeof(Out);
    }
    return success();
  };
  LogicalResult result = failure();
  switch (onnxType) {
  case TensorProto::FLOAT:
    result = packAs(tensor.float_data(), [](float v) { return v; });
    break;
  case TensorProto::DOUBLE:
    result = packAs(tensor.double_data(), [](double v) { return v; });
    break;
  case TensorProto::INT64:
    result = packAs(tensor.int64_data(), [](int64_t v) { return v; });
    break;
  case TensorProto::UINT32:
    result =
        packAs(tensor.uint64_data(), [](uint64_t v) { return uint32_t(v); });
    break;
  case TensorProto::UINT64:
    result = packAs(tensor.uint64_data(), [](uint64_t v) { return v; });
    break;
  case TensorProto::INT32:
    result = packAs(tensor.int32_data(), [](int32_t v) { return v; });
    break;
  case TensorProto::INT16:
    result = packAs(tensor.int32_data(), [](int32_t v) { return int16_t(v); });
    break;
  case TensorProto::UINT16:
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    // 16-bit floats travel as their bit patterns in int32_data.
    result = packAs(tensor.int32_data(), [](int32_t v) { return uint16_t(v); });
    break;
  case TensorProto::INT8:
    result = packAs(tensor.int32_data(), [](int32_t v) { return int8_t(v); });
    break;
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    result = packAs(tensor.int32_data(), [](int32_t v) { return uint8_t(v); });
    break;
  case TensorProto::FLOAT8E4M3FN:
    // 8-bit floats travel as their bit patterns in int32_data.
    result = packAs(tensor.int32_data(), [](int32_t v) { return uint8_t(v); });
    break;
  case TensorProto::INT4:
  case TensorProto::UINT4:
    // One int32 per byte of packed pairs.
    count = (count + 1) / 2;
    result = packAs(tensor.int32_data(), [](int32_t v) { return uint8_t(v); });
    break;
  default:
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has an unsupported data type (" << onnxType
                          << ")";
  }
  if (failed(result))
    return failure();
  return bytes;
}

/// Checks what every tensor reader needs: a known type, internal data, and
/// data whose size matches the dimensions. Returns the element count.
FailureOr<int64_t> onnx_io::checkTensor(const TensorProto &tensor,
                                        Location loc) {
  // Import reads external data first (loadExternalData); a tensor that
  // still points outside was not reached by it.
  if (hasExternalData(tensor))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' keeps its data in an external file that "
                             "was not read";
  if (tensor.has_segment())
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' is segmented, which is not supported";
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  FailureOr<int64_t> count =
      getNumElements(loc, "tensor '" + tensor.name() + "'", dims);
  if (failed(count))
    return failure();
  if (getElementByteSize(tensor.data_type()) == 0)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has an unsupported data type ("
                          << tensor.data_type() << ")";
  if (tensor.has_raw_data()) {
    std::optional<uint64_t> size = getRawDataSize(tensor.data_type(), *count);
    if (!size || *size != tensor.raw_data().size())
      return emitError(loc)
             << "tensor '" << tensor.name() << "' declares "
             << describeElements(tensor.data_type(), *count)
             << " but its raw_data holds " << tensor.raw_data().size()
             << " bytes";
  }
  return count;
}

FailureOr<ElementsAttr> onnx_io::importTensor(TensorProto &tensor, Location loc,
                                              StringRef resourceName,
                                              Type elementType) {
  FailureOr<int64_t> count = checkTensor(tensor, loc);
  if (failed(count))
    return failure();
  MLIRContext *ctx = loc.getContext();
  int32_t onnxType = tensor.data_type();
  if (!elementType)
    elementType = getElementType(ctx, onnxType);
  if (!elementType)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has an unsupported data type (" << onnxType
                          << ")";
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  auto type = RankedTensorType::get(dims, elementType);

  std::string bytes;
  if (tensor.has_raw_data()) {
    // Large weights: hand protobuf's buffer to a blob. The proto keeps an
    // empty string, so the bytes exist once. Packed 4-bit data is unpacked
    // below, a byte per element.
    if (tensor.raw_data().size() > kMaxInlineBytes &&
        onnxType != TensorProto::BOOL && !isNibblePacked(onnxType)) {
      auto *owned = new std::string(std::move(*tensor.mutable_raw_data()));
      tensor.clear_raw_data();
      AsmResourceBlob blob(
          ArrayRef<char>(owned->data(), owned->size()),
          getElementByteSize(onnxType),
          [owned](void *, size_t, size_t) { delete owned; },
          /*dataIsMutable=*/true);
      return cast<ElementsAttr>(
          DenseResourceElementsAttr::get(type, resourceName, std::move(blob)));
    }
    bytes = tensor.raw_data();
  } else {
    FailureOr<std::string> packed =
        packTypedData(tensor, onnxType, *count, loc);
    if (failed(packed))
      return failure();
    bytes = std::move(*packed);
  }

  if (isNibblePacked(onnxType))
    bytes = unpackNibbles(bytes, *count, onnxType == TensorProto::INT4);
  if (onnxType == TensorProto::BOOL) {
    SmallVector<bool> values;
    values.reserve(bytes.size());
    for (char c : bytes)
      values.push_back(c != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  if (*count == 0)
    return cast<ElementsAttr>(
        DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>()));
  if (bytes.size() > kMaxInlineBytes) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()),
        getElementByteSize(onnxType));
    return cast<ElementsAttr>(
        DenseResourceElementsAttr::get(type, resourceName, std::move(blob)));
  }
  return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size())));
}

FailureOr<std::string> onnx_io::getRawBytes(ElementsAttr value, Location loc) {
  auto type = cast<ShapedType>(value.getType());
  Type elementType = type.getElementType();
  int64_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc) << "resource '" << resource.getRawHandle().getKey()
                            << "' has no data";
    ArrayRef<char> data = blob->getData();
    unsigned width = elementType.getIntOrFloatBitWidth();
    uint64_t expected = uint64_t(count) * ((width + 7) / 8);
    if (data.size() != expected)
      return emitError(loc)
             << "resource '" << resource.getRawHandle().getKey() << "' holds "
             << data.size() << " bytes, " << expected << " expected";
    return std::string(data.data(), data.size());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc) << "cannot write this kind of constant to ONNX";
  if (elementType.isInteger(1)) {
    std::string bytes;
    bytes.reserve(count);
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
    return bytes;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::string(raw.data(), raw.size());
  std::string bytes;
  bytes.reserve(raw.size() * count);
  for (int64_t i = 0; i < count; ++i)
    bytes.append(raw.data(), raw.size());
  return bytes;
}

LogicalResult onnx_io::exportTensor(ElementsAttr value, TensorProto &tensor,
                                    Location loc) {
  auto type = cast<ShapedType>(value.getType());
  if (!type.hasStaticShape())
    return emitError(loc) << "cannot write a constant of dynamic shape";
  int32_t onnxType = getONNXElementType(type.getElementType());
  if (!onnxType)
    return emitError(loc) << "ONNX has no tensor type for "
                          << type.getElementType();
  tensor.set_data_type(onnxType);
  for (int64_t dim : type.getShape())
    tensor.add_dims(dim);
  FailureOr<std::string> bytes = getRawBytes(value, loc);
  if (failed(bytes))
    return failure();
  if (isNibblePacked(onnxType))
    *bytes = packNibbles(*bytes);
  *tensor.mutable_raw_data() = std::move(*bytes);
  return success();
}
