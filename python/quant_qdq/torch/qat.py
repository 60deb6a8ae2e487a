"""Quantization-aware training of torch.nn.Module models, at quant-qdq's
placements.

    qat = quantize_model(net, example_input=x, qat=True,
                         custom_qdq_cases=[ResNetV1QDQCase()])
    ...train qat like net...
    onnx_model = export_qat_module(qat)   # QDQ ONNX with the learned ranges

The placement is insert-qdq's, decided on the model's ONNX export; the
returned module is the user's, traced by torch.fx, with

- a FakeQuantize module on each tensor that a layer reads quantized, read
  by exactly those readers (the others keep the float tensor), and
- each convolution or linear layer whose weight is quantized replaced by
  one that computes with its weight fake-quantized per output channel.

Quantized tensors are found in the traced graph by their values: the
float ONNX model (run by ONNX Runtime) and the traced module run on the
same input, and each quantized ONNX tensor is the graph node computing the
same numbers; layers with weights are found by their module path, which
the ONNX node names carry. The semantics are the Keras layers': symmetric,
narrow range, round half to even, straight-through gradient inside the
range, last-value or moving-average ranges starting at 6 or at the float
model's maxima on calibration data, weight ranges max |w| per channel.

export_qat_module exports the trained float layers to ONNX, places Q/DQ
with the same settings, and gives each Q/DQ the range its FakeQuantize
learned.
"""

import copy
from typing import Dict, List

import numpy as np
import torch
import torch.fx

from .. import _quant_qdq
from .._options import RANGE_TRACKING
from ..calibration import CalibrationTable, TensorRange, apply_table
from ..ir import export_onnx, save_onnx
from ..placement import place_qdq, qat_placement
from .export import export_torch
from .qat_modules import FakeQuantize, QuantizedWeights, fake_quantize

__all__ = ["FakeQuantize", "QuantizedWeights", "fake_quantize",
           "quantize_torch_model", "export_qat_module", "QATPlacementError",
           "RANGE_TRACKING"]


def _module_path(onnx_node_name: str, modules) -> str:
    """The path, among `modules`' names, of the module an exported node
    belongs to. The exporter names each scope by the child's attribute
    name, that name prefixed by its parent's, or its full path:
    "/layer1/layer1.0/conv1/Conv" is layer1.0.conv1, "/features/
    features.0/features.0.0/Conv" features.0.0."""
    path, last = "", ""
    for scope in onnx_node_name.strip("/").split("/")[:-1]:
        # Relative names first: a block's conv1 is not the stem's.
        candidates = []
        if last and scope.startswith(last + "."):
            candidates.append(path + "." + scope[len(last) + 1:])
        if path:
            candidates.append(path + "." + scope)
        candidates.append(scope)
        found = next((c for c in candidates if c in modules), None)
        if found is None:
            return ""
        path, last = found, scope
    return path


def _capture(gm: torch.fx.GraphModule, args) -> Dict[str, torch.Tensor]:
    """The output of every node of `gm` on `args`."""
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            if isinstance(result, torch.Tensor):
                # A copy: in-place layers (ReLU(inplace=True), +=) would
                # change it afterwards.
                values[n.name] = result.detach().clone()
            return result

    with torch.no_grad():
        Recorder(gm).run(*args)
    return values


