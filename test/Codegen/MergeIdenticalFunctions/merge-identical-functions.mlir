// RUN: qdq-opt %s --split-input-file --qdq-merge-identical-functions \
// RUN:   | FileCheck %s

// Two layers of the same shape, outlined apart: the second body is dropped
// and both calls go to the first. Locations do not count.
// CHECK-LABEL: func.func private @layer(
// CHECK-NOT: func.func private @layer_0(
// CHECK-LABEL: func.func @net(
// CHECK: call @layer(%arg0, %[[T:.*]]) :
// CHECK: call @layer(%[[T]], %arg1) :
func.func private @layer(%x: memref<8xf32>, %y: memref<8xf32>)
    attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<8xf32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %y[%c0] : memref<8xf32>
  return
}
func.func private @layer_0(%a: memref<8xf32>, %b: memref<8xf32>)
    attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index loc("elsewhere")
  %v = memref.load %a[%c0] : memref<8xf32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %b[%c0] : memref<8xf32>
  return
}
func.func @net(%x: memref<8xf32>, %y: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  call @layer(%x, %t) : (memref<8xf32>, memref<8xf32>) -> ()
  call @layer_0(%t, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.dealloc %t : memref<8xf32>
  return
}

// -----

// Same ops, different operands: the hash ignores operands, the comparison
// does not. Both stay.
// CHECK-LABEL: func.func private @sub(
// CHECK: arith.subf %arg0, %arg1
// CHECK-LABEL: func.func private @flipped(
// CHECK: arith.subf %arg1, %arg0
// CHECK: call @sub(
// CHECK: call @flipped(
func.func private @sub(%a: f32, %b: f32) -> f32 {
  %d = arith.subf %a, %b : f32
  return %d : f32
}
func.func private @flipped(%a: f32, %b: f32) -> f32 {
  %d = arith.subf %b, %a : f32
  return %d : f32
}
func.func @both(%a: f32, %b: f32) -> (f32, f32) {
  %x = call @sub(%a, %b) : (f32, f32) -> f32
  %y = call @flipped(%a, %b) : (f32, f32) -> f32
  return %x, %y : f32, f32
}

// -----

// A different constant, a different attribute on the function, a public
// function and a declaration: none joins @two. @two_again does, and a
// reference that is not a call follows it.
// CHECK-LABEL: func.func private @two(
// CHECK-LABEL: func.func private @three(
// CHECK-LABEL: func.func private @two_inlinable(
// CHECK-LABEL: func.func @two_public(
// CHECK-LABEL: func.func private @two_declared(
// CHECK-NOT: @two_again
// CHECK-LABEL: func.func @uses(
// CHECK: call @two()
// CHECK: call @three()
// CHECK: call @two_inlinable()
// CHECK: call @two_public()
// CHECK: call @two_declared()
// CHECK: constant @two : () -> f32
// CHECK-NOT: @two_again
func.func private @two() -> f32 attributes {passthrough = ["noinline"]} {
  %c = arith.constant 2.0 : f32
  return %c : f32
}
func.func private @three() -> f32 attributes {passthrough = ["noinline"]} {
  %c = arith.constant 3.0 : f32
  return %c : f32
}
func.func private @two_inlinable() -> f32 {
  %c = arith.constant 2.0 : f32
  return %c : f32
}
func.func @two_public() -> f32 attributes {passthrough = ["noinline"]} {
  %c = arith.constant 2.0 : f32
  return %c : f32
}
func.func private @two_declared() -> f32
func.func private @two_again() -> f32 attributes {passthrough = ["noinline"]} {
  %c = arith.constant 2.0 : f32
  return %c : f32
}
func.func @uses() -> (f32, f32, f32, f32, f32, () -> f32) {
  %a = call @two() : () -> f32
  %b = call @three() : () -> f32
  %c = call @two_inlinable() : () -> f32
  %d = call @two_public() : () -> f32
  %e = call @two_declared() : () -> f32
  %f = func.constant @two_again : () -> f32
  return %a, %b, %c, %d, %e, %f : f32, f32, f32, f32, f32, () -> f32
}

// -----

// no_inline counts: a function that may be inlined stays apart from one
// that may not. A nested symbol table has names of its own: its @twin_0
// is not the dropped one, and its reference stays.
// CHECK-LABEL: func.func private @twin()
// CHECK-LABEL: func.func private @twin_inlinable()
// CHECK-NOT: func.func private @twin_0()
// CHECK-LABEL: module @inner
// CHECK: func.func private @twin_0()
// CHECK: call @twin_0()
// CHECK-LABEL: func.func @calls(
// CHECK: call @twin()
// CHECK: call @twin_inlinable()
// CHECK: call @twin()
func.func private @twin() -> f32 attributes {no_inline} {
  %c = arith.constant 1.0 : f32
  return %c : f32
}
func.func private @twin_inlinable() -> f32 {
  %c = arith.constant 1.0 : f32
  return %c : f32
}
func.func private @twin_0() -> f32 attributes {no_inline} {
  %c = arith.constant 1.0 : f32
  return %c : f32
}
module @inner {
  func.func private @twin_0() -> f32 {
    %c = arith.constant 4.0 : f32
    return %c : f32
  }
  func.func @inner_calls() -> f32 {
    %x = call @twin_0() : () -> f32
    return %x : f32
  }
}
func.func @calls() -> (f32, f32, f32) {
  %a = call @twin() : () -> f32
  %b = call @twin_inlinable() : () -> f32
  %c = call @twin_0() : () -> f32
  return %a, %b, %c : f32, f32, f32
}
