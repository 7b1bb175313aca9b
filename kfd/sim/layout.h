/* SPDX-License-Identifier: MIT */
/*
 * The process image a scenario implies, built in the calling process's own memory: what ROCr
 * and the hardware would have put there (docs/core-format.md §8): `_amdgpu_r_debug` and its
 * link map with code-object URIs, the loaded code objects, AQL rings with dispatch packets,
 * amd_queue_t, kernargs, scratch, device buffers and CWSR areas whose wave records come from
 * arch's encoder.
 *
 * The result describes every address, so the inferior can hand it to the simulated driver and
 * tests can check what a debugger reads. No printing.
 */
#ifndef GC_SIM_LAYOUT_H
#define GC_SIM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "cwsr.h"
#include "gc_rocr.h" /* amd_queue_t, r_debug: the runtime's structures laid out here */
#include "kfd.h"     /* enum gc_kfd_mem_kind */
#include "kfd_uapi.h"
#include "scenario.h"

#define GC_LAYOUT_MAX_XCC 16u

struct gc_sim_layout_code_object {
    uint64_t load_base;   /* l_addr: where the PT_LOAD segments are */
    uint64_t load_size;
    uint64_t image;       /* the ELF file's bytes (memory:// URIs point here) */
    uint64_t image_size;
    uint64_t link_map;    /* its node */
    char uri[512];
    char path[512];       /* the object file */
};

struct gc_sim_layout_dispatch {
    uint64_t packet;        /* address of its AQL packet */
    uint64_t kernel_object; /* kernel descriptor */
    uint64_t entry;         /* kernel code */
    uint64_t code_size;     /* st_size of the kernel symbol */
    uint64_t kernarg;
    uint32_t kernarg_size;
};

struct gc_sim_layout_queue {
    uint32_t gpu_id, queue_id, num_xcc;
    uint64_t ring, ring_size;            /* bytes */
    uint64_t amd_queue;
    uint64_t read_id, write_id;
    uint64_t scratch, scratch_size;      /* all XCCs; per-XCC stride scratch_size / num_xcc */
    uint32_t compute_tmpring_size;
    uint64_t cwsr;                       /* ctx_save_restore_address */
    struct gc_cwsr_sizes sizes;
    /* XCC i's area at cwsr + i * cwsr_size. The device model keeps the waves where a context
       save puts them: gc_sim_layout_build writes the control stack and the trap handler's wave
       records into the area once, and nowhere else. The header at the area's base stays what
       libhsakmt writes when it creates the queue (wave_state fields zero: no control stack,
       no waves to read) until a save -- SUSPEND (the simulated driver) or
       gc_sim_layout_context_save() -- writes @c header, the complete header, over it: 40 bytes,
       the only bytes a save writes. */
    struct gc_cwsr_header header[GC_LAYOUT_MAX_XCC];
    uint32_t waves[GC_LAYOUT_MAX_XCC];
};

struct gc_sim_layout_buffer {
    uint64_t address, size;
};

struct gc_sim_layout_mapping {
    void *addr;
    size_t len;
};

#define GC_LAYOUT_LABEL_MAX 48u

/*
 * One allocation the simulated device owns (AQL ring, amd_queue_t, CWSR area, scratch, device
 * buffer, loaded code object, kernarg segment): its own mapping, MADV_DONTDUMP like the real
 * VRAM/GTT mappings (VM_DONTDUMP), so a host core of the inferior leaves it out. r_debug, the link
 * map, URI strings and memory:// ELF images are ordinary host memory and not listed.
 */
struct gc_sim_layout_alloc {
    uint64_t base, size; /* the whole mapping (page multiple) */
    uint32_t kind;       /* enum gc_kfd_mem_kind */
    uint32_t gpu_id;     /* owning agent, 0 = unknown */
    char label[GC_LAYOUT_LABEL_MAX]; /* "AQL ring q0", "buffer a", "kernarg d0", ... */
};

