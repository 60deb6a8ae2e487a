//===- NumberFormatMap.cpp - read TensorQuant's map files -----------------===//
//
// The text must be JSON (llvm::json checks it), but is read with LLVM's YAML
// parser (JSON is YAML's flow style): unlike llvm::json, it keeps the keys
// in file order, which decides here, and the position of every node for
// diagnostics.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/NumberFormatMap.h"
#include "QuantQDQ/Utils/JSONText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace mlir;
using namespace mlir::quant_qdq;
namespace yaml = llvm::yaml;

const NumberFormatMap::Entry *
NumberFormatMap::lookup(StringRef layerName) const {
  for (const Entry &entry : entries)
    if (layerName.contains(entry.substring))
      return &entry;
  return nullptr;
}

FailureOr<NumberFormatMap> NumberFormatMap::parse(StringRef option,
                                                  Location loc) {
  MLIRContext *context = loc.getContext();
  NumberFormatMap map;
  // A format alone: every layer.
  if (!llvm::sys::fs::exists(option)) {
    auto format = NumberFormatAttr::parseTensorQuantName(
        context, option, [&] {
          return emitError(loc) << "'" << option
                                << "' is neither a map file nor a format: ";
        });
    if (failed(format))
      return failure();
    map.entries.push_back({"", *format, loc});
    return map;
  }

  auto buffer = llvm::MemoryBuffer::getFile(option);
  if (!buffer) {
    emitError(loc) << "cannot read the TensorQuant map '" << option
                   << "': " << buffer.getError().message();
    return failure();
  }
  return parseMap((*buffer)->getBuffer(), option, context);
}

FailureOr<NumberFormatMap> NumberFormatMap::parseMap(StringRef text,
                                                     StringRef bufferName,
                                                     MLIRContext *context) {
  NumberFormatMap map;
  StringRef option = bufferName;
  if (failed(parseJSONText(text, option, "TensorQuant map", context)))
    return failure();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, bufferName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  auto locOf = [&](llvm::SMLoc at) -> Location {
    auto [line, column] = sourceMgr.getLineAndColumn(at);
    return FileLineColLoc::get(context, option, line, column);
  };
  bool failedToParse = false;
  // Syntax errors come through the source manager.
  std::pair<MLIRContext *, bool *> state(context, &failedToParse);
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *opaque) {
        auto *s = static_cast<std::pair<MLIRContext *, bool *> *>(opaque);
        *s->second = true;
        emitError(FileLineColLoc::get(s->first, diag.getFilename(),
                                      diag.getLineNo(),
                                      diag.getColumnNo() + 1))
            << diag.getMessage();
      },
      &state);

  yaml::Stream stream(text, sourceMgr);
  yaml::Document &document = *stream.begin();
  yaml::Node *root = document.getRoot();
  if (failedToParse)
    return failure();
  auto *mapping = dyn_cast_or_null<yaml::MappingNode>(root);
  if (!mapping) {
    emitError(root ? locOf(root->getSourceRange().Start)
                   : FileLineColLoc::get(context, option, 1, 1))
        << "a TensorQuant map is an object from layer-name substrings to "
           "formats";
    return failure();
  }
  llvm::StringSet<> seen;
  for (yaml::KeyValueNode &pair : *mapping) {
    auto *key = dyn_cast_or_null<yaml::ScalarNode>(pair.getKey());
    yaml::Node *valueNode = pair.getValue();
    if (failedToParse)
      return failure();
    auto *value = dyn_cast_or_null<yaml::ScalarNode>(valueNode);
    if (!key || !value) {
      yaml::Node *bad = key ? valueNode : pair.getKey();
      emitError(bad ? locOf(bad->getSourceRange().Start) : locOf({}))
          << "expected a string: each entry maps a layer-name substring to "
             "a format name";
      return failure();
    }
    SmallString<32> keyStorage, valueStorage;
    Location loc = locOf(key->getSourceRange().Start);
    Location valueLoc = locOf(value->getSourceRange().Start);
    StringRef substring = key->getValue(keyStorage);
    if (!seen.insert(substring).second) {
      emitError(loc) << "'" << substring
                     << "' appears twice: each key of a map is one entry";
      return failure();
    }
    // JSON was checked: an unquoted scalar is a number, a bool or null.
    StringRef raw = value->getRawValue();
    if (raw != "null" && !raw.starts_with("\"")) {
      emitError(valueLoc) << "expected a format name (a string) or null, "
                             "got "
                          << raw;
      return failure();
    }
    StringRef name = raw == "null" ? "" : value->getValue(valueStorage);
    std::optional<NumberFormatAttr> format;
    // TensorQuant reads an empty string as no quantizer.
    if (!name.empty()) {
      auto parsed = NumberFormatAttr::parseTensorQuantName(
          context, name, [&] { return emitError(valueLoc); });
      if (failed(parsed))
        return failure();
      format = *parsed;
    }
    map.entries.push_back({substring.str(), format, loc});
  }
  if (failedToParse)
    return failure();
  return map;
}
