"""The package's layers (docs/Architecture.md): every import goes down.

Each module has a layer; a module imports only modules of its own layer or
below (function-level imports included), the import graph has no cycle,
and no module imports another's private names. A subpackage's __init__,
which runs before any of its modules, sits no higher than they do: it
cannot reach above the subpackage's front end. A new module must be given
its layer here. And `import quant_qdq` loads no framework (torch, Keras,
TensorFlow): only the training modules do.

One reach upwards is by design and not an import: the `keras` package
names TFMOT's API (quant_qdq.keras.quantize_apply, ...), which sits in the
training layer, as attributes loaded on first use (PEP 562 __getattr__),
never when the package is imported; test_lazy_names_resolve checks them.
"""

import ast
import os
import subprocess
import sys

import pytest

import quant_qdq

# Lowest first. The extension, the package root (the facade that names
# everything) and the deprecated aliases of old module names are placed
# too.
LAYERS = [
    ("foundation", ["_quant_qdq", "_version", "_diagnostics", "_arrays",
                    "_options"]),
    ("model", ["ir", "graph", "spec", "layer_defaults"]),
    ("front ends and cases", [
        "custom_qdq_cases",
        "keras", "keras.models", "keras.mlir_text", "keras.graph_walk",
        "keras.emitter", "keras.layer_translator", "keras.importer",
        "keras.qat_layers", "keras.quantizers", "keras.quantize_config",
        "keras.quantize_wrapper", "keras.quantized_import",
        "keras.nvidia_wrappers", "keras.saved_graph", "keras.tf_ops",
        "torch", "torch.export", "torch.qat_modules"]),
    ("any model", ["loading"]),
    ("running models", ["calibration", "compare", "number_formats"]),
    ("placement", ["placement"]),
    ("accuracy to a budget", ["precision"]),
    ("training", ["keras.qat", "keras.default_scheme", "keras.tfmot",
                  "torch.qat"]),
    ("quantize_model", ["quantize"]),
    ("facade", ["", "__main__", "keras_import", "keras_qat", "torch_qat"]),
]
LAYER_OF = {name: i for i, (_, names) in enumerate(LAYERS) for name in names}

# Names that moved up and that their old module still resolves, on use and
# with a DeprecationWarning, for one release: (module, module imported).
DEPRECATED_ALIASES = {("ir", "loading")}

# Frameworks that `import quant_qdq` must not import: a user of ONNX models
# needs none of them, and TensorFlow and torch do not share a process well.
FRAMEWORKS = ("torch", "keras", "tensorflow", "tf_keras")


def package_modules(root):
    """{dotted name relative to the package ('' the root): path}."""
    modules = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        relative = os.path.relpath(folder, root)
        parts = [] if relative == "." else relative.split(os.sep)
        for file in files:
            if not file.endswith(".py"):
                continue
            stem = file[:-3]
            name = ".".join(parts + ([] if stem == "__init__" else [stem]))
            modules[name] = os.path.join(folder, file)
    return modules


