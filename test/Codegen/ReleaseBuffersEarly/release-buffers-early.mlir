// Each buffer is freed right after the last op that uses it or a view of
// it (a use inside a loop counts as the loop), instead of at the end of the
// function; a buffer that escapes keeps its dealloc.
// RUN: qdq-opt %s --qdq-release-buffers-early --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<4xf32>)
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: scf.parallel
// CHECK:   memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4xf32>
// CHECK: memref.copy %[[B]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[B]] : memref<2x2xf32>
// CHECK-NEXT: return
func.func @chain(%out: memref<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<2x2xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2]
      : memref<4xf32> into memref<2x2xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1, %c1) {
    %x = memref.load %v[%i, %j] : memref<2x2xf32>
    memref.store %x, %b[%i, %j] : memref<2x2xf32>
    scf.reduce
  }
  memref.copy %b, %out : memref<2x2xf32> to memref<2x2xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<2x2xf32>
  return
}

// -----

// Handed to a call, the buffer may be kept there: its dealloc stays.
// CHECK-LABEL: func.func @escapes
// CHECK: call @keep
// CHECK: linalg.fill
// CHECK-NEXT: memref.dealloc
func.func private @keep(memref<4xf32>)
func.func @escapes(%out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  call @keep(%a) : (memref<4xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}
