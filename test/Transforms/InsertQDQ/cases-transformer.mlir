// transformer = attention-matmul + small-gemm, and the residual-gemm
// building block beside it, on one post-norm encoder block as torch
// exports it (heads split and merged by generic Reshape/Transpose to
// computed shapes, a Shape node reading the attention output as exporters
// write it, a mask added to the scores, LayerNormalization and GELU), plus
// a tiny classifier and an attention product longer than TensorRT's INT8
// fused attention takes.
// RUN: qdq-opt %s --insert-qdq=transformer,residual-gemm --qdq-report=- \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
// RUN: qdq-opt %s --insert-qdq=transformer,residual-gemm \
// RUN:   | FileCheck %s --check-prefix=IR
// The case alone leaves the residual Adds in float.
// RUN: qdq-opt %s --insert-qdq=transformer --qdq-report=- -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// Each building block alone says the same of its layers.
// RUN: qdq-opt %s --insert-qdq=attention-matmul --qdq-report=- -o /dev/null \
// RUN:   2>&1 | FileCheck %s --check-prefix=ATTN
// The sequence bound is an option: 2048 takes the long product too, 8
// neither (their sequence is 16); it must be positive.
// RUN: qdq-opt %s --insert-qdq="cases=transformer attention-max-sequence=2048" \
// RUN:   --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: qdq-opt %s --insert-qdq="cases=attention-matmul attention-max-sequence=8" \
// RUN:   --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: qdq-opt %s --qdq-quantize="cases=attention-matmul attention-max-sequence=8 report=-" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not qdq-opt %s --insert-qdq="cases=transformer attention-max-sequence=0" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

