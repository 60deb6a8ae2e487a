//===- MergeIdenticalFunctions.cpp - one body per distinct function -------===//
//
// A network repeats its blocks: ResNet-50's 16 bottlenecks have 4 distinct
// shapes, a transformer's 12 layers one. Once every layer's loop is a
// function of its own (qdq-outline-parallel-loops), the repeated layers are
// functions with the same body that differ only in name and in the buffers
// their callers pass. Keeping one of each leaves the rest of the lowering,
// LLVM's optimizer and its code generator a third of the code (ResNet-50:
// 260 outlined functions, 89 distinct).
//
// Functions are bucketed by a hash of their type and of every nested
// operation (name, attributes, properties, result types; not operands),
// and a function joins a bucket's member only when the two bodies are
// equivalent op by op, with matching operands (a commutative op's in
// either order). Calls and other symbol references to a dropped function
// are redirected in one walk of the module's own symbol scope: a nested
// symbol table (a gpu.module) has names of its own.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_MERGEIDENTICALFUNCTIONS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

static constexpr OperationEquivalence::Flags kIgnoreLocations =
    OperationEquivalence::IgnoreLocations;

/// A hash equal for functions that `isSameFunction` finds equal; the name
/// is left out, and so are operands, which only the comparison can match
/// between two bodies.
static llvm::hash_code hashFunction(func::FuncOp function) {
  llvm::hash_code hash = llvm::hash_combine(
      function.getFunctionType(), function.getNoInline(),
      function->getDiscardableAttrDictionary());
  function.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue, kIgnoreLocations));
  });
  return hash;
}

/// Whether a call to `lhs` may call `rhs` instead: everything but the name
/// equal, the bodies op for op with matching operands.
static bool isSameFunction(func::FuncOp lhs, func::FuncOp rhs) {
  return lhs.getFunctionType() == rhs.getFunctionType() &&
         lhs.getNoInline() == rhs.getNoInline() &&
         lhs.getArgAttrsAttr() == rhs.getArgAttrsAttr() &&
         lhs.getResAttrsAttr() == rhs.getResAttrsAttr() &&
         lhs->getDiscardableAttrDictionary() ==
             rhs->getDiscardableAttrDictionary() &&
         OperationEquivalence::isRegionEquivalentTo(
             &lhs.getBody(), &rhs.getBody(), kIgnoreLocations);
}

namespace {
struct MergeIdenticalFunctionsPass
    : quant_qdq::impl::MergeIdenticalFunctionsBase<
          MergeIdenticalFunctionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only private definitions: a public function may be looked up by its
    // name from outside the module.
    DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> kept;
    DenseMap<StringAttr, FlatSymbolRefAttr> replacements;
    SmallVector<func::FuncOp> dropped;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (!function.isPrivate() || function.isExternal())
        continue;
      SmallVector<func::FuncOp, 1> &bucket = kept[hashFunction(function)];
      auto same = llvm::find_if(bucket, [&](func::FuncOp other) {
        return isSameFunction(other, function);
      });
      if (same == bucket.end()) {
        bucket.push_back(function);
        continue;
      }
      replacements[function.getSymNameAttr()] =
          FlatSymbolRefAttr::get(same->getSymNameAttr());
      dropped.push_back(function);
    }
    if (dropped.empty())
      return markAllAnalysesPreserved();

    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](SymbolRefAttr reference) -> std::optional<Attribute> {
          if (!reference.getNestedReferences().empty())
            return std::nullopt;
          auto found = replacements.find(reference.getRootReference());
          if (found == replacements.end())
            return std::nullopt;
          return found->second;
        });
    for (func::FuncOp function : dropped)
      function.erase();
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                 /*replaceLocs=*/false,
                                 /*replaceTypes=*/false);
      // A nested symbol table's own attributes resolve here, its body's
      // in its own scope.
      return op != module && op->hasTrait<OpTrait::SymbolTable>()
                 ? WalkResult::skip()
                 : WalkResult::advance();
    });
  }
};
} // namespace
