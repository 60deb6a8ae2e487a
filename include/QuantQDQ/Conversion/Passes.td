//===- Passes.td - lowering passes of quant_qdq ------------*- tablegen -*-===//

#ifndef QUANTQDQ_CONVERSION_PASSES_TD
#define QUANTQDQ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertQuantQDQToLinalg : Pass<"convert-quant-qdq-to-linalg"> {
  let summary = "Lower layer and Q/DQ ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every quant_qdq op into upstream ops on tensors, so that any
    MLIR compiler stack can take the network from there:

    - conv2d to `linalg.conv_2d_nchw_fchw` / `conv_2d_ngchw_gfchw`
      (grouped, depthwise) / `conv_2d_nhwc_hwcf` /
      `depthwise_conv_2d_nhwc_hwcm`, padding with `tensor.pad`, the bias
      broadcast into the accumulator;
    - dense to a `linalg.generic` contraction; pools to `linalg.pooling_*`
      and reductions; batch norm, activations, add, multiply and softmax to
      element-wise `linalg.generic` with NumPy broadcasting;
    - concat, flatten, reshape, transpose and pad to `tensor` ops and
      `linalg.transpose`;
    - quantize, dequantize and fake_quant to element-wise `linalg.generic`
      with round-half-to-even (`math.roundeven`), saturation to the storage
      range and per-channel scales read along the quantizer's axis. A NaN
      quantizes to the zero point; infinities saturate.

    A `quant_qdq.generic` layer or a Q/DQ op without scales cannot be lowered
    and is reported at its location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"];
}

def ReductionLoopOrder : Pass<"qdq-reduction-loop-order"> {
  let summary = "Make the last parallel dimension the innermost loop of "
                "contractions";
  let description = [{
    Generalizes named linalg contractions (convolutions, pooling) and moves
    their reduction dimensions in front of the last parallel dimension, so
    that once lowered to loops the innermost loop walks the output's
    contiguous dimension (`ow` of a convolution, `n` of a dense layer) and
    LLVM vectorizes it. Part of `qdq-cpu-pipeline`; results are unchanged
    (the reduction order per output element is the same).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // QUANTQDQ_CONVERSION_PASSES_TD
