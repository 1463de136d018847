# lit configuration for the mirage-mlir regression suite.
import os
import shutil
import lit.formats

config.name = "mirage"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mirage_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.mirage_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
for var in ("MIRAGE_REMARKS", "MIRAGE_PROGRESS", "MIRAGE_STATS", "MIRAGE_DUMP_DOT"):
    config.environment.pop(var, None)
# Every JIT run compiles for the architecture's baseline CPU, so no test can
# pass only because the host converts f16/bf16 natively (a suite green on
# one machine failed on another); `lit --param jit_cpu=host` runs on the
# host CPU instead.
config.environment["MIRAGE_JIT_CPU"] = lit_config.params.get("jit_cpu", "baseline")
# Searches must not read or fill the user's cache.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")

config.substitutions.append(("%mirage_src", config.mirage_src_root))
config.substitutions.append(("%mirage_plugin", config.mirage_plugin))
config.substitutions.append(("%ugraph_irdl", os.path.join(config.mirage_src_root, "dialects", "ugraph.irdl.mlir")))
config.substitutions.append(("%shlibext", ".so"))
mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
config.substitutions.append(("%mlir_opt", mlir_opt))
# Stock mlir-opt as it is, for tests that load no plugin into it (the
# sanitized run's %mlir_opt preloads the sanitizer runtime, below).
config.substitutions.append(("%stock_mlir_opt", mlir_opt))
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
# The PTX pipeline links libdevice from the CUDA toolkit next to ptxas.
if config.ptxas and os.path.exists(config.ptxas):
    config.substitutions.append(("%ptxas", config.ptxas))
    toolkit = os.path.dirname(os.path.dirname(config.ptxas))
    if os.path.exists(os.path.join(toolkit, "nvvm", "libdevice", "libdevice.10.bc")):
        config.available_features.add("libdevice")
        config.substitutions.append(("%cuda_toolkit", toolkit))
import sys
config.substitutions.append(("%python", sys.executable))
# The shared cache's tests start their own redis-server on a free loopback
# port (test/search/Inputs/with_redis.py).
if config.mirage_have_hiredis in ("1", "TRUE", "ON", "YES") and shutil.which("redis-server"):
    config.available_features.add("redis")

# The MPI search's tests run `%mpirun -np 2` on this machine (MPI in the
# build and mpirun on PATH). Open MPI refuses root without the two
# variables, and more ranks than cores without --oversubscribe.
mpirun = shutil.which("mpirun")
if config.mirage_have_mpi in ("1", "TRUE", "ON", "YES") and mpirun:
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    # Shared memory between ranks on one machine; no network probing.
    config.environment["OMPI_MCA_btl"] = "self,vader"
    config.substitutions.append(("%mpirun", mpirun + " --oversubscribe"))

config.substitutions.append(("%mlir_translate", os.path.join(config.llvm_tools_dir, "mlir-translate")))

# Sanitized builds (cmake -DMIRAGE_SANITIZE=address,undefined: build-asan/
# of scripts/test.sh; docs/testing.md). Every report aborts the program, so
# `not mirage-opt ...` and `echo "exit $?"` lines cannot mistake a report
# for an expected failure. LeakSanitizer skips only upstream allocations
# (scripts/lsan.supp). Options in the caller's environment come last and
# win. ORDER SANITIZER OPTIONS: scripts/test.sh sets the same for ctest.
sanitize = getattr(config, "mirage_sanitize", "")
if sanitize:
    supp = os.path.join(config.mirage_src_root, "scripts", "lsan.supp")
    sanitizer_defaults = {
        "ASAN_OPTIONS": "abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1"
                        ":check_initialization_order=1:strict_string_checks=1",
        "UBSAN_OPTIONS": "abort_on_error=1:halt_on_error=1:print_stacktrace=1",
        "LSAN_OPTIONS": "suppressions=" + supp + ":print_suppressions=0",
        "TSAN_OPTIONS": "abort_on_error=1:halt_on_error=1",
    }
    for var, value in sanitizer_defaults.items():
        if os.environ.get(var):
            value += ":" + os.environ[var]
        config.environment[var] = value
    features = {"address": "asan", "undefined": "ubsan", "thread": "tsan"}
    for s in sanitize.split(","):
        config.available_features.add(features.get(s, s))

    # The plugin tests load the instrumented plugin into stock mlir-opt-22,
    # which is not instrumented: the sanitizer runtime must be the first
    # library of the process. `mlir-opt` and %mlir_opt run through a wrapper
    # that preloads it.
    runtime = getattr(config, "mirage_sanitizer_runtime", "")
    if runtime and os.path.exists(runtime):
        wrap_dir = os.path.join(config.test_exec_root, "sanitizer-bin")
        os.makedirs(wrap_dir, exist_ok=True)
        wrapper = os.path.join(wrap_dir, "mlir-opt")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n# Stock mlir-opt with the sanitizer runtime preloaded (test/lit.cfg.py).\n"
                    'LD_PRELOAD="%s${LD_PRELOAD:+:$LD_PRELOAD}" exec "%s" "$@"\n'
                    % (runtime, os.path.join(config.llvm_tools_dir, "mlir-opt")))
        os.chmod(wrapper, 0o755)
        config.environment["PATH"] = os.pathsep.join([wrap_dir, config.environment["PATH"]])
        config.substitutions = [(k, wrapper if k == "%mlir_opt" else v)
                                for k, v in config.substitutions]

    # AddressSanitizer reserves terabytes of address space for its shadow,
    # so `ulimit -v N` (test/search/memory-bound.mlir, huge-batch.mlir) would
    # kill every run. Under ASan the allocator keeps the same bound instead:
    # an allocation above N KiB returns NULL, as under the ulimit, and a
    # resident set above N KiB ends the run.
    if "address" in sanitize:
        config.substitutions.insert(0, (
            r"\bulimit -v (?=[0-9]+;)",
            'asan_ulimit_v() { export ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1'
            ':max_allocation_size_mb=$(($1 / 1024)):hard_rss_limit_mb=$(($1 / 1024))"; }; asan_ulimit_v '))

    # No test's result depends on wall-clock time (docs/testing.md): a
    # search in a test is bounded by work (max-states, sizes, limits), never
    # by a time budget that a loaded or sanitized machine would hit first.
    # Heavy tests are left out of the sanitized run in the test itself
    # (`// UNSUPPORTED: asan`, saying which sanitized tests run its paths).
