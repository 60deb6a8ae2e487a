// Calibration's histograms (histogram.test): rows long enough to be
// counted in parts on several threads, and a single row.
func.func @rows(%x: tensor<2x4x10000xf32>) -> tensor<2x2048xi64> {
  %h = quant_qdq.histogram %x bins 2048 bin_scale 409.6 : tensor<2x4x10000xf32>
  return %h : tensor<2x2048xi64>
}

func.func @one_row(%x: tensor<80000xf32>) -> tensor<1x16xi64> {
  %h = quant_qdq.histogram %x bins 16 bin_scale 3.0 : tensor<80000xf32>
  return %h : tensor<1x16xi64>
}
