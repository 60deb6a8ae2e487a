//===- Npy.cpp - NumPy .npy arrays in and out -----------------------------===//

#include "QuantQDQ/Execution/Npy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace mlir;
using namespace mlir::quant_qdq;

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  return count;
}

static unsigned getElementBytes(Type type) {
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

NpyArray NpyArray::allocate(Type elementType, ArrayRef<int64_t> shape,
                            bool isUnsigned) {
  NpyArray array;
  array.elementType = elementType;
  array.shape.assign(shape.begin(), shape.end());
  array.elementBytes = getElementBytes(elementType);
  array.isUnsigned = isUnsigned;
  auto storage = std::make_shared<std::vector<uint8_t>>(array.getNumBytes());
  array.bytes = storage->data();
  array.owner = std::move(storage);
  return array;
}

NpyArray NpyArray::slice(int64_t begin, int64_t count) const {
  NpyArray view = *this;
  view.shape[0] = count;
  view.bytes = bytes + begin * (getNumBytes() / std::max<int64_t>(1, shape[0]));
  return view;
}

bool mlir::quant_qdq::isConvertibleElementType(Type from, Type to) {
  return from == to || (isa<FloatType>(from) && isa<FloatType>(to));
}

bool mlir::quant_qdq::holdsElementType(const NpyArray &array, Type type) {
  if (array.elementType == type)
    return true;
  auto held = dyn_cast<IntegerType>(array.elementType);
  auto wanted = dyn_cast<IntegerType>(type);
  if (!held || !wanted || held.getWidth() != wanted.getWidth())
    return false;
  if (wanted.isUnsigned())
    return array.isUnsigned;
  return wanted.isSignless();
}

NpyArray mlir::quant_qdq::convertFloatElements(const NpyArray &array,
                                               Type elementType) {
  auto from = dyn_cast<FloatType>(array.elementType);
  auto to = dyn_cast<FloatType>(elementType);
  if (!from || !to || from == to)
    return array;
  NpyArray converted = NpyArray::allocate(elementType, array.shape);
  int64_t count = array.getNumElements();
  if (from.isF64() && to.isF32()) {
    const auto *in = reinterpret_cast<const double *>(array.bytes);
    auto *out = reinterpret_cast<float *>(converted.bytes);
    for (int64_t i = 0; i < count; ++i)
      out[i] = float(in[i]);
    return converted;
  }
  // Other pairs (float16 data, a float64 model) are rare: APFloat, exact
  // round to nearest even.
  unsigned inBits = from.getWidth(), outBits = to.getWidth();
  for (int64_t i = 0; i < count; ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, array.bytes + i * array.elementBytes,
                array.elementBytes);
    llvm::APFloat value(from.getFloatSemantics(), llvm::APInt(inBits, raw));
    bool lost;
    value.convert(to.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                  &lost);
    uint64_t bits = value.bitcastToAPInt().getZExtValue();
    std::memcpy(converted.bytes + i * converted.elementBytes, &bits,
                outBits / 8);
  }
  return converted;
}

namespace {
struct Dtype {
  StringLiteral name;
  unsigned bytes;
  bool isFloat, isUnsigned;
};
} // namespace

static constexpr Dtype kDtypes[] = {
    {"<f4", 4, true, false}, {"<f8", 8, true, false},
    {"<f2", 2, true, false}, {"|i1", 1, false, false},
    {"|u1", 1, false, true}, {"<i2", 2, false, false},
    {"<u2", 2, false, true}, {"<i4", 4, false, false},
    {"<u4", 4, false, true}, {"<i8", 8, false, false},
    {"<u8", 8, false, true}, {"|b1", 1, false, true}};

static Type getElementType(MLIRContext *ctx, const Dtype &dtype) {
  Builder b(ctx);
  if (dtype.isFloat)
    return dtype.bytes == 4   ? Type(b.getF32Type())
           : dtype.bytes == 8 ? Type(b.getF64Type())
                              : Type(b.getF16Type());
  return b.getIntegerType(dtype.name == "|b1" ? 1 : dtype.bytes * 8);
}

std::string mlir::quant_qdq::getNpyDtype(Type elementType, bool isUnsigned) {
  if (elementType.isInteger(1))
    return "|b1";
  for (const Dtype &dtype : kDtypes)
    if (dtype.isFloat == isa<FloatType>(elementType) &&
        dtype.bytes * 8 == elementType.getIntOrFloatBitWidth() &&
        (dtype.isFloat || dtype.isUnsigned == isUnsigned) &&
        dtype.name != "|b1" &&
        // bf16 is 2 bytes too, but not '<f2' (IEEE half).
        (!dtype.isFloat ||
         getElementType(elementType.getContext(), dtype) == elementType))
      return dtype.name.str();
  return "";
}

/// The value text of `key` in the header dictionary, e.g. 'descr'.
static std::optional<StringRef> findValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mlir::quant_qdq::mapDataFile(StringRef path) {
  auto fail = [&](const Twine &why) {
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   why.str().c_str());
  };
  // A device or a pipe (/dev/zero) would be read until memory runs out.
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return fail("cannot read: " + ec.message());
  if (!llvm::sys::fs::is_regular_file(status))
    return fail("not a regular file");
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return fail("cannot read: " + file.getError().message());
  return std::move(*file);
}

