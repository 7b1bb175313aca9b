/* SPDX-License-Identifier: MIT */
/*
 * The emulated amdkfd (kfd/emu: gc_kfd_emu) driven through its public functions only: the
 * devices and their sysfs topology, amdkfd's ioctls with a fake process memory, the render
 * node's DRM calls, and the command processor running AQL and SDMA queues.
 *
 * Expected values are spelled out from their sources, not from the emulator: the node
 * properties and errnos from Linux 6.12 (drivers/gpu/drm/amd/amdkfd/kfd_chardev.c,
 * kfd_events.c, kfd_topology.c, kfd_queue.c; amdgpu/amdgpu_kms.c), the packet formats from
 * the HSA 1.2 AQL packets and ROCr's sdma_registers.h / amd_blit_sdma.cpp, the products' figures
 * from kfd/emu/emu_device.c's preset table (which docs the product each one is).
 *
 * Run without an argument: the model's tests. Run as `test_kfdemu_model divergence`: the cases
 * where the emulator differs from the kernel source named in each test (ctest
 * test_kfdemu_kernel_divergence); they fail until kfd/emu follows the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cwsr.h"
#include "emu_cp.h"
#include "emu_device.h"
#include "emu_drm.h"
#include "emu_kfd.h"

/* amdkfd's ioctl numbers (include/uapi/linux/kfd_ioctl.h, AMDKFD_IOC_*) */
enum {
    NR_GET_VERSION = 0x01,
    NR_CREATE_QUEUE = 0x02,
    NR_DESTROY_QUEUE = 0x03,
    NR_CREATE_EVENT = 0x08,
    NR_DESTROY_EVENT = 0x09,
    NR_SET_EVENT = 0x0A,
    NR_RESET_EVENT = 0x0B,
    NR_WAIT_EVENTS = 0x0C,
    NR_DBG_REGISTER_DEPRECATED = 0x0D,
    NR_GET_PROCESS_APERTURES_NEW = 0x14,
    NR_ACQUIRE_VM = 0x15,
    NR_ALLOC_MEMORY_OF_GPU = 0x16,
    NR_FREE_MEMORY_OF_GPU = 0x17,
    NR_MAP_MEMORY_TO_GPU = 0x18,
    NR_UNMAP_MEMORY_FROM_GPU = 0x19,
    NR_SMI_EVENTS = 0x1F,
    NR_SET_XNACK_MODE = 0x21,
    NR_SVM = 0x20,
    NR_CRIU_OP = 0x22,
    NR_DBG_TRAP = 0x26,
    NR_COMMAND_END = 0x27, /* AMDKFD_COMMAND_END */
};

#define IOC_RW 3u /* _IOC_READ | _IOC_WRITE */

/* The fake process memory: MEM_SIZE bytes at MEM_BASE; everything else faults. */
#define MEM_BASE 0x7f1200000000ull
#define MEM_SIZE 0x40000u
#define AT(off) (MEM_BASE + (off))

/* Where the tests lay things out in it. */
#define OFF_ARGS 0x0000u    /* argument arrays: gpu ids, event data, apertures */
#define OFF_AQL_RING 0x1000u
#define OFF_AQL_RPTR 0x3000u
#define OFF_AQL_WPTR 0x3008u
#define OFF_SIGNALS 0x4000u /* amd_signal_t, 64 bytes each */
#define OFF_MAILBOX 0x5000u
#define OFF_SDMA_RING 0x8000u
#define OFF_SDMA_RPTR 0xA000u
#define OFF_SDMA_WPTR 0xA008u
#define OFF_DATA 0x10000u
#define OFF_VRAM_VA 0x7f8000000000ull /* a GPU VA with no host mapping */

/* The CWSR sizes amdkfd requires of gfx90a (kfd_queue_ctx_save_restore_size, Linux 6.12
   kfd_queue.c): 104 CUs; wave_num = min(104 * 40, 8 arrays / 1 * 512) = 4096; ctl_stack =
   ALIGN(40 + 4096 * 8 + 8, 4096) = 36864; wg_data = 104 * (0x80000 VGPRs + 0x4000 SGPRs +
   0x10000 LDS + 0x1000 HWREGs) = 63471616. */
#define GFX90A_CTL_STACK 36864u
#define GFX90A_CWSR (36864u + 63471616u)

struct fake_file { /* one device file's first bytes, from offset FILE_BASE */
    uint8_t bytes[0x10000];
};
#define FILE_BASE (1ull << 20) /* what gpucore-kfdemu starts every device file's offsets at */

struct env {
    struct gc_emu_device devs[GC_EMU_MAX_DEVICES];
    size_t ndevs;
    struct gc_emu_machine m;
    struct gc_emu_proc p;
    struct gc_emu_proc *cur; /* the process the ioctls are made by: &p unless a test says */
    uint8_t mem[MEM_SIZE];
    unsigned faults; /* io accesses refused */
    struct gc_emu_io io;
    struct fake_file kfd_file, dev_file;
    struct gc_emu_vm vm;
};

static int in_mem(const struct env *e, uint64_t addr, size_t len)
{
    (void)e;
    return addr >= MEM_BASE && len <= MEM_SIZE && addr - MEM_BASE <= MEM_SIZE - len;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct env *e = ctx;

    if (!in_mem(e, addr, len)) {
        e->faults++;
        return -1;
    }
    memcpy(buf, e->mem + (addr - MEM_BASE), len);
    return 0;
}

static int mem_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct env *e = ctx;

    if (!in_mem(e, addr, len)) {
        e->faults++;
        return -1;
    }
    memcpy(e->mem + (addr - MEM_BASE), buf, len);
    return 0;
}

static int file_rw(void *ctx, int file, uint64_t off, void *buf, size_t len, int write)
{
    struct env *e = ctx;
    struct fake_file *f = file == GC_EMU_FILE_KFD ? &e->kfd_file : file == 0 ? &e->dev_file : NULL;

    if (!f || off < FILE_BASE || len > sizeof(f->bytes) ||
        off - FILE_BASE > sizeof(f->bytes) - len)
        return -1;
    if (write)
        memcpy(f->bytes + (off - FILE_BASE), buf, len);
    else
        memcpy(buf, f->bytes + (off - FILE_BASE), len);
    return 0;
}

static void put64(struct env *e, uint32_t off, uint64_t v)
{
    memcpy(e->mem + off, &v, sizeof(v));
}

static uint64_t get64(const struct env *e, uint32_t off)
{
    uint64_t v;

    memcpy(&v, e->mem + off, sizeof(v));
    return v;
}

static void put32(struct env *e, uint32_t off, uint32_t v)
{
    memcpy(e->mem + off, &v, sizeof(v));
}

static uint32_t get32(const struct env *e, uint32_t off)
{
    uint32_t v;

    memcpy(&v, e->mem + off, sizeof(v));
    return v;
}

/* A machine of the presets named (NULL-terminated), one process on it. */
static struct env *env_new(const char *const *presets)
{
    struct env *e = calloc(1, sizeof(*e));
    char err[256];

    assert_non_null(e);
    for (size_t i = 0; presets[i]; i++)
        assert_int_equal(gc_emu_devices_add(presets[i], e->devs, GC_EMU_MAX_DEVICES, &e->ndevs,
                                            err, sizeof(err)),
                         GPUCORE_OK);
    e->m.devs = e->devs;
    e->m.ndevs = e->ndevs;
    e->m.file_limit = 1ull << 36;
    e->m.kfd_file_next = FILE_BASE;
    for (size_t i = 0; i < e->ndevs; i++)
        e->m.render_file_next[i] = FILE_BASE;
    e->io = (struct gc_emu_io){ e, mem_read, mem_write };
    gc_emu_proc_init(&e->p, &e->m, 4242);
    e->cur = &e->p;
    e->vm = (struct gc_emu_vm){ &e->p, &e->io, e, file_rw, NULL, NULL };
    return e;
}

static int env_setup(void **state)
{
    static const char *const one[] = { "gfx90a", NULL };

    *state = env_new(one);
    return 0;
}

static int env_setup2(void **state)
{
    static const char *const two[] = { "gfx90a", "gfx1100", NULL };

    *state = env_new(two);
    return 0;
}

static int env_teardown(void **state)
{
    struct env *e = *state;

    gc_emu_proc_fini(&e->p);
    free(e);
    return 0;
}

/*
 * One ioctl as gpucore-kfdemu's front end makes it: gc_emu_kfd_arg_copy says how much of the
 * program's block goes in and comes back; the bytes past what the program passed are poison,
 * so a handler that reads them without the driver's zero extension is caught.
 */
static struct gc_emu_result call_sized(struct env *e, unsigned nr, void *args, unsigned usize)
{
    static uint8_t buf[GC_EMU_ARGS_MAX];
    unsigned cmd = GC_IOC(IOC_RW, 'K', nr, usize), in, out;
    struct gc_emu_result r;

    memset(buf, 0xa5, sizeof(buf));
    if (gc_emu_kfd_arg_copy(cmd, &in, &out)) {
        if (in)
            memcpy(buf, args, in);
        else
            memset(buf, 0, usize);
    }
    r = gc_emu_kfd_ioctl(e->cur, cmd, buf, &e->io);
    if (gc_emu_kfd_arg_copy(cmd, &in, &out) && out && r.verdict == GC_EMU_DONE)
        memcpy(args, buf, out);
    return r;
}

#define KFD(e, nr, a) call_sized((e), (nr), &(a), (unsigned)sizeof(a))

static long kfd_ret(struct env *e, unsigned nr, void *args, unsigned size)
{
    struct gc_emu_result r = call_sized(e, nr, args, size);

    assert_int_equal(r.verdict, GC_EMU_DONE);
    return r.ret;
}

#define KFD_RET(e, nr, a) kfd_ret((e), (nr), &(a), (unsigned)sizeof(a))

static uint32_t gpu0(const struct env *e)
{
    return e->devs[0].agent.gpu_id;
}

static void acquire(struct env *e, uint32_t gpu_id)
{
    struct kfd_ioctl_acquire_vm_args a = { .drm_fd = 5, .gpu_id = gpu_id };

    assert_int_equal(KFD_RET(e, NR_ACQUIRE_VM, a), 0);
}

static long alloc(struct env *e, uint32_t gpu_id, uint64_t va, uint64_t size, uint32_t flags,
                  uint64_t *handle, uint64_t *offset)
{
    struct kfd_ioctl_alloc_memory_of_gpu_args a = {
        .va_addr = va, .size = size, .gpu_id = gpu_id, .flags = flags,
    };
    long r = KFD_RET(e, NR_ALLOC_MEMORY_OF_GPU, a);

    if (handle)
        *handle = a.handle;
    if (offset)
        *offset = a.mmap_offset;
    return r;
}

