// f32 tanh, scalar or vector, becomes arithmetic (upstream's polynomial
// approximation), so that a vector tanh is not one libm call per element;
// tanh of other types is left alone.
// RUN: qdq-opt %s --qdq-approximate-tanh | FileCheck %s

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

// CHECK-LABEL: func.func @f64_tanh
// CHECK: math.tanh {{.*}} : f64
func.func @f64_tanh(%x: f64) -> f64 {
  %y = math.tanh %x : f64
  return %y : f64
}
