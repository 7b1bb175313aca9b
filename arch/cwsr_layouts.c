/* SPDX-License-Identifier: MIT */
/*
 * The control-stack and wave-record layout rows, one per (sub-)family, referenced by
 * gc_arch_table. Every bit position here is from docs/cwsr-layout.md §6 (relaunch
 * words) and §7 (records), which follow ROCdbgapi 0.77's control_stack_iterate and
 * cwsr_record_t; the size-formula facts are from §2 (KFD's kfd_queue_ctx_save_restore_size).
 *
 * The gfx9 rows differ only where the hardware does: the LDS field shrinks to 8 bits and the
 * VGPR field counts the unified (arch + Acc) file from gfx90a on; se_id moves in the wave word
 * on every MI generation.
 */
#include "cwsr.h"

/* Facts every gfx9 row shares; a row states only what differs. */
#define GFX9_LAYOUT_COMMON                                                                    \
    .state_words = 1, .ctl_entry_bytes = 8, .st_vgprs = GC_BF(5, 0), .st_sgprs = GC_BF(8, 6), \
    .st_wave32 = GC_BF_NONE, .st_shared_vgprs = GC_BF_NONE, .vgpr_granule_w32 = 0,            \
    .sgpr_fixed = 0, .sgpr_granule = 16, .lds_granule = 512, .shared_vgpr_granule = 0,        \
    .shared_vgpr_lanes = 0, .wv_scratch_id = GC_BF(8, 0), .wv_scratch_en = GC_BF_BIT(15),     \
    .wv_last_wave = GC_BF_BIT(16), .wv_first_wave = GC_BF_BIT(17), .record_gap = 64,          \
    .hwreg_slots = 16, .ttmps = 16, .simd_per_cu = 4, .waves_per_cu = 40,                     \
    .wave_slots_per_array = 512, .ctl_stack_cap = 0

/*
 * gfx10, gfx11 and gfx12 share the relaunch words except for se_id's width and the shared
 * VGPRs. SGPRs are not encoded: 128 slots are always saved.
 */
#define GFX10_LAYOUT_COMMON                                                                        \
    .state_words = 2, .ctl_entry_bytes = 12, .st_vgprs = GC_BF(5, 0), .st_sgprs = GC_BF_NONE,      \
    .st_lds = GC_BF(17, 10), .st_accum_offset = GC_BF_NONE, .st_wave32 = GC_BF_BIT(24),            \
    .vgpr_granule_w64 = 4, .vgpr_granule_w32 = 8, .acc_rule = GC_ACC_NONE, .accum_granule = 0,     \
    .sgpr_fixed = 128, .sgpr_granule = 0, .lds_granule = 512, .wv_scratch_id = GC_BF(9, 0),        \
    .wv_scratch_en = GC_BF_BIT(11), .wv_first_wave = GC_BF_BIT(12), .wv_last_wave = GC_BF_BIT(29), \
    .record_gap = 0, .hwreg_slots = 16, .ttmps = 16, .simd_per_cu = 2, .waves_per_cu = 32,         \
    .wave_slots_per_array = 0

/* gfx900, gfx906: no AccVGPRs; 9-bit LDS field in 128-dword units. */
const struct gc_cwsr_layout gc_cwsr_gfx9 = {
    .name = "gfx9",
    GFX9_LAYOUT_COMMON,
    .st_lds = GC_BF(17, 9),
    .st_accum_offset = GC_BF_NONE,
    .vgpr_granule_w64 = 4,
    .acc_rule = GC_ACC_NONE,
    .accum_granule = 0,
    .wv_se_id = GC_BF(12, 11),
};

/* gfx908: as many AccVGPRs as arch VGPRs, saved above them. */
const struct gc_cwsr_layout gc_cwsr_gfx908 = {
    .name = "gfx908",
    GFX9_LAYOUT_COMMON,
    .st_lds = GC_BF(17, 9),
    .st_accum_offset = GC_BF_NONE,
    .vgpr_granule_w64 = 4,
    .acc_rule = GC_ACC_SAME_AS_ARCH,
    .accum_granule = 0,
    .wv_se_id = GC_BF(13, 11),
};

/*
 * gfx90a: one unified VGPR file. The vgprs field counts the whole allocation in granules of 8;
 * accum_offset (ACCV_OFFSET) splits it into arch VGPRs below and AccVGPRs above.
 */
const struct gc_cwsr_layout gc_cwsr_gfx90a = {
    .name = "gfx90a",
    GFX9_LAYOUT_COMMON,
    .st_lds = GC_BF(16, 9),
    .st_accum_offset = GC_BF(29, 24),
    .vgpr_granule_w64 = 8,
    .acc_rule = GC_ACC_ACCUM_OFFSET,
    .accum_granule = 4,
    .wv_se_id = GC_BF(11, 9),
};

/* gfx940, gfx941, gfx942: gfx90a's record with a narrower se_id. */
const struct gc_cwsr_layout gc_cwsr_gfx940 = {
    .name = "gfx940",
    GFX9_LAYOUT_COMMON,
    .st_lds = GC_BF(16, 9),
    .st_accum_offset = GC_BF(29, 24),
    .vgpr_granule_w64 = 8,
    .acc_rule = GC_ACC_ACCUM_OFFSET,
    .accum_granule = 4,
    .wv_se_id = GC_BF(10, 9),
};

/*
 * gfx10: shared VGPRs (32 lanes, numbered after the private ones) exist only here; ROCdbgapi
 * sizes them from the state word whatever the wave size. KFD caps the control stack at 0x7000
 * on every gfx10 part (its test is gfx_target_version / 10000 == 10, so gfx10.3 too).
 */
const struct gc_cwsr_layout gc_cwsr_gfx10 = {
    .name = "gfx10",
    GFX10_LAYOUT_COMMON,
    .st_shared_vgprs = GC_BF(29, 26),
    .shared_vgpr_granule = 8,
    .shared_vgpr_lanes = 32,
    .wv_se_id = GC_BF(25, 24),
    .ctl_stack_cap = 0x7000,
};

/*
 * gfx11: no shared VGPRs (the gfx11 trap handler saves none), a 3-bit se_id. Bits [29:26] of
 * the state word are therefore not decoded here.
 */
const struct gc_cwsr_layout gc_cwsr_gfx11 = {
    .name = "gfx11",
    GFX10_LAYOUT_COMMON,
    .st_shared_vgprs = GC_BF_NONE,
    .shared_vgpr_granule = 0,
    .shared_vgpr_lanes = 0,
    .wv_se_id = GC_BF(26, 24),
    .ctl_stack_cap = 0,
};

/* gfx12: gfx11's relaunch words; its trap handler has its own hwreg slot table (wave.c). */
const struct gc_cwsr_layout gc_cwsr_gfx12 = {
    .name = "gfx12",
    GFX10_LAYOUT_COMMON,
    .st_shared_vgprs = GC_BF_NONE,
    .shared_vgpr_granule = 0,
    .shared_vgpr_lanes = 0,
    .wv_se_id = GC_BF(26, 24),
    .ctl_stack_cap = 0,
};