func.func @block(%x: tensor<?x16x32xf32>, %mask: tensor<?x1x16x16xf32>,
                 %heads: tensor<4xi64>, %merged: tensor<3xi64>,
                 %long: tensor<1x1024x32xf32>) -> (tensor<?x4xf32>, tensor<1x1024x1024xf32>, tensor<?x4x16x16xf32>, tensor<?x32xf32>) {
  %wq = arith.constant dense<0.1> : tensor<32x32xf32>
  %wk = arith.constant dense<0.1> : tensor<32x32xf32>
  %wv = arith.constant dense<0.1> : tensor<32x32xf32>
  %wo = arith.constant dense<0.1> : tensor<32x32xf32>
  %w1 = arith.constant dense<0.1> : tensor<32x64xf32>
  %w2 = arith.constant dense<0.1> : tensor<64x32xf32>
  %wc = arith.constant dense<0.1> : tensor<32x4xf32>
  %g = arith.constant dense<1.0> : tensor<32xf32>
  %b = arith.constant dense<0.0> : tensor<32xf32>
  %q = quant_qdq.dense "q" %x, %wq : (tensor<?x16x32xf32>, tensor<32x32xf32>) -> tensor<?x16x32xf32>
  %k = quant_qdq.dense "k" %x, %wk : (tensor<?x16x32xf32>, tensor<32x32xf32>) -> tensor<?x16x32xf32>
  %v = quant_qdq.dense "v" %x, %wv : (tensor<?x16x32xf32>, tensor<32x32xf32>) -> tensor<?x16x32xf32>
  %qh = quant_qdq.generic "Reshape" "q_heads" %q, %heads : (tensor<?x16x32xf32>, tensor<4xi64>) -> tensor<?x16x4x8xf32>
  %qt = quant_qdq.transpose "q_t" %qh {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x16x4x8xf32>) -> tensor<?x4x16x8xf32>
  %kh = quant_qdq.generic "Reshape" "k_heads" %k, %heads : (tensor<?x16x32xf32>, tensor<4xi64>) -> tensor<?x16x4x8xf32>
  %kt = quant_qdq.transpose "k_t" %kh {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x16x4x8xf32>) -> tensor<?x4x8x16xf32>
  %vh = quant_qdq.generic "Reshape" "v_heads" %v, %heads : (tensor<?x16x32xf32>, tensor<4xi64>) -> tensor<?x16x4x8xf32>
  %vt = quant_qdq.transpose "v_t" %vh {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x16x4x8xf32>) -> tensor<?x4x16x8xf32>
  %s = quant_qdq.generic "MatMul" "scores" %qt, %kt : (tensor<?x4x16x8xf32>, tensor<?x4x8x16xf32>) -> tensor<?x4x16x16xf32>
  %sm = quant_qdq.add "masked" %s, %mask : (tensor<?x4x16x16xf32>, tensor<?x1x16x16xf32>) -> tensor<?x4x16x16xf32>
  %p = quant_qdq.softmax "probs" %sm : (tensor<?x4x16x16xf32>) -> tensor<?x4x16x16xf32>
  %c = quant_qdq.generic "MatMul" "context" %p, %vt : (tensor<?x4x16x16xf32>, tensor<?x4x16x8xf32>) -> tensor<?x4x16x8xf32>
  %ct = quant_qdq.transpose "c_t" %c {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x4x16x8xf32>) -> tensor<?x16x4x8xf32>
  %cm = quant_qdq.generic "Reshape" "c_merge" %ct, %merged : (tensor<?x16x4x8xf32>, tensor<3xi64>) -> tensor<?x16x32xf32>
  %o = quant_qdq.dense "out_proj" %cm, %wo : (tensor<?x16x32xf32>, tensor<32x32xf32>) -> tensor<?x16x32xf32>
  %o_shape = quant_qdq.generic "Shape" "o_shape" %o : (tensor<?x16x32xf32>) -> tensor<3xi64>
  %r1 = quant_qdq.add "residual1" %x, %o : (tensor<?x16x32xf32>, tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
  %n1 = quant_qdq.layer_norm "norm1" %r1 scale %g bias %b : (tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  %h = quant_qdq.dense "fc1" %n1, %w1 : (tensor<?x16x32xf32>, tensor<32x64xf32>) -> tensor<?x16x64xf32>
  %a = quant_qdq.activation gelu "gelu" %h : tensor<?x16x64xf32>
  %f = quant_qdq.dense "fc2" %a, %w2 : (tensor<?x16x64xf32>, tensor<64x32xf32>) -> tensor<?x16x32xf32>
  %r2 = quant_qdq.add "residual2" %f, %n1 : (tensor<?x16x32xf32>, tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
  %n2 = quant_qdq.layer_norm "norm2" %r2 scale %g bias %b : (tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  %firstc = quant_qdq.generic "Slice" "cls" %n2 : (tensor<?x16x32xf32>) -> tensor<?x32xf32>
  %logits = quant_qdq.dense "classifier" %firstc, %wc : (tensor<?x32xf32>, tensor<32x4xf32>) -> tensor<?x4xf32>
  %pooled = quant_qdq.dense "pooler" %firstc, %wo : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  %head = quant_qdq.dense "head" %pooled, %wo : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  %lt = quant_qdq.transpose "long_t" %long {perm = array<i64: 0, 2, 1>} : (tensor<1x1024x32xf32>) -> tensor<1x32x1024xf32>
  %ls = quant_qdq.generic "MatMul" "long_scores" %long, %lt : (tensor<1x1024x32xf32>, tensor<1x32x1024xf32>) -> tensor<1x1024x1024xf32>
  %cs = quant_qdq.generic "MatMul" "custom_scores" %qt, %kt {domain = "com.example"} : (tensor<?x4x16x8xf32>, tensor<?x4x8x16xf32>) -> tensor<?x4x16x16xf32>
  return %logits, %ls, %cs, %head : tensor<?x4xf32>, tensor<1x1024x1024xf32>, tensor<?x4x16x16xf32>, tensor<?x32xf32>
}

// The projections and the MLP are quantized by the default table (input
// and weight); both attention products on both inputs; the residual Adds
// on the residual stream, the GEMM-fed input staying in float whichever
// position it has; the mask Add, the norms, GELU and Softmax not at all;
// the 4-wide classifier and the 1024-long product stay in float.
// CHECK: q {{ *}}Dense {{ *}}[0] {{ *}}yes {{ *}}default table
// CHECK: scores {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// CHECK: masked {{ *}}Add {{ *}}[] {{ *}}no {{ *}}default table
// CHECK: probs {{ *}}Softmax {{ *}}[] {{ *}}no {{ *}}default table
// CHECK: context {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// CHECK: out_proj {{ *}}Dense {{ *}}[0] {{ *}}yes {{ *}}default table
// CHECK: residual1 {{ *}}Add {{ *}}[0] {{ *}}no {{ *}}case residual-gemm
// CHECK: norm1 {{ *}}LayerNormalization {{ *}}[] {{ *}}no {{ *}}default table
// CHECK: gelu {{ *}}Activation {{ *}}[] {{ *}}no {{ *}}default table
// CHECK: residual2 {{ *}}Add {{ *}}[1] {{ *}}no {{ *}}case residual-gemm
// CHECK: classifier {{ *}}Dense {{ *}}[] {{ *}}no {{ *}}case small-gemm
// A [?, 32] dense inside the network is no GEMV (its leading dimension may
// be a flattened batch x sequence); the one whose result the model
// returns is its output layer, and its leading dimension the batch: a GEMV
// at batch 1.
// CHECK: pooler {{ *}}Dense {{ *}}[0] {{ *}}yes {{ *}}default table
// CHECK: head {{ *}}Dense {{ *}}[] {{ *}}no {{ *}}case small-gemm
// CHECK: long_scores {{ *}}MatMul {{ *}}[] {{ *}}no {{ *}}default table
// A MatMul of another domain than ONNX's is not ONNX's MatMul.
// CHECK: custom_scores {{ *}}MatMul {{ *}}[] {{ *}}no {{ *}}default table

// The residual stream reaching residual1 is the block input, whose pair
// the q/k/v projections share.
// IR: func.func @block(%[[X:[^:]*]]:
// IR: %[[QX:.*]] = quant_qdq.quantize %[[X]]
// IR-NEXT: %[[DQX:.*]] = quant_qdq.dequantize %[[QX]]
// IR: quant_qdq.dense "q" %[[DQX]]
// IR: quant_qdq.add "residual1" %[[DQX]], %{{.*}} :

// ATTN: scores {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// ATTN: residual1 {{ *}}Add {{ *}}[] {{ *}}no {{ *}}default table

// LONG: scores {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// LONG: long_scores {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// SHORT: scores {{ *}}MatMul {{ *}}[] {{ *}}no {{ *}}default table
// SHORT: long_scores {{ *}}MatMul {{ *}}[] {{ *}}no {{ *}}default table
// ZERO: error: attention-max-sequence must be positive, got 0

// DEFAULT: scores {{ *}}MatMul {{ *}}[0,1] {{ *}}no {{ *}}case attention-matmul
// DEFAULT: residual1 {{ *}}Add {{ *}}[] {{ *}}no {{ *}}default table
// DEFAULT: residual2 {{ *}}Add {{ *}}[] {{ *}}no {{ *}}default table
// DEFAULT: classifier {{ *}}Dense {{ *}}[] {{ *}}no {{ *}}case small-gemm
