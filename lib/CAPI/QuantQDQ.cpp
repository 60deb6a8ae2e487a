//===- QuantQDQ.cpp - C API of quant-qdq ----------------------------------===//

#include "QuantQDQ-c/QuantQDQ.h"

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/InitQuantQDQ.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

using namespace mlir;
using namespace mlir::quant_qdq;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(QuantQDQ, quant_qdq, QuantQDQDialect)

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void quantQDQRegisterDialects(MlirDialectRegistry registry) {
  DialectRegistry &r = *unwrap(registry);
  registerQuantQDQDialects(r);
  registerONNXDialects(r);
}

void quantQDQRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { registerAllQuantQDQPasses(); });
}

//===----------------------------------------------------------------------===//
// #quant_qdq.quantizer
//===----------------------------------------------------------------------===//

bool quantQDQAttributeIsAQuantizer(MlirAttribute attr) {
  return isa<QuantizerAttr>(unwrap(attr));
}

MlirAttribute quantQDQQuantizerAttrGet(MlirContext context, unsigned bits,
                                       bool isSigned, bool narrowRange,
                                       bool symmetric, bool perAxis,
                                       int64_t axis) {
  MLIRContext *ctx = unwrap(context);
  return wrap(QuantizerAttr::getChecked(
      [ctx] { return emitError(UnknownLoc::get(ctx)); }, ctx, bits, isSigned,
      narrowRange, symmetric,
      perAxis ? std::optional<int64_t>(axis) : std::nullopt,
      std::optional<CalibrationMethod>(), std::optional<int64_t>(),
      StorageFormat::Int));
}

static QuantizerAttr quantizer(MlirAttribute attr) {
  return cast<QuantizerAttr>(unwrap(attr));
}

unsigned quantQDQQuantizerAttrGetBits(MlirAttribute attr) {
  return quantizer(attr).getBits();
}
bool quantQDQQuantizerAttrIsSigned(MlirAttribute attr) {
  return quantizer(attr).getIsSigned();
}
bool quantQDQQuantizerAttrIsNarrowRange(MlirAttribute attr) {
  return quantizer(attr).getNarrowRange();
}
bool quantQDQQuantizerAttrIsSymmetric(MlirAttribute attr) {
  return quantizer(attr).getSymmetric();
}
bool quantQDQQuantizerAttrIsPerAxis(MlirAttribute attr) {
  return quantizer(attr).isPerAxis();
}
int64_t quantQDQQuantizerAttrGetAxis(MlirAttribute attr) {
  return quantizer(attr).getAxis().value_or(-1);
}
int64_t quantQDQQuantizerAttrGetBlockSize(MlirAttribute attr) {
  return quantizer(attr).getBlockSize().value_or(0);
}
MlirStringRef quantQDQQuantizerAttrGetCalibration(MlirAttribute attr) {
  std::optional<CalibrationMethod> method = quantizer(attr).getCalibration();
  return wrap(method ? stringifyCalibrationMethod(*method) : StringRef());
}

//===----------------------------------------------------------------------===//
// #quant_qdq.number_format
//===----------------------------------------------------------------------===//

bool quantQDQAttributeIsANumberFormat(MlirAttribute attr) {
  return isa<NumberFormatAttr>(unwrap(attr));
}

MlirAttribute quantQDQNumberFormatAttrGetFromTensorQuantName(
    MlirContext context, MlirStringRef name) {
  MLIRContext *ctx = unwrap(context);
  FailureOr<std::optional<NumberFormatAttr>> format =
      NumberFormatAttr::parseTensorQuantName(
          ctx, unwrap(name), [&] { return emitError(UnknownLoc::get(ctx)); });
  if (failed(format) || !*format)
    return MlirAttribute{nullptr};
  return wrap(Attribute(**format));
}

MlirStringRef quantQDQNumberFormatAttrGetKind(MlirAttribute attr) {
  return wrap(
      stringifyNumberFormatKind(cast<NumberFormatAttr>(unwrap(attr)).getKind()));
}

void quantQDQNumberFormatAttrGetTensorQuantName(MlirAttribute attr,
                                                MlirStringCallback callback,
                                                void *userData) {
  std::string name = cast<NumberFormatAttr>(unwrap(attr)).getTensorQuantName();
  callback(wrap(StringRef(name)), userData);
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

static QDQLayerOpInterface layer(MlirOperation op) {
  return cast<QDQLayerOpInterface>(unwrap(op));
}

bool quantQDQOperationIsALayer(MlirOperation op) {
  return isa<QDQLayerOpInterface>(unwrap(op));
}
MlirStringRef quantQDQLayerGetName(MlirOperation op) {
  return wrap(layer(op).getLayerName());
}
MlirStringRef quantQDQLayerGetClass(MlirOperation op) {
  return wrap(layer(op).getLayerClass());
}
bool quantQDQLayerQuantizesInputByDefault(MlirOperation op) {
  return layer(op).quantizesInputByDefault();
}
bool quantQDQLayerQuantizesWeightByDefault(MlirOperation op) {
  return layer(op).quantizesWeightByDefault();
}

//===----------------------------------------------------------------------===//
// ONNX
//===----------------------------------------------------------------------===//

MlirModule quantQDQImportONNX(MlirContext context, MlirStringRef bytes,
                              MlirStringRef bufferName) {
  llvm::MemoryBufferRef buffer(unwrap(bytes), unwrap(bufferName));
  OwningOpRef<ModuleOp> module = importONNX(buffer, unwrap(context));
  return module ? wrap(module.release()) : MlirModule{nullptr};
}

MlirLogicalResult quantQDQExportONNX(MlirModule module, bool integerWeights,
                                     MlirStringCallback callback,
                                     void *userData) {
  // exportONNX checks everything before it writes the first byte, so the
  // callback sees nothing of a failed export; the weights stream through
  // it without a copy.
  mlir::detail::CallbackOstream stream(callback, userData);
  ONNXExportOptions options;
  options.integerWeights = integerWeights;
  if (failed(exportONNX(unwrap(module), stream, options)))
    return mlirLogicalResultFailure();
  stream.flush();
  return mlirLogicalResultSuccess();
}
