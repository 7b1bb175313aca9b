/* SPDX-License-Identifier: MIT */
/*
 * Memory as a wave sees it (image.h gc_image_read): global from the core's segments, generic
 * lowered by the fixed apertures, local from the group leader's LDS image, private from the
 * wave's scratch slot (docs/cwsr-layout.md §14-§15).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_regs.h"
#include "image_internal.h"
#include "wave.h"

static int gap_cmp(const void *a, const void *b)
{
    const gpucore_manifest_entry_t *x = *(const gpucore_manifest_entry_t *const *)a;
    const gpucore_manifest_entry_t *y = *(const gpucore_manifest_entry_t *const *)b;

    return x->address < y->address ? -1 : x->address > y->address;
}

/* End of a manifest range (saturated: a range may claim to run past 2^64). */
static uint64_t gap_end(const gpucore_manifest_entry_t *e)
{
    return e->size > UINT64_MAX - e->address ? UINT64_MAX : e->address + e->size;
}

gpucore_status_t gc_image_index_manifest(struct gc_image *img)
{
    uint32_t n = 0;

    if (!img->manifest)
        return GPUCORE_OK;
    for (uint32_t i = 0; i < img->manifest->count; i++)
        n += img->manifest->entries[i].status != GPUCORE_RANGE_CAPTURED;
    if (!n)
        return GPUCORE_OK;
    img->gaps = gc_calloc_array(n, sizeof(*img->gaps));
    img->gap_widest = gc_calloc_array(n, sizeof(*img->gap_widest));
    if (!img->gaps || !img->gap_widest)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < img->manifest->count; i++)
        if (img->manifest->entries[i].status != GPUCORE_RANGE_CAPTURED)
            img->gaps[img->ngaps++] = &img->manifest->entries[i];
    qsort(img->gaps, img->ngaps, sizeof(*img->gaps), gap_cmp);
    for (uint32_t i = 0; i < img->ngaps; i++)
        img->gap_widest[i] = i && gap_end(img->gaps[img->gap_widest[i - 1]]) >= gap_end(img->gaps[i])
                                     ? img->gap_widest[i - 1]
                                     : i;
    return GPUCORE_OK;
}

const gpucore_manifest_entry_t *gc_image_manifest_gap(const struct gc_image *img, uint64_t addr)
{
    /* Of the ranges starting at or below addr, the one reaching furthest covers addr if any
       does: a binary search, whatever the manifest's size. */
    uint32_t lo = 0, hi = img->ngaps;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (img->gaps[mid]->address <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const gpucore_manifest_entry_t *e = img->gaps[img->gap_widest[lo - 1]];
    return gap_end(e) > addr ? e : NULL;
}

uint32_t gc_image_missing_reason(const struct gc_image *img, uint64_t addr)
{
    const gpucore_manifest_entry_t *e = img ? gc_image_manifest_gap(img, addr) : NULL;

    return e ? e->reason : GPUCORE_REASON_NONE;
}

/* Why @p addr is missing, from the capture manifest ("" if it does not say). */
static void missing_reason(const struct gc_image *img, uint64_t addr, char *buf, size_t size)
{
    const gpucore_manifest_entry_t *e = gc_image_manifest_gap(img, addr);

    buf[0] = '\0';
    if (e) {
        snprintf(buf, size, " (the capture %s: reason %s, tier %s%s%.80s)",
                 e->status == GPUCORE_RANGE_SKIPPED ? "left it out" : "could not read it",
                 gpucore_reason_name(e->reason), gpucore_tier_name(e->tier),
                 e->label.len ? "; " : "", e->label.len ? e->label.ptr : "");
        return;
    }
    if (img->manifest && (img->manifest->flags & GPUCORE_MANIFEST_TRUNCATED))
        snprintf(buf, size, " (the capture was cut short: %s)",
                 gpucore_reason_name(img->manifest->truncation_reason));
}

/* Process memory; on E_UNAVAILABLE the diag names the first missing byte and why. */
static gpucore_status_t read_global(struct gc_image *img, const char *what, uint64_t addr,
                                    void *buf, uint64_t size, uint64_t *ret_done,
                                    gpucore_diag_t *diag)
{
    uint64_t done = 0;
    gpucore_status_t st;
    char why[200];

    if (size && addr > UINT64_MAX - (size - 1))
        return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                           "%s read of 0x%" PRIx64 " bytes at 0x%" PRIx64
                           " wraps the address space",
                           what, size, addr);
    st = gc_image_mem_read(img, addr, buf, size, &done);
    *ret_done = done;
    if (st == GPUCORE_OK)
        return st;
    if (st == GPUCORE_E_UNAVAILABLE) {
        missing_reason(img, addr + done, why, sizeof(why));
        return gc_diag_set(diag, st, GC_NO_OFFSET,
                           "%s memory at 0x%" PRIx64 " is not in the core%s", what, addr + done,
                           why);
    }
    return gc_diag_set(diag, st, GC_NO_OFFSET, "%s memory at 0x%" PRIx64 " cannot be read: %s",
                       what, addr + done, gc_image_mem_errmsg(img));
}

