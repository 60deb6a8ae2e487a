//===- Translations.cpp - --import-onnx and --export-onnx -----------------===//

#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
enum class WeightForm { Float, Int8 };

/// The export options, as command-line flags shared by qdq-translate and
/// qdq-opt.
struct ExportCLOptions {
  llvm::cl::opt<WeightForm> weights{
      "onnx-weights",
      llvm::cl::desc("How ONNX export writes quantized weights"),
      llvm::cl::values(
          clEnumValN(WeightForm::Int8, "int8",
                     "int8 initializer + DequantizeLinear (default)"),
          clEnumValN(WeightForm::Float, "float",
                     "float initializer + QuantizeLinear + DequantizeLinear, "
                     "as TensorRT's QAT export writes them")),
      llvm::cl::init(WeightForm::Int8)};
  llvm::cl::opt<double> activationAmax{
      "onnx-activation-amax",
      llvm::cl::desc("Range ONNX export assumes for uncalibrated activation "
                     "Q/DQ (scale = amax / 127)"),
      llvm::cl::init(6.0)};
  llvm::cl::opt<ONNXExternalData> externalData{
      "onnx-external-data",
      llvm::cl::desc("Whether an ONNX model written to a file keeps tensors "
                     "of 1 KiB or more in <file>.data"),
      llvm::cl::values(
          clEnumValN(ONNXExternalData::Auto, "auto",
                     "when the input model did, or the model is over 2 GiB "
                     "(default)"),
          clEnumValN(ONNXExternalData::Always, "always", "always"),
          clEnumValN(ONNXExternalData::Never, "never",
                     "never (a model over 2 GiB is an error)")),
      llvm::cl::init(ONNXExternalData::Auto)};
  llvm::cl::opt<int64_t> opset{
      "onnx-opset",
      llvm::cl::desc("The default-domain opset ONNX export writes, nodes "
                     "kept from the model converted to it (default: the "
                     "model's, raised to what its Q/DQ nodes need)"),
      llvm::cl::init(0)};
  llvm::cl::opt<bool> matmulNBits{
      "onnx-matmul-nbits",
      llvm::cl::desc("Write int4 dense layers stored in blocks along their "
                     "input channels as ONNX Runtime's com.microsoft "
                     "MatMulNBits (onnxruntime-genai's int4 form)"),
      llvm::cl::init(false)};
};
} // namespace

static ExportCLOptions &getCLOptions() {
  static ExportCLOptions options;
  return options;
}

void mlir::quant_qdq::registerONNXExportCLOptions() { (void)getCLOptions(); }

ONNXExportOptions mlir::quant_qdq::getONNXExportOptionsFromCL() {
  ONNXExportOptions options;
  options.integerWeights = getCLOptions().weights == WeightForm::Int8;
  options.activationAmax = getCLOptions().activationAmax;
  options.externalData = getCLOptions().externalData;
  options.opset = getCLOptions().opset;
  options.matmulNBits = getCLOptions().matmulNBits;
  return options;
}

void mlir::quant_qdq::registerONNXDialects(DialectRegistry &registry) {
  registry.insert<QuantQDQDialect, func::FuncDialect, arith::ArithDialect>();
}

bool mlir::quant_qdq::isONNXFilename(llvm::StringRef path) {
  return llvm::sys::path::extension(path).equals_insensitive(".onnx");
}

/// `--onnx-generic`: import translates only.
static llvm::cl::opt<bool> &getKeepGenericOption() {
  static llvm::cl::opt<bool> keepGeneric(
      "onnx-generic",
      llvm::cl::desc("With --import-onnx: keep every node a quant_qdq.generic "
                     "(the translation without convert-onnx-to-quant-qdq)"),
      llvm::cl::init(false));
  return keepGeneric;
}

void mlir::quant_qdq::registerONNXTranslations() {
  registerONNXExportCLOptions();
  (void)getKeepGenericOption();
  TranslateToMLIRRegistration importRegistration(
      "import-onnx", "Import an ONNX model as a function of quant_qdq layers",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ONNXImportOptions options;
        options.convertNodes = !getKeepGenericOption();
        OwningOpRef<ModuleOp> module =
            importONNX(buffer->getMemBufferRef(), context, options);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      },
      registerONNXDialects);
  TranslateFromMLIRRegistration exportRegistration(
      "export-onnx",
      "Export a function of quant_qdq layers and Q/DQ ops as an ONNX model",
      [](ModuleOp module, llvm::raw_ostream &os) {
        return exportONNX(module, os, getONNXExportOptionsFromCL());
      },
      registerONNXDialects);
}
