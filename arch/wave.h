/* SPDX-License-Identifier: MIT */
/*
 * Per-wave facts that depend on the family: the trap handler's TTMP conventions, the
 * hardware-register slot table of the save area, stop-reason decoding, the wave PC (parked PCs),
 * dispatch association, scratch slots and address spaces (docs/cwsr-layout.md
 * §8, §9, §11-§15).
 *
 * Everything that differs between families is a row (struct gc_ttmp_layout, struct
 * gc_hwreg_layout) referenced from struct gc_arch; the functions below read rows and never
 * branch on a family (G-ARCH-1). They read registers only through the cwsr.h accessors.
 *
 * Internal; no I/O; reentrant. Functions that cannot fail return a value; the others return a
 * gpucore_status_t and write their ret_* outputs only on success (G-NAME-3).
 */
#ifndef GC_WAVE_H
#define GC_WAVE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "arch.h"
#include "cwsr.h"

/* ------------------------------------------------------------------------------------------ */
/* amd-dbgapi stop reasons                                                                     */
/* ------------------------------------------------------------------------------------------ */

/*
 * amd_dbgapi_wave_stop_reasons_t bit values (docs/cwsr-layout.md §13). These are ABI values of
 * AMD's debugger API and go to clients unchanged: never renumber.
 */
#define GC_STOP_NONE                 0u
#define GC_STOP_BREAKPOINT           (1u << 0)
#define GC_STOP_WATCHPOINT           (1u << 1)
#define GC_STOP_SINGLE_STEP          (1u << 2)
#define GC_STOP_FP_INPUT_DENORMAL    (1u << 3)
#define GC_STOP_FP_DIVIDE_BY_0       (1u << 4)
#define GC_STOP_FP_OVERFLOW          (1u << 5)
#define GC_STOP_FP_UNDERFLOW         (1u << 6)
#define GC_STOP_FP_INEXACT           (1u << 7)
#define GC_STOP_FP_INVALID_OPERATION (1u << 8)
#define GC_STOP_INT_DIVIDE_BY_0      (1u << 9)
#define GC_STOP_DEBUG_TRAP           (1u << 10)
#define GC_STOP_ASSERT_TRAP          (1u << 11)
#define GC_STOP_TRAP                 (1u << 12)
#define GC_STOP_MEMORY_VIOLATION     (1u << 13)
#define GC_STOP_ADDRESS_ERROR        (1u << 14)
#define GC_STOP_ILLEGAL_INSTRUCTION  (1u << 15)
#define GC_STOP_ECC_ERROR            (1u << 16)
#define GC_STOP_FATAL_HALT           (1u << 17)

/* ------------------------------------------------------------------------------------------ */
/* Trap-handler TTMP conventions (§11)                                                         */
/* ------------------------------------------------------------------------------------------ */

/* A bitfield of one TTMP register. The field is absent on a family when bits is GC_BF_NONE. */
struct gc_ttmp_field {
    uint8_t ttmp; /* 0..15 */
    struct gc_bitfield bits;
};

#define GC_TTMP(t_, hi_, lo_) { .ttmp = (t_), .bits = GC_BF(hi_, lo_) }
#define GC_TTMP_BIT(t_, b_)   { .ttmp = (t_), .bits = GC_BF_BIT(b_) }
#define GC_TTMP_NONE          { .ttmp = 0, .bits = GC_BF_NONE }

/* One saved trap id value and the stop reason it means. */
struct gc_trap_id_rule {
    uint32_t trap_id;
    uint32_t reason; /* GC_STOP_* */
};

