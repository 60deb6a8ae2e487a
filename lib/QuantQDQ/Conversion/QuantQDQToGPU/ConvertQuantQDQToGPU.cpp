//===- ConvertQuantQDQToGPU.cpp - Q/DQ ops to GPU kernels -----------------===//
//
// Each Q/DQ op of static shape becomes a gpu.func kernel and, at the op, a
// call to a host launcher declaration (bodies come from qdq-gpu-launchers,
// after bufferization). Ops that need the same kernel (GPUKernelSpec.h)
// share one; GPUKernelBuilder.cpp writes its body.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelSpec.h"

#include "../NumberFormatArithmetic.h"
#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVERTQUANTQDQTOGPU
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertQuantQDQToGPUPass
    : public quant_qdq::impl::ConvertQuantQDQToGPUBase<
          ConvertQuantQDQToGPUPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  gpu::GPUModuleOp getKernelModule();
  gpu::GPUFuncOp getOrCreateKernel(const KernelSpec &spec);
  func::FuncOp getOrCreateLauncher(const KernelSpec &spec,
                                   gpu::GPUFuncOp kernel);
  LogicalResult rewrite(Operation *op);

  gpu::GPUModuleOp kernelModule;
  llvm::StringMap<gpu::GPUFuncOp> kernels;
  llvm::StringMap<func::FuncOp> launchers;
  unsigned numGlobals = 0;
};
} // namespace

gpu::GPUModuleOp ConvertQuantQDQToGPUPass::getKernelModule() {
  if (kernelModule)
    return kernelModule;
  ModuleOp module = getOperation();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  if ((kernelModule = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName)))
    return kernelModule;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  kernelModule =
      gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
  return kernelModule;
}

static MemRefType flatMemRef(Type element, int64_t size) {
  return MemRefType::get({size}, element);
}

/// The kernel's argument types, in KernelArgRole order.
static SmallVector<Type> kernelArgTypes(const KernelSpec &spec, Builder &b) {
  SmallVector<Type> types = {flatMemRef(spec.inElement, spec.numElements)};
  if (spec.format) {
    types.push_back(flatMemRef(spec.outElement, spec.numElements));
    if (spec.format.needsMeanMagnitude())
      types.push_back(flatMemRef(b.getF32Type(), 1));
    return types;
  }
  if (spec.kind == QuantOpKind::FakeQuantGrad)
    types.push_back(flatMemRef(spec.inElement, spec.numElements));
  types.push_back(flatMemRef(spec.outElement, spec.numElements));
  for (int i = 0; i < 3; ++i)
    types.push_back(flatMemRef(b.getF32Type(), spec.numScales()));
  return types;
}

