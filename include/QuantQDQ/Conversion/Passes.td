//===- Passes.td - lowering passes of quant_qdq ------------*- tablegen -*-===//

#ifndef QUANTQDQ_CONVERSION_PASSES_TD
#define QUANTQDQ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertONNXToQuantQDQ : Pass<"convert-onnx-to-quant-qdq",
                                  "::mlir::func::FuncOp"> {
  let summary = "Give translated ONNX nodes their layer ops";
  let description = [{
    The ONNX translation (`qdq-translate --import-onnx --onnx-generic`)
    turns every node into a `quant_qdq.generic`. This pass rewrites each
    default-domain node whose meaning a layer op carries exactly into that
    op, by one pattern per op type and opset range (the opset is the
    module's `quant_qdq.onnx.opset_import`, 17 when absent): Conv to
    `conv2d`, Gemm and MatMul to `dense`, pools, activations, Clip, Softmax,
    BatchNormalization, Add/Sum/Mul, Concat, Flatten, Reshape, Transpose,
    Pad, Identity/Dropout, QuantizeLinear/DequantizeLinear. Constant nodes
    and shape computations on constants (Shape, Gather, Unsqueeze, Concat,
    Slice, integer arithmetic, ...) are evaluated to `arith.constant`.
    Anything else stays generic.

    Nodes are visited in program order, each once, so that every node sees
    its inputs converted. Then the layer ops' canonicalizations fuse what
    exporters split (`x * sigmoid(x)` to swish, MatMul + bias Add to one
    `dense`), and the function's result types follow its new return values.
    A malformed node (a convolution whose weight does not fit its input, an
    unknown `auto_pad`) is an error naming the node.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ConvertQuantQDQToONNX : Pass<"convert-quant-qdq-to-onnx",
                                  "::mlir::ModuleOp"> {
  let summary = "Rewrite layer and Q/DQ ops into the ONNX nodes export writes";
  let description = [{
    The inverse of `convert-onnx-to-quant-qdq`, and the last step of ONNX
    export: each layer op and Q/DQ op becomes the `quant_qdq.generic` ops of
    the ONNX nodes that compute it, by one pattern per op beside its import
    pattern. The node that computes a layer keeps the layer's name and its
    result's tensor name; helper nodes and constants are named after it
    (`<layer>_gate`, `<layer>_min`). Q/DQ take their scale and zero point as
    constants, of the quantizer's storage type (int8 or uint8); equal ones
    are shared. The writer (`qdq-translate --export-onnx`) then translates
    generic ops and constants only.

    The default-domain opset written is `opset` when given; else the
    module's, raised to what its Q/DQ ops need (13 per axis, 19 for FP8, 21
    for 4 and 16 bits and blocks) with a warning. The patterns write that
    opset's forms; when it differs from the module's, the nodes kept from
    the model carry `quant_qdq.onnx.kept_node_opset`, the opset they were
    written for, and the writer converts them with ONNX's version
    converter. An op with no ONNX form (an `arith` op, an NHWC layer, a
    2-bit quantizer, a quantizer without scales) is an error at that op.

    With `matmul-nbits`, a dense layer whose weight is signed int4 stored
    quantized in power-of-two blocks (16 and up) along its input channels
    becomes ONNX Runtime's `com.microsoft` `MatMulNBits` instead (the
    weight repacked, codes `q + 8` two a byte, scales `[N, blocks]`; a
    bias follows as an Add): what onnxruntime-genai runs for int4
    decoders.
  }];
  let options = [
    Option<"opset", "opset", "int64_t", /*default=*/"0",
           "The default-domain opset to write (0: the module's, raised to "
           "what its Q/DQ ops need)">,
    Option<"matmulNBits", "matmul-nbits", "bool", /*default=*/"false",
           "Write dense layers with int4 weights stored in blocks along "
           "their input channels as ONNX Runtime's com.microsoft "
           "MatMulNBits">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def QDQToQuant : Pass<"qdq-to-quant"> {
  let summary = "Rewrite Q/DQ ops as upstream quant casts with "
                "!quant.uniform types";
  let description = [{
    For stacks that speak upstream MLIR's `quant` dialect (its
    `lower-quant-ops`, StableHLO, IREE, torch-mlir): each
    `quant_qdq.quantize` becomes `quant.qcast` to a `!quant.uniform` type
    that carries its scales, zero points, storage type and range (per
    tensor, or per axis), followed by `quant.scast` to the storage
    integers; each `quant_qdq.dequantize` the reverse, `quant.scast` then
    `quant.dcast`; each `fake_quant` `dcast(qcast(x))`. A storage cast
    pair between a quantize and its dequantize cancels, so a Q/DQ pair
    reads `quant.dcast(quant.qcast(x))`. The narrow range is the storage
    range `i8<-127:127>`.

    The upstream dialect's semantics differ: canonicalization folds
    `dcast(qcast(x))` to `x` (the fake quantization disappears), and
    `lower-quant-ops` truncates toward zero instead of rounding half to
    even. An op without scales (uncalibrated) is an error at that op.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

def QuantToQDQ : Pass<"quant-to-qdq"> {
  let summary = "Rewrite upstream quant casts as quant_qdq Q/DQ ops";
  let description = [{
    The inverse of `qdq-to-quant`: `quant.qcast` to a `!quant.uniform`
    type (per tensor or per axis) becomes `quant_qdq.quantize` to its
    storage integers, `quant.dcast` becomes `quant_qdq.dequantize`, and
    storage casts disappear; quantizers take the type's bits, signedness,
    narrow range (a storage range one above the type's minimum) and
    zero points (symmetric when all are 0). Casts whose quantized values
    other ops read are kept for them. Sub-channel (blocked) types and
    storage ranges other than full or narrow are errors at the cast.
  }];
  let dependentDialects = ["::mlir::quant_qdq::QuantQDQDialect"];
}

def ConvertQuantQDQToLinalg : Pass<"convert-quant-qdq-to-linalg"> {
  let summary = "Lower layer and Q/DQ ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every quant_qdq op into upstream ops on tensors, so that any
    MLIR compiler stack can take the network from there:

    - conv2d to `linalg.conv_2d_nchw_fchw` / `conv_2d_ngchw_gfchw`
      (grouped, depthwise) / `conv_2d_nhwc_hwcf` /
      `depthwise_conv_2d_nhwc_hwcm`, padding with `tensor.pad` (and a
      `tensor.extract_slice` to the rows and columns the windows read, when
      a stride leaves some unread), the bias broadcast into the
      accumulator;
    - dense to a `linalg.generic` contraction; pools to `linalg.pooling_*`
      and reductions; batch norm, activations, add, multiply and softmax to
      element-wise `linalg.generic` with NumPy broadcasting;
    - concat, flatten, reshape, transpose and pad to `tensor` ops and
      `linalg.transpose`;
    - quantize, dequantize and fake_quant to element-wise `linalg.generic`
      with round-half-to-even (`math.roundeven`), saturation to the storage
      range and per-channel scales read along the quantizer's axis. A NaN
      quantizes to the zero point; infinities saturate;
    - calibration's `tensor_range` to a minimum and a maximum reduction over
      all but the first dimension and a constant count (a dynamic one waits
      for static shapes).

    A `quant_qdq.generic` layer or a Q/DQ op without scales cannot be lowered
    and is reported at its location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"];
}

def LowerHistograms : Pass<"qdq-lower-histograms"> {
  let summary = "Write calibration's histograms as loops shared among "
                "threads";
  let description = [{
    Each `quant_qdq.histogram` becomes an `scf.forall` over its rows and
    `chunks` parts of each row (fewer for short rows): every iteration
    counts its part into a histogram of its own, one load, add and store a
    counted element, and a `linalg.reduce` then adds the parts of a row.
    Counting is not a linalg op (the bin an element adds to depends on its
    value), which is why the histogram stays an op of its own until here:
    `convert-quant-qdq-to-linalg` keeps it, and `qdq-split-batch` sees its
    rows as samples before it becomes loops. `qdq-cpu-pipeline` runs this
    right after `qdq-split-batch`.
  }];
  let options = [
    Option<"chunks", "chunks", "int64_t", /*default=*/"16",
           "Parts the rows of a histogram are counted in, at most">,
    Option<"minChunkElements", "min-chunk-elements", "int64_t",
           /*default=*/"16384",
           "Fewest elements worth a part of their own">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

def ConvertQuantQDQToGPU : Pass<"convert-quant-qdq-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Turn quantize, dequantize, fake_quant, fake_quant_grad and "
                "round_to_format into GPU kernels";
  let description = [{
    Each Q/DQ op of static shape becomes a call to a host launcher declared
    `quant_qdq.gpu_launcher`, and a `gpu.func` kernel in
    `gpu.module @qdq_kernels` (one per distinct op kind, element types,
    shape, quantizer and scale layout; scales are kernel arguments, so one
    kernel serves any scales in range). Layers are left for the CPU
    lowering; ops of dynamic shape stay too, with a remark.

    Kernels are written for memory bandwidth: each thread moves `vectors`
    16-byte vectors, all loaded before the first is used, coalesced across
    the warp; full blocks run without bounds checks. Per-channel scales,
    reciprocals and zero points are staged in shared memory once per block,
    or read straight from global memory when a block touches about as many
    channels as elements (channels-last). x / scale is computed without
    division from the reciprocal the host passes in (QDQArithmetic.h) when
    every scale lies in [2^-100, 2^100], and is bit-identical to the CPU
    path.

    Kernel arguments, bare pointers in this order: input, grad
    (fake_quant_grad only), output, scale[C], reciprocal[C] (RN(1/scale)),
    zero_point[C] (f32 holding integers); C is 1 per tensor, the number of
    blocks for blocked quantizers. round_to_format kernels take input,
    output and, for ternary's own threshold, threshold[1].
    `qdq-gpu-launchers` later gives the launchers their bodies.

    FP8 (e4m3fn) rounds on the f32 bits, for any GPU; with `hardware-fp8`
    (qdq-gpu-pipeline sets it for sm_89 and later) through the `cvt`
    instructions of Ada and Hopper instead, which compute the same values.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">,
    Option<"vectorsPerThread", "vectors", "int64_t", "1",
           "16-byte vectors each thread moves">,
    Option<"hardwareFP8", "hardware-fp8", "bool", "false",
           "Convert FP8 with sm_89's cvt instructions (e4m3x2) instead of "
           "f32 bit arithmetic">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"];
}

def GPULaunchers : Pass<"qdq-gpu-launchers", "::mlir::ModuleOp"> {
  let summary = "Give the host launchers of convert-quant-qdq-to-gpu their "
                "bodies";
  let description = [{
    Runs after bufferization and buffer deallocation (which do not know GPU
    memory): each launcher declaration gets a body that allocates device
    buffers, copies the inputs, scales and zero points in, launches its
    kernel, copies the result out and frees the device buffers, on one
    stream, waiting for it before returning.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"];
}

#endif // QUANTQDQ_CONVERSION_PASSES_TD
