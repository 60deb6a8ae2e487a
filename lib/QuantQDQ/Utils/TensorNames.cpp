//===- TensorNames.cpp - one unique, stable name per tensor ---------------===//

#include "QuantQDQ/Utils/TensorNames.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <optional>


using namespace mlir;
using namespace mlir::quant_qdq;

StringRef mlir::quant_qdq::getTensorName(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return {};
    if (auto name =
            func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kTensorNameAttr))
      return name.getValue();
    return {};
  }
  Operation *op = value.getDefiningOp();
  auto names = op->getAttrOfType<ArrayAttr>(kResultNamesAttr);
  unsigned index = cast<OpResult>(value).getResultNumber();
  if (!names || index >= names.size())
    return {};
  if (auto name = dyn_cast<StringAttr>(names[index]))
    return name.getValue();
  return {};
}

/// What a value is called when an op is named after it: its tensor name, or
/// a weight's location name.
static std::string operandBase(Value value) {
  if (StringRef name = getTensorName(value); !name.empty())
    return name.str();
  if (Operation *def = value.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return loc.getName().getValue().str();
  return "tensor";
}

/// The name of an unnamed Q/DQ op's result follows the tensor it stands
/// for: x -> x_quantized -> x_dequantized, x -> x_fake_quantized.
static std::optional<std::string> qdqResultName(Operation *op) {
  if (auto q = dyn_cast<QuantizeOp>(op))
    return operandBase(q.getInput()) + "_quantized";
  if (auto dq = dyn_cast<DequantizeOp>(op)) {
    if (auto q = dq.getInput().getDefiningOp<QuantizeOp>())
      return operandBase(q.getInput()) + "_dequantized";
    return operandBase(dq.getInput()) + "_dequantized";
  }
  if (auto fq = dyn_cast<FakeQuantOp>(op))
    return operandBase(fq.getInput()) + "_fake_quantized";
  return std::nullopt;
}

void mlir::quant_qdq::nameTensors(FunctionOpInterface func) {
  if (func.isExternal())
    return;
  Block &body = func.getFunctionBody().front();
  Builder b(func.getContext());
  UniqueNames table;

  // Arguments first: graph inputs keep their names.
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto stored = func.getArgAttrOfType<StringAttr>(i, kTensorNameAttr);
    std::string name = table.claim(
        stored ? stored.getValue() : StringRef("input_" + std::to_string(i)));
    if (!stored || stored.getValue() != name)
      func.setArgAttr(i, kTensorNameAttr, b.getStringAttr(name));
  }

  // Graph outputs: the value each returns takes its name, unless the value
  // has another one already (an input, an earlier output, a stored name).
  llvm::DenseMap<Value, std::string> outputNames;
  Operation *terminator = body.getTerminator();
  for (auto [i, v] : llvm::enumerate(terminator->getOperands())) {
    auto stored = func.getResultAttrOfType<StringAttr>(i, kTensorNameAttr);
    std::string name =
        stored ? stored.getValue().str() : "output_" + std::to_string(i);
    table.reserve(name);
    StringRef current = getTensorName(v);
    if (isa<OpResult>(v) && (current.empty() || current == name))
      outputNames.try_emplace(v, name);
  }

  // Op results, in order, on the bases export gives nodes: a layer's name
  // made unique among layers, else the op's location name, else
  // `<class or op>_<k>`.
  UniqueNames bases;
  for (Operation &op : body.without_terminator())
    if (auto layer = dyn_cast<QDQLayerOpInterface>(&op))
      if (!layer.getLayerName().empty())
        bases.reserve(layer.getLayerName());
  llvm::StringMap<unsigned> unnamedCounts;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumResults() == 0 || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    auto stored = op.getAttrOfType<ArrayAttr>(kResultNamesAttr);
    std::string base;
    auto layer = dyn_cast<QDQLayerOpInterface>(&op);
    auto loc = dyn_cast<NameLoc>(op.getLoc());
    std::optional<std::string> qdqName =
        loc ? std::nullopt : qdqResultName(&op);
    if (layer && !layer.getLayerName().empty()) {
      base = bases.claimReserved(layer.getLayerName(), /*owner=*/true);
    } else if (loc) {
      base = bases.claimReserved(loc.getName().getValue(), /*owner=*/false);
    } else if (qdqName) {
      base = *qdqName;
    } else {
      StringRef kind = layer ? layer.getLayerClass()
                             : op.getName().stripDialect();
      base = bases.claimReserved(
          (kind + "_" + Twine(unnamedCounts[kind]++)).str(), /*owner=*/false);
    }
    SmallVector<Attribute> names;
    bool changed = !stored || stored.size() != op.getNumResults();
    for (OpResult r : op.getResults()) {
      unsigned index = r.getResultNumber();
      std::string want;
      if (stored && index < stored.size())
        if (auto s = dyn_cast<StringAttr>(stored[index]))
          want = s.getValue().str();
      auto output = outputNames.find(r);
      bool owner = output != outputNames.end();
      if (want.empty())
        want = owner    ? output->second
               : qdqName ? base
                         : base + "_output_" + std::to_string(index);
      StringAttr name = b.getStringAttr(
          table.claimReserved(want, owner && output->second == want));
      changed |= !stored || index >= stored.size() || stored[index] != name;
      names.push_back(name);
    }
    if (changed)
      op.setAttr(kResultNamesAttr, b.getArrayAttr(names));
  }
}

StringRef mlir::quant_qdq::getLocationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (StringRef name = getLocationName(inner); !name.empty())
        return name;
  return {};
}