gpu::GPUFuncOp
ConvertQuantQDQToGPUPass::getOrCreateKernel(const KernelSpec &spec) {
  std::string name = spec.name();
  if (auto it = kernels.find(name); it != kernels.end())
    return it->second;
  gpu::GPUModuleOp module = getKernelModule();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Type> argTypes = kernelArgTypes(spec, b);
  SmallVector<Type> workgroup;
  if (spec.staged) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    workgroup.assign(3, MemRefType::get({spec.staged}, b.getF32Type(),
                                        MemRefLayoutAttrInterface(), space));
  }
  auto func = gpu::GPUFuncOp::create(
      b, module.getLoc(), name, b.getFunctionType(argTypes, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSize(ArrayRef<int32_t>{int32_t(spec.blockSize), 1, 1});
  func.setKnownGridSize(ArrayRef<int32_t>{int32_t(spec.numBlocks), 1, 1});
  SmallVector<Attribute> roles;
  for (KernelArgRole role : spec.roles())
    roles.push_back(b.getStringAttr(getKernelArgRoleName(role)));
  func->setAttr(kKernelArgsAttr, b.getArrayAttr(roles));
  func->setAttr(kKernelElementsPerThreadAttr,
                b.getI64IntegerAttr(spec.vectorsPerThread * spec.vectorWidth));
  // Inputs are only read and no two arguments alias: lets NVPTX use the
  // read-only data cache.
  for (unsigned i = 0, e = argTypes.size(); i < e; ++i) {
    func.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
    if (spec.roles()[i] != KernelArgRole::Output)
      func.setArgAttr(i, "llvm.readonly", b.getUnitAttr());
  }
  buildKernelBody(spec, func);
  kernels[name] = func;
  return func;
}

func::FuncOp
ConvertQuantQDQToGPUPass::getOrCreateLauncher(const KernelSpec &spec,
                                              gpu::GPUFuncOp kernel) {
  std::string name = "qdq_launch_" + spec.name();
  if (auto it = launchers.find(name); it != launchers.end())
    return it->second;
  ModuleOp module = getOperation();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto launcher = func::FuncOp::create(
      b, module.getLoc(), name, b.getFunctionType(kernelArgTypes(spec, b), {}));
  launcher.setPrivate();
  launcher->setAttr(kLauncherAttr,
                    SymbolRefAttr::get(b.getStringAttr(kKernelModuleName),
                                       {FlatSymbolRefAttr::get(kernel)}));
  launchers[name] = launcher;
  return launcher;
}

/// `buffer` (identity layout) as a 1-D memref over the same elements.
static Value flattenBuffer(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(
        b, loc, flatMemRef(type.getElementType(), 1), buffer,
        ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(type.getRank()));
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

/// A private constant global holding `values`, read with get_global.
static Value getConstantBuffer(OpBuilder &b, Location loc, ModuleOp module,
                               ArrayRef<float> values, unsigned &counter) {
  auto type = MemRefType::get({int64_t(values.size())}, b.getF32Type());
  auto tensorType =
      RankedTensorType::get({int64_t(values.size())}, b.getF32Type());
  std::string name;
  do
    name = "__qdq_gpu_params_" + std::to_string(counter++);
  while (module.lookupSymbol(name));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"), type,
                             DenseElementsAttr::get(tensorType, values),
                             /*constant=*/true, /*alignment=*/nullptr);
  }
  return memref::GetGlobalOp::create(b, loc, type, name);
}

template <typename OpT>
static void fillQuantizer(OpT op, KernelSpec &spec, SmallVector<float> &scales,
                          SmallVector<float> &zeroPoints) {
  QuantizerAttr quantizer = op.getQuantizer();
  spec.qmin = quantizer.getQMin();
  spec.qmax = quantizer.getQMax();
  spec.fp8 = quantizer.isFloatStorage();
  ArrayRef<float> s = *op.getScale();
  scales.assign(s.begin(), s.end());
  for (unsigned i = 0; i < scales.size(); ++i)
    zeroPoints.push_back(float(op.getZeroPointAt(i)));
}

