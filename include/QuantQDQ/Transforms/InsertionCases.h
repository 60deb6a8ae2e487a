//===- InsertionCases.h - named sets of Q/DQ insertion patterns -*- C++ -*-===//
//
// An insertion case (the toolkit's CustomQDQInsertionCase) is a set of
// rewrite patterns, PDLL in the library, that records on matching layers
// which of their inputs and weights to quantize. The InsertQDQ pass applies
// the cases, then honours their records below the user's spec.
//
// Cases are found by name in a registry that downstream projects and pass
// plugins extend with registerInsertionCase(); a user case can also be a
// PDLL (.pdll) or PDL (.mlir) file loaded at run time.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_INSERTIONCASES_H
#define QUANTQDQ_TRANSFORMS_INSERTIONCASES_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "QuantQDQ/IR/QuantizerOverride.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"
#include <functional>
#include <string>

namespace mlir::quant_qdq {

/// The discardable attribute through which cases record their decisions on
/// a layer, a #quant_qdq.case_record (CaseRecordAttr).
inline constexpr StringLiteral kCaseAttrName = "quant_qdq.case";

/// Settings of the rules that take a number, from insert-qdq's options.
struct CaseOptions {
  /// attention-matmul quantizes attention's batched matmuls up to this
  /// sequence length: TensorRT fuses INT8 multi-head attention up to 512
  /// (TensorRT Model Optimizer's bound for its INT8 attention matmuls).
  int64_t maxAttentionSequence = 512;
};

/// Adds a case's patterns to `patterns`. `caseName` is the name the
/// patterns' records carry.
using InsertionCasePopulateFn = std::function<void(
    RewritePatternSet &patterns, StringRef caseName,
    const CaseOptions &options)>;

struct InsertionCase {
  std::string name;
  std::string description;
  /// Patterns of a building block; empty for a composite case.
  InsertionCasePopulateFn populate;
  /// Building blocks of a composite case (resnet-v2 = residual, bn, maxpool).
  SmallVector<std::string> parts;
};

/// Registers a building-block case. Registering a name twice replaces it.
void registerInsertionCase(StringRef name, StringRef description,
                           InsertionCasePopulateFn populate);
/// Registers a case made of other cases, applied in the order given.
void registerCompositeInsertionCase(StringRef name, StringRef description,
                                    ArrayRef<StringRef> parts);
/// The case registered under `name`, or null.
const InsertionCase *lookupInsertionCase(StringRef name);
/// Every registered case name, sorted.
SmallVector<std::string> getInsertionCaseNames();

/// Expands `name` into the building blocks it stands for (itself for a
/// building block or a file path). Fails with a diagnostic at `loc` on an
/// unknown name.
LogicalResult expandInsertionCase(StringRef name, Location loc,
                                  SmallVectorImpl<std::string> &blocks);

/// Whether `name` names a case file rather than a registered case.
bool isInsertionCaseFile(StringRef name);

/// Reads a user case file: PDL in MLIR syntax (`.mlir`), or PDLL (`.pdll`),
/// compiled to PDL with the `mlir-pdll` tool. Every native function the
/// patterns call must be one of the case natives. Reports problems as
/// diagnostics with the file's locations.
FailureOr<OwningOpRef<ModuleOp>> loadInsertionCaseFile(StringRef path,
                                                       MLIRContext *context);

/// Records on `layer` that case `caseName` quantizes its activation inputs
/// at `positions` (positions in the layer's activation operand list) and,
/// with `weight`, its weight; `keepInFloat` records "no Q/DQ at all";
/// `input` and `weights` are quantizer fields the case sets (insert-qdq's
/// defaults for the others). Records of several cases on one layer merge,
/// a later case's quantizer fields over an earlier's. This is what a C++
/// case's pattern calls; misuse (not a layer, a position out of range, a
/// weight the layer lacks) is reported as an error on the op, which fails
/// insert-qdq.
void recordCaseDecision(RewriterBase &rewriter, Operation *layer,
                        StringRef caseName, ArrayRef<int64_t> positions,
                        bool weight, bool keepInFloat = false,
                        const QuantizerOverride &input = {},
                        const QuantizerOverride &weights = {});

/// Applies the cases `names` (registered names or case files) to `module`,
/// leaving their records on its layers. Each building block walks the
/// module on its own, since a pattern applicator applies at most one
/// pattern per op and two cases may match the same layer. Fails, with
/// diagnostics, on an unknown name, an unreadable file, or a case that
/// misuses a native function.
LogicalResult applyInsertionCases(ModuleOp module,
                                  ArrayRef<std::string> names,
                                  const CaseOptions &options = {});

/// Records the QuantizationSpec `spec` as the decisions of a case named
/// `caseName` (how a case written outside C++, such as a Python QDQCase,
/// records): each layer an entry matches gets the record the entry says,
/// and insert-qdq then ranks it below the user's own spec. The entries'
/// quantizer fields go into the records too (4-bit inputs, a calibration
/// method); an entry that matches no layer is a warning. Fails on a misused
/// entry (an input position the layer lacks).
LogicalResult recordSpecAsCase(ModuleOp module, StringRef caseName,
                               const class QuantizationSpec &spec);

/// One layer's record, as a case left it.
struct CaseDecision {
  std::string layerName, layerClass;
  CaseRecordAttr record;
};

/// What the case `name` (registered or a file) decides on `module`, read
/// from its records on a copy: the module is not changed.
FailureOr<SmallVector<CaseDecision>> previewInsertionCase(ModuleOp module,
                                                          StringRef name);

/// Registers the native constraints and rewrites that case patterns call
/// (IsConvFed, HasOneUse, IsConvOutput, QuantizeInputs, QuantizeInputsAt,
/// QuantizeWeight, QuantizeResidualBranches, KeepInFloat); records they make
/// carry `caseName`.
void registerCaseNatives(PDLPatternModule &module, StringRef caseName,
                         const CaseOptions &options);
/// Names of the case natives.
ArrayRef<StringLiteral> getCaseNativeNames();

/// Registers the library cases: residual, bn, maxpool, se-multiply and the
/// seed toolkit's resnet-v1, resnet-v2, efficientnet, mobilenet, inception.
void registerLibraryInsertionCases();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_INSERTIONCASES_H
