/* SPDX-License-Identifier: MIT */
/*
 * The CWSR codec: KFD's size formulas, the per-XCC header, and the control stack plus wave
 * records, decoded and encoded exactly as docs/cwsr-layout.md §2-§10 describes them.
 *
 * Everything that differs between families comes from the gc_cwsr_layout row (cwsr_layouts.c)
 * or, for the VGPR file size KFD assumes per CU, from the small table below keyed by
 * gfx_target_version. The decoder treats every input as hostile: sizes are checked with
 * gc_out_of_bounds-style comparisons in 64 bits, nothing is allocated before the whole area
 * has been validated, and the wave count is capped.
 */
#include "cwsr.h"

#include <inttypes.h>
#include <string.h>

#include "gc_le.h"
#include "gc_util.h"

/*
 * Hard cap on waves per XCC area. The largest real areas hold a few thousand slots (wave_num
 * in §2 is at most cu_num * 40); 1M keeps the decode result below ~200 MB whatever the input.
 */
#define CWSR_MAX_WAVES (1u << 20)

/* KFD aligns the area sizes to the CPU page; AMD's dGPU hosts are 4 KiB-page x86-64. */
#define CWSR_PAGE 4096u

/* Relaunch-word classification, common to every family (§5). */
#define RELAUNCH_IS_EVENT (1u << 30)
#define RELAUNCH_IS_STATE (1u << 31)

/* The two PM4 header dwords at the top of every control stack, skipped unread (§5). */
#define CTL_PM4_WORDS 2u

/* Lane counts: gfx9 and wave64 records, wave32 records, AccVGPRs (gfx9 MI only, always 64). */
#define LANES_WAVE64 64u
#define LANES_WAVE32 32u
#define LANES_ACC    64u

/* KFD's per-CU save sizes (kfd_queue.c; docs/cwsr-layout.md §2). */
#define SGPR_SIZE_PER_CU     0x4000u
#define LDS_SIZE_PER_CU      0x10000u
#define HWREG_SIZE_PER_CU    0x1000u
#define VGPR_SIZE_DEFAULT    0x40000u
#define DEBUG_BYTES_PER_WAVE 32u
#define DEBUG_BYTES_ALIGN    64u

/*
 * VGPR_SIZE_PER_CU exceptions, per gfx_target_version: the MI parts save AccVGPRs too, and
 * gfx11/gfx12 parts with 1.5x the register file. The value is per target, not per family
 * (gfx1102 keeps the default while gfx1100 does not), hence a table and not a layout field.
 * 90400 and 90401 (gfx940, gfx941) are here although docs/cwsr-layout.md §2 lists only 90402:
 * the kernels that reported those two versions tested (gfxv / 100 * 100) == 90400; the patch
 * that narrowed the test to 90402 is the one that stopped reporting 90400/90401.
 */
static const struct {
    uint32_t gfx_target_version;
    uint32_t vgpr_size_per_cu;
} vgpr_size_table[] = {
    { 90008, 0x80000 },  { 90010, 0x80000 },  { 90400, 0x80000 },  { 90401, 0x80000 },
    { 90402, 0x80000 },  { 90500, 0x80000 },  { 110000, 0x60000 }, { 110001, 0x60000 },
    { 110501, 0x60000 }, { 120000, 0x60000 }, { 120001, 0x60000 },
};

static uint32_t vgpr_size_per_cu(uint32_t gfx_target_version)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(vgpr_size_table); i++)
        if (vgpr_size_table[i].gfx_target_version == gfx_target_version)
            return vgpr_size_table[i].vgpr_size_per_cu;
    return VGPR_SIZE_DEFAULT;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Largest value a field can hold (0 if the field is absent). */
