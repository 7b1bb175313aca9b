/* SPDX-License-Identifier: MIT */
/*
 * TTMP conventions, hardware-register slots, stop reasons, PCs, dispatch association, scratch
 * and address spaces: the family rows and the few functions that read them.
 *
 * Facts: docs/cwsr-layout.md §8 and §11-§15, cross-checked against AMD's debugger
 * library (ROCm/rocm-systems projects/rocdbgapi/src/architecture.cpp and queue.cpp, the
 * successor of ROCdbgapi 0.77). Where the two differ the docs (0.77's behaviour) win and the
 * difference is noted at the row.
 */
#include "wave.h"

#include <string.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"

/* ------------------------------------------------------------------------------------------ */
/* TTMP rows                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* The trap handler keeps only 4 bits of s_trap's 8-bit id, so 15 may stand for any id >= 15;
   every value without a meaning of its own is a generic TRAP. */
static const struct gc_trap_id_rule trap_ids[] = {
    { 1, GC_STOP_BREAKPOINT },
    { 2, GC_STOP_ASSERT_TRAP },
    { 3, GC_STOP_DEBUG_TRAP },
};

/* ttmp6 is the trap handler's status word on every family. */
#define TTMP6_COMMON                                                                               \
    .stopped = GC_TTMP_BIT(6, 30), .saved_halt = GC_TTMP_BIT(6, 29),                              \
    .saved_trap_id = GC_TTMP(6, 28, 25), .spi_setup_disabled = GC_TTMP_BIT(6, 31),                \
    .wave_id_lo = GC_TTMP(4, 31, 0), .wave_id_hi = GC_TTMP(5, 31, 0), .trap_ids = trap_ids,       \
    .ntrap_ids = sizeof(trap_ids) / sizeof(trap_ids[0]), .trap_id_other = GC_STOP_TRAP

/* gfx9 before gfx940, gfx10 and gfx11. */
const struct gc_ttmp_layout gc_ttmp_gfx9 = {
    .name = "gfx9",
    TTMP6_COMMON,
    .wave_id_valid = GC_TTMP_NONE,
    .dispatch_index = GC_TTMP(6, 24, 0),
    .group_id = { GC_TTMP(8, 31, 0), GC_TTMP(9, 31, 0), GC_TTMP(10, 31, 0) },
    .group_yz_valid = GC_TTMP_NONE,
    .wave_in_group = GC_TTMP(11, 5, 0),
    .parked_pc_lo = GC_TTMP(7, 31, 0),
    .parked_pc_hi = GC_TTMP(11, 22, 7),
    /* Without SPI setup: the workgroup ids and the wave number are stale, and ttmp6 (packet
       index, trap-handler fields) cannot be told from garbage but by the skip-export rule. SPI
       already initialises every TTMP the trap handler depends on: no marker. */
    .nospi_clear = { [8] = 0xffffffffu, [9] = 0xffffffffu, [10] = 0xffffffffu, [11] = 0x3fu },
    .nospi_resets_ttmp6 = 1,
    .th_mark = GC_TTMP_NONE,
    .records_spi_setup = 1,
};

/* gfx940/941/942: ttmp6[24:0] is no longer free, the packet index moves to ttmp11; the family
   never parks, so there is no parked-PC copy. */
const struct gc_ttmp_layout gc_ttmp_gfx940 = {
    .name = "gfx940",
    TTMP6_COMMON,
    .wave_id_valid = GC_TTMP_BIT(11, 31),
    .dispatch_index = GC_TTMP(11, 30, 6),
    .group_id = { GC_TTMP(8, 31, 0), GC_TTMP(9, 31, 0), GC_TTMP(10, 31, 0) },
    .group_yz_valid = GC_TTMP_NONE,
    .wave_in_group = GC_TTMP(11, 5, 0),
    .parked_pc_lo = GC_TTMP_NONE,
    .parked_pc_hi = GC_TTMP_NONE,
    /* ttmp11[31] is the trap handler's "TTMPs initialised" mark; without SPI setup ttmp8-11
       are cleared with it, so ttmp6 then goes through the skip-export rule too. */
    .nospi_clear = { [8] = 0xffffffffu, [9] = 0xffffffffu, [10] = 0xffffffffu,
                     [11] = 0xffffffffu },
    .th_mark = GC_TTMP_BIT(11, 31),
    .th_resets_ttmp6 = 1,
    .records_spi_setup = 1,
};

/* gfx12: SPI packs the workgroup ids into ttmp7/ttmp9 and the rest into ttmp8; the parked PC
   moves from ttmp7 (now workgroup y/z) to ttmp10. */
const struct gc_ttmp_layout gc_ttmp_gfx12 = {
    .name = "gfx12",
    TTMP6_COMMON,
    .wave_id_valid = GC_TTMP_BIT(8, 31),
    .dispatch_index = GC_TTMP(8, 24, 0),
    .group_id = { GC_TTMP(9, 31, 0), GC_TTMP(7, 15, 0), GC_TTMP(7, 31, 16) },
    .group_yz_valid = GC_TTMP_BIT(8, 30),
    .wave_in_group = GC_TTMP(8, 29, 25),
    .parked_pc_lo = GC_TTMP(10, 31, 0),
    .parked_pc_hi = GC_TTMP(11, 22, 7),
    /* ttmp8[31] is the debug mark; clearing ttmp7-9 without SPI setup clears it, and a wave
       without it loses ttmp4-6 outright (no skip-export rule on gfx12). SPI TTMPs are always
       initialised: nothing is recorded in ttmp6[31]. */
    .nospi_clear = { [7] = 0xffffffffu, [8] = 0xffffffffu, [9] = 0xffffffffu },
    .th_mark = GC_TTMP_BIT(8, 31),
    .th_clear = { [4] = 0xffffffffu, [5] = 0xffffffffu, [6] = 0xffffffffu },
    .records_spi_setup = 0,
};

