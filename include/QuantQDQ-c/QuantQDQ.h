/*===- QuantQDQ.h - C API of quant-qdq -------------------------*- C -*-===*\
|*                                                                          *|
|* The MLIR-style C interface of quant-qdq, for bindings and tools that are  *|
|* not C++: the quant_qdq dialect handle, pass registration, the quantizer   *|
|* attribute, layer queries and ONNX import and export. Everything else (a   *|
|* pass pipeline, printing, walking the IR) goes through MLIR's own C API    *|
|* (mlir-c/IR.h, mlir-c/Pass.h) on the same objects.                         *|
|*                                                                          *|
|* Errors are reported as diagnostics on the context (attach a handler with *|
|* mlirContextAttachDiagnosticHandler); a failing call returns a null       *|
|* object or a failed MlirLogicalResult.                                    *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANTQDQ_C_QUANTQDQ_H
#define QUANTQDQ_C_QUANTQDQ_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__quant_qdq__() */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(QuantQDQ, quant_qdq);

/*===----------------------------------------------------------------------===
 * Registration
 *===----------------------------------------------------------------------===*/

/// Inserts every dialect a quant-qdq module or pipeline may use (quant_qdq,
/// func, arith, and those the lowerings produce) into `registry`.
MLIR_CAPI_EXPORTED void quantQDQRegisterDialects(MlirDialectRegistry registry);

/// Registers every quant-qdq pass and pipeline (insert-qdq with the library
/// insertion cases, calibration, the ONNX conversions, the CPU and GPU
/// pipelines) with MLIR's global registry, for mlirParsePassPipeline.
/// Idempotent.
MLIR_CAPI_EXPORTED void quantQDQRegisterPasses(void);

/*===----------------------------------------------------------------------===
 * #quant_qdq.quantizer
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool quantQDQAttributeIsAQuantizer(MlirAttribute attr);

/// A quantizer of `bits` bits; per axis `axis` when `perAxis`. Returns a
/// null attribute (and emits a diagnostic) when the combination is invalid.
MLIR_CAPI_EXPORTED MlirAttribute quantQDQQuantizerAttrGet(
    MlirContext context, unsigned bits, bool isSigned, bool narrowRange,
    bool symmetric, bool perAxis, int64_t axis);

MLIR_CAPI_EXPORTED unsigned quantQDQQuantizerAttrGetBits(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool quantQDQQuantizerAttrIsSigned(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool quantQDQQuantizerAttrIsNarrowRange(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool quantQDQQuantizerAttrIsSymmetric(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool quantQDQQuantizerAttrIsPerAxis(MlirAttribute attr);
/// The axis of a per-axis quantizer (-1 when per tensor).
MLIR_CAPI_EXPORTED int64_t quantQDQQuantizerAttrGetAxis(MlirAttribute attr);
/// The block size of a blocked quantizer (0 when per tensor or per axis).
MLIR_CAPI_EXPORTED int64_t
quantQDQQuantizerAttrGetBlockSize(MlirAttribute attr);
/// The calibration method the quantizer names ("moving-average"), empty when
/// it takes the calibrate pass's.
MLIR_CAPI_EXPORTED MlirStringRef
quantQDQQuantizerAttrGetCalibration(MlirAttribute attr);

/*===----------------------------------------------------------------------===
 * #quant_qdq.number_format (TensorQuant's formats, for round_to_format)
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool quantQDQAttributeIsANumberFormat(MlirAttribute attr);

/// The format TensorQuant names `name` (`nearest,16,8`, `ternary,1,0.5`,
/// `fp16`). Returns a null attribute for `none` (no format) and for names
/// that are not formats, which also emit a diagnostic.
MLIR_CAPI_EXPORTED MlirAttribute
quantQDQNumberFormatAttrGetFromTensorQuantName(MlirContext context,
                                               MlirStringRef name);
/// The format's kind: fixed_point, binary, ternary, logarithmic, sparse or
/// half.
MLIR_CAPI_EXPORTED MlirStringRef
quantQDQNumberFormatAttrGetKind(MlirAttribute attr);
/// Calls `callback` with the format's TensorQuant name.
MLIR_CAPI_EXPORTED void
quantQDQNumberFormatAttrGetTensorQuantName(MlirAttribute attr,
                                           MlirStringCallback callback,
                                           void *userData);

/*===----------------------------------------------------------------------===
 * Layers (ops implementing QDQLayerOpInterface)
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool quantQDQOperationIsALayer(MlirOperation op);
/// The layer's name (empty when it has none) and class (Keras's name:
/// `Conv2D`, `Add`; a generic op's ONNX op type).
MLIR_CAPI_EXPORTED MlirStringRef quantQDQLayerGetName(MlirOperation op);
MLIR_CAPI_EXPORTED MlirStringRef quantQDQLayerGetClass(MlirOperation op);
/// What the default table quantizes: the activation inputs, the weight.
MLIR_CAPI_EXPORTED bool
quantQDQLayerQuantizesInputByDefault(MlirOperation op);
MLIR_CAPI_EXPORTED bool
quantQDQLayerQuantizesWeightByDefault(MlirOperation op);

/*===----------------------------------------------------------------------===
 * ONNX
 *===----------------------------------------------------------------------===*/

/// Imports the serialized ONNX ModelProto in `bytes` (diagnostics name
/// `bufferName`) into a new module, nodes converted to layer ops. Returns a
/// null module on failure.
MLIR_CAPI_EXPORTED MlirModule quantQDQImportONNX(MlirContext context,
                                                 MlirStringRef bytes,
                                                 MlirStringRef bufferName);

/// Exports `module` as an ONNX ModelProto, handing the bytes to `callback`
/// in pieces; with `integerWeights`, weights are stored as int8. Nothing is
/// handed over unless the export succeeds.
MLIR_CAPI_EXPORTED MlirLogicalResult
quantQDQExportONNX(MlirModule module, bool integerWeights,
                   MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* QUANTQDQ_C_QUANTQDQ_H */
