/* SPDX-License-Identifier: MIT */
/* The emulated devices and their sysfs topology (emu_device.h). */
#include "emu_device.h"

#include "gc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * What a real node of each target shows beyond the sim's agent model. Values are those of the
 * product named (amdgpu's IP name, CU layout, memory, engines); docs/kfd-emulator.md says
 * which are the product's and which are picked.
 */
struct preset {
    uint32_t gfx_target_version; /* the target (arch's table names it) */
    const char *ip_name;  /* sysfs node "name" */
    uint32_t device_id, simd_count, array_count, simd_arrays_per_engine, num_xcc;
    uint32_t max_waves_per_simd, cu_per_simd_array, lds_kb, wave_front_size;
    uint64_t vram_gib;
    uint32_t num_cp_queues, sdma, sdma_xgmi, sdma_queues, clk_mhz;
    uint32_t fw_version, sdma_fw_version, debug_prop, revision_id;
    uint32_t l2_kb, l3_kb; /* L3: the MALL ("infinity cache"); 0 = none */
};

static const struct preset presets[] = {
    /* MI210: 104 CUs in 8 shader engines of one array each */
    { 90010, "aldebaran", 0x740f, 416, 8, 1, 1, 8, 13, 64, 64, 64,
      24, 2, 3, 8, 1700, 78, 8, 0x1d6, 0x02, 8192, 0 },
    /* MI300X: 8 XCCs of 38 CUs, 4 arrays each */
    { 90402, "ip discovery", 0x74a1, 1216, 4, 1, 8, 8, 10, 64, 64, 192,
      32, 2, 14, 8, 2100, 166, 19, 0x1d6, 0x00, 4096, 262144 },
    /* RX 7900 XTX: 96 CUs, 6 shader engines of 2 arrays */
    { 110000, "ip discovery", 0x744c, 192, 12, 2, 1, 16, 8, 64, 32, 24,
      24, 2, 0, 8, 2500, 2280, 21, 0x1d6, 0xc8, 6144, 98304 },
};

size_t gc_emu_device_presets(const char **names, size_t cap)
{
    size_t n = 0;

    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
        const struct gc_arch *a = gc_arch_by_gfx_version(presets[i].gfx_target_version);

        if (a && n < cap)
            names[n++] = a->name;
    }
    return n;
}

