//===- GPULaunchers.cpp - host code that launches Q/DQ kernels ------------===//
//
// Gives each launcher declaration of convert-quant-qdq-to-gpu its body. It
// runs after bufferization and buffer deallocation, which know nothing of
// device memory: every device buffer is allocated and freed here, on one
// stream that the launcher waits for before returning.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Conversion/GPUKernelABI.h"
#include "QuantQDQ/Conversion/Passes.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_GPULAUNCHERS
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

static LogicalResult buildLauncher(func::FuncOp launcher,
                                   gpu::GPUFuncOp kernel) {
  auto roles = kernel->getAttrOfType<ArrayAttr>(kKernelArgsAttr);
  std::optional<ArrayRef<int32_t>> grid = kernel.getKnownGridSize();
  std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
  if (!roles || !grid || !block ||
      roles.size() != launcher.getNumArguments())
    return launcher.emitError("launcher does not match its kernel ")
           << kernel.getName();

  Location loc = launcher.getLoc();
  Block *body = launcher.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(body);
  Type token = gpu::AsyncTokenType::get(b.getContext());
  Value last = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();

  SmallVector<Value> deviceArgs;
  Value hostOutput, deviceOutput;
  for (auto [hostArg, role] : llvm::zip(body->getArguments(), roles)) {
    auto type = cast<MemRefType>(hostArg.getType());
    auto alloc = gpu::AllocOp::create(b, loc, type, token, ValueRange{last},
                                      ValueRange{}, ValueRange{});
    last = alloc.getAsyncToken();
    Value device = alloc.getMemref();
    deviceArgs.push_back(device);
    if (cast<StringAttr>(role).getValue() ==
        getKernelArgRoleName(KernelArgRole::Output)) {
      hostOutput = hostArg;
      deviceOutput = device;
      continue;
    }
    last = gpu::MemcpyOp::create(b, loc, token, ValueRange{last}, device,
                                 hostArg)
               .getAsyncToken();
  }

  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  gpu::KernelDim3 gridSize{
      arith::ConstantIndexOp::create(b, loc, (*grid)[0]), one, one};
  gpu::KernelDim3 blockSize{
      arith::ConstantIndexOp::create(b, loc, (*block)[0]), one, one};
  last = gpu::LaunchFuncOp::create(b, loc, kernel, gridSize, blockSize,
                                   /*dynamicSharedMemorySize=*/Value(),
                                   deviceArgs, token, ValueRange{last})
             .getAsyncToken();
  last = gpu::MemcpyOp::create(b, loc, token, ValueRange{last}, hostOutput,
                               deviceOutput)
             .getAsyncToken();
  for (Value device : deviceArgs)
    last = gpu::DeallocOp::create(b, loc, token, ValueRange{last}, device)
               .getAsyncToken();
  gpu::WaitOp::create(b, loc, Type(), ValueRange{last});
  func::ReturnOp::create(b, loc);
  return success();
}

namespace {
struct GPULaunchersPass
    : public quant_qdq::impl::GPULaunchersBase<GPULaunchersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto launcher : module.getOps<func::FuncOp>()) {
      auto ref = launcher->getAttrOfType<SymbolRefAttr>(kLauncherAttr);
      if (!ref || !launcher.isExternal())
        continue;
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(module, ref);
      if (!kernel) {
        launcher.emitError("no kernel ") << ref << " to launch";
        return signalPassFailure();
      }
      if (failed(buildLauncher(launcher, kernel)))
        return signalPassFailure();
      launcher->removeAttr(kLauncherAttr);
    }
  }
};
} // namespace
