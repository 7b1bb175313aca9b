/* SPDX-License-Identifier: MIT */
/*
 * check_core_stacks CORE [SKIP_TID...]: every thread of a unified core has the memory at its
 * stack pointer in the core, so a debugger can unwind it.
 *
 * For each NT_PRSTATUS note (owner "CORE"), pr_pid and rsp (x86-64 pr_reg) are taken and the
 * 64 bytes from rsp are read with gpucore_core_read. Threads named on the command line (the
 * simulated driver's service thread, whose registers are taken after memory) are reported but
 * not required. Prints one line per thread ("tid N sp 0x...: in the core" / "missing"), exits 0
 * when every required thread's stack is there, 1 when one is missing or there are no threads,
 * 2 on usage or open errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/core.h>

#define NT_PRSTATUS 1u
#define PRS_PID 32u
#define PRS_RSP (112u + 152u)
#define PRSTATUS_SIZE 336u

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int main(int argc, char **argv)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d = { 0 };
    struct gpucore_note note;
    uint32_t idx = 0, threads = 0, missing = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: check_core_stacks CORE [SKIP_TID...]\n");
        return 2;
    }
    if (gpucore_core_open(argv[1], NULL, &core, &d) != GPUCORE_OK) {
        fprintf(stderr, "check_core_stacks: %s: %s\n", argv[1], d.message);
        return 2;
    }
    while (gpucore_core_find_note(core, "CORE", NT_PRSTATUS, &idx, &note) == GPUCORE_OK) {
        const uint8_t *p = note.desc;
        uint32_t tid;
        uint64_t sp;
        uint8_t buf[64];
        int skip = 0, ok;

        idx++;
        if (note.desc_size < PRSTATUS_SIZE) {
            fprintf(stderr, "check_core_stacks: %s: NT_PRSTATUS of %" PRIu64 " bytes\n", argv[1],
                    (uint64_t)note.desc_size);
            gpucore_core_close(core);
            return 1;
        }
        tid = (uint32_t)(p[PRS_PID] | p[PRS_PID + 1] << 8 | p[PRS_PID + 2] << 16 |
                         (uint32_t)p[PRS_PID + 3] << 24);
        sp = le64(p + PRS_RSP);
        for (int i = 2; i < argc; i++)
            skip |= strtoul(argv[i], NULL, 10) == tid;
        ok = gpucore_core_read(core, sp, buf, sizeof(buf), NULL) == GPUCORE_OK;
        printf("tid %" PRIu32 " sp 0x%" PRIx64 ": %s%s\n", tid, sp, ok ? "in the core" : "missing",
               skip ? " (not required)" : "");
        threads++;
        missing += !ok && !skip;
    }
    gpucore_core_close(core);
    if (threads == 0) {
        fprintf(stderr, "check_core_stacks: %s: no NT_PRSTATUS note\n", argv[1]);
        return 1;
    }
    return missing ? 1 : 0;
}