def _onnx_values(onnx_bytes: bytes, names: List[str], args):
    """The named tensors of the float ONNX model on `args`, by ONNX
    Runtime with its graph rewrites off."""
    import onnx
    import onnxruntime as ort
    model = onnx.load_from_string(onnx_bytes)
    known = {o.name for o in model.graph.output}
    for name in names:
        if name not in known:
            model.graph.output.append(onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {i.name: a.detach().cpu().numpy()
             for i, a in zip(session.get_inputs(), args)}
    outputs = session.run(names, feeds)
    return dict(zip(names, outputs)), model


def _same(a: np.ndarray, b: torch.Tensor) -> bool:
    b = b.cpu().numpy()
    if a.shape != b.shape:
        return False
    scale = max(float(np.abs(a).max()), 1e-6)
    return bool(np.abs(a - b).max() <= 1e-4 * scale)


def _with_distinct_normalizations(module: torch.nn.Module):
    """`module` with random BatchNorm statistics and affine parameters."""
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                if m.track_running_stats:
                    m.running_mean.copy_(
                        torch.randn(c, generator=generator) * 0.2)
                    m.running_var.copy_(
                        torch.rand(c, generator=generator) * 1.5 + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(c, generator=generator) + 0.5)
                    m.bias.copy_(torch.randn(c, generator=generator) * 0.2)
    return module.eval()


class QATPlacementError(ValueError):
    """A quantized tensor of the ONNX export with no node of the traced
    module computing it."""


def quantize_torch_model(module: torch.nn.Module, example_input,
                         quantization_mode: str = "full",
                         quantization_spec=None, custom_qdq_cases=None, *,
                         weight_bits: int = 8, activation_bits: int = 8,
                         range_tracking: str = "last_value",
                         calibration_data=None, opset_version: int = 13,
                         batch_size: int = 32) -> torch.fx.GraphModule:
    """A traced copy of `module` ready for quantization-aware training
    (see the module's docstring); `module` is left as it was."""
    example = (example_input if isinstance(example_input, tuple)
               else (example_input,))
    # Tensors are matched by value on a copy whose normalizations are not
    # near identities (fresh BatchNorms would make a convolution's output
    # and its BN's indistinguishable), on a random input of the example's
    # shape; the ONNX names and the traced graph are the same as the
    # user's module's.
    probe = _with_distinct_normalizations(copy.deepcopy(module))
    generator = torch.Generator().manual_seed(0)
    args = tuple(torch.randn(a.shape, generator=generator, dtype=a.dtype)
                 if a.is_floating_point() else a for a in example)
    onnx_bytes, name = export_torch(probe, args if len(args) > 1
                                    else args[0], opset_version)
    placement = qat_placement(_quant_qdq.import_onnx(onnx_bytes, name),
                              quantization_mode, quantization_spec,
                              custom_qdq_cases, weight_bits, activation_bits)
    was_training = module.training
    gm = torch.fx.symbolic_trace(copy.deepcopy(module))
    traced = _capture(torch.fx.symbolic_trace(probe), args)

    import onnx
    graph = onnx.load_from_string(onnx_bytes).graph
    nodes = {n.name: n for n in graph.node}
    # ONNX tensor -> the readers that read it quantized.
    quantized: Dict[str, List[str]] = {}
    for layer, (positions, _) in placement.items():
        node = nodes.get(layer)
        if node is None:
            continue
        for i in positions:
            quantized.setdefault(node.input[i], []).append(layer)
    readers_out = [o for r in {r for rs in quantized.values() for r in rs}
                   for o in nodes[r].output[:1]]
    onnx_values, _ = _onnx_values(onnx_bytes,
                                  list(quantized) + readers_out, args)

    fx_nodes = list(gm.graph.nodes)
    order = {n: i for i, n in enumerate(fx_nodes)}

    def producer_of(tensor, layers):
        """The traced node computing `tensor`: among equal values (data
        movement that changes nothing), the one its readers read."""
        matches = sorted((n for n in fx_nodes if n.name in traced
                          and _same(onnx_values[tensor], traced[n.name])),
                         key=order.get)
        if not matches:
            raise QATPlacementError(
                "no node of the traced module computes the ONNX tensor "
                "'%s' that the placement quantizes" % tensor)
        for node in matches:
            if any(reader_in_fx(layer, list(node.users)) is not None
                   for layer in layers):
                return node
        return matches[0]

    def reader_in_fx(layer, users):
        """The fx user that is the ONNX node `layer`: by module path for
        layers with a module, else by the value it computes."""
        path = _module_path(layer, modules)
        for user in users:
            if user.op == "call_module" and user.target == path:
                return user
        value = onnx_values.get(nodes[layer].output[0])
        for user in users:
            if value is not None and user.name in traced \
                    and _same(value, traced[user.name]):
                return user
        return None

    modules = dict(gm.named_modules())
    inserted = {}
    for tensor, layers in quantized.items():
        producer = producer_of(tensor, layers)
        users = list(producer.users)
        chosen = []
        for layer in layers:
            user = reader_in_fx(layer, users)
            if user is None:
                # The reader is further down a chain of data movement
                # (flatten, reshape): quantize every use.
                chosen = users
                break
            chosen.append(user)
        if producer in inserted:
            # Several ONNX tensors with one producer (data movement that
            # changes nothing): one quantizer stands for them all.
            q = inserted[producer]
            modules[q.target].tensor_names.append(tensor)
        else:
            fq_name = ("%s_quantize" % producer.name).replace(".", "_")
            gm.add_submodule(fq_name, FakeQuantize(
                activation_bits, range_tracking=range_tracking,
                tensor_names=[tensor]))
            modules = dict(gm.named_modules())
            with gm.graph.inserting_after(producer):
                q = gm.graph.call_module(fq_name, (producer,))
            inserted[producer] = q
        for user in set(chosen) - {q}:
            user.replace_input_with(producer, q)

    for layer, (_, weight) in placement.items():
        if not weight:
            continue
        path = _module_path(layer, modules)
        target = modules.get(path)
        if isinstance(target, (torch.nn.Conv2d, torch.nn.Linear)):
            parent_path, _, child = path.rpartition(".")
            parent = modules[parent_path] if parent_path else gm
            setattr(parent, child, QuantizedWeights(target, weight_bits))
    gm.graph.lint()
    gm.recompile()
    # Export re-exports the user's own module (its ONNX names are the
    # placement's), with the trained weights.
    # (Kept out of the module tree: its parameters are not trained.)
    gm.__dict__["_qdq_original"] = copy.deepcopy(module)
    gm._qdq_settings = dict(
        quantization_mode=quantization_mode,
        quantization_spec=quantization_spec,
        custom_qdq_cases=custom_qdq_cases, weight_bits=weight_bits,
        activation_bits=activation_bits, example_input=example_input,
        opset_version=opset_version)
    gm.train(was_training)
    if calibration_data is not None:
        calibrate_ranges(gm, calibration_data, batch_size)
    return gm


def _quantizers(gm):
    return [m for m in gm.modules()
            if isinstance(m, (FakeQuantize, QuantizedWeights))]


def calibrate_ranges(gm: torch.fx.GraphModule, data, batch_size: int = 32):
    """Each FakeQuantize's range from the float model's largest |x| on
    `data` (a tensor or array of inputs), quantization off."""
    probes = [m for m in gm.modules() if isinstance(m, FakeQuantize)]
    maxima = {id(p): 0.0 for p in probes}

    def hook(probe, inputs, output):
        maxima[id(probe)] = max(maxima[id(probe)],
                                float(inputs[0].detach().abs().max()))

    handles = [p.register_forward_hook(hook) for p in probes]
    was_training = gm.training
    for m in _quantizers(gm):
        m.quantizing = False
    gm.eval()
    try:
        data = torch.as_tensor(np.asarray(data, np.float32))
        with torch.no_grad():
            for start in range(0, len(data), batch_size):
                gm(data[start:start + batch_size])
    finally:
        for h in handles:
            h.remove()
        for m in _quantizers(gm):
            m.quantizing = True
        gm.train(was_training)
    for p in probes:
        p.amax.fill_(maxima[id(p)])


def export_qat_module(gm: torch.fx.GraphModule, *, output=None,
                      integer_weights: bool = True):
    """QDQ ONNX of a module quantize_torch_model made, once trained: its
    trained weights in the user's module exported, Q/DQ placed as for
    training (propagation off),
    each with the range its FakeQuantize learned; weights per channel from
    their values. Returns an onnx.ModelProto, or writes `output`."""
    settings = getattr(gm, "_qdq_settings", None)
    if settings is None:
        raise TypeError("export_qat_module takes a module that "
                        "quantize_model(..., qat=True) returned")
    ranges = {}
    for m in gm.modules():
        if isinstance(m, FakeQuantize):
            amax = float(m.amax)
            for name in m.tensor_names:
                ranges[name] = TensorRange(amax=amax, min=-amax, max=amax)
    float_module = copy.deepcopy(gm._qdq_original)
    trained = gm.state_dict()
    weights = {}
    for key in float_module.state_dict():
        path, _, leaf = key.rpartition(".")
        wrapped = "%s.layer.%s" % (path, leaf) if path else key
        weights[key] = trained[key] if key in trained else trained[wrapped]
    float_module.load_state_dict(weights)
    float_module.eval()
    onnx_bytes, name = export_torch(float_module, settings["example_input"],
                                    settings["opset_version"])
    module = _quant_qdq.import_onnx(onnx_bytes, name)
    # Weight scales as training simulated them: max|w| / qmax, narrow.
    place_qdq(module, settings["quantization_mode"],
              settings["quantization_spec"], settings["custom_qdq_cases"],
              propagate=False, weight_bits=settings["weight_bits"],
              activation_bits=settings["activation_bits"], weight_scale="max")
    apply_table(module, CalibrationTable("max", ranges))
    if output is not None:
        return save_onnx(module, output, integer_weights=integer_weights)
    return export_onnx(module, integer_weights=integer_weights)
