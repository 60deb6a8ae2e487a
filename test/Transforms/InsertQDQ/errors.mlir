// What insert-qdq rejects: each error names the file and position, exits
// with status 1 and leaves no output file.
// RUN: rm -rf %t && split-file %s %t
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=resnet-v9 2>&1 | FileCheck %s --check-prefix=UNKNOWN-CASE
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-mode=partial 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-mode=half 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/wrong-type.json 2>&1 | FileCheck %s --check-prefix=WRONG-TYPE
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/unknown-field.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FIELD
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/list-length.json 2>&1 | FileCheck %s --check-prefix=LIST-LENGTH
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/bad-bits.json 2>&1 | FileCheck %s --check-prefix=BAD-BITS
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/bad-format.json 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/format-bits.json 2>&1 | FileCheck %s --check-prefix=FORMAT-BITS
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/unsigned-fp8.json 2>&1 | FileCheck %s --check-prefix=UNSIGNED-FP8
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/input-blocks.json 2>&1 | FileCheck %s --check-prefix=INPUT-BLOCKS
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/negative-block.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-BLOCK
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/both-names.json 2>&1 | FileCheck %s --check-prefix=BOTH-NAMES
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/no-name.json 2>&1 | FileCheck %s --check-prefix=NO-NAME
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/index-range.json 2>&1 | FileCheck %s --check-prefix=INDEX-RANGE
// A layer's failed decision stops the pass there: no warning about the
// entries after it, no report.
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/index-range-and-more.json --qdq-report=%t/stopped.txt 2>&1 | FileCheck %s --check-prefix=STOPPED --implicit-check-not=warning
// RUN: not test -e %t/stopped.txt
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=%t/bad-native.mlir 2>&1 | FileCheck %s --check-prefix=BAD-NATIVE
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=%t/misspelt-op.mlir 2>&1 | FileCheck %s --check-prefix=MISSPELT-OP
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=%t/syntax.pdll 2>&1 | FileCheck %s --check-prefix=PDLL-SYNTAX
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=%t/absent.pdll 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq=%t/weightless.mlir 2>&1 | FileCheck %s --check-prefix=WEIGHTLESS
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq="cases=residual bogus=1" 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
//
// The exit status is 1 and a failed run leaves no output file:
// RUN: rm -f %t.out
// RUN: sh -c 'qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/malformed.json -o %t.out 2>/dev/null; test $? -eq 1'
// RUN: not test -e %t.out
//
// An entry that matches nothing is only a warning, at the entry:
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%t/unknown-name.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN-NAME

// UNKNOWN-CASE: block.mlir:0:0: error: unknown insertion case 'resnet-v9'; known cases: attention-matmul, bn, efficientnet, inception, maxpool, mobilenet, residual, residual-gemm, resnet-v1, resnet-v2, se-multiply, small-gemm, transformer (or a .pdll/.mlir file)
// PARTIAL: block.mlir:0:0: error: partial mode quantizes only the layers a QuantizationSpec names: give one with --qdq-spec
// MODE: error: insert-qdq mode must be 'full' or 'partial', got 'half'
// MALFORMED: malformed.json:2:34: error: malformed QuantizationSpec JSON: Expected , or ] after array element
// WRONG-TYPE: wrong-type.json:1:44: error: expected true or false
// UNKNOWN-FIELD: unknown-field.json:1:26: error: unknown field 'quantise_input' (expected name,
// LIST-LENGTH: list-length.json:1:54: error: expected one value per name (2), got 3
// BAD-BITS: bad-bits.json:1:54: error: bits must be an integer in [2, 16]
// BAD-FORMAT: bad-format.json:1:56: error: format must be one of int4, int8, int16, fp8
// FORMAT-BITS: format-bits.json:1:56: error: format int4 stores 4 bits, and 'bits' says otherwise: give one
// UNSIGNED-FP8: unsigned-fp8.json:1:77: error: fp8 (e4m3fn) is 8-bit, signed and symmetric
// INPUT-BLOCKS: input-blocks.json:1:60: error: blocks of input channels are for weights; block_size applies to weight quantizers
// NEGATIVE-BLOCK: negative-block.json:1:61: error: block_size must be 0 (per channel) or a positive integer
// BOTH-NAMES: both-names.json:1:57: error: 'num_bits' is TFMOT's name for 'bits': give one of them
// NO-NAME: no-name.json:1:2: error: entry has no 'name'
// MISSING: missing.json:0:0: error: cannot read QuantizationSpec '{{.*}}missing.json'
// INDEX-RANGE: block.mlir:7:8: error: quantization_index 2 is out of range: layer 'block2_add' has 2 activation inputs
// INDEX-RANGE: index-range.json:1:2: note: in this QuantizationSpec entry
// STOPPED: error: quantization_index 2 is out of range: layer 'block2_add'
// BAD-NATIVE: bad-native.mlir:4:5: error: unknown native function 'QuantizeEverything' in insertion case; available: IsConvFed,
// MISSPELT-OP: misspelt-op.mlir:2:8: error: unknown op 'quant_qdq.maxpool2d' in insertion case: it matches nothing; quant_qdq's layers: {{.*}}quant_qdq.max_pool2d
// PDLL-SYNTAX: syntax.pdll:0:0: error: mlir-pdll could not compile the case:
// PDLL-SYNTAX: syntax.pdll:4:1: error: expected expression
// ABSENT: absent.pdll:0:0: error: cannot read insertion case '{{.*}}absent.pdll'
// WEIGHTLESS: block.mlir:{{[0-9]+}}:{{[0-9]+}}: error: insertion case 'weightless.mlir' asks to quantize the weight of a layer without one
// BAD-OPTION: no such option bogus
// UNKNOWN-NAME: unknown-name.json:1:2: warning: no layer named 'block9_conv'; did you mean 'block1_conv'?
// UNKNOWN-NAME: unknown-name.json:1:27: warning: no layer of class 'Dense' (the model's: Add, AveragePooling2D, Conv2D)
// UNKNOWN-NAME-NOT: error

