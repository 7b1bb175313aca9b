#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Self-test of check_layering.py (ctest abi-layering-selftest).

    test_check_layering.py CHECKER

Builds small source trees in a temporary directory and runs the checker on them:
  - a clean tree, which uses every permission the rules grant (allowed includes, a .def read by a
    module DEFS names, kfd's ioctl, a terminal ioctl, family names in arch/, tests/ and in
    comments, build trees and hidden folders the checker must skip), must exit 0;
  - the same tree with one violation of each rule added must exit 1 and report each violation
    as file:line with its rule, and nothing else.
Exits 0 if every expectation holds, 1 with the differences otherwise.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from selftest_tree import compare, load, run, write  # noqa: E402


# A tree that follows every rule, and uses what the rules allow.
CLEAN = {
    "base/gc_util.h": "#include <stdint.h>\n#include <gpucore/status.h>\n",
    "base/include/gpucore/status.h": "/* the status type */\n",
    "schema/schema_internal.h": '#include "gc_util.h"\n#include "schema_layouts.def"\n',
    "schema/include/gpucore/schema.h": "#include <gpucore/status.h>\n",
    "schema/gc_hsa_tools.h": "/* the runtime's tools ABI */\n",
    "arch/arch.h": '#include "gc_util.h"\n',
    # arch names families in code and strings
    "arch/disasm.c": "#include <llvm/Config/llvm-config.h>\n#include <llvm-c/Disassembler.h>\n",
    "arch/arch_tables.c": '#include "arch.h"\nstatic const char *n = "gfx90a";\n'
                          "int gc_ttmp_gfx9;\n",
    "kfd/kfd_uapi.h": "#define AMDKFD_IOC_DBG_TRAP 1\n",
    "kfd/kfd_sim_protocol.h": '#include "kfd_uapi.h"\n',
    "kfd/kfd_linux.c": '#include "kfd_uapi.h"\n#include "gc_util.h"\n'
                       "int f(int fd) { return ioctl(fd, AMDKFD_IOC_DBG_TRAP, 0); }\n",
    "kfd/sim/driver.c": '#include "kfd_sim_protocol.h"\n#include "arch.h"\n',
    "kfd/sim/runtime.c": '#include "gc_hsa_tools.h"\n',
    "kfd/sim/inferior.c": "void h(int fd) { ioctl(fd, AMDKFD_IOC_RUNTIME_ENABLE, 0); }\n",
    "libcore/core_writer.c": '#include <gpucore/schema.h>\n#include "gc_util.h"\n',
    "capture/capture.c": '#include "kfd_uapi.h"\n#include "arch.h"\n'
                         "/* a comment may name gfx942 and call ioctl(fd, X) */\n"
                         'static const char *s = "ioctl(AMDKFD_IOC_WAIT_EVENTS)";\n',
    # naming __NR_ioctl in a seccomp filter is no call
    "capture/tree_filter.c": "static const int nr = __NR_ioctl;\n",
    "capture/hook/hook.c": '#include "gc_hsa_tools.h"\n#include <stdio.h>\n',
    "analyze/triage.h": '#include "arch.h"\n',
    "dbgapi/dbgapi.c": '#include "statuses.def"\n#include "abi_table.def"\n'
                       "// gfx12 keeps its halt bit elsewhere\n",
    "dbgapi/include/amd-dbgapi/amd-dbgapi.h": "/* AMD's public interface */\n",
    "dbgapi/dbgapi_internal.h": '#include "amd-dbgapi/amd-dbgapi.h"\n#include "triage.h"\n',
    "libcore/include/gpucore/core.h": "#include <gpucore/status.h>\n",
    "cli/cli.h": "#include <gpucore/core.h>\n#include \"triage.h\"\n",
    # the dump: the public header, its table, libgpucore's public headers and cli.h
    "cli/dbgapi-dump/cmd_dbgapi_dump.c": '#include <amd-dbgapi/amd-dbgapi.h>\n'
                                         '#include "abi_table.def"\n'
                                         '#include <gpucore/core.h>\n#include "cli.h"\n',
    "cli/progress.c": "#include <sys/ioctl.h>\n"
                      "int w(void) { struct winsize ws; return ioctl(2, TIOCGWINSZ, &ws); }\n",
    "tests/unit/test_x.c": '#include "kfd_linux.h"\n#include "statuses.def"\n'
                           '#include "schema_layouts.def"\nstatic const char *t = "gfx1100";\n'
                           "int g(void) { return syscall(__NR_ioctl, 0, 1, 0); }\n",
    "tests/hook/test_layout.cpp": '#include "gc_hsa_tools.h"\n',
    "bench/bench_core.c": '#include "kfd_sim_protocol.h"\n#include "triage.h"\n'
                          "/* MI300X */ static const char *b = \"gfx942\";\n",
    # skipped: a build tree and a hidden folder
    "build/CMakeCache.txt": "",
    "build/CMakeFiles/CMakeCCompilerId.c": "int ioctl_here(void) { return ioctl(0, 1); }\n",
    ".ci/scratch.c": "int z(void) { return ioctl(0, 1); }\n",
}

