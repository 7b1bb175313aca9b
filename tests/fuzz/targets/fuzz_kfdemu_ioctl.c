/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the emulated amdkfd (kfd/emu: gc_kfd_emu): every call a program under
 * gpucore-kfdemu can make on /dev/kfd and on the render node, with hostile arguments and a
 * hostile process memory behind the pointers, and the command processor running whatever
 * queues the calls made over that memory after each call.
 *
 * Input (little-endian):
 *   u16 L, then L bytes: the process memory from FUZZ_MEM_BASE (the rest of FUZZ_MEM_SIZE is
 *                        zero; any address outside it faults);
 *   records to the end, each: u32 cmd (the ioctl request as the program passed it), u16 n,
 *                        then n bytes: the argument block (a short tail is the last record).
 * A cmd of type 'd' goes to the render node of the device, any other to /dev/kfd. One process
 * on one gfx90a preset; the device files are FUZZ_FILE_SIZE bytes from FUZZ_FILE_BASE.
 * tests/tools/gen_kfdemu_ioctl_seeds.c writes the seeds.
 *
 * Invariants (abort() on violation):
 *  - gc_emu_kfd_arg_copy copies nothing or the program's size, in each direction; a number it
 *    does not serve gets -ENOTTY or -EINVAL;
 *  - every call returns 0 or a -errno, DONE or (WAIT_EVENTS only, with the timeout it was
 *    given) BLOCK; a blocked wait ends at its deadline (wait_retry with timed_out);
 *  - a handler writes nothing of the argument buffer past the larger of the program's size and
 *    the biggest argument block amdkfd has (ARGS_WRITE_MAX);
 *  - the process's tables stay within their caps and the machine's file offsets within the
 *    files; queue and event ids are distinct; GET_VERSION says 1.17;
 *  - a pass of the command processor reports no more stalled queues than there are.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_cp.h"
#include "emu_device.h"
#include "emu_drm.h"
#include "emu_kfd.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MEM_BASE 0x10000ull
#define FUZZ_MEM_SIZE 0x10000u
#define FUZZ_FILE_BASE (1ull << 20) /* gpucore-kfdemu's first offset in each device file */
#define FUZZ_FILE_SIZE 0x10000u
#define FUZZ_FILE_LIMIT (1ull << 32)
/* Records per input: each may be followed by a command-processor pass over up to 128 queues;
   64 keeps an input well under the smoke run's 10 s. */
#define MAX_RECORDS 64u
/* The largest argument block of amdkfd's calls (GET_PROCESS_APERTURES, 400 bytes), rounded
   up: no handler may write past it (or past what the program passed, when larger). */
#define ARGS_WRITE_MAX 512u
#define POISON 0x5a
#define NR_GET_VERSION 0x01u
#define NR_WAIT_EVENTS 0x0Cu

static uint8_t mem[FUZZ_MEM_SIZE];
static uint8_t files[2][FUZZ_FILE_SIZE]; /* /dev/kfd, the render node of device 0 */
static uint8_t args[GC_EMU_ARGS_MAX];

static int mem_rw(uint64_t addr, void *buf, size_t len, int write)
{
    if (addr < FUZZ_MEM_BASE || len > FUZZ_MEM_SIZE || addr - FUZZ_MEM_BASE > FUZZ_MEM_SIZE - len)
        return -1;
    if (write)
        memcpy(mem + (addr - FUZZ_MEM_BASE), buf, len);
    else
        memcpy(buf, mem + (addr - FUZZ_MEM_BASE), len);
    return 0;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    return mem_rw(addr, buf, len, 0);
}

static int mem_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    (void)ctx;
    return mem_rw(addr, (void *)(uintptr_t)buf, len, 1);
}

static int file_rw(void *ctx, int file, uint64_t off, void *buf, size_t len, int write)
{
    uint8_t *f = file == GC_EMU_FILE_KFD ? files[0] : file == 0 ? files[1] : NULL;

    (void)ctx;
    if (!f || off < FUZZ_FILE_BASE || len > FUZZ_FILE_SIZE ||
        off - FUZZ_FILE_BASE > FUZZ_FILE_SIZE - len)
        return -1;
    if (write)
        memcpy(f + (off - FUZZ_FILE_BASE), buf, len);
    else
        memcpy(buf, f + (off - FUZZ_FILE_BASE), len);
    return 0;
}

static const struct gc_emu_io io = { NULL, mem_read, mem_write };

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_result(struct gc_emu_result r)
{
    CHECK(r.ret <= 0 && r.ret >= -4095);
    CHECK(r.verdict == GC_EMU_DONE || r.verdict == GC_EMU_BLOCK);
}

/* Nothing past the program's block and amdkfd's largest was written. */
static void check_poison(unsigned usize)
{
    for (size_t i = usize > ARGS_WRITE_MAX ? usize : ARGS_WRITE_MAX; i < sizeof(args); i++)
        CHECK(args[i] == POISON);
}

