// Bad maps and formats are errors at their line and column, with exit
// status 1.

// RUN: not qdq-opt %s --insert-number-formats="outputs=%S/Inputs/bad-format.json" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: bad-format.json:2:11: error: quantizer 'nearest,16': expected 'nearest,<bits>,<fraction bits>'

// RUN: not qdq-opt %s --insert-number-formats="outputs=%S/Inputs/bad-syntax.json" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: bad-syntax.json:3:4: error: malformed TensorQuant map JSON: Expected , or } after object property

// RUN: not qdq-opt %s --insert-number-formats="weights=%S/Inputs/not-an-object.json" 2>&1 | FileCheck %s --check-prefix=OBJECT
// OBJECT: not-an-object.json:1:2: error: a TensorQuant map is an object from layer-name substrings to formats

// RUN: not qdq-opt %s --insert-number-formats="weights=%S/Inputs/nested.json" 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: nested.json:2:12: error: expected a string: each entry maps a layer-name substring to a format name

// RUN: not qdq-opt %s --insert-number-formats="weights=%S/Inputs/duplicate.json" 2>&1 | FileCheck %s --check-prefix=DUPLICATE
// DUPLICATE: duplicate.json:1:16: error: 'fc' appears twice: each key of a map is one entry

// RUN: not qdq-opt %s --insert-number-formats="weights=%S/Inputs/number.json" 2>&1 | FileCheck %s --check-prefix=NUMBER
// NUMBER: number.json:1:8: error: expected a format name (a string) or null, got 16

// RUN: %python -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not qdq-opt %s --insert-number-formats="weights=%t.deep.json" 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.json:1:{{[0-9]+}}: error: malformed TensorQuant map JSON: nested deeper than 256 levels

// RUN: not qdq-opt %s --insert-number-formats="weights=%S/Inputs" 2>&1 | FileCheck %s --check-prefix=FOLDER
// FOLDER: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: cannot read the TensorQuant map '{{.*}}Inputs':

// null keeps the layer, as "none" does.
// RUN: qdq-opt %s --insert-number-formats="weights=%S/Inputs/null.json" | FileCheck %s --check-prefix=NULL
// NULL-NOT: round_to_format

// RUN: not qdq-opt %s --insert-number-formats="weights=quaternary" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'quaternary' is neither a map file nor a format: unknown quantizer 'quaternary'; expected none, nearest, zero, down, stochastic, binary, ternary, logarithmic, sparse or fp16

// RUN: not qdq-opt %s --insert-number-formats="weights='stochastic,30,2'" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'stochastic,30,2' is neither a map file nor a format: fixed-point bits must be in [2, 24], got 30

func.func @net(%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %y = quant_qdq.dense "fc" %x, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