static gpucore_status_t read_local(struct gc_image *img, const struct gc_image_wave *w,
                                   uint64_t addr, uint8_t *buf, uint64_t size, uint64_t *ret_done,
                                   gpucore_diag_t *diag)
{
    const struct gc_image_wave *leader =
            w->group_leader < img->nwaves ? &img->waves[w->group_leader] : w;
    /* the LDS image is in the leader's record when it is the first wave of its group */
    uint64_t lds = leader->wave.first_wave ? leader->wave.lds_size : 0;
    const struct gc_wave *rw = NULL;

    if (addr < lds) {
        *ret_done = 0;
        GC_TRY(gc_image_wave_regs(img, leader->index, &rw, diag));
        if (!rw->lds)
            lds = 0;
    }
    if (addr >= lds || size > lds - addr) {
        uint64_t n = addr < lds ? lds - addr : 0;

        if (n)
            memcpy(buf, rw->lds + addr, n);
        *ret_done = n;
        return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                           "local address 0x%" PRIx64 " is past the %" PRIu64
                           " bytes of LDS of wave %u's workgroup",
                           addr + n, lds, w->index);
    }
    if (size)
        memcpy(buf, rw->lds + addr, size);
    *ret_done = size;
    return GPUCORE_OK;
}

/* The scratch backing memory of the wave's XCC: the queue's, plus the per-XCC stride. */
static gpucore_status_t xcc_scratch_base(const struct gc_image *img, const struct gc_image_wave *w,
                                         uint64_t *ret, gpucore_diag_t *diag)
{
    const struct gc_image_queue *q = &img->queues[w->queue];
    const struct gc_image_queue_priv *qp = &img->qpriv[w->queue];

    GC_FAIL_IF(w->xcc && q->scratch_stride > (UINT64_MAX - qp->scratch_loc) / w->xcc, diag,
               GPUCORE_E_CORRUPT, GC_NO_OFFSET, "wave %u: the scratch of XCC %u wraps", w->index,
               w->xcc);
    *ret = qp->scratch_loc + q->scratch_stride * w->xcc;
    return GPUCORE_OK;
}

/*
 * Architected flat scratch (gfx940/942, gfx11, gfx12): the SPI starts every wave with
 * FLAT_SCRATCH = its slot's address, and the trap handler saves it (docs/cwsr-layout.md §14). When
 * the queue's fields place the slot, the two must agree -- AMD's library warns and shows no
 * private memory otherwise; when they cannot (a runtime of r_version 11 or later no longer
 * records the per-XCC stride, XCC > 0), the register is the slot's address.
 */
