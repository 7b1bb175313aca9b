/* SPDX-License-Identifier: MIT */
/*
 * gpucore-kfdemu's fault save (kfd/emu/emu_save.c): the waves of a faulting dispatch written
 * into the queue's save area through the simulated driver's layout, decoded back with arch's
 * decoder (docs/cwsr-layout.md). The process memory is a fake: one region of bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cwsr.h"
#include "emu_save.h"
#include "wave.h"

#define BASE 0x10000000ull
#define SIZE (32u << 20)
#define CWSR (BASE + (1u << 20))
#define KD (BASE + 0x1000)
#define CODE (BASE + 0x2000)
#define KERNARG (BASE + 0x3000)
#define RING (BASE + 0x4000)

static uint8_t *mem;

static int rd(void *ctx, uint64_t a, void *buf, size_t n)
{
    (void)ctx;
    if (a < BASE || a - BASE > SIZE || n > SIZE - (a - BASE))
        return -1;
    memcpy(buf, mem + (a - BASE), n);
    return 0;
}

static int wr(void *ctx, uint64_t a, const void *buf, size_t n)
{
    (void)ctx;
    if (a < BASE || a - BASE > SIZE || n > SIZE - (a - BASE))
        return -1;
    memcpy(mem + (a - BASE), buf, n);
    return 0;
}

static int no_files(void *ctx, int file, uint64_t off, void *buf, size_t len, int write)
{
    (void)ctx, (void)file, (void)off, (void)buf, (void)len, (void)write;
    return -1;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A dispatch of 2 workgroups of 128 work-items on the gfx90a preset: 4 waves of 64. */
static void setup_dispatch(uint8_t pkt[64])
{
    memset(pkt, 0, 64);
    put16(pkt, 2);          /* KERNEL_DISPATCH */
    put16(pkt + 2, 1);      /* 1 dimension */
    put16(pkt + 4, 128);
    put16(pkt + 6, 1);
    put16(pkt + 8, 1);
    put32(pkt + 12, 256);
    put32(pkt + 16, 1);
    put32(pkt + 20, 1);
    put64(pkt + 32, KD);
    put64(pkt + 40, KERNARG);
}

static void test_memory_violation_saved(void **state)
{
    struct gc_emu_device devs[1];
    struct gc_emu_machine m;
    struct gc_emu_proc p;
    struct gc_emu_queue q;
    struct gc_emu_io io = { NULL, rd, wr };
    struct gc_emu_vm vm;
    struct gc_emu_save how;
    struct gc_cwsr_decoded dec;
    struct gc_cwsr_header h;
    const struct gc_arch *arch;
    uint8_t pkt[64];
    char err[256];
    size_t ndevs = 0;
    int n;

    (void)state;
    mem = calloc(1, SIZE);
    assert_non_null(mem);
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 1, &ndevs, err, sizeof(err)), GPUCORE_OK);
    arch = devs[0].arch;
    memset(&m, 0, sizeof(m));
    m.devs = devs;
    m.ndevs = 1;
    gc_emu_proc_init(&p, &m, 1);
    memset(&q, 0, sizeof(q));
    q.dev = 0;
    q.id = 3;
    q.type = 2;
    q.ring = RING;
    q.ring_size = 4096;
    q.read_index = 5;
    q.cwsr = CWSR;
    q.cwsr_size = devs[0].cwsr.cwsr_size;
    memset(&vm, 0, sizeof(vm));
    vm.p = &p;
    vm.cpu = &io;
    vm.file_rw = no_files;
    setup_dispatch(pkt);

    memset(&how, 0, sizeof(how));
    how.packet = RING + 5 * 64;
    how.entry = CODE;
    how.code_size = 0x100;
    how.pc = CODE + 0x34;
    how.cause = GC_SCEN_STOP_MEMORY_VIOLATION;
    how.address_vgpr = 4;
    how.fault_va = 0x7f0012345000ull;
    how.r_version = 9;
    how.kernel = "oob";
    n = gc_emu_save_dispatch(&vm, &q, pkt, &how, err, sizeof(err));
    assert_int_equal(n, 4);

    /* the area's own header is untouched (an eviction); the save's is returned */
    assert_int_equal(gc_cwsr_header_decode(mem + (CWSR - BASE), 40, &h), GPUCORE_OK);
    assert_int_equal(h.control_stack_size, 0);
    h = how.saved_header;
    assert_true(h.control_stack_size > 0);
    assert_true(h.wave_state_offset <= q.cwsr_size);
    assert_int_equal(gc_cwsr_decode(arch, &h, mem + (CWSR - BASE) + h.control_stack_offset,
                                    h.control_stack_size,
                                    mem + (CWSR - BASE) + h.wave_state_offset - h.wave_state_size,
                                    h.wave_state_size, &dec, NULL),
                     GPUCORE_OK);
    assert_int_equal(dec.wave_count, 4);
    assert_int_equal(dec.group_count, 2);
    for (uint32_t w = 0; w < dec.wave_count; w++) {
        assert_int_equal(gc_wave_pc(arch, &dec.waves[w], 9), CODE + 0x34);
        assert_int_equal(gc_wave_exec_mask(arch, &dec.waves[w]), ~0ull);
        assert_true(gc_wave_trap_stopped(arch, &dec.waves[w]));
        /* lane 3 addressed fault_va + 12 through v[4:5] */
        assert_int_equal(gc_wave_vgpr(&dec.waves[w], 4, 3), 0x1234500cu);
        assert_int_equal(gc_wave_vgpr(&dec.waves[w], 5, 3), 0x7f00u);
    }
    gc_cwsr_decoded_done(&dec);
    gc_emu_proc_fini(&p);
    free(mem);
}