/* The trap handler's use of the TTMPs on one family. A row. */
struct gc_ttmp_layout {
    const char *name; /* "gfx9", "gfx940", "gfx12" */
    /* debugger wave id (live processes only; ignored at core attach, §10) */
    struct gc_ttmp_field wave_id_lo, wave_id_hi; /* ttmp4, ttmp5 */
    struct gc_ttmp_field wave_id_valid;          /* absent: always valid (0 = undefined) */
    /* SPI-initialised dispatch association (meaningful only under the §12 gates) */
    struct gc_ttmp_field dispatch_index;         /* packet index in the ring */
    struct gc_ttmp_field group_id[3];            /* workgroup id x, y, z */
    struct gc_ttmp_field group_yz_valid;         /* absent: y and z always valid */
    struct gc_ttmp_field wave_in_group;
    /* written by the trap handler */
    struct gc_ttmp_field stopped;                /* ttmp6[30] */
    struct gc_ttmp_field saved_halt;             /* ttmp6[29] */
    struct gc_ttmp_field saved_trap_id;          /* ttmp6[28:25] */
    struct gc_ttmp_field spi_setup_disabled;     /* ttmp6[31], meaningful for r_version >= 10 */
    /* parked PC: PC[31:0] and PC[47:32]; both absent where the family never parks */
    struct gc_ttmp_field parked_pc_lo;
    struct gc_ttmp_field parked_pc_hi;
    /* trap id → stop reason; any other non-zero id gives trap_id_other */
    const struct gc_trap_id_rule *trap_ids;
    uint32_t ntrap_ids;
    uint32_t trap_id_other;
    /*
     * What AMD's library does to the TTMPs when it first meets a wave (wave_t::update, once per
     * wave; always at core attach), before it reads ttmp6 for the wave's state:
     *  1. the agent does not set up the SPI TTMPs: the bits in nospi_clear are cleared, and
     *     with nospi_resets_ttmp6 ttmp6 is reset by the skip-export rule below;
     *  2. th_mark (the trap handler initialised its TTMPs) is present on the family and clear:
     *     the bits in th_clear are cleared, and with th_resets_ttmp6 ttmp6 is reset likewise;
     *  3. with records_spi_setup, from r_version 10, spi_setup_disabled is rewritten to say
     *     whether the agent sets the SPI TTMPs up.
     * The skip-export rule: from r_version 10 the trap handler sets status.skip_export whenever
     * it halts a wave, so a wave with that bit keeps ttmp6's stopped, saved-halt and trap-id
     * fields; any other wave's ttmp6 becomes 0 (contents the SPI never initialised).
     */
    uint32_t nospi_clear[16];
    uint32_t nospi_resets_ttmp6;
    struct gc_ttmp_field th_mark;
    uint32_t th_clear[16];
    uint32_t th_resets_ttmp6;
    uint32_t records_spi_setup;
};

/* ------------------------------------------------------------------------------------------ */
/* Hardware-register slots (§8), stop-reason rules (§13), scratch slot rule (§14)              */
/* ------------------------------------------------------------------------------------------ */

#define GC_HWREG_SLOTS   16u
#define GC_HWREG_NO_SLOT 0xffu

/* One bit of one hardware-register slot; slot GC_HWREG_NO_SLOT means "none". */
struct gc_hwreg_bit {
    uint8_t slot;
    uint8_t bit;
};

#define GC_HWBIT(s_, b_)  { .slot = (s_), .bit = (b_) }
#define GC_HWBIT_NONE     { .slot = GC_HWREG_NO_SLOT, .bit = 0 }

/*
 * One stop-reason rule: if `when` is set, and `gate` is set (or absent), and `unless` is clear
 * (or absent), the wave's stop reasons include `reason`. `unless` expresses precedence: on every
 * family an XNACK error reports MEMORY_VIOLATION *instead of* the mem_viol ADDRESS_ERROR.
 */
struct gc_stop_rule {
    struct gc_hwreg_bit when;
    struct gc_hwreg_bit gate;
    struct gc_hwreg_bit unless;
    uint32_t reason; /* GC_STOP_* */
};

/*
 * How a wave's scratch slot follows from COMPUTE_TMPRING_SIZE (§14):
 * offset = ((waves / divisor) * se_id + scoreboard_id) * wavesize, where divisor is the number of
 * shader engines per XCC when waves_per_se is 0 (gfx9, gfx10) and 1 when the register already
 * counts waves per SE (gfx11+).
 */