llvm::Expected<NpyArray> mlir::quant_qdq::readNpy(StringRef path,
                                                  MLIRContext *context) {
  auto file = mapDataFile(path);
  if (!file)
    return file.takeError();
  return parseNpy(std::move(*file), path, context);
}

llvm::Expected<NpyArray>
mlir::quant_qdq::parseNpy(std::unique_ptr<llvm::MemoryBuffer> file,
                          StringRef name, MLIRContext *context) {
  auto fail = [&](const Twine &why) {
    return llvm::createStringError("%s: %s", name.str().c_str(),
                                   why.str().c_str());
  };
  StringRef bytes = file->getBuffer();
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fail("not a .npy file");
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLength = uint32_t(uint8_t(bytes[8])) |
                   (uint32_t(uint8_t(bytes[9])) << 8) |
                   (uint32_t(uint8_t(bytes[10])) << 16) |
                   (uint32_t(uint8_t(bytes[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + Twine(int(major)));
  }
  if (headerStart + headerLength > bytes.size())
    return fail("truncated header");
  StringRef header = bytes.substr(headerStart, headerLength);

  std::optional<StringRef> descr = findValue(header, "descr");
  std::optional<StringRef> order = findValue(header, "fortran_order");
  std::optional<StringRef> shapeText = findValue(header, "shape");
  if (!descr || !order || !shapeText)
    return fail("malformed header");
  if (order->starts_with("True"))
    return fail("Fortran-order arrays are not supported; save with "
                "np.ascontiguousarray");
  StringRef dtypeName = descr->drop_front().take_until(
      [](char c) { return c == '\'' || c == '"'; });
  // '=' and '<' mean little-endian here; a one-byte type may say either.
  std::string normalized = dtypeName.str();
  if (!normalized.empty() && normalized[0] == '=')
    normalized[0] = '<';
  if (normalized == "<i1" || normalized == "<u1" || normalized == "<b1")
    normalized[0] = '|';
  const Dtype *dtype = llvm::find_if(
      kDtypes, [&](const Dtype &d) { return d.name == normalized; });
  if (dtype == std::end(kDtypes))
    return fail("unsupported dtype '" + dtypeName +
                "' (use float32, float64, float16, int8, uint8, int32, "
                "int64 or bool, little-endian)");

  NpyArray array;
  array.elementType = getElementType(context, *dtype);
  array.elementBytes = dtype->bytes;
  array.isUnsigned = dtype->isUnsigned;
  StringRef dims = shapeText->drop_front().take_until(
      [](char c) { return c == ')'; });
  SmallVector<StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  uint64_t count = 1;
  for (StringRef part : parts) {
    int64_t d;
    if (part.trim().getAsInteger(10, d) || d < 0)
      return fail("malformed shape (" + dims + ")");
    array.shape.push_back(d);
    if (d != 0 && count > (uint64_t(1) << 40) / uint64_t(d))
      return fail("declared shape is too large");
    count *= d;
  }
  uint64_t payload = count * dtype->bytes;
  size_t dataStart = headerStart + headerLength;
  // Exactly the bytes the shape needs: fewer is a truncated file, more one
  // whose header does not describe it.
  if (bytes.size() - dataStart != payload)
    return fail("holds " + Twine(bytes.size() - dataStart) +
                " bytes of data where its shape needs " + Twine(payload));
  // The bytes stay in the (mapped) file buffer; alignment of the data
  // start is whatever the header made it (64 bytes for files numpy writes).
  std::shared_ptr<llvm::MemoryBuffer> buffer(std::move(file));
  array.bytes = reinterpret_cast<uint8_t *>(
      const_cast<char *>(buffer->getBufferStart())) + dataStart;
  array.owner = std::move(buffer);
  return array;
}

llvm::Error mlir::quant_qdq::writeNpy(StringRef path, const NpyArray &array) {
  std::string dtype = getNpyDtype(array.elementType, array.isUnsigned);
  // NumPy has no bfloat16 or FP8: such floats are written as float32,
  // which holds them exactly.
  auto floatType = dyn_cast<FloatType>(array.elementType);
  if (dtype.empty() && floatType && floatType.getWidth() < 32)
    return writeNpy(path, convertFloatElements(
                              array, Float32Type::get(floatType.getContext())));
  if (dtype.empty())
    return llvm::createStringError("%s: no .npy dtype for this element type",
                                   path.str().c_str());
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.erase(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + dtype +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending in '\n'.
  size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  size_t payload = array.getNumBytes();
  auto buffer =
      llvm::FileOutputBuffer::create(path, 10 + header.size() + payload);
  if (!buffer)
    return buffer.takeError();
  uint8_t *out = (*buffer)->getBufferStart();
  std::memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = header.size() & 0xff;
  out[9] = header.size() >> 8;
  std::memcpy(out + 10, header.data(), header.size());
  std::memcpy(out + 10 + header.size(), array.bytes, payload);
  return (*buffer)->commit();
}
