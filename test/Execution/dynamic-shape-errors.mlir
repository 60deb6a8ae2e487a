// A dynamic batch whose shape cannot be followed through a layer is an
// error that names the layer: an imported node's location prints as the
// model file alone, so the message says which node it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 4), np.float32))"
// RUN: not qdq-run %s --input %t/x.npy --output %t/y.npy 2>&1 | FileCheck %s
// RUN: not test -e %t/y.npy

// CHECK: model.onnx:0:0: error: cannot compute a static result shape of quant_qdq.generic 'custom_node' for the given input shapes
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = quant_qdq.generic "CustomOp" "custom_node" %x : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("custom_node"("model.onnx":0:0))
  return %y : tensor<?x4xf32>
}