static void errf(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static const struct preset *preset_for_target(const char *target)
{
    const struct gc_arch *a = gc_arch_by_name(target);

    for (size_t i = 0; a && i < sizeof(presets) / sizeof(presets[0]); i++)
        if (presets[i].gfx_target_version == a->gfx_target_version)
            return &presets[i];
    return NULL;
}

/* HSA_CAP_* bits of include/uapi/linux/kfd_sysfs.h that amdkfd sets on every gfx9-and-later
   node (kfd_topology_set_capabilities): doorbells of type 2.0 (AQL write pointers), and the
   debugger's trap, wave-launch override and wave-launch mode support. */
#define CAP_DOORBELL_TYPE_2_0 (0x2u << 12)
#define CAP_TRAP_DEBUG (0x00008000u | 0x00010000u | 0x00020000u)
#define CAP_PRECISE_MEMORY 0x00040000u /* GC 9.4.2 (gfx90a) and later gfx9 */
#define CAP_PRECISE_ALU 0x40000000u    /* GC 12 */

static uint32_t amdkfd_capability(const struct gc_arch *arch)
{
    uint32_t v = arch->gfx_target_version, cap = CAP_DOORBELL_TYPE_2_0 | CAP_TRAP_DEBUG;

    if (v / 10000 == 9 && v >= 90010)
        cap |= CAP_PRECISE_MEMORY;
    if (v / 10000 >= 12)
        cap |= CAP_PRECISE_ALU;
    return cap;
}

/* Fill the sysfs-only properties from the target's preset and check the agent. */
static gpucore_status_t finish_device(struct gc_emu_device *d, const struct preset *p,
                                      char *err, size_t errlen)
{
    const struct gc_scen_agent *a = &d->agent;

    d->arch = gc_arch_by_name(a->target);
    if (!d->arch || !d->arch->cwsr) {
        errf(err, errlen, "target '%s' has no CWSR layout to present", a->target);
        return GPUCORE_E_INVAL;
    }
    if (gc_cwsr_compute_sizes(d->arch, a->simd_count, a->array_count, a->simd_arrays_per_engine,
                              a->num_xcc, &d->cwsr) != GPUCORE_OK) {
        errf(err, errlen, "%s: simd_count %u, array_count %u, %u XCCs: no valid CWSR size",
             a->target, a->simd_count, a->array_count, a->num_xcc);
        return GPUCORE_E_INVAL;
    }
    d->agent.capability |= amdkfd_capability(d->arch);
    snprintf(d->name, sizeof(d->name), "%s", p ? p->ip_name : a->target);
    d->vram_bytes = (p ? p->vram_gib : 16) << 30;
    d->cu_per_simd_array = p ? p->cu_per_simd_array
                             : a->simd_count / d->arch->cwsr->simd_per_cu / a->array_count;
    d->lds_size_in_kb = p ? p->lds_kb : 64;
    d->wave_front_size = p ? p->wave_front_size : d->arch->default_wave_size;
    d->max_slots_scratch_cu = 32;
    d->num_cp_queues = p ? p->num_cp_queues : 24;
    d->num_sdma_engines = p ? p->sdma : 2;
    d->num_sdma_xgmi_engines = p ? p->sdma_xgmi : 0;
    d->sdma_queues_per_engine = p ? p->sdma_queues : 8;
    d->fw_version = p ? p->fw_version : 1;
    d->sdma_fw_version = p ? p->sdma_fw_version : 1;
    d->max_engine_clk_fcompute = p ? p->clk_mhz : 2000;
    d->num_gws = 64;
    d->l2_kb = p ? p->l2_kb : 4096;
    d->l3_kb = p ? p->l3_kb : 0;
    d->unique_id = 0x1000000000000000ull | ((uint64_t)a->gpu_id << 16) | a->location_id;
    return GPUCORE_OK;
}

static gpucore_status_t check_unique(const struct gc_emu_device *devs, size_t n, uint32_t gpu_id,
                                     char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (devs[i].agent.gpu_id == gpu_id) {
            errf(err, errlen, "gpu_id 0x%x appears twice", gpu_id);
            return GPUCORE_E_INVAL;
        }
    return GPUCORE_OK;
}

static void number(struct gc_emu_device *d, size_t index)
{
    d->node = (uint32_t)index + 1;
    d->render_minor = GC_EMU_RENDER_MINOR_BASE + (uint32_t)index;
    if (!d->agent.location_id) /* PCI bus index << 8, as amdkfd's location_id */
        d->agent.location_id = (uint32_t)(0x300 + 0x100 * index);
}

static gpucore_status_t add_preset(const struct preset *p, struct gc_emu_device *devs,
                                   size_t cap, size_t *n, char *err, size_t errlen)
{
    struct gc_emu_device *d;
    gpucore_status_t st;

    if (*n >= cap) {
        errf(err, errlen, "more than %zu devices", cap);
        return GPUCORE_E_LIMIT;
    }
    d = &devs[*n];
    memset(d, 0, sizeof(*d));
    snprintf(d->agent.target, sizeof(d->agent.target), "%s",
             gc_arch_by_gfx_version(p->gfx_target_version)->name);
    /* gpu_ids look like amdkfd's (a hash of the device): stable and distinct per slot */
    d->agent.gpu_id = 0x1000u + 0x2357u * (uint32_t)(*n + 1);
    d->agent.simd_count = p->simd_count;
    d->agent.max_waves_per_simd = p->max_waves_per_simd;
    d->agent.array_count = p->array_count;
    d->agent.simd_arrays_per_engine = p->simd_arrays_per_engine;
    d->agent.num_xcc = p->num_xcc;
    d->agent.capability = GC_SCEN_DEFAULT_CAPABILITY;
    d->agent.debug_prop = p->debug_prop;
    d->agent.vendor_id = 0x1002;
    d->agent.device_id = p->device_id;
    d->agent.revision_id = p->revision_id;
    number(d, *n);
    GC_TRY(check_unique(devs, *n, d->agent.gpu_id, err, errlen));
    st = finish_device(d, p, err, errlen);
    if (st == GPUCORE_OK)
        (*n)++;
    return st;
}

gpucore_status_t gc_emu_devices_add(const char *spec, struct gc_emu_device *devs, size_t cap,
                                    size_t *n, char *err, size_t errlen)
{
    struct gc_scenario *s = NULL;
    gpucore_status_t st;

    if (!strchr(spec, '/') && !strchr(spec, '.')) {
        const struct preset *p = preset_for_target(spec);
        const char *names[8];
        char list[128] = "";
        size_t k = gc_emu_device_presets(names, 8);

        if (p)
            return add_preset(p, devs, cap, n, err, errlen);
        for (size_t i = 0; i < k; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                     names[i]);
        errf(err, errlen, "'%s' is neither a built-in device (%s) nor a file", spec, list);
        return GPUCORE_E_INVAL;
    }
    st = gc_scenario_load(spec, &s, NULL);
    if (st != GPUCORE_OK) {
        errf(err, errlen, "%s: not a readable device file (%s)", spec, gpucore_strerror(st));
        return st;
    }
    for (uint32_t i = 0; i < s->nagents && st == GPUCORE_OK; i++) {
        struct gc_emu_device *d;

        if (*n >= cap) {
            errf(err, errlen, "%s: more than %zu devices", spec, cap);
            st = GPUCORE_E_LIMIT;
            break;
        }
        d = &devs[*n];
        memset(d, 0, sizeof(*d));
        d->agent = s->agents[i];
        if (!d->agent.device_id) {
            const struct preset *p = preset_for_target(d->agent.target);
            d->agent.device_id = p ? p->device_id : 0x7400;
        }
        number(d, *n);
        st = check_unique(devs, *n, d->agent.gpu_id, err, errlen);
        if (st == GPUCORE_OK)
            st = finish_device(d, preset_for_target(d->agent.target), err, errlen);
        if (st == GPUCORE_OK)
            (*n)++;
    }
    gc_scenario_free(s);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* sysfs text                                                                                  */
/* ------------------------------------------------------------------------------------------ */

struct text {
    char *buf;
    size_t cap, len;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (t->len >= t->cap)
        return;
    va_start(ap, fmt);
    k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len = t->len + (size_t)k < t->cap ? t->len + (size_t)k : t->cap - 1;
}

#define P32(t, name, v) put(t, "%s %u\n", name, (unsigned)(v))
#define P64(t, name, v) put(t, "%s %" PRIu64 "\n", name, (uint64_t)(v))

/* HSA cache types (kfd_crat.h) */
#define CACHE_DATA 1u
#define CACHE_INSTRUCTION 2u
#define CACHE_HSACU 8u

struct cache_row {
    uint32_t level, size_kb, line, type;
};

/*
 * The GPU's caches, one entry per level and kind (amdkfd lists the L1s once per group of CUs
 * that share one; the emulator lists each kind once, shared by every CU). Returns the count;
 * fills @p rows (room for 5) when not NULL.
 */
static uint32_t gpu_caches(const struct gc_emu_device *d, struct cache_row *rows)
{
    struct cache_row all[5] = {
        { 1, 16, d->arch->gfx_target_version >= 110000 ? 128u : 64u,
          CACHE_DATA | CACHE_HSACU },                         /* vector L1 */
        { 1, 16, 64, CACHE_DATA | CACHE_HSACU },              /* scalar L1 */
        { 1, 64, 64, CACHE_INSTRUCTION | CACHE_HSACU },       /* instruction */
        { 2, d->l2_kb, 128, CACHE_DATA | CACHE_HSACU },
        { 3, d->l3_kb, 64, CACHE_DATA | CACHE_HSACU },
    };
    uint32_t n = d->l3_kb ? 5 : 4;

    if (rows)
        memcpy(rows, all, sizeof(all));
    return n;
}

/* amdkfd's node_show (kfd_topology.c, Linux 6.12), in its order. d == NULL: the CPU node. */
static void node_text(struct text *t, const struct gc_emu_device *d, uint32_t cpu_cores)
{
    const struct gc_scen_agent *a = d ? &d->agent : NULL;

    P32(t, "cpu_cores_count", d ? 0 : cpu_cores);
    P32(t, "simd_count", d ? a->simd_count : 0);
    P32(t, "mem_banks_count", 1);
    P32(t, "caches_count", d ? gpu_caches(d, NULL) : 0);
    P32(t, "io_links_count", d ? 1 : 0);
    P32(t, "p2p_links_count", 0);
    P32(t, "cpu_core_id_base", 0);
    P32(t, "simd_id_base", d ? 0x80000000u + 0x100u * (d->node - 1) : 0);
    P32(t, "max_waves_per_simd", d ? a->max_waves_per_simd : 0);
    P32(t, "lds_size_in_kb", d ? d->lds_size_in_kb : 0);
    P32(t, "gds_size_in_kb", 0);
    P32(t, "num_gws", d ? d->num_gws : 0);
    P32(t, "wave_front_size", d ? d->wave_front_size : 0);
    P32(t, "array_count", d ? a->array_count * a->num_xcc : 0);
    P32(t, "simd_arrays_per_engine", d ? a->simd_arrays_per_engine : 0);
    P32(t, "cu_per_simd_array", d ? d->cu_per_simd_array : 0);
    P32(t, "simd_per_cu", d ? d->arch->cwsr->simd_per_cu : 0);
    P32(t, "max_slots_scratch_cu", d ? d->max_slots_scratch_cu : 0);
    P32(t, "gfx_target_version", d ? d->arch->gfx_target_version : 0);
    P32(t, "vendor_id", d ? a->vendor_id : 0);
    P32(t, "device_id", d ? a->device_id : 0);
    P32(t, "location_id", d ? a->location_id : 0);
    P32(t, "domain", d ? a->domain : 0);
    P32(t, "drm_render_minor", d ? d->render_minor : 0);
    P64(t, "hive_id", 0);
    P32(t, "num_sdma_engines", d ? d->num_sdma_engines : 0);
    P32(t, "num_sdma_xgmi_engines", d ? d->num_sdma_xgmi_engines : 0);
    P32(t, "num_sdma_queues_per_engine", d ? d->sdma_queues_per_engine : 0);
    P32(t, "num_cp_queues", d ? d->num_cp_queues : 0);
    P32(t, "cwsr_size", d ? d->cwsr.cwsr_size : 0);
    P32(t, "ctl_stack_size", d ? d->cwsr.ctl_stack_size : 0);
    if (d) {
        P32(t, "max_engine_clk_fcompute", d->max_engine_clk_fcompute);
        P64(t, "local_mem_size", 0);
        P32(t, "fw_version", d->fw_version);
        P32(t, "capability", a->capability);
        P64(t, "debug_prop", a->debug_prop);
        P32(t, "sdma_fw_version", d->sdma_fw_version);
        P64(t, "unique_id", d->unique_id);
        P32(t, "num_xcc", a->num_xcc);
    }
    P32(t, "max_engine_clk_ccompute", 3000);
}

size_t gc_emu_node_properties(const struct gc_emu_device *d, char *buf, size_t cap)
{
    struct text t = { buf, cap, 0 };

    if (!cap)
        return 0;
    buf[0] = '\0';
    node_text(&t, d, 0);
    return t.len;
}

/* ------------------------------------------------------------------------------------------ */
/* Writing the tree                                                                            */
/* ------------------------------------------------------------------------------------------ */

static int write_file(int dirfd, const char *path, const char *text, size_t len)
{
    int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0444);
    ssize_t k;

    if (fd < 0)
        return -1;
    k = write(fd, text, len);
    if (close(fd) != 0 || k != (ssize_t)len)
        return -1;
    return 0;
}

static int make_dir(int dirfd, const char *path)
{
    return mkdirat(dirfd, path, 0555) == 0 || errno == EEXIST ? 0 : -1;
}

static int write_node(int dirfd, uint32_t node, const struct gc_emu_device *d, uint32_t cpu_cores)
{
    char path[160], buf[4096];
    struct text t = { buf, sizeof(buf), 0 };
    static const char *const subdirs[] = { "", "/mem_banks", "/mem_banks/0", "/caches",
                                           "/io_links", "/p2p_links", NULL };

    for (size_t i = 0; subdirs[i]; i++) {
        snprintf(path, sizeof(path), "nodes/%u%s", node, subdirs[i]);
        if (make_dir(dirfd, path))
            return -1;
    }
    snprintf(path, sizeof(path), "nodes/%u/gpu_id", node);
    t.len = (size_t)snprintf(buf, sizeof(buf), "%u\n", d ? d->agent.gpu_id : 0);
    if (write_file(dirfd, path, buf, t.len))
        return -1;
    snprintf(path, sizeof(path), "nodes/%u/name", node);
    t.len = (size_t)snprintf(buf, sizeof(buf), "%s\n", d ? d->name : "");
    if (write_file(dirfd, path, buf, t.len))
        return -1;
    t.len = 0;
    buf[0] = '\0';
    node_text(&t, d, cpu_cores);
    snprintf(path, sizeof(path), "nodes/%u/properties", node);
    if (write_file(dirfd, path, buf, t.len))
        return -1;

    /* One memory bank: system memory on the CPU node, VRAM (heap type 1, public) on a GPU. */
    t.len = 0;
    P32(&t, "heap_type", d ? 1 : 0);
    P64(&t, "size_in_bytes", d ? d->vram_bytes : (uint64_t)sysconf(_SC_PHYS_PAGES) *
                                                     (uint64_t)sysconf(_SC_PAGESIZE));
    P32(&t, "flags", 0);
    P32(&t, "width", d ? 4096 : 64);
    P32(&t, "mem_clk_max", d ? 1600 : 3200);
    snprintf(path, sizeof(path), "nodes/%u/mem_banks/0/properties", node);
    if (write_file(dirfd, path, buf, t.len))
        return -1;

    if (d) {
        struct cache_row rows[5];
        uint32_t n = gpu_caches(d, rows);
        uint32_t cus = d->agent.simd_count / d->agent.num_xcc / d->arch->cwsr->simd_per_cu;

        for (uint32_t i = 0; i < n; i++) {
            snprintf(path, sizeof(path), "nodes/%u/caches/%u", node, i);
            if (make_dir(dirfd, path))
                return -1;
            t.len = 0;
            P32(&t, "processor_id_low", 0x80000000u + 0x100u * (d->node - 1));
            P32(&t, "level", rows[i].level);
            P32(&t, "size", rows[i].size_kb);
            P32(&t, "cache_line_size", rows[i].line);
            P32(&t, "cache_lines_per_tag", 1);
            P32(&t, "association", 16);
            P32(&t, "latency", 1);
            P32(&t, "type", rows[i].type);
            put(&t, "sibling_map ");
            for (uint32_t bit = 0; bit < (cus + 31) / 32 * 32; bit++)
                put(&t, "%d%c", bit < cus, bit + 1 < (cus + 31) / 32 * 32 ? ',' : '\n');
            snprintf(path, sizeof(path), "nodes/%u/caches/%u/properties", node, i);
            if (write_file(dirfd, path, buf, t.len))
                return -1;
        }
    }
    if (d) { /* the GPU's PCIe link to the CPU node */
        snprintf(path, sizeof(path), "nodes/%u/io_links/0", node);
        if (make_dir(dirfd, path))
            return -1;
        t.len = 0;
        P32(&t, "type", 2); /* PCIEXPRESS */
        P32(&t, "version_major", 0);
        P32(&t, "version_minor", 0);
        P32(&t, "node_from", node);
        P32(&t, "node_to", 0);
        P32(&t, "weight", 20);
        P32(&t, "min_latency", 0);
        P32(&t, "max_latency", 0);
        P32(&t, "min_bandwidth", 312);
        P32(&t, "max_bandwidth", 64000);
        P32(&t, "recommended_transfer_size", 0);
        P32(&t, "recommended_sdma_engine_id_mask", 0);
        P32(&t, "flags", 1);
        snprintf(path, sizeof(path), "nodes/%u/io_links/0/properties", node);
        if (write_file(dirfd, path, buf, t.len))
            return -1;
    }
    return 0;
}

gpucore_status_t gc_emu_topology_write(int dirfd, const struct gc_emu_device *devs, size_t n,
                                       uint32_t cpu_cores)
{
    static const char sysprops[] = "platform_oem 0\nplatform_id 0\nplatform_rev 0\n";

    if (write_file(dirfd, "generation_id", "1\n", 2) ||
        write_file(dirfd, "system_properties", sysprops, sizeof(sysprops) - 1) ||
        make_dir(dirfd, "nodes") || write_node(dirfd, 0, NULL, cpu_cores))
        return GPUCORE_E_IO;
    for (size_t i = 0; i < n; i++)
        if (write_node(dirfd, devs[i].node, &devs[i], cpu_cores))
            return GPUCORE_E_IO;
    return GPUCORE_OK;
}
