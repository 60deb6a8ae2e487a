// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @empty_op_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.generic' op needs a non-empty op_type}}
  %y = quant_qdq.generic "" %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @missing_op_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.generic' op requires attribute 'op_type'}}
  %y = "quant_qdq.generic"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @op_type_not_string(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {op_type = 1 : i64} for op quant_qdq.generic: Invalid attribute `op_type` in property conversion: 1 : i64}}
  %y = "quant_qdq.generic"(%x) <{op_type = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @layer_attributes_not_dictionary(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.generic' op attribute 'layer_attributes' failed to satisfy constraint: dictionary of named attribute values}}
  %y = quant_qdq.generic "LpNormalization" %x {layer_attributes = [1, 2]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @domain_not_string(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.generic' op attribute 'domain' failed to satisfy constraint: string attribute}}
  %y = quant_qdq.generic "Custom" %x {domain = 7 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @op_type_as_keyword(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected attribute value}}
  %y = quant_qdq.generic LSTM %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
