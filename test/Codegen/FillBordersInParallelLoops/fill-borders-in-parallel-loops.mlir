// A padded buffer's border strips, filled just before the parallel loop
// that writes its interior, are filled inside that loop, each on an
// iteration of its own spread over the loop's iterations; fills the loop
// may read or write, or that another op touching memory separates from
// it, stay where they are.
// RUN: qdq-opt %s --qdq-fill-borders-in-parallel-loops --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @border
// CHECK-SAME: (%[[X:.*]]: memref<4x6xf32>)
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<6x8xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c4) step (%c1) {
// The top row on iteration 0, the bottom row on 1, the sides on 2 and 3.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<1x8xf32, strided<[8, 1]>>)
// CHECK: arith.cmpi eq, %[[I]], %c1
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<1x8xf32, strided<[8, 1], offset: 40>>)
// CHECK: arith.cmpi eq, %[[I]], %c2
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<4x1xf32, strided<[8, 1], offset: 8>>)
// CHECK: arith.cmpi eq, %[[I]], %c3
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<4x1xf32, strided<[8, 1], offset: 15>>)
// CHECK: memref.load %[[X]]
// CHECK: memref.store
func.func @border(%x: memref<4x6xf32>) -> memref<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %padded = memref.alloc() : memref<6x8xf32>
  %top = memref.subview %padded[0, 0] [1, 8] [1, 1] : memref<6x8xf32> to memref<1x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x8xf32, strided<[8, 1]>>)
  %bottom = memref.subview %padded[5, 0] [1, 8] [1, 1] : memref<6x8xf32> to memref<1x8xf32, strided<[8, 1], offset: 40>>
  linalg.fill ins(%zero : f32) outs(%bottom : memref<1x8xf32, strided<[8, 1], offset: 40>>)
  %left = memref.subview %padded[1, 0] [4, 1] [1, 1] : memref<6x8xf32> to memref<4x1xf32, strided<[8, 1], offset: 8>>
  linalg.fill ins(%zero : f32) outs(%left : memref<4x1xf32, strided<[8, 1], offset: 8>>)
  %right = memref.subview %padded[1, 7] [4, 1] [1, 1] : memref<6x8xf32> to memref<4x1xf32, strided<[8, 1], offset: 15>>
  linalg.fill ins(%zero : f32) outs(%right : memref<4x1xf32, strided<[8, 1], offset: 15>>)
  %interior = memref.subview %padded[1, 1] [4, 6] [1, 1] : memref<6x8xf32> to memref<4x6xf32, strided<[8, 1], offset: 9>>
  %rows = memref.expand_shape %interior [[0], [1, 2]] output_shape [4, 2, 3]
      : memref<4x6xf32, strided<[8, 1], offset: 9>> into memref<4x2x3xf32, strided<[8, 3, 1], offset: 9>>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c6 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x6xf32>
      memref.store %v, %interior[%i, %j] : memref<4x6xf32, strided<[8, 1], offset: 9>>
    }
    scf.reduce
  }
  return %padded : memref<6x8xf32>
}

// -----

// The loop reads the whole padded buffer (a window over it), and a copy
// separates the other fill from the loop: both stay.
// CHECK-LABEL: func.func @not_apart
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: linalg.fill
// CHECK: scf.parallel
// CHECK-NOT: scf.if
func.func @not_apart(%a: memref<2xf32>, %b: memref<2xf32>, %out: memref<4xf32>) -> memref<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %padded = memref.alloc() : memref<6x8xf32>
  %other = memref.alloc() : memref<3xf32>
  linalg.fill ins(%zero : f32) outs(%other : memref<3xf32>)
  memref.copy %a, %b : memref<2xf32> to memref<2xf32>
  %top = memref.subview %padded[0, 0] [1, 8] [1, 1] : memref<6x8xf32> to memref<1x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x8xf32, strided<[8, 1]>>)
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %padded[%i, %i] : memref<6x8xf32>
    memref.store %v, %out[%i] : memref<4xf32>
    scf.reduce
  }
  memref.dealloc %other : memref<3xf32>
  return %padded : memref<6x8xf32>
}

// -----

// A loop over two dimensions, and a buffer it uses through a view no box
// describes (a strided subview): nothing moves into that loop; into the
// first, the fill goes to its iteration (0, 0).
// CHECK-LABEL: func.func @two_dimensions
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-DAG: %[[EQ1:.*]] = arith.cmpi eq, %[[J]], %c0
// CHECK-DAG: %[[EQ0:.*]] = arith.cmpi eq, %[[I]], %c0
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK: scf.if %[[BOTH]]
// CHECK-NEXT: linalg.fill
// CHECK: linalg.fill
// CHECK-NEXT: %{{.*}} = memref.subview
// CHECK-NEXT: scf.parallel
// CHECK-NOT: scf.if
func.func @two_dimensions(%x: memref<2x4xf32>) -> (memref<3x4xf32>, memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %padded = memref.alloc() : memref<3x4xf32>
  %top = memref.subview %padded[0, 0] [1, 4] [1, 1] : memref<3x4xf32> to memref<1x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x4xf32, strided<[4, 1]>>)
  %rest = memref.subview %padded[1, 0] [2, 4] [1, 1] : memref<3x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c4) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<2x4xf32>
    memref.store %v, %rest[%i, %j] : memref<2x4xf32, strided<[4, 1], offset: 4>>
    scf.reduce
  }
  %every = memref.alloc() : memref<8x4xf32>
  %odd = memref.subview %every[1, 0] [4, 4] [2, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %first = memref.subview %every[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<1x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%first : memref<1x4xf32, strided<[4, 1]>>)
  %unused = memref.subview %every[0, 0] [1, 1] [1, 1] : memref<8x4xf32> to memref<1x1xf32, strided<[4, 1]>>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%c0, %i] : memref<2x4xf32>
    memref.store %v, %odd[%i, %i] : memref<4x4xf32, strided<[8, 1], offset: 4>>
    scf.reduce
  }
  return %padded, %every : memref<3x4xf32>, memref<8x4xf32>
}

// -----

// A loop that calls a function may reach any buffer: nothing moves in.
// CHECK-LABEL: func.func @calls
// CHECK: linalg.fill
// CHECK-NEXT: scf.parallel
// CHECK-NOT: scf.if
func.func private @touch()
func.func @calls() -> memref<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %padded = memref.alloc() : memref<2x4xf32>
  %top = memref.subview %padded[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<1x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x4xf32, strided<[4, 1]>>)
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    func.call @touch() : () -> ()
    scf.reduce
  }
  return %padded : memref<2x4xf32>
}
