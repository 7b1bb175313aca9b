#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Self-test of check_layout_homes.py (ctest abi-layout-homes-selftest).

    test_check_layout_homes.py CHECKER

Builds small source trees in a temporary directory and runs the checker on them:
  - a clean tree, which spells the layouts only in their home and uses them elsewhere by name
    (and by hand in tests/, in comments, and with numbers the rules do not mean), must exit 0;
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


# A tree that follows every rule.
CLEAN = {
    "schema/gc_rocr.h": "#define GC_ROCR_AMDQ_SIZE 256u\n#define GC_ROCR_AMDQ_READ_DISPATCH_ID 128u\n",
    "schema/rocr.c": "int at(unsigned long rptr) { return rptr - 128 > 0; }\n"
                     "void l(unsigned long *lo, unsigned long rptr) { *lo = (rptr - 128) & ~63; "
                     "sz = 256 + 64; }\nint f(const char *aq) { return aq + 140 != 0; }\n",
    "capture/plan.c": "/* amd_queue_t is at read_pointer_address - 128 (comments may say so) */\n"
                      "x = aq + GC_ROCR_AMDQ_SIZE;\ny = buf + 128;\nz = rptr - off;\n",
    "kfd/sim/layout.c": "put(p + 8, 0, 8); /* r_debug + 8 in a comment is no code */\n",
    "schema/include/gpucore/schema.h": "#define GPUCORE_KFD_QUEUE_ID_MASK 0x3fffffffu\n",
    "kfd/kfd.h": "#define GC_KFD_QUEUE_ID_MASK 0x3fffffffu /* a queue id */\n",
    "kfd/emu/emu_cp.c": "n = (dw[1] & 0x3fffffffu) + 1; /* an SDMA count, no queue id */\n",
    # tests lay out hostile bytes by hand on purpose
    "tests/unit/test_x.c": "#define AMDQ_BASE 0x300000000000ull\nq.rp = AMDQ_BASE + 128;\n"
                           "put(aq + 56, 1, 8);\n",
    "bench/bench_x.c": "#define AMDQ_SIZE 256\n",
}

# (file, text, rule, line the report must name)
VIOLATIONS = [
    ("analyze/image_internal.h", "/* amd_queue_t */\n#define GC_AMDQ_READ_ID 128u\n",
     "amdq-define", 2),
    ("kfd/sim/queue.h", "#  define SIM_AMD_QUEUE_SIZE 256\n", "amdq-define", 1),
    ("kfd/sim/writer.c", "void w(uint8_t *aq)\n{\n    put(aq + 140, tmpring, 4);\n}\n",
     "amdq-offset", 3),
    ("kfd/emu/emu_q.c", "r = read(vm, lq->amd_queue + 0xa0, &s, 8);\n", "amdq-offset", 1),
    ("capture/ingest.c", "\nuint64_t lo = q->read_pointer_address - 128;\n", "amdq-rptr", 2),
    ("kfd/emu/emu_rd.c", "base = q->rptr_addr -128u;\n", "amdq-rptr", 1),
    ("capture/keep.c", "st = add(r, amd_queue_lo, 256 + 64);\n", "amdq-lines", 1),
    ("analyze/lines.c", "lo = amdq & ~63ull;\n", "amdq-lines", 1),
    ("capture/host_core.c", "st = keep(ret, r_debug, 40, exact);\n", "rdebug-size", 1),
    ("capture/host_walk.c", "#define LINK_MAP_SIZE 40u\n", "rdebug-size", 1),
    ("capture/host_map.c", "x = read(user, r_debug + 8, e, 8);\n", "rdebug-offset", 1),
    ("analyze/triage_q.c", "id = q->queue_id & 0x3fffffffu;\n", "queue-id-mask", 1),
    ("dbgapi/dbgapi_q.c", "#define QUEUE_ID_MASK 0x3FFFFFFF\n", "queue-id-mask", 1),
]

def make_tree(root, violations):
    for rel, text in CLEAN.items():
        write(root, rel, text)
    for rel, text, _, _ in violations:
        write(root, rel, text)


def main(argv):
    if len(argv) != 2:
        print("usage: test_check_layout_homes.py CHECKER", file=sys.stderr)
        return 2
    checker = argv[1]
    rules = {row[0] for row in load(checker, "check_layout_homes").HOMES}
    failures = []
    for rel, _, rule, _ in VIOLATIONS:  # each violation is a file of its own, of a known rule
        assert rel not in CLEAN, rel
        assert rule in rules, rule
    missing = rules - {v[2] for v in VIOLATIONS}
    if missing:
        failures.append(f"no violation exercises rule(s) {sorted(missing)}")
    tmp = tempfile.mkdtemp(prefix="layout-homes-selftest-")
    try:
        clean = os.path.join(tmp, "clean")
        make_tree(clean, [])
        rc, out = run(checker, clean)
        if rc != 0:
            failures.append(f"clean tree: exit {rc}, expected 0:\n{out}")

        dirty = os.path.join(tmp, "dirty")
        make_tree(dirty, VIOLATIONS)
        rc, out = run(checker, dirty)
        if rc != 1:
            failures.append(f"tree with violations: exit {rc}, expected 1")
        failures += compare(out, VIOLATIONS)
    finally:
        shutil.rmtree(tmp)
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"check_layout_homes.py: clean tree passes, {len(VIOLATIONS)} violations of "
          f"{len(rules)} rules reported")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
