// partial mode quantizes only what the spec names, here one convolution's
// weight and the Add's second input; cases still apply below the spec.
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq="mode=partial spec=%S/Inputs/partial.json" --qdq-report=- -o /dev/null 2>&1 | FileCheck %s
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-mode=partial --qdq-spec=%S/Inputs/partial.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq=resnet-v1 --qdq-mode=partial --qdq-spec=%S/Inputs/partial.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=CASE

// CHECK: block1_conv Conv2D [] yes spec 'block1_conv'
// CHECK: block2_conv Conv2D [] no partial mode: not in spec
// CHECK: block2_add Add [1] no spec 'block2_add'
// CHECK: pool AveragePooling2D [] no partial mode: not in spec

// The spec wins over the case on block2_add:
// CASE: block2_add Add [1] no spec 'block2_add'