//--- malformed.json
[{"name": "block1_conv",
  "quantize_input": [true, false} ]
//--- wrong-type.json
[{"name": "block1_conv", "quantize_input": "yes"}]
//--- unknown-field.json
[{"name": "block1_conv", "quantise_input": false}]
//--- list-length.json
[{"name": ["block1_conv", "pool"], "quantize_input": [true, false, true]}]
//--- bad-bits.json
[{"name": "block1_conv", "input_quantizer": {"bits": 32}}]
//--- bad-format.json
[{"name": "block1_conv", "input_quantizer": {"format": "int3"}}]
//--- format-bits.json
[{"name": "block1_conv", "input_quantizer": {"format": "int4", "bits": 8}}]
//--- unsigned-fp8.json
[{"name": "block1_conv", "quantizer": {"format": "fp8"}, "input_quantizer": {"signed": false}}]
//--- input-blocks.json
[{"name": "block1_conv", "input_quantizer": {"block_size": 32}}]
//--- negative-block.json
[{"name": "block1_conv", "weight_quantizer": {"block_size": -1}}]
//--- both-names.json
[{"name": "block1_conv", "input_quantizer": {"bits": 4, "num_bits": 8}}]
//--- no-name.json
[{"quantize_input": false}]
//--- index-range.json
[{"name": "block2_add", "quantization_index": [0, 2]}]
//--- index-range-and-more.json
[{"name": "block2_add", "quantization_index": [0, 2]}, {"name": "block9"}]
//--- unknown-name.json
[{"name": "block9_conv"}, {"name": "Dense", "is_keras_class": true}]
//--- bad-native.mlir
pdl.pattern @p : benefit(1) {
  %0 = operation "quant_qdq.max_pool2d"
  rewrite %0 {
    apply_native_rewrite "QuantizeEverything"(%0 : !pdl.operation)
  }
}
//--- misspelt-op.mlir
pdl.pattern @p : benefit(1) {
  %0 = operation "quant_qdq.maxpool2d"
  rewrite %0 {
    apply_native_rewrite "QuantizeInputs"(%0 : !pdl.operation)
  }
}
//--- syntax.pdll
#include "QuantQDQ/IR/QuantQDQOps.td"
Pattern Broken {
  let x = op<quant_qdq.add>(
}
//--- weightless.mlir
pdl.pattern @p : benefit(1) {
  %inputs = operands
  %types = types
  %0 = operation "quant_qdq.add"(%inputs : !pdl.range<value>) -> (%types : !pdl.range<type>)
  rewrite %0 {
    apply_native_rewrite "QuantizeWeight"(%0 : !pdl.operation)
  }
}
