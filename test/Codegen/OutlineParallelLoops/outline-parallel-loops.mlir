// RUN: qdq-opt %s --split-input-file --qdq-outline-parallel-loops | FileCheck %s

// Each parallel loop at the top of a function body moves into a private,
// internal, not-inlined function placed before it; the loop's constants are
// cloned in, the other values it reads become its arguments.
// CHECK-LABEL: func.func private @net_parallel(
// CHECK-SAME: %[[X:.*]]: memref<8x16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[C8]])
// CHECK:   memref.load %[[X]][%[[I]], %{{.*}}]
// CHECK:   memref.store %{{.*}}, %[[Y]][%[[I]], %{{.*}}]
// CHECK: return
// CHECK-LABEL: func.func private @net_parallel_0(
// CHECK-SAME: %{{.*}}: memref<8x16xf32>, %{{.*}}: f32, %{{.*}}: memref<8x16xf32>)
// CHECK-LABEL: func.func @net(
// CHECK: %[[T:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: call @net_parallel(%arg0, %[[T]]) : (memref<8x16xf32>, memref<8x16xf32>) -> ()
// CHECK: call @net_parallel_0(%[[T]], %arg2, %arg1)
// CHECK: scf.for
// CHECK:   scf.parallel
// CHECK: memref.dealloc %[[T]]
func.func @net(%x: memref<8x16xf32>, %y: memref<8x16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %t = memref.alloc() : memref<8x16xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x16xf32>
      memref.store %v, %t[%i, %j] : memref<8x16xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %t[%i, %j] : memref<8x16xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %y[%i, %j] : memref<8x16xf32>
    }
    scf.reduce
  }
  // A parallel loop nested in another loop stays where it is.
  scf.for %k = %c0 to %c8 step %c1 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %s, %y[%i, %k] : memref<8x16xf32>
      scf.reduce
    }
  }
  memref.dealloc %t : memref<8x16xf32>
  return
}

// -----

// A name already taken gets a suffix.
// CHECK: func.func private @f_parallel_0(
// CHECK: func.func @f(
// CHECK: call @f_parallel_0(
// CHECK: func.func private @f_parallel(
func.func @f(%x: memref<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %s, %x[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
func.func private @f_parallel(%x: memref<4xf32>)
