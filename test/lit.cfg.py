# lit configuration for the mirage-mlir regression suite.
import os
import lit.formats

config.name = "mirage"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".c"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mirage_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.mirage_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
for var in ("MIRAGE_REMARKS", "MIRAGE_PROGRESS", "MIRAGE_STATS"):
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
config.substitutions.append(("%mlir_translate", os.path.join(config.llvm_tools_dir, "mlir-translate")))
