/* SPDX-License-Identifier: MIT */
/* The amdgpu DRM render node of an emulated device (emu_drm.h). */
#include "emu_drm.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define DRM_TYPE 'd'
#define DRM_COMMAND_BASE 0x40

struct drm_version { /* include/uapi/drm/drm.h, 64-bit */
    int32_t version_major, version_minor, version_patchlevel, pad;
    uint64_t name_len, name;
    uint64_t date_len, date;
    uint64_t desc_len, desc;
};
_Static_assert(sizeof(struct drm_version) == 64, "drm_version");

/* Copy a string out as DRM's drm_copy_field: at most *len bytes, *len set to the full
   length. */
static int copy_field(const struct gc_emu_io *io, uint64_t *len, uint64_t ptr, const char *s)
{
    uint64_t n = strlen(s), k = *len < n ? *len : n;

    *len = n;
    if (k && ptr && io->write(io->ctx, ptr, s, k))
        return -EFAULT;
    return 0;
}

static long version(const struct gc_emu_device *d, uint8_t *args, const struct gc_emu_io *io)
{
    struct drm_version *v = (void *)args;
    long r;

    (void)d;
    /* amdgpu of Linux 6.12: KMS_DRIVER_MAJOR 3, MINOR 59 */
    v->version_major = 3;
    v->version_minor = 59;
    v->version_patchlevel = 0;
    if ((r = copy_field(io, &v->name_len, v->name, "amdgpu")) ||
        (r = copy_field(io, &v->date_len, v->date, "20150101")) ||
        (r = copy_field(io, &v->desc_len, v->desc, "AMD GPU")))
        return r;
    return 0;
}

/*
 * DRM core calls without DRM_RENDER_ALLOW (GET_CLIENT, authentication, masters): a render
 * client is refused them (drm_ioctl_permit).
 */
static long not_for_render(const struct gc_emu_device *d, uint8_t *args,
                           const struct gc_emu_io *io)
{
    (void)d, (void)args, (void)io;
    return -EACCES;
}

/* include/uapi/drm/amdgpu_drm.h (Linux 6.12) */
struct drm_amdgpu_info {
    uint64_t return_pointer;
    uint32_t return_size;
    uint32_t query;
    uint32_t arg[4]; /* the query's parameters (read_mmr_reg: dword_offset, count, instance) */
};
_Static_assert(sizeof(struct drm_amdgpu_info) == 32, "drm_amdgpu_info");

struct drm_amdgpu_info_device { /* the fields up to csa_alignment, in order */
    uint32_t device_id, chip_rev, external_rev, pci_rev, family, num_shader_engines,
        num_shader_arrays_per_engine, gpu_counter_freq;
    uint64_t max_engine_clock, max_memory_clock;
    uint32_t cu_active_number, cu_ao_mask, cu_bitmap[4][4];
    uint32_t enabled_rb_pipes_mask, num_rb_pipes, num_hw_gfx_contexts, pcie_gen;
    uint64_t ids_flags, virtual_address_offset, virtual_address_max;
    uint32_t virtual_address_alignment, pte_fragment_size, gart_page_size, ce_ram_size,
        vram_type, vram_bit_width, vce_harvest_config, gc_double_offchip_lds_buf;
    uint64_t prim_buf_gpu_addr, pos_buf_gpu_addr, cntl_sb_buf_gpu_addr, param_buf_gpu_addr;
    uint32_t prim_buf_size, pos_buf_size, cntl_sb_buf_size, param_buf_size, wave_front_size,
        num_shader_visible_vgprs, num_cu_per_sh, num_tcc_blocks, gs_vgt_table_depth,
        gs_prim_buffer_depth, max_gs_waves_per_vgt, pcie_num_lanes, cu_ao_bitmap[4][4];
    uint64_t high_va_offset, high_va_max;
    uint32_t pa_sc_tile_steering_override;
    uint64_t tcc_disabled_mask, min_engine_clock, min_memory_clock;
    uint32_t tcp_cache_size, num_sqc_per_wgp, sqc_data_cache_size, sqc_inst_cache_size,
        gl1c_cache_size, gl2c_cache_size;
    uint64_t mall_size;
    uint32_t enabled_rb_pipes_mask_hi, shadow_size, shadow_alignment, csa_size, csa_alignment;
};
_Static_assert(offsetof(struct drm_amdgpu_info_device, high_va_offset) == 336, "high_va");
_Static_assert(sizeof(struct drm_amdgpu_info_device) == 440, "drm_amdgpu_info_device");

#define AMDGPU_INFO_ACCEL_WORKING 0x00
#define AMDGPU_INFO_FW_VERSION 0x0e
#define AMDGPU_INFO_VRAM_GTT 0x14
#define AMDGPU_INFO_READ_MMR_REG 0x15
#define AMDGPU_INFO_DEV_INFO 0x16
#define AMDGPU_INFO_MEMORY 0x19
#define GB_ADDR_CONFIG 0x263e /* the one register libdrm reads on gfx9 and later */
#define GTT_BYTES (64ull << 30)

static uint32_t family_of(const struct gc_emu_device *d)
{
    switch (d->arch->gfx_target_version / 10000) { /* AMDGPU_FAMILY_* */
    case 9: return 141;  /* AI */
    case 10: return 143; /* NV */
    case 11: return 145; /* GC_11_0_0 */
    default: return 152; /* GC_12_0_0 */
    }
}