def _resolve(module, is_package, level, target):
    """The package-relative name `from <level dots><target>` names in
    `module`, or None outside the package."""
    if level == 0:
        if target != "quant_qdq" and not target.startswith("quant_qdq."):
            return None
        return target[len("quant_qdq."):] if "." in target else ""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(module, path, known):
    """[(imported module, imported names, line)] of `module`, everywhere
    in its code."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    is_package = path.endswith("__init__.py")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(module, is_package, 0, alias.name)
                if target is not None:
                    found.append((target, [], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node.level,
                              node.module or "")
            if target is None:
                continue
            names = []
            for alias in node.names:
                submodule = ".".join(filter(None, [target, alias.name]))
                if submodule in known:
                    found.append((submodule, [], node.lineno))
                else:
                    names.append(alias.name)
            if names:
                found.append((target, names, node.lineno))
    return found


def check_layering(root):
    """The violations of the layering in the package at `root`."""
    modules = package_modules(root)
    known = set(modules) | {"_quant_qdq"}
    problems = []
    for name in sorted(set(modules) - set(LAYER_OF)):
        problems.append("module '%s' has no layer in test_layering.LAYERS"
                        % name)
    # A subpackage's __init__ runs before any of its modules: it must sit
    # no higher than they do (and, by the rule below, import nothing
    # higher), or importing a low module would run a high one.
    for module in sorted(modules):
        parent = module.rsplit(".", 1)[0] if "." in module else ""
        if parent and LAYER_OF.get(parent, 0) > LAYER_OF.get(module, 0):
            problems.append("package '%s' sits above its module '%s'"
                            % (parent, module))
    graph = {}
    for module, path in modules.items():
        graph[module] = set()
        for target, names, line in imports_of(module, path, known):
            where = "%s:%d" % (os.path.relpath(path, root), line)
            if target not in known:
                problems.append("%s imports '%s', not a module of the "
                                "package" % (where, target))
                continue
            if (module, target) in DEPRECATED_ALIASES:
                continue
            graph[module].add(target)
            for imported in names:
                if imported.startswith("_") and target != module:
                    problems.append("%s imports the private name %s of '%s'"
                                    % (where, imported, target))
            low, high = LAYER_OF.get(target), LAYER_OF.get(module)
            if low is not None and high is not None and low > high:
                problems.append(
                    "%s: '%s' (%s) imports '%s' of the higher layer '%s'"
                    % (where, module, LAYERS[high][0], target,
                       LAYERS[low][0]))
    problems.extend(_cycles(graph))
    return problems


def _cycles(graph):
    """One message per import cycle found by a depth-first walk."""
    state, stack, found = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if state.get(succ) == "open":
                cycle = stack[stack.index(succ):] + [succ]
                found.append("import cycle: " + " -> ".join(
                    m or "quant_qdq" for m in cycle))
            elif succ not in state:
                visit(succ)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_every_import_goes_down():
    root = os.path.dirname(quant_qdq.__file__)
    assert check_layering(root) == []


def test_no_framework_is_imported():
    """`import quant_qdq` and its front ends' packages load no framework:
    the training modules, which do, are imported on their own."""
    code = ("import sys, quant_qdq, quant_qdq.keras, quant_qdq.torch; "
            "print(sorted(set(sys.modules) & set(%r)))" % (FRAMEWORKS,))
    result = subprocess.run([sys.executable, "-c", code], check=True,
                            capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.path.dirname(
                                os.path.dirname(quant_qdq.__file__))))
    assert result.stdout.strip() == "[]"


def test_ir_load_module_is_deprecated():
    import quant_qdq.ir
    with pytest.warns(DeprecationWarning, match="now quant_qdq.load_module"):
        assert quant_qdq.ir.load_module is quant_qdq.load_module


if __name__ == "__main__":
    # python test_layering.py PACKAGE_DIR: check another copy (an older
    # tree, say) and list what it breaks.
    problems = check_layering(sys.argv[1])
    print("\n".join(problems))
    sys.exit(1 if problems else 0)


def test_lazy_names_resolve():
    """The keras package's lazily loaded names are modules of the package
    with a layer that define them (read, not imported: some import Keras,
    which this process must not load)."""
    import quant_qdq.keras as package
    modules = package_modules(os.path.dirname(quant_qdq.__file__))
    for name, (module, attribute) in package._TFMOT_NAMES.items():
        assert "keras." + module in LAYER_OF, module
        if attribute is not None:
            with open(modules["keras." + module]) as f:
                tree = ast.parse(f.read())
            defined = {node.name for node in tree.body if isinstance(
                node, (ast.FunctionDef, ast.ClassDef))}
            defined |= {alias.asname or alias.name for node in tree.body
                        if isinstance(node, ast.ImportFrom)
                        for alias in node.names}
            assert attribute in defined, (name, module)