static gpucore_status_t flat_scratch_slot(struct gc_image *img, const struct gc_image_wave *w,
                                          uint64_t off, uint64_t size, uint64_t *ret_base,
                                          uint64_t *ret_size, gpucore_diag_t *diag)
{
    /* The register's name per family: gfx12 renamed FLAT_SCRATCH scratch_base, the same
       register (AMD's amdgpu_regnum_t::flat_scratch, its hardware slot unchanged); looking
       for "flat_scratch" alone found nothing on gfx12 and hid every wave's private memory. */
    static const char *const names[] = { "flat_scratch", "scratch_base" };
    const struct gc_image_queue_priv *qp = &img->qpriv[w->queue];
    const struct gc_arch *arch = img->agents[img->queues[w->queue].agent].arch;
    const struct gc_wave *rw = NULL;
    struct gc_reg reg;
    uint64_t flat = 0, base;
    gpucore_status_t found = GPUCORE_E_NOTFOUND;

    for (size_t i = 0; i < GC_ARRAY_SIZE(names) && found != GPUCORE_OK; i++)
        found = gc_wave_register_find(arch, &w->wave, names[i], &reg);
    GC_FAIL_IF(found != GPUCORE_OK ||
                       gc_image_wave_regs(img, w->index, &rw, NULL) != GPUCORE_OK ||
                       gc_reg_read(arch, rw, img->r_version, &reg, 0, &flat, sizeof(flat)) !=
                               GPUCORE_OK,
               diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
               "wave %u: its flat_scratch register, which holds its scratch address on %s, "
               "cannot be read", w->index, arch->name);
    if (w->xcc == 0 || qp->have_stride) {
        GC_TRY(xcc_scratch_base(img, w, &base, diag));
        GC_FAIL_IF(off > UINT64_MAX - base || base + off != flat, diag, GPUCORE_E_UNAVAILABLE,
                   GC_NO_OFFSET,
                   "wave %u: its flat_scratch 0x%" PRIx64 " is not the scratch slot 0x%" PRIx64
                   " its queue's fields place (AMD's library shows no private memory then)",
                   w->index, flat, base + off);
    }
    GC_FAIL_IF(size > UINT64_MAX - flat, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "wave %u: the scratch slot at flat_scratch 0x%" PRIx64 " wraps", w->index, flat);
    *ret_base = flat;
    *ret_size = size;
    return GPUCORE_OK;
}

/* Base address and size of the wave's scratch slot. */
static gpucore_status_t scratch_slot(struct gc_image *img, const struct gc_image_wave *w,
                                     uint64_t *ret_base, uint64_t *ret_size, gpucore_diag_t *diag)
{
    const struct gc_image_queue *q = &img->queues[w->queue];
    const struct gc_image_queue_priv *qp = &img->qpriv[w->queue];
    const struct gc_arch *arch = img->agents[q->agent].arch;
    uint64_t off = 0, size = 0, base;

    GC_FAIL_IF(!qp->have_amdq, diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
               "wave %u: the queue's amd_queue_t is not in the core, so its scratch is unknown",
               w->index);
    /* AMD's library places the slot from the queue's fields alone: ROCdbgapi
       rocm-dbgapi-0.77.0 defines cwsr_record_t::is_scratch_enabled (src/architecture.cpp) but
       never calls it; wave_t::scratch_memory_region (src/wave.cpp) ignores the bit. */
    GC_FAIL_IF((!w->wave.scratch_en && !(img->flags & GC_IMAGE_AMD_SCRATCH)) || !qp->scratch_loc,
               diag, GPUCORE_E_LIMIT, GC_NO_OFFSET, "wave %u has no scratch (private memory)",
               w->index);
    GC_FAIL_IF(!qp->se_count, diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
               "wave %u: the agent's shader-engine count is unknown, so its scratch slot is too",
               w->index);
    gpucore_status_t st = gc_scratch_slot(arch, q->compute_tmpring_size, w->wave.se_id,
                                          w->wave.scratch_id, qp->se_count, &off, &size);
    GC_FAIL_IF(st != GPUCORE_OK, diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
               "wave %u: COMPUTE_TMPRING_SIZE 0x%x does not place a scratch slot for %u shader "
               "engines (AMD's library disables private memory)",
               w->index, q->compute_tmpring_size, qp->se_count);
    if (arch->architected_flat_scratch)
        return flat_scratch_slot(img, w, off, size, ret_base, ret_size, diag);
    GC_FAIL_IF(w->xcc > 0 && !qp->have_stride, diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
               "wave %u: the runtime (r_version %u) does not record the per-XCC scratch stride "
               "needed for XCC %u",
               w->index, img->r_version, w->xcc);
    GC_TRY(xcc_scratch_base(img, w, &base, diag));
    GC_FAIL_IF(off > UINT64_MAX - base || size > UINT64_MAX - (base + off), diag, GPUCORE_E_CORRUPT,
               GC_NO_OFFSET, "wave %u: the scratch slot wraps", w->index);
    *ret_base = base + off;
    *ret_size = size;
    return GPUCORE_OK;
}

