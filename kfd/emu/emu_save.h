/* SPDX-License-Identifier: MIT */
/*
 * A fault's waves, saved as the hardware's context save leaves them: the dispatch at the head
 * of a queue, its first workgroups resident, every wave stopped for the fault at one real
 * instruction of the kernel. The waves are described as the simulated driver's scenario
 * waves and encoded by its layout (gc_sim_layout_save_waves) through arch's encoder: one device
 * model for the simulated driver and the emulator.
 */
#ifndef GC_EMU_SAVE_H
#define GC_EMU_SAVE_H

#include <stddef.h>
#include <stdint.h>

#include "cwsr.h"
#include "emu_cp.h"
#include "scenario.h"

#define GC_EMU_SAVE_MAX_WAVES 1024u /* waves one fault saves per XCC (memory and time bound) */

struct gc_emu_save {
    uint64_t packet;         /* the dispatch packet's address */
    uint64_t entry, code_size; /* the kernel's code (code_size 0: unknown) */
    const uint8_t *desc;     /* its 64-byte kernel descriptor, or NULL (read from the GPU) */
    uint64_t pc;             /* where the waves stopped */
    enum gc_scen_stop cause;
    int address_vgpr;        /* >= 0: the first of the VGPR pair the faulting instruction
                                addresses memory with; lane L holds fault_va + 4 * L */
    uint64_t fault_va;
    uint32_t r_version;      /* the runtime's r_debug version (the trap handler's ABI) */
    const char *kernel;      /* its name, or NULL */
    int no_write;            /* only compute: leave the save area as it is */
    int keep_image;          /* hand the image to the caller (image, image_len; gc_free) */
    /* out: the complete header the save implies (the eviction leaves the area's own header
       as libhsakmt wrote it; a SUSPEND writes this one), and the image from the area's base */
    struct gc_cwsr_header saved_header;
    uint8_t *image;
    size_t image_len;
};

/*
 * Save the waves of the dispatch @p packet (64 bytes) at the head of @p q into the queue's
 * save area, XCC 0, as an eviction does: the control stack and the wave records after the
 * header, which keeps libhsakmt's fields (none of it with how->no_write). @p err says why on
 * failure.
 * Returns the waves saved, or -1.
 */
int gc_emu_save_dispatch(const struct gc_emu_vm *vm, const struct gc_emu_queue *q,
                         const uint8_t packet[64], struct gc_emu_save *how, char *err,
                         size_t errlen);

/*
 * A real instruction of the kernel whose code (@p len bytes of it at @p code) starts at
 * @p entry, for waves stopped by @p cause: for a memory violation the first global, flat or
 * buffer store (a load when !@p write), for a trap the first s_trap, for an illegal instruction
 * the first bytes that are no instruction of the target, else the entry. Its text
 * goes to @p text (cap bytes; "" when the disassembler is not available, and then the entry is
 * returned).
 */
uint64_t gc_emu_fault_pc(const struct gc_arch *arch, uint64_t entry, const uint8_t *code,
                         size_t len, enum gc_scen_stop cause, int write, char *text, size_t cap);

/* The first VGPR of the 64-bit address pair of a global/flat instruction's text without a
   scalar base ("global_store_dword v[4:5], v2, off" gives 4), or -1. */
int gc_emu_address_vgpr(const char *text);

#endif
