# -*- Python -*- lit configuration of mpilift's end-to-end tests.
import os
import subprocess

import lit.formats

config.name = "mpilift"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".c", ".cpp", ".test"]
config.excludes = ["Inputs", "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mpilift_obj_root, "test")

bin_dir = os.path.join(config.mpilift_obj_root, "bin")
lib_dir = os.path.join(config.mpilift_obj_root, "lib")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ["HOME", "TMPDIR", "USER"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# A test that wants tracing says so on its own command line.
for var in ["MPILIFT_TRACE_DIR", "MPILIFT_TRACE_HASH", "MPILIFT_TRACE_FORCE",
            "LD_PRELOAD"]:
    config.environment.pop(var, None)

# Open MPI refuses to run as root without these, and needs --oversubscribe
# for more ranks than cores. They live here, not in each test. A run that
# deadlocks fails its test after 300 s instead of hanging the suite. The
# shared-memory point-to-point layer (pml ob1) is named so that no launch
# probes UCX first: 0.2 s less per launch on the CI machine. Two
# launchers starting at once can race on Open MPI's session directory:
# mpirun-retry.sh runs the launcher again then.
mpirun = (
    "timeout 300 "
    "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
    "OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1 "
    f"bash {os.path.join(config.test_source_root, 'Inputs', 'mpirun-retry.sh')} "
    f"{config.mpiexec} --oversubscribe --bind-to none")

config.substitutions.append(("%mpicc", f"{config.mpicc} -g -O0"))
config.substitutions.append(("%mpicxx", f"{config.mpicxx} -g -O0"))
config.substitutions.append(("%mpirun", mpirun))
config.substitutions.append(("%mpilift-run", os.path.join(bin_dir, "mpilift-run")))
config.substitutions.append(("%mpilift", os.path.join(bin_dir, "mpilift")))
config.substitutions.append(
    ("%tracelib", os.path.join(lib_dir, "libmpilift-trace.so")))
config.substitutions.append(("%libdir", lib_dir))
config.substitutions.append(
    ("%readelf", os.path.join(config.llvm_tools_dir, "llvm-readelf")))
config.substitutions.append(("%otf2-print", config.otf2_print or "otf2-print"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

config.substitutions.append(("%src_root", config.mpilift_src_root))
config.substitutions.append(
    ("%cdag_flags", "-I{0}/include -L{1} -lcdag -Wl,-rpath,{1}".format(
        config.mpilift_src_root, lib_dir)))
config.substitutions.append(("%obj_root", config.mpilift_obj_root))

import shutil
if shutil.which("clang-tidy-19") or os.path.exists("/usr/lib/llvm-19/bin/clang-tidy"):
    config.available_features.add("clang-tidy-19")
if shutil.which("clang-tidy-14"):
    config.available_features.add("clang-tidy-14")

if config.mpicc and os.path.exists(config.mpicc) and config.mpiexec:
    config.available_features.add("mpi")


def can_mount_tmpfs():
    """Disk-full tests mount a tiny tmpfs; that needs root and a kernel that
    lets this container mount."""
    if os.geteuid() != 0:
        return False
    probe = os.path.join(config.test_exec_root, "tmpfs-probe")
    os.makedirs(probe, exist_ok=True)
    ok = subprocess.call(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe],
                         stderr=subprocess.DEVNULL) == 0
    if ok:
        subprocess.call(["umount", probe])
    return ok


if can_mount_tmpfs():
    config.available_features.add("tmpfs")

# The fuzz smoke test needs clang 19 with its libFuzzer runtime
# (libclang-rt-19-dev, which scripts/install-deps.sh installs).
if os.path.exists("/usr/lib/llvm-19/bin/clang++") and os.path.exists(
        "/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a"):
    config.available_features.add("clang-fuzzer")

# check-rewrite.py: copy, build, `mpilift check --fix`, rebuild, and compare
# the outputs of the original and the rewritten program at several np.
config.substitutions.append(
    ("%check-rewrite",
     "python3 {0} --mpilift {1} --mpilift-run {2} --mpicc {3} --mpicxx {4} "
     "--mpirun '{5}'".format(
         os.path.join(config.test_source_root, "Inputs", "check-rewrite.py"),
         os.path.join(bin_dir, "mpilift"), os.path.join(bin_dir, "mpilift-run"),
         config.mpicc, config.mpicxx, mpirun)))