static long create_queue(struct env *e, uint32_t type, uint64_t ring, uint32_t ring_size,
                         uint64_t rptr, uint64_t wptr, struct kfd_ioctl_create_queue_args *out)
{
    struct kfd_ioctl_create_queue_args a = {
        .ring_base_address = ring, .write_pointer_address = wptr,
        .read_pointer_address = rptr, .ring_size = ring_size, .gpu_id = gpu0(e),
        .queue_type = type, .queue_percentage = 100, .queue_priority = 7,
    };
    long r;

    if (type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
        a.ctx_save_restore_address = AT(OFF_DATA);
        a.ctx_save_restore_size = GFX90A_CWSR;
        a.ctl_stack_size = GFX90A_CTL_STACK;
    }
    r = KFD_RET(e, NR_CREATE_QUEUE, a);
    if (out)
        *out = a;
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Devices and topology                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* The value of "name N" in a properties text; fails the test when absent. */
static uint64_t prop(const char *text, const char *name)
{
    size_t n = strlen(name);

    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (!strncmp(l, name, n) && l[n] == ' ')
            return strtoull(l + n + 1, NULL, 10);
    fail_msg("no property '%s' in:\n%s", name, text);
    return 0;
}

struct preset_facts {
    const char *name;
    uint32_t simd_count, array_per_xcc, simd_arrays_per_engine, num_xcc, gfx_target_version;
    uint32_t cwsr_size, ctl_stack_size; /* kfd_queue_ctx_save_restore_size, per XCC */
};

/* gfx942: 8 XCCs of 38 CUs: wave_num = min(38 * 40, 4 * 512) = 1520, ctl_stack =
   ALIGN(40 + 1520 * 8 + 8, 4096) = 12288, wg_data = 38 * 0x95000 = 23191552.
   gfx1100: 96 CUs (2 SIMDs each): wave_num = 96 * 32 = 3072, ctl_stack = ALIGN(40 + 3072 * 12
   + 8, 4096) = 40960, wg_data = 96 * (0x60000 + 0x4000 + 0x10000 + 0x1000) = 46006272. */
static const struct preset_facts facts[] = {
    { "gfx90a", 416, 8, 1, 1, 90010, GFX90A_CWSR, GFX90A_CTL_STACK },
    { "gfx942", 1216, 4, 1, 8, 90402, 12288u + 23191552u, 12288 },
    { "gfx1100", 192, 12, 2, 1, 110000, 40960u + 46006272u, 40960 },
};

static void test_presets_properties(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
        const struct preset_facts *f = &facts[i];
        struct gc_emu_device devs[1];
        struct gc_cwsr_sizes sz;
        size_t n = 0;
        char err[256], text[4096];

        assert_int_equal(gc_emu_devices_add(f->name, devs, 1, &n, err, sizeof(err)), GPUCORE_OK);
        assert_int_equal(n, 1);
        assert_true(gc_emu_node_properties(&devs[0], text, sizeof(text)) > 0);
        assert_int_equal(prop(text, "simd_count"), f->simd_count);
        assert_int_equal(prop(text, "array_count"), f->array_per_xcc * f->num_xcc);
        assert_int_equal(prop(text, "simd_arrays_per_engine"), f->simd_arrays_per_engine);
        assert_int_equal(prop(text, "gfx_target_version"), f->gfx_target_version);
        assert_int_equal(prop(text, "num_xcc"), f->num_xcc);
        assert_int_equal(prop(text, "cwsr_size"), f->cwsr_size);
        assert_int_equal(prop(text, "ctl_stack_size"), f->ctl_stack_size);
        assert_int_equal(prop(text, "drm_render_minor"), 128);
        /* the same sizes as arch's formula, which CREATE_QUEUE checks */
        assert_int_equal(gc_cwsr_compute_sizes(gc_arch_by_name(f->name), f->simd_count,
                                               f->array_per_xcc, f->simd_arrays_per_engine,
                                               f->num_xcc, &sz),
                         GPUCORE_OK);
        assert_int_equal(sz.cwsr_size, f->cwsr_size);
        assert_int_equal(sz.ctl_stack_size, f->ctl_stack_size);
        assert_int_equal(devs[0].cwsr.cwsr_size, f->cwsr_size);
    }
}

/* gfx90a (an MI210) as node 1, in kfd_topology.c node_show's order. gpu_id 0x3357 (the first
   slot's), location_id 0x300, unique_id 0x1000000000000000 | gpu_id << 16 | location_id. */
static const char gfx90a_properties[] =
    "cpu_cores_count 0\n"
    "simd_count 416\n"
    "mem_banks_count 1\n"
    "caches_count 4\n"
    "io_links_count 1\n"
    "p2p_links_count 0\n"
    "cpu_core_id_base 0\n"
    "simd_id_base 2147483648\n"
    "max_waves_per_simd 8\n"
    "lds_size_in_kb 64\n"
    "gds_size_in_kb 0\n"
    "num_gws 64\n"
    "wave_front_size 64\n"
    "array_count 8\n"
    "simd_arrays_per_engine 1\n"
    "cu_per_simd_array 13\n"
    "simd_per_cu 4\n"
    "max_slots_scratch_cu 32\n"
    "gfx_target_version 90010\n"
    "vendor_id 4098\n"
    "device_id 29711\n"
    "location_id 768\n"
    "domain 0\n"
    "drm_render_minor 128\n"
    "hive_id 0\n"
    "num_sdma_engines 2\n"
    "num_sdma_xgmi_engines 3\n"
    "num_sdma_queues_per_engine 8\n"
    "num_cp_queues 24\n"
    "cwsr_size 63508480\n"
    "ctl_stack_size 36864\n"
    "max_engine_clk_fcompute 1700\n"
    "local_mem_size 0\n"
    "fw_version 78\n"
    "capability 537371264\n" /* 0x20008280 | amdkfd's doorbell 2.0, trap debug, precise memory */
    "debug_prop 470\n"
    "sdma_fw_version 8\n"
    "unique_id 1152921505468187392\n"
    "num_xcc 1\n"
    "max_engine_clk_ccompute 3000\n";

static void test_gfx90a_properties_text(void **state)
{
    struct gc_emu_device devs[1];
    size_t n = 0;
    char err[256], text[4096];

    (void)state;
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 1, &n, err, sizeof(err)), GPUCORE_OK);
    assert_int_equal(devs[0].agent.gpu_id, 0x3357);
    assert_int_equal(gc_emu_node_properties(&devs[0], text, sizeof(text)),
                     strlen(gfx90a_properties));
    assert_string_equal(text, gfx90a_properties);
    /* a short buffer: cut, NUL-terminated, never past it */
    memset(text, 'x', sizeof(text));
    assert_true(gc_emu_node_properties(&devs[0], text, 16) < 16);
    assert_int_equal(text[15], '\0');
    assert_int_equal(text[16], 'x');
}

static void test_unknown_preset_refused(void **state)
{
    struct gc_emu_device devs[2];
    size_t n = 0;
    char err[256] = "";

    (void)state;
    assert_int_equal(gc_emu_devices_add("gfx9999", devs, 2, &n, err, sizeof(err)),
                     GPUCORE_E_INVAL);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "gfx9999"));
    err[0] = '\0';
    assert_int_equal(gc_emu_devices_add("mi210", devs, 2, &n, err, sizeof(err)),
                     GPUCORE_E_INVAL);
    assert_int_equal(n, 0);
    assert_true(err[0] != '\0');
}

static void test_device_cap(void **state)
{
    struct gc_emu_device devs[1];
    size_t n = 0;
    char err[256];

    (void)state;
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 1, &n, err, sizeof(err)), GPUCORE_OK);
    assert_int_equal(gc_emu_devices_add("gfx942", devs, 1, &n, err, sizeof(err)),
                     GPUCORE_E_LIMIT);
    assert_int_equal(n, 1);
}

/* A file under GPUCORE_TEST_TMPDIR holding @p text; the path is returned (malloc'd). */
static char *tmp_file(const char *name, const char *text)
{
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char *path = malloc(4096);
    FILE *f;

    assert_non_null(dir);
    assert_non_null(path);
    assert_true(snprintf(path, 4096, "%s/kfdemu-%d-%s", dir, (int)getpid(), name) < 4096);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const char two_agents[] =
    "{ \"name\": \"two\", \"agents\": [\n"
    "  { \"target\": \"gfx90a\", \"gpu_id\": \"0x1111\", \"simd_count\": 416,\n"
    "    \"array_count\": 8, \"simd_arrays_per_engine\": 1 },\n"
    "  { \"target\": \"gfx1100\", \"gpu_id\": \"0x2222\", \"simd_count\": 192,\n"
    "    \"array_count\": 12, \"simd_arrays_per_engine\": 2, \"device_id\": \"0x7448\" } ] }\n";

static void test_scenario_file_devices(void **state)
{
    struct gc_emu_device devs[4];
    size_t n = 0;
    char err[256] = "", *path = tmp_file("two.json", two_agents), text[4096];

    (void)state;
    assert_int_equal(gc_emu_devices_add(path, devs, 4, &n, err, sizeof(err)), GPUCORE_OK);
    assert_int_equal(n, 2);
    assert_int_equal(devs[0].agent.gpu_id, 0x1111);
    assert_int_equal(devs[1].agent.gpu_id, 0x2222);
    assert_int_equal(devs[0].node, 1);
    assert_int_equal(devs[1].node, 2);
    assert_int_equal(devs[0].render_minor, 128);
    assert_int_equal(devs[1].render_minor, 129);
    assert_int_equal(devs[0].agent.device_id, 0x740f); /* none given: the preset's */
    assert_int_equal(devs[1].agent.device_id, 0x7448); /* given */
    gc_emu_node_properties(&devs[1], text, sizeof(text));
    assert_int_equal(prop(text, "gfx_target_version"), 110000);
    assert_int_equal(prop(text, "cwsr_size"), 40960u + 46006272u);
    assert_int_equal(prop(text, "drm_render_minor"), 129);

    /* the same gpu_ids again: refused, nothing added */
    assert_int_equal(gc_emu_devices_add(path, devs, 4, &n, err, sizeof(err)), GPUCORE_E_INVAL);
    assert_non_null(strstr(err, "0x1111"));
    assert_int_equal(n, 2);
    unlink(path);
    free(path);
}

static void test_duplicate_gpu_id_with_preset(void **state)
{
    struct gc_emu_device devs[4];
    size_t n = 0;
    char err[256] = "";
    char *path = tmp_file("dup.json",
                          "{ \"name\": \"dup\", \"agents\": [ { \"target\": \"gfx90a\","
                          " \"gpu_id\": \"0x3357\", \"simd_count\": 416 } ] }\n");

    (void)state;
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 4, &n, err, sizeof(err)), GPUCORE_OK);
    assert_int_equal(devs[0].agent.gpu_id, 0x3357);
    assert_int_equal(gc_emu_devices_add(path, devs, 4, &n, err, sizeof(err)), GPUCORE_E_INVAL);
    assert_non_null(strstr(err, "0x3357"));
    assert_int_equal(n, 1);
    unlink(path);
    free(path);
}

static void test_unreadable_device_file(void **state)
{
    struct gc_emu_device devs[1];
    size_t n = 0;
    char err[256] = "";

    (void)state;
    assert_true(gc_emu_devices_add("/nonexistent/devices.json", devs, 1, &n, err, sizeof(err)) <
                0);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "/nonexistent/devices.json"));
}

static char *read_text(const char *dir, const char *rel)
{
    static char buf[8192];
    char path[4096];
    ssize_t k;
    int fd;

    assert_true(snprintf(path, sizeof(path), "%s/%s", dir, rel) < (int)sizeof(path));
    fd = open(path, O_RDONLY);
    if (fd < 0)
        fail_msg("%s: %s", path, strerror(errno));
    k = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    assert_true(k >= 0);
    buf[k] = '\0';
    return buf;
}

