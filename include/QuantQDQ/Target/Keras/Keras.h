//===- Keras.h - Keras models in, through the Python importer ---*- C++ -*-===//
//
// Keras models are Python objects: their files (.keras, .h5, SavedModel
// folders) hold layer configurations that only Keras itself interprets
// (custom objects, Lambda layers). The tools therefore import them through
// the Python package's translation (`python -m quant_qdq import-keras`,
// quant_qdq/keras/importer.py), run as a child
// process that writes MLIR bytecode, as torch-mlir and IREE import their
// framework models.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TARGET_KERAS_KERAS_H
#define QUANTQDQ_TARGET_KERAS_KERAS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::quant_qdq {

/// Whether `path` names a Keras model: a .keras, .h5 or .hdf5 file, or a
/// folder holding a SavedModel (saved_model.pb).
bool isKerasPath(llvm::StringRef path);

/// Imports the Keras model at `path` with the Python interpreter of
/// $QUANTQDQ_PYTHON (the build's by default; in a pip install, the
/// environment's python3) and the package of $QUANTQDQ_PYTHONPATH (the
/// build's python_packages by default; in a pip install, the environment's
/// own). The importer's diagnostics go to stderr; null on failure.
OwningOpRef<ModuleOp> importKerasFile(llvm::StringRef path,
                                      MLIRContext *context,
                                      llvm::SourceMgr &sourceMgr);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_KERAS_KERAS_H
