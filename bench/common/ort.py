"""ONNX Runtime (CPU) as the benchmarks' judge: outputs, latency, SQNR."""
import time

import numpy as np
import onnxruntime as ort


def session(path, optimize=True, threads=0):
    """An ORT CPU session of a model file (or serialized bytes). With
    `optimize`, ORT fuses QDQ into its integer kernels, as a deployment
    would; without, it runs every node as written (float Q/DQ), the
    reference for bit-level comparisons."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    if not optimize:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    model = path if isinstance(path, bytes) else str(path)
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def outputs(path, inputs, optimize=True):
    """The first output of `path` on each array of `inputs` (batch 1 each
    unless the arrays say otherwise)."""
    s = session(path, optimize)
    name = s.get_inputs()[0].name
    return [s.run(None, {name: x})[0] for x in inputs]


def latency_ms(path, x, repeat=20, warmup=3, threads=0):
    """Median wall time of one run of `path` on `x`, in milliseconds
    (`threads`: ORT's intra-op threads, 0 for its default)."""
    s = session(path, threads=threads)
    return run_ms(s, {s.get_inputs()[0].name: x}, repeat, warmup)


def run_ms(s, feeds, repeat=20, warmup=3):
    """Median wall time of `repeat` runs of session `s` on `feeds` after
    `warmup` untimed ones, in milliseconds."""
    for _ in range(warmup):
        s.run(None, feeds)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        s.run(None, feeds)
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def top1_percent(outputs, labels):
    """Top-1 accuracy, in percent, of per-sample logits against labels."""
    predicted = np.array([int(np.argmax(o)) for o in outputs])
    return 100.0 * float((predicted == labels).mean())


def sqnr_db(reference, candidate):
    """10 log10(sum y^2 / sum (y - y_q)^2) over all outputs together."""
    ref = np.concatenate([r.reshape(-1) for r in reference]).astype(np.float64)
    got = np.concatenate([c.reshape(-1) for c in candidate]).astype(np.float64)
    signal, noise = (ref ** 2).sum(), ((ref - got) ** 2).sum()
    if signal == 0:
        return float("nan")  # nothing to measure against
    return float("inf") if noise == 0 else float(10 * np.log10(signal / noise))


def calibration_reader(name, samples):
    """ONNX Runtime's CalibrationDataReader feeding `samples` to the input
    `name`, one sample a batch (as the benchmarks feed every peer),
    rewindable."""
    return calibration_reader_feeds({name: samples})


def calibration_reader_feeds(feeds):
    """ONNX Runtime's CalibrationDataReader over a model of several inputs:
    `feeds` maps each input's name to its samples (the same number along
    the first axis; an .npz of arrays named after the inputs, loaded), one
    sample of every input a batch, rewindable."""
    from onnxruntime.quantization import CalibrationDataReader

    feeds = dict(feeds)
    counts = {len(v) for v in feeds.values()}
    if len(counts) != 1:
        raise ValueError(
            "calibration feeds of different numbers of samples: "
            + ", ".join(f"{k} {len(v)}" for k, v in feeds.items()))
    count = counts.pop()

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = [{k: v[i:i + 1] for k, v in feeds.items()}
                            for i in range(count)]
            self.index = 0

        def get_next(self):
            if self.index == len(self.batches):
                return None
            self.index += 1
            return self.batches[self.index - 1]

        def rewind(self):
            self.index = 0

    return Reader()


# The nodes ORT's CPU provider runs on integers, which its optimizer forms
# from Q/DQ groups (or a file holds as they are).
INTEGER_OPS = ("QLinearConv", "QLinearMatMul", "QLinearAdd", "QLinearMul",
               "QLinearConcat", "QLinearAveragePool",
               "QLinearGlobalAveragePool", "QLinearSigmoid",
               "QLinearLeakyRelu", "QLinearSoftmax", "QGemm", "MatMulInteger",
               "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "ConvInteger",
               "MatMulNBits", "QAttention", "NhwcMaxPool")


def optimized_graph(path):
    """The graph ORT's CPU provider runs for `path` after its optimizations
    (its optimized_model_filepath), as an onnx.ModelProto."""
    import os
    import tempfile

    import onnx

    options = ort.SessionOptions()
    options.log_severity_level = 3  # the NCHWc serialization warning
    with tempfile.TemporaryDirectory() as folder:
        saved = os.path.join(folder, "optimized.onnx")
        options.optimized_model_filepath = saved
        ort.InferenceSession(str(path), options,
                             providers=["CPUExecutionProvider"])
        return onnx.load(saved)


def integer_nodes(path):
    """{op_type: count} of the integer nodes ORT runs for `path`
    (INTEGER_OPS; NhwcMaxPool only on 8-bit data)."""
    counts = {}
    graph = optimized_graph(path).graph
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(graph.value_info) + list(graph.input)}
    for node in graph.node:
        if node.op_type not in INTEGER_OPS:
            continue
        if node.op_type == "NhwcMaxPool" and types.get(node.input[0]) == 1:
            continue  # a float NHWC max pool
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts


def format_counts(counts):
    """'QLinearConv 20, QLinearAdd 8' (largest first), or 'none'."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{op} {n}" for op, n in ordered) or "none"


def storage_formats(path):
    """The integer types a QDQ file stores activations and weights in, as
    'u8/s8' (activations/weights; several types joined by '+'), from the
    zero points of its QuantizeLinear nodes and the data of DequantizeLinear
    nodes that read an initializer. 'f32' for a file without Q/DQ."""
    import onnx

    names = {onnx.TensorProto.UINT8: "u8", onnx.TensorProto.INT8: "s8",
             onnx.TensorProto.UINT16: "u16", onnx.TensorProto.INT16: "s16",
             onnx.TensorProto.INT4: "s4", onnx.TensorProto.UINT4: "u4",
             onnx.TensorProto.INT32: "s32",
             onnx.TensorProto.FLOAT8E4M3FN: "e4m3"}
    model = onnx.load(str(path), load_external_data=False)
    initializers = {i.name: i.data_type for i in model.graph.initializer}
    activations, weights = set(), set()
    for node in model.graph.node:
        if node.op_type == "QuantizeLinear":
            zero_point = node.input[2] if len(node.input) > 2 else ""
            activations.add(names.get(initializers.get(zero_point,
                                                       onnx.TensorProto.UINT8),
                                      "?"))
        elif node.op_type == "DequantizeLinear" and node.input[0] in initializers:
            kind = names.get(initializers[node.input[0]], "?")
            if kind != "s32":  # biases
                weights.add(kind)
    if not activations and not weights:
        return "f32"
    return ("+".join(sorted(activations)) or "-") + "/" + \
        ("+".join(sorted(weights)) or "-")
