//===- ExportGPUKernels.cpp - --export-gpu-kernels ------------------------===//
//
// A copy of the module goes through qdq-gpu-pipeline in two steps: after
// convert-quant-qdq-to-gpu, each Q/DQ op's launcher call names its kernel,
// and the kernel states its launch size and argument roles; the rest of the
// pipeline compiles the kernels into a gpu.binary.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Target/GPUKernels.h"
#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Conversion/GPUKernelABI.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/InitQuantQDQ.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct GPUKernelsCLOptions {
  llvm::cl::opt<std::string> chip{
      "gpu-chip", llvm::cl::desc("With --export-gpu-kernels: the NVIDIA "
                                 "target, e.g. sm_80, sm_90"),
      llvm::cl::init("sm_90")};
  llvm::cl::opt<std::string> features{
      "gpu-features",
      llvm::cl::desc("With --export-gpu-kernels: PTX features (sm_90 needs "
                     "+ptx78 or later)"),
      llvm::cl::init("+ptx80")};
  llvm::cl::opt<std::string> format{
      "gpu-format",
      llvm::cl::desc("With --export-gpu-kernels: isa (PTX text), bin "
                     "(cubin, runs ptxas) or fatbin"),
      llvm::cl::init("bin")};
  llvm::cl::opt<int64_t> blockSize{
      "gpu-block-size",
      llvm::cl::desc("With --export-gpu-kernels: threads per block"),
      llvm::cl::init(256)};
  llvm::cl::opt<int64_t> vectors{
      "gpu-vectors",
      llvm::cl::desc("With --export-gpu-kernels: 16-byte vectors each "
                     "thread moves"),
      llvm::cl::init(1)};
};

/// One Q/DQ op of the module, as the manifest describes it.
struct KernelUse {
  std::string function, op, kernel;
  /// One of the two: a Q/DQ op's quantizer, a round_to_format's format.
  QuantizerAttr quantizer;
  NumberFormatAttr format;
  RankedTensorType input, output;
  /// The op's constants, when it has them: per channel, as the kernel
  /// reads them (reciprocal = RN(1 / scale), zero points as f32).
  SmallVector<float> scales, reciprocals, zeroPoints;
  /// The kernel's launch and arguments, read before it is compiled.
  std::array<int64_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
  std::optional<int64_t> elementsPerThread;
  SmallVector<std::string> roles;
};
} // namespace

static GPUKernelsCLOptions &getCLOptions() {
  static GPUKernelsCLOptions options;
  return options;
}

/// The manifest's dtype of `type`; integers are storage, signed or not as
/// the quantizer says.
static StringRef getDtype(Type type, bool isSigned) {
  if (type.isInteger(8))
    return isSigned ? "int8" : "uint8";
  if (type.isInteger(16))
    return isSigned ? "int16" : "uint16";
  // Sub-byte integers are held one per byte.
  if (type.isInteger(4))
    return isSigned ? "int4" : "uint4";
  if (type.isF32())
    return "float32";
  if (isa<Float8E4M3FNType>(type))
    return "float8_e4m3fn";
  if (type.isF16())
    return "float16";
  if (type.isBF16())
    return "bfloat16";
  return "";
}

/// The Q/DQ ops of static shape in program order, each with its function.
static std::vector<KernelUse> collectOps(ModuleOp module) {
  std::vector<KernelUse> uses;
  module.walk([&](func::FuncOp func) {
    func.walk([&](Operation *op) {
      if (!isa<QuantizeOp, DequantizeOp, FakeQuantOp, FakeQuantGradOp,
               RoundToFormatOp>(op))
        return;
      auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      auto output = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!input || !output || !input.hasStaticShape())
        return;
      KernelUse &use = uses.emplace_back();
      use.function = func.getName().str();
      use.op = op->getName().stripDialect().str();
      use.quantizer = op->getAttrOfType<QuantizerAttr>("quantizer");
      use.format = op->getAttrOfType<NumberFormatAttr>("format");
      use.input = input;
      use.output = output;
      if (auto scale = op->getAttrOfType<DenseF32ArrayAttr>("scale")) {
        auto zeroPoint = op->getAttrOfType<DenseI32ArrayAttr>("zero_point");
        for (auto [i, s] : llvm::enumerate(scale.asArrayRef())) {
          use.scales.push_back(s);
          use.reciprocals.push_back(1.0f / s);
          use.zeroPoints.push_back(zeroPoint ? float(zeroPoint[i]) : 0.0f);
        }
      }
    });
  });
  return uses;
}

