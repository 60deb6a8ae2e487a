//===- QuantizationSpec.cpp - read the user's per-layer choices -----------===//
//
// The spec is JSON, parsed by llvm::json. llvm::json keeps no positions, so
// a JsonLocator scans the (already valid) text once more and records where
// each value starts, by its path ("[0].quantize_input"); a wrong field type
// is then reported at its line and column like a syntax error.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/QuantizationSpec.h"
#include "QuantQDQ/Utils/JSONText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::quant_qdq;
namespace json = llvm::json;

void QuantizationSpec::index() {
  for (auto [i, entry] : llvm::enumerate(entries)) {
    if (entry.match == SpecEntry::Match::Name)
      byName.try_emplace(entry.pattern, i);
    else if (entry.match == SpecEntry::Match::Class)
      byClass.try_emplace(entry.pattern, i);
  }
}

const SpecEntry *QuantizationSpec::lookup(StringRef layerName,
                                          StringRef layerClass) const {
  if (!layerName.empty()) {
    auto it = byName.find(layerName);
    if (it != byName.end())
      return &entries[it->second];
  }
  auto it = byClass.find(layerClass);
  if (it != byClass.end())
    return &entries[it->second];
  if (!layerName.empty())
    for (const SpecEntry &entry : entries)
      if (entry.match == SpecEntry::Match::Substring &&
          layerName.contains(entry.pattern))
        return &entry;
  return nullptr;
}

namespace {
/// Byte offsets of the values of a valid JSON text, by path.
class JsonLocator {
public:
  explicit JsonLocator(StringRef text) : text(text) { scanValue(""); }

  /// Offset of the value at `path`, or of the document start.
  size_t lookup(StringRef path) const {
    auto it = offsets.find(path);
    return it == offsets.end() ? 0 : it->second;
  }

private:
  void skipSpace() {
    while (pos < text.size() && StringRef(" \t\r\n").contains(text[pos]))
      ++pos;
  }
  /// Reads a string token (pos at its opening quote) and returns its text
  /// with simple escapes resolved; \u escapes stay as written.
  std::string scanString() {
    std::string out;
    for (++pos; pos < text.size() && text[pos] != '"'; ++pos) {
      if (text[pos] == '\\' && pos + 1 < text.size()) {
        char c = text[++pos];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        continue;
      }
      out += text[pos];
    }
    ++pos;
    return out;
  }
  void scanValue(const std::string &path) {
    skipSpace();
    offsets.try_emplace(path, pos);
    if (pos >= text.size())
      return;
    char c = text[pos];
    if (c == '"') {
      scanString();
    } else if (c == '[') {
      ++pos;
      for (unsigned i = 0;; ++i) {
        skipSpace();
        if (pos >= text.size() || text[pos] == ']')
          break;
        scanValue(path + "[" + std::to_string(i) + "]");
        skipSpace();
        if (pos < text.size() && text[pos] == ',')
          ++pos;
      }
      ++pos;
    } else if (c == '{') {
      ++pos;
      for (;;) {
        skipSpace();
        if (pos >= text.size() || text[pos] == '}')
          break;
        size_t keyPos = pos;
        std::string key = path + "." + scanString();
        offsets.try_emplace(key + "#key", keyPos);
        skipSpace();
        ++pos; // ':'
        scanValue(key);
        skipSpace();
        if (pos < text.size() && text[pos] == ',')
          ++pos;
      }
      ++pos;
    } else {
      while (pos < text.size() && !StringRef(",]} \t\r\n").contains(text[pos]))
        ++pos;
    }
  }

  StringRef text;
  size_t pos = 0;
  llvm::StringMap<size_t> offsets;
};
} // namespace

namespace mlir::quant_qdq {
/// Reads spec entries from the parsed JSON, reporting the first error at
/// the position of the offending value.
class SpecParser {
public:
  SpecParser(StringRef text, StringRef bufferName, MLIRContext *context)
      : text(text), locator(text), bufferName(bufferName), context(context) {}

  FailureOr<QuantizationSpec> parse(const json::Value &root);

private:
  Location locOf(StringRef path) {
    size_t offset = locator.lookup(path);
    StringRef before = text.take_front(offset);
    unsigned line = before.count('\n') + 1;
    size_t lineStart = before.rfind('\n');
    unsigned col = offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
    return FileLineColLoc::get(context, bufferName, line, col);
  }
  LogicalResult error(StringRef path, const Twine &message) {
    return emitError(locOf(path)) << message.str();
  }

