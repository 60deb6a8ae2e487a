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
