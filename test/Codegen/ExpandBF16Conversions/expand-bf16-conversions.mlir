// RUN: qdq-opt %s --pass-pipeline="builtin.module(func.func(qdq-expand-bf16-conversions))" | FileCheck %s

// f32 <-> bf16 conversions, scalar and vector, become bit operations; other
// arith ops (maximumf, an f16 truncation) stay as they are.

// CHECK-LABEL: func.func @truncate
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @truncate(%x: vector<8xf32>) -> vector<8xbf16> {
  %y = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %y : vector<8xbf16>
}

// CHECK-LABEL: func.func @extend
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.shli
// CHECK: return
func.func @extend(%x: bf16) -> f32 {
  %y = arith.extf %x : bf16 to f32
  return %y : f32
}

// CHECK-LABEL: func.func @others
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @others(%a: f32, %b: f32) -> f16 {
  %m = arith.maximumf %a, %b : f32
  %h = arith.truncf %m : f32 to f16
  return %h : f16
}