struct gc_sim_layout {
    const struct gc_scenario *s; /* borrowed */
    uint64_t r_debug;            /* _amdgpu_r_debug */
    uint64_t r_brk;
    struct gc_sim_layout_code_object *code_objects;
    struct gc_sim_layout_dispatch *dispatches;
    struct gc_sim_layout_queue *queues;
    struct gc_sim_layout_buffer *buffers;
    struct gc_sim_layout_mapping *maps;
    uint32_t nmaps, capmaps;
    struct gc_sim_layout_alloc *allocs; /* in creation order */
    uint32_t nallocs, capallocs;
    /* The device address space device allocations without a fixed address are carved from
       (layout.c, map_dev): the current reservation, its size and the bytes handed out. */
    uint8_t *va;
    uint64_t va_size, va_used;
};

/*
 * Build the image of @p s in this process. Code objects are read from @p objects_dir
 * ("<stem>.<target>.co", tests/scenarios.cmake builds them). Errors name the scenario file and
 * JSON path where the scenario is at fault ("x.json: waves[3].pc: kernel 'vadd' has no offset
 * 0x1000 (size 0x200)").
 * @retval GPUCORE_OK, GPUCORE_E_INVAL, GPUCORE_E_IO (object file), GPUCORE_E_CORRUPT (object
 *         file not an AMDGPU ELF / kernel missing), GPUCORE_E_EXIST (a fixed address is taken),
 *         GPUCORE_E_NOMEM. On success release with gc_sim_layout_free().
 */
gpucore_status_t gc_sim_layout_build(const struct gc_scenario *s, const char *objects_dir,
                                     struct gc_sim_layout **ret, gpucore_diag_t *reterr_diag);

/* Unmap everything and free. Accepts NULL. */
void gc_sim_layout_free(struct gc_sim_layout *l);

/*
 * The fault address of exception @p index of the scenario laid out in @p l, into *ret: the
 * number the scenario gives; its buffer's base plus or minus the distance it gives; or
 * @p host_stack (an address on the main thread's stack the caller keeps mapped, e.g. main's
 * frame) for { "host": "stack" }. 0 when the exception has no address.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (the resulting address is not in [1, 2^57): the diag names
 *         the scenario file, the exception and the buffer).
 */
gpucore_status_t gc_sim_layout_exception_address(const struct gc_sim_layout *l, uint32_t index,
                                                 uint64_t host_stack, uint64_t *ret,
                                                 gpucore_diag_t *reterr_diag);

/*
 * Do what a context save does to XCC @p xcc's area of queue @p q, as the simulated driver's
 * SUSPEND does: write its complete header (get_wave_state's wave_state fields); the control
 * stack and wave records below it are already in place. For tests that lay a scenario out in
 * their own process and read the areas without a driver.
 */
void gc_sim_layout_context_save(const struct gc_sim_layout_queue *q, uint32_t xcc);

/*
 * The context save of queue @p qi's waves on XCC @p x, for a front end that keeps the queue's
 * memory itself (gpucore-kfdemu): the scenario's waves of that queue and XCC, encoded through
 * arch's encoder exactly as gc_sim_layout_build saves them. @p dispatches (one per scenario
 * dispatch: entry and code_size, for waves whose pc is a kernel offset) and @p queues (one per
 * scenario queue: scratch and sizes) stand in for a built layout. *ret_image (gc_free) holds
 * *ret_len bytes from the XCC's area base, header first; *ret_header is what the save wrote
 * there from @p tmpl; *ret_waves the waves saved.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL, bad index, a wave the scenario cannot place),
 *         GPUCORE_E_ARCH (the agent's target has no CWSR layout), GPUCORE_E_LIMIT,
 *         GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_sim_layout_save_waves(const struct gc_scenario *s,
                                          const struct gc_sim_layout_dispatch *dispatches,
                                          const struct gc_sim_layout_queue *queues, uint32_t qi,
                                          uint32_t x, const struct gc_cwsr_header *tmpl,
                                          uint8_t **ret_image, size_t *ret_len,
                                          struct gc_cwsr_header *ret_header, uint32_t *ret_waves,
                                          gpucore_diag_t *reterr_diag);

/* ROCr's _loader_debug_state: r_brk points here (a debugger may set a breakpoint on it). */
void gc_sim_loader_debug_state(void);

/*
 * Ground truth shared by the layout and tests: the register values, LDS bytes and stop state of
 * a wave, as the scenario defines them.
 */
