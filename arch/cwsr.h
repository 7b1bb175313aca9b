/* SPDX-License-Identifier: MIT */
/*
 * The context-save (CWSR) area: size formulas, the per-XCC header, the control stack and the
 * wave records, decoded and encoded bit for bit as the hardware, the trap handler and KFD lay
 * them out (docs/cwsr-layout.md). The decoder enforces every consistency rule AMD's
 * reader enforces; the encoder is what the simulated driver uses to build save areas.
 *
 * Internal; no I/O. Offsets are relative to the XCC area base unless stated otherwise.
 */
#ifndef GC_CWSR_H
#define GC_CWSR_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "arch.h"

/* How AccVGPR counts derive from the relaunch state word. */
enum gc_acc_rule {
    GC_ACC_NONE = 0,         /* no AccVGPRs */
    GC_ACC_SAME_AS_ARCH = 1, /* gfx908: as many AccVGPRs as arch VGPRs */
    GC_ACC_ACCUM_OFFSET = 2, /* gfx90a/940/942: total from vgprs, arch from accum_offset */
};

/*
 * One family's (or sub-family's) control-stack and record layout. A table row: the codec reads
 * every family difference from here and never branches on a family (G-ARCH-1). A bitfield with
 * lo > hi (GC_BF_NONE) is absent on that family.
 */
struct gc_cwsr_layout {
    const char *name;         /* "gfx9", "gfx908", "gfx90a", "gfx940", "gfx10", "gfx11", "gfx12" */
    uint32_t state_words;     /* 1 on gfx9, 2 on gfx10+ (COMPUTE_RELAUNCH + RELAUNCH2) */
    uint32_t ctl_entry_bytes; /* control-stack bytes per wave in the size formula: 8 or 12 */
    /* state word fields */
    struct gc_bitfield st_vgprs, st_sgprs, st_lds, st_accum_offset, st_wave32, st_shared_vgprs;
    uint32_t vgpr_granule_w64; /* VGPRs = (n + 1) * granule, wave64 (gfx90a/940: the total) */
    uint32_t vgpr_granule_w32; /* ... wave32 (0 if the family has no wave32) */
    enum gc_acc_rule acc_rule;
    uint32_t accum_granule;       /* arch VGPRs = (accum_offset + 1) * granule */
    uint32_t sgpr_fixed;          /* 0: SGPRs = (n + 1) * sgpr_granule - ttmps from st_sgprs;
                                     else this fixed count (128) */
    uint32_t sgpr_granule;        /* 16 on gfx9 (the allocation granule, TTMPs included) */
    uint32_t lds_granule;         /* LDS bytes = n * granule (512) */
    uint32_t shared_vgpr_granule; /* shared VGPRs = n * granule (8); 0 if none */
    uint32_t shared_vgpr_lanes;   /* 32 */
    /* wave word fields */
    struct gc_bitfield wv_scratch_id, wv_se_id, wv_scratch_en, wv_first_wave, wv_last_wave;
    /* record */
    uint32_t record_gap;  /* unused bytes above every record: 64 on gfx9, 0 on gfx10+ */
    uint32_t hwreg_slots; /* 16 */
    uint32_t ttmps;       /* 16 */
    /* KFD's size formula (docs/cwsr-layout.md §2; the VGPR file size per CU is per target and
       lives in a table keyed by gfx_target_version in cwsr.c) */
    uint32_t simd_per_cu;          /* node property simd_per_cu: 4 on gfx9, 2 on gfx10+ */
    uint32_t waves_per_cu;         /* wave slots per CU: 40 on gfx9, 32 on gfx10+ */
    uint32_t wave_slots_per_array; /* gfx9: wave_num <= array_count / simd_arrays_per_engine *
                                      this (512); 0 = no such bound */
    uint32_t ctl_stack_cap;        /* ctl_stack_size upper bound (0x7000 on gfx10); 0 = none */
};

