//===- QuantizationSpec.cpp - read the user's per-layer choices -----------===//
//
// The spec is JSON; it is read with LLVM's YAML parser (JSON is YAML) because
// that parser keeps the position of every node, so that a wrong field type
// is reported at its line and column like a syntax error.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/QuantizationSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace mlir;
using namespace mlir::quant_qdq;
namespace yaml = llvm::yaml;

QuantizerAttr QuantizerOverride::apply(QuantizerAttr base,
                                       std::optional<int64_t> channelAxis) const {
  std::optional<int64_t> axis = base.getAxis();
  if (perChannel)
    axis = *perChannel ? channelAxis : std::nullopt;
  return QuantizerAttr::get(base.getContext(), bits.value_or(base.getBits()),
                            isSigned.value_or(base.getIsSigned()),
                            narrowRange.value_or(base.getNarrowRange()),
                            symmetric.value_or(base.getSymmetric()), axis);
}

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

namespace mlir::quant_qdq {
/// Walks the YAML node tree of a spec, reporting the first error at the
/// position of the offending node.
class SpecParser {
public:
  SpecParser(llvm::SourceMgr &sourceMgr, StringRef bufferName,
             MLIRContext *context, const bool &syntaxErrorSeen)
      : sourceMgr(sourceMgr), bufferName(bufferName), context(context),
        syntaxErrorSeen(syntaxErrorSeen) {}

  FailureOr<QuantizationSpec> parse(yaml::Node *root);

private:
  Location locOf(yaml::Node *node) {
    auto [line, col] =
        sourceMgr.getLineAndColumn(node->getSourceRange().Start);
    return FileLineColLoc::get(context, bufferName, line, col);
  }
  /// Reports a malformed field, unless a syntax error (which may well be
  /// its cause) has been reported already.
  LogicalResult error(yaml::Node *node, const Twine &message) {
    if (syntaxErrorSeen)
      return failure();
    return emitError(locOf(node)) << message.str();
  }

  LogicalResult parseBool(yaml::Node *node, bool &value);
  LogicalResult parseUnsigned(yaml::Node *node, unsigned &value);
  LogicalResult parseString(yaml::Node *node, std::string &value);
  LogicalResult parseIndexList(yaml::Node *node,
                               std::optional<SmallVector<unsigned>> &value);
  LogicalResult parseQuantizer(yaml::Node *node, QuantizerOverride &value);
  LogicalResult parseEntry(yaml::MappingNode *node, QuantizationSpec &spec);

  llvm::SourceMgr &sourceMgr;
  std::string bufferName;
  MLIRContext *context;
  const bool &syntaxErrorSeen;
  SmallString<32> scratch;
};
} // namespace mlir::quant_qdq

/// The text of a plain (unquoted) scalar, or nullopt for anything else.
static std::optional<StringRef> getPlainScalar(yaml::Node *node,
                                               SmallString<32> &scratch) {
  auto *scalar = dyn_cast_or_null<yaml::ScalarNode>(node);
  if (!scalar || scalar->getRawValue().starts_with("\"") ||
      scalar->getRawValue().starts_with("'"))
    return std::nullopt;
  return scalar->getValue(scratch);
}

LogicalResult SpecParser::parseBool(yaml::Node *node, bool &value) {
  std::optional<StringRef> text = getPlainScalar(node, scratch);
  if (text && (*text == "true" || *text == "false")) {
    value = *text == "true";
    return success();
  }
  return error(node, "expected true or false");
}

LogicalResult SpecParser::parseUnsigned(yaml::Node *node, unsigned &value) {
  std::optional<StringRef> text = getPlainScalar(node, scratch);
  if (text && !text->getAsInteger(10, value))
    return success();
  return error(node, "expected a non-negative integer");
}

LogicalResult SpecParser::parseString(yaml::Node *node, std::string &value) {
  auto *scalar = dyn_cast_or_null<yaml::ScalarNode>(node);
  if (!scalar)
    return error(node, "expected a string");
  value = scalar->getValue(scratch).str();
  if (value.empty())
    return error(node, "expected a non-empty string");
  return success();
}

