// Where a stage of a larger group starts, the bytes a cut moves: tensors
// passed on, written to the batch's and read back; never the function's
// arguments, which are in memory either way. Here a slice of an argument
// (32 KiB a sample) is live across the cut before the product, whose
// 64 KiB of weights two samples at a time read half as often: the cut
// pays. (Counting the argument as written and read back, it did not.)
// RUN: qdq-opt %s --qdq-split-batch="cache-bytes=9000 explain=true" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: the batch of @main runs in groups of 1, then 2 (4 samples, 8192 bytes a sample in its largest op)
#x2 = affine_map<(n, k) -> (n, k)>
#a3 = affine_map<(n, j, k) -> (n, k)>
#b3 = affine_map<(n, j, k) -> (k, j)>
#c3 = affine_map<(n, j, k) -> (n, j)>
func.func @main(%x: tensor<4x1024xf32>, %z: tensor<4x8192xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<1024x16xf32>
  %e = tensor.empty() : tensor<4x1024xf32>
  %a = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x1024xf32>) outs(%e : tensor<4x1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x1024xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w1 : tensor<4x1024xf32>, tensor<1024x16xf32>) outs(%z1 : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.mulf %p, %q : f32
    %s = arith.addf %o, %t : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %zs = tensor.extract_slice %z[0, 0] [4, 16] [1, 1] : tensor<4x8192xf32> to tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#x2, #x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%h, %zs : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
