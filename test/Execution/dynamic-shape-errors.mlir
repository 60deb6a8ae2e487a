// A dynamic batch whose shape cannot be followed through a layer is an
// error that names the layer: an imported node's location prints as the
// model file alone, so the message says which node it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 4), np.float32))"
// RUN: not qdq-run %s --input %t/x.npy --output %t/y.npy 2>&1 | FileCheck %s
// RUN: not test -e %t/y.npy

// An ONNX node of a standard type takes its result type from ONNX's own
// inference; a node of a type ONNX has no schema for cannot.
// CHECK: model.onnx:0:0: error: cannot infer the result types of node 'custom_node' (CustomOp): ONNX has no schema for it at opset 17
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %e = quant_qdq.generic "Erf" "erf" %x : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("erf"("model.onnx":0:0))
  %y = quant_qdq.generic "CustomOp" "custom_node" %e : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("custom_node"("model.onnx":0:0))
  return %y : tensor<?x4xf32>
}
