//===- Dot.h - draw a layer graph with its Q/DQ nodes -----------*- C++ -*-===//

#ifndef QUANTQDQ_TARGET_DOT_H
#define QUANTQDQ_TARGET_DOT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::quant_qdq {

/// Writes every function in `op` as a Graphviz digraph: layers as boxes
/// labelled with their name and class, quantize/dequantize as small coloured
/// nodes, constants left out unless a Q/DQ pair quantizes them (weights).
LogicalResult exportToDot(Operation *op, llvm::raw_ostream &os);

/// Reads a model file that is not MLIR into a module; null, with a
/// diagnostic, when it cannot.
using ModelImporter = OwningOpRef<ModuleOp> (*)(llvm::MemoryBufferRef buffer,
                                                MLIRContext *context);
/// Whether a file, by its name, is a model for the importer.
using ModelFileTest = bool (*)(llvm::StringRef path);

/// Registers `--qdq-to-dot` with mlir-translate style tools. The input is
/// MLIR, or a model file that `isModelFile` accepts and `importModel`
/// reads (qdq-translate passes the ONNX importer for `.onnx` files).
void registerToDotTranslation(ModelImporter importModel = nullptr,
                              ModelFileTest isModelFile = nullptr);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_DOT_H