static int exists(const char *dir, const char *rel)
{
    char path[4096];

    assert_true(snprintf(path, sizeof(path), "%s/%s", dir, rel) < (int)sizeof(path));
    return access(path, F_OK) == 0;
}

static int make_writable(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)f;
    if (type == FTW_D)
        chmod(path, (st->st_mode & 07777) | 0700);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st, (void)type, (void)f;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    nftw(dir, make_writable, 16, FTW_PHYS);
    nftw(dir, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

static void test_topology_write(void **state)
{
    struct gc_emu_device devs[2];
    size_t n = 0;
    char err[256], dir[4096];
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    int dirfd;

    (void)state;
    /* The tree is made read-only as it is written (directories 0555, files 0444, as sysfs
       shows them): only a writer that bypasses permissions (root, as gpucore-kfdemu runs) can
       fill it. */
    if (geteuid() != 0)
        skip();
    assert_non_null(tmp);
    assert_int_equal(gc_emu_devices_add("gfx90a", devs, 2, &n, err, sizeof(err)), GPUCORE_OK);
    assert_int_equal(gc_emu_devices_add("gfx942", devs, 2, &n, err, sizeof(err)), GPUCORE_OK);
    assert_true(snprintf(dir, sizeof(dir), "%s/kfdemu-topology.XXXXXX", tmp) < (int)sizeof(dir));
    assert_non_null(mkdtemp(dir));
    dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(gc_emu_topology_write(dirfd, devs, n, 6), GPUCORE_OK);
    close(dirfd);

    assert_string_equal(read_text(dir, "generation_id"), "1\n");
    assert_non_null(strstr(read_text(dir, "system_properties"), "platform_id 0\n"));
    /* node 0: the CPU */
    assert_string_equal(read_text(dir, "nodes/0/gpu_id"), "0\n");
    assert_int_equal(prop(read_text(dir, "nodes/0/properties"), "cpu_cores_count"), 6);
    assert_int_equal(prop(read_text(dir, "nodes/0/properties"), "simd_count"), 0);
    assert_int_equal(prop(read_text(dir, "nodes/0/mem_banks/0/properties"), "heap_type"), 0);
    assert_false(exists(dir, "nodes/0/io_links/0"));
    /* node 1: the gfx90a, whole */
    assert_string_equal(read_text(dir, "nodes/1/gpu_id"), "13143\n"); /* 0x3357 */
    assert_string_equal(read_text(dir, "nodes/1/name"), "aldebaran\n");
    assert_string_equal(read_text(dir, "nodes/1/properties"), gfx90a_properties);
    assert_string_equal(read_text(dir, "nodes/1/mem_banks/0/properties"),
                        "heap_type 1\nsize_in_bytes 68719476736\nflags 0\nwidth 4096\n"
                        "mem_clk_max 1600\n");
    for (int c = 0; c < 4; c++) {
        char rel[64];

        snprintf(rel, sizeof(rel), "nodes/1/caches/%d/properties", c);
        assert_true(exists(dir, rel));
    }
    assert_false(exists(dir, "nodes/1/caches/4")); /* no MALL on an MI210 */
    assert_int_equal(prop(read_text(dir, "nodes/1/caches/3/properties"), "level"), 2);
    assert_int_equal(prop(read_text(dir, "nodes/1/caches/3/properties"), "size"), 8192);
    assert_int_equal(prop(read_text(dir, "nodes/1/io_links/0/properties"), "node_from"), 1);
    assert_int_equal(prop(read_text(dir, "nodes/1/io_links/0/properties"), "node_to"), 0);
    assert_true(exists(dir, "nodes/1/p2p_links"));
    /* node 2: the gfx942, with its L3 */
    assert_string_equal(read_text(dir, "nodes/2/name"), "ip discovery\n");
    assert_int_equal(prop(read_text(dir, "nodes/2/properties"), "caches_count"), 5);
    assert_int_equal(prop(read_text(dir, "nodes/2/properties"), "num_xcc"), 8);
    assert_int_equal(prop(read_text(dir, "nodes/2/properties"), "drm_render_minor"), 129);
    assert_int_equal(prop(read_text(dir, "nodes/2/caches/4/properties"), "level"), 3);
    assert_false(exists(dir, "nodes/3"));
    remove_tree(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* ioctls                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_get_version(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_get_version_args a = { 99, 99 };

    assert_int_equal(KFD_RET(e, NR_GET_VERSION, a), 0);
    assert_int_equal(a.major_version, 1);
    assert_int_equal(a.minor_version, 17);
}

static void test_unknown_numbers(void **state)
{
    struct env *e = *state;
    uint8_t a[64] = { 0 };
    unsigned in, out;

    /* kfd_ioctl: nr >= AMDKFD_CORE_IOCTL_COUNT or outside [COMMAND_START, COMMAND_END):
       -ENOTTY, nothing copied */
    assert_int_equal(kfd_ret(e, 0, a, 8), -ENOTTY);
    assert_int_equal(kfd_ret(e, NR_COMMAND_END, a, 8), -ENOTTY);
    assert_int_equal(kfd_ret(e, 0xff, a, 8), -ENOTTY);
    assert_int_equal(gc_emu_kfd_arg_copy(GC_IOC(IOC_RW, 'K', 0, 8), &in, &out), 0);
    assert_int_equal(gc_emu_kfd_arg_copy(GC_IOC(IOC_RW, 'K', NR_COMMAND_END, 8), &in, &out), 0);
    assert_int_equal(in, 0);
    assert_int_equal(out, 0);
    /* numbers amdkfd has that the emulator does not serve: -EINVAL */
    assert_int_equal(kfd_ret(e, NR_SMI_EVENTS, a, 8), -EINVAL);
    assert_int_equal(kfd_ret(e, NR_SVM, a, 24), -EINVAL);
    assert_int_equal(kfd_ret(e, NR_CRIU_OP, a, 40), -EINVAL);
    assert_int_equal(kfd_ret(e, NR_DBG_TRAP, a, 32), -EINVAL);
    /* amdkfd's deprecated debugger calls have no function: -EINVAL (kfd_ioctl "no function") */
    assert_int_equal(kfd_ret(e, NR_DBG_REGISTER_DEPRECATED, a, 8), -EINVAL);
    /* the type byte is not checked: 'K' or not, the number selects the call */
    {
        static uint8_t buf[GC_EMU_ARGS_MAX];
        struct gc_emu_result r;

        memset(buf, 0, sizeof(buf));
        r = gc_emu_kfd_ioctl(&e->p, GC_IOC(2u, 'x', NR_GET_VERSION, 8), buf, &e->io);
        assert_int_equal(r.ret, 0);
        assert_int_equal(((struct kfd_ioctl_get_version_args *)(void *)buf)->minor_version, 17);
    }
    assert_string_equal(gc_emu_kfd_name(GC_IOC(IOC_RW, 'K', NR_CREATE_QUEUE, 96)),
                        "CREATE_QUEUE");
    assert_null(gc_emu_kfd_name(GC_IOC(IOC_RW, 'K', 0xff, 8)));
}

static void test_arg_copy_directions(void **state)
{
    unsigned in, out;

    (void)state;
    /* GET_VERSION is _IOR: nothing in, the program's size out */
    assert_int_equal(gc_emu_kfd_arg_copy(GC_IOC(IOC_RW, 'K', NR_GET_VERSION, 8), &in, &out), 1);
    assert_int_equal(in, 0);
    assert_int_equal(out, 8);
    /* ACQUIRE_VM is _IOW: in only */
    assert_int_equal(gc_emu_kfd_arg_copy(GC_IOC(IOC_RW, 'K', NR_ACQUIRE_VM, 8), &in, &out), 1);
    assert_int_equal(in, 8);
    assert_int_equal(out, 0);
    /* CREATE_QUEUE is _IOWR; a short size from the program is what is copied both ways */
    assert_int_equal(gc_emu_kfd_arg_copy(GC_IOC(IOC_RW, 'K', NR_CREATE_QUEUE, 40), &in, &out),
                     1);
    assert_int_equal(in, 40);
    assert_int_equal(out, 40);
}

static void test_truncated_arguments(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_create_event_args ev = { .event_type = KFD_IOC_EVENT_SIGNAL };
    struct kfd_ioctl_alloc_memory_of_gpu_args al = {
        .va_addr = AT(OFF_DATA), .size = 4096, .gpu_id = gpu0(e),
        .flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT,
    };

    acquire(e, gpu0(e));
    /* ALLOC with only 32 of its 40 bytes: gpu_id and flags read as 0 (zero-extended, not the
       poison past them): no device 0 -> -EINVAL */
    assert_int_equal(kfd_ret(e, NR_ALLOC_MEMORY_OF_GPU, &al, 32), -EINVAL);
    /* CREATE_EVENT with 16 of 32 bytes: auto_reset, node_id read as 0; the event is made and
       only the program's 16 bytes come back */
    ev.event_id = 0xdeadbeef;
    assert_int_equal(kfd_ret(e, NR_CREATE_EVENT, &ev, 16), 0);
    assert_int_equal(ev.event_page_offset, KFD_MMAP_TYPE_EVENTS);
    assert_int_equal(ev.event_id, 0xdeadbeef); /* past the 16 bytes: not written */
    assert_int_equal(e->p.nevents, 1);
}

static void test_process_apertures_new(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_get_process_apertures_new_args a = { 0 };
    struct kfd_process_device_apertures pa[3];

    /* count query */
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), 0);
    assert_int_equal(a.num_of_nodes, 2);
    /* fill */
    memset(e->mem + OFF_ARGS, 0xee, 3 * sizeof(pa[0]));
    a.kfd_process_device_apertures_ptr = AT(OFF_ARGS);
    a.num_of_nodes = 2;
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), 0);
    assert_int_equal(a.num_of_nodes, 2);
    memcpy(pa, e->mem + OFF_ARGS, sizeof(pa));
    assert_int_equal(pa[0].gpu_id, e->devs[0].agent.gpu_id);
    assert_int_equal(pa[1].gpu_id, e->devs[1].agent.gpu_id);
    assert_true(pa[0].gpuvm_limit > pa[0].gpuvm_base);
    assert_true(pa[0].lds_limit > pa[0].lds_base);
    assert_true(pa[0].scratch_limit > pa[0].scratch_base);
    assert_int_equal(pa[2].gpu_id, 0xeeeeeeeeu); /* only num_of_nodes entries written */
    /* fewer slots than GPUs: that many written, and said */
    a.num_of_nodes = 1;
    memset(e->mem + OFF_ARGS, 0xee, 3 * sizeof(pa[0]));
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), 0);
    assert_int_equal(a.num_of_nodes, 1);
    memcpy(pa, e->mem + OFF_ARGS, sizeof(pa));
    assert_int_equal(pa[1].gpu_id, 0xeeeeeeeeu);
    /* every topology node (CPU included: 3) is accepted, one more is -EINVAL
       (kfd_ioctl_get_process_apertures_new: num_of_nodes > kfd_topology_get_num_devices()) */
    a.num_of_nodes = 3;
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), 0);
    assert_int_equal(a.num_of_nodes, 2);
    a.num_of_nodes = 4;
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), -EINVAL);
    /* a pointer outside the process: -EFAULT */
    a.num_of_nodes = 2;
    a.kfd_process_device_apertures_ptr = 0x1000;
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), -EFAULT);
    a.kfd_process_device_apertures_ptr = AT(MEM_SIZE - sizeof(pa[0])); /* the 2nd one faults */
    assert_int_equal(KFD_RET(e, NR_GET_PROCESS_APERTURES_NEW, a), -EFAULT);
}