  LogicalResult parseBool(const json::Value &value, StringRef path,
                          bool &out);
  LogicalResult parseString(const json::Value &value, StringRef path,
                            std::string &out);
  LogicalResult parseIndex(const json::Value &value, StringRef path,
                           unsigned &out);
  LogicalResult parseIndexList(const json::Value &value, StringRef path,
                               std::optional<SmallVector<unsigned>> &out);
  LogicalResult parseQuantizer(const json::Value &value, StringRef path,
                               QuantizerOverride &out);
  /// A flag, or a list of flags with one per name.
  LogicalResult parseFlags(const json::Value &value, StringRef path,
                           size_t count, bool fallback,
                           SmallVectorImpl<bool> &out);
  LogicalResult parseEntry(const json::Object &entry, StringRef path,
                           QuantizationSpec &spec);

  StringRef text;
  JsonLocator locator;
  std::string bufferName;
  MLIRContext *context;
};
} // namespace mlir::quant_qdq

LogicalResult SpecParser::parseBool(const json::Value &value, StringRef path,
                                    bool &out) {
  if (std::optional<bool> flag = value.getAsBoolean()) {
    out = *flag;
    return success();
  }
  return error(path, "expected true or false");
}

LogicalResult SpecParser::parseString(const json::Value &value, StringRef path,
                                      std::string &out) {
  std::optional<StringRef> str = value.getAsString();
  if (!str || str->empty())
    return error(path, "expected a non-empty string");
  out = str->str();
  return success();
}

LogicalResult SpecParser::parseIndex(const json::Value &value, StringRef path,
                                     unsigned &out) {
  std::optional<int64_t> index = value.getAsInteger();
  if (!index || *index < 0 || *index > std::numeric_limits<int32_t>::max())
    return error(path, "expected a non-negative integer");
  out = *index;
  return success();
}

LogicalResult
SpecParser::parseIndexList(const json::Value &value, StringRef path,
                           std::optional<SmallVector<unsigned>> &out) {
  if (value.kind() == json::Value::Null) {
    out = std::nullopt;
    return success();
  }
  SmallVector<unsigned> indices;
  if (const json::Array *list = value.getAsArray()) {
    for (auto [i, item] : llvm::enumerate(*list)) {
      unsigned index;
      if (failed(parseIndex(item, (path + "[" + Twine(i) + "]").str(), index)))
        return failure();
      indices.push_back(index);
    }
  } else {
    unsigned index;
    if (failed(parseIndex(value, path, index)))
      return failure();
    indices.push_back(index);
  }
  out = std::move(indices);
  return success();
}

LogicalResult SpecParser::parseQuantizer(const json::Value &value,
                                         StringRef path,
                                         QuantizerOverride &out) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return error(path, "expected a quantizer object such as "
                       "{\"bits\": 8, \"symmetric\": true}");
  // TFMOT's names for two fields (its quantizers' constructor arguments),
  // so a spec written from a TFMOT config reads unchanged.
  static constexpr std::pair<StringLiteral, StringLiteral> kTFMOTNames[] = {
      {"num_bits", "bits"}, {"per_axis", "per_channel"}};
  for (auto [tfmot, ours] : kTFMOTNames)
    if (object->get(tfmot) && object->get(ours))
      return error((path + "." + tfmot).str() + "#key",
                   "'" + tfmot + "' is TFMOT's name for '" + ours +
                       "': give one of them");
  for (const auto &[objectKey, field] : *object) {
    StringRef key = objectKey;
    std::string fieldPath = (path + "." + key).str();
    for (auto [tfmot, ours] : kTFMOTNames)
      if (key == tfmot)
        key = ours;
    if (key == "bits") {
      std::optional<int64_t> bits = field.getAsInteger();
      if (!bits || *bits < 2 || *bits > 16)
        return error(fieldPath, "bits must be an integer in [2, 16]");
      out.bits = *bits;
      continue;
    }
    if (key == "format") {
      // insert-qdq's format names, for one entry.
      std::optional<StringRef> name = field.getAsString();
      std::optional<QuantizerFormat> format =
          lookupQuantizerFormat(name.value_or(""));
      if (!format) {
        std::string names;
        for (const QuantizerFormat &known : getQuantizerFormats())
          names += (names.empty() ? "" : ", ") + known.name.str();
        return error(fieldPath, "format must be one of " + names);
      }
      for (StringRef width : {"bits", "num_bits"})
        if (const json::Value *given = object->get(width);
            given && given->getAsInteger() != int64_t(format->bits))
          return error(fieldPath, "format " + name->str() + " stores " +
                                      std::to_string(format->bits) +
                                      " bits, and '" + width.str() +
                                      "' says otherwise: give one");
      out.bits = format->bits;
      out.storage = format->storage;
      continue;
    }
    if (key == "block_size") {
      std::optional<int64_t> size = field.getAsInteger();
      if (!size || *size < 0)
        return error(fieldPath, "block_size must be 0 (per channel) or a "
                                "positive integer");
      out.blockSize = *size;
      continue;
    }
    if (key == "calibration") {
      std::optional<StringRef> name = field.getAsString();
      std::optional<CalibrationMethod> method =
          name ? symbolizeCalibrationMethod(*name) : std::nullopt;
      if (!method)
        return error(fieldPath, "calibration must be one of max, percentile, "
                                "entropy, mse, last-value, moving-average");
      out.calibration = *method;
      continue;
    }
    std::optional<bool> *target =
        llvm::StringSwitch<std::optional<bool> *>(key)
            .Case("signed", &out.isSigned)
            .Case("narrow_range", &out.narrowRange)
            .Case("symmetric", &out.symmetric)
            .Case("per_channel", &out.perChannel)
            .Default(nullptr);
    if (!target)
      return error(fieldPath + "#key",
                   "unknown quantizer field '" + key.str() +
                       "' (expected bits, format, signed, narrow_range, "
                       "symmetric, per_channel, block_size, calibration; "
                       "TFMOT's num_bits and per_axis are read as bits and "
                       "per_channel)");
    bool flag;
    if (failed(parseBool(field, fieldPath, flag)))
      return failure();
    *target = flag;
  }
  return success();
}