LogicalResult
SpecParser::parseIndexList(yaml::Node *node,
                           std::optional<SmallVector<unsigned>> &value) {
  if (std::optional<StringRef> text = getPlainScalar(node, scratch);
      text && (*text == "null" || *text == "~")) {
    value = std::nullopt;
    return success();
  }
  SmallVector<unsigned> indices;
  if (auto *list = dyn_cast<yaml::SequenceNode>(node)) {
    for (yaml::Node &item : *list) {
      unsigned index;
      if (failed(parseUnsigned(&item, index)))
        return failure();
      indices.push_back(index);
    }
  } else {
    unsigned index;
    if (failed(parseUnsigned(node, index)))
      return error(node, "expected an input index, a list of them, or null");
    indices.push_back(index);
  }
  value = std::move(indices);
  return success();
}

LogicalResult SpecParser::parseQuantizer(yaml::Node *node,
                                         QuantizerOverride &value) {
  auto *map = dyn_cast<yaml::MappingNode>(node);
  if (!map)
    return error(node, "expected a quantizer object such as "
                       "{\"bits\": 8, \"symmetric\": true}");
  for (yaml::KeyValueNode &field : *map) {
    std::string key;
    if (failed(parseString(field.getKey(), key)))
      return failure();
    yaml::Node *val = field.getValue();
    bool flag;
    if (key == "bits") {
      unsigned bits;
      if (failed(parseUnsigned(val, bits)))
        return failure();
      if (bits < 2 || bits > 16)
        return error(val, "bits must be in [2, 16]");
      value.bits = bits;
      continue;
    }
    std::optional<bool> *target =
        llvm::StringSwitch<std::optional<bool> *>(key)
            .Case("signed", &value.isSigned)
            .Case("narrow_range", &value.narrowRange)
            .Case("symmetric", &value.symmetric)
            .Case("per_channel", &value.perChannel)
            .Default(nullptr);
    if (!target)
      return error(field.getKey(),
                   "unknown quantizer field '" + key +
                       "' (expected bits, signed, narrow_range, symmetric, "
                       "per_channel)");
    if (failed(parseBool(val, flag)))
      return failure();
    *target = flag;
  }
  return success();
}