struct gc_scratch_rule {
    struct gc_bitfield waves;    /* [11:0] */
    struct gc_bitfield wavesize; /* [24:12] gfx9/gfx10, [26:12] gfx11+ */
    uint32_t wavesize_unit;      /* bytes per wavesize unit: 1024 or 256 */
    uint32_t waves_per_se;       /* 1: `waves` is per SE; 0: total, divided by the SE count */
};

/*
 * Named bits of the saved hardware registers: what the hardware and the trap handler leave in
 * STATUS, TRAPSTS and MODE (gfx12: STATE_PRIV, STATUS, EXCP_FLAG_PRIV, EXCP_FLAG_USER and
 * TRAP_CTRL) when a wave stops. The simulated driver writes a stop cause through them; the
 * decoder reads some (the skip-export marker). A family lists only the bits it has.
 */
enum gc_hwev {
    GC_HWEV_HALT = 0,        /* status.halt (gfx12: state_priv.halt) */
    GC_HWEV_SKIP_EXPORT,     /* status.skip_export: the trap handler's "I halted it" marker */
    GC_HWEV_ECC_ERR,         /* status.ecc_err (not on gfx12) */
    GC_HWEV_FATAL_HALT,      /* status.fatal_halt */
    GC_HWEV_SINGLE_STEP_EN,  /* mode.debug_en; gfx11 mode.trap_after_inst_en; gfx12 trap_ctrl */
    GC_HWEV_TRAP_AFTER_INST, /* trapsts.trap_after_inst (gfx940, gfx11, gfx12 only) */
    GC_HWEV_HOST_TRAP,       /* trapsts.host_trap (gfx940, gfx11, gfx12 only) */
    GC_HWEV_XNACK_ERROR,
    GC_HWEV_MEM_VIOL,
    GC_HWEV_ILLEGAL_INST,
    GC_HWEV_ADDR_WATCH0,     /* + k for address watch k (0..3) */
    GC_HWEV_ADDR_WATCH3 = GC_HWEV_ADDR_WATCH0 + 3,
    GC_HWEV_ADDR_WATCH_EN,   /* the one enable of all four */
    GC_HWEV_EXCP0,           /* + k: ALU exception flag k: invalid, input denormal, float
                                divide by zero, overflow, underflow, inexact, int divide by 0 */
    GC_HWEV_EXCP6 = GC_HWEV_EXCP0 + 6,
    GC_HWEV_EXCP_EN0,        /* + k: its enable (mode.excp_en / trap_ctrl.alu_*) */
    GC_HWEV_EXCP_EN6 = GC_HWEV_EXCP_EN0 + 6,
    _GC_HWEV_MAX
};

struct gc_hwev_row {
    enum gc_hwev ev;
    struct gc_hwreg_bit bit;
};

/* The hardware-register block of one family. A row. */
struct gc_hwreg_layout {
    const char *name;                       /* "gfx9", "gfx940", "gfx10", "gfx11", "gfx12" */
    const char *slot_names[GC_HWREG_SLOTS]; /* NULL: slot unused */
    const struct gc_stop_rule *stop_rules;
    uint32_t nstop_rules;
    struct gc_hwreg_bit no_vgprs;           /* gfx11+: status.no_vgprs (VGPRs reported absent) */
    struct gc_scratch_rule scratch;
    const struct gc_hwev_row *events;       /* the family's named bits (enum gc_hwev) */
    uint32_t nevents;
};

/*
 * The bit of named hardware state @p ev on @p layout's family.
 * @return 1 and *ret_bit if the family has it; 0 if not (or an argument is NULL).
 */
int gc_hwev_bit(const struct gc_hwreg_layout *layout, enum gc_hwev ev,
                struct gc_hwreg_bit *ret_bit);

/*
 * Slot of a hardware register by its §8 name ("m0", "pc_lo", "trapsts", "excp_flag_priv", ...).
 * @return the slot (0..15), or -1 if @p layout has no such slot (or an argument is NULL).
 */
