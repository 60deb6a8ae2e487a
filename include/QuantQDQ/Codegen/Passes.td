//===- Passes.td - the engine's code-generation passes -----*- tablegen -*-===//
//
// The passes that take linalg on tensors, as convert-quant-qdq-to-linalg
// leaves it, to fast CPU code: batch splitting, fusion, convolutions as
// contractions, panel packing, vectorization, loop distribution and
// outlining, buffer release. They touch no quant_qdq type (quantization's
// passes are in Transforms/Passes.td); qdq-cpu-pipeline chains them.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_PASSES_TD
#define QUANTQDQ_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseSiblingReductions : Pass<"qdq-fuse-sibling-reductions"> {
  let summary = "Reductions of one tensor over one iteration space become "
                "one op";
  let description = [{
    Two `linalg.generic` reductions (on tensors, static shapes) that read
    the same tensor through the same indexing map, over the same loop
    ranges and iterator types, become one generic with the results of both:
    the tensor is read once instead of twice. The minimum and maximum that
    calibration's `quant_qdq.tensor_range` of each observed activation
    lowers to are such a pair. The fused op
    takes the later one's place, so the earlier one's results must not be
    read before it, nor the later one read the earlier one's results; more
    than two siblings fuse one after the other. Each result keeps its own
    body and its own order of terms, so no value changes. Element-wise ops
    are left alone (their fusion is `qdq-elementwise-fusion`'s), and so are
    matrix products (a decoder's gate and up projections read one input):
    `qdq-vectorize-contractions` tiles each in registers, which it cannot
    do for one op of two results. Part of
    `qdq-cpu-pipeline`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def SplitBatch : Pass<"qdq-split-batch", "::mlir::ModuleOp"> {
  let summary = "Run a batch whose samples are computed apart in groups";
  let description = [{
    Where every public function's arguments share their dimension 0 (the
    batch) and each sample of its results depends on the same sample of
    the arguments only, computed the same way for every sample, the
    function becomes a loop over groups of samples that calls a private
    copy of its body made for one group (`<name>_samples`), and inserts
    each group's results into the batch's. A group's activations stay in
    cache from one layer to the next where the whole batch's would not.

    That each sample is computed apart is proved on linalg on tensors
    (static shapes): the pass follows the dimension that holds the samples
    (outermost, possibly merged with others) through linalg ops (as a
    parallel loop that their bodies do not index, but for a gather's
    `tensor.extract` of the same sample), reshapes, pads, slices,
    concatenations and calibration's `quant_qdq.histogram` (whose rows,
    when they are the samples, are counted apart). Tensors that do not depend on the samples but are
    read along the samples' loop (a bias broadcast over the batch, an
    empty output, a splat) must be made the same for every sample (an
    empty tensor, a splat, a fill, a broadcast along that dimension); the
    group's copy makes them at its size. Anything else that touches the
    samples (a reduction over them, a slice of some, a constant of the
    batch's size, an op the analysis does not know) leaves the function
    whole: the pass never changes what is computed. Shape computations
    that were folded for the whole batch stay as they were. Results that do
    not depend on the samples (calibration's sizes of the observed
    tensors) are computed once, outside the loop.

    The group is the largest divisor of the batch that is at most
    `samples`. With `samples` 0, groups grow along the function, in stages
    (`<name>_samples_0`, `_1`, ...): each op may run in the largest group
    whose tensors (per sample, times the group), and those of every op
    after it, fit in `cache-bytes`. A stage of a larger group starts where
    the bytes it moves are fewest: the tensors passed to it, written to the
    batch's and read back (the function's arguments and results are in
    memory anyway), against the weights (the operands every sample reads)
    that the ops before the cut read once per smaller group; where
    no cut pays, the ops keep the smaller group. A CNN's first layers, whose
    activations are large, then run a sample at a time, and its last, whose
    weights are large, on the whole batch. A stage that would read samples
    interleaved with another dimension joins the stage before it. With
    both options 0 the pass does nothing. Part of `qdq-cpu-pipeline` (its
    `split-batch-bytes`), once convolutions are NHWC, so that the tensors
    passed between stages are too.
  }];
  let options = [
    Option<"samples", "samples", "int64_t", /*default=*/"0",
           "Samples per group (the largest divisor of the batch at most "
           "this; 0: chosen from cache-bytes)">,
    Option<"cacheBytes", "cache-bytes", "int64_t", /*default=*/"0",
           "With samples=0: bytes an op's tensors of one group "
           "may take (0: no split)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Say, as a remark, how each function's batch runs: in groups "
           "of how many samples, or whole and because of which op">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ElementwiseFusion : Pass<"qdq-elementwise-fusion"> {
  let summary = "Fuse element-wise linalg ops where no work is repeated";
  let description = [{
    linalg's element-wise fusion (with reshape folding and linalg constant
    folding), restricted to producers with one use whose consumer reads each
    produced element once: the consumer's indexing map of the operand is a
    permutation of its loops. A producer read through a broadcast, or by a
    contraction that revisits each element once per output column, keeps its
    own op and is computed once. Then a `tensor.pad` of such a producer's
    result (a convolution's input) is fused with it (linalg's pad fusion):
    the producer writes into the interior of the padded tensor, and
    bufferization no longer copies the whole tensor into it. Where the
    producer has other readers too (a residual, calibration's range of the
    tensor), they read that interior, and the insert into the padded
    tensor moves after them, so that bufferization sees no write between
    the producer and its readers; one pad per producer is fused. A pad of
    anything else (the network's input) first gets an element-wise copy as
    its producer, so that it fuses the same way. Only the padding around
    the interior is filled (slabs before and after it along each
    dimension), not the whole tensor first. (Canonicalization later folds
    that identity copy back into an insert of the source, which
    `qdq-distribute-loops` turns into a copy on every thread again for a
    function argument.) Part of `qdq-cpu-pipeline`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvolutionsChannelsLast : Pass<"qdq-convolutions-channels-last"> {
  let summary = "Run NCHW convolutions and poolings in NHWC";
  let description = [{
    Each `linalg.conv_2d_nchw_fchw` on static f32 tensors becomes a
    `conv_2d_nhwc_hwcf` between transposes (a constant filter is transposed
    here, once), and each `pooling_nchw_max` or `pooling_nchw_sum` its NHWC
    twin. The transposes, `linalg.generic` ops that yield their input read
    through a permutation, then move until they meet and cancel: up through
    a pad, a slice, a fill or a broadcast that only they read, down through
    element-wise ops whose every input read in full is transposed the same
    way (inputs read in part, such as a per-channel scale, are read through
    the permutation). In a CNN this leaves one transpose of the network's
    input and one where the image ends. A depthwise `conv_2d_ngchw_gfchw`
    (a channel a group) becomes a `depthwise_conv_2d_nhwc_hwc`. A function
    with a grouped convolution of more channels a group, or a depthwise one
    it does not convert (not static f32), stays NCHW: transposes around it
    would cost more than the others gain. Part of `qdq-cpu-pipeline`, before
    `qdq-convolutions-as-matmuls`: an NHWC convolution's contraction has
    output channels as its columns and the filter as its right operand.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvolutionsAsMatmuls : Pass<"qdq-convolutions-as-matmuls"> {
  let summary = "Rewrite f32 convolutions as contractions";
  let description = [{
    Each ungrouped 2-D f32 convolution on static shapes becomes a
    contraction, which `qdq-vectorize-contractions` tiles for registers.
    `linalg.conv_2d_nhwc_hwcf` reads its image in place: a window becomes
    a direct convolution, a `linalg.generic` that reads the image at window
    indices (`oh sh + kh dh`, `ow sw + kw dw`) and the filter as it is; a
    1x1 kernel multiplies its input, seen as (N, H, W, C) at the stride, by
    the filter seen as C x F. `linalg.conv_2d_nchw_fchw` copies its windows
    first (im2col): a (N, C, Kh, Kw, Oh, Ow) tensor indexed without
    divisions, collapsed (a view) to a (C Kh Kw) x (Oh Ow) matrix, except
    for a 1x1 kernel at stride 1, whose columns are its input seen as
    (N, C, H W).
    Grouped, depthwise, integer and dynamic-shape convolutions are left
    alone. Part of `qdq-cpu-pipeline`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def PackContractionPanels : Pass<"qdq-pack-contraction-panels"> {
  let summary = "Store the right operand of f32 contractions as column "
                "panels";
  let description = [{
    A register tile reads one `columns`-wide row of the right operand per step
    of k; in place, those rows lie N floats apart, and for the usual N (768,
    3072) a panel of them does not stay in cache from one tile to the next.
    This pass stores the right operand of every f32 contraction on static
    shapes as panels, `[..., N / columns, K, columns]`, each contiguous, and
    rewrites the contraction to iterate the panel and the column within it (n =
    nb * columns + ni); the output is seen as `[..., N / columns, columns]`
    through a view. A constant operand (a weight, also seen through a reshape
    or a static slice of it) is packed once by the pass; any other is packed by
    a transpose in the program when the tile's m dimension has `min-rows` rows
    or more to repay the copy. Columns that do not fill a panel are split off
    and keep the operand as it is, unless it is a constant read as (n, k) (a
    Gemm's transposed weight): they get a panel of their own width, packed
    once, where their tiles would read it through a transpose at every run. A
    right operand's dimensions of other reductions (a direct convolution's
    filter window) go between the panel index and k, so that each panel is one
    block. With `wide-columns`, a contraction of at least 8 such panels'
    columns gets panels that wide instead (32 on an AVX-512 host: 8 x 32 tiles
    then do 16 FMAs per 2 loads of the panel and 8 broadcasts; a narrower N
    keeps `columns`, whose remainder is smaller), as does one of whole wide
    panels (a convolution's 64 or 128 output channels, an attention head's 32
    features). A contraction of a panel and a half (24 columns for 16) is one
    panel that wide, tiled by qdq-vectorize-contractions as a panel and a half
    panel in one loop, rather than a panel and a remainder split off. Named
    contractions are generalized. Part of `qdq-cpu-pipeline`, before
    `qdq-vectorize-contractions`, whose `columns` and `wide-columns` it must
    match.
  }];
  let options = [
    Option<"columns", "columns", "int64_t", /*default=*/"16",
           "Columns (n) of a panel: the register tile's width">,
    Option<"wideColumns", "wide-columns", "int64_t", /*default=*/"0",
           "Columns of the panels of contractions with 8 times as many "
           "columns or more, or a multiple of them (0: none)">,
    Option<"minRows", "min-rows", "int64_t", /*default=*/"16",
           "Fewest rows (m) for which a right operand that is not a "
           "constant is packed">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VectorizeContractions : Pass<"qdq-vectorize-contractions"> {
  let summary = "Tile f32 contractions into register tiles and vectorize them";
  let description = [{
    Every f32 contraction on static shapes (matmuls, dense layers, batched and
    Einsum products, direct convolutions, whose image is read at window indices
    such as 2 oh + kh) is cut into `rows` x `columns` output tiles along the m
    dimension with the most rows (the last among equals: a short one nearer the
    end, such as the batch of a [sequence, batch, features] activation, would
    give tiles of one row or a few) and the output's contiguous n dimension,
    walked n-outer, m-inner, each a loop over k of `vector.contract`s whose
    accumulator stays in registers. Remainder tiles are peeled, so every tile
    has a static shape; where `rows` does not divide m and a count down to
    three quarters of it does, the tiles take that many rows. A direct
    convolution's tiles loop over its window around k, and read their slice of
    the image in place, at the window's stride. A contraction whose output starts as a broadcast that
    nothing else reads (a bias, `linalg.broadcast` or `linalg.generic` yielding
    its input, possibly seen through the packing's expand_shape) starts each
    tile's accumulator from the broadcast's source, read once per tile and
    broadcast over its rows; one that starts as a `linalg.fill` of a new tensor
    (a MatMul's zeros), or a `linalg.generic` with no input yielding a value
    from above (a zero bias folded away), starts it from that value. Once every
    tile does, the broadcast or fill, a full pass over the output, is dropped.
    An element-wise op that is the only reader of the contraction's result and
    reads it as it is laid out (an activation, a residual sum; seen through the
    collapse of the packing's panels, which it is rewritten to read around) is
    its epilogue: it is split, distributed and tiled along the contraction's
    parallel loops, each of its tiles computing the contraction's tile it
    reads, whose reductions are tiled inside; the tile applies it to the
    accumulator before storing, and the contraction's output is never written.
    A right operand that is not contiguous along n is transposed first. With
    `parallel`, the tiles are distributed over threads first: an `scf.forall`
    over the parallel dimension (a batch dimension, n or m) that holds two
    tiles or more and that `threads` threads share most evenly, counting the
    remainder that is not a whole tile, which is split off and stays sequential
    (ties go to a dimension that indexes the right operand, so that each thread
    reads a part of it of its own: n before the samples multiplied by one
    weight, then to the outermost of batch, n, m); each iteration owns whole
    tiles. A 7x7 convolution's 49 columns are 3 tiles and a remainder, its 960
    rows 160 tiles: the rows are shared. Where a second dimension of whole
    tiles shares them more evenly as chunks of both, the `scf.forall` runs
    over both (a 7x7 map's 7 rows of pixels by its 5 panels of 32 channels:
    18 chunks against 17 rather than 4 rows against 3). Named contractions (`linalg.matmul`,
    `batch_matmul`, ...) are generalized. Other ops are left alone. Part of
    `qdq-cpu-pipeline`, which lowers each `vector.contract` to one broadcast
    FMA per row and k: the sum over k keeps its order, but a fused multiply-
    add rounds once where the loops round twice.
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"6",
           "Rows (m) of a register tile">,
    Option<"columns", "columns", "int64_t", /*default=*/"16",
           "Columns (n) of a register tile">,
    Option<"wideColumns", "wide-columns", "int64_t", /*default=*/"0",
           "Columns of the tiles of a contraction whose n has exactly that "
           "many (a wide panel of qdq-pack-contraction-panels; 0: none)">,
    Option<"depth", "depth", "int64_t", /*default=*/"4",
           "Products (k) per vector.contract">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Distribute the tiles over threads: an scf.forall over a "
           "parallel dimension">,
    Option<"threads", "threads", "int64_t", /*default=*/"8",
           "Threads the compiled code runs on, for choosing the dimension "
           "they share most evenly">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def CopyRepeatedResults : Pass<"qdq-copy-repeated-results"> {
  let summary = "Give each result of a function a tensor of its own";
  let description = [{
    A graph may list one tensor as several of its outputs (valid ONNX). Once
    bufferized, each result of a function becomes an out-parameter the
    caller owns, and one buffer cannot be two out-parameters: this pass
    copies a value that `func.return` returns more than once
    (`bufferization.alloc_tensor` with `copy`) for each repeat after the
    first. Part of `qdq-cpu-pipeline`, before bufferization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def ReleaseBuffersEarly : Pass<"qdq-release-buffers-early"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Ownership-based deallocation frees a buffer at the end of the block that
    allocates it, so in a network's function every intermediate buffer stays
    allocated until the function returns. This pass moves each
    `memref.dealloc` of a `memref.alloc` in the same block up to just after
    the last op of the block that uses the buffer or any view of it
    (subviews, reshapes, casts; a use nested in a loop counts as its
    ancestor in the block). A buffer passed to a call, returned, or handed to
    a loop's or branch's operands keeps its dealloc. Part of
    `qdq-cpu-pipeline`, after the deallocation pipeline: a run then needs
    the largest set of buffers live at once, not all of them.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CollapseLoopDims : Pass<"qdq-collapse-loop-dims"> {
  let summary = "Merge the loops of linalg ops on buffers that walk memory "
                "contiguously";
  let description = [{
    Every run of adjacent iteration dimensions of one iterator type of a
    linalg op on buffers (generic, copy, fill, transpose, broadcast) that
    each operand walks contiguously becomes one dimension: the run's dims
    appear in order in every indexing map, and each buffer's strides let
    `memref.collapse_shape` view them as one. An element-wise op over a
    `[16, 14, 14]` slice then lowers to one loop of 3136 iterations, which
    LLVM vectorizes as it is, instead of three, whose inner two it fully
    unrolls before an expensive and fruitless attempt at the outer one.
    Ops whose maps are not projected permutations (im2col's windows) keep
    the dims those maps combine; ops whose body reads its indices
    (`linalg.index`) keep all of them. Part of `qdq-cpu-pipeline`, before the
    linalg ops become loops.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ApproximateMath : Pass<"qdq-approximate-math"> {
  let summary = "f32 tanh, erf and exp as MLIR's polynomial approximations";
  let description = [{
    Every f32 `math.tanh`, `math.erf` and `math.exp` (scalar or vector)
    becomes upstream's polynomial approximation
    (`populateMathPolynomialApproximationPatterns`), arithmetic only. LLVM
    has no vector instruction for them, so a vector of them became one libm
    call per element: with the tanh GELU of GPT-2 `tanhf` was a fifth of a
    decoder's prefill, and in ViT-B/16 `erff` (its GELU) and `expf` (its
    softmaxes) took 9% of a run. Measured on 400,001 points against float64
    (`qdq-run` on one-node ONNX models):

    | function | range | here | libm before | ONNX Runtime |
    |---|---|---|---|---|
    | tanh | [-10, 10] | 4.3 ulp (2.6e-7 relative) | 4.3 ulp | 5.4 ulp |
    | erf | [-6, 6] | 4.0 ulp (2.4e-7 absolute) | 0.8 ulp | 1.0 ulp |
    | exp | [-87.3, 88.7] | 3.9 ulp (2.4e-7 relative) | 0.5 ulp | 0.8 ulp |

    exp is 0 for arguments below -87.684, where the exact result is a
    subnormal below 8.4e-39 (libm returns subnormals down to -103.97), and
    erf(-0) is +0. Only f32 scalars and vectors are rewritten: f16, bf16 and
    f64 math is left to its
    libm call, which computes in f32 or f64 and rounds once. Part of
    `qdq-cpu-pipeline`'s lowering, before the math conversions.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def ExpandBF16Conversions : Pass<"qdq-expand-bf16-conversions"> {
  let summary = "Convert between f32 and bf16 with integer bit operations";
  let description = [{
    Every `arith.truncf` from f32 to bf16 and `arith.extf` from bf16 to f32
    (scalars and vectors) becomes shifts, adds and selects on the bits:
    round to nearest even, subnormals kept, NaN as 0x7fc0. Left to LLVM, the
    truncation is `vcvtneps2bf16` on a host with AVX512-BF16, which flushes
    subnormal inputs and results to zero whatever the MXCSR says, and
    `__truncsfbf2` elsewhere, which does not: the same model would give
    other bits on another machine, and other bits than the GPU kernels.
    Part of `qdq-cpu-pipeline`'s lowering, for the functions of the module
    (GPU kernels keep `cvt.rn.bf16.f32`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def VectorizeElementwise : Pass<"qdq-vectorize-elementwise"> {
  let summary = "Write element-wise linalg ops on buffers as vector loops";
  let description = [{
    Every linalg op on buffers with only parallel loops (a
    `linalg.generic`, or a named op such as the `linalg.transpose` that
    packs a contraction's panels, `linalg.broadcast` or `linalg.copy`,
    generalized first) whose innermost loop has `width` iterations or more
    (or a size known only at run time),
    whose body holds only element-wise ops, and whose buffer operands each
    either walk that loop contiguously or do not walk it (a broadcast
    input), becomes `scf.for` loops over the outer dimensions around a loop
    of `width`-wide `vector.load`s, the body on vectors (scalars from
    outside broadcast), and `vector.store`s, followed by a scalar loop over
    the elements past the last whole vector. Outputs must be indexed by the
    loops (projected permutations, the innermost loop on the last
    dimension); an input may be read through any affine map in which the
    innermost loop enters only the last index, with coefficient 1, so that
    an im2col's window `ow + kw` at stride 1 is read in vectors too.
    Buffers of i1 (packed into bits by a vector load) and bodies with other
    ops (`linalg.index`) are left alone. A dynamic size is read from a
    buffer indexed by that loop (`memref.dim`): `qdq-distribute-loops`
    gives each thread a chunk of rows, and where the thread count does not
    divide them (ViT-B/16's 197 tokens in chunks of 13) the chunk's size is
    dynamic; those ops stayed scalar loops, a GELU with its libm `erff`
    call 12% of a ViT-B/16 run.

    A reduction (a `linalg.generic` on static buffers, outputs indexed by
    its parallel loops all the same way) where each output takes in a term
    by `arith.minimumf`, `arith.maximumf` or `arith.addf` (ONNX ReduceMin
    and ReduceMax and calibration's ranges, whose term is their one input,
    both in one op after `qdq-fuse-sibling-reductions`; a softmax's or a
    normalization's sums, whose term may be any element-wise function of
    the inputs, such as a variance's squared difference from the mean),
    with a reduction loop of `width` iterations or more along which every
    input is contiguous or constant (one at least contiguous), becomes
    loops: the parallel ones outermost, then the other reductions, then
    that loop in vectors and a scalar remainder. Each output has a vector
    and a scalar accumulator, fed by one read of the inputs a step, and
    combined once per output element. Minimum and maximum are exact and
    associative (NaN wins, -0 is below +0): they start from the output's
    value and the result has the same bits in any order. A sum's
    accumulators start from zero, and its lanes, its remainder and then
    the output's value are added at the end: `width` running sums round
    differently from one (as ONNX Runtime's vectorized sums do), where one
    running sum waited on one add per element. `minnumf`, whose choice
    between two zeros depends on their order, and a minimum or maximum of
    a computed term are left alone.
    Part of `qdq-cpu-pipeline`, after
    `qdq-collapse-loop-dims`: the JIT optimizes LLVM IR without a target
    machine, so LLVM's loop vectorizer would leave these loops scalar.
  }];
  let options = [
    Option<"width", "width", "int64_t", /*default=*/"8",
           "Elements per vector (8 f32 fill an AVX register)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def VectorizeChannelWindows : Pass<"qdq-vectorize-channel-windows"> {
  let summary = "Write NHWC depthwise convolutions and poolings on buffers "
                "as register tiles of channel vectors";
  let description = [{
    In NHWC, a depthwise convolution's or a pooling's output vector of
    channels is a sum (or maximum) of its window's input vectors of
    channels, times the filter's vectors of channels. Every
    `linalg.depthwise_conv_2d_nhwc_hwc`, `pooling_nhwc_max` and
    `pooling_nhwc_sum` on static f32 buffers whose channels are contiguous,
    a multiple of `width`, and whose filter rows have at most 16 taps,
    becomes `scf.for` loops over samples, output rows and groups of
    channel vectors around register tiles of `pixels` output pixels of a
    row by `vectors` vectors of `width` channels (a shorter tile for the
    pixels past the last whole one, fewer vectors for the channels past the
    last whole group). A tile reads its accumulators once, loops over the
    filter's rows carrying them, loads that row's filter vectors once and
    each input vector of the window row once, adding it (by `vector.fma`,
    `arith.maximumf` or `arith.addf`) to every pixel whose window holds it,
    and writes the accumulators back once. Each output element takes its
    terms in the named op's order, filter row by filter row, each row's
    taps in order; a depthwise convolution's multiply-add rounds once.

    The ops next to the window fold into its tiles where nothing touching
    memory stands between. One that fills the whole output just before
    (`linalg.fill` of an f32, or an element-wise generic over the output's
    dimensions that does not read it, such as a bias broadcast along the
    channels) becomes the tiles' starting accumulators. An element-wise
    generic just after that reads the output once as it lies and writes
    another buffer of its shape (an activation, a residual sum, an
    average's division) is applied to the accumulators, which the tiles
    then store into that buffer, where the output is a `memref.alloc` used
    by nothing else but its deallocation, and where the buffer the
    epilogue writes cannot alias what the window, the fill and the epilogue
    itself read (but an input the epilogue reads in place, element for
    element): an allocation against another, a function argument or a
    global, or two arguments of a private function that none of its calls
    in the op the pass runs on passes aliasing buffers. The
    output's allocation then goes. qdq-cpu-pipeline runs the pass on the
    module, after qdq-outline-parallel-loops, so that those calls are
    seen.

    Part of `qdq-cpu-pipeline`, before `qdq-collapse-loop-dims`.
  }];
  let options = [
    Option<"width", "width", "int64_t", /*default=*/"8",
           "Channels per vector (8 f32 fill an AVX register, 16 an "
           "AVX-512 one)">,
    Option<"pixels", "pixels", "int64_t", /*default=*/"4",
           "Output pixels of a row per register tile">,
    Option<"vectors", "vectors", "int64_t", /*default=*/"2",
           "Channel vectors per pixel of a register tile">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def VectorizeConvolutionRows : Pass<"qdq-vectorize-convolution-rows"> {
  let summary = "Write depthwise and grouped convolutions on buffers as "
                "register tiles of output rows";
  let description = [{
    A convolution that stays one (depthwise and grouped ones: ungrouped
    convolutions become contractions first) walks its output's contiguous
    dimension, an output column in NCHW, with a filter that does not depend
    on it. Every `linalg` op on static f32 buffers whose body is
    `out + in * filter`, whose convolution dimensions
    (`linalg::inferConvolutionDims`) put an output image loop last in the
    output and last in the input (stride 1 or 2) and in no other index,
    whose output is indexed by parallel loops only, whose filter does not
    depend on the other output image loop, with unit-stride last
    dimensions and at most 64 filter taps, becomes
    `scf.for` loops over the other parallel loops around register tiles of
    `rows` output rows by `vectors` vectors of `width` columns.

    A tile reads its accumulators once, then for each input channel of its
    group (a loop carrying them) and each filter tap (unrolled) broadcasts
    the filter value and adds its product with the input vector to every
    accumulator by `vector.fma`; at stride 2 an input vector is the even
    lanes of two consecutive reads. Rows that read the same input vector
    share it. Tiles are written back once. Columns past the last whole
    tile are single-vector tiles, with masked (out-of-bounds) transfers
    where the vector passes the row's end or its reads would pass the input
    row's end; rows past the last whole tile are one shorter tile. Each
    output element sums its terms channel by channel, each channel's taps
    in order (the loop order `qdq-reduction-loop-order` gives named
    convolutions), fused into FMAs.

    Part of `qdq-cpu-pipeline`, before `qdq-collapse-loop-dims`.
  }];
  let options = [
    Option<"width", "width", "int64_t", /*default=*/"8",
           "Columns per vector (8 f32 fill an AVX register)">,
    Option<"rows", "rows", "int64_t", /*default=*/"4",
           "Output rows per register tile">,
    Option<"vectors", "vectors", "int64_t", /*default=*/"2",
           "Vectors of columns per row of a register tile">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def FillBordersInParallelLoops : Pass<"qdq-fill-borders-in-parallel-loops"> {
  let summary = "Fill a padded buffer's border in the parallel loop that "
                "writes its interior";
  let description = [{
    A convolution's padded input bufferizes to four `linalg.fill`s of its
    border strips, then the parallel loop that writes the interior (the
    layer before, writing straight into it). The fills ran on one thread
    while the others waited: about 1% of MobileNet-v2's run at batch 1. Each
    `linalg.fill` just before an `scf.parallel` (nothing but ops without
    memory effects between) whose buffer shares no element with any buffer
    the loop uses moves into the loop, where one iteration runs it (`scf.if`
    on the induction variables); the fills before one loop go to iterations
    spread evenly over its iteration space, so that a static schedule
    shares them among the threads. Buffers share no element when they are
    allocated apart, or are boxes of one buffer apart along some dimension
    (subviews of static offsets and sizes, unit strides; reshapes cover
    their source's elements); the loop's buffers are the values it uses from
    outside and the globals it names, and nothing moves into a loop that
    calls a function. Part of `qdq-cpu-pipeline`, before
    `qdq-outline-parallel-loops`.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def OutlineParallelLoops : Pass<"qdq-outline-parallel-loops",
                                 "::mlir::ModuleOp"> {
  let summary = "Move each top-level parallel loop into a function of its "
                "own";
  let description = [{
    Every `scf.parallel` at the top level of a function body moves into a
    new private, not-inlined function that takes the values the loop reads
    from outside (constants are cloned in instead) and is called in the
    loop's place. A network's function holds one parallel loop per layer;
    the OpenMP translation outlines each from the LLVM function that holds
    it, scanning all of that function each time, so with every loop in one
    function translation time grew with the square of the network's size.
    Part of `qdq-cpu-pipeline`, before the loops become OpenMP regions.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def MergeIdenticalFunctions : Pass<"qdq-merge-identical-functions",
                                    "::mlir::ModuleOp"> {
  let summary = "Keep one of each set of private functions with the same "
                "body";
  let description = [{
    Private function definitions whose types, attributes (`no_inline`
    included) and bodies are equal (op for op with matching operands, a
    commutative op's in either order; locations and names aside) are
    merged: the first one is kept, calls and other symbol references to the
    others in the module's own symbol scope are redirected to it (so the
    merged functions share one address), and the others are erased. A network's
    repeated blocks become, after `qdq-outline-parallel-loops`, functions
    that differ only in name (ResNet-50: 260 outlined functions, 89
    distinct; a transformer's layers all alike), so the rest of the
    lowering and LLVM compile each body once. Public functions and
    declarations are left alone. A single round: callers that become alike
    once their callees are merged are not merged in turn.
    Part of the CPU lowering (`qdq-cpu-pipeline`, and the host code of
    `qdq-gpu-pipeline`), right after outlining.
  }];
}

def DistributeLoops : Pass<"qdq-distribute-loops"> {
  let summary = "Share the outermost parallel loop of linalg ops among "
                "threads";
  let description = [{
    Every linalg op on static tensors directly in a function body (not a tile
    already) whose iteration space has at least `min-iterations` points gets
    its outermost parallel loop of two or more iterations cut into at most
    `chunks` chunks by an `scf.forall`. `qdq-cpu-pipeline` runs it after the
    contractions are tiled, so that element-wise chains, normalizations,
    softmaxes, im2col and depthwise convolutions use every core too. A tensor
    inserted into a larger one that bufferization would give a buffer of its
    own and copy there with a `memref.copy` on one thread (a function argument,
    such as the network's input into its first convolution's padded buffer; a
    slice of another tensor; a linalg op's result computed into a
    `tensor.empty`, such as the two halves of rotary embeddings' `rotate_half`)
    becomes, with as many elements, a `linalg.copy` into the destination's
    slice first, shared out the same way. An element-wise op that reads,
    element by element, the result of a linalg op that nothing else reads (a
    depthwise convolution's or a pooling's activation) computes in each chunk
    the slice of that producer it reads, and of the producer's destination
    where a linalg op that nothing else reads makes it (the convolution's bias
    broadcast): one parallel region instead of three, each thread's rows still
    in its cache from one op to the next. A producer that only such a loop's
    ops read, each reading its rows (the chunked loop and those before it lead
    its result and every read of it, with the same bounds), joins as well,
    computed once a chunk however many of them read it: a softmax's maximum,
    exponentials, sum and quotient, a normalization's sums, and the fills the
    reductions start from. A reduction that no such loop takes in (a
    pooling) is cut with the element-wise op that makes the destination it
    starts from (a fill, a bias broadcast), where nothing else reads that:
    each chunk fills its own rows, and qdq-vectorize-channel-windows
    then starts its tiles from the fill's value (ResNet-50's max pooling:
    one parallel region instead of two, and no pass over its output to
    fill it). Only a consumer that shares its producers out as
    finely as they would be on their own (none read through div or mod) fuses
    them, and only producers whose one result a chunk can slice (written
    through a projected permutation); any other is shared out on its own.
    Results are unchanged: no element's arithmetic moves between iterations.
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t",
           /*default=*/"16384",
           "Smallest iteration space worth a parallel region">,
    Option<"chunks", "chunks", "int64_t", /*default=*/"16",
           "Chunks the outermost parallel loop is cut into (at most)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
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

#endif // QUANTQDQ_CODEGEN_PASSES_TD
