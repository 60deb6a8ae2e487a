"""TFMOT's default 8-bit scheme: the QuantizeConfig of each built-in Keras
layer class, and the fusions that move a layer's output quantization past
what follows it.

Per class (TFMOT 0.8's registry, by Keras class name):

- Conv2D, DepthwiseConv2D: kernel per output channel, activation;
  Dense: kernel per tensor, activation;
- ReLU, Add, Concatenate, AveragePooling, GlobalAveragePooling,
  UpSampling2D: the output; Activation: the output of relu, relu6, swish
  and gelu, nothing for linear, softmax, sigmoid and tanh;
- Softmax: nothing; reshaping, padding, cropping, dropout and max pooling
  layers: nothing, their range is their input's;
- any other class (BatchNormalization that no fusion takes, LeakyReLU,
  Multiply, custom layers without a config): none; quantize_apply leaves
  it in float and warns, where TFMOT refuses the model.

Fusions, as TFMOT's transforms, for layers on the default config whose
output feeds only the next layer of the pattern:

- Conv2D/DepthwiseConv2D/Dense (linear) -> BatchNormalization: the
  convolution's output is not quantized, the batch norm's is;
- ... -> BatchNormalization -> ReLU (or a relu Activation): neither is, the
  ReLU's is;
- Conv2D/DepthwiseConv2D/Dense/Add -> ReLU: the ReLU quantizes the output;
- a layer feeding only a Concatenate leaves its output to the
  Concatenate.
"""

from .quantize_config import (ActivationQuantizeConfig, DefaultQuantizeConfig,
                              NoOpQuantizeConfig)

__all__ = ["default_config", "fuse", "PASS_THROUGH"]

_OUTPUT = ("ReLU", "Add", "Concatenate",
           "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalAveragePooling3D", "UpSampling2D")
PASS_THROUGH = ("Softmax", "Cropping1D", "Cropping2D", "Cropping3D",
                "ZeroPadding1D", "ZeroPadding2D", "ActivityRegularization",
                "Dropout", "SpatialDropout1D", "SpatialDropout2D",
                "SpatialDropout3D", "Flatten", "Permute", "Reshape",
                "GlobalMaxPooling1D", "GlobalMaxPooling2D",
                "GlobalMaxPooling3D", "MaxPooling2D")
# Per class, whether its kernel is quantized per output channel.
_WEIGHTED = {"Conv2D": True, "DepthwiseConv2D": True, "Dense": False}
_FUSED_INTO_BN = ("Conv2D", "DepthwiseConv2D", "Dense")
_FUSED_INTO_RELU = ("Conv2D", "DepthwiseConv2D", "Dense", "Add")


def default_config(layer):
    """The default scheme's QuantizeConfig for a (built) Keras layer, or
    None when its class has none."""
    class_name = type(layer).__name__
    if class_name in _WEIGHTED:
        # tf.keras names a depthwise kernel apart.
        attr = "depthwise_kernel" if hasattr(layer, "depthwise_kernel") \
            else "kernel"
        return DefaultQuantizeConfig([attr], ["activation"], False,
                                     _WEIGHTED[class_name])
    if class_name == "Activation":
        return ActivationQuantizeConfig()
    if class_name in _OUTPUT:
        return DefaultQuantizeConfig([], [], True)
    if class_name in PASS_THROUGH:
        return NoOpQuantizeConfig()
    return None


def _is_relu(layer):
    cls = type(layer).__name__
    if cls == "ReLU":
        return True
    return cls == "Activation" and getattr(
        layer.activation, "__name__", None) == "relu"


def _linear(layer):
    return getattr(getattr(layer, "activation", None), "__name__",
                   None) in (None, "linear")


def fuse(calls, configs, defaulted, annotated):
    """Applies the fusions to `configs` ({layer id: QuantizeConfig}), in
    place, for the layers in `defaulted` (ids on the default config); a
    batch norm joins a fusion when it is `annotated` without a config of
    its own. `calls` is [(layer, [producer layers])] in graph order."""
    consumers = {}
    for layer, producers in calls:
        for producer in producers:
            consumers.setdefault(id(producer), []).append(layer)

    def sole_consumer(layer):
        readers = consumers.get(id(layer), [])
        return readers[0] if len(readers) == 1 else None

    def default(layer):
        return id(layer) in defaulted

    def quantize_output_after(layer):
        configs[id(layer)] = configs[id(layer)].without_output_quantization()

    for layer, producers in calls:
        cls = type(layer).__name__
        if not default(layer):
            continue
        if cls in _FUSED_INTO_BN and _linear(layer):
            bn = sole_consumer(layer)
            if bn is not None and type(bn).__name__ == "BatchNormalization" \
                    and id(bn) in annotated and id(bn) not in configs:
                quantize_output_after(layer)
                relu = sole_consumer(bn)
                if relu is not None and _is_relu(relu) and default(relu):
                    configs[id(bn)] = NoOpQuantizeConfig()
                else:
                    configs[id(bn)] = DefaultQuantizeConfig([], [], True)
                defaulted.add(id(bn))
        if _is_relu(layer):
            for producer in producers:
                if type(producer).__name__ in _FUSED_INTO_RELU and \
                        default(producer) and \
                        sole_consumer(producer) is layer:
                    quantize_output_after(producer)
        if cls == "Concatenate":
            for producer in producers:
                config = configs.get(id(producer))
                if isinstance(config, (DefaultQuantizeConfig,
                                       ActivationQuantizeConfig)) and \
                        default(producer) and \
                        sole_consumer(producer) is layer:
                    quantize_output_after(producer)