int gc_hwreg_slot(const struct gc_hwreg_layout *layout, const char *name);

/* The family rows, referenced by gc_arch_table. */
extern const struct gc_ttmp_layout gc_ttmp_gfx9, gc_ttmp_gfx940, gc_ttmp_gfx12;
extern const struct gc_hwreg_layout gc_hwreg_gfx9, gc_hwreg_gfx940, gc_hwreg_gfx10,
        gc_hwreg_gfx11, gc_hwreg_gfx12;

/* ------------------------------------------------------------------------------------------ */
/* Wave state                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/*
 * What a wave's interpretation depends on besides its own bytes: the runtime's r_debug version
 * (from the note) and whether the agent's SPI sets up the dispatch TTMPs (the note's ttmp_setup,
 * or the agent's DISPATCH_INFO_ALWAYS_VALID debug property; §12).
 */
struct gc_wave_env {
    uint32_t r_version;
    uint32_t spi_ttmps_setup; /* 0 or 1 */
};

/* Value of a TTMP field of the wave (0 if the field is absent on the family). */
uint32_t gc_wave_ttmp_field(const struct gc_wave *w, struct gc_ttmp_field f);

/* 1 if the trap handler stopped the wave (ttmp6[30]); 0 otherwise or for NULL arguments. */
int gc_wave_trap_stopped(const struct gc_arch *arch, const struct gc_wave *w);

/*
 * Stop reasons (GC_STOP_* mask) as amd-dbgapi 0.77 reports them for a wave decoded from a core:
 * GC_STOP_NONE for a wave the trap handler did not stop (it is forced to STOP at attach), else
 * the union of the family's stop rules and the saved trap id. ECC_ERROR and FATAL_HALT are never
 * produced from saved state. NULL arguments give GC_STOP_NONE.
 */
uint32_t gc_wave_stop_reasons(const struct gc_arch *arch, const struct gc_wave *w);

/*
 * What AMD's library holds for a wave of a core once it has taken it over (wave_t::update at
 * attach), which is what it answers from: the TTMPs after its initialisation (struct
 * gc_ttmp_layout's attach fields), whether the trap handler stopped the wave, the stop reasons,
 * the triggered address watches, and the PC.
 */
struct gc_wave_stop {
    uint32_t ttmp[16];    /* the TTMPs as AMD's library rewrote them in its cache */
    uint32_t stopped;     /* 1: ttmp6 still says the trap handler stopped the wave */
    uint32_t reasons;     /* GC_STOP_* mask; GC_STOP_NONE when not stopped */
    uint32_t watchpoints; /* bit k: address watch k triggered (only with GC_STOP_WATCHPOINT) */
    uint64_t pc;          /* gc_wave_pc() of the rewritten wave */
};

/*
 * Fill *ret for wave @p w of an agent described by @p env. This is the rule that makes a
 * trap-stopped wave of an agent without SPI TTMP setup report NONE when its status lacks the
 * skip-export marker (or r_version < 10): AMD's library clears the ttmp6 it cannot trust.
 * The dispatch association (gc_wave_dispatch_index() and friends) is made from the saved TTMPs,
 * before this rewrite, as AMD's library does.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL argument, or an arch row without TTMP/hwreg rows).
 */
gpucore_status_t gc_wave_stop_at_attach(const struct gc_arch *arch, const struct gc_wave *w,
                                        const struct gc_wave_env *env, struct gc_wave_stop *ret);

/*
 * 1 if the family parks stopped waves for this runtime (row parks_stopped_waves: 1 always,
 * 2 only when r_version > 8), else 0.
 */
int gc_arch_parks_stopped_waves(const struct gc_arch *arch, uint32_t r_version);

/*
 * The wave's PC as amd-dbgapi reports it: the hardware PC slots, except for a trap-stopped wave
 * on a parking family, whose slots hold the park address and whose real PC the trap handler
 * copied into the TTMPs (§11.1). NULL arguments give 0.
 */