LogicalResult SpecParser::parseFlags(const json::Value &value, StringRef path,
                                     size_t count, bool fallback,
                                     SmallVectorImpl<bool> &out) {
  const json::Array *list = value.getAsArray();
  if (!list) {
    bool flag = fallback;
    if (failed(parseBool(value, path, flag)))
      return failure();
    out.assign(count, flag);
    return success();
  }
  if (list->size() != count)
    return error(path, "expected one value per name (" + Twine(count) +
                           "), got " + Twine(list->size()));
  out.clear();
  for (auto [i, item] : llvm::enumerate(*list)) {
    bool flag;
    if (failed(parseBool(item, (path + "[" + Twine(i) + "]").str(), flag)))
      return failure();
    out.push_back(flag);
  }
  return success();
}

LogicalResult SpecParser::parseEntry(const json::Object &entry,
                                     StringRef path, QuantizationSpec &spec) {
  static constexpr StringLiteral known[] = {
      "name",       "is_keras_class", "quantize_input",  "quantize_weight",
      "quantization_index", "match",  "quantizer",       "input_quantizer",
      "weight_quantizer"};
  for (const auto &field : entry)
    if (!llvm::is_contained(known, field.first.str()))
      return error((path + "." + field.first.str() + "#key").str(),
                   "unknown field '" + field.first.str() +
                       "' (expected name, is_keras_class, quantize_input, "
                       "quantize_weight, quantization_index, match, "
                       "quantizer, input_quantizer, weight_quantizer)");
  auto fieldPath = [&](StringRef key) { return (path + "." + key).str(); };

  // `name` is one name or a list; every other field is then one value for
  // all names or a list with one value per name.
  const json::Value *nameValue = entry.get("name");
  if (!nameValue)
    return error(path, "entry has no 'name'");
  SmallVector<std::string> names;
  if (const json::Array *list = nameValue->getAsArray()) {
    for (auto [i, item] : llvm::enumerate(*list)) {
      std::string name;
      if (failed(parseString(item, fieldPath("name") + "[" + std::to_string(i) + "]",
                             name)))
        return failure();
      names.push_back(std::move(name));
    }
    if (names.empty())
      return error(fieldPath("name"), "expected at least one name");
  } else {
    std::string name;
    if (failed(parseString(*nameValue, fieldPath("name"), name)))
      return failure();
    names.push_back(std::move(name));
  }
  size_t count = names.size();

  SmallVector<bool> isClass(count, false), quantizeInput(count, true),
      quantizeWeight(count, true);
  if (const json::Value *v = entry.get("is_keras_class"))
    if (failed(parseFlags(*v, fieldPath("is_keras_class"), count, false,
                          isClass)))
      return failure();
  if (const json::Value *v = entry.get("quantize_input"))
    if (failed(parseFlags(*v, fieldPath("quantize_input"), count, true,
                          quantizeInput)))
      return failure();
  if (const json::Value *v = entry.get("quantize_weight"))
    if (failed(parseFlags(*v, fieldPath("quantize_weight"), count, true,
                          quantizeWeight)))
      return failure();

  // One index list for every name, or (with several names) a list holding
  // one index list or null per name.
  SmallVector<std::optional<SmallVector<unsigned>>> indices(count);
  if (const json::Value *v = entry.get("quantization_index")) {
    const json::Array *list = v->getAsArray();
    bool perName = count > 1 && list && !list->empty() &&
                   llvm::all_of(*list, [](const json::Value &item) {
                     return item.getAsArray() ||
                            item.kind() == json::Value::Null;
                   });
    if (perName) {
      if (list->size() != count)
        return error(fieldPath("quantization_index"),
                     "expected one index list per name (" + Twine(count) +
                         "), got " + Twine(list->size()));
      for (auto [i, item] : llvm::enumerate(*list))
        if (failed(parseIndexList(item,
                                  fieldPath("quantization_index") + "[" +
                                      std::to_string(i) + "]",
                                  indices[i])))
          return failure();
    } else {
      std::optional<SmallVector<unsigned>> shared;
      if (failed(parseIndexList(*v, fieldPath("quantization_index"), shared)))
        return failure();
      indices.assign(count, shared);
    }
  }

  SpecEntry::Match textMatch = SpecEntry::Match::Name;
  if (const json::Value *v = entry.get("match")) {
    std::string how;
    if (failed(parseString(*v, fieldPath("match"), how)))
      return failure();
    if (how == "substring")
      textMatch = SpecEntry::Match::Substring;
    else if (how != "exact")
      return error(fieldPath("match"),
                   "match must be \"exact\" or \"substring\"");
  }

  // A field of input_/weight_quantizer overrides the same field of quantizer.
  QuantizerOverride input, weight;
  for (auto [key, target] :
       {std::pair{StringRef("quantizer"), (QuantizerOverride *)nullptr},
        std::pair{StringRef("input_quantizer"), &input},
        std::pair{StringRef("weight_quantizer"), &weight}}) {
    const json::Value *v = entry.get(key);
    if (!v)
      continue;
    if (target) {
      if (failed(parseQuantizer(*v, fieldPath(key), *target)))
        return failure();
      // A weight's scales come from its values: by max, or by rounding
      // error (docs/Quantizers.md).
      if (target == &weight && weight.calibration &&
          *weight.calibration != CalibrationMethod::Max &&
          *weight.calibration != CalibrationMethod::MSE)
        return error(fieldPath(key) + ".calibration",
                     "weights are scaled from their values: a weight's "
                     "calibration is max or mse");
      if (target == &input && input.blockSize)
        return error(fieldPath(key) + ".block_size",
                     "blocks of input channels are for weights; "
                     "block_size applies to weight quantizers");
      continue;
    }
    QuantizerOverride both;
    if (failed(parseQuantizer(*v, fieldPath(key), both)))
      return failure();
    input = weight = both;
    weight.calibration.reset(); // Weights are scaled from their values.
    input.blockSize.reset();    // Blocks are for weights.
  }
  for (auto [key, side] : {std::pair{StringRef("input_quantizer"), &input},
                           std::pair{StringRef("weight_quantizer"), &weight}})
    if (std::string why = side->verify(); !why.empty())
      return error(fieldPath(entry.get(key) ? key : "quantizer"), why);

  for (size_t i = 0; i < count; ++i) {
    if (isClass[i] && textMatch == SpecEntry::Match::Substring)
      return error(path, "an entry cannot be both is_keras_class and a "
                         "substring match");
    spec.entries.push_back(SpecEntry{
        names[i], isClass[i] ? SpecEntry::Match::Class : textMatch,
        quantizeInput[i], quantizeWeight[i], indices[i], input, weight,
        locOf(path)});
  }
  return success();
}