/* A kernel with a private segment (scratch): its waves get scratch slots. The emulator divided
   by the scenario queue's zero scratch_waves here (SIGFPE on HIP's assert kernel). */
static void test_scratch_kernel_saved(void **state)
{
    struct gc_emu_device devs[1];
    struct gc_emu_machine m;
    struct gc_emu_proc p;
    struct gc_emu_queue q;
    struct gc_emu_io io = { NULL, rd, wr };
    struct gc_emu_vm vm;
    struct gc_emu_save how;
    uint8_t pkt[64];
    char err[256];
    size_t ndevs = 0;

    (void)state;
    mem = calloc(1, SIZE);
    assert_non_null(mem);
    assert_int_equal(gc_emu_devices_add("gfx942", devs, 1, &ndevs, err, sizeof(err)), GPUCORE_OK);
    memset(&m, 0, sizeof(m));
    m.devs = devs;
    m.ndevs = 1;
    gc_emu_proc_init(&p, &m, 1);
    memset(&q, 0, sizeof(q));
    q.type = 2;
    q.ring = RING;
    q.ring_size = 4096;
    q.rptr_addr = RING + 0x200 + 128; /* an amd_queue_t of zeros: no scratch set */
    q.cwsr = CWSR;
    q.cwsr_size = devs[0].cwsr.cwsr_size;
    memset(&vm, 0, sizeof(vm));
    vm.p = &p;
    vm.cpu = &io;
    vm.file_rw = no_files;
    setup_dispatch(pkt);
    put32(pkt + 24, 256); /* private_segment_size */
    memset(&how, 0, sizeof(how));
    how.entry = CODE;
    how.pc = CODE;
    how.cause = GC_SCEN_STOP_ASSERT_TRAP;
    how.address_vgpr = -1;
    how.r_version = 9;
    assert_int_equal(gc_emu_save_dispatch(&vm, &q, pkt, &how, err, sizeof(err)), 4);
    gc_emu_proc_fini(&p);
    free(mem);
}

static void test_address_vgpr(void **state)
{
    (void)state;
    assert_int_equal(gc_emu_address_vgpr("global_store_dword v[4:5], v2, off"), 4);
    assert_int_equal(gc_emu_address_vgpr("flat_load_dwordx2 v[0:1], v[2:3]"), -1); /* no off */
    assert_int_equal(gc_emu_address_vgpr("global_store_dword v2, v3, s[0:1]"), -1);
    assert_int_equal(gc_emu_address_vgpr("buffer_store_dword v1, off, s[0:3], 0"), -1);
    assert_int_equal(gc_emu_address_vgpr("global_load_dword v1, v[6:8], off"), -1);
}

static void test_no_save_area(void **state)
{
    struct gc_emu_device devs[1];
    struct gc_emu_machine m;
    struct gc_emu_proc p;
    struct gc_emu_queue q;
    struct gc_emu_io io = { NULL, rd, wr };
    struct gc_emu_vm vm;
    struct gc_emu_save how;
    uint8_t pkt[64];
    char err[256] = "";
    size_t ndevs = 0;

    (void)state;
    mem = calloc(1, SIZE);
    assert_non_null(mem);
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 1, &ndevs, err, sizeof(err)), GPUCORE_OK);
    memset(&m, 0, sizeof(m));
    m.devs = devs;
    m.ndevs = 1;
    gc_emu_proc_init(&p, &m, 1);
    memset(&q, 0, sizeof(q));
    memset(&vm, 0, sizeof(vm));
    vm.p = &p;
    vm.cpu = &io;
    vm.file_rw = no_files;
    setup_dispatch(pkt);
    memset(&how, 0, sizeof(how));
    how.address_vgpr = -1;
    assert_int_equal(gc_emu_save_dispatch(&vm, &q, pkt, &how, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no save area"));
    /* a save area that cannot be read */
    q.cwsr = 0x1000;
    q.cwsr_size = 4096;
    assert_int_equal(gc_emu_save_dispatch(&vm, &q, pkt, &how, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot be read"));
    /* a zero grid */
    q.cwsr = CWSR;
    q.cwsr_size = devs[0].cwsr.cwsr_size;
    put32(pkt + 12, 0);
    assert_int_equal(gc_emu_save_dispatch(&vm, &q, pkt, &how, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "zero size"));
    gc_emu_proc_fini(&p);
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_violation_saved),
        cmocka_unit_test(test_scratch_kernel_saved),
        cmocka_unit_test(test_address_vgpr),
        cmocka_unit_test(test_no_save_area),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
