//===- ONNX.h - import and export ONNX models -------------------*- C++ -*-===//
//
// The ONNX boundary of quant-qdq: an ONNX ModelProto becomes a module holding
// one function of quant_qdq.generic nodes (weights as resource blobs), which
// the ONNX conversion patterns turn into layer ops; such a module, once Q/DQ
// pairs are placed, becomes a QDQ ONNX model again. The protobuf types stay
// out of this header so that tools including it need neither ONNX nor
// protobuf headers.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TARGET_ONNX_ONNX_H
#define QUANTQDQ_TARGET_ONNX_ONNX_H

#include "QuantQDQ/Utils/TensorNames.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
class DialectRegistry;
class Pass;
} // namespace mlir

namespace mlir::quant_qdq {
class GenericOp;

/// What import does after translating.
struct ONNXImportOptions {
  /// Run convert-onnx-to-quant-qdq on the translated nodes (true), or keep
  /// every node a quant_qdq.generic: the mechanical translation alone.
  bool convertNodes = true;
};

/// Reads the serialized ModelProto in `buffer` into a new module. Every
/// diagnostic names `buffer`'s identifier as its file; on failure the
/// diagnostics have been emitted and the result is null. Tensors kept in
/// external data are read from the identifier's folder (the current one
/// for a bare name or stdin); their locations may not leave that folder.
OwningOpRef<ModuleOp> importONNX(llvm::MemoryBufferRef buffer,
                                 MLIRContext *context,
                                 const ONNXImportOptions &options = {});

/// Reads the model file at `path` into a new module. Unlike importONNX of
/// a mapped buffer, the file's bytes are read in blocks, so the weights are
/// in memory once, in the module.
OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path,
                                     MLIRContext *context,
                                     const ONNXImportOptions &options = {});

/// Whether export keeps large tensors in a data file beside the model.
enum class ONNXExternalData {
  /// A file export does when the imported model did, or when the model
  /// would not fit protobuf's 2 GiB; a stream export never does.
  Auto,
  /// Every tensor of 1 KiB or more (a file export only).
  Always,
  /// Never: a model over 2 GiB cannot be written.
  Never,
};

/// How export writes weights and fills in missing quantization scales.
struct ONNXExportOptions {
  /// Write 8-bit quantized weights as an integer initializer +
  /// DequantizeLinear (true: 4x smaller, what the peers write), or as float
  /// initializer + QuantizeLinear + DequantizeLinear (false: TensorRT's QAT
  /// export form).
  bool integerWeights = true;
  /// The range an uncalibrated activation quantizer assumes: the toolkit's
  /// initial amax of 6.0, scale = amax / qmax.
  double activationAmax = 6.0;
  ONNXExternalData externalData = ONNXExternalData::Auto;
  /// The default-domain opset to write (0: the model's, raised to what its
  /// Q/DQ nodes need: 13, 19 for FP8, 21 for 4 and 16 bits and blocks).
  /// Nodes kept from the model are converted to it.
  int64_t opset = 0;
  /// Write int4 dense layers stored in blocks along their input channels as
  /// ONNX Runtime's com.microsoft MatMulNBits (onnxruntime-genai's form)
  /// rather than DequantizeLinear + MatMul.
  bool matmulNBits = false;
};

/// Writes the function `@main` of `module` (or its only function) as a
/// serialized ModelProto, every tensor inside it. Fails with a diagnostic on
/// an op ONNX cannot express, on a model over 2 GiB, or when
/// `options.externalData` is Always; nothing is written to `os` then.
LogicalResult exportONNX(ModuleOp module, llvm::raw_ostream &os,
                         const ONNXExportOptions &options = {});

/// Writes the model to the file `path`; with external data (see
/// ONNXExternalData), tensors of 1 KiB or more go to `<path>.data`, written
/// from the weights' blobs as the model is serialized, and the model names
/// that file by its base name. On failure neither file is left behind.
LogicalResult exportONNXFile(ModuleOp module, llvm::StringRef path,
                             const ONNXExportOptions &options = {});

/// Dialects that an imported module, or a module to export, may contain.
void registerONNXDialects(DialectRegistry &registry);

/// Registers `--import-onnx` and `--export-onnx` (and their options) with
/// mlir-translate style tools.
void registerONNXTranslations();

/// Registers the export flags `--onnx-weights=float|int8`,
/// `--onnx-activation-amax=<amax>`, `--onnx-external-data=auto|always|
/// never` and `--onnx-opset=<N>`; call before parsing the command line.
void registerONNXExportCLOptions();

/// The export options the command line chose.
ONNXExportOptions getONNXExportOptionsFromCL();

/// The argument/result attribute holding a graph input's or output's ONNX
/// name (qdq-name-tensors keeps it).
inline constexpr llvm::StringLiteral kONNXNameAttr = kTensorNameAttr;

/// The result types that ONNX's own type and shape inference gives the node
/// `op` carries, for `op`'s current operand types and the values of its
/// small constant operands (shapes, axes, starts). Where inference leaves a
/// dimension unknown, the result's present type keeps its own. Fails with a
/// diagnostic at `op` when ONNX has no schema for it, the node does not
/// conform to the schema, or inference contradicts a present static type.
FailureOr<SmallVector<Type>> inferONNXNodeTypes(GenericOp op);

/// Whether `path` names an ONNX model (by its `.onnx` extension).
bool isONNXFilename(llvm::StringRef path);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_ONNX_ONNX_H
