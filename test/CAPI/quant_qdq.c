/* quant_qdq.c - the C API, from C: dialect, passes, attributes, layers,
 * ONNX out and back in, errors as diagnostics. */
// RUN: qdq-capi-test 2>&1 | FileCheck %s

#include "QuantQDQ-c/QuantQDQ.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kModel =
    "func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {\n"
    "  %w = arith.constant dense<0.5> : tensor<2x2x1x1xf32>\n"
    "  %c = quant_qdq.conv2d \"conv\" %x, %w : (tensor<1x2x4x4xf32>, "
    "tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>\n"
    "  %r = quant_qdq.activation relu \"relu\" %c : tensor<1x2x4x4xf32>\n"
    "  return %r : tensor<1x2x4x4xf32>\n"
    "}\n";

static void printString(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stdout);
}

/// Prints every diagnostic on stdout, so that FileCheck sees them in order.
static MlirLogicalResult printDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(d, printString, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/// The ops of @main's body, layers with their name and class.
static void describeLayers(MlirModule module) {
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef opName =
        mlirIdentifierStr(mlirOperationGetName(op));
    printf("op %.*s", (int)opName.length, opName.data);
    if (quantQDQOperationIsALayer(op)) {
      MlirStringRef name = quantQDQLayerGetName(op);
      MlirStringRef cls = quantQDQLayerGetClass(op);
      printf(" layer '%.*s' class %.*s input %d weight %d", (int)name.length,
             name.data, (int)cls.length, cls.data,
             quantQDQLayerQuantizesInputByDefault(op),
             quantQDQLayerQuantizesWeightByDefault(op));
    }
    MlirAttribute q = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("quantizer"));
    if (!mlirAttributeIsNull(q) && quantQDQAttributeIsAQuantizer(q))
      printf(" quantizer bits %u signed %d narrow %d symmetric %d axis %lld",
             quantQDQQuantizerAttrGetBits(q), quantQDQQuantizerAttrIsSigned(q),
             quantQDQQuantizerAttrIsNarrowRange(q),
             quantQDQQuantizerAttrIsSymmetric(q),
             (long long)quantQDQQuantizerAttrGetAxis(q));
    printf("\n");
  }
}

struct Buffer {
  char *data;
  size_t size;
};