/* kfd_context_save_area_header (40 bytes at each XCC base). */
#define GC_CWSR_HEADER_SIZE 40u
struct gc_cwsr_header {
    uint32_t control_stack_offset;
    uint32_t control_stack_size;
    uint32_t wave_state_offset;
    uint32_t wave_state_size;
    uint32_t debug_offset;
    uint32_t debug_size;
    uint64_t err_payload_addr;
    uint32_t err_event_id;
    uint32_t reserved1;
};

/* Decode the header from at least 40 bytes. E_TRUNCATED if len < 40; E_INVAL on NULL. */
gpucore_status_t gc_cwsr_header_decode(const void *buf, size_t len, struct gc_cwsr_header *ret);
/* Encode the header into 40 bytes at buf. */
void gc_cwsr_header_encode(const struct gc_cwsr_header *h, void *buf);

/*
 * The used parts of one XCC area, area-relative: the header [0, GC_CWSR_HEADER_SIZE), the used
 * control stack [ctl_offset, ctl_offset + ctl_size) and the used wave area
 * [wave_offset, wave_offset + wave_size). The control stack ends where the wave area begins,
 * so the two are the one range [ctl_offset, wave_offset + wave_size); either may be empty.
 */
struct gc_cwsr_used {
    uint64_t ctl_offset, ctl_size;
    uint64_t wave_offset, wave_size;
};

/*
 * Decide from a header what of an area of @p area_size bytes a core must keep: the one rule
 * that capture (the planner, reading a live target) and ingest (a stream) share, so that both
 * keep the same bytes of a save area. The header is hostile; it is accepted when the control
 * stack begins after the header, neither part runs past the area, wave_state_size <=
 * wave_state_offset, the control stack ends exactly where the wave area begins and both sizes
 * are multiples of 4 (docs/cwsr-layout.md section 3). Anything else means: keep the whole area.
 *
 * @param reterr_why on E_CORRUPT (may be NULL): a static string saying which rule failed.
 * @retval GPUCORE_OK       *ret set.
 * @retval GPUCORE_E_CORRUPT the header does not describe used parts inside the area; *ret
 *                          untouched.
 * @retval GPUCORE_E_INVAL  NULL @p h or @p ret.
 */
gpucore_status_t gc_cwsr_used_parts(const struct gc_cwsr_header *h, uint64_t area_size,
                                    struct gc_cwsr_used *ret, const char **reterr_why);

/* Sizes from node properties (docs/cwsr-layout.md §2), for one queue. */
struct gc_cwsr_sizes {
    uint32_t cu_num;         /* per XCC */
    uint32_t wave_num;       /* wave slots per XCC */
    uint32_t ctl_stack_size; /* page aligned */
    uint32_t wg_data_size;
    uint32_t cwsr_size; /* ctl_stack_size + wg_data_size = ctx_save_restore_area_size */
    uint32_t debug_memory_size;
    uint64_t total_size; /* ALIGN((cwsr_size + debug_memory_size) * num_xcc, page) */
};

/*
 * Compute the sizes KFD requires for a queue of this target (kfd_queue_ctx_save_restore_size):
 * KFD rejects a queue whose ctl_stack_size or ctx_save_restore_area_size differ from these.
 * simd_per_cu, the wave-slot rules and the gfx10 0x7000 control-stack cap come from the
 * layout row; VGPR_SIZE_PER_CU from a per-gfx_target_version table in cwsr.c. Sizes are
 * aligned to 4 KiB pages. array_count and simd_arrays_per_engine are used (and must be
 * non-zero) only where the layout bounds wave slots by them (gfx9).
 *
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL, zero simd_count or num_xcc, simd_count not a
 *         multiple of simd_per_cu * num_xcc, zero array counts on gfx9, a size above 4 GiB).
 *         *ret is untouched on failure.
 */
gpucore_status_t gc_cwsr_compute_sizes(const struct gc_arch *arch, uint32_t simd_count,
                                       uint32_t array_count, uint32_t simd_arrays_per_engine,
                                       uint32_t num_xcc, struct gc_cwsr_sizes *ret);

