// RUN: qdq-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: qdq-opt %s --split-input-file --verify-diagnostics --insert-qdq --qdq-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT

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

// A record's quantizer fields reach the pairs insert-qdq places: a 4-bit
// asymmetric input with its own calibration method.
// CHECK-LABEL: func @fields
// CHECK: input_quantizer = {bits = 4 : i64, calibration = "mse", symmetric = false}
// REPORT: add2 {{.*}} case mine; calibration mse
func.func @fields(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = quant_qdq.add "add2" %a, %b {quant_qdq.case = #quant_qdq.case_record<cases = ["mine"], inputs = [0], weight = false, input_quantizer = {bits = 4 : i64, symmetric = false, calibration = "mse"}>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @bad_field(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{quantizer override: unknown field 'bitz'}}
  %0 = quant_qdq.add "add" %a, %a {quant_qdq.case = #quant_qdq.case_record<cases = ["x"], inputs = [0], weight = false, input_quantizer = {bitz = 4 : i64}>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @weight_calibration(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{a case record's weight quantizer has no calibration}}
  %0 = quant_qdq.add "add" %a, %a {quant_qdq.case = #quant_qdq.case_record<cases = ["x"], inputs = [0], weight = false, weight_quantizer = {calibration = "max"}>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
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
