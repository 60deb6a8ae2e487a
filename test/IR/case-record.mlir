// RUN: qdq-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: qdq-opt %s --split-input-file --verify-diagnostics --insert-qdq --qdq-report=%t.report > /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.report

// An insertion case's record round-trips; insert-qdq reads it (a record
// written by hand counts as one a case wrote) and removes it.
// CHECK-LABEL: func @record
// CHECK: quant_qdq.case = #quant_qdq.case_record<cases = ["residual", "bn"], inputs = [1], weight = false>
// REPORT: add {{.*}} case residual+bn
func.func @record(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = quant_qdq.add "add" %a, %b {quant_qdq.case = #quant_qdq.case_record<cases = ["residual", "bn"], inputs = [1], weight = false>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @unsorted(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{case record inputs must be non-negative, sorted and without repeats}}
  %0 = quant_qdq.add "add" %a, %a {quant_qdq.case = #quant_qdq.case_record<cases = ["x"], inputs = [1, 0], weight = false>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @nameless(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{a case record names the cases that decided}}
  %0 = quant_qdq.add "add" %a, %a {quant_qdq.case = #quant_qdq.case_record<cases = [], inputs = [], weight = true>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