/*
 * A decoded wave. Register pointers point into the caller's wave-area buffer (borrowed: valid
 * as long as that buffer); read values with the accessors below, never by casting.
 */
struct gc_wave {
    uint32_t index;        /* position among the waves of this XCC area, control-stack order */
    uint32_t group;        /* workgroup number in this area (0-based) */
    uint32_t group_leader; /* index of the group's first wave (the one holding the LDS) */
    uint32_t state[2];     /* raw relaunch state word(s) in force */
    uint32_t wave_word;    /* raw relaunch wave word */
    uint32_t lanes;        /* 32 or 64 */
    uint32_t first_wave, last_wave, scratch_en;
    uint32_t se_id, scratch_id;
    uint32_t vgprs, accvgprs, shared_vgprs, sgprs; /* counts of saved registers */
    uint32_t lds_size;          /* LDS bytes of the workgroup (present in the leader's record) */
    uint64_t record_offset;     /* area-relative offset of the record's lowest byte */
    uint64_t record_size;       /* without the gfx9 gap */
    const uint8_t *vgpr;        /* vgprs * lanes * 4 bytes, register-major, lane-minor */
    const uint8_t *shared_vgpr; /* shared_vgprs * 32 lanes * 4 */
    const uint8_t *accvgpr;     /* accvgprs * 64 lanes * 4 */
    const uint8_t *sgpr;        /* sgprs * 4 */
    const uint8_t *hwreg;       /* 16 slots * 4 */
    const uint8_t *ttmp;        /* 16 * 4 */
    const uint8_t *lds;         /* lds_size bytes, first wave of a group only; else NULL */
};

struct gc_cwsr_decoded {
    struct gc_cwsr_header header;
    uint32_t wave_count;
    uint32_t group_count;
    struct gc_wave *waves; /* wave_count entries, owned */
};

/*
 * Decode one XCC area from its three used parts: the header, the used control stack
 * [control_stack_offset, +control_stack_size) and the used wave area
 * [wave_state_offset - wave_state_size, wave_state_offset). Buffers are borrowed (only the
 * first control_stack_size / wave_state_size bytes are read; longer buffers are fine); the
 * waves point into @p wave_area. Inputs are treated as hostile.
 *
 * Checks, each failure naming the area-relative byte offset in the diag:
 *  - header: sizes multiples of 4; wave_state_size <= wave_state_offset; the control stack ends
 *    exactly where the wave area begins; buffers as long as the header says (E_TRUNCATED);
 *  - control stack, from word 2 (the two PM4 dwords are skipped unread): bit 30 = event
 *    (skipped, even if bit 31 is also set), bit 31 = state (gfx10+: with the next word, which
 *    must exist), anything else a wave, which needs a state word before it;
 *  - records: laid downward from the wave-area end in control-stack order (gfx9: 64 unused
 *    bytes above each), each fitting, and together covering the wave area exactly; on gfx90a/
 *    940 accum_offset may not place more arch VGPRs than the state word allocates;
 *  - workgroups, as AMD's reader forms them: first_wave starts a group (also while another is
 *    still open, which AMD accepts), other waves join the open group, last_wave closes it; a
 *    wave with no group open is corrupt; a group still open at the end is accepted;
 *  - more than 1M waves: E_LIMIT, before anything is allocated for them.
 * An empty control stack (size 0) means no waves and the wave area is not examined, as in
 * AMD's reader. Stricter than AMD's reader: a wave before any state word is corrupt (AMD
 * decodes it with an all-zero state).
 *
 * The LDS image is in the group leader's record only (gc_wave::lds, NULL elsewhere and when
 * empty); every wave reports its group's lds_size. Shared VGPRs are sized from the state word
 * whatever the wave size, as ROCdbgapi does (gfx10 only).
 *
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL arch/header/ret, or a NULL buffer with a non-zero
 *         length), GPUCORE_E_TRUNCATED, GPUCORE_E_CORRUPT, GPUCORE_E_LIMIT, GPUCORE_E_NOMEM.
 *         On failure *ret is untouched; on success free it with gc_cwsr_decoded_done().
 */
