"""Command line of the package: python -m quant_qdq COMMAND ...

    import-keras MODEL -o OUT.mlirbc [--batch-size N]
        The Keras model (.keras, .h5, SavedModel folder) as quant_qdq layer
        ops in MLIR bytecode: how qdq-opt and qdq-run read Keras models.
"""

import argparse
import os
import re
import sys
import threading
import warnings

from .keras import import_keras

# What TensorFlow's C++ libraries print on stderr when they load, whatever
# TF_CPP_MIN_LOG_LEVEL says: absl's notice that logging is not set up yet,
# and oneDNN's note that its kernels are on (each twice).
_START_UP_CHATTER = re.compile(
    r"WARNING: All log messages before absl::InitializeLog\(\) is called"
    r"|I\d{4} [\d:. ]+\d+ port\.cc:\d+\] oneDNN custom operations are on")


def verbose() -> bool:
    """QUANTQDQ_VERBOSE set to anything but "" or "0" (as the C++ side
    reads it)."""
    return os.environ.get("QUANTQDQ_VERBOSE", "") not in ("", "0")


def import_tensorflow_quietly() -> None:
    """Loads TensorFlow with its start-up chatter filtered out of stderr
    (everything else passes as it comes, so a crash while loading still
    says why), unless verbose(): a tool reading a Keras file should print
    what concerns the file."""
    if verbose():
        return
    sys.stderr.flush()
    saved = os.dup(2)
    read_end, write_end = os.pipe()

    def forward():
        with os.fdopen(read_end, "rb") as lines:
            for line in lines:
                if not _START_UP_CHATTER.match(line.decode(errors="replace")):
                    os.write(saved, line)

    forwarder = threading.Thread(target=forward, daemon=True)
    forwarder.start()
    os.dup2(write_end, 2)
    os.close(write_end)
    try:
        import tensorflow  # noqa: F401 - loaded for its side effect
    except ImportError:
        pass  # the import of the model says what is missing
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)  # closes the pipe's last write end: EOF
        forwarder.join()
        os.close(saved)


def import_keras_main(argv) -> int:
    """python -m quant_qdq import-keras MODEL -o OUT.mlirbc: what qdq-opt
    and qdq-run run to read a Keras model. Diagnostics name the model file;
    exit status 1 on failure, and no output file."""
    parser = argparse.ArgumentParser(
        prog="python -m quant_qdq import-keras",
        description="Imports a Keras model (.keras, .h5, SavedModel folder) "
                    "as quant_qdq layer ops, in MLIR bytecode.")
    parser.add_argument("model")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--batch-size", type=int, default=None)
    args = parser.parse_args(argv)

    def show_warning(message, category, filename, lineno, file=None,
                     line=None):
        sys.stderr.write("%s: warning: %s\n" % (args.model, message))

    warnings.showwarning = show_warning
    import_tensorflow_quietly()
    try:
        module = import_keras(args.model, batch_size=args.batch_size)
        data = module.to_bytecode()
    except Exception as error:  # Keras raises many kinds on a bad file.
        if isinstance(error, OSError) and error.strerror:
            text = error.strerror.lower()
        else:
            text = str(error)
            if text.startswith(args.model + ": "):
                text = text[len(args.model) + 2:]
        sys.stderr.write("%s: error: %s\n" % (args.model, text.rstrip()))
        return 1
    with open(args.output, "wb") as f:
        f.write(data)
    return 0


COMMANDS = {"import-keras": import_keras_main}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        sys.stderr.write("usage: python -m quant_qdq {%s} ...\n"
                         % ",".join(COMMANDS))
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