uint64_t gc_wave_pc(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version);

/* The EXEC mask (32 bits zero-extended in wave32). NULL arguments give 0. */
uint64_t gc_wave_exec_mask(const struct gc_arch *arch, const struct gc_wave *w);

/*
 * 1 if the wave's SPI-initialised TTMPs (dispatch index, workgroup ids, wave number) can be
 * trusted (§12): the agent sets them up, and (from r_version 10) the record does not say
 * otherwise in ttmp6[31].
 */
int gc_wave_spi_ttmps_valid(const struct gc_arch *arch, const struct gc_wave *w,
                            const struct gc_wave_env *env);

/*
 * The dispatch packet index (ring slot) of the wave's dispatch.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_UNAVAILABLE  the wave is not associated with a dispatch (§12 gates); it
 *                                belongs to the queue's dummy dispatch.
 * @retval GPUCORE_E_INVAL        NULL argument.
 */
gpucore_status_t gc_wave_dispatch_index(const struct gc_arch *arch, const struct gc_wave *w,
                                        const struct gc_wave_env *env, uint32_t *ret_index);

/*
 * Largest number of 64-byte packets the family's dispatch-index field can address; AMD's
 * library refuses a queue whose ring holds more. 0 for NULL.
 */
uint64_t gc_arch_max_queue_packets(const struct gc_arch *arch);

/*
 * The monotonic packet id (amd-dbgapi OS_QUEUE_PACKET_ID) of ring slot @p index, with AMD's
 * wrap arithmetic (aql_queue_t::get_os_queue_packet_id): with n = ring_size / 64,
 * id = index + (read_id / n) * n, plus n if that is below read_id and the ring has wrapped
 * (read_id % n >= write_id % n). Never aborts: where AMD's library fails fatally this returns
 * an error.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL    ring_size is 0 or not a multiple of 64; NULL ret_id.
 * @retval GPUCORE_E_CORRUPT  index * 64 >= ring_size, or the id is outside [read_id, write_id).
 */
gpucore_status_t gc_packet_id(uint64_t index, uint64_t ring_size, uint64_t read_id,
                              uint64_t write_id, uint64_t *ret_id);

/*
 * Workgroup id (x, y, z) from the TTMPs. On gfx12, y and z are 0 unless ttmp8[30] says they are
 * valid (one-dimensional grids leave them unset).
 * @retval GPUCORE_OK, GPUCORE_E_UNAVAILABLE (TTMPs not valid, §12), GPUCORE_E_INVAL (NULL).
 */
gpucore_status_t gc_wave_workgroup_id(const struct gc_arch *arch, const struct gc_wave *w,
                                      const struct gc_wave_env *env, uint32_t ret_id[3]);

/*
 * The wave's number within its workgroup.
 * @retval GPUCORE_OK, GPUCORE_E_UNAVAILABLE (TTMPs not valid, §12), GPUCORE_E_INVAL (NULL).
 */
gpucore_status_t gc_wave_number_in_group(const struct gc_arch *arch, const struct gc_wave *w,
                                         const struct gc_wave_env *env, uint32_t *ret_number);

/*
 * The debugger wave id the trap handler recorded (ttmp4:5). Useful for live processes only; at
 * core attach AMD's library ignores it and numbers waves in control-stack order (§10).
 * @retval GPUCORE_OK, GPUCORE_E_UNAVAILABLE (the family's validity bit is clear, or the id is
 *         0 = undefined), GPUCORE_E_INVAL (NULL).
 */
gpucore_status_t gc_wave_debugger_id(const struct gc_arch *arch, const struct gc_wave *w,
                                     uint64_t *ret_id);