gpucore_status_t gc_cwsr_decode(const struct gc_arch *arch, const struct gc_cwsr_header *header,
                                const void *ctl, size_t ctl_len, const void *wave_area,
                                size_t wave_len, struct gc_cwsr_decoded *ret,
                                gpucore_diag_t *reterr_diag);

/*
 * gc_cwsr_decode() without the wave area: the same checks of the header and the control stack,
 * the same waves (counts, state words, workgroups, record_offset and record_size), but every
 * register pointer NULL, since the layout of the records follows from the control stack alone.
 * For a reader that keeps the records where they are and reads one when it is asked for (the
 * process image), binding it with gc_cwsr_wave_bind(). The header's wave_state_size is taken as
 * the wave area's length. Statuses as gc_cwsr_decode().
 */
gpucore_status_t gc_cwsr_decode_layout(const struct gc_arch *arch,
                                       const struct gc_cwsr_header *header, const void *ctl,
                                       size_t ctl_len, struct gc_cwsr_decoded *ret,
                                       gpucore_diag_t *reterr_diag);

/*
 * Point the register pointers of @p w (a wave of gc_cwsr_decode_layout() or gc_cwsr_decode()
 * of the same family) at @p record, a copy of its record (@p len bytes: at least
 * w->record_size), exactly where gc_cwsr_decode() would have placed them in the wave area.
 * @retval GPUCORE_OK; GPUCORE_E_INVAL (NULL, a record shorter than w->record_size, a family
 *         without a layout); GPUCORE_E_CORRUPT when w's state word does not give its own counts
 *         and record size (not a wave the decoder produced). *w is untouched on failure.
 */
gpucore_status_t gc_cwsr_wave_bind(const struct gc_arch *arch, struct gc_wave *w,
                                   const void *record, size_t len);

/*
 * The bytes of a record every question about a wave's state reads (arch/wave.h: stop reasons,
 * PC, EXEC, dispatch and workgroup ids): its 16 hardware-register slots followed by its 16
 * TTMPs, GC_CWSR_STATUS_BYTES in all, at *ret_offset from the record's lowest byte.
 * @retval GPUCORE_OK; GPUCORE_E_INVAL (NULL); GPUCORE_E_CORRUPT as gc_cwsr_wave_bind();
 *         GPUCORE_E_NOTSUP for a layout whose blocks are not 16 + 16 words.
 */
#define GC_CWSR_STATUS_BYTES 128u
gpucore_status_t gc_cwsr_wave_status_offset(const struct gc_arch *arch, const struct gc_wave *w,
                                            uint64_t *ret_offset);

/* Free the waves of a decode result (not the buffers). Accepts NULL. */
void gc_cwsr_decoded_done(struct gc_cwsr_decoded *d);

/* Register accessors (little-endian reads; index out of range returns 0 and must not happen). */
uint32_t gc_wave_sgpr(const struct gc_wave *w, uint32_t i);
uint32_t gc_wave_vgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane);
uint32_t gc_wave_accvgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane);
uint32_t gc_wave_shared_vgpr(const struct gc_wave *w, uint32_t reg, uint32_t lane);
uint32_t gc_wave_hwreg(const struct gc_wave *w, uint32_t slot);
uint32_t gc_wave_ttmp(const struct gc_wave *w, uint32_t i);

/*
 * Input for encoding one wave. Arrays are host values; counts must be valid for the target
 * (gc_cwsr_encode() says which), and equal for every wave of a workgroup, since one state word
 * describes the whole group.
 */