static LogicalResult exportGPUKernels(ModuleOp module, llvm::raw_ostream &os) {
  const GPUKernelsCLOptions &cl = getCLOptions();
  Location loc = module.getLoc();
  if (cl.format != "isa" && cl.format != "bin" && cl.format != "fatbin")
    return emitError(loc) << "--gpu-format must be isa, bin or fatbin, not '"
                          << cl.format << "'";
  std::vector<KernelUse> uses = collectOps(module);
  if (uses.empty())
    return emitError(loc) << "no quantize, dequantize, fake_quant, "
                             "fake_quant_grad or round_to_format op of static "
                             "shape to export";

  // Each op's launcher call names its kernel, which states its launch size
  // and argument roles until it is compiled.
  OwningOpRef<ModuleOp> compiled = module.clone();
  PassManager convert(module.getContext());
  ConvertQuantQDQToGPUOptions kernelOptions;
  kernelOptions.hardwareFP8 = hasFP8Conversions(cl.chip.getValue());
  kernelOptions.blockSize = cl.blockSize;
  kernelOptions.vectorsPerThread = cl.vectors;
  convert.addPass(createConvertQuantQDQToGPU(kernelOptions));
  if (failed(convert.run(*compiled)))
    return failure();
  SmallVector<StringRef> launched;
  compiled->walk([&](func::CallOp call) {
    auto callee = compiled->lookupSymbol<func::FuncOp>(call.getCallee());
    if (auto ref = callee ? callee->getAttrOfType<SymbolRefAttr>(kLauncherAttr)
                          : SymbolRefAttr())
      launched.push_back(ref.getLeafReference().getValue());
  });
  if (launched.size() != uses.size())
    return emitError(loc) << "the conversion made " << launched.size()
                          << " kernel launches for " << uses.size()
                          << " ops";
  auto kernels = compiled->lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  for (auto [use, name] : llvm::zip(uses, launched)) {
    use.kernel = name.str();
    auto kernel = kernels.lookupSymbol<gpu::GPUFuncOp>(name);
    auto copyDims = [](DenseI32ArrayAttr attr, std::array<int64_t, 3> &dims) {
      for (auto [i, d] : llvm::enumerate(attr ? attr.asArrayRef()
                                              : ArrayRef<int32_t>()))
        if (i < 3)
          dims[i] = d;
    };
    copyDims(kernel.getKnownGridSizeAttr(), use.grid);
    copyDims(kernel.getKnownBlockSizeAttr(), use.block);
    if (auto perThread =
            kernel->getAttrOfType<IntegerAttr>(kKernelElementsPerThreadAttr))
      use.elementsPerThread = perThread.getInt();
    for (Attribute role : kernel->getAttrOfType<ArrayAttr>(kKernelArgsAttr))
      use.roles.push_back(cast<StringAttr>(role).str());
  }

  // The rest of qdq-gpu-pipeline compiles them into a gpu.binary.
  PassManager lower(module.getContext());
  GPUPipelineOptions pipeline;
  pipeline.chip = cl.chip.getValue();
  pipeline.features = cl.features.getValue();
  pipeline.format = cl.format.getValue();
  buildGPULoweringPipeline(lower, pipeline);
  if (failed(lower.run(*compiled)))
    return failure();
  auto binary = compiled->lookupSymbol<gpu::BinaryOp>(kKernelModuleName);
  if (!binary || binary.getObjects().empty())
    return emitError(loc) << "the GPU pipeline produced no kernel binary";
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);

  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("chip", cl.chip);
    json.attribute("format", cl.format);
    json.attributeArray("objects", [&] {
      json.object([&] {
        json.attribute("module", kKernelModuleName);
        json.attribute("data",
                       llvm::encodeBase64(object.getObject().getValue()));
      });
    });
    json.attributeArray("kernels", [&] {
      for (const KernelUse &use : uses) {
        json.object([&] {
          json.attribute("function", use.function);
          json.attribute("op", use.op);
          json.attribute("module", kKernelModuleName);
          json.attribute("kernel", use.kernel);
          auto dims = [&](StringRef key, ArrayRef<int64_t> values) {
            json.attributeArray(key, [&] {
              for (int64_t d : values)
                json.value(d);
            });
          };
          dims("grid", use.grid);
          dims("block", use.block);
          // Shared memory is static (workgroup attributions): none to ask
          // for at launch.
          json.attribute("shared_bytes", int64_t(0));
          if (use.elementsPerThread)
            json.attribute("elements_per_thread", *use.elementsPerThread);
          QuantizerAttr q = use.quantizer;
          // Parameter tables: [C] per channel, the scale shape per block.
          SmallVector<int64_t> tableShape = {1};
          if (q && q.getAxis())
            tableShape = q.getScaleShape(use.input.getShape());
          json.attributeArray("args", [&] {
            for (StringRef name : use.roles) {
              json.object([&] {
                json.attribute("role", name);
                bool tensor =
                    name == "input" || name == "grad" || name == "output";
                RankedTensorType type =
                    name == "output" ? use.output : use.input;
                json.attribute("dtype",
                               tensor ? getDtype(type.getElementType(),
                                                 !q || q.getIsSigned())
                                      : StringRef("float32"));
                json.attributeArray("shape", [&] {
                  if (tensor)
                    for (int64_t d : type.getShape())
                      json.value(d);
                  else
                    for (int64_t d : tableShape)
                      json.value(d);
                });
                ArrayRef<float> values = name == "scale" ? use.scales
                                         : name == "reciprocal"
                                             ? use.reciprocals
                                         : name == "zero_point"
                                             ? use.zeroPoints
                                             : ArrayRef<float>();
                if (!values.empty())
                  json.attributeArray("values", [&] {
                    for (float v : values)
                      json.value(double(v));
                  });
              });
            }
          });
          if (NumberFormatAttr f = use.format) {
            // The threshold argument, when there is one, is computed from
            // the input before each launch: 0.7 * mean|input|.
            json.attributeObject("format", [&] {
              json.attribute("kind", stringifyNumberFormatKind(f.getKind()));
              json.attribute("name", f.getTensorQuantName());
            });
            return;
          }
          json.attributeObject("quantizer", [&] {
            json.attribute("bits", int64_t(q.getBits()));
            json.attribute("signed", q.getIsSigned());
            json.attribute("narrow_range", q.getNarrowRange());
            if (q.getAxis())
              json.attribute("axis", *q.getAxis());
            else
              json.attribute("axis", nullptr);
            if (q.getBlockSize())
              json.attribute("block_size", *q.getBlockSize());
            json.attribute("qmin", q.getQMin());
            json.attribute("qmax", q.getQMax());
            json.attribute("storage",
                           stringifyStorageFormat(q.getStorage()));
          });
        });
      }
    });
  });
  os << "\n";
  return success();
}

void mlir::quant_qdq::registerGPUKernelsExport() {
  (void)getCLOptions();
  TranslateFromMLIRRegistration registration(
      "export-gpu-kernels",
      "Compile a module's Q/DQ ops to GPU kernels and describe them in a "
      "JSON manifest",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        return exportGPUKernels(module, os);
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllExtensions(registry);
        registerQuantQDQDialects(registry);
      });
}