# (file, text to add, rule, line the report must name)
VIOLATIONS = [
    ("newmodule/thing.c", "int x;\n", "folder", 1),
    ("capture/plan.c", "int a;\n#include \"triage.h\"\n", "include", 2),
    ("base/util.c", "/* base */\n#include <gpucore/schema.h>\n", "include", 2),
    ("capture/hook/hook_args.c", '#include "gc_util.h"\n', "include", 1),
    ("kfd/kfd.c", '#include "kfd_uapi.h"\n#include "arch.h"\n', "include", 2),
    ("cli/arch.h", "/* a second arch.h */\n", "name", 1),
    ("tests/unit/gc_util.h", "/* tests/ is checked too */\n", "name", 1),
    ("analyze/image.c", "\n\n#include \"kfd_note.def\"\n", "def", 3),
    ("cli/cmd_x.c", '#include "statuses.def"\n', "def", 1),
    # the dump reaches the library through its public header only, and nothing else of gpucore
    ("cli/dbgapi-dump/dump_wave.c",
     '#include <amd-dbgapi/amd-dbgapi.h>\n#include "dbgapi_internal.h"\n', "include", 2),
    ("cli/dbgapi-dump/dump_triage.c", '#include "triage.h"\n', "include", 1),
    ("cli/dbgapi-dump/dump_status.c", '#include "statuses.def"\n', "def", 1),
    # no component includes the library, not even its header
    ("cli/cmd_y.c", '#include "amd-dbgapi/amd-dbgapi.h"\n', "include", 1),
    ("analyze/image_dbg.c", '#include "dbgapi_internal.h"\n', "include", 1),
    ("schema/new_table.def", "X(a)\n", "def", 1),
    ("capture/attach.c", "int k(int fd)\n{\n    return ioctl(fd, AMDKFD_IOC_DBG_TRAP, 0);\n}\n",
     "ioctl", 3),
    ("analyze/host.c", "long q(void) { return syscall(SYS_ioctl, 3, 7, 0); }\n", "ioctl", 1),
    ("bench/bench_kfd.c", "int b2(void) { return ioctl(3, AMDKFD_IOC_DBG_TRAP, 0); }\n",
     "ioctl", 1),
    ("analyze/srcline_x.c", "#include <stdio.h>\n#include <llvm-c/Disassembler.h>\n", "llvm", 2),
    ("cli/cmd_disasm.c", "#include <llvm/Config/llvm-config.h>\n", "llvm", 1),
    ("analyze/triage_x.c", "/* ok: gfx90a */\nint y = strcmp(n, \"gfx90a\");\n", "family", 2),
    ("dbgapi/dbgapi_ttmp.c", "\nconst void *r = &gc_ttmp_gfx940;\n", "family", 2),
    ("kfd/sim/layout.c", "// ok\nint mi = MI300X_XCCS;\n", "family", 2),
    ("cli/cmd_info.c", "#define FAMILY \"RDNA3\"\n", "family", 1),
]

def make_tree(root, defs, violations):
    for rel, text in CLEAN.items():
        write(root, rel, text)
    for rel in defs:  # every .def the checker's table names
        if not os.path.exists(os.path.join(root, rel)):
            write(root, rel, "/* table */\n")
    for rel, text, _, _ in violations:
        write(root, rel, text)


def main(argv):
    if len(argv) != 2:
        print("usage: test_check_layering.py CHECKER", file=sys.stderr)
        return 2
    checker = argv[1]
    defs = load(checker, "check_layering").DEFS
    for rel, _, _, _ in VIOLATIONS:  # each violation is a file of its own
        assert rel not in CLEAN and rel not in defs, rel
    failures = []
    tmp = tempfile.mkdtemp(prefix="layering-selftest-")
    try:
        clean = os.path.join(tmp, "clean")
        make_tree(clean, defs, [])
        rc, out = run(checker, clean)
        if rc != 0:
            failures.append(f"clean tree: exit {rc}, expected 0:\n{out}")

        dirty = os.path.join(tmp, "dirty")
        make_tree(dirty, defs, VIOLATIONS)
        rc, out = run(checker, dirty)
        if rc != 1:
            failures.append(f"tree with violations: exit {rc}, expected 1")
        failures += compare(out, VIOLATIONS)
        if failures:
            failures.append("checker output:\n" + out)

        # A .def the table names but the tree lacks is reported too (a stale table).
        missing = sorted(defs)[0]
        os.remove(os.path.join(clean, missing))
        rc, out = run(checker, clean)
        if rc != 1 or f"{missing}:1: [def]" not in out:
            failures.append(f"a missing {missing} is not reported (exit {rc}):\n{out}")
    finally:
        shutil.rmtree(tmp)

    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"check_layering.py: clean tree accepted, {len(VIOLATIONS)} violations of "
          f"{len({v[2] for v in VIOLATIONS})} rules reported with file:line")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
