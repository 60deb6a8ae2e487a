//===- CaseRecordAttr.cpp - insertion cases' decisions on a layer ---------===//

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "QuantQDQ/IR/QuantizerOverride.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult
CaseRecordAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayAttr cases, DenseI64ArrayAttr inputAttr,
                       bool weight, DictionaryAttr inputQuantizer,
                       DictionaryAttr weightQuantizer) {
  if (!cases || cases.empty() ||
      !llvm::all_of(cases, [](Attribute a) { return isa<StringAttr>(a); }))
    return emitError() << "a case record names the cases that decided";
  ArrayRef<int64_t> inputs = inputAttr.asArrayRef();
  for (auto [i, position] : llvm::enumerate(inputs))
    if (position < 0 || (i > 0 && position <= inputs[i - 1]))
      return emitError() << "case record inputs must be non-negative, "
                            "sorted and without repeats";
  FailureOr<QuantizerOverride> weightFields =
      QuantizerOverride::fromDictionary(weightQuantizer, emitError);
  if (failed(QuantizerOverride::fromDictionary(inputQuantizer, emitError)) ||
      failed(weightFields))
    return failure();
  if (weightFields->calibration)
    return emitError() << "weights are scaled from their values; a case "
                          "record's weight quantizer has no calibration";
  return success();
}

CaseRecordAttr CaseRecordAttr::addDecision(MLIRContext *context,
                                           CaseRecordAttr previous,
                                           StringRef caseName,
                                           ArrayRef<int64_t> positions,
                                           bool weight, bool keepInFloat,
                                           const QuantizerOverride &input,
                                           const QuantizerOverride &weights) {
  SmallVector<Attribute> cases;
  SmallVector<int64_t> inputs;
  QuantizerOverride inputFields, weightFields;
  if (previous) {
    llvm::append_range(cases, previous.getCases());
    if (!keepInFloat) {
      llvm::append_range(inputs, previous.getInputPositions());
      weight |= previous.getWeight();
      inputFields = previous.getInputOverride();
      weightFields = previous.getWeightOverride();
    }
  }
  if (!keepInFloat) {
    inputFields.mergeFrom(input);
    weightFields.mergeFrom(weights);
  }
  auto name = StringAttr::get(context, caseName);
  if (!llvm::is_contained(cases, name))
    cases.push_back(name);
  llvm::append_range(inputs, positions);
  llvm::sort(inputs);
  inputs.erase(llvm::unique(inputs), inputs.end());
  return CaseRecordAttr::get(context, ArrayAttr::get(context, cases),
                             DenseI64ArrayAttr::get(context, inputs), weight,
                             inputFields.toDictionary(context),
                             weightFields.toDictionary(context));
}

std::string CaseRecordAttr::getCaseNames() const {
  return llvm::join(llvm::map_range(getCases(),
                                    [](Attribute a) {
                                      return cast<StringAttr>(a).getValue();
                                    }),
                    "+");
}

/// Fields of a verified record's dictionary.
static QuantizerOverride readVerified(DictionaryAttr fields) {
  return *QuantizerOverride::fromDictionary(
      fields, [] { return InFlightDiagnostic(); });
}

QuantizerOverride CaseRecordAttr::getInputOverride() const {
  return readVerified(getInputQuantizer());
}

QuantizerOverride CaseRecordAttr::getWeightOverride() const {
  return readVerified(getWeightQuantizer());
}
