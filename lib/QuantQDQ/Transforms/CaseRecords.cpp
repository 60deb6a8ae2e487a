//===- CaseRecords.cpp - case records written and read outside patterns --===//
//
// A case written in C++ or PDL records its decisions from its patterns
// (recordCaseDecision). A case written elsewhere, such as a Python
// QDQCase, states its decisions as a QuantizationSpec, which is recorded
// here the same way; and a case's decisions can be previewed without
// touching the model.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult mlir::quant_qdq::recordSpecAsCase(ModuleOp module,
                                                StringRef caseName,
                                                const QuantizationSpec &spec) {
  MLIRContext *context = module.getContext();
  bool recordFailed = false;
  ScopedDiagnosticHandler watch(context, [&](Diagnostic &diag) {
    recordFailed |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Passed on to the handlers outside.
  });
  IRRewriter rewriter(context);
  llvm::SmallPtrSet<const SpecEntry *, 8> used;
  module.walk([&](QDQLayerOpInterface layer) {
    const SpecEntry *entry =
        spec.lookup(layer.getLayerName(), layer.getLayerClass());
    if (!entry)
      return;
    used.insert(entry);
    SmallVector<int64_t> positions;
    if (entry->quantizationIndex)
      llvm::append_range(positions, *entry->quantizationIndex);
    else if (entry->quantizeInput)
      for (unsigned i = 0, e = layer.getActivationOperandIndices().size();
           i < e; ++i)
        positions.push_back(i);
    bool weight =
        entry->quantizeWeight && layer.getWeightOperandIndex().has_value();
    // The toolkit leaves such a layer alone.
    bool keepInFloat = !entry->quantizationIndex && !entry->quantizeInput &&
                       !entry->quantizeWeight;
    recordCaseDecision(rewriter, layer, caseName, positions, weight,
                       keepInFloat, entry->inputQuantizer,
                       entry->weightQuantizer);
  });
  // As for the user's spec: a name that matches nothing is a warning.
  for (const SpecEntry &entry : spec.getEntries())
    if (!used.contains(&entry))
      emitWarning(entry.loc)
          << "case '" << caseName << "': no layer "
          << (entry.match == SpecEntry::Match::Class  ? "of class '"
              : entry.match == SpecEntry::Match::Name ? "named '"
                                                      : "name contains '")
          << entry.pattern << "'";
  return failure(recordFailed);
}

FailureOr<SmallVector<CaseDecision>>
mlir::quant_qdq::previewInsertionCase(ModuleOp module, StringRef name) {
  OwningOpRef<ModuleOp> copy = module.clone();
  // Records already there are not this case's.
  copy->walk([](Operation *op) { op->removeAttr(kCaseAttrName); });
  if (failed(applyInsertionCases(*copy, {name.str()})))
    return failure();
  SmallVector<CaseDecision> decisions;
  copy->walk([&](QDQLayerOpInterface layer) {
    if (auto record = layer->getAttrOfType<CaseRecordAttr>(kCaseAttrName))
      decisions.push_back({layer.getLayerName().str(),
                           layer.getLayerClass().str(), record});
  });
  return decisions;
}
