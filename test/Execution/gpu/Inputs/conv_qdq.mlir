// A whole QDQ graph for the CPU/GPU comparison (conv-qdq.test): the input
// and the weights (per channel) quantized and dequantized around a conv2d,
// a ReLU, and the output quantized to uint8. Returns the dequantized output
// and its uint8 codes.
func.func @conv_qdq(%x: tensor<1x3x32x32xf32>) -> (tensor<1x4x32x32xf32>, tensor<1x4x32x32xi8>) {
  %w = arith.constant dense<[
    [[[0.537, 0.131, 0.029], [-0.559, -0.083, -0.106], [-0.025, -0.188, -0.013]],
     [[-0.143, -0.394, 0.265], [0.264, 0.513, 0.015], [-0.121, -0.164, -0.464]],
     [[0.295, -0.33, -0.356], [-0.062, 0.446, 0.071], [-0.307, -0.214, 0.188]]],
    [[[-0.048, -0.231, -0.069], [0.224, 0.593, -0.373], [-0.188, -0.241, -0.726]],
     [[-0.277, -0.307, 0.337], [-0.04, -0.487, 0.194], [-0.107, -0.523, -0.179]],
     [[-0.177, -0.262, 0.009], [-0.674, -0.08, 0.304], [0.256, 0.332, 0.336]]],
    [[[0.446, -0.335, 0.254], [-0.558, -0.181, -0.574], [0.314, 0.4, -0.059]],
     [[0.532, -0.202, 0.045], [0.046, -0.319, 0.131], [0.582, -0.307, 0.27]],
     [[-0.046, 0.531, 0.145], [0.203, 0.193, 0.075], [-0.419, 0.417, -0.411]]],
    [[[0.072, 0.184, -0.251], [0.044, 0.35, -0.007], [-0.267, -0.875, -0.292]],
     [[-0.177, -0.155, -0.288], [0.113, -0.172, -0.033], [0.204, -0.257, -0.09]],
     [[0.647, 0.262, -0.388], [-0.024, 0.169, 0.37], [0.045, -0.159, -0.219]]]
  ]> : tensor<4x3x3x3xf32>
  %b = arith.constant dense<[0.065, 0.031, -0.052, -0.019]> : tensor<4xf32>

  %qx = quant_qdq.quantize %x <bits = 8> scale [0.05] : tensor<1x3x32x32xf32> -> tensor<1x3x32x32xi8>
  %dx = quant_qdq.dequantize %qx <bits = 8> scale [0.05] : tensor<1x3x32x32xi8> -> tensor<1x3x32x32xf32>
  %qw = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.0045, 0.0048, 0.0047, 0.0069] : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xi8>
  %dw = quant_qdq.dequantize %qw <bits = 8, axis = 0> scale [0.0045, 0.0048, 0.0047, 0.0069] : tensor<4x3x3x3xi8> -> tensor<4x3x3x3xf32>
  %c = quant_qdq.conv2d "conv" %dx, %dw, %b {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x32x32xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  %r = quant_qdq.activation relu "relu" %c : tensor<1x4x32x32xf32>
  %qy = quant_qdq.quantize %r <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.02] zero_point [0] : tensor<1x4x32x32xf32> -> tensor<1x4x32x32xi8>
  %y = quant_qdq.dequantize %qy <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.02] zero_point [0] : tensor<1x4x32x32xi8> -> tensor<1x4x32x32xf32>
  return %y, %qy : tensor<1x4x32x32xf32>, tensor<1x4x32x32xi8>
}