LogicalResult SpecParser::parseEntry(yaml::MappingNode *node,
                                     QuantizationSpec &spec) {
  // The YAML tree can be walked only once, so every field is read as it
  // comes; list-valued fields are matched against the names afterwards.
  struct PerName {
    SmallVector<bool> values;
    Location loc;
  };
  SmallVector<std::string> names;
  std::optional<PerName> isClass, quantizeInput, quantizeWeight;
  std::optional<SmallVector<std::optional<SmallVector<unsigned>>>> nestedIndex;
  std::optional<SmallVector<unsigned>> sharedIndex;
  std::optional<Location> nestedIndexLoc;
  SpecEntry::Match textMatch = SpecEntry::Match::Name;
  QuantizerOverride both, input, weight;
  llvm::StringSet<> seen;

  auto readFlags = [&](yaml::Node *n, std::optional<PerName> &out) {
    PerName flags{{}, locOf(n)};
    if (auto *list = dyn_cast<yaml::SequenceNode>(n)) {
      for (yaml::Node &item : *list) {
        bool flag;
        if (failed(parseBool(&item, flag)))
          return failure();
        flags.values.push_back(flag);
      }
    } else {
      bool flag;
      if (failed(parseBool(n, flag)))
        return failure();
      flags.values.push_back(flag);
    }
    out = std::move(flags);
    return success();
  };

  for (yaml::KeyValueNode &field : *node) {
    std::string key;
    if (failed(parseString(field.getKey(), key)))
      return failure();
    if (!seen.insert(key).second)
      return error(field.getKey(), "duplicate field '" + key + "'");
    yaml::Node *value = field.getValue();
    LogicalResult result = success();
    if (key == "name") {
      if (auto *list = dyn_cast<yaml::SequenceNode>(value)) {
        for (yaml::Node &item : *list) {
          std::string name;
          if (failed(parseString(&item, name)))
            return failure();
          names.push_back(std::move(name));
        }
        if (names.empty())
          return error(value, "expected at least one name");
      } else {
        std::string name;
        result = parseString(value, name);
        names.push_back(std::move(name));
      }
    } else if (key == "is_keras_class") {
      result = readFlags(value, isClass);
    } else if (key == "quantize_input") {
      result = readFlags(value, quantizeInput);
    } else if (key == "quantize_weight") {
      result = readFlags(value, quantizeWeight);
    } else if (key == "quantization_index") {
      // One index list for every name, or a list of lists (one per name).
      auto *list = dyn_cast<yaml::SequenceNode>(value);
      if (!list) {
        result = parseIndexList(value, sharedIndex);
        continue;
      }
      SmallVector<unsigned> flat;
      SmallVector<std::optional<SmallVector<unsigned>>> nested;
      for (yaml::Node &item : *list) {
        if (isa<yaml::SequenceNode>(item) ||
            getPlainScalar(&item, scratch) == StringRef("null")) {
          std::optional<SmallVector<unsigned>> indices;
          if (!flat.empty() || failed(parseIndexList(&item, indices)))
            return flat.empty() ? failure()
                                : error(&item, "expected an input index");
          nested.push_back(std::move(indices));
          continue;
        }
        unsigned index;
        if (!nested.empty())
          return error(&item, "expected a list of input indices");
        if (failed(parseUnsigned(&item, index)))
          return failure();
        flat.push_back(index);
      }
      if (!nested.empty()) {
        nestedIndex = std::move(nested);
        nestedIndexLoc = locOf(value);
      } else {
        sharedIndex = std::move(flat);
      }
    } else if (key == "match") {
      std::string how;
      result = parseString(value, how);
      if (succeeded(result) && how == "substring")
        textMatch = SpecEntry::Match::Substring;
      else if (succeeded(result) && how != "exact")
        return error(value, "match must be \"exact\" or \"substring\"");
    } else if (key == "quantizer") {
      result = parseQuantizer(value, both);
    } else if (key == "input_quantizer") {
      result = parseQuantizer(value, input);
    } else if (key == "weight_quantizer") {
      result = parseQuantizer(value, weight);
    } else {
      return error(field.getKey(),
                   "unknown field '" + key +
                       "' (expected name, is_keras_class, quantize_input, "
                       "quantize_weight, quantization_index, match, "
                       "quantizer, input_quantizer, weight_quantizer)");
    }
    if (failed(result))
      return failure();
  }
  if (names.empty())
    return error(node, "entry has no 'name'");

  size_t count = names.size();
  auto expand = [&](const std::optional<PerName> &flags, bool fallback,
                    SmallVectorImpl<bool> &out) -> LogicalResult {
    if (!flags) {
      out.assign(count, fallback);
      return success();
    }
    if (flags->values.size() == 1) {
      out.assign(count, flags->values.front());
      return success();
    }
    if (flags->values.size() != count)
      return emitError(flags->loc)
             << "expected one value per name (" << count << "), got "
             << flags->values.size();
    out.assign(flags->values.begin(), flags->values.end());
    return success();
  };
  SmallVector<bool> classFlags, inputFlags, weightFlags;
  if (failed(expand(isClass, false, classFlags)) ||
      failed(expand(quantizeInput, true, inputFlags)) ||
      failed(expand(quantizeWeight, true, weightFlags)))
    return failure();
  if (nestedIndex && nestedIndex->size() != count)
    return emitError(*nestedIndexLoc)
           << "expected one index list per name (" << count << "), got "
           << nestedIndex->size();

  // A field of input_/weight_quantizer overrides the same field of quantizer.
  auto merge = [](QuantizerOverride base, const QuantizerOverride &over) {
    if (over.bits)
      base.bits = over.bits;
    for (auto [dst, src] :
         {std::pair{&base.isSigned, &over.isSigned},
          std::pair{&base.narrowRange, &over.narrowRange},
          std::pair{&base.symmetric, &over.symmetric},
          std::pair{&base.perChannel, &over.perChannel}})
      if (*src)
        *dst = *src;
    return base;
  };
  Location loc = locOf(node);
  for (size_t i = 0; i < count; ++i) {
    if (classFlags[i] && textMatch == SpecEntry::Match::Substring)
      return error(node, "an entry cannot be both is_keras_class and a "
                         "substring match");
    spec.entries.push_back(SpecEntry{
        names[i], classFlags[i] ? SpecEntry::Match::Class : textMatch,
        inputFlags[i], weightFlags[i],
        nestedIndex ? (*nestedIndex)[i] : sharedIndex, merge(both, input),
        merge(both, weight), loc});
  }
  return success();
}