static void dev_info(const struct gc_emu_device *d, struct drm_amdgpu_info_device *i)
{
    const struct gc_scen_agent *a = &d->agent;
    uint32_t cus = a->simd_count / d->arch->cwsr->simd_per_cu;

    memset(i, 0, sizeof(*i));
    i->device_id = a->device_id;
    i->pci_rev = a->revision_id;
    i->external_rev = a->revision_id;
    i->family = family_of(d);
    i->num_shader_engines = a->array_count / a->simd_arrays_per_engine;
    i->num_shader_arrays_per_engine = a->simd_arrays_per_engine;
    i->gpu_counter_freq = 100000; /* kHz */
    i->max_engine_clock = (uint64_t)d->max_engine_clk_fcompute * 1000;
    i->max_memory_clock = 1600000;
    i->cu_active_number = cus;
    i->cu_ao_mask = 0xffffffffu;
    for (uint32_t se = 0; se < 4 && se < i->num_shader_engines; se++)
        for (uint32_t sh = 0; sh < 4 && sh < a->simd_arrays_per_engine; sh++)
            i->cu_bitmap[se][sh] = d->cu_per_simd_array >= 32 ? 0xffffffffu
                                                              : (1u << d->cu_per_simd_array) - 1;
    i->num_rb_pipes = 16;
    i->enabled_rb_pipes_mask = 0xffff;
    i->num_hw_gfx_contexts = 8;
    i->pcie_gen = 4;
    /* amdgpu's VM: 2 MiB reserved at the bottom, a 47-bit low half and the high half */
    i->virtual_address_offset = 2ull << 20;
    i->virtual_address_max = 1ull << 47;
    i->virtual_address_alignment = 4096;
    i->pte_fragment_size = 2u << 20;
    i->gart_page_size = 4096;
    i->vram_type = 6; /* HBM */
    i->vram_bit_width = 4096;
    i->wave_front_size = d->wave_front_size;
    i->num_shader_visible_vgprs = 512;
    i->num_cu_per_sh = d->cu_per_simd_array;
    i->num_tcc_blocks = 16;
    i->pcie_num_lanes = 16;
    i->high_va_offset = 0xffff800000000000ull;
    i->high_va_max = 0xffffffffffe00000ull;
}

static long amdgpu_info(const struct gc_emu_device *d, uint8_t *args, const struct gc_emu_io *io)
{
    const struct drm_amdgpu_info *q = (const void *)args;
    union {
        uint32_t u32;
        uint32_t fw[2];
        uint64_t vram_gtt[3];
        uint64_t memory[12]; /* vram, cpu-visible vram, gtt: total, usable, usage, max alloc */
        struct drm_amdgpu_info_device dev;
    } out;
    size_t len;

    if (!q->return_size || !q->return_pointer)
        return -EINVAL;
    memset(&out, 0, sizeof(out));
    switch (q->query) {
    case AMDGPU_INFO_ACCEL_WORKING:
        out.u32 = 1;
        len = 4;
        break;
    case AMDGPU_INFO_FW_VERSION:
        out.fw[0] = d->fw_version;
        len = 8;
        break;
    case AMDGPU_INFO_VRAM_GTT:
        out.vram_gtt[0] = d->vram_bytes;
        out.vram_gtt[1] = d->vram_bytes;
        out.vram_gtt[2] = GTT_BYTES;
        len = 24;
        break;
    case AMDGPU_INFO_MEMORY:
        for (int h = 0; h < 3; h++) {
            uint64_t total = h == 2 ? GTT_BYTES : d->vram_bytes;
            out.memory[4 * h] = total;
            out.memory[4 * h + 1] = total;
            out.memory[4 * h + 3] = total * 3 / 4;
        }
        len = sizeof(out.memory);
        break;
    case AMDGPU_INFO_READ_MMR_REG:
        /* amdgpu_info_ioctl: at most 128 registers; one off the allow list (GB_ADDR_CONFIG
           only here) fails the read: EFAULT */
        if (q->arg[1] > 128)
            return -EINVAL;
        if (q->arg[1] != 1 || q->arg[0] != GB_ADDR_CONFIG)
            return -EFAULT;
        out.u32 = 0x26010042u;
        len = 4;
        break;
    case AMDGPU_INFO_DEV_INFO:
        dev_info(d, &out.dev);
        len = sizeof(out.dev);
        break;
    default:
        return -EINVAL;
    }
    if (len > q->return_size)
        len = q->return_size;
    return io->write(io->ctx, q->return_pointer, &out, len) ? -EFAULT : 0;
}

struct drm_desc {
    unsigned nr;
    const char *name;
    long (*fn)(const struct gc_emu_device *d, uint8_t *args, const struct gc_emu_io *io);
};

static const struct drm_desc calls[] = {
    { 0x00, "VERSION", version },
    { 0x02, "GET_MAGIC", not_for_render },
    { 0x05, "GET_CLIENT", not_for_render },
    { 0x11, "AUTH_MAGIC", not_for_render },
    { 0x1e, "SET_MASTER", not_for_render },
    { 0x1f, "DROP_MASTER", not_for_render },
    { DRM_COMMAND_BASE + 0x05, "AMDGPU_INFO", amdgpu_info },
};

static const struct drm_desc *find(unsigned cmd)
{
    if (GC_IOC_TYPE(cmd) != DRM_TYPE)
        return NULL;
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
        if (calls[i].nr == GC_IOC_NR(cmd))
            return &calls[i];
    return NULL;
}

const char *gc_emu_drm_name(unsigned cmd)
{
    const struct drm_desc *c = find(cmd);

    return c ? c->name : "?";
}

long gc_emu_drm_ioctl(const struct gc_emu_device *d, unsigned cmd, uint8_t *args,
                      const struct gc_emu_io *io)
{
    const struct drm_desc *c = find(cmd);

    if (!c)
        return -EINVAL;
    return c->fn(d, args, io);
}