/* ------------------------------------------------------------------------------------------ */
/* Hardware-register rows                                                                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * Rules every family before gfx12 shares, with TRAPSTS in slot `ts` and MODE in slot `md`:
 * FP exceptions count only when MODE enables them (a flag can stay set in TRAPSTS after the
 * enable bit is cleared); address watches share one enable bit.
 */
#define TRAPSTS_RULES(ts, md)                                                                      \
    { GC_HWBIT(ts, 0), GC_HWBIT(md, 12), GC_HWBIT_NONE, GC_STOP_FP_INVALID_OPERATION },           \
    { GC_HWBIT(ts, 1), GC_HWBIT(md, 13), GC_HWBIT_NONE, GC_STOP_FP_INPUT_DENORMAL },              \
    { GC_HWBIT(ts, 2), GC_HWBIT(md, 14), GC_HWBIT_NONE, GC_STOP_FP_DIVIDE_BY_0 },                 \
    { GC_HWBIT(ts, 3), GC_HWBIT(md, 15), GC_HWBIT_NONE, GC_STOP_FP_OVERFLOW },                    \
    { GC_HWBIT(ts, 4), GC_HWBIT(md, 16), GC_HWBIT_NONE, GC_STOP_FP_UNDERFLOW },                   \
    { GC_HWBIT(ts, 5), GC_HWBIT(md, 17), GC_HWBIT_NONE, GC_STOP_FP_INEXACT },                     \
    { GC_HWBIT(ts, 6), GC_HWBIT(md, 18), GC_HWBIT_NONE, GC_STOP_INT_DIVIDE_BY_0 },                \
    { GC_HWBIT(ts, 28), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_MEMORY_VIOLATION },                 \
    { GC_HWBIT(ts, 8), GC_HWBIT_NONE, GC_HWBIT(ts, 28), GC_STOP_ADDRESS_ERROR },                  \
    { GC_HWBIT(ts, 11), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_ILLEGAL_INSTRUCTION },              \
    { GC_HWBIT(ts, 7), GC_HWBIT(md, 19), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },                     \
    { GC_HWBIT(ts, 12), GC_HWBIT(md, 19), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },                    \
    { GC_HWBIT(ts, 13), GC_HWBIT(md, 19), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },                    \
    { GC_HWBIT(ts, 14), GC_HWBIT(md, 19), GC_HWBIT_NONE, GC_STOP_WATCHPOINT }

/* Slot numbers (§8), named once so the rules below read like the spec's tables. */
enum { GFX9_TRAPSTS = 6, GFX9_MODE = 9, GFX10_TRAPSTS = 6, GFX10_MODE = 8 };
enum { GFX12_STATE_PRIV = 5, GFX12_EXCP_PRIV = 6, GFX12_EXCP_USER = 11, GFX12_TRAP_CTRL = 12,
       GFX12_STATUS = 13 };

#define GFX9_SLOT_NAMES                                                                            \
    { "m0", "pc_lo", "pc_hi", "exec_lo", "exec_hi", "status", "trapsts", "xnack_mask_lo",         \
      "xnack_mask_hi", "mode" }

/* gfx10 and gfx11 (§8): XNACK_MASK is 32 bits; MODE moves to slot 8 to make room for the
   architected flat_scratch in slots 9-10. */
#define GFX10_SLOT_NAMES                                                                           \
    { "m0", "pc_lo", "pc_hi", "exec_lo", "exec_hi", "status", "trapsts", "xnack_mask", "mode",    \
      "flat_scratch_lo", "flat_scratch_hi" }

/* gfx9 before gfx940, and gfx10: COMPUTE_TMPRING_SIZE.WAVES counts all SEs; WAVESIZE in KiB. */
#define SCRATCH_GFX9                                                                               \
    { .waves = GC_BF(11, 0), .wavesize = GC_BF(24, 12), .wavesize_unit = 1024, .waves_per_se = 0 }
/*
 * gfx11 and gfx12: WAVES is per SE and WAVESIZE counts 256-byte units. AMD's current library
 * reads WAVESIZE as [29:12] on gfx12; docs/cwsr-layout.md §14 (and so this row) keeps gfx11's
 * [26:12] for 0.77 fidelity -- the two agree for any per-wave size below 8 MiB.
 */
#define SCRATCH_GFX11                                                                              \
    { .waves = GC_BF(11, 0), .wavesize = GC_BF(26, 12), .wavesize_unit = 256, .waves_per_se = 1 }

static const struct gc_stop_rule stop_rules_gfx9[] = { TRAPSTS_RULES(GFX9_TRAPSTS, GFX9_MODE) };

/* gfx940 adds trap-on-wave-start/end (TRAP) and trap-after-instruction (SINGLE_STEP); the
   host_trap bit (22) is deliberately not a stop reason, as in AMD's library. */
