// A padded producer that calibration also reads (its range, here a
// reduction distributed over threads as the CPU pipeline does) is written
// straight into the padded buffer and read there: bufferized, the function
// allocates the padded buffer and the reduction's output, and copies
// nothing (before, the producer's result was copied into the padded
// buffer, or out of it and back when the insert came first).
// RUN: qdq-opt %s --qdq-elementwise-fusion --qdq-distribute-loops \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --cse --canonicalize | FileCheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#batch = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func.func @padded_and_observed
// CHECK-NOT: memref.copy
// CHECK: memref.alloc() {{.*}} : memref<4x64x58x58xf32>
// CHECK-NOT: memref.copy
// CHECK: memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @padded_and_observed(%x: tensor<4x64x56x56xf32>)
    -> (tensor<4x64x58x58xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x56x56xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%x : tensor<4x64x56x56xf32>) outs(%e : tensor<4x64x56x56xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x64x56x56xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %range = linalg.generic {indexing_maps = [#id4, #batch],
                           iterator_types = ["parallel", "reduction",
                                             "reduction", "reduction"]}
      ins(%r : tensor<4x64x56x56xf32>) outs(%f4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<4x64x56x56xf32> to tensor<4x64x58x58xf32>
  return %p, %range : tensor<4x64x58x58xf32>, tensor<4xf32>
}
