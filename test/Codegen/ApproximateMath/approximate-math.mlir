// f32 tanh, erf and exp, scalar or vector, become arithmetic (upstream's
// polynomial approximations), so that a vector of them is not one libm call
// per element; other functions, and other types, are left alone.
// RUN: qdq-opt %s --qdq-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @vector_tanh
// CHECK-NOT: math.tanh
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK: return
func.func @vector_tanh(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.tanh %x : vector<16xf32>
  return %y : vector<16xf32>
}

// CHECK-LABEL: func.func @scalar_tanh
// CHECK-NOT: math.tanh
// CHECK: arith.divf {{.*}} : f32
func.func @scalar_tanh(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// A GELU's erf: a rational function on the vector.
// CHECK-LABEL: func.func @vector_erf
// CHECK-NOT: math.erf
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: arith.divf {{.*}} : vector<8xf32>
// CHECK: return
func.func @vector_erf(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.erf %x : vector<8xf32>
  return %y : vector<8xf32>
}

// A softmax's exp: a polynomial times a power of two built from the bits.
// CHECK-LABEL: func.func @vector_exp
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: arith.shli {{.*}} : vector<8xi32>
// CHECK: return
func.func @vector_exp(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp %x : vector<8xf32>
  return %y : vector<8xf32>
}

// Tensors (not yet bufferized and vectorized) are left alone too: the
// approximations build scalar and vector arithmetic only.
// CHECK-LABEL: func.func @kept
// CHECK: math.tanh {{.*}} : f64
// CHECK: math.erf {{.*}} : f16
// CHECK: math.exp {{.*}} : bf16
// CHECK: math.log {{.*}} : vector<8xf32>
// CHECK: math.exp {{.*}} : tensor<4xf32>
func.func @kept(%a: f64, %b: f16, %c: bf16, %d: vector<8xf32>, %e: tensor<4xf32>)
    -> (f64, f16, bf16, vector<8xf32>, tensor<4xf32>) {
  %0 = math.tanh %a : f64
  %1 = math.erf %b : f16
  %2 = math.exp %c : bf16
  %3 = math.log %d : vector<8xf32>
  %4 = math.exp %e : tensor<4xf32>
  return %0, %1, %2, %3, %4 : f64, f16, bf16, vector<8xf32>, tensor<4xf32>
}