FailureOr<QuantizationSpec> SpecParser::parse(yaml::Node *root) {
  QuantizationSpec spec;
  yaml::Node *layers = root;
  // Either a list of entries, or an object whose "layers" holds them.
  if (auto *map = dyn_cast_or_null<yaml::MappingNode>(root)) {
    layers = nullptr;
    for (yaml::KeyValueNode &field : *map) {
      std::string key;
      if (failed(parseString(field.getKey(), key)))
        return failure();
      if (key != "layers")
        return error(field.getKey(), "unknown top-level field '" + key +
                                         "' (expected 'layers')");
      layers = field.getValue();
    }
    if (!layers)
      return error(root, "spec has no 'layers' list");
  }
  auto *list = dyn_cast_or_null<yaml::SequenceNode>(layers);
  if (!list)
    return error(layers ? layers : root,
                 "expected a list of layer entries");
  for (yaml::Node &item : *list) {
    auto *entry = dyn_cast<yaml::MappingNode>(&item);
    if (!entry)
      return error(&item, "expected a layer entry object");
    if (failed(parseEntry(entry, spec)))
      return failure();
  }
  spec.index();
  return spec;
}

FailureOr<QuantizationSpec>
QuantizationSpec::parse(StringRef text, StringRef bufferName,
                        MLIRContext *context) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, bufferName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  // The YAML parser reports syntax errors through the SourceMgr, lazily, as
  // the tree is walked: turn them into MLIR diagnostics and remember them.
  struct SyntaxErrors {
    MLIRContext *context;
    bool seen = false;
  } syntaxErrors{context};
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *state) {
        auto *errors = static_cast<SyntaxErrors *>(state);
        if (errors->seen)
          return;
        errors->seen = true;
        emitError(FileLineColLoc::get(errors->context, diag.getFilename(),
                                      diag.getLineNo(),
                                      diag.getColumnNo() + 1))
            << diag.getMessage();
      },
      &syntaxErrors);

  yaml::Stream stream(sourceMgr.getMemoryBuffer(1)->getMemBufferRef(),
                      sourceMgr);
  yaml::document_iterator doc = stream.begin();
  yaml::Node *root = doc == stream.end() ? nullptr : doc->getRoot();
  if (syntaxErrors.seen)
    return failure();
  if (!root || isa<yaml::NullNode>(root)) {
    emitError(FileLineColLoc::get(context, bufferName, 1, 1))
        << "empty QuantizationSpec";
    return failure();
  }
  SpecParser parser(sourceMgr, bufferName, context, syntaxErrors.seen);
  FailureOr<QuantizationSpec> spec = parser.parse(root);
  // Trailing documents or garbage after the spec are errors too.
  if (succeeded(spec) && !syntaxErrors.seen && ++doc != stream.end())
    emitError(FileLineColLoc::get(context, bufferName, 1, 1))
        << "expected a single JSON document";
  if (failed(spec) || syntaxErrors.seen || doc != stream.end())
    return failure();
  return spec;
}

FailureOr<QuantizationSpec>
QuantizationSpec::parseFile(StringRef path, MLIRContext *context) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    emitError(UnknownLoc::get(context))
        << "cannot read QuantizationSpec '" << path
        << "': " << buffer.getError().message();
    return failure();
  }
  return parse((*buffer)->getBuffer(), path, context);
}
