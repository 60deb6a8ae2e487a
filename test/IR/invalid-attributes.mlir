// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{quantizer bit width must be in [2, 16], got 1}}
func.func private @bits() attributes {q = #quant_qdq.quantizer<bits = 1>}

// -----

// expected-error @+1 {{quantizer axis must be non-negative, got -2}}
func.func private @axis() attributes {q = #quant_qdq.quantizer<bits = 8, axis = -2>}

// -----

// expected-error @+1 {{unknown attribute `frobnicator` in dialect `quant_qdq`}}
func.func private @unknown() attributes {q = #quant_qdq.frobnicator<1>}

// -----

// expected-error @+1 {{unknown attribute `quant` in dialect `quant_qdq`}}
func.func private @bare_enum() attributes {e = #quant_qdq<quant nchw>}

// -----

// expected-error @+2 {{expected ::mlir::quant_qdq::Layout to be one of: nchw, nhwc}}
// expected-error @+1 {{failed to parse QDQ_LayoutAttr parameter 'value' which is to be a `::mlir::quant_qdq::Layout`}}
func.func private @layout() attributes {e = #quant_qdq<layout NCHW>}

// -----

// The quantizer wants its parameters as a struct.
// expected-error @+1 {{expected '<'}}
func.func private @no_struct() attributes {q = #quant_qdq.quantizer}