struct gc_wave_spec {
    uint32_t wave32;       /* 0 or 1; 1 only on gfx10+ */
    uint32_t vgprs;        /* architectural VGPRs: (n + 1) * 4, or * 8 in wave32; <= max_vgprs */
    uint32_t accvgprs;     /* gfx908: == vgprs; gfx90a/940: vgprs + accvgprs = (n + 1) * 8 */
    uint32_t shared_vgprs; /* gfx10 wave64 only: n * 8, n <= 15 */
    uint32_t sgprs;        /* gfx9: saved SGPRs, (n + 1) * 16 - 16 with n <= 7; gfx10+: 0 or
                              128 (128 are always saved) */
    uint32_t lds_size;     /* workgroup LDS bytes: a multiple of 512, <= the target's lds_bytes */
    uint32_t first_wave, last_wave; /* workgroup boundaries */
    uint32_t se_id, scratch_id, scratch_en;
    const uint32_t *vgpr;        /* vgprs * lanes, register-major; NULL = zeros */
    const uint32_t *accvgpr;     /* accvgprs * 64 */
    const uint32_t *shared_vgpr; /* shared_vgprs * 32 */
    const uint32_t *sgpr;        /* sgprs values (gfx10+: 128); NULL = zeros */
    uint32_t hwreg[16];
    uint32_t ttmp[16];
    const uint8_t *lds; /* lds_size bytes, used for first_wave only; NULL = zeros */
};

/*
 * Encode waves into one XCC area image, exactly as the hardware and KFD lay it out: header
 * (with wave_state fields as KFD's get_wave_state writes them and the given debug and error
 * fields), the two PM4 header dwords, one state word (two on gfx10+) before each workgroup, one
 * wave word per wave, the control stack ending at @p ctl_stack_size, records growing downward
 * from the wave area end with the family's gap.
 *
 * Header: control_stack_offset = ctl_stack_size - used control-stack bytes, control_stack_size
 * = those bytes, wave_state_offset = ctl_stack_size + the records (gaps included),
 * wave_state_size = the records. The two PM4 dwords and gfx10+'s COMPUTE_RELAUNCH2 word are
 * written as zero (no reader looks at them; their real content is not documented).
 *
 * Validation (E_INVAL, the diag naming the wave index): every count representable by the
 * state/wave-word fields and a multiple of its granule (see gc_wave_spec); wave32 only where
 * the target has it; LDS within the target's maximum; workgroups well formed (the first wave
 * is a first_wave, a group ends with last_wave before the next starts, the last group is
 * closed) with one allocation per group; at most 1M waves; the control stack fitting between
 * the 40-byte header and ctl_stack_size; the area below 4 GiB.
 *
 * @param ctl_stack_size  the area's control-stack region (from gc_cwsr_compute_sizes()); a
 *                        multiple of 4.
 * @param template_header debug_offset, debug_size, err_payload_addr, err_event_id and
 *                        reserved1 to write; NULL writes zeros.
 * @param ret_image       on success a buffer of ret_size = wave_state_offset bytes (the area up
 *                        to the end of the used wave area; the caller places it at the XCC
 *                        base), unused bytes zero; free with gc_free().
 * @param ret_header      on success the header written (may be NULL).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL, GPUCORE_E_NOMEM. Outputs are untouched on failure.
 */
gpucore_status_t gc_cwsr_encode(const struct gc_arch *arch, const struct gc_wave_spec *waves,
                                uint32_t count, uint32_t ctl_stack_size,
                                const struct gc_cwsr_header *template_header, uint8_t **ret_image,
                                size_t *ret_size, struct gc_cwsr_header *ret_header,
                                gpucore_diag_t *reterr_diag);

/* The family layout rows (defined in cwsr_layouts.c), referenced by gc_arch_table. */
extern const struct gc_cwsr_layout gc_cwsr_gfx9, gc_cwsr_gfx908, gc_cwsr_gfx90a, gc_cwsr_gfx940,
        gc_cwsr_gfx10, gc_cwsr_gfx11, gc_cwsr_gfx12;

#endif /* GC_CWSR_H */
