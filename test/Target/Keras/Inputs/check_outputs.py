"""check_outputs.py REF.npy (Y.npy | MODEL.onnx X.npy): the output equals
the Keras model's within 1e-4 of its range (ONNX models are run by ONNX
Runtime, graph rewrites off). Prints "match"."""

import sys

import numpy as np

ref = np.load(sys.argv[1])
if sys.argv[2].endswith(".onnx"):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(sys.argv[2], options,
                                   providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name:
                             np.load(sys.argv[3])})[0]
else:
    got = np.load(sys.argv[2])
error = np.abs(got - ref).max() / np.abs(ref).max()
print("match" if got.shape == ref.shape and error < 1e-4
      else "differ: shape %s vs %s, error %g" % (got.shape, ref.shape, error))