static void test_acquire_vm(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_acquire_vm_args a = { .drm_fd = 5, .gpu_id = 0x9999 };

    assert_int_equal(KFD_RET(e, NR_ACQUIRE_VM, a), -EINVAL); /* no such GPU */
    a.gpu_id = gpu0(e);
    assert_int_equal(KFD_RET(e, NR_ACQUIRE_VM, a), 0);
    assert_int_equal(KFD_RET(e, NR_ACQUIRE_VM, a), 0); /* again: still fine */
}

static void test_alloc_free(void **state)
{
    struct env *e = *state;
    uint64_t h1, h2, off1, off2, h;
    struct kfd_ioctl_free_memory_of_gpu_args fr;

    /* no ACQUIRE_VM yet: kfd_bind_process_to_device finds no VM */
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA), 8192, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL,
                           NULL),
                     -EINVAL);
    acquire(e, gpu0(e));
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA), 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL,
                           NULL),
                     -EINVAL); /* size 0 */
    assert_int_equal(alloc(e, 0x9999, AT(OFF_DATA), 4096, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL,
                           NULL),
                     -EINVAL); /* no such GPU */
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA), 8192, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, &h1,
                           &off1),
                     0);
    assert_int_equal(h1 >> 32, gpu0(e)); /* GET_GPU_ID(handle) */
    assert_int_equal(off1, FILE_BASE);
    /* overlapping the first: -EADDRINUSE; just after it: fine, the next file offset */
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA + 4096), 8192, KFD_IOC_ALLOC_MEM_FLAGS_GTT,
                           &h, NULL),
                     -EADDRINUSE);
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA + 8192), 4096, KFD_IOC_ALLOC_MEM_FLAGS_GTT,
                           &h2, &off2),
                     0);
    assert_int_equal(off2, FILE_BASE + 8192);
    assert_true(h2 != h1);
    assert_int_equal(gc_emu_kfd_find_mem(&e->p, AT(OFF_DATA + 8192 + 100))->handle, h2);
    assert_null(gc_emu_kfd_find_mem(&e->p, AT(OFF_DATA + 8192 + 4096)));
    /* free: unknown handle -EINVAL; known: gone, and its range free again */
    fr.handle = h1 + 1000;
    assert_int_equal(KFD_RET(e, NR_FREE_MEMORY_OF_GPU, fr), -EINVAL);
    fr.handle = h1;
    assert_int_equal(KFD_RET(e, NR_FREE_MEMORY_OF_GPU, fr), 0);
    assert_int_equal(KFD_RET(e, NR_FREE_MEMORY_OF_GPU, fr), -EINVAL);
    assert_null(gc_emu_kfd_find_mem(&e->p, AT(OFF_DATA)));
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA), 4096, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL,
                           NULL),
                     0);
    /* a doorbell buffer must be the process's doorbell slice (8 KiB on gfx9 and later) */
    assert_int_equal(alloc(e, gpu0(e), AT(0x20000), 4096, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL,
                           NULL, NULL),
                     -EINVAL);
    /* and the MMIO remap page one page */
    assert_int_equal(alloc(e, gpu0(e), AT(0x22000), 8192, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP,
                           NULL, NULL),
                     -EINVAL);
}

static void test_map_unmap(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_map_memory_to_gpu_args a = { 0 };
    uint64_t h;
    uint32_t ids[2] = { gpu0(e), e->devs[1].agent.gpu_id };

    acquire(e, gpu0(e));
    assert_int_equal(alloc(e, gpu0(e), AT(OFF_DATA), 4096, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h,
                           NULL),
                     0);
    memcpy(e->mem + OFF_ARGS, ids, sizeof(ids));
    a.handle = h;
    a.device_ids_array_ptr = AT(OFF_ARGS);
    /* kfd_ioctl_map_memory_to_gpu: n_devices 0, or n_success above n_devices: -EINVAL */
    a.n_devices = 0;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -EINVAL);
    a.n_devices = 1;
    a.n_success = 2;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -EINVAL);
    /* both GPUs */
    a.n_devices = 2;
    a.n_success = 0;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), 0);
    assert_int_equal(a.n_success, 2);
    assert_int_equal(gc_emu_kfd_find_mem(&e->p, AT(OFF_DATA))->mapped, 3);
    /* resumed after one: only the second is unmapped */
    a.n_success = 1;
    assert_int_equal(KFD_RET(e, NR_UNMAP_MEMORY_FROM_GPU, a), 0);
    assert_int_equal(a.n_success, 2);
    assert_int_equal(gc_emu_kfd_find_mem(&e->p, AT(OFF_DATA))->mapped, 1);
    /* an unknown GPU in the array: -EINVAL */
    put32(e, OFF_ARGS + 4, 0x9999);
    a.n_success = 0;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -EINVAL);
    /* the array outside the process: -EFAULT */
    a.device_ids_array_ptr = 0x1000;
    a.n_success = 0;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -EFAULT);
    /* a handle whose GPU part names no device: -EINVAL (kfd_process_device_data_by_id) */
    a.device_ids_array_ptr = AT(OFF_ARGS);
    a.handle = (0x9999ull << 32) | 1;
    a.n_devices = 1;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -EINVAL);
}

static uint32_t create_event(struct env *e, uint32_t type, uint32_t auto_reset)
{
    struct kfd_ioctl_create_event_args a = { .event_type = type, .auto_reset = auto_reset };

    assert_int_equal(KFD_RET(e, NR_CREATE_EVENT, a), 0);
    if (type == KFD_IOC_EVENT_SIGNAL) {
        assert_int_equal(a.event_page_offset, KFD_MMAP_TYPE_EVENTS);
        assert_int_equal(a.event_slot_index, a.event_id);
    }
    assert_int_equal(a.event_trigger_data, a.event_id);
    return a.event_id;
}

static long event_op(struct env *e, unsigned nr, uint32_t id)
{
    struct kfd_ioctl_event_id_args a = { .event_id = id };

    return KFD_RET(e, nr, a);
}

/* Wait for one event (its kfd_event_data at OFF_ARGS); returns the call's result with the
   wait_result in *result. */
static struct gc_emu_result wait1(struct env *e, uint32_t id, uint64_t last_age,
                                  uint32_t timeout, struct kfd_ioctl_wait_events_args *a)
{
    struct kfd_event_data ed = { 0 };

    ed.event_id = id;
    ed.signal_event_data.last_event_age = last_age;
    memcpy(e->mem + OFF_ARGS, &ed, sizeof(ed));
    *a = (struct kfd_ioctl_wait_events_args){ .events_ptr = AT(OFF_ARGS), .num_events = 1,
                                              .timeout = timeout, .wait_result = 77 };
    return KFD(e, NR_WAIT_EVENTS, *a);
}

static uint64_t waited_age(const struct env *e)
{
    return get64(e, OFF_ARGS + offsetof(struct kfd_event_data, signal_event_data));
}

static void expect_wait(struct env *e, uint32_t id, uint64_t age, uint32_t want)
{
    struct kfd_ioctl_wait_events_args a;
    struct gc_emu_result r = wait1(e, id, age, 0, &a);

    assert_int_equal(r.verdict, GC_EMU_DONE);
    assert_int_equal(r.ret, 0);
    assert_int_equal(a.wait_result, want);
}

