// --export-gpu-kernels describes round_to_format kernels too: the format
// instead of a quantizer, and ternary's threshold argument (0.7 * mean|x|,
// which the caller computes before each launch). The GPU bench accepts
// them, with TensorQuant's parameters read from the name.
// RUN: qdq-translate --export-gpu-kernels --gpu-format=isa %s -o %t.json
// RUN: FileCheck %s < %t.json
// RUN: %python %qdq_src_root/bench/gpu/run_bench.py --dry-run %t.json 2>&1 | FileCheck %s --check-prefix=BENCH

// CHECK: "function": "ternary",
// CHECK-NEXT: "op": "round_to_format",
// CHECK-NEXT: "module": "qdq_kernels",
// CHECK-NEXT: "kernel": "round_to_format_f32_f32_n1024_ternary_0p5",
// CHECK: "role": "input",
// CHECK: "role": "output",
// CHECK: "role": "threshold",
// CHECK-NEXT: "dtype": "float32",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 1
// CHECK: "format": {
// CHECK-NEXT: "kind": "ternary",
// CHECK-NEXT: "name": "ternary,0.5"
// CHECK: "function": "fixed",
// CHECK: "kernel": "round_to_format_bf16_bf16_n1024_stochastic_8_4_3",
// CHECK: "role": "input",
// CHECK-NEXT: "dtype": "bfloat16",
// CHECK: "role": "output",
// CHECK-NOT: "role"
// CHECK: "format": {
// CHECK-NEXT: "kind": "fixed_point",
// CHECK-NEXT: "name": "stochastic,8,4,3"

// BENCH: kernel ternary: round_to_format float32 4x256 TensorQuant ternary (ternary,0.5), 4KiB
// BENCH: ours: qdq_kernels.round_to_format_f32_f32_n1024_ternary_0p5, args (input, output, threshold)
// BENCH: dry run: the manifest is valid

func.func @ternary(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %y = quant_qdq.round_to_format %x <ternary, marginal = 0.5> : tensor<4x256xf32>
  return %y : tensor<4x256xf32>
}

func.func @fixed(%x: tensor<1024xbf16>) -> tensor<1024xbf16> {
  %y = quant_qdq.round_to_format %x <fixed_point, bits = 8, fraction_bits = 4, rounding = stochastic, seed = 3> : tensor<1024xbf16>
  return %y : tensor<1024xbf16>
}