static void append(MlirStringRef s, void *userData) {
  struct Buffer *b = (struct Buffer *)userData;
  b->data = (char *)realloc(b->data, b->size + s.length);
  memcpy(b->data + b->size, s.data, s.length);
  b->size += s.length;
}

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  quantQDQRegisterDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__quant_qdq__(), ctx);
  mlirContextSetAllowUnregisteredDialects(ctx, false);
  quantQDQRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModel));
  if (mlirModuleIsNull(module))
    return 1;
  // CHECK-LABEL: parsed
  // CHECK: op quant_qdq.conv2d layer 'conv' class Conv2D input 1 weight 1
  // CHECK: op quant_qdq.activation layer 'relu' class Activation input 0 weight 0
  printf("parsed\n");
  describeLayers(module);

  // A pipeline of quant-qdq passes through MLIR's pass C API.
  // CHECK-LABEL: inserted
  // CHECK: op quant_qdq.quantize quantizer bits 8 signed 1 narrow 1 symmetric 1 axis -1
  // CHECK: op quant_qdq.quantize quantizer bits 8 signed 1 narrow 1 symmetric 1 axis 0
  // CHECK: op quant_qdq.conv2d layer 'conv'
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(insert-qdq)"),
      printString, NULL);
  if (mlirLogicalResultIsFailure(parsed) ||
      mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(
          pm, mlirModuleGetOperation(module))))
    return 1;
  mlirPassManagerDestroy(pm);
  printf("inserted\n");
  describeLayers(module);

  // CHECK-LABEL: quantizers
  // CHECK: 4 bits unsigned per axis 1: 4 0 1 block 0
  // CHECK: diagnostic: quantizer bit width must be in [2, 16], got 1
  // CHECK: 1 bit: null
  printf("quantizers\n");
  MlirAttribute q4 =
      quantQDQQuantizerAttrGet(ctx, 4, false, false, false, true, 1);
  printf("4 bits unsigned per axis 1: %u %d %lld block %lld\n",
         quantQDQQuantizerAttrGetBits(q4), quantQDQQuantizerAttrIsSigned(q4),
         (long long)quantQDQQuantizerAttrGetAxis(q4),
         (long long)quantQDQQuantizerAttrGetBlockSize(q4));
  MlirAttribute q1 = quantQDQQuantizerAttrGet(ctx, 1, true, true, true, false, 0);
  printf("1 bit: %s\n", mlirAttributeIsNull(q1) ? "null" : "not null");

  // TensorQuant's formats by name, and back.
  // CHECK-LABEL: number formats
  // CHECK: stochastic,8,4,7: fixed_point, a format 1, a quantizer 0, named stochastic,8,4,7
  // CHECK: #quant_qdq.number_format<fixed_point, bits = 8, fraction_bits = 4, rounding = stochastic, seed = 7>
  // CHECK: none: null
  // CHECK: diagnostic: unknown quantizer 'quaternary'
  // CHECK: quaternary: null
  printf("number formats\n");
  MlirAttribute f = quantQDQNumberFormatAttrGetFromTensorQuantName(
      ctx, mlirStringRefCreateFromCString("stochastic,8,4,7"));
  MlirStringRef kind = quantQDQNumberFormatAttrGetKind(f);
  printf("stochastic,8,4,7: %.*s, a format %d, a quantizer %d, named ",
         (int)kind.length, kind.data, quantQDQAttributeIsANumberFormat(f),
         quantQDQAttributeIsAQuantizer(f));
  quantQDQNumberFormatAttrGetTensorQuantName(f, printString, NULL);
  printf("\n");
  mlirAttributePrint(f, printString, NULL);
  printf("\n");
  printf("none: %s\n",
         mlirAttributeIsNull(quantQDQNumberFormatAttrGetFromTensorQuantName(
             ctx, mlirStringRefCreateFromCString("none")))
             ? "null"
             : "not null");
  printf("quaternary: %s\n",
         mlirAttributeIsNull(quantQDQNumberFormatAttrGetFromTensorQuantName(
             ctx, mlirStringRefCreateFromCString("quaternary")))
             ? "null"
             : "not null");

  // ONNX out and back in. Export warns that activations are uncalibrated.
  // CHECK-LABEL: onnx
  // CHECK: diagnostic: activations are uncalibrated
  // CHECK: exported: ok, {{[1-9][0-9]*}} bytes
  // CHECK: op quant_qdq.quantize
  // CHECK: op quant_qdq.conv2d layer 'conv' class Conv2D
  // CHECK: op quant_qdq.activation layer 'relu'
  printf("onnx\n");
  struct Buffer onnx = {NULL, 0};
  MlirLogicalResult exported = quantQDQExportONNX(module, false, append, &onnx);
  printf("exported: %s, %zu bytes\n",
         mlirLogicalResultIsSuccess(exported) ? "ok" : "failed", onnx.size);
  MlirModule reimported = quantQDQImportONNX(
      ctx, mlirStringRefCreate(onnx.data, onnx.size),
      mlirStringRefCreateFromCString("model.onnx"));
  if (mlirModuleIsNull(reimported))
    return 1;
  describeLayers(reimported);
  mlirModuleDestroy(reimported);
  free(onnx.data);

  // Bad bytes: a diagnostic naming the buffer and a null module.
  // CHECK-LABEL: garbage
  // CHECK: diagnostic: not an ONNX model
  // CHECK: garbage: null
  printf("garbage\n");
  MlirModule bad =
      quantQDQImportONNX(ctx, mlirStringRefCreateFromCString("not a model"),
                         mlirStringRefCreateFromCString("bad.onnx"));
  printf("garbage: %s\n", mlirModuleIsNull(bad) ? "null" : "not null");

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