FailureOr<QuantizationSpec> SpecParser::parse(const json::Value &root) {
  QuantizationSpec spec;
  // Either a list of entries, or an object whose "layers" holds them.
  const json::Value *layers = &root;
  std::string layersPath;
  if (const json::Object *object = root.getAsObject()) {
    for (const auto &field : *object)
      if (field.first != "layers")
        return error("." + field.first.str() + "#key",
                     "unknown top-level field '" + field.first.str() +
                         "' (expected 'layers')");
    layers = object->get("layers");
    if (!layers)
      return error("", "spec has no 'layers' list");
    layersPath = ".layers";
  }
  const json::Array *list = layers->getAsArray();
  if (!list)
    return error(layersPath, "expected a list of layer entries");
  for (auto [i, item] : llvm::enumerate(*list)) {
    std::string path = layersPath + "[" + std::to_string(i) + "]";
    const json::Object *entry = item.getAsObject();
    if (!entry)
      return error(path, "expected a layer entry object");
    if (failed(parseEntry(*entry, path, spec)))
      return failure();
  }
  spec.index();
  return spec;
}

FailureOr<QuantizationSpec>
QuantizationSpec::parse(StringRef text, StringRef bufferName,
                        MLIRContext *context) {
  FailureOr<json::Value> root =
      parseJSONText(text, bufferName, "QuantizationSpec", context);
  if (failed(root))
    return failure();
  SpecParser parser(text, bufferName, context);
  return parser.parse(*root);
}

FailureOr<QuantizationSpec>
QuantizationSpec::parseFile(StringRef path, MLIRContext *context) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot read QuantizationSpec '" << path
        << "': " << buffer.getError().message();
    return failure();
  }
  return parse((*buffer)->getBuffer(), path, context);
}