uint32_t gc_sim_layout_sgpr(const struct gc_scen_waves *w, uint32_t wave_uid, uint32_t reg);
uint32_t gc_sim_layout_vgpr(const struct gc_scen_waves *w, uint32_t wave_uid, uint32_t reg,
                            uint32_t lane);
uint32_t gc_sim_layout_accvgpr(const struct gc_scen_waves *w, uint32_t wave_uid, uint32_t reg,
                               uint32_t lane);
/* LDS dword @p k of the workgroup whose first wave is @p leader_uid. */
uint32_t gc_sim_layout_lds(const struct gc_scen_waves *w, uint32_t leader_uid, uint32_t k);
/* Memory pattern word at byte 4k of a buffer (or scratch). */
uint32_t gc_sim_layout_mem(enum gc_scen_pattern p, uint32_t seed, uint32_t kind, uint64_t k);

/*
 * The device snapshot entry the simulated driver reports for scenario agent @p a: its PCI ids,
 * counts and capability bits, the gfx_target_version of its target, and KFD's fixed apertures
 * (bits 63:48 = 1 LDS, 2 scratch; a 48-bit GPU VA). @retval GPUCORE_OK, GPUCORE_E_ARCH (the
 * agent's target is unknown to arch; the parser rejects such files, so only hand-made agents).
 */
gpucore_status_t gc_sim_layout_device_entry(const struct gc_scen_agent *a,
                                            struct kfd_dbg_device_info_entry *ret);

/*
 * Architected flat scratch (gfx940/942, gfx11, gfx12): the SPI starts a wave that has scratch
 * with FLAT_SCRATCH = its scratch slot's address, and the trap handler saves it -- in hardware
 * slots 9-10 on gfx10+, in the SGPR aliases end - 6 and end - 5 on gfx940 (docs/cwsr-layout.md §8,
 * §9, §14). The index of the low half among @p saved_sgprs saved SGPRs, or -1 when it is not
 * saved among the SGPRs (a hardware slot, too few SGPRs, or no architected flat scratch).
 * The layout writes it there instead of gc_sim_layout_sgpr()'s value for waves with scratch.
 */
int gc_sim_layout_flat_scratch_sgpr(const struct gc_arch *arch, uint32_t saved_sgprs);

/* COMPUTE_TMPRING_SIZE of a scenario queue on @p arch (its scratch waves and slot size). */
uint32_t gc_sim_layout_tmpring(const struct gc_arch *arch, const struct gc_scen_queue *q);

/*
 * The FLAT_SCRATCH value a wave of queue @p q starts with on an architected-flat-scratch
 * target: @p scratch_base (the queue's scratch backing memory) + XCC @p xcc's share + the
 * slot of (@p se_id, @p scratch_id). 0 if the target has no architected flat scratch or the
 * queue no scratch.
 */
uint64_t gc_sim_layout_flat_scratch(const struct gc_arch *arch, const struct gc_scen_agent *a,
                                    const struct gc_scen_queue *q, uint64_t scratch_base,
                                    uint32_t xcc, uint32_t se_id, uint32_t scratch_id);

/*
 * Saved SGPR @p reg of wave @p uid of @p w as a save area must hold it: gc_sim_layout_sgpr(),
 * except the FLAT_SCRATCH halves of a wave with scratch on gfx940
 * (gc_sim_layout_flat_scratch_sgpr), computed from the queue's @p scratch_base and the decoded
 * wave's XCC @p xcc, shader engine and scratch slot (@p saved, as decoded).
 */
uint32_t gc_sim_layout_saved_sgpr(const struct gc_arch *arch, const struct gc_scen_agent *a,
                                  const struct gc_scen_queue *q, uint64_t scratch_base,
                                  uint32_t xcc, const struct gc_wave *saved,
                                  const struct gc_scen_waves *w, uint32_t uid, uint32_t reg);

/* Saved register counts of a dispatch's waves (defaults applied for @p arch). */
void gc_sim_layout_reg_counts(const struct gc_arch *arch, const struct gc_scen_dispatch *d,
                              uint32_t *vgprs, uint32_t *accvgprs, uint32_t *sgprs);

#endif /* GC_SIM_LAYOUT_H */