/* ------------------------------------------------------------------------------------------ */
/* Scratch (§14) and address spaces (§15)                                                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * Offset of the wave's scratch slot from its XCC's scratch base, and the slot size, from the
 * queue's COMPUTE_TMPRING_SIZE and the wave word's se_id and scratch_scoreboard_id.
 * @param se_count  shader engines per XCC (agent shader_engine_count / xcc_count).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_UNAVAILABLE  gfx9/gfx10 and `waves` is not a multiple of se_count: AMD's
 *                                library warns and disables private memory for the wave.
 * @retval GPUCORE_E_INVAL        NULL argument or se_count 0.
 */
gpucore_status_t gc_scratch_slot(const struct gc_arch *arch, uint32_t compute_tmpring_size,
                                 uint32_t se_id, uint32_t scoreboard_id, uint32_t se_count,
                                 uint64_t *ret_offset, uint64_t *ret_size);

/*
 * private_lane (swizzled) address @p addr of lane @p lane → byte offset in the wave's scratch
 * slot: (addr / 4) * lanes * 4 + lane * 4 + addr % 4. ret_contiguous is how many bytes from
 * there belong to the same lane (4 - addr % 4): a transfer continues at addr + ret_contiguous.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  lanes not 32 or 64, lane >= lanes, or a NULL output.
 * @retval GPUCORE_E_LIMIT  the offset is at or beyond slot_size (outside the slot).
 */
gpucore_status_t gc_private_lane_offset(uint64_t addr, uint32_t lane, uint32_t lanes,
                                        uint64_t slot_size, uint64_t *ret_offset,
                                        uint32_t *ret_contiguous);

/*
 * The inverse of gc_private_lane_offset(): the lane and private_lane address of byte @p offset
 * of a slot of a wave of @p lanes lanes.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (lanes not 32 or 64, a NULL output).
 */
gpucore_status_t gc_private_lane_of(uint64_t offset, uint32_t lanes, uint32_t *ret_lane,
                                    uint64_t *ret_addr);

/*
 * private_wave (unswizzled) address → byte offset in the slot (the identity), bounds-checked.
 * @retval GPUCORE_OK, GPUCORE_E_LIMIT (addr >= slot_size), GPUCORE_E_INVAL (NULL).
 */
gpucore_status_t gc_private_wave_offset(uint64_t addr, uint64_t slot_size,
                                        uint64_t *ret_offset);

/* The address spaces amd-dbgapi presents, identical on every supported target. */
enum gc_aspace {
    GC_ASPACE_GLOBAL = 0,
    GC_ASPACE_GENERIC = 1,
    GC_ASPACE_LOCAL = 2,
    GC_ASPACE_PRIVATE_LANE = 3,
    GC_ASPACE_PRIVATE_WAVE = 4,
    _GC_ASPACE_MAX
};

struct gc_address_space {
    enum gc_aspace id;
    const char *name;      /* "global", "generic", "local", "private_lane", "private_wave" */
    uint32_t dwarf;        /* DWARF address space number */
    uint32_t address_bits; /* what AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE returns */
    uint64_t null_address;
};

/* The address-space table (in gc_aspace order) and its length. */
const struct gc_address_space *gc_address_spaces(size_t *ret_count);
/* Lookups; NULL if unknown. */
const struct gc_address_space *gc_address_space_by_name(const char *name);
const struct gc_address_space *gc_address_space_by_dwarf(uint32_t dwarf);

/* DWARF address class → the address space it lives in (none → generic, global/constant →
   global, group → local, private → private_lane). */
struct gc_address_class {
    const char *name;
    uint32_t dwarf; /* DW_ADDR_* value */
    enum gc_aspace space;
};
const struct gc_address_class *gc_address_classes(size_t *ret_count);

/*
 * Lower a generic address with the fixed apertures of every supported target: bits 63:48 equal
 * to 1 → local, 2 → private_lane (the low 32 bits are the segment address); anything else is
 * global (unchanged). The note's aperture fields do not take part (§15).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL output).
 */
gpucore_status_t gc_generic_lower(uint64_t generic, enum gc_aspace *ret_space,
                                  uint64_t *ret_address);

#endif /* GC_WAVE_H */
