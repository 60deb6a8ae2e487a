// Each QuantizationSpec field, on Inputs/block.mlir (block1_conv, block2_conv,
// block2_add, pool), read with --qdq-report.
// RUN: split-file %s %t
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/no-weight.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWEIGHT
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/no-input.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/index.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/lists.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=LISTS
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/substring.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUBSTRING
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/inner.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=INNER
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/leave-alone.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/precedence.json --qdq-report=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRECEDENCE

// NOWEIGHT: block1_conv Conv2D [0] no spec 'block1_conv'
// NOWEIGHT: block2_conv Conv2D [0] yes default table
// NOINPUT: block1_conv Conv2D [] yes spec 'block1_conv'
// INDEX: block2_add Add [1] no spec 'block2_add'
// LISTS: block2_add Add [0] no spec 'block2_add'
// LISTS: pool AveragePooling2D [] no spec 'pool'
// SUBSTRING: block1_conv Conv2D [0] yes default table
// SUBSTRING: block2_conv Conv2D [0] no spec 'block2'
// SUBSTRING: block2_add Add [0,1] no spec 'block2'
// A substring matches anywhere in the name, not only at its start.
// INNER: block1_conv Conv2D [0] yes default table
// INNER: block2_conv Conv2D [0] no spec 'k2_c'
// INNER: block2_add Add [] no default table
// ALONE: block1_conv Conv2D [] no spec 'Conv2D'
// ALONE: block2_conv Conv2D [] no spec 'Conv2D'
// ALONE: pool AveragePooling2D [0] no default table
// An exact name wins over a class, a class over a substring.
// PRECEDENCE: block1_conv Conv2D [] yes spec 'Conv2D'
// PRECEDENCE: block2_conv Conv2D [0] yes spec 'block2_conv'
// PRECEDENCE: block2_add Add [0,1] no spec 'block'

//--- no-weight.json
[{"name": "block1_conv", "quantize_weight": false}]

//--- no-input.json
[{"name": "block1_conv", "quantize_input": false}]

//--- index.json
{"layers": [{"name": "block2_add", "quantization_index": [1]}]}

//--- lists.json
[{"name": ["block2_add", "pool"], "quantize_input": [true, false],
  "quantization_index": [[0], null]}]

//--- substring.json
[{"name": "block2", "match": "substring", "quantize_weight": false}]

//--- inner.json
[{"name": "k2_c", "match": "substring", "quantize_weight": false}]

//--- leave-alone.json
[{"name": "Conv2D", "is_keras_class": true, "quantize_input": false,
  "quantize_weight": false}]

//--- precedence.json
[{"name": "block", "match": "substring", "quantize_weight": false},
 {"name": "Conv2D", "is_keras_class": true, "quantize_input": false},
 {"name": "block2_conv"}]
