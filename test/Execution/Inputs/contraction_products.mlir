// Products whose results feed other products, biases and epilogues: the
// shapes qdq-vectorize-contractions' bias reads and epilogues must tell
// apart (test/Execution/contraction-epilogues.test).
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#bc = affine_map<(i, j) -> (j)>

// relu(a b + b1 + c d + b2): the sum is one product's epilogue and reads
// the other's result, whose bias must not be taken for its value.
func.func @two_biases(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %b1: tensor<32xf32>,
                      %c: tensor<16x8xf32>, %d: tensor<8x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %i1 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b1 : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  %r1 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%i1 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %i2 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b2 : tensor<32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  %r2 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c, %d : tensor<16x8xf32>, tensor<8x32xf32>) outs(%i2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %r2 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e3 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %z: f32, %o: f32):
    %s = arith.addf %x, %z : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// (a b + b1) d: the second product reads the first's sums, not its bias.
func.func @chained(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>, %b1: tensor<4xf32>,
                   %d: tensor<4x32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x4xf32>
  %i1 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b1 : tensor<4xf32>) outs(%e : tensor<16x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x4xf32>
  %r1 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x4xf32>) outs(%i1 : tensor<16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x32xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r2 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%r1, %d : tensor<16x4xf32>, tensor<4x32xf32>) outs(%i2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r2 : tensor<16x32xf32>
}

// c d + relu(v w): the bias is a matrix-vector product's epilogue, tiled
// (and replaced) before the product it starts.
func.func @bias_from_product(%v: tensor<8xf32>, %w: tensor<8x32xf32>,
                             %c: tensor<16x8xf32>, %d: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %vw = linalg.generic {indexing_maps = [affine_map<(n, k) -> (k)>, affine_map<(n, k) -> (k, n)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"]}
      ins(%v, %w : tensor<8xf32>, tensor<8x32xf32>) outs(%i0 : tensor<32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>], iterator_types = ["parallel"]}
      ins(%vw : tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %i = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%relu : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c, %d : tensor<16x8xf32>, tensor<8x32xf32>) outs(%i : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// A product whose result nothing reads goes; the pass must not hold on
// to it.
func.func @dead_product(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %b1: tensor<32xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %i = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b1 : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%i : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %a : tensor<16x8xf32>
}