static const struct gc_stop_rule stop_rules_gfx940[] = {
    TRAPSTS_RULES(GFX9_TRAPSTS, GFX9_MODE),
    { GC_HWBIT(GFX9_TRAPSTS, 23), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { GC_HWBIT(GFX9_TRAPSTS, 24), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { GC_HWBIT(GFX9_TRAPSTS, 25), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_SINGLE_STEP },
};

static const struct gc_stop_rule stop_rules_gfx10[] = {
    TRAPSTS_RULES(GFX10_TRAPSTS, GFX10_MODE),
};

/* gfx11: the gfx940 events at 16 (host_trap, ignored), 17/18 (wave start/end), 20 (after
   instruction); bit 19 is perf_snapshot and no stop reason. */
static const struct gc_stop_rule stop_rules_gfx11[] = {
    TRAPSTS_RULES(GFX10_TRAPSTS, GFX10_MODE),
    { GC_HWBIT(GFX10_TRAPSTS, 17), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { GC_HWBIT(GFX10_TRAPSTS, 18), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { GC_HWBIT(GFX10_TRAPSTS, 20), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_SINGLE_STEP },
};

/* gfx12 splits TRAPSTS into EXCP_FLAG_USER (ALU exceptions) and EXCP_FLAG_PRIV (the rest), and
   moves the enables from MODE into TRAP_CTRL. */
#define U(b) GC_HWBIT(GFX12_EXCP_USER, b)
#define P(b) GC_HWBIT(GFX12_EXCP_PRIV, b)
#define C(b) GC_HWBIT(GFX12_TRAP_CTRL, b)
static const struct gc_stop_rule stop_rules_gfx12[] = {
    { U(0), C(0), GC_HWBIT_NONE, GC_STOP_FP_INVALID_OPERATION },
    { U(1), C(1), GC_HWBIT_NONE, GC_STOP_FP_INPUT_DENORMAL },
    { U(2), C(2), GC_HWBIT_NONE, GC_STOP_FP_DIVIDE_BY_0 },
    { U(3), C(3), GC_HWBIT_NONE, GC_STOP_FP_OVERFLOW },
    { U(4), C(4), GC_HWBIT_NONE, GC_STOP_FP_UNDERFLOW },
    { U(5), C(5), GC_HWBIT_NONE, GC_STOP_FP_INEXACT },
    { U(6), C(6), GC_HWBIT_NONE, GC_STOP_INT_DIVIDE_BY_0 },
    { P(12), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_MEMORY_VIOLATION },
    { P(4), GC_HWBIT_NONE, P(12), GC_STOP_ADDRESS_ERROR },
    { P(6), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_ILLEGAL_INSTRUCTION },
    { P(0), C(7), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },
    { P(1), C(7), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },
    { P(2), C(7), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },
    { P(3), C(7), GC_HWBIT_NONE, GC_STOP_WATCHPOINT },
    { P(8), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { P(9), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_TRAP },
    { P(11), GC_HWBIT_NONE, GC_HWBIT_NONE, GC_STOP_SINGLE_STEP },
};
#undef U
#undef P
#undef C

/*
 * Named bits (enum gc_hwev). STATUS is slot 5 before gfx12; TRAPSTS and MODE as above. Facts:
 * the trap-status and mode masks of AMD's library (architecture.cpp) and the ROCr trap handler,
 * which sets status.halt and, from ROCr's debug ABI 10, status.skip_export when it halts a wave.
 */
#define EV(e, s_, b_) { (e), GC_HWBIT(s_, b_) }
#define STATUS_EVENTS(st)                                                                          \
    EV(GC_HWEV_HALT, st, 13), EV(GC_HWEV_SKIP_EXPORT, st, 18), EV(GC_HWEV_ECC_ERR, st, 17),       \
    EV(GC_HWEV_FATAL_HALT, st, 23)
#define TRAPSTS_EVENTS(ts, md)                                                                     \
    EV(GC_HWEV_XNACK_ERROR, ts, 28), EV(GC_HWEV_MEM_VIOL, ts, 8),                                 \
    EV(GC_HWEV_ILLEGAL_INST, ts, 11), EV(GC_HWEV_ADDR_WATCH0, ts, 7),                             \
    EV(GC_HWEV_ADDR_WATCH0 + 1, ts, 12), EV(GC_HWEV_ADDR_WATCH0 + 2, ts, 13),                     \
    EV(GC_HWEV_ADDR_WATCH0 + 3, ts, 14), EV(GC_HWEV_ADDR_WATCH_EN, md, 19),                       \
    EV(GC_HWEV_EXCP0 + 0, ts, 0), EV(GC_HWEV_EXCP0 + 1, ts, 1), EV(GC_HWEV_EXCP0 + 2, ts, 2),     \
    EV(GC_HWEV_EXCP0 + 3, ts, 3), EV(GC_HWEV_EXCP0 + 4, ts, 4), EV(GC_HWEV_EXCP0 + 5, ts, 5),     \
    EV(GC_HWEV_EXCP0 + 6, ts, 6), EV(GC_HWEV_EXCP_EN0 + 0, md, 12),                               \
    EV(GC_HWEV_EXCP_EN0 + 1, md, 13), EV(GC_HWEV_EXCP_EN0 + 2, md, 14),                           \
    EV(GC_HWEV_EXCP_EN0 + 3, md, 15), EV(GC_HWEV_EXCP_EN0 + 4, md, 16),                           \
    EV(GC_HWEV_EXCP_EN0 + 5, md, 17), EV(GC_HWEV_EXCP_EN0 + 6, md, 18)

/* gfx9 and gfx10: single-stepping is mode.debug_en; TRAPSTS has no bit for it. */
static const struct gc_hwev_row events_gfx9[] = {
    STATUS_EVENTS(5), TRAPSTS_EVENTS(GFX9_TRAPSTS, GFX9_MODE),
    EV(GC_HWEV_SINGLE_STEP_EN, GFX9_MODE, 11),
};
static const struct gc_hwev_row events_gfx940[] = {
    STATUS_EVENTS(5), TRAPSTS_EVENTS(GFX9_TRAPSTS, GFX9_MODE),
    EV(GC_HWEV_SINGLE_STEP_EN, GFX9_MODE, 11), EV(GC_HWEV_HOST_TRAP, GFX9_TRAPSTS, 22),
    EV(GC_HWEV_TRAP_AFTER_INST, GFX9_TRAPSTS, 25),
};
static const struct gc_hwev_row events_gfx10[] = {
    STATUS_EVENTS(5), TRAPSTS_EVENTS(GFX10_TRAPSTS, GFX10_MODE),
    EV(GC_HWEV_SINGLE_STEP_EN, GFX10_MODE, 11),
};
/* gfx11: mode bit 11 becomes trap_after_inst_en. */
static const struct gc_hwev_row events_gfx11[] = {
    STATUS_EVENTS(5), TRAPSTS_EVENTS(GFX10_TRAPSTS, GFX10_MODE),
    EV(GC_HWEV_SINGLE_STEP_EN, GFX10_MODE, 11), EV(GC_HWEV_HOST_TRAP, GFX10_TRAPSTS, 16),
    EV(GC_HWEV_TRAP_AFTER_INST, GFX10_TRAPSTS, 20),
};
/* gfx12: halt moves to STATE_PRIV; STATUS keeps skip_export and fatal_halt but has no ecc_err. */
static const struct gc_hwev_row events_gfx12[] = {
    EV(GC_HWEV_HALT, GFX12_STATE_PRIV, 14), EV(GC_HWEV_SKIP_EXPORT, GFX12_STATUS, 18),
    EV(GC_HWEV_FATAL_HALT, GFX12_STATUS, 23),
    EV(GC_HWEV_SINGLE_STEP_EN, GFX12_TRAP_CTRL, 9),
    EV(GC_HWEV_TRAP_AFTER_INST, GFX12_EXCP_PRIV, 11), EV(GC_HWEV_HOST_TRAP, GFX12_EXCP_PRIV, 7),
    EV(GC_HWEV_XNACK_ERROR, GFX12_EXCP_PRIV, 12), EV(GC_HWEV_MEM_VIOL, GFX12_EXCP_PRIV, 4),
    EV(GC_HWEV_ILLEGAL_INST, GFX12_EXCP_PRIV, 6), EV(GC_HWEV_ADDR_WATCH0, GFX12_EXCP_PRIV, 0),
    EV(GC_HWEV_ADDR_WATCH0 + 1, GFX12_EXCP_PRIV, 1), EV(GC_HWEV_ADDR_WATCH0 + 2, GFX12_EXCP_PRIV, 2),
    EV(GC_HWEV_ADDR_WATCH0 + 3, GFX12_EXCP_PRIV, 3), EV(GC_HWEV_ADDR_WATCH_EN, GFX12_TRAP_CTRL, 7),
    EV(GC_HWEV_EXCP0 + 0, GFX12_EXCP_USER, 0), EV(GC_HWEV_EXCP0 + 1, GFX12_EXCP_USER, 1),
    EV(GC_HWEV_EXCP0 + 2, GFX12_EXCP_USER, 2), EV(GC_HWEV_EXCP0 + 3, GFX12_EXCP_USER, 3),
    EV(GC_HWEV_EXCP0 + 4, GFX12_EXCP_USER, 4), EV(GC_HWEV_EXCP0 + 5, GFX12_EXCP_USER, 5),
    EV(GC_HWEV_EXCP0 + 6, GFX12_EXCP_USER, 6), EV(GC_HWEV_EXCP_EN0 + 0, GFX12_TRAP_CTRL, 0),
    EV(GC_HWEV_EXCP_EN0 + 1, GFX12_TRAP_CTRL, 1), EV(GC_HWEV_EXCP_EN0 + 2, GFX12_TRAP_CTRL, 2),
    EV(GC_HWEV_EXCP_EN0 + 3, GFX12_TRAP_CTRL, 3), EV(GC_HWEV_EXCP_EN0 + 4, GFX12_TRAP_CTRL, 4),
    EV(GC_HWEV_EXCP_EN0 + 5, GFX12_TRAP_CTRL, 5), EV(GC_HWEV_EXCP_EN0 + 6, GFX12_TRAP_CTRL, 6),
};
#undef EV

#define RULES(a) .stop_rules = (a), .nstop_rules = sizeof(a) / sizeof((a)[0])
#define EVENTS(a) .events = (a), .nevents = sizeof(a) / sizeof((a)[0])

const struct gc_hwreg_layout gc_hwreg_gfx9 = {
    .name = "gfx9",
    .slot_names = GFX9_SLOT_NAMES,
    RULES(stop_rules_gfx9),
    EVENTS(events_gfx9),
    .no_vgprs = GC_HWBIT_NONE,
    .scratch = SCRATCH_GFX9,
};

/* gfx940/941/942: gfx9's slots; only the TRAPSTS event bits differ. */
const struct gc_hwreg_layout gc_hwreg_gfx940 = {
    .name = "gfx940",
    .slot_names = GFX9_SLOT_NAMES,
    RULES(stop_rules_gfx940),
    EVENTS(events_gfx940),
    .no_vgprs = GC_HWBIT_NONE,
    .scratch = SCRATCH_GFX9,
};

const struct gc_hwreg_layout gc_hwreg_gfx10 = {
    .name = "gfx10",
    .slot_names = GFX10_SLOT_NAMES,
    RULES(stop_rules_gfx10),
    EVENTS(events_gfx10),
    .no_vgprs = GC_HWBIT_NONE,
    .scratch = SCRATCH_GFX9,
};

/* gfx11: `s_sendmsg dealloc_vgprs` sets status.no_vgprs (bit 24); the VGPRs are then gone. */
const struct gc_hwreg_layout gc_hwreg_gfx11 = {
    .name = "gfx11",
    .slot_names = GFX10_SLOT_NAMES,
    RULES(stop_rules_gfx11),
    EVENTS(events_gfx11),
    .no_vgprs = GC_HWBIT(5, 24),
    .scratch = SCRATCH_GFX11,
};

/*
 * gfx12 (§8): STATUS splits into STATE_PRIV (slot 5, with halt and scc) and STATUS (slot 13).
 * Slots 7 (XNACK_MASK) and 14 (barrier state) are saved by the trap handler; AMD's library
 * reaches slot 7 through gfx10's xnack_mask mapping, which gfx12 inherits.
 */
const struct gc_hwreg_layout gc_hwreg_gfx12 = {
    .name = "gfx12",
    .slot_names = { "m0", "pc_lo", "pc_hi", "exec_lo", "exec_hi", "state_priv",
                    "excp_flag_priv", "xnack_mask", "mode", "flat_scratch_lo", "flat_scratch_hi",
                    "excp_flag_user", "trap_ctrl", "status", "barrier" },
    RULES(stop_rules_gfx12),
    EVENTS(events_gfx12),
    .no_vgprs = GC_HWBIT(GFX12_STATUS, 24),
    .scratch = SCRATCH_GFX11,
};

int gc_hwev_bit(const struct gc_hwreg_layout *layout, enum gc_hwev ev,
                struct gc_hwreg_bit *ret_bit)
{
    if (!layout || !ret_bit)
        return 0;
    for (uint32_t i = 0; i < layout->nevents; i++) {
        if (layout->events[i].ev == ev) {
            *ret_bit = layout->events[i].bit;
            return 1;
        }
    }
    return 0;
}

int gc_hwreg_slot(const struct gc_hwreg_layout *layout, const char *name)
{
    if (!layout || !name)
        return -1;
    for (int i = 0; i < (int)GC_HWREG_SLOTS; i++) {
        if (layout->slot_names[i] && strcmp(layout->slot_names[i], name) == 0)
            return i;
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Wave state                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static int ttmp_field_present(struct gc_ttmp_field f)
{
    return f.ttmp < 16 && gc_bf_present(f.bits);
}

uint32_t gc_wave_ttmp_field(const struct gc_wave *w, struct gc_ttmp_field f)
{
    if (!w || !ttmp_field_present(f))
        return 0;
    return gc_bf_get(gc_wave_ttmp(w, f.ttmp), f.bits);
}

static int hwbit_set(const struct gc_wave *w, struct gc_hwreg_bit b)
{
    return ((gc_wave_hwreg(w, b.slot) >> b.bit) & 1u) != 0;
}

/* Slot value by name; 0 if the family has no such slot (the invariant test makes sure every
   name the code asks for exists where it is needed). */
static uint32_t hwreg_by_name(const struct gc_arch *arch, const struct gc_wave *w,
                              const char *name)
{
    int slot = gc_hwreg_slot(arch->hwreg, name);

    return slot < 0 ? 0 : gc_wave_hwreg(w, (uint32_t)slot);
}

int gc_wave_trap_stopped(const struct gc_arch *arch, const struct gc_wave *w)
{
    if (!arch || !w || !arch->ttmp)
        return 0;
    return gc_wave_ttmp_field(w, arch->ttmp->stopped) != 0;
}

uint32_t gc_wave_stop_reasons(const struct gc_arch *arch, const struct gc_wave *w)
{
    uint32_t reasons = GC_STOP_NONE;
    uint32_t trap_id;

    /* A wave that was only context-saved has no exception state worth reporting; AMD's library
       forces it to STOP with reason NONE at attach. (Its other source of SINGLE_STEP on
       gfx9/gfx10 -- a PC that moved since the debugger last resumed a single-stepping wave --
       needs a history a core does not have.) */
    if (!gc_wave_trap_stopped(arch, w) || !arch->hwreg)
        return GC_STOP_NONE;

    for (uint32_t i = 0; i < arch->hwreg->nstop_rules; i++) {
        const struct gc_stop_rule *r = &arch->hwreg->stop_rules[i];

        if (!hwbit_set(w, r->when))
            continue;
        if (r->gate.slot != GC_HWREG_NO_SLOT && !hwbit_set(w, r->gate))
            continue;
        if (r->unless.slot != GC_HWREG_NO_SLOT && hwbit_set(w, r->unless))
            continue;
        reasons |= r->reason;
    }

    /* Trap id 0 is indistinguishable from "no s_trap", so only non-zero ids count. */
    trap_id = gc_wave_ttmp_field(w, arch->ttmp->saved_trap_id);
    if (trap_id != 0) {
        uint32_t reason = arch->ttmp->trap_id_other;

        for (uint32_t i = 0; i < arch->ttmp->ntrap_ids; i++) {
            if (arch->ttmp->trap_ids[i].trap_id == trap_id)
                reason = arch->ttmp->trap_ids[i].reason;
        }
        reasons |= reason;
    }
    return reasons;
}

/* ttmp6 after the skip-export rule (struct gc_ttmp_layout). */
static uint32_t skip_export_rule(const struct gc_arch *arch, const struct gc_wave *w,
                                 const struct gc_wave_env *env, uint32_t ttmp6)
{
    const struct gc_ttmp_layout *t = arch->ttmp;
    struct gc_hwreg_bit marker;

    if (env->r_version >= 10 && gc_hwev_bit(arch->hwreg, GC_HWEV_SKIP_EXPORT, &marker) &&
        hwbit_set(w, marker))
        return ttmp6 & (gc_bf_mask(t->stopped.bits) | gc_bf_mask(t->saved_halt.bits) |
                        gc_bf_mask(t->saved_trap_id.bits));
    return 0;
}

static uint32_t field_get(const uint32_t *ttmp, struct gc_ttmp_field f)
{
    return ttmp_field_present(f) ? gc_bf_get(ttmp[f.ttmp], f.bits) : 0;
}

gpucore_status_t gc_wave_stop_at_attach(const struct gc_arch *arch, const struct gc_wave *w,
                                        const struct gc_wave_env *env, struct gc_wave_stop *ret)
{
    const struct gc_ttmp_layout *t;
    struct gc_wave_stop out;
    struct gc_wave view;
    uint8_t bytes[64];

    if (!arch || !w || !env || !ret || !arch->ttmp || !arch->hwreg)
        return GPUCORE_E_INVAL;
    t = arch->ttmp;
    memset(&out, 0, sizeof(out));
    for (uint32_t i = 0; i < 16; i++)
        out.ttmp[i] = gc_wave_ttmp(w, i);
    /* The saved status word is ttmp6 on every family (struct gc_ttmp_layout). */
    if (!env->spi_ttmps_setup) {
        for (uint32_t i = 0; i < 16; i++)
            out.ttmp[i] &= ~t->nospi_clear[i];
        if (t->nospi_resets_ttmp6)
            out.ttmp[6] = skip_export_rule(arch, w, env, out.ttmp[6]);
    }
    if (ttmp_field_present(t->th_mark) && !field_get(out.ttmp, t->th_mark)) {
        for (uint32_t i = 0; i < 16; i++)
            out.ttmp[i] &= ~t->th_clear[i];
        if (t->th_resets_ttmp6)
            out.ttmp[6] = skip_export_rule(arch, w, env, out.ttmp[6]);
        out.ttmp[t->th_mark.ttmp] |= gc_bf_mask(t->th_mark.bits);
    }
    if (t->records_spi_setup && env->r_version >= 10 && ttmp_field_present(t->spi_setup_disabled))
        out.ttmp[t->spi_setup_disabled.ttmp] =
                gc_bf_put(out.ttmp[t->spi_setup_disabled.ttmp], t->spi_setup_disabled.bits,
                          env->spi_ttmps_setup ? 0 : 1);

    /* Everything else is read from the rewritten TTMPs, through the same functions. */
    for (uint32_t i = 0; i < 16; i++)
        gc_le32_put(bytes + 4 * i, out.ttmp[i]);
    view = *w;
    view.ttmp = bytes;
    out.stopped = (uint32_t)gc_wave_trap_stopped(arch, &view);
    out.reasons = gc_wave_stop_reasons(arch, &view);
    out.pc = gc_wave_pc(arch, &view, env->r_version);
    if (out.reasons & GC_STOP_WATCHPOINT) {
        struct gc_hwreg_bit en, hit;

        /* AMD's library lists a watch only under its enable, as its stop rule counts it. */
        for (uint32_t k = 0; k < 4; k++) {
            if (gc_hwev_bit(arch->hwreg, GC_HWEV_ADDR_WATCH_EN, &en) && hwbit_set(w, en) &&
                gc_hwev_bit(arch->hwreg, (enum gc_hwev)(GC_HWEV_ADDR_WATCH0 + k), &hit) &&
                hwbit_set(w, hit))
                out.watchpoints |= 1u << k;
        }
    }
    *ret = out;
    return GPUCORE_OK;
}

int gc_arch_parks_stopped_waves(const struct gc_arch *arch, uint32_t r_version)
{
    if (!arch)
        return 0;
    /* gfx11/gfx12 park only from ROCr ABI 9 on, to work around waves that cannot halt at
       `s_sendmsg dealloc_vgprs`; older runtimes' trap handlers never saved a parked PC. */
    return arch->parks_stopped_waves == 1 || (arch->parks_stopped_waves == 2 && r_version > 8);
}

uint64_t gc_wave_pc(const struct gc_arch *arch, const struct gc_wave *w, uint32_t r_version)
{
    const struct gc_ttmp_layout *t;

    if (!arch || !w || !arch->ttmp || !arch->hwreg)
        return 0;
    t = arch->ttmp;
    /* The CWSR PC slot of a parked wave holds the park instruction's address; the trap
       handler copied the real PC into the TTMPs before parking. On a core nothing re-parks,
       AMD's library answers PC reads from that copy. */
    if (gc_wave_trap_stopped(arch, w) && gc_arch_parks_stopped_waves(arch, r_version) &&
        ttmp_field_present(t->parked_pc_lo)) {
        return (uint64_t)gc_wave_ttmp_field(w, t->parked_pc_lo) |
               (uint64_t)gc_wave_ttmp_field(w, t->parked_pc_hi) << 32;
    }
    return (uint64_t)hwreg_by_name(arch, w, "pc_lo") |
           (uint64_t)hwreg_by_name(arch, w, "pc_hi") << 32;
}

uint64_t gc_wave_exec_mask(const struct gc_arch *arch, const struct gc_wave *w)
{
    uint64_t exec;

    if (!arch || !w || !arch->hwreg)
        return 0;
    exec = hwreg_by_name(arch, w, "exec_lo");
    /* In wave32 exec_hi is not part of the wave's state (its slot is saved but meaningless). */
    if (w->lanes > 32)
        exec |= (uint64_t)hwreg_by_name(arch, w, "exec_hi") << 32;
    return exec;
}

int gc_wave_spi_ttmps_valid(const struct gc_arch *arch, const struct gc_wave *w,
                            const struct gc_wave_env *env)
{
    if (!arch || !w || !env || !arch->ttmp || !env->spi_ttmps_setup)
        return 0;
    /* Before ROCr ABI 10 there is no per-wave record that SPI did not set the TTMPs up (a wave
       launched before the debugger enabled the setup); they are assumed valid. */
    if (env->r_version < 10)
        return 1;
    return gc_wave_ttmp_field(w, arch->ttmp->spi_setup_disabled) == 0;
}

gpucore_status_t gc_wave_dispatch_index(const struct gc_arch *arch, const struct gc_wave *w,
                                        const struct gc_wave_env *env, uint32_t *ret_index)
{
    if (!arch || !w || !env || !ret_index || !arch->ttmp)
        return GPUCORE_E_INVAL;
    if (!gc_wave_spi_ttmps_valid(arch, w, env))
        return GPUCORE_E_UNAVAILABLE;
    *ret_index = gc_wave_ttmp_field(w, arch->ttmp->dispatch_index);
    return GPUCORE_OK;
}

uint64_t gc_arch_max_queue_packets(const struct gc_arch *arch)
{
    struct gc_bitfield f;

    if (!arch || !arch->ttmp || !gc_bf_present(arch->ttmp->dispatch_index.bits))
        return 0;
    f = arch->ttmp->dispatch_index.bits;
    return (uint64_t)1 << (f.hi - f.lo + 1);
}

gpucore_status_t gc_packet_id(uint64_t index, uint64_t ring_size, uint64_t read_id,
                              uint64_t write_id, uint64_t *ret_id)
{
    const uint64_t packet = 64; /* sizeof(hsa_kernel_dispatch_packet_t) */
    uint64_t n, id;

    if (!ret_id || ring_size == 0 || ring_size % packet != 0)
        return GPUCORE_E_INVAL;
    n = ring_size / packet;
    /* index * 64 >= ring_size, written without the multiplication that could wrap. */
    if (index >= n)
        return GPUCORE_E_CORRUPT;
    id = index + (read_id / n) * n;
    /* The slot lies after the wrap point of the read pointer: it belongs to the next lap.
       (The spec writes the wrap test as read % n > write % n; AMD's library uses >=, which
       also covers a completely full ring, where both are equal and no id would otherwise be
       inside the window.) */
    if (id < read_id && read_id % n >= write_id % n) {
        if (id > UINT64_MAX - n)
            return GPUCORE_E_CORRUPT;
        id += n;
    }
    if (id < read_id || id >= write_id)
        return GPUCORE_E_CORRUPT;
    *ret_id = id;
    return GPUCORE_OK;
}

gpucore_status_t gc_wave_workgroup_id(const struct gc_arch *arch, const struct gc_wave *w,
                                      const struct gc_wave_env *env, uint32_t ret_id[3])
{
    const struct gc_ttmp_layout *t;
    uint32_t id[3];

    if (!arch || !w || !env || !ret_id || !arch->ttmp)
        return GPUCORE_E_INVAL;
    if (!gc_wave_spi_ttmps_valid(arch, w, env))
        return GPUCORE_E_UNAVAILABLE;
    t = arch->ttmp;
    for (int i = 0; i < 3; i++)
        id[i] = gc_wave_ttmp_field(w, t->group_id[i]);
    /* gfx12 SPI writes y and z only for grids that have them; otherwise ttmp7 is stale. */
    if (ttmp_field_present(t->group_yz_valid) && !gc_wave_ttmp_field(w, t->group_yz_valid))
        id[1] = id[2] = 0;
    memcpy(ret_id, id, sizeof(id));
    return GPUCORE_OK;
}

gpucore_status_t gc_wave_number_in_group(const struct gc_arch *arch, const struct gc_wave *w,
                                         const struct gc_wave_env *env, uint32_t *ret_number)
{
    if (!arch || !w || !env || !ret_number || !arch->ttmp)
        return GPUCORE_E_INVAL;
    if (!gc_wave_spi_ttmps_valid(arch, w, env))
        return GPUCORE_E_UNAVAILABLE;
    *ret_number = gc_wave_ttmp_field(w, arch->ttmp->wave_in_group);
    return GPUCORE_OK;
}

gpucore_status_t gc_wave_debugger_id(const struct gc_arch *arch, const struct gc_wave *w,
                                     uint64_t *ret_id)
{
    const struct gc_ttmp_layout *t;
    uint64_t id;

    if (!arch || !w || !ret_id || !arch->ttmp)
        return GPUCORE_E_INVAL;
    t = arch->ttmp;
    /* gfx940 and gfx12 mark TTMPs the trap handler initialised; before that ttmp4:5 hold
       whatever SPI left there. */
    if (ttmp_field_present(t->wave_id_valid) && !gc_wave_ttmp_field(w, t->wave_id_valid))
        return GPUCORE_E_UNAVAILABLE;
    id = (uint64_t)gc_wave_ttmp_field(w, t->wave_id_lo) |
         (uint64_t)gc_wave_ttmp_field(w, t->wave_id_hi) << 32;
    if (id == 0) /* amd-dbgapi's "undefined" wave id */
        return GPUCORE_E_UNAVAILABLE;
    *ret_id = id;
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Scratch                                                                                     */
/* ------------------------------------------------------------------------------------------ */

gpucore_status_t gc_scratch_slot(const struct gc_arch *arch, uint32_t compute_tmpring_size,
                                 uint32_t se_id, uint32_t scoreboard_id, uint32_t se_count,
                                 uint64_t *ret_offset, uint64_t *ret_size)
{
    const struct gc_scratch_rule *r;
    uint64_t waves, wavesize, per_se;

    if (!arch || !arch->hwreg || !ret_offset || !ret_size || se_count == 0)
        return GPUCORE_E_INVAL;
    r = &arch->hwreg->scratch;
    waves = gc_bf_get(compute_tmpring_size, r->waves);
    wavesize = (uint64_t)gc_bf_get(compute_tmpring_size, r->wavesize) * r->wavesize_unit;
    if (r->waves_per_se) {
        per_se = waves;
    } else {
        /* If the total does not split evenly over the SEs the hardware is unlikely to have set
           up scratch_offset/flat_scratch as assumed; AMD's library then disables private
           memory for the wave rather than read the wrong slot. */
        if (waves % se_count != 0)
            return GPUCORE_E_UNAVAILABLE;
        per_se = waves / se_count;
    }
    /* Operands are at most 12, 10 and 17 bits wide (times 1 KiB): no overflow in 64 bits. */
    *ret_offset = (per_se * se_id + scoreboard_id) * wavesize;
    *ret_size = wavesize;
    return GPUCORE_OK;
}

gpucore_status_t gc_private_lane_offset(uint64_t addr, uint32_t lane, uint32_t lanes,
                                        uint64_t slot_size, uint64_t *ret_offset,
                                        uint32_t *ret_contiguous)
{
    uint64_t off;

    if (!ret_offset || !ret_contiguous || (lanes != 32 && lanes != 64) || lane >= lanes)
        return GPUCORE_E_INVAL;
    /* Dword-interleaved: consecutive dwords of one lane are `lanes * 4` bytes apart. */
    if (addr / 4 > (UINT64_MAX - 4 * 64) / (4 * (uint64_t)lanes))
        return GPUCORE_E_LIMIT;
    off = (addr / 4) * lanes * 4 + (uint64_t)lane * 4 + addr % 4;
    if (off >= slot_size)
        return GPUCORE_E_LIMIT;
    *ret_offset = off;
    *ret_contiguous = (uint32_t)(4 - addr % 4);
    return GPUCORE_OK;
}

gpucore_status_t gc_private_lane_of(uint64_t offset, uint32_t lanes, uint32_t *ret_lane,
                                    uint64_t *ret_addr)
{
    uint64_t dword = offset / 4;

    if (!ret_lane || !ret_addr || (lanes != 32 && lanes != 64))
        return GPUCORE_E_INVAL;
    *ret_lane = (uint32_t)(dword % lanes);
    *ret_addr = (dword / lanes) * 4 + offset % 4;
    return GPUCORE_OK;
}

gpucore_status_t gc_private_wave_offset(uint64_t addr, uint64_t slot_size, uint64_t *ret_offset)
{
    if (!ret_offset)
        return GPUCORE_E_INVAL;
    if (addr >= slot_size)
        return GPUCORE_E_LIMIT;
    *ret_offset = addr;
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Address spaces                                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * DWARF numbers from LLVM's AMDGPUUsage "Address Space Identifier" table. There is no region
 * (GDS) space: AMD's library 0.77 does not present one. The sizes are in bits, which is what
 * AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE returns despite its documentation saying bytes.
 */
static const struct gc_address_space address_spaces[] = {
    { GC_ASPACE_GLOBAL, "global", 0, 64, 0 },
    { GC_ASPACE_GENERIC, "generic", 1, 64, 0 },
    { GC_ASPACE_LOCAL, "local", 3, 32, 0xffffffffu },
    { GC_ASPACE_PRIVATE_LANE, "private_lane", 5, 32, 0xffffffffu },
    { GC_ASPACE_PRIVATE_WAVE, "private_wave", 6, 32, 0xffffffffu },
};

/* DW_ADDR_* values from the same document; "region" (0x8000) has no space to map to. */
static const struct gc_address_class address_classes[] = {
    { "none", 0, GC_ASPACE_GENERIC },
    { "global", 1, GC_ASPACE_GLOBAL },
    { "constant", 2, GC_ASPACE_GLOBAL },
    { "group", 3, GC_ASPACE_LOCAL },
    { "private", 4, GC_ASPACE_PRIVATE_LANE },
};

/* The fixed apertures (bits 63:48 of a generic address) of every supported target. */
static const struct {
    uint16_t hi16;
    enum gc_aspace space;
} apertures[] = {
    { 0x0001, GC_ASPACE_LOCAL },
    { 0x0002, GC_ASPACE_PRIVATE_LANE },
};

const struct gc_address_space *gc_address_spaces(size_t *ret_count)
{
    if (ret_count)
        *ret_count = sizeof(address_spaces) / sizeof(address_spaces[0]);
    return address_spaces;
}

const struct gc_address_space *gc_address_space_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof(address_spaces) / sizeof(address_spaces[0]); i++) {
        if (strcmp(address_spaces[i].name, name) == 0)
            return &address_spaces[i];
    }
    return NULL;
}

const struct gc_address_space *gc_address_space_by_dwarf(uint32_t dwarf)
{
    for (size_t i = 0; i < sizeof(address_spaces) / sizeof(address_spaces[0]); i++) {
        if (address_spaces[i].dwarf == dwarf)
            return &address_spaces[i];
    }
    return NULL;
}

const struct gc_address_class *gc_address_classes(size_t *ret_count)
{
    if (ret_count)
        *ret_count = sizeof(address_classes) / sizeof(address_classes[0]);
    return address_classes;
}

gpucore_status_t gc_generic_lower(uint64_t generic, enum gc_aspace *ret_space,
                                  uint64_t *ret_address)
{
    uint16_t hi16 = (uint16_t)(generic >> 48);

    if (!ret_space || !ret_address)
        return GPUCORE_E_INVAL;
    for (size_t i = 0; i < sizeof(apertures) / sizeof(apertures[0]); i++) {
        if (apertures[i].hi16 == hi16) {
            *ret_space = apertures[i].space;
            *ret_address = generic & 0xffffffffu;
            return GPUCORE_OK;
        }
    }
    *ret_space = GC_ASPACE_GLOBAL;
    *ret_address = generic;
    return GPUCORE_OK;
}
