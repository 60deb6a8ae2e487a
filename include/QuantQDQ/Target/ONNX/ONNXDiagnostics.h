//===- ONNXDiagnostics.h - diagnostics that name the ONNX node --*- C++ -*-===//
//
// An imported model's ops are located at `NameLoc("<node>", model.onnx:0:0)`
// (tensors: their name). MLIR's SourceMgrDiagnosticHandler shows only the
// file part, `model.onnx:0:0`, which says nothing about where in a graph of
// thousands of nodes. This handler shows diagnostics as that one does and
// puts the name in the message.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TARGET_ONNX_ONNXDIAGNOSTICS_H
#define QUANTQDQ_TARGET_ONNX_ONNXDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

namespace mlir::quant_qdq {

/// `model.onnx:0:0: error: at '/layer1/conv1/Conv': <message>` for an error
/// located at an ONNX node or tensor, unless the message already quotes the
/// name (the importer's `node 'x' (Conv): ...`). Other diagnostics, and
/// notes, show as SourceMgrDiagnosticHandler shows them. The op at the
/// location is not printed (MLIR's default, which for a shape mismatch on
/// an input prints a whole network) unless --mlir-print-op-on-diagnostic
/// asks for it.
class ONNXDiagnosticHandler : public SourceMgrDiagnosticHandler {
public:
  ONNXDiagnosticHandler(llvm::SourceMgr &sourceMgr, MLIRContext *context);
};

/// The ONNX node or tensor name in `loc`, if it holds a location that import
/// made (a name over line 0 of a file), else an empty string.
StringRef getONNXNameInLocation(Location loc);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_ONNX_ONNXDIAGNOSTICS_H