static void test_events_signal_and_reset(void **state)
{
    struct env *e = *state;
    uint32_t ar = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);
    uint32_t manual = create_event(e, KFD_IOC_EVENT_SIGNAL, 0);
    uint32_t other = create_event(e, KFD_IOC_EVENT_HW_EXCEPTION, 0);

    assert_true(ar != manual);
    /* not signaled, timeout 0: result TIMEOUT (1) at once */
    expect_wait(e, ar, 0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* signaled: COMPLETE; auto-reset: the next wait times out again */
    assert_int_equal(event_op(e, NR_SET_EVENT, ar), 0);
    expect_wait(e, ar, 0, KFD_IOC_WAIT_RESULT_COMPLETE);
    expect_wait(e, ar, 0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* manual reset: stays signaled until RESET_EVENT */
    assert_int_equal(event_op(e, NR_SET_EVENT, manual), 0);
    expect_wait(e, manual, 0, KFD_IOC_WAIT_RESULT_COMPLETE);
    expect_wait(e, manual, 0, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_int_equal(event_op(e, NR_RESET_EVENT, manual), 0);
    expect_wait(e, manual, 0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* kfd_set_event: only signal events may be set from user mode */
    assert_int_equal(event_op(e, NR_SET_EVENT, other), -EINVAL);
    /* unknown ids */
    assert_int_equal(event_op(e, NR_SET_EVENT, 0xabcdef), -EINVAL);
    assert_int_equal(event_op(e, NR_RESET_EVENT, 0xabcdef), -EINVAL);
    assert_int_equal(event_op(e, NR_DESTROY_EVENT, 0xabcdef), -EINVAL);
    /* destroyed: gone */
    assert_int_equal(event_op(e, NR_DESTROY_EVENT, ar), 0);
    assert_int_equal(event_op(e, NR_SET_EVENT, ar), -EINVAL);
}

static void test_events_wait_errors(void **state)
{
    struct env *e = *state;
    uint32_t id = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);
    struct kfd_ioctl_wait_events_args a;
    struct gc_emu_result r;

    /* init_event_waiter: an id with no event: -EINVAL */
    r = wait1(e, id + 100, 0, 0, &a);
    assert_int_equal(r.ret, -EINVAL);
    /* the event array outside the process: -EFAULT */
    a = (struct kfd_ioctl_wait_events_args){ .events_ptr = 0x1000, .num_events = 1 };
    assert_int_equal(KFD_RET(e, NR_WAIT_EVENTS, a), -EFAULT);
    /* wait_for_all over a signaled and an unsignaled event: not complete */
    {
        uint32_t id2 = create_event(e, KFD_IOC_EVENT_SIGNAL, 0);
        struct kfd_event_data ed[2];

        memset(ed, 0, sizeof(ed));
        ed[0].event_id = id;
        ed[1].event_id = id2;
        memcpy(e->mem + OFF_ARGS, ed, sizeof(ed));
        assert_int_equal(event_op(e, NR_SET_EVENT, id2), 0);
        a = (struct kfd_ioctl_wait_events_args){ .events_ptr = AT(OFF_ARGS), .num_events = 2,
                                                 .wait_for_all = 1 };
        assert_int_equal(KFD_RET(e, NR_WAIT_EVENTS, a), 0);
        assert_int_equal(a.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
        a.wait_for_all = 0; /* any: complete */
        assert_int_equal(KFD_RET(e, NR_WAIT_EVENTS, a), 0);
        assert_int_equal(a.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
    }
}

static void test_events_last_event_age(void **state)
{
    struct env *e = *state;
    uint32_t id = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);

    /* kfd_events.c: a new event's age is 1; a waiter that saw age 1 keeps waiting */
    expect_wait(e, id, 1, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* set (age 2) then reset: the event is not signaled, but its age moved on, so a waiter
       that last saw age 1 is activated (init_event_waiter) and told the new age */
    assert_int_equal(event_op(e, NR_SET_EVENT, id), 0);
    assert_int_equal(event_op(e, NR_RESET_EVENT, id), 0);
    expect_wait(e, id, 1, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_int_equal(waited_age(e), 2);
    /* seen age 2: waits */
    expect_wait(e, id, 2, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* the interrupt path (gc_emu_kfd_signal) ages it too */
    assert_int_equal(gc_emu_kfd_signal(&e->p, id), 0);
    expect_wait(e, id, 2, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_int_equal(waited_age(e), 3);
    assert_int_equal(gc_emu_kfd_signal(&e->p, id + 100), -1);
}

static void test_events_block_and_retry(void **state)
{
    struct env *e = *state;
    uint32_t id = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);
    static uint8_t args[GC_EMU_ARGS_MAX];
    struct kfd_ioctl_wait_events_args a;
    struct kfd_event_data ed = { 0 };
    unsigned cmd = GC_IOC(IOC_RW, 'K', NR_WAIT_EVENTS, (unsigned)sizeof(a));
    struct gc_emu_result r;

    ed.event_id = id;
    memcpy(e->mem + OFF_ARGS, &ed, sizeof(ed));
    a = (struct kfd_ioctl_wait_events_args){ .events_ptr = AT(OFF_ARGS), .num_events = 1,
                                             .timeout = 1500 };
    memset(args, 0, sizeof(args));
    memcpy(args, &a, sizeof(a));
    /* nothing signaled, a timeout: the caller must wait, told for how long */
    r = gc_emu_kfd_ioctl(&e->p, cmd, args, &e->io);
    assert_int_equal(r.verdict, GC_EMU_BLOCK);
    assert_int_equal(r.wait_ms, 1500);
    /* re-examined before anything happened: still blocked */
    r = gc_emu_kfd_wait_retry(&e->p, args, &e->io, 0);
    assert_int_equal(r.verdict, GC_EMU_BLOCK);
    /* the event fires: complete, and auto-reset consumed it */
    assert_int_equal(gc_emu_kfd_signal(&e->p, id), 0);
    r = gc_emu_kfd_wait_retry(&e->p, args, &e->io, 0);
    assert_int_equal(r.verdict, GC_EMU_DONE);
    assert_int_equal(r.ret, 0);
    memcpy(&a, args, sizeof(a));
    assert_int_equal(a.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
    /* again, and this time the deadline passes: TIMEOUT, not an error */
    r = gc_emu_kfd_ioctl(&e->p, cmd, args, &e->io);
    assert_int_equal(r.verdict, GC_EMU_BLOCK);
    r = gc_emu_kfd_wait_retry(&e->p, args, &e->io, 1);
    assert_int_equal(r.verdict, GC_EMU_DONE);
    assert_int_equal(r.ret, 0);
    memcpy(&a, args, sizeof(a));
    assert_int_equal(a.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
}

static void test_create_queue(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_create_queue_args q0, q1, q;
    struct kfd_ioctl_destroy_queue_args d;

    /* no VM for the device yet */
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 4096,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     -EINVAL);
    acquire(e, gpu0(e));
    /* set_queue_properties_from_user: a ring size not a power of two: -EINVAL */
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 3000,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     -EINVAL);
    /* percentage above 100, priority above 15: -EINVAL */
    q = (struct kfd_ioctl_create_queue_args){
        .ring_base_address = AT(OFF_AQL_RING), .ring_size = 4096, .gpu_id = gpu0(e),
        .read_pointer_address = AT(OFF_AQL_RPTR), .write_pointer_address = AT(OFF_AQL_WPTR),
        .queue_type = KFD_IOC_QUEUE_TYPE_SDMA, .queue_percentage = 101,
    };
    assert_int_equal(KFD_RET(e, NR_CREATE_QUEUE, q), -EINVAL);
    q.queue_percentage = 0x165; /* bits 8-15 are the pm4 target XCC: 0x65 = 101 still bad */
    assert_int_equal(KFD_RET(e, NR_CREATE_QUEUE, q), -EINVAL);
    q.queue_percentage = 100;
    q.queue_priority = 16;
    assert_int_equal(KFD_RET(e, NR_CREATE_QUEUE, q), -EINVAL);
    /* kfd_queue_acquire_buffers: an AQL queue's save area must be the node's size */
    q = (struct kfd_ioctl_create_queue_args){
        .ring_base_address = AT(OFF_AQL_RING), .ring_size = 4096, .gpu_id = gpu0(e),
        .read_pointer_address = AT(OFF_AQL_RPTR), .write_pointer_address = AT(OFF_AQL_WPTR),
        .queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, .ctx_save_restore_size = GFX90A_CWSR - 4096,
        .ctl_stack_size = GFX90A_CTL_STACK,
    };
    assert_int_equal(KFD_RET(e, NR_CREATE_QUEUE, q), -EINVAL);
    q.ctx_save_restore_size = GFX90A_CWSR;
    q.ctl_stack_size = GFX90A_CTL_STACK + 4096;
    assert_int_equal(KFD_RET(e, NR_CREATE_QUEUE, q), -EINVAL);
    /* right sizes; a ring below 1024 bytes (0 too) is raised to 1024 */
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 256,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), &q0),
                     0);
    assert_int_equal(q0.ring_size, 1024);
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 0,
                                  AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), &q1),
                     0);
    assert_int_equal(q1.ring_size, 1024);
    assert_true(q0.queue_id != q1.queue_id);
    /* doorbells: 8 bytes each in one 8 KiB page of the process (the thunk splits the offset
       with mask 8191: hsaKmtCreateQueueExtCtx) */
    assert_int_equal(q0.doorbell_offset & ~8191ull, q1.doorbell_offset & ~8191ull);
    assert_int_equal(q0.doorbell_offset % 8, 0);
    assert_int_equal(q1.doorbell_offset % 8, 0);
    assert_true(q0.doorbell_offset != q1.doorbell_offset);
    /* a second process: a page of its own */
    {
        struct gc_emu_proc *p2 = malloc(sizeof(*p2));

        assert_non_null(p2);
        gc_emu_proc_init(p2, &e->m, 4343);
        e->cur = p2;
        acquire(e, gpu0(e));
        assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                      AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), &q),
                         0);
        assert_true((q.doorbell_offset & ~8191ull) != (q0.doorbell_offset & ~8191ull));
        e->cur = &e->p;
        gc_emu_proc_fini(p2);
        free(p2);
    }
    /* XNACK cannot change while queues exist (kfd_ioctl_set_xnack_mode: -EBUSY) */
    {
        struct kfd_ioctl_set_xnack_mode_args x = { .xnack_enabled = 0 };

        assert_int_equal(KFD_RET(e, NR_SET_XNACK_MODE, x), -EBUSY);
    }
    /* destroy: unknown id -EINVAL, then each of ours once */
    d = (struct kfd_ioctl_destroy_queue_args){ .queue_id = 77 };
    assert_int_equal(KFD_RET(e, NR_DESTROY_QUEUE, d), -EINVAL);
    d.queue_id = q0.queue_id;
    assert_int_equal(KFD_RET(e, NR_DESTROY_QUEUE, d), 0);
    assert_int_equal(KFD_RET(e, NR_DESTROY_QUEUE, d), -EINVAL);
    d.queue_id = q1.queue_id;
    assert_int_equal(KFD_RET(e, NR_DESTROY_QUEUE, d), 0);
    assert_int_equal(e->p.nqueues, 0);
}

static void test_queue_limit(void **state)
{
    struct env *e = *state;
    unsigned n = 0;
    long r = 0;

    acquire(e, gpu0(e));
    while (n < 10000 && (r = create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                          AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), NULL)) == 0)
        n++;
    assert_int_equal(r, -ENOMEM);
    assert_int_equal(n, GC_EMU_MAX_QUEUES);
}

static void test_set_xnack_mode(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_set_xnack_mode_args x = { .xnack_enabled = -1 };

    /* query (negative): the current mode, off */
    assert_int_equal(KFD_RET(e, NR_SET_XNACK_MODE, x), 0);
    assert_int_equal(x.xnack_enabled, 0);
    /* off again: fine; on: no emulated device can retry faults (kfd_process_xnack_mode) */
    x.xnack_enabled = 0;
    assert_int_equal(KFD_RET(e, NR_SET_XNACK_MODE, x), 0);
    x.xnack_enabled = 1;
    assert_int_equal(KFD_RET(e, NR_SET_XNACK_MODE, x), -EPERM);
    x.xnack_enabled = -1;
    assert_int_equal(KFD_RET(e, NR_SET_XNACK_MODE, x), 0);
    assert_int_equal(x.xnack_enabled, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* DRM render node                                                                             */
/* ------------------------------------------------------------------------------------------ */

#define DRM_VERSION_NR 0x00
#define DRM_GET_CLIENT_NR 0x05
#define DRM_AMDGPU_INFO_NR 0x45 /* DRM_COMMAND_BASE + DRM_AMDGPU_INFO */

struct drm_version64 { /* include/uapi/drm/drm.h, LP64 */
    int32_t major, minor, patch, pad;
    uint64_t name_len, name, date_len, date, desc_len, desc;
};

struct amdgpu_info { /* include/uapi/drm/amdgpu_drm.h */
    uint64_t return_pointer;
    uint32_t return_size, query;
    uint32_t arg[4];
};

static long drm(struct env *e, unsigned dev, unsigned nr, void *args, unsigned size)
{
    static uint8_t buf[GC_EMU_ARGS_MAX];
    long r;

    memset(buf, 0, sizeof(buf));
    memcpy(buf, args, size);
    r = gc_emu_drm_ioctl(&e->devs[dev], GC_IOC(IOC_RW, 'd', nr, size), buf, &e->io);
    memcpy(args, buf, size);
    return r;
}

static void test_drm_version(void **state)
{
    struct env *e = *state;
    struct drm_version64 v = { 0 };

    /* drm_copy_field: lengths 0: only told the lengths */
    assert_int_equal(drm(e, 0, DRM_VERSION_NR, &v, sizeof(v)), 0);
    assert_int_equal(v.name_len, 6);
    assert_int_equal(v.major, 3);
    assert_true(v.date_len > 0 && v.desc_len > 0);
    /* room for 3 of 6: "amd", nothing past it, the full length told */
    memset(e->mem + OFF_ARGS, '#', 64);
    v = (struct drm_version64){ .name_len = 3, .name = AT(OFF_ARGS) };
    assert_int_equal(drm(e, 0, DRM_VERSION_NR, &v, sizeof(v)), 0);
    assert_memory_equal(e->mem + OFF_ARGS, "amd#", 4);
    assert_int_equal(v.name_len, 6);
    /* room for all: "amdgpu", no NUL added */
    v = (struct drm_version64){ .name_len = 32, .name = AT(OFF_ARGS) };
    assert_int_equal(drm(e, 0, DRM_VERSION_NR, &v, sizeof(v)), 0);
    assert_memory_equal(e->mem + OFF_ARGS, "amdgpu#", 7);
    assert_int_equal(v.name_len, 6);
    /* a bad pointer with room: -EFAULT */
    v = (struct drm_version64){ .name_len = 32, .name = 0x1000 };
    assert_int_equal(drm(e, 0, DRM_VERSION_NR, &v, sizeof(v)), -EFAULT);
    assert_string_equal(gc_emu_drm_name(GC_IOC(IOC_RW, 'd', DRM_VERSION_NR, 64)), "VERSION");
}

static void test_drm_amdgpu_info(void **state)
{
    struct env *e = *state;
    struct amdgpu_info q = { .return_pointer = AT(OFF_ARGS), .return_size = 440,
                             .query = 0x16 /* AMDGPU_INFO_DEV_INFO */ };
    uint32_t id, family, cus;

    memset(e->mem + OFF_ARGS, 0xee, 512);
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), 0);
    /* struct drm_amdgpu_info_device: device_id at 0, family at 16, cu_active_number at 48 */
    id = get32(e, OFF_ARGS);
    family = get32(e, OFF_ARGS + 16);
    cus = get32(e, OFF_ARGS + 48);
    assert_int_equal(id, 0x740f);
    assert_int_equal(family, 141); /* AMDGPU_FAMILY_AI */
    assert_int_equal(cus, 104);
    assert_int_equal(get32(e, OFF_ARGS + 440), 0xeeeeeeeeu); /* nothing past return_size */
    /* the RX 7900 XTX */
    assert_int_equal(drm(e, 1, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), 0);
    assert_int_equal(get32(e, OFF_ARGS), 0x744c);
    assert_int_equal(get32(e, OFF_ARGS + 16), 145); /* AMDGPU_FAMILY_GC_11_0_0 */
    assert_int_equal(get32(e, OFF_ARGS + 48), 96);
    /* a shorter return_size: that many bytes */
    memset(e->mem + OFF_ARGS, 0xee, 512);
    q.return_size = 8;
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), 0);
    assert_int_equal(get32(e, OFF_ARGS), 0x740f);
    assert_int_equal(get32(e, OFF_ARGS + 8), 0xeeeeeeeeu);
    /* amdgpu_info_ioctl: return_size 0 or no pointer: -EINVAL */
    q.return_size = 0;
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), -EINVAL);
    q.return_size = 8;
    q.return_pointer = 0;
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), -EINVAL);
    /* an unknown query: -EINVAL */
    q.return_pointer = AT(OFF_ARGS);
    q.query = 0xfe;
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), -EINVAL);
    /* a bad return pointer: -EFAULT */
    q.query = 0x16;
    q.return_pointer = 0x1000;
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), -EFAULT);
}