static gpucore_status_t read_private(struct gc_image *img, const struct gc_image_wave *w,
                                     uint32_t space, uint32_t lane, uint64_t addr, uint8_t *buf,
                                     uint64_t size, uint64_t *ret_done, gpucore_diag_t *diag)
{
    uint64_t base = 0, slot = 0, done = 0;

    *ret_done = 0;
    GC_TRY(scratch_slot(img, w, &base, &slot, diag));
    if (space == GC_ASPACE_PRIVATE_WAVE) {
        uint64_t n = addr < slot ? (slot - addr < size ? slot - addr : size) : 0;
        gpucore_status_t st = GPUCORE_OK;

        if (n)
            st = read_global(img, "scratch", base + addr, buf, n, ret_done, diag);
        if (st != GPUCORE_OK)
            return st;
        GC_FAIL_IF(n < size, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                   "private address 0x%" PRIx64 " is past wave %u's scratch slot of 0x%" PRIx64
                   " bytes",
                   addr + n, w->index, slot);
        return GPUCORE_OK;
    }
    GC_FAIL_IF(lane >= w->lanes, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "lane %u is not a lane of wave %u (%u lanes)", lane, w->index, w->lanes);
    while (done < size) {
        uint64_t off, got = 0;
        uint32_t contig;
        gpucore_status_t st =
                gc_private_lane_offset(addr + done, lane, w->lanes, slot, &off, &contig);

        if (st == GPUCORE_E_LIMIT || addr + done < addr) {
            *ret_done = done;
            return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                               "private_lane address 0x%" PRIx64 " of lane %u is past wave %u's "
                               "scratch slot of 0x%" PRIx64 " bytes",
                               addr + done, lane, w->index, slot);
        }
        if (st != GPUCORE_OK)
            return gc_diag_set(diag, st, GC_NO_OFFSET,
                               "private_lane address 0x%" PRIx64 " of lane %u cannot be placed",
                               addr + done, lane);
        uint64_t n = contig < size - done ? contig : size - done;
        if (off + n > slot)
            n = slot - off;
        st = read_global(img, "scratch", base + off, buf + done, n, &got, diag);
        done += got;
        if (st != GPUCORE_OK) {
            *ret_done = done;
            return st;
        }
    }
    *ret_done = done;
    return GPUCORE_OK;
}

gpucore_status_t gc_image_read(struct gc_image *img, uint32_t wave, uint32_t space, uint32_t lane,
                               uint64_t addr, void *buf, uint64_t size, uint64_t *ret_done,
                               gpucore_diag_t *reterr_diag)
{
    uint64_t done = 0;
    gpucore_status_t st;
    const struct gc_image_wave *w;

    if (ret_done)
        *ret_done = 0;
    GC_FAIL_IF(!img || (!buf && size), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_read needs an image and a buffer");
    if (space == GC_ASPACE_GENERIC) {
        enum gc_aspace to;
        uint64_t lowered;

        GC_TRY(gc_generic_lower(addr, &to, &lowered));
        if (to != GC_ASPACE_GLOBAL)
            GC_FAIL_IF(lowered > UINT32_MAX || size > (uint64_t)UINT32_MAX + 1 - lowered,
                       reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                       "generic address 0x%" PRIx64 " runs past its 4 GiB aperture", addr);
        return gc_image_read(img, wave, to, lane, lowered, buf, size, ret_done, reterr_diag);
    }
    if (space == GC_ASPACE_GLOBAL) {
        st = read_global(img, "global", addr, buf, size, &done, reterr_diag);
        if (ret_done)
            *ret_done = done;
        return st;
    }
    GC_FAIL_IF(space >= _GC_ASPACE_MAX, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "address space %u is not one of global, generic, local, private_lane, "
               "private_wave",
               space);
    GC_FAIL_IF(wave >= img->nwaves, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u does not exist (the image has %u)", wave, img->nwaves);
    w = &img->waves[wave];
    if (space == GC_ASPACE_LOCAL)
        st = read_local(img, w, addr, buf, size, &done, reterr_diag);
    else
        st = read_private(img, w, space, lane, addr, buf, size, &done, reterr_diag);
    if (ret_done)
        *ret_done = done;
    return st;
}