LogicalResult ConvertQuantQDQToGPUPass::rewrite(Operation *op) {
  KernelSpec spec;
  SmallVector<float> scales, zeroPoints;
  std::optional<int64_t> axis;
  SmallVector<Value, 2> dataInputs;
  bool handled =
      TypeSwitch<Operation *, bool>(op)
          .Case<QuantizeOp, DequantizeOp, FakeQuantOp, FakeQuantGradOp>(
              [&](auto q) {
                if (!q.getScale())
                  return false;
                using OpT = decltype(q);
                spec.kind = std::is_same_v<OpT, QuantizeOp>
                                ? QuantOpKind::Quantize
                            : std::is_same_v<OpT, DequantizeOp>
                                ? QuantOpKind::Dequantize
                            : std::is_same_v<OpT, FakeQuantOp>
                                ? QuantOpKind::FakeQuant
                                : QuantOpKind::FakeQuantGrad;
                fillQuantizer(q, spec, scales, zeroPoints);
                axis = q.getQuantizer().getAxis();
                spec.quantBlock = q.getQuantizer().getBlockSize().value_or(0);
                dataInputs.push_back(q.getInput());
                if constexpr (std::is_same_v<OpT, FakeQuantGradOp>)
                  dataInputs.push_back(q.getGrad());
                return true;
              })
          .Case<RoundToFormatOp>([&](RoundToFormatOp round) {
            spec.format = round.getFormat();
            dataInputs.push_back(round.getInput());
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!handled)
    return success();
  spec.hardwareFP8 = spec.fp8 && hardwareFP8;

  auto inType = cast<RankedTensorType>(dataInputs[0].getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!inType.hasStaticShape()) {
    op->emitRemark("kept on the CPU: the GPU lowering needs a static shape");
    return success();
  }
  spec.inElement = inType.getElementType();
  spec.outElement = outType.getElementType();
  spec.numElements = inType.getNumElements();
  spec.inner = spec.numElements;
  if (axis) {
    int64_t a = static_cast<int64_t>(*axis);
    if (a < 0)
      a += inType.getRank();
    spec.channels = inType.getDimSize(a);
    spec.inner = 1;
    for (int64_t d = a + 1; d < inType.getRank(); ++d)
      spec.inner *= inType.getDimSize(d);
  }
  if (spec.numElements == 0) {
    op->emitRemark("kept on the CPU: empty tensor");
    return success();
  }
  // Scales outside the band of the reciprocal contract keep the division.
  SmallVector<float> reciprocals;
  for (float s : scales) {
    spec.reciprocal &= s >= kMinReciprocalScale && s <= kMaxReciprocalScale;
    reciprocals.push_back(1.0f / s);
  }
  chooseGeometry(spec, blockSize, vectorsPerThread);
  if (spec.numBlocks > std::numeric_limits<int32_t>::max())
    return op->emitOpError("is too large for one GPU launch (")
           << spec.numBlocks << " blocks)";

  gpu::GPUFuncOp kernel = getOrCreateKernel(spec);
  func::FuncOp launcher = getOrCreateLauncher(spec, kernel);

  OpBuilder b(op);
  Location loc = op->getLoc();
  ModuleOp module = getOperation();
  auto toFlatBuffer = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Value buffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
        /*read_only=*/true);
    return flattenBuffer(b, loc, buffer);
  };
  SmallVector<Value> args;
  for (Value input : dataInputs)
    args.push_back(toFlatBuffer(input));
  auto outMemRef =
      MemRefType::get(outType.getShape(), outType.getElementType());
  Value out =
      memref::AllocOp::create(b, loc, outMemRef, b.getI64IntegerAttr(64));
  args.push_back(flattenBuffer(b, loc, out));
  if (spec.format) {
    // Ternary's own threshold: a reduction on the host, before the launch.
    if (spec.format.needsMeanMagnitude()) {
      Value th = emitMeanMagnitudeThreshold(b, loc, dataInputs[0]);
      args.push_back(toFlatBuffer(tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({1}, b.getF32Type()), th)));
    }
  } else {
    args.push_back(getConstantBuffer(b, loc, module, scales, numGlobals));
    args.push_back(getConstantBuffer(b, loc, module, reciprocals, numGlobals));
    args.push_back(getConstantBuffer(b, loc, module, zeroPoints, numGlobals));
  }
  func::CallOp::create(b, loc, launcher, args);
  Value result = bufferization::ToTensorOp::create(
      b, loc, outType, out, /*restrict=*/true, /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

void ConvertQuantQDQToGPUPass::runOnOperation() {
  if (blockSize <= 0 || blockSize > 1024 || blockSize % 32)
    return (void)(emitError(getOperation().getLoc())
                  << "block-size must be a multiple of 32 in [32, 1024], "
                     "got "
                  << int64_t(blockSize)),
           signalPassFailure();
  if (vectorsPerThread <= 0 || vectorsPerThread > 16)
    return (void)(emitError(getOperation().getLoc())
                  << "vectors must be in [1, 16], got "
                  << int64_t(vectorsPerThread)),
           signalPassFailure();
  SmallVector<Operation *> ops;
  getOperation().walk([&](Operation *op) {
    if (isa<QuantizeOp, DequantizeOp, FakeQuantOp, FakeQuantGradOp,
            RoundToFormatOp>(op) &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops)
    if (failed(rewrite(op)))
      return signalPassFailure();
}