static uint32_t bf_max(struct gc_bitfield f)
{
    return gc_bf_mask(f) >> (gc_bf_present(f) ? f.lo : 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Sizes                                                                                       */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_cwsr_compute_sizes(const struct gc_arch *arch, uint32_t simd_count,
                                       uint32_t array_count, uint32_t simd_arrays_per_engine,
                                       uint32_t num_xcc, struct gc_cwsr_sizes *ret)
{
    const struct gc_cwsr_layout *l;
    uint64_t cus, cu_num, wave_num, per_cu, wg, ctl, cwsr, debug, total;

    if (!arch || !arch->cwsr || !ret || !simd_count || !num_xcc)
        return GPUCORE_E_INVAL;
    l = arch->cwsr;
    if (!l->simd_per_cu || simd_count % l->simd_per_cu)
        return GPUCORE_E_INVAL;
    cus = simd_count / l->simd_per_cu;
    if (cus % num_xcc)
        return GPUCORE_E_INVAL;
    cu_num = cus / num_xcc;

    wave_num = cu_num * l->waves_per_cu;
    if (l->wave_slots_per_array) {
        uint64_t by_arrays;

        if (!array_count || !simd_arrays_per_engine)
            return GPUCORE_E_INVAL;
        /* Integer division first, as KFD does: array_count / simd_arrays_per_engine * 512. */
        by_arrays = (uint64_t)(array_count / simd_arrays_per_engine) * l->wave_slots_per_array;
        if (by_arrays < wave_num)
            wave_num = by_arrays;
    }

    per_cu = (uint64_t)SGPR_SIZE_PER_CU + LDS_SIZE_PER_CU + HWREG_SIZE_PER_CU +
             vgpr_size_per_cu(arch->gfx_target_version);
    wg = align_up(cu_num * per_cu, CWSR_PAGE);
    ctl = align_up(GC_CWSR_HEADER_SIZE + wave_num * l->ctl_entry_bytes + 8, CWSR_PAGE);
    /* The hardware cannot address more (KFD: "sufficient for AQL, limited by SPI events"). */
    if (l->ctl_stack_cap && ctl > l->ctl_stack_cap)
        ctl = l->ctl_stack_cap;
    cwsr = ctl + wg;
    debug = align_up(wave_num * DEBUG_BYTES_PER_WAVE, DEBUG_BYTES_ALIGN);
    /*
     * No wrap in 64 bits: cu_num * num_xcc < 2^32 and per_cu < 2^20 keep the work-group data
     * below 2^52 even summed over XCCs, and the control stacks and debug areas stay below 2^48.
     */
    total = align_up((cwsr + debug) * num_xcc, CWSR_PAGE);
    if (wave_num > UINT32_MAX || cwsr > UINT32_MAX || debug > UINT32_MAX)
        return GPUCORE_E_INVAL;

    ret->cu_num = (uint32_t)cu_num;
    ret->wave_num = (uint32_t)wave_num;
    ret->ctl_stack_size = (uint32_t)ctl;
    ret->wg_data_size = (uint32_t)wg;
    ret->cwsr_size = (uint32_t)cwsr;
    ret->debug_memory_size = (uint32_t)debug;
    ret->total_size = total;
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Header                                                                                      */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_cwsr_header_decode(const void *buf, size_t len, struct gc_cwsr_header *ret)
{
    const uint8_t *p = buf;

    if (!buf || !ret)
        return GPUCORE_E_INVAL;
    if (len < GC_CWSR_HEADER_SIZE)
        return GPUCORE_E_TRUNCATED;
    ret->control_stack_offset = gc_le32_get(p + 0);
    ret->control_stack_size = gc_le32_get(p + 4);
    ret->wave_state_offset = gc_le32_get(p + 8);
    ret->wave_state_size = gc_le32_get(p + 12);
    ret->debug_offset = gc_le32_get(p + 16);
    ret->debug_size = gc_le32_get(p + 20);
    ret->err_payload_addr = gc_le64_get(p + 24);
    ret->err_event_id = gc_le32_get(p + 32);
    ret->reserved1 = gc_le32_get(p + 36);
    return GPUCORE_OK;
}

void gc_cwsr_header_encode(const struct gc_cwsr_header *h, void *buf)
{
    uint8_t *p = buf;

    gc_le32_put(p + 0, h->control_stack_offset);
    gc_le32_put(p + 4, h->control_stack_size);
    gc_le32_put(p + 8, h->wave_state_offset);
    gc_le32_put(p + 12, h->wave_state_size);
    gc_le32_put(p + 16, h->debug_offset);
    gc_le32_put(p + 20, h->debug_size);
    gc_le64_put(p + 24, h->err_payload_addr);
    gc_le32_put(p + 32, h->err_event_id);
    gc_le32_put(p + 36, h->reserved1);
}

gpucore_status_t gc_cwsr_used_parts(const struct gc_cwsr_header *h, uint64_t area_size,
                                    struct gc_cwsr_used *ret, const char **reterr_why)
{
    uint64_t cso, css, wso, wss;

    if (!h || !ret)
        return GPUCORE_E_INVAL;
    cso = h->control_stack_offset;
    css = h->control_stack_size;
    wso = h->wave_state_offset;
    wss = h->wave_state_size;
    /* 32-bit fields summed in 64 bits: no sum wraps; the first rule broken is the reason */
    const struct {
        int broken;
        const char *why;
    } rules[] = {
        { cso < GC_CWSR_HEADER_SIZE, "the control stack begins inside the header" },
        { cso + css > area_size, "the control stack runs past the area" },
        { wso > area_size, "the wave area ends past the area" },
        { wss > wso, "wave_state_size is above wave_state_offset" },
        { cso + css != wso - wss, "the control stack does not end where the wave area begins" },
        { (css | wss) % 4 != 0, "a size is not a multiple of 4" },
    };

    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (rules[i].broken) {
            if (reterr_why)
                *reterr_why = rules[i].why;
            return GPUCORE_E_CORRUPT;
        }
    *ret = (struct gc_cwsr_used){
        .ctl_offset = cso, .ctl_size = css, .wave_offset = wso - wss, .wave_size = wss
    };
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Record geometry                                                                             */
/* ------------------------------------------------------------------------------------------ */

/* What one state word (plus the wave's first_wave bit) says about a record. */
struct geom {
    uint32_t lanes;
    uint32_t vgprs, accvgprs, shared_vgprs, sgprs;
    uint32_t lds_size;
};

/*
 * Read the register counts from a state word. Returns 0, or -1 when the word is inconsistent
 * (gfx90a/940: accum_offset places more arch VGPRs than the total allocation holds; AMD's
 * reader would compute a negative AccVGPR count and fail on the wave-area check).
 */
static int state_geometry(const struct gc_cwsr_layout *l, uint32_t state, struct geom *g)
{
    uint32_t wave32 = gc_bf_get(state, l->st_wave32);
    uint32_t granule = wave32 ? l->vgpr_granule_w32 : l->vgpr_granule_w64;
    uint32_t total = (gc_bf_get(state, l->st_vgprs) + 1) * granule;

    g->lanes = wave32 ? LANES_WAVE32 : LANES_WAVE64;
    switch (l->acc_rule) {
    case GC_ACC_SAME_AS_ARCH:
        g->vgprs = total;
        g->accvgprs = total;
        break;
    case GC_ACC_ACCUM_OFFSET:
        g->vgprs = (gc_bf_get(state, l->st_accum_offset) + 1) * l->accum_granule;
        if (g->vgprs > total)
            return -1;
        g->accvgprs = total - g->vgprs;
        break;
    case GC_ACC_NONE:
    default:
        g->vgprs = total;
        g->accvgprs = 0;
        break;
    }
    /* gfx9 allocates SGPRs in granules that include the 16 TTMPs, which are saved apart. */
    g->sgprs = l->sgpr_fixed ? l->sgpr_fixed
                             : (gc_bf_get(state, l->st_sgprs) + 1) * l->sgpr_granule - l->ttmps;
    g->shared_vgprs = gc_bf_get(state, l->st_shared_vgprs) * l->shared_vgpr_granule;
    g->lds_size = gc_bf_get(state, l->st_lds) * l->lds_granule;
    return 0;
}

/* Byte offsets of the blocks inside a record, from its lowest byte (§7.1, read bottom-up). */
struct blocks {
    uint64_t vgpr, shared_vgpr, accvgpr, sgpr, hwreg, ttmp, lds, size;
};

static void record_blocks(const struct gc_cwsr_layout *l, const struct geom *g, int first_wave,
                          struct blocks *b)
{
    b->vgpr = 0;
    b->shared_vgpr = b->vgpr + (uint64_t)g->vgprs * g->lanes * 4;
    b->accvgpr = b->shared_vgpr + (uint64_t)g->shared_vgprs * l->shared_vgpr_lanes * 4;
    b->sgpr = b->accvgpr + (uint64_t)g->accvgprs * LANES_ACC * 4;
    b->hwreg = b->sgpr + (uint64_t)g->sgprs * 4;
    b->ttmp = b->hwreg + (uint64_t)l->hwreg_slots * 4;
    b->lds = b->ttmp + (uint64_t)l->ttmps * 4;
    /* Only the group leader carries the workgroup's LDS image, at the top of its record. */
    b->size = b->lds + (first_wave ? g->lds_size : 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Decoder                                                                                     */
/* ------------------------------------------------------------------------------------------ */

struct walk {
    const struct gc_cwsr_layout *l;
    const uint8_t *ctl;
    uint64_t ctl_words;
    const uint8_t *wave;
    uint64_t wave_size;
    uint64_t ctl_base;  /* area offset of control-stack word 0 */
    uint64_t wave_base; /* area offset of the wave area's first byte */
};

/* The register pointers of a record whose lowest byte is @p r (NULL: a layout only). */
static void bind_blocks(struct gc_wave *out, const struct geom *g, const struct blocks *b,
                        const uint8_t *r)
{
    if (!r) {
        out->vgpr = out->shared_vgpr = out->accvgpr = out->sgpr = NULL;
        out->hwreg = out->ttmp = out->lds = NULL;
        return;
    }
    out->vgpr = r + b->vgpr;
    out->shared_vgpr = g->shared_vgprs ? r + b->shared_vgpr : NULL;
    out->accvgpr = g->accvgprs ? r + b->accvgpr : NULL;
    out->sgpr = g->sgprs ? r + b->sgpr : NULL;
    out->hwreg = r + b->hwreg;
    out->ttmp = r + b->ttmp;
    out->lds = out->first_wave && g->lds_size ? r + b->lds : NULL;
}

static void fill_wave(const struct walk *wk, struct gc_wave *out, const struct geom *g,
                      const struct blocks *b, uint64_t bottom)
{
    out->lanes = g->lanes;
    out->vgprs = g->vgprs;
    out->accvgprs = g->accvgprs;
    out->shared_vgprs = g->shared_vgprs;
    out->sgprs = g->sgprs;
    out->record_offset = wk->wave_base + bottom;
    out->record_size = b->size;
    bind_blocks(out, g, b, wk->wave ? wk->wave + bottom : NULL);
}

/*
 * Count the waves the control stack announces, failing with E_LIMIT past CWSR_MAX_WAVES. This
 * runs first so that the limit holds whatever the wave area says, and so that the decode walks
 * below never see more waves than the cap.
 */
static gpucore_status_t check_wave_count(const struct walk *wk, gpucore_diag_t *diag)
{
    uint32_t n = 0;

    for (uint64_t i = CTL_PM4_WORDS; i < wk->ctl_words; i++) {
        uint32_t word = gc_le32_get(wk->ctl + 4 * i);

        if (word & RELAUNCH_IS_EVENT)
            continue;
        if (word & RELAUNCH_IS_STATE) {
            i += wk->l->state_words - 1;
            continue;
        }
        GC_FAIL_IF(n >= CWSR_MAX_WAVES, diag, GPUCORE_E_LIMIT, wk->ctl_base + 4 * i,
                   "control stack word %" PRIu64 " at 0x%" PRIx64 ": more than %u waves", i,
                   wk->ctl_base + 4 * i, CWSR_MAX_WAVES);
        n++;
    }
    return GPUCORE_OK;
}

/*
 * Walk the control stack as ROCdbgapi's control_stack_iterate and update_waves do, checking
 * every rule on the way. With out == NULL only validates and counts (pass 1); with out it
 * also fills the waves (pass 2, which cannot fail once pass 1 succeeded on the same input).
 */
static gpucore_status_t walk_control_stack(const struct walk *wk, struct gc_wave *out,
                                           uint32_t *ret_waves, uint32_t *ret_groups,
                                           gpucore_diag_t *diag)
{
    const struct gc_cwsr_layout *l = wk->l;
    uint32_t state[2] = { 0, 0 };
    uint64_t state_off = 0;
    int have_state = 0, group_open = 0;
    uint32_t n = 0, groups = 0, leader = 0;
    uint64_t top = wk->wave_size; /* wave-area offset just above the next record */

    for (uint64_t i = CTL_PM4_WORDS; i < wk->ctl_words; i++) {
        uint32_t word = gc_le32_get(wk->ctl + 4 * i);
        uint64_t off = wk->ctl_base + 4 * i;
        uint32_t first, last;
        struct geom g;
        struct blocks b;

        /* Bit 30 first: a word with both bits set is an event, as in AMD's reader. */
        if (word & RELAUNCH_IS_EVENT)
            continue;
        if (word & RELAUNCH_IS_STATE) {
            state[0] = word;
            state_off = off;
            if (l->state_words > 1) {
                GC_FAIL_IF(i + 1 >= wk->ctl_words, diag, GPUCORE_E_CORRUPT, off,
                           "control stack word %" PRIu64 " at 0x%" PRIx64
                           ": state word 0x%08x without its COMPUTE_RELAUNCH2 word",
                           i, off, word);
                state[1] = gc_le32_get(wk->ctl + 4 * (i + 1));
                i++;
            }
            have_state = 1;
            continue;
        }

        /* A wave. */
        GC_FAIL_IF(!have_state, diag, GPUCORE_E_CORRUPT, off,
                   "control stack word %" PRIu64 " at 0x%" PRIx64 ": wave before any state word", i,
                   off);
        GC_FAIL_IF(state_geometry(l, state[0], &g) != 0, diag, GPUCORE_E_CORRUPT, state_off,
                   "control stack word at 0x%" PRIx64 ": state word 0x%08x gives more arch "
                   "VGPRs (accum_offset) than it allocates",
                   state_off, state[0]);

        first = gc_bf_get(word, l->wv_first_wave);
        last = gc_bf_get(word, l->wv_last_wave);
        /*
         * Workgroups as AMD's update_waves forms them: first_wave makes the wave the group
         * leader (even if the previous group never saw its last_wave; AMD accepts that), any
         * other wave joins the open group, last_wave closes it. A wave with no open group is
         * the one case AMD's reader rejects ("No group_leader").
         */
        if (first) {
            leader = n;
            groups++;
            group_open = 1;
        }
        GC_FAIL_IF(!group_open, diag, GPUCORE_E_CORRUPT, off,
                   "control stack word %" PRIu64 " at 0x%" PRIx64
                   ": wave %u is not a first_wave but no workgroup is open",
                   i, off, n);

        record_blocks(l, &g, (int)first, &b);
        GC_FAIL_IF(l->record_gap > top || top - l->record_gap < b.size, diag, GPUCORE_E_CORRUPT,
                   off,
                   "control stack word %" PRIu64 " at 0x%" PRIx64 ": wave %u needs %" PRIu64
                   " record bytes (+%u gap) below 0x%" PRIx64
                   ", but the wave area begins at 0x%" PRIx64,
                   i, off, n, b.size, l->record_gap, wk->wave_base + top, wk->wave_base);
        top -= l->record_gap + b.size;

        if (out) {
            struct gc_wave *w = &out[n];

            memset(w, 0, sizeof(*w));
            w->index = n;
            w->group = groups - 1;
            w->group_leader = leader;
            w->state[0] = state[0];
            w->state[1] = state[1];
            w->wave_word = word;
            w->first_wave = first;
            w->last_wave = last;
            w->scratch_en = gc_bf_get(word, l->wv_scratch_en);
            w->se_id = gc_bf_get(word, l->wv_se_id);
            w->scratch_id = gc_bf_get(word, l->wv_scratch_id);
            /* The workgroup's LDS size is the leader's: its record holds the LDS image. */
            w->lds_size = first ? g.lds_size : out[leader].lds_size;
            fill_wave(wk, w, &g, &b, top);
        }
        n++;
        if (last)
            group_open = 0;
    }

    /* ROCdbgapi: "Corrupted control stack or wave save area". */
    GC_FAIL_IF(top != 0, diag, GPUCORE_E_CORRUPT, wk->wave_base,
               "wave area at 0x%" PRIx64 ": %" PRIu64 " bytes below the last record (at 0x%" PRIx64
               ") belong to no wave; the control stack describes %" PRIu64 " of %" PRIu64 " bytes",
               wk->wave_base, top, wk->wave_base + top, wk->wave_size - top, wk->wave_size);
    *ret_waves = n;
    *ret_groups = groups;
    return GPUCORE_OK;
}

/* gc_cwsr_decode(); @p wave_area NULL: gc_cwsr_decode_layout() (wave_len is the header's). */
static gpucore_status_t decode(const struct gc_arch *arch, const struct gc_cwsr_header *header,
                               const void *ctl, size_t ctl_len, const void *wave_area,
                               size_t wave_len, struct gc_cwsr_decoded *ret,
                               gpucore_diag_t *reterr_diag)
{
    const struct gc_cwsr_header *h = header;
    uint64_t ctl_end, wave_begin;
    uint32_t waves = 0, groups = 0;
    struct gc_wave *out = NULL;
    struct walk wk;

    GC_FAIL_IF(h->control_stack_size % 4, reterr_diag, GPUCORE_E_CORRUPT, 4,
               "CWSR header at 0x4: control_stack_size 0x%x is not a multiple of 4",
               h->control_stack_size);
    GC_FAIL_IF(h->wave_state_size % 4, reterr_diag, GPUCORE_E_CORRUPT, 12,
               "CWSR header at 0xc: wave_state_size 0x%x is not a multiple of 4",
               h->wave_state_size);
    GC_FAIL_IF(h->wave_state_size > h->wave_state_offset, reterr_diag, GPUCORE_E_CORRUPT, 12,
               "CWSR header at 0xc: wave_state_size 0x%x exceeds wave_state_offset 0x%x",
               h->wave_state_size, h->wave_state_offset);
    /* 64-bit sums: hostile offsets must not wrap into agreement. */
    ctl_end = (uint64_t)h->control_stack_offset + h->control_stack_size;
    wave_begin = (uint64_t)h->wave_state_offset - h->wave_state_size;
    GC_FAIL_IF(ctl_end != wave_begin, reterr_diag, GPUCORE_E_CORRUPT, 0,
               "CWSR header at 0x0: the control stack ends at 0x%" PRIx64
               ", expected it to end where the wave area begins (0x%" PRIx64 ")",
               ctl_end, wave_begin);
    GC_FAIL_IF(ctl_len < h->control_stack_size, reterr_diag, GPUCORE_E_TRUNCATED,
               (uint64_t)h->control_stack_offset + ctl_len,
               "control stack at 0x%x: %zu bytes, the header says 0x%x", h->control_stack_offset,
               ctl_len, h->control_stack_size);
    GC_FAIL_IF(wave_len < h->wave_state_size, reterr_diag, GPUCORE_E_TRUNCATED,
               wave_begin + wave_len, "wave area at 0x%" PRIx64 ": %zu bytes, the header says 0x%x",
               wave_begin, wave_len, h->wave_state_size);

    wk.l = arch->cwsr;
    wk.ctl = ctl;
    wk.ctl_words = h->control_stack_size / 4;
    wk.wave = wave_area;
    wk.wave_size = h->wave_state_size;
    wk.ctl_base = h->control_stack_offset;
    wk.wave_base = wave_begin;

    /*
     * An empty control stack means no waves, and AMD's reader then looks at nothing else (the
     * wave-area check sits inside its "if (ctrl_stack_size)"); so do we.
     */
    if (wk.ctl_words) {
        GC_TRY(check_wave_count(&wk, reterr_diag));
        GC_TRY(walk_control_stack(&wk, NULL, &waves, &groups, reterr_diag));
        if (waves) {
            out = gc_calloc_array(waves, sizeof(*out));
            GC_FAIL_IF(!out, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                       "CWSR decode: cannot allocate %u waves", waves);
            if (walk_control_stack(&wk, out, &waves, &groups, NULL) != GPUCORE_OK) {
                /* Pass 2 repeats pass 1 on the same bytes; only a racing writer gets here. */
                gc_free(out);
                return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                                   "CWSR decode: the area changed while it was decoded");
            }
        }
    }

    ret->header = *h;
    ret->wave_count = waves;
    ret->group_count = groups;
    ret->waves = out;
    return GPUCORE_OK;
}

gpucore_status_t gc_cwsr_decode(const struct gc_arch *arch, const struct gc_cwsr_header *header,
                                const void *ctl, size_t ctl_len, const void *wave_area,
                                size_t wave_len, struct gc_cwsr_decoded *ret,
                                gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!arch || !arch->cwsr || !header || !ret || (!ctl && ctl_len) ||
                       (!wave_area && wave_len),
               reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "gc_cwsr_decode: invalid argument");
    if (!wave_area) {
        /* a zero-length wave area: decode() reads NULL as "layout only", which is the same
           for a wave area that holds no bytes (every record would fail the size check) */
        static const uint8_t none[1];

        wave_area = none;
    }
    return decode(arch, header, ctl, ctl_len, wave_area, wave_len, ret, reterr_diag);
}

gpucore_status_t gc_cwsr_decode_layout(const struct gc_arch *arch,
                                       const struct gc_cwsr_header *header, const void *ctl,
                                       size_t ctl_len, struct gc_cwsr_decoded *ret,
                                       gpucore_diag_t *reterr_diag)
{
    GC_FAIL_IF(!arch || !arch->cwsr || !header || !ret || (!ctl && ctl_len), reterr_diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "gc_cwsr_decode_layout: invalid argument");
    return decode(arch, header, ctl, ctl_len, NULL, header->wave_state_size, ret, reterr_diag);
}

gpucore_status_t gc_cwsr_wave_bind(const struct gc_arch *arch, struct gc_wave *w,
                                   const void *record, size_t len)
{
    struct geom g;
    struct blocks b;

    if (!arch || !arch->cwsr || !w || !record || len < w->record_size)
        return GPUCORE_E_INVAL;
    if (state_geometry(arch->cwsr, w->state[0], &g) != 0)
        return GPUCORE_E_CORRUPT;
    record_blocks(arch->cwsr, &g, (int)w->first_wave, &b);
    if (b.size != w->record_size || g.lanes != w->lanes || g.vgprs != w->vgprs ||
        g.accvgprs != w->accvgprs || g.shared_vgprs != w->shared_vgprs || g.sgprs != w->sgprs)
        return GPUCORE_E_CORRUPT;
    bind_blocks(w, &g, &b, record);
    return GPUCORE_OK;
}

gpucore_status_t gc_cwsr_wave_status_offset(const struct gc_arch *arch, const struct gc_wave *w,
                                            uint64_t *ret_offset)
{
    struct geom g;
    struct blocks b;

    if (!arch || !arch->cwsr || !w || !ret_offset)
        return GPUCORE_E_INVAL;
    if (arch->cwsr->hwreg_slots != 16 || arch->cwsr->ttmps != 16)
        return GPUCORE_E_NOTSUP;
    if (state_geometry(arch->cwsr, w->state[0], &g) != 0)
        return GPUCORE_E_CORRUPT;
    record_blocks(arch->cwsr, &g, (int)w->first_wave, &b);
    if (b.size != w->record_size || b.ttmp != b.hwreg + 64)
        return GPUCORE_E_CORRUPT;
    *ret_offset = b.hwreg;
    return GPUCORE_OK;
}

void gc_cwsr_decoded_done(struct gc_cwsr_decoded *d)
{
    if (!d)
        return;
    gc_free(d->waves);
    d->waves = NULL;
    d->wave_count = 0;
    d->group_count = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Register accessors                                                                          */
/* ------------------------------------------------------------------------------------------ */

uint32_t gc_wave_sgpr(const struct gc_wave *w, uint32_t i)
{
    return w && w->sgpr && i < w->sgprs ? gc_le32_get(w->sgpr + 4 * (size_t)i) : 0;
}

uint32_t gc_wave_vgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane)
{
    if (!w || !w->vgpr || reg >= w->vgprs || lane >= w->lanes)
        return 0;
    return gc_le32_get(w->vgpr + 4 * ((size_t)reg * w->lanes + lane));
}

uint32_t gc_wave_accvgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane)
{
    if (!w || !w->accvgpr || reg >= w->accvgprs || lane >= LANES_ACC)
        return 0;
    return gc_le32_get(w->accvgpr + 4 * ((size_t)reg * LANES_ACC + lane));
}

uint32_t gc_wave_shared_vgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane)
{
    /* Shared VGPRs are 32 lanes wide on the one family that has them (gfx10). */
    if (!w || !w->shared_vgpr || reg >= w->shared_vgprs || lane >= LANES_WAVE32)
        return 0;
    return gc_le32_get(w->shared_vgpr + 4 * ((size_t)reg * LANES_WAVE32 + lane));
}

uint32_t gc_wave_hwreg(const struct gc_wave *w, uint32_t slot)
{
    return w && w->hwreg && slot < 16 ? gc_le32_get(w->hwreg + 4 * (size_t)slot) : 0;
}

uint32_t gc_wave_ttmp(const struct gc_wave *w, uint32_t i)
{
    return w && w->ttmp && i < 16 ? gc_le32_get(w->ttmp + 4 * (size_t)i) : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Encoder                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Field n such that count = (n + 1) * granule, or -1 if count has no such form in the field. */
static int64_t granule_field(uint64_t count, uint32_t granule, struct gc_bitfield f)
{
    if (!granule || !gc_bf_present(f) || count < granule || count % granule ||
        count / granule - 1 > bf_max(f))
        return -1;
    return (int64_t)(count / granule - 1);
}

/*
 * Build the state word for one wave's allocation, or fail with E_INVAL naming the wave. The
 * result is checked by decoding it again, so the encoder can never write a word the decoder
 * reads differently.
 */
static gpucore_status_t encode_state(const struct gc_arch *arch, const struct gc_wave_spec *s,
                                     uint32_t idx, uint32_t *ret_state, struct geom *ret_geom,
                                     gpucore_diag_t *diag)
{
    const struct gc_cwsr_layout *l = arch->cwsr;
    uint32_t state = RELAUNCH_IS_STATE;
    uint32_t wave32 = s->wave32;
    uint32_t granule, sgprs;
    int64_t n;
    struct geom g;

    GC_FAIL_IF(wave32 > 1, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "wave %u: wave32 must be 0 or 1",
               idx);
    GC_FAIL_IF(wave32 && (!gc_bf_present(l->st_wave32) || !(arch->wave_sizes & GC_WAVE32)), diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "wave %u: %s has no wave32", idx, arch->name);
    GC_FAIL_IF(!wave32 && !(arch->wave_sizes & GC_WAVE64), diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: %s has no wave64", idx, arch->name);
    state = gc_bf_put(state, l->st_wave32, wave32);
    granule = wave32 ? l->vgpr_granule_w32 : l->vgpr_granule_w64;

    switch (l->acc_rule) {
    case GC_ACC_ACCUM_OFFSET:
        n = granule_field(s->vgprs, l->accum_granule, l->st_accum_offset);
        GC_FAIL_IF(n < 0, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %u arch VGPRs is not (accum_offset + 1) * %u with accum_offset <= %u",
                   idx, s->vgprs, l->accum_granule, bf_max(l->st_accum_offset));
        state = gc_bf_put(state, l->st_accum_offset, (uint32_t)n);
        n = granule_field((uint64_t)s->vgprs + s->accvgprs, granule, l->st_vgprs);
        GC_FAIL_IF(n < 0, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %u arch + %u Acc VGPRs is not a unified allocation of "
                   "(n + 1) * %u VGPRs with n <= %u",
                   idx, s->vgprs, s->accvgprs, granule, bf_max(l->st_vgprs));
        break;
    case GC_ACC_SAME_AS_ARCH:
        GC_FAIL_IF(s->accvgprs != s->vgprs, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %s saves as many AccVGPRs as VGPRs (%u), not %u", idx, arch->name,
                   s->vgprs, s->accvgprs);
        n = granule_field(s->vgprs, granule, l->st_vgprs);
        break;
    case GC_ACC_NONE:
    default:
        GC_FAIL_IF(s->accvgprs, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "wave %u: %s has no AccVGPRs",
                   idx, arch->name);
        n = granule_field(s->vgprs, granule, l->st_vgprs);
        break;
    }
    GC_FAIL_IF(n < 0, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: %u VGPRs is not (n + 1) * %u with n <= %u", idx, s->vgprs, granule,
               bf_max(l->st_vgprs));
    state = gc_bf_put(state, l->st_vgprs, (uint32_t)n);
    /*
     * The field can say more than a wave can address (wave32 granules of 8 reach 512): refuse
     * what no hardware saves, so the simulated driver builds only real allocations.
     */
    GC_FAIL_IF(arch->max_vgprs && s->vgprs > arch->max_vgprs, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: %u VGPRs exceeds the %u %s can address", idx, s->vgprs, arch->max_vgprs,
               arch->name);
    GC_FAIL_IF(s->accvgprs > arch->max_accvgprs, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: %u AccVGPRs exceeds the %u %s can address", idx, s->accvgprs,
               arch->max_accvgprs, arch->name);

    if (s->shared_vgprs) {
        GC_FAIL_IF(!l->shared_vgpr_granule || wave32, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: shared VGPRs exist only in gfx10 wave64 waves", idx);
        GC_FAIL_IF(s->shared_vgprs % l->shared_vgpr_granule ||
                           s->shared_vgprs / l->shared_vgpr_granule > bf_max(l->st_shared_vgprs),
                   diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %u shared VGPRs is not n * %u with n <= %u", idx, s->shared_vgprs,
                   l->shared_vgpr_granule, bf_max(l->st_shared_vgprs));
        state = gc_bf_put(state, l->st_shared_vgprs, s->shared_vgprs / l->shared_vgpr_granule);
    }

    if (l->sgpr_fixed) {
        GC_FAIL_IF(s->sgprs && s->sgprs != l->sgpr_fixed, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %s always saves %u SGPRs, not %u", idx, arch->name, l->sgpr_fixed,
                   s->sgprs);
        sgprs = l->sgpr_fixed;
    } else {
        /* Saved SGPRs = allocation - TTMPs; the allocation is (n + 1) * granule. */
        n = granule_field((uint64_t)s->sgprs + l->ttmps, l->sgpr_granule, l->st_sgprs);
        GC_FAIL_IF(n < 0, diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "wave %u: %u SGPRs is not (n + 1) * %u - %u with n <= %u", idx, s->sgprs,
                   l->sgpr_granule, l->ttmps, bf_max(l->st_sgprs));
        state = gc_bf_put(state, l->st_sgprs, (uint32_t)n);
        sgprs = s->sgprs;
    }

    GC_FAIL_IF(s->lds_size % l->lds_granule || s->lds_size > arch->lds_bytes ||
                       s->lds_size / l->lds_granule > bf_max(l->st_lds),
               diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: LDS size %u is not a multiple of %u up to %u", idx, s->lds_size,
               l->lds_granule, arch->lds_bytes);
    state = gc_bf_put(state, l->st_lds, s->lds_size / l->lds_granule);

    /* The decoder must read back exactly what was asked for. */
    if (state_geometry(l, state, &g) != 0 || g.vgprs != s->vgprs || g.accvgprs != s->accvgprs ||
        g.shared_vgprs != s->shared_vgprs || g.sgprs != sgprs || g.lds_size != s->lds_size)
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "wave %u: %s's state word cannot express this allocation", idx,
                           arch->name);
    *ret_state = state;
    *ret_geom = g;
    return GPUCORE_OK;
}

static gpucore_status_t encode_wave_word(const struct gc_cwsr_layout *l,
                                         const struct gc_wave_spec *s, uint32_t idx,
                                         uint32_t *ret_word, gpucore_diag_t *diag)
{
    uint32_t word = 0;

    GC_FAIL_IF(s->first_wave > 1 || s->last_wave > 1 || s->scratch_en > 1, diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "wave %u: first_wave, last_wave and scratch_en must be 0 or 1", idx);
    GC_FAIL_IF(s->se_id > bf_max(l->wv_se_id), diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: se_id %u does not fit the wave word (max %u)", idx, s->se_id,
               bf_max(l->wv_se_id));
    GC_FAIL_IF(s->scratch_id > bf_max(l->wv_scratch_id), diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: scratch_id %u does not fit the wave word (max %u)", idx, s->scratch_id,
               bf_max(l->wv_scratch_id));
    word = gc_bf_put(word, l->wv_scratch_id, s->scratch_id);
    word = gc_bf_put(word, l->wv_se_id, s->se_id);
    word = gc_bf_put(word, l->wv_scratch_en, s->scratch_en);
    word = gc_bf_put(word, l->wv_first_wave, s->first_wave);
    word = gc_bf_put(word, l->wv_last_wave, s->last_wave);
    /* No family places a wave-word field in bits 30/31, which would make it an event or state. */
    if (word & (RELAUNCH_IS_EVENT | RELAUNCH_IS_STATE))
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "wave %u: wave word 0x%08x would not read as a wave", idx, word);
    *ret_word = word;
    return GPUCORE_OK;
}

/* Copy n host words to dst little-endian, or leave dst zero when src is NULL. */
static void put_words(uint8_t *dst, const uint32_t *src, uint64_t n)
{
    if (!src)
        return;
    for (uint64_t i = 0; i < n; i++)
        gc_le32_put(dst + 4 * i, src[i]);
}

struct enc_wave {
    uint32_t state, word;
    struct geom g;
    struct blocks b;
};

/*
 * Encode each wave's state and wave words and its record's blocks into @p ew, checking the
 * workgroups are whole (one first_wave ... last_wave run, one allocation); *ret_groups and
 * *ret_wave_sum are the workgroups and the bytes of the records.
 */
static gpucore_status_t encode_waves(const struct gc_arch *arch, const struct gc_wave_spec *waves,
                                     uint32_t count, struct enc_wave *ew, uint64_t *ret_groups,
                                     uint64_t *ret_wave_sum, gpucore_diag_t *reterr_diag)
{
    const struct gc_cwsr_layout *l = arch->cwsr;
    uint64_t groups = 0, wave_sum = 0;
    uint32_t leader = 0;
    int group_open = 0;

    for (uint32_t i = 0; i < count; i++) {
        const struct gc_wave_spec *s = &waves[i];

        GC_TRY(encode_state(arch, s, i, &ew[i].state, &ew[i].g, reterr_diag));
        GC_TRY(encode_wave_word(l, s, i, &ew[i].word, reterr_diag));

        /* Workgroups must be well formed: the hardware saves each one whole. */
        if (s->first_wave) {
            GC_FAIL_IF(group_open, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                       "wave %u starts a workgroup, but wave %u's workgroup has no last_wave",
                       i, leader);
            leader = i;
            group_open = 1;
            groups++;
        } else {
            GC_FAIL_IF(!group_open, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                       "wave %u is not a first_wave, but no workgroup is open", i);
            /* One state word describes the whole workgroup (§5). */
            GC_FAIL_IF(ew[i].state != ew[leader].state, reterr_diag, GPUCORE_E_INVAL,
                       GC_NO_OFFSET,
                       "wave %u: its allocation (wave size, VGPRs, SGPRs, LDS) differs from its "
                       "workgroup leader, wave %u",
                       i, leader);
        }
        if (s->last_wave)
            group_open = 0;

        record_blocks(l, &ew[i].g, (int)s->first_wave, &ew[i].b);
        wave_sum += l->record_gap + ew[i].b.size;
    }
    GC_FAIL_IF(group_open, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "the workgroup of wave %u has no last_wave", leader);
    *ret_groups = groups;
    *ret_wave_sum = wave_sum;
    return GPUCORE_OK;
}

/*
 * The control stack from @p off: the two PM4 dwords are written as zero: readers skip them
 * without looking (ROCdbgapi starts at index 2), and their real content is not documented.
 * The COMPUTE_RELAUNCH2 word of gfx10+ is zero too: no reader decodes a field from it.
 */
static void put_control_stack(const struct gc_cwsr_layout *l, const struct gc_wave_spec *waves,
                              const struct enc_wave *ew, uint32_t count, uint8_t *img,
                              uint64_t off)
{
    off += 4 * CTL_PM4_WORDS;
    for (uint32_t i = 0; i < count; i++) {
        if (waves[i].first_wave) {
            gc_le32_put(img + off, ew[i].state);
            off += 4;
            for (uint32_t k = 1; k < l->state_words; k++) {
                gc_le32_put(img + off, 0);
                off += 4;
            }
        }
        gc_le32_put(img + off, ew[i].word);
        off += 4;
    }
}

/* The records, downward from @p top (the end of the wave area) in control-stack order. */
static void put_records(const struct gc_cwsr_layout *l, const struct gc_wave_spec *waves,
                        const struct enc_wave *ew, uint32_t count, uint8_t *img, uint64_t top)
{
    for (uint32_t i = 0; i < count; i++) {
        const struct gc_wave_spec *s = &waves[i];
        const struct geom *g = &ew[i].g;
        const struct blocks *b = &ew[i].b;
        uint8_t *r;

        top -= l->record_gap + b->size;
        r = img + top;
        put_words(r + b->vgpr, s->vgpr, (uint64_t)g->vgprs * g->lanes);
        put_words(r + b->shared_vgpr, s->shared_vgpr,
                  (uint64_t)g->shared_vgprs * l->shared_vgpr_lanes);
        put_words(r + b->accvgpr, s->accvgpr, (uint64_t)g->accvgprs * LANES_ACC);
        put_words(r + b->sgpr, s->sgpr, g->sgprs);
        put_words(r + b->hwreg, s->hwreg, l->hwreg_slots < 16 ? l->hwreg_slots : 16);
        put_words(r + b->ttmp, s->ttmp, l->ttmps < 16 ? l->ttmps : 16);
        if (s->first_wave && s->lds && g->lds_size)
            memcpy(r + b->lds, s->lds, g->lds_size);
    }
}

/* The header: the fields the kernel does not derive from the template, the two used parts
   placed as KFD's get_wave_state writes them (both meet at ctl_stack_size). */
static void make_header(const struct gc_cwsr_header *template_header, uint32_t ctl_stack_size,
                        uint64_t ctl_used, uint64_t total, uint64_t wave_sum,
                        struct gc_cwsr_header *h)
{
    memset(h, 0, sizeof(*h));
    if (template_header) {
        h->debug_offset = template_header->debug_offset;
        h->debug_size = template_header->debug_size;
        h->err_payload_addr = template_header->err_payload_addr;
        h->err_event_id = template_header->err_event_id;
        h->reserved1 = template_header->reserved1;
    }
    h->control_stack_offset = (uint32_t)(ctl_stack_size - ctl_used);
    h->control_stack_size = (uint32_t)ctl_used;
    h->wave_state_offset = (uint32_t)total;
    h->wave_state_size = (uint32_t)wave_sum;
}

gpucore_status_t gc_cwsr_encode(const struct gc_arch *arch, const struct gc_wave_spec *waves,
                                uint32_t count, uint32_t ctl_stack_size,
                                const struct gc_cwsr_header *template_header, uint8_t **ret_image,
                                size_t *ret_size, struct gc_cwsr_header *ret_header,
                                gpucore_diag_t *reterr_diag)
{
    const struct gc_cwsr_layout *l;
    struct enc_wave *ew = NULL;
    struct gc_cwsr_header h;
    uint64_t groups = 0, ctl_used, wave_sum = 0, total;
    gpucore_status_t st;
    uint8_t *img;

    GC_FAIL_IF(!arch || !arch->cwsr || (!waves && count) || !ret_image || !ret_size, reterr_diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "gc_cwsr_encode: invalid argument");
    l = arch->cwsr;
    GC_FAIL_IF(count > CWSR_MAX_WAVES, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "%u waves: the decoder accepts at most %u per area", count, CWSR_MAX_WAVES);
    GC_FAIL_IF(ctl_stack_size % 4, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "ctl_stack_size 0x%x is not a multiple of 4", ctl_stack_size);

    if (count) {
        ew = gc_calloc_array(count, sizeof(*ew));
        GC_FAIL_IF(!ew, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                   "CWSR encode: cannot allocate %u waves", count);
    }
    st = encode_waves(arch, waves, count, ew, &groups, &wave_sum, reterr_diag);
    if (st != GPUCORE_OK)
        goto out_free;

    ctl_used = 4 * (CTL_PM4_WORDS + groups * l->state_words + count);
    if (GC_CWSR_HEADER_SIZE + ctl_used > ctl_stack_size) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                         "the control stack needs 0x%" PRIx64
                         " bytes below the header, ctl_stack_size is 0x%x",
                         ctl_used, ctl_stack_size);
        goto out_free;
    }
    total = (uint64_t)ctl_stack_size + wave_sum;
    if (total > UINT32_MAX) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                         "the wave area (0x%" PRIx64 " bytes) does not fit the header's 32-bit "
                         "offsets",
                         wave_sum);
        goto out_free;
    }

    img = gc_calloc_array(1, (size_t)total);
    if (!img) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                         "CWSR encode: cannot allocate 0x%" PRIx64 " bytes", total);
        goto out_free;
    }
    make_header(template_header, ctl_stack_size, ctl_used, total, wave_sum, &h);
    gc_cwsr_header_encode(&h, img);
    put_control_stack(l, waves, ew, count, img, h.control_stack_offset);
    put_records(l, waves, ew, count, img, total);

    gc_free(ew);
    *ret_image = img;
    *ret_size = (size_t)total;
    if (ret_header)
        *ret_header = h;
    return GPUCORE_OK;

out_free:
    gc_free(ew);
    return st;
}