static void check_proc(const struct gc_emu_proc *p, const struct gc_emu_machine *m)
{
    CHECK(p->nqueues <= GC_EMU_MAX_QUEUES);
    CHECK(p->nmems <= p->mems_cap && p->mems_cap <= GC_EMU_MAX_MEMS);
    CHECK(p->nevents <= p->events_cap);
    for (uint32_t i = 0; i < p->nqueues; i++) {
        CHECK(p->queues[i].dev < m->ndevs);
        for (uint32_t j = i + 1; j < p->nqueues; j++)
            CHECK(p->queues[i].id != p->queues[j].id);
    }
    for (size_t i = 0; i < p->nevents; i++)
        for (size_t j = i + 1; j < p->nevents; j++)
            CHECK(p->events[i].id != p->events[j].id);
    for (size_t i = 0; i < p->nmems; i++)
        CHECK(p->mems[i].dev < m->ndevs);
    CHECK(m->kfd_file_next <= m->file_limit);
    for (size_t i = 0; i < m->ndevs; i++)
        CHECK(m->render_file_next[i] <= m->file_limit);
}

static void kfd_call(struct gc_emu_proc *p, unsigned cmd, const uint8_t *block, size_t n)
{
    unsigned usize = GC_IOC_SIZE(cmd), in = 0, out = 0;
    int served = gc_emu_kfd_arg_copy(cmd, &in, &out);
    struct gc_emu_result r;

    CHECK(in == 0 || in == usize);
    CHECK(out == 0 || out == usize);
    memset(args, POISON, sizeof(args));
    memset(args, 0, usize);
    memcpy(args, block, n < in ? n : in);
    r = gc_emu_kfd_ioctl(p, cmd, args, &io);
    check_result(r);
    if (!served)
        CHECK(r.verdict == GC_EMU_DONE && (r.ret == -ENOTTY || r.ret == -EINVAL));
    if (r.verdict == GC_EMU_BLOCK) {
        const struct kfd_ioctl_wait_events_args *w = (const void *)args;

        CHECK(GC_IOC_NR(cmd) == NR_WAIT_EVENTS && r.ret == 0);
        CHECK(r.wait_ms == w->timeout && r.wait_ms != 0);
        r = gc_emu_kfd_wait_retry(p, args, &io, 0);
        check_result(r);
        if (r.verdict == GC_EMU_BLOCK) {
            r = gc_emu_kfd_wait_retry(p, args, &io, 1);
            check_result(r);
            CHECK(r.verdict == GC_EMU_DONE);
        }
    }
    if (r.ret == 0 && GC_IOC_NR(cmd) == NR_GET_VERSION && out >= 8) {
        const struct kfd_ioctl_get_version_args *v = (const void *)args;

        CHECK(v->major_version == 1 && v->minor_version == 17);
    }
    check_poison(usize);
    (void)gc_emu_kfd_name(cmd);
}

static void drm_call(const struct gc_emu_device *d, unsigned cmd, const uint8_t *block, size_t n)
{
    unsigned usize = GC_IOC_SIZE(cmd);
    long r;

    memset(args, POISON, sizeof(args));
    memset(args, 0, usize);
    memcpy(args, block, n < usize ? n : usize);
    r = gc_emu_drm_ioctl(d, cmd, args, &io);
    CHECK(r == 0 || r == -EINVAL || r == -EACCES || r == -EFAULT);
    CHECK(gc_emu_drm_name(cmd) != NULL);
    check_poison(usize);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct gc_emu_device devs[1];
    static size_t ndevs;
    static struct gc_emu_proc p;
    struct gc_emu_machine m;
    struct gc_emu_vm vm;
    struct gc_emu_cp_stats st;
    size_t at = 0, len;
    char err[256];

    if (!ndevs)
        CHECK(gc_emu_devices_add("gfx90a", devs, 1, &ndevs, err, sizeof(err)) == GPUCORE_OK);
    if (size < 2)
        return 0;
    len = (size_t)data[0] | (size_t)data[1] << 8;
    at = 2;
    if (len > size - at)
        len = size - at;
    if (len > FUZZ_MEM_SIZE)
        len = FUZZ_MEM_SIZE;
    memset(mem, 0, sizeof(mem));
    memcpy(mem, data + at, len);
    at += len;
    memset(files, 0, sizeof(files));

    memset(&m, 0, sizeof(m));
    m.devs = devs;
    m.ndevs = ndevs;
    m.file_limit = FUZZ_FILE_LIMIT;
    m.kfd_file_next = FUZZ_FILE_BASE;
    m.render_file_next[0] = FUZZ_FILE_BASE;
    gc_emu_proc_init(&p, &m, 1000);
    vm = (struct gc_emu_vm){ &p, &io, NULL, file_rw, NULL, NULL };

    for (unsigned rec = 0; rec < MAX_RECORDS && size - at >= 6; rec++) {
        unsigned cmd = le32(data + at);
        size_t n = (size_t)data[at + 4] | (size_t)data[at + 5] << 8;

        at += 6;
        if (n > size - at)
            n = size - at;
        if (GC_IOC_TYPE(cmd) == 'd')
            drm_call(&devs[0], cmd, data + at, n);
        else
            kfd_call(&p, cmd, data + at, n);
        at += n;
        check_proc(&p, &m);
        gc_emu_cp_run(&vm, &st);
        CHECK(st.stalled <= p.nqueues);
        check_proc(&p, &m);
    }
    gc_emu_proc_fini(&p);
    return 0;
}
