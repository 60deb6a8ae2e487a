//===- Npz.cpp - NumPy .npz archives of named arrays ----------------------===//
//
// An .npz file is a zip archive of .npy files, one per array, named after
// it (numpy.savez stores them, numpy.savez_compressed deflates them). The
// archive is mapped; a stored array is read in place, a deflated one is
// inflated into memory of its own. Every offset and size read from the file
// is checked against the file before use: a hostile archive is an error
// naming it, never a read outside the mapping.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Execution/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <limits>
#include <zlib.h>

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A view of part of a shared buffer that keeps the buffer alive.
class SharedSlice : public llvm::MemoryBuffer {
public:
  SharedSlice(std::shared_ptr<llvm::MemoryBuffer> whole, StringRef part)
      : whole(std::move(whole)) {
    init(part.begin(), part.end(), /*RequiresNullTerminator=*/false);
  }
  BufferKind getBufferKind() const override { return whole->getBufferKind(); }

private:
  std::shared_ptr<llvm::MemoryBuffer> whole;
};

/// Little-endian fields of the mapped archive, bounds-checked.
class ZipReader {
public:
  explicit ZipReader(StringRef bytes) : bytes(bytes) {}
  bool has(uint64_t offset, uint64_t size) const {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  }
  template <typename T> T read(uint64_t offset) const {
    return llvm::support::endian::read<T, llvm::endianness::little>(
        bytes.data() + offset);
  }
  StringRef slice(uint64_t offset, uint64_t size) const {
    return bytes.substr(offset, size);
  }
  StringRef bytes;
};

/// Where the central directory is, and how many entries it lists.
struct Directory {
  uint64_t offset = 0, entries = 0;
};
} // namespace

static constexpr uint32_t kEndOfDirectory = 0x06054b50,
                          kZip64EndLocator = 0x07064b50, kZip64End = 0x06064b50,
                          kDirectoryEntry = 0x02014b50,
                          kLocalHeader = 0x04034b50;
static constexpr uint16_t kStored = 0, kDeflated = 8, kZip64Extra = 1;
/// The alignment of array data in .npy files numpy writes.
static constexpr uintptr_t kArrayAlignment = 64;

/// The central directory, from the end-of-directory record (the last one in
/// the file; a comment of up to 64 KiB may follow it) and, where its fields
/// overflowed, the ZIP64 record.
static std::optional<Directory> findDirectory(const ZipReader &zip) {
  uint64_t size = zip.bytes.size();
  if (size < 22)
    return std::nullopt;
  uint64_t lowest = size > 22 + 0xffff ? size - 22 - 0xffff : 0;
  for (uint64_t at = size - 22;; --at) {
    if (zip.read<uint32_t>(at) == kEndOfDirectory) {
      Directory dir{zip.read<uint32_t>(at + 16), zip.read<uint16_t>(at + 10)};
      if (dir.offset != 0xffffffff && dir.entries != 0xffff)
        return dir;
      // ZIP64: the locator sits just before the record.
      if (at < 20 || zip.read<uint32_t>(at - 20) != kZip64EndLocator)
        return std::nullopt;
      uint64_t record = zip.read<uint64_t>(at - 20 + 8);
      if (!zip.has(record, 56) || zip.read<uint32_t>(record) != kZip64End)
        return std::nullopt;
      return Directory{zip.read<uint64_t>(record + 48),
                       zip.read<uint64_t>(record + 32)};
    }
    if (at == lowest)
      return std::nullopt;
  }
}

/// The most bytes deflate makes of one compressed byte.
static constexpr uint64_t kMaxInflation = 1032;

/// Inflates raw deflate data into a buffer of `size` bytes (both under
/// 4 GiB, zlib's counts).
static std::unique_ptr<llvm::MemoryBuffer>
inflateEntry(StringRef data, uint64_t size, StringRef name) {
  auto out = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size, name);
  if (!out)
    return nullptr;
  z_stream stream{};
  // Negative window bits: raw deflate, as zip stores it.
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return nullptr;
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
  stream.avail_in = uInt(data.size());
  stream.next_out = reinterpret_cast<Bytef *>(out->getBufferStart());
  stream.avail_out = uInt(size);
  int status = inflate(&stream, Z_FINISH);
  bool complete = status == Z_STREAM_END && stream.total_out == size;
  inflateEnd(&stream);
  if (!complete)
    return nullptr;
  return out;
}

llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
mlir::quant_qdq::readNpz(StringRef path, MLIRContext *context) {
  auto file = mapDataFile(path);
  if (!file)
    return file.takeError();
  return parseNpz(std::move(*file), path, context);
}

llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
mlir::quant_qdq::parseNpz(std::shared_ptr<llvm::MemoryBuffer> archive,
                          StringRef path, MLIRContext *context) {
  auto fail = [&](const Twine &why) {
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   why.str().c_str());
  };
  ZipReader zip(archive->getBuffer());
  std::optional<Directory> dir = findDirectory(zip);
  if (!dir)
    return fail("not an .npz file (no zip directory)");

  std::vector<std::pair<std::string, NpyArray>> arrays;
  uint64_t at = dir->offset;
  for (uint64_t i = 0; i < dir->entries; ++i) {
    if (!zip.has(at, 46) || zip.read<uint32_t>(at) != kDirectoryEntry)
      return fail("malformed zip directory");
    uint16_t method = zip.read<uint16_t>(at + 10);
    uint64_t packed = zip.read<uint32_t>(at + 20);
    uint64_t size = zip.read<uint32_t>(at + 24);
    uint16_t nameLength = zip.read<uint16_t>(at + 28);
    uint16_t extraLength = zip.read<uint16_t>(at + 30);
    uint16_t commentLength = zip.read<uint16_t>(at + 32);
    uint64_t local = zip.read<uint32_t>(at + 42);
    if (!zip.has(at + 46, uint64_t(nameLength) + extraLength + commentLength))
      return fail("malformed zip directory");
    std::string name = zip.slice(at + 46, nameLength).str();
    // Sizes and offsets that overflowed 32 bits are in the ZIP64 extra
    // field, in this order, each only where the 32-bit one is all ones.
    uint64_t extra = at + 46 + nameLength, extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      uint16_t id = zip.read<uint16_t>(extra);
      uint64_t field = extra + 4,
               fieldEnd = field + zip.read<uint16_t>(extra + 2);
      if (fieldEnd > extraEnd)
        break;
      if (id == kZip64Extra)
        for (uint64_t *value : {&size, &packed, &local})
          if (*value == 0xffffffff && field + 8 <= fieldEnd) {
            *value = zip.read<uint64_t>(field);
            field += 8;
          }
      extra = fieldEnd;
    }
    at += 46 + uint64_t(nameLength) + extraLength + commentLength;

    StringRef arrayName(name);
    if (!arrayName.consume_back(".npy"))
      return fail("holds '" + name + "', not a .npy array");
    if (!zip.has(local, 30) || zip.read<uint32_t>(local) != kLocalHeader)
      return fail("malformed zip entry '" + name + "'");
    uint64_t data = local + 30 + zip.read<uint16_t>(local + 26) +
                    zip.read<uint16_t>(local + 28);
    if (!zip.has(data, packed))
      return fail("zip entry '" + name + "' runs past the end of the file");
    std::unique_ptr<llvm::MemoryBuffer> npy;
    if (method == kStored && packed == size) {
      npy = std::make_unique<SharedSlice>(archive, zip.slice(data, packed));
    } else if (method == kDeflated) {
      // Deflate turns a byte into at most 1032 (a 258-byte match per two
      // bits): a larger size is a lie that would allocate it first.
      if (size > packed * kMaxInflation + kMaxInflation)
        return fail("zip entry '" + name + "' declares " + Twine(size) +
                    " bytes, more than its " + Twine(packed) +
                    " deflated bytes can hold");
      if (size > std::numeric_limits<uInt>::max() ||
          packed > std::numeric_limits<uInt>::max())
        return fail("zip entry '" + name +
                    "' is deflated and over 4 GiB: save it with numpy.savez "
                    "(stored), which is read in place");
      npy = inflateEntry(zip.slice(data, packed), size, name);
      if (!npy)
        return fail("cannot inflate zip entry '" + name + "'");
    } else {
      return fail("zip entry '" + name + "' uses compression method " +
                  Twine(method) +
                  " (numpy.savez stores, and "
                  "numpy.savez_compressed deflates)");
    }
    auto array = parseNpy(std::move(npy), (path + ":" + name).str(), context);
    if (!array)
      return array.takeError();
    // A stored array starts wherever the zip entry put it; the executors
    // read arrays aligned as .npy files and allocations are.
    if (reinterpret_cast<uintptr_t>(array->bytes) % kArrayAlignment != 0) {
      NpyArray copy = NpyArray::allocate(array->elementType, array->shape,
                                         array->isUnsigned);
      // An empty array allocates nothing: no copy (memcpy wants pointers).
      if (array->getNumBytes() != 0)
        std::memcpy(copy.bytes, array->bytes, array->getNumBytes());
      *array = std::move(copy);
    }
    arrays.emplace_back(arrayName.str(), std::move(*array));
  }
  return arrays;
}

llvm::Expected<SmallVector<NpyArray, 1>>
mlir::quant_qdq::readNpzInputs(StringRef path, ArrayRef<std::string> inputNames,
                               MLIRContext *context) {
  auto named = readNpz(path, context);
  if (!named)
    return named.takeError();
  std::string inputs = llvm::join(inputNames, ", ");
  auto fail = [&](const Twine &why) {
    return llvm::createStringError("%s: %s (its inputs: %s)",
                                   path.str().c_str(), why.str().c_str(),
                                   inputs.c_str());
  };
  SmallVector<NpyArray, 1> arrays(inputNames.size());
  for (auto &[name, array] : *named) {
    const auto *input = llvm::find(inputNames, name);
    if (input == inputNames.end())
      return fail("holds an array '" + name +
                  "', which is no input of the model");
    arrays[input - inputNames.begin()] = std::move(array);
  }
  for (auto [name, array] : llvm::zip(inputNames, arrays))
    if (!array.elementType)
      return fail("has no array for the model's input '" + name + "'");
  return arrays;
}