static void test_drm_read_mmr_reg(void **state)
{
    struct env *e = *state;
    struct amdgpu_info q = { .return_pointer = AT(OFF_ARGS), .return_size = 4,
                             .query = 0x15 /* AMDGPU_INFO_READ_MMR_REG */,
                             .arg = { 0x263e /* GB_ADDR_CONFIG */, 1, 0xffffffffu } };

    put32(e, OFF_ARGS, 0);
    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), 0);
    assert_true(get32(e, OFF_ARGS) != 0);
}

static void test_drm_refused(void **state)
{
    struct env *e = *state;
    uint8_t client[40] = { 0 };

    /* GET_CLIENT lacks DRM_RENDER_ALLOW: a render client is refused (drm_ioctl_permit) */
    assert_int_equal(drm(e, 0, DRM_GET_CLIENT_NR, client, sizeof(client)), -EACCES);
    /* an unknown DRM call, and a KFD-type number on the render node: -EINVAL */
    assert_int_equal(drm(e, 0, 0x3f, client, 8), -EINVAL);
    assert_int_equal(gc_emu_drm_ioctl(&e->devs[0], GC_IOC(IOC_RW, 'K', 1, 8), client, &e->io),
                     -EINVAL);
    assert_string_equal(gc_emu_drm_name(GC_IOC(IOC_RW, 'd', 0x3f, 8)), "?");
}

/* ------------------------------------------------------------------------------------------ */
/* Command processor                                                                           */
/* ------------------------------------------------------------------------------------------ */

#define AQL_BARRIER_AND 3u
#define AQL_KERNEL_DISPATCH 2u

/* amd_signal_t at OFF_SIGNALS + 64 * i: value at +8, event mailbox at +16, event id at +24 */
static uint32_t signal_off(unsigned i)
{
    return OFF_SIGNALS + 64u * i;
}

static void make_signal(struct env *e, unsigned i, int64_t value, uint64_t mailbox,
                        uint32_t event_id)
{
    memset(e->mem + signal_off(i), 0, 64);
    put64(e, signal_off(i) + 8, (uint64_t)value);
    put64(e, signal_off(i) + 16, mailbox);
    put32(e, signal_off(i) + 24, event_id);
}

/* AQL packet @p slot of the ring: type, the dependency (barrier) and completion signals. */
static void aql_packet(struct env *e, unsigned slot, unsigned type, uint64_t dep,
                       uint64_t completion)
{
    uint8_t *p = e->mem + OFF_AQL_RING + 64u * slot;
    uint16_t header = (uint16_t)type;

    memset(p, 0, 64);
    memcpy(p, &header, 2);
    if (type == AQL_BARRIER_AND)
        memcpy(p + 8, &dep, 8); /* dep_signal[0] */
    memcpy(p + 56, &completion, 8);
}

static void test_cp_aql_barrier_and_dispatch(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint32_t ev = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);

    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 4096,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     0);
    make_signal(e, 0, 1, 0, 0);                    /* the barrier's dependency */
    make_signal(e, 1, 1, AT(OFF_MAILBOX), ev);      /* the dispatch's completion signal */
    put64(e, OFF_MAILBOX, 0);
    aql_packet(e, 0, AQL_BARRIER_AND, AT(signal_off(0)), 0);
    aql_packet(e, 1, AQL_KERNEL_DISPATCH, 0, AT(signal_off(1)));
    put64(e, OFF_AQL_WPTR, 2);

    /* the dependency is 1: the queue stalls on the barrier, nothing retired */
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.packets, 0);
    assert_int_equal(st.stalled, 1);
    assert_int_equal(get64(e, OFF_AQL_RPTR), 0);
    expect_wait(e, ev, 0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    /* the dependency reaches 0: the barrier and the dispatch complete */
    put64(e, signal_off(0) + 8, 0);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.packets, 2);
    assert_int_equal(st.stalled, 0);
    assert_int_equal(st.events, 1);
    assert_int_equal(get64(e, OFF_AQL_RPTR), 2);
    assert_int_equal((int64_t)get64(e, signal_off(1) + 8), 0); /* decremented */
    assert_int_equal(get64(e, OFF_MAILBOX), ev);               /* the event id in the mailbox */
    expect_wait(e, ev, 0, KFD_IOC_WAIT_RESULT_COMPLETE);       /* and the event raised */
    /* nothing more written: a pass does nothing */
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.packets, 0);
    assert_int_equal(st.stalled, 0);
}

static void test_cp_aql_invalid_header_waits(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;

    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 4096,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     0);
    make_signal(e, 0, 3, 0, 0);
    aql_packet(e, 0, 1 /* INVALID: the header not yet written */, 0, AT(signal_off(0)));
    put64(e, OFF_AQL_WPTR, 1);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.packets, 0);
    assert_int_equal((int64_t)get64(e, signal_off(0) + 8), 3);
    aql_packet(e, 0, AQL_KERNEL_DISPATCH, 0, AT(signal_off(0)));
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.packets, 1);
    assert_int_equal((int64_t)get64(e, signal_off(0) + 8), 2);
}

static void test_cp_aql_bounded_pass(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;

    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 4096,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     0);
    for (unsigned i = 0; i < 64; i++)
        aql_packet(e, i, AQL_BARRIER_AND, 0, 0); /* no dependencies: always ready */
    /* a hostile write index far ahead: one pass does a bounded amount of work and returns */
    put64(e, OFF_AQL_WPTR, 1ull << 62);
    gc_emu_cp_run(&e->vm, &st);
    assert_true(st.packets > 0);
    assert_true(st.packets <= 65536);
    assert_int_equal(get64(e, OFF_AQL_RPTR), st.packets);
}

/*
 * ROCr's blit kernels (ROCr 6.1 amd_blit_kernel.cpp, amd_gpu_agent.cpp AssembleShader): a
 * zeroed 256-byte amd_kernel_code_t with the code's entry offset, the kernarg pointer enable,
 * the register granules of the shader's declared counts ((n - 1) / 8 SGPRs, (n - 1) / 4
 * VGPRs), denorm 16/64 and IEEE modes, two user SGPRs and the workgroup id X; dispatched 64
 * work-items per group, the grid the arguments' work-item count rounded up to 64.
 */
#define OFF_BLIT_CODE 0x20000u
#define OFF_BLIT_ARGS 0x20400u
#define OFF_BLIT_SRC 0x21000u
#define OFF_BLIT_DST 0x23000u
#define BLIT_RSRC1_COPY_ALIGNED 0x8c00c2u    /* 32 SGPRs, 12 VGPRs: granules 3 and 2 */
#define BLIT_RSRC1_COPY_MISALIGNED 0x8c0082u /* 23 SGPRs, 10 VGPRs: granules 2 and 2 */
#define BLIT_RSRC1_FILL 0x8c0081u            /* 19 SGPRs, 8 VGPRs: granules 2 and 1 */
#define BLIT_CUS 26u                         /* ROCr's num_cus_: 104 CUs / 4 */

static void blit_header(struct env *e, uint32_t rsrc1)
{
    memset(e->mem + OFF_BLIT_CODE, 0, 256);
    put64(e, OFF_BLIT_CODE + 16, 256); /* kernel_code_entry_byte_offset */
    put32(e, OFF_BLIT_CODE + 48, rsrc1);
    put32(e, OFF_BLIT_CODE + 52, 0x84u); /* USER_SGPR_COUNT 2, TGID_X_EN */
    put32(e, OFF_BLIT_CODE + 56, 0x8u);  /* ENABLE_SGPR_KERNARG_SEGMENT_PTR */
}

/* Dispatch the blit kernel at OFF_BLIT_CODE with the arguments at @p ka as packet @p slot of
   the queue (made by the caller), and run the engines. */
static struct gc_emu_cp_stats blit_dispatch_at(struct env *e, unsigned slot, uint32_t grid,
                                               uint64_t ka)
{
    uint8_t *p = e->mem + OFF_AQL_RING + 64u * slot;
    uint16_t header = AQL_KERNEL_DISPATCH, setup = 1, wg = 64, one = 1;
    uint32_t grid_one = 1;
    uint64_t ko = AT(OFF_BLIT_CODE);
    struct gc_emu_cp_stats st;

    memset(p, 0, 64);
    memcpy(p, &header, 2);
    memcpy(p + 2, &setup, 2);
    memcpy(p + 4, &wg, 2);
    memcpy(p + 6, &one, 2);
    memcpy(p + 8, &one, 2);
    memcpy(p + 12, &grid, 4);
    memcpy(p + 16, &grid_one, 4);
    memcpy(p + 20, &grid_one, 4);
    memcpy(p + 32, &ko, 8);
    memcpy(p + 40, &ka, 8);
    put64(e, OFF_AQL_WPTR, slot + 1u);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(get64(e, OFF_AQL_RPTR), slot + 1u); /* the dispatch completes */
    return st;
}

static struct gc_emu_cp_stats blit_dispatch(struct env *e, unsigned slot, uint32_t grid)
{
    return blit_dispatch_at(e, slot, grid, AT(OFF_BLIT_ARGS));
}

