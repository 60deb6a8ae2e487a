# The environment both lit suites (test/lit.cfg.py, test/Unit/lit.cfg.py)
# give their processes in the sanitizer build (make sanitize).
import os


def set_sanitizer_environment(config):
    """In the sanitizer build, the tools and the unit tests link the shared
    ASan/UBSan runtime. What the interpreter and its libraries keep at exit
    is not a leak of ours (test/lsan.supp). LLVM's allocators poison free
    space only in code built with ASan (ours), not in Debian's libMLIR,
    which would be reported using a slab our code poisoned: user poisoning
    is off."""
    if not config.qdq_sanitizer_runtime:
        return
    config.available_features.add("sanitizer")
    config.environment["ASAN_OPTIONS"] = (
        "allow_user_poisoning=0:verify_asan_link_order=0")
    config.environment["LSAN_OPTIONS"] = (
        "suppressions=%s:print_suppressions=0" %
        os.path.join(config.qdq_src_root, "test", "lsan.supp"))
    config.environment["ASAN_SYMBOLIZER_PATH"] = os.path.join(
        config.llvm_tools_dir, "llvm-symbolizer")
