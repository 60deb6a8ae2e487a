#!/usr/bin/env python3
"""Intel Neural Compressor's accuracy-aware tuning of an ONNX model, for
bench/accuracy/auto_precision.py: the peer's way to "quantize as far as
accuracy allows" on the same file and data.

INC 2.6 quantizes with ONNX Runtime's QDQ format (static, its default
per-op int8 configuration), measures the model with an evaluation function
and, while the measure misses the goal, tries configurations that fall
back more operators to FP32 (its `basic` strategy: op types, then single
ops by sensitivity), up to --max-trials trials (default 100), stopping at
the first model that meets the target. The measure here is the output
SQNR against the FP32 model on the validation data, as
--qdq-auto-precision measures it: INC's criterion is a tolerable absolute
loss against the FP32 baseline of a metric where higher is better, so the
metric is -noise/signal (FP32: 0) and the loss allowed is 10^(-T/10).

    inc_tuning.py MODEL CALIB.npy VAL.npy TARGET_DB OUT.onnx [--max-trials N]

Prints one JSON line: seconds, trials, whether the goal was met, the
validation SQNR of the model written (as ONNX Runtime runs it by default,
which is also how INC's tuning measured it). INC's scratch files go to
nc_workspace/ beside OUT.

INC 2.6 reads `onnx.mapping`, which onnx 1.16 removed; the same tables are
rebuilt here from onnx.helper before INC is imported.
"""
import argparse
import json
import logging
import time
import types
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper


def restore_onnx_mapping():
    to_numpy, from_numpy = {}, {}
    for tensor_type in TensorProto.DataType.values():
        try:
            dtype = helper.tensor_dtype_to_np_dtype(tensor_type)
        except Exception:  # types numpy has no dtype for
            continue
        to_numpy[tensor_type] = dtype
        from_numpy.setdefault(dtype, tensor_type)
    onnx.mapping = types.SimpleNamespace(
        TENSOR_TYPE_TO_NP_TYPE=to_numpy, NP_TYPE_TO_TENSOR_TYPE=from_numpy)


def outputs(model, data):
    session = ort.InferenceSession(
        model if isinstance(model, (str, bytes)) else model.SerializeToString(),
        providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return np.concatenate([session.run(None, {name: data[i:i + 1]})[0]
                           for i in range(len(data))]).astype(np.float64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("calibration")
    parser.add_argument("validation")
    parser.add_argument("target", type=float)
    parser.add_argument("out")
    parser.add_argument("--max-trials", type=int, default=100)
    parser.add_argument("--timeout", type=int, default=0,
                        help="INC's own tuning timeout in seconds (0, its "
                             "default: stop at the first model that meets "
                             "the target)")
    args = parser.parse_args()

    restore_onnx_mapping()
    from neural_compressor import PostTrainingQuantConfig, quantization
    from neural_compressor.config import options
    # INC's scratch models go beside OUT, not into the working folder.
    options.workspace = str(Path(args.out).resolve().parent / "nc_workspace")
    from neural_compressor.config import AccuracyCriterion, TuningCriterion
    logging.getLogger("neural_compressor").setLevel(logging.WARNING)

    calibration = np.load(args.calibration)
    validation = np.load(args.validation)
    reference = outputs(args.model, validation)
    signal = float((reference ** 2).sum())
    trials = 0

    def metric(model):
        nonlocal trials
        trials += 1
        got = outputs(model, validation)
        return -float(((reference - got) ** 2).sum()) / signal

    class Batches:
        batch_size = 1

        def __iter__(self):
            for i in range(len(calibration)):
                yield calibration[i:i + 1], 0

    config = PostTrainingQuantConfig(
        approach="static", quant_format="QDQ",
        calibration_sampling_size=[len(calibration)],
        accuracy_criterion=AccuracyCriterion(
            criterion="absolute", higher_is_better=True,
            tolerable_loss=10 ** (-args.target / 10)),
        tuning_criterion=TuningCriterion(max_trials=args.max_trials,
                                         timeout=args.timeout))
    start = time.time()
    quantized = quantization.fit(model=args.model, conf=config,
                                 calib_dataloader=Batches(), eval_func=metric)
    seconds = time.time() - start
    result = {"seconds": round(seconds, 1), "trials": max(trials - 1, 0),
              "met": quantized is not None}
    if quantized is not None:
        quantized.save(args.out)
        got = outputs(args.out, validation)
        noise = float(((reference - got) ** 2).sum())
        result["val_db"] = round(10 * np.log10(signal / max(noise, 1e-30)), 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