static uint32_t align64(uint32_t n)
{
    return (n + 63u) & ~63u;
}

/* CopyAligned's arguments as SubmitLinearCopyCommand computes them. */
static uint32_t copy_aligned_args(struct env *e, uint64_t src, uint64_t dst, uint64_t size)
{
    uint32_t items = 64u * 4u * BLIT_CUS;
    uint64_t p1 = (0x100u - (dst & 0xffu)) & 0xffu, block = (uint64_t)items * 16u, p2, p3;

    p1 = p1 < size ? p1 : size;
    p2 = (size - p1) / block * block;
    p3 = (size - p1 - p2) / 4u * 4u;
    put64(e, OFF_BLIT_ARGS + 0, src);
    put64(e, OFF_BLIT_ARGS + 8, dst);
    put64(e, OFF_BLIT_ARGS + 16, src + p1);
    put64(e, OFF_BLIT_ARGS + 24, dst + p1);
    put64(e, OFF_BLIT_ARGS + 32, src + p1 + p2);
    put64(e, OFF_BLIT_ARGS + 40, dst + p1 + p2);
    put64(e, OFF_BLIT_ARGS + 48, src + p1 + p2 + p3);
    put64(e, OFF_BLIT_ARGS + 56, dst + p1 + p2 + p3);
    put64(e, OFF_BLIT_ARGS + 64, src + size);
    put64(e, OFF_BLIT_ARGS + 72, dst + size);
    put32(e, OFF_BLIT_ARGS + 80, items);
    return items;
}

static void fill_args(struct env *e, uint64_t dst, uint32_t value, uint64_t count)
{
    uint32_t items = 64u * BLIT_CUS;
    uint64_t size = count * 4u, block = (uint64_t)items * 16u, p1 = size / block * block;

    put64(e, OFF_BLIT_ARGS + 0, dst);
    put64(e, OFF_BLIT_ARGS + 8, dst + p1);
    put64(e, OFF_BLIT_ARGS + 16, dst + size);
    put32(e, OFF_BLIT_ARGS + 24, value);
    put32(e, OFF_BLIT_ARGS + 28, items);
}

static void blit_queue(struct env *e)
{
    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, AT(OFF_AQL_RING), 4096,
                                  AT(OFF_AQL_RPTR), AT(OFF_AQL_WPTR), NULL),
                     0);
    for (uint32_t i = 0; i < 0x1000u; i++)
        e->mem[OFF_BLIT_SRC + i] = (uint8_t)(i * 7u + 1u);
    memset(e->mem + OFF_BLIT_DST, 0xee, 0x2000);
}

static void test_cp_blit_kernels(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint32_t items, value = 0xdeadbeefu;
    uint64_t size;

    blit_queue(e);
    /* CopyAligned, source and destination 3 bytes past a 256-byte boundary: a byte phase of
       253 bytes, then dwords, then one byte */
    blit_header(e, BLIT_RSRC1_COPY_ALIGNED);
    items = copy_aligned_args(e, AT(OFF_BLIT_SRC + 3), AT(OFF_BLIT_DST + 3), 1001);
    st = blit_dispatch(e, 0, align64(items));
    assert_int_equal(st.blits, 1);
    assert_int_equal(st.blits_refused, 0);
    assert_memory_equal(e->mem + OFF_BLIT_DST + 3, e->mem + OFF_BLIT_SRC + 3, 1001);
    assert_int_equal(e->mem[OFF_BLIT_DST + 2], 0xee);
    assert_int_equal(e->mem[OFF_BLIT_DST + 3 + 1001], 0xee);

    /* CopyMisaligned: source 1 byte off the destination's alignment */
    memset(e->mem + OFF_BLIT_DST, 0xee, 0x2000);
    blit_header(e, BLIT_RSRC1_COPY_MISALIGNED);
    items = 64u * 4u * BLIT_CUS;
    size = 777;
    put64(e, OFF_BLIT_ARGS + 0, AT(OFF_BLIT_SRC + 1));
    put64(e, OFF_BLIT_ARGS + 8, AT(OFF_BLIT_DST));
    put64(e, OFF_BLIT_ARGS + 16, AT(OFF_BLIT_SRC + 1)); /* a whole block does not fit: 0 */
    put64(e, OFF_BLIT_ARGS + 24, AT(OFF_BLIT_DST));
    put64(e, OFF_BLIT_ARGS + 32, AT(OFF_BLIT_SRC + 1 + size));
    put64(e, OFF_BLIT_ARGS + 40, AT(OFF_BLIT_DST + size));
    put32(e, OFF_BLIT_ARGS + 48, items);
    st = blit_dispatch(e, 1, align64(items));
    assert_int_equal(st.blits, 1);
    assert_memory_equal(e->mem + OFF_BLIT_DST, e->mem + OFF_BLIT_SRC + 1, size);
    assert_int_equal(e->mem[OFF_BLIT_DST + size], 0xee);

    /* Fill: 100 dwords of the value */
    memset(e->mem + OFF_BLIT_DST, 0xee, 0x2000);
    blit_header(e, BLIT_RSRC1_FILL);
    fill_args(e, AT(OFF_BLIT_DST), value, 100);
    st = blit_dispatch(e, 2, align64(64u * BLIT_CUS));
    assert_int_equal(st.blits, 1);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(get32(e, OFF_BLIT_DST + 4 * i), value);
    assert_int_equal(get32(e, OFF_BLIT_DST + 400), 0xeeeeeeeeu);
}

/* Arguments a hostile program writes: nothing outside its memory is read or written, no
   dispatch copies more than the bound, and a kernel object that is not ROCr's header is no
   blit kernel. */
static void test_cp_blit_kernels_hostile(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint32_t items, slot = 0;

    blit_queue(e);
    blit_header(e, BLIT_RSRC1_COPY_ALIGNED);
    /* 5 GiB: past the bound, not performed, nothing written */
    items = copy_aligned_args(e, AT(OFF_BLIT_SRC), AT(OFF_BLIT_DST), 5ull << 30);
    st = blit_dispatch(e, slot++, align64(items));
    assert_int_equal(st.blits, 0);
    assert_int_equal(st.blits_refused, 1);
    assert_int_equal(e->mem[OFF_BLIT_DST], 0xee);
    /* ends below their starts (wrapping phases): nothing copied */
    for (uint32_t i = 0; i < 5; i++)
        put64(e, OFF_BLIT_ARGS + 16u * i, AT(OFF_BLIT_SRC) + 0x800u - 0x100u * i);
    st = blit_dispatch(e, slot++, align64(items));
    assert_int_equal(st.blits_refused, 0);
    assert_int_equal(e->mem[OFF_BLIT_DST], 0xee);
    assert_int_equal(e->mem[OFF_BLIT_DST + 0x800], 0xee);
    /* a destination in no buffer and not mapped: stops at the first byte, no fault beyond */
    items = copy_aligned_args(e, AT(OFF_BLIT_SRC), OFF_VRAM_VA + 0x100000000ull, 64);
    st = blit_dispatch(e, slot++, align64(items));
    assert_int_equal(st.blits, 0);
    assert_int_equal(st.blits_refused, 1);
    /* a source that runs off the end of the process's memory: what fits is not read past */
    items = copy_aligned_args(e, AT(MEM_SIZE - 0x100), AT(OFF_BLIT_DST), 0x1000);
    st = blit_dispatch(e, slot++, align64(items));
    assert_int_equal(st.blits_refused, 1);
    /* a grid that is not the arguments' work-items: not ROCr's dispatch, not performed */
    items = copy_aligned_args(e, AT(OFF_BLIT_SRC), AT(OFF_BLIT_DST), 64);
    st = blit_dispatch(e, slot++, align64(items) + 64u);
    assert_int_equal(st.blits_refused, 1);
    assert_int_equal(e->mem[OFF_BLIT_DST], 0xee);
    /* kernel arguments in no memory */
    st = blit_dispatch_at(e, slot++, align64(items), 0x10);
    assert_int_equal(st.blits, 0);
    assert_int_equal(st.blits_refused, 1);
    assert_int_equal(e->mem[OFF_BLIT_DST], 0xee);
    /* a kernel object that is not ROCr's header (a code object's descriptor with a kernarg
       size): no blit, the dispatch only completes */
    items = copy_aligned_args(e, AT(OFF_BLIT_SRC), AT(OFF_BLIT_DST), 64);
    put32(e, OFF_BLIT_CODE + 8, 16);
    st = blit_dispatch(e, slot++, align64(items));
    assert_int_equal(st.blits + st.blits_refused, 0);
    assert_int_equal(e->mem[OFF_BLIT_DST], 0xee);
}

/* SDMA packets (ROCr sdma_registers.h; counts as amd_blit_sdma.cpp writes them for SDMA 4+) */
static uint32_t sdma_put(struct env *e, uint32_t at, const uint32_t *dw, unsigned n)
{
    memcpy(e->mem + OFF_SDMA_RING + at, dw, 4u * n);
    return at + 4u * n;
}

static void test_cp_sdma_packets(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint32_t ev = create_event(e, KFD_IOC_EVENT_SIGNAL, 1), at = 0;
    uint64_t src = AT(OFF_DATA), dst = AT(OFF_DATA + 0x1000), fill = AT(OFF_DATA + 0x2000);
    uint64_t fence = AT(OFF_DATA + 0x3000), sig = AT(signal_off(2) + 8);
    uint64_t poll = AT(OFF_DATA + 0x3100);

    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                  AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), NULL),
                     0);
    for (unsigned i = 0; i < 100; i++)
        e->mem[OFF_DATA + i] = (uint8_t)(i * 7 + 1);
    memset(e->mem + OFF_DATA + 0x1000, 0, 0x3000);
    put32(e, OFF_DATA + 0x3100, 1);
    make_signal(e, 2, 5, 0, 0);
    {
        /* POLL_REGMEM: mem_poll (bit 31), func 3 = equal (bits 28-30), until *poll == 0 */
        const uint32_t p[6] = { 8u | (3u << 28) | (1u << 31), (uint32_t)poll,
                                (uint32_t)(poll >> 32), 0, 0xffffffffu, (0xfffu << 16) | 4 };
        /* COPY_LINEAR: count = bytes - 1 */
        const uint32_t c[7] = { 1u, 100 - 1, 0, (uint32_t)src, (uint32_t)(src >> 32),
                                (uint32_t)dst, (uint32_t)(dst >> 32) };
        /* CONSTANT_FILL, fillsize 2 (dwords): count = (4 dwords - 1) * 4 */
        const uint32_t f[5] = { 11u | (2u << 30), (uint32_t)fill, (uint32_t)(fill >> 32),
                                0xc0ffee11u, (4 - 1) * 4 };
        /* FENCE: a dword */
        const uint32_t fe[4] = { 5u, (uint32_t)fence, (uint32_t)(fence >> 32), 0x600dcafeu };
        /* ATOMIC ADD64 of -1 (ROCr's completion-signal decrement) */
        const uint32_t a[8] = { 10u | (47u << 25), (uint32_t)sig, (uint32_t)(sig >> 32),
                                0xffffffffu, 0xffffffffu, 0, 0, 0 };
        /* TRAP with the event id as its interrupt context */
        const uint32_t t[2] = { 6u, ev };
        /* NOP of 3 dwords (count 2 in bits 16-29) */
        const uint32_t nop[3] = { 0u | (2u << 16), 0xdeadbeefu, 0xdeadbeefu };

        at = sdma_put(e, at, p, 6);
        at = sdma_put(e, at, c, 7);
        at = sdma_put(e, at, f, 5);
        at = sdma_put(e, at, fe, 4);
        at = sdma_put(e, at, a, 8);
        at = sdma_put(e, at, nop, 3);
        at = sdma_put(e, at, t, 2);
    }
    put64(e, OFF_SDMA_RPTR, 0);
    put64(e, OFF_SDMA_WPTR, at); /* in bytes */

    /* the poll is not satisfied: the engine waits at it */
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.sdma_packets, 0);
    assert_int_equal(st.stalled, 1);
    assert_int_equal(get64(e, OFF_SDMA_RPTR), 0);
    /* satisfied: every packet runs */
    put32(e, OFF_DATA + 0x3100, 0);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.sdma_packets, 7);
    assert_int_equal(st.stalled, 0);
    assert_int_equal(st.events, 1);
    assert_int_equal(get64(e, OFF_SDMA_RPTR), at);
    assert_memory_equal(e->mem + OFF_DATA + 0x1000, e->mem + OFF_DATA, 100);
    assert_int_equal(e->mem[OFF_DATA + 0x1000 + 100], 0); /* exactly 100 bytes */
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(get32(e, OFF_DATA + 0x2000 + 4 * i), 0xc0ffee11u);
    assert_int_equal(get32(e, OFF_DATA + 0x2010), 0); /* exactly 4 dwords */
    assert_int_equal(get32(e, OFF_DATA + 0x3000), 0x600dcafeu);
    assert_int_equal(get32(e, OFF_DATA + 0x3004), 0);
    assert_int_equal((int64_t)get64(e, signal_off(2) + 8), 4);
    expect_wait(e, ev, 0, KFD_IOC_WAIT_RESULT_COMPLETE);
}

static void test_cp_sdma_unknown_op_halts(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint64_t fence = AT(OFF_DATA);
    const uint32_t bad[1] = { 0x3fu };
    const uint32_t fe[4] = { 5u, (uint32_t)fence, (uint32_t)(fence >> 32), 0x1234u };
    uint32_t at;

    acquire(e, gpu0(e));
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                  AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), NULL),
                     0);
    put32(e, OFF_DATA, 0);
    at = sdma_put(e, 0, bad, 1);
    at = sdma_put(e, at, fe, 4);
    put64(e, OFF_SDMA_WPTR, at);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.sdma_packets, 0);
    assert_int_equal(get32(e, OFF_DATA), 0); /* nothing after it ran */
    gc_emu_cp_run(&e->vm, &st);             /* and it stays halted */
    assert_int_equal(st.sdma_packets, 0);
    assert_int_equal(get32(e, OFF_DATA), 0);
}

static void test_cp_vram_through_device_file(void **state)
{
    struct env *e = *state;
    struct gc_emu_cp_stats st;
    uint64_t off, vram = OFF_VRAM_VA, src = AT(OFF_DATA);
    uint32_t at;

    acquire(e, gpu0(e));
    /* a VRAM buffer the process never mapped: the GPU reaches it in the device's file */
    assert_int_equal(alloc(e, gpu0(e), vram, 4096, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL, &off), 0);
    assert_int_equal(off, FILE_BASE);
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                  AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), NULL),
                     0);
    memcpy(e->mem + OFF_DATA, "hello, vram", 12);
    {
        const uint32_t c[7] = { 1u, 12 - 1, 0, (uint32_t)src, (uint32_t)(src >> 32),
                                (uint32_t)vram, (uint32_t)(vram >> 32) };

        at = sdma_put(e, 0, c, 7);
    }
    put64(e, OFF_SDMA_WPTR, at);
    gc_emu_cp_run(&e->vm, &st);
    assert_int_equal(st.sdma_packets, 1);
    assert_memory_equal(e->dev_file.bytes, "hello, vram", 12);
    /* and gc_emu_vm_read finds it there; one byte past the buffer is a fault */
    {
        char back[12];

        assert_int_equal(gc_emu_vm_read(&e->vm, vram, back, sizeof(back)), 0);
        assert_memory_equal(back, "hello, vram", 12);
        assert_int_equal(gc_emu_vm_read(&e->vm, vram + 4090, back, 8), -1);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Where the emulator differs from the kernel (ctest test_kfdemu_kernel_divergence)            */
/* ------------------------------------------------------------------------------------------ */

/* kfd_chardev.c:1298-1302 (kfd_ioctl_map_memory_to_gpu): a handle of a known GPU whose buffer
   does not exist is -ENOMEM ("get_mem_obj_from_handle_failed"), not -EINVAL. */
static void test_div_map_unknown_buffer_enomem(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_map_memory_to_gpu_args a = { 0 };
    uint32_t id = gpu0(e);

    acquire(e, gpu0(e));
    memcpy(e->mem + OFF_ARGS, &id, sizeof(id));
    a.handle = ((uint64_t)gpu0(e) << 32) | 0x777;
    a.device_ids_array_ptr = AT(OFF_ARGS);
    a.n_devices = 1;
    assert_int_equal(KFD_RET(e, NR_MAP_MEMORY_TO_GPU, a), -ENOMEM);
    assert_int_equal(KFD_RET(e, NR_UNMAP_MEMORY_FROM_GPU, a), -ENOMEM);
}

/* amdgpu_kms.c:825-832 (amdgpu_info_ioctl, AMDGPU_INFO_READ_MMR_REG): a register not on the
   ASIC's allow list (amdgpu_asic_read_register fails) is -EFAULT, not -EINVAL. */
static void test_div_read_mmr_reg_efault(void **state)
{
    struct env *e = *state;
    struct amdgpu_info q = { .return_pointer = AT(OFF_ARGS), .return_size = 4,
                             .query = 0x15, .arg = { 0x0, 1, 0xffffffffu } };

    assert_int_equal(drm(e, 0, DRM_AMDGPU_INFO_NR, &q, sizeof(q)), -EFAULT);
}

/* kfd_events.c:919-924 (copy_signaled_event_data): the event age is written back only for a
   waiter that gave a nonzero last_event_age (event_age_enabled); 0 means "no age tracking"
   (kfd_events.c:844) and must stay 0, or the next wait of a program reusing its array turns
   age tracking on. */
static void test_div_wait_age_zero_untouched(void **state)
{
    struct env *e = *state;
    uint32_t id = create_event(e, KFD_IOC_EVENT_SIGNAL, 1);

    assert_int_equal(event_op(e, NR_SET_EVENT, id), 0);
    expect_wait(e, id, 0, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_int_equal(waited_age(e), 0);
}

/* kfd_events.c:869-889 (test_event_condition): with no events the wait is complete, whatever
   wait_for_all says (activated_count == num_events == 0); the emulator times out (or blocks
   until the deadline) when wait_for_all is 0. */
static void test_div_wait_no_events_complete(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_wait_events_args a = { .events_ptr = AT(OFF_ARGS), .num_events = 0,
                                            .wait_for_all = 0, .timeout = 0 };

    assert_int_equal(KFD_RET(e, NR_WAIT_EVENTS, a), 0);
    assert_int_equal(a.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
}

/* kfd_chardev.c:381-387 (kfd_ioctl_create_queue): the doorbell offset is the page's mmap
   offset (KFD_MMAP_TYPE_DOORBELL | GPU id: low bits 0) plus the offset in the 8 KiB slice; the
   thunk (hsaKmtCreateQueueExtCtx) takes `offset & ~8191` as the page to map. After an
   MMIO_REMAP page (4 KiB) was handed out first, as the thunk does at start-up, the emulator's
   doorbell page is not 8 KiB aligned, so the thunk maps the wrong range of /dev/kfd. */
static void test_div_doorbell_page_aligned_after_mmio(void **state)
{
    struct env *e = *state;
    struct kfd_ioctl_create_queue_args q;
    uint64_t db_off;

    /* the thunk's order: the MMIO page at start-up, a queue, then the doorbell buffer at the
       page CREATE_QUEUE named */
    acquire(e, gpu0(e));
    assert_int_equal(alloc(e, gpu0(e), AT(0x20000), 4096, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP,
                           NULL, NULL),
                     0);
    assert_int_equal(create_queue(e, KFD_IOC_QUEUE_TYPE_SDMA, AT(OFF_SDMA_RING), 4096,
                                  AT(OFF_SDMA_RPTR), AT(OFF_SDMA_WPTR), &q),
                     0);
    assert_int_equal(alloc(e, gpu0(e), AT(0x22000), 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL,
                           NULL, &db_off),
                     0);
    assert_int_equal(q.doorbell_offset & ~8191ull, db_off);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest model[] = {
        cmocka_unit_test(test_presets_properties),
        cmocka_unit_test(test_gfx90a_properties_text),
        cmocka_unit_test(test_unknown_preset_refused),
        cmocka_unit_test(test_device_cap),
        cmocka_unit_test(test_scenario_file_devices),
        cmocka_unit_test(test_duplicate_gpu_id_with_preset),
        cmocka_unit_test(test_unreadable_device_file),
        cmocka_unit_test(test_topology_write),
        cmocka_unit_test_setup_teardown(test_get_version, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_numbers, env_setup, env_teardown),
        cmocka_unit_test(test_arg_copy_directions),
        cmocka_unit_test_setup_teardown(test_truncated_arguments, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_process_apertures_new, env_setup2, env_teardown),
        cmocka_unit_test_setup_teardown(test_acquire_vm, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_alloc_free, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_map_unmap, env_setup2, env_teardown),
        cmocka_unit_test_setup_teardown(test_events_signal_and_reset, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_events_wait_errors, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_events_last_event_age, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_events_block_and_retry, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_create_queue, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_queue_limit, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_set_xnack_mode, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_drm_version, env_setup2, env_teardown),
        cmocka_unit_test_setup_teardown(test_drm_amdgpu_info, env_setup2, env_teardown),
        cmocka_unit_test_setup_teardown(test_drm_read_mmr_reg, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_drm_refused, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_aql_barrier_and_dispatch, env_setup,
                                        env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_aql_invalid_header_waits, env_setup,
                                        env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_aql_bounded_pass, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_blit_kernels, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_blit_kernels_hostile, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_sdma_packets, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_sdma_unknown_op_halts, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_cp_vram_through_device_file, env_setup,
                                        env_teardown),
    };
    const struct CMUnitTest divergence[] = {
        cmocka_unit_test_setup_teardown(test_div_map_unknown_buffer_enomem, env_setup,
                                        env_teardown),
        cmocka_unit_test_setup_teardown(test_div_read_mmr_reg_efault, env_setup, env_teardown),
        cmocka_unit_test_setup_teardown(test_div_wait_age_zero_untouched, env_setup,
                                        env_teardown),
        cmocka_unit_test_setup_teardown(test_div_wait_no_events_complete, env_setup,
                                        env_teardown),
        cmocka_unit_test_setup_teardown(test_div_doorbell_page_aligned_after_mmio, env_setup,
                                        env_teardown),
    };

    if (argc > 1 && !strcmp(argv[1], "divergence"))
        return cmocka_run_group_tests_name("kfdemu kernel divergence", divergence, NULL, NULL);
    return cmocka_run_group_tests_name("kfdemu model", model, NULL, NULL);
}
