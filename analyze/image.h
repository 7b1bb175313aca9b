/* SPDX-License-Identifier: MIT */
/*
 * The GPU process image of a core, rebuilt by the rules AMD's reader applies
 * (docs/dbgapi-on-cores.md, docs/core-format.md §7-§8, docs/cwsr-layout.md): agents from the
 * AMDGPU note's device entries, queues from its queue entries, amd_queue_t located from the read
 * pointer, each XCC's CWSR area decoded with arch/, dispatches from the ring and the waves' TTMP
 * packet index, workgroups with their LDS, waves with registers, stop reasons and PCs, code
 * objects from the r_debug link map (bytes from memory:// ranges in the core, else the GPUCORE
 * embedded copy; a file:// path is only named, never opened, unless the caller allows a
 * directory to look it up in: gc_image_options), and the memory spaces: global,
 * generic (lowered by aperture), local (the group's LDS) and private (scratch, swizzled per lane
 * or not).
 *
 * Every byte comes from the core and is validated before use. Anything missing from the core
 * (a truncated tier, memory never captured) is reported as GPUCORE_E_UNAVAILABLE with a
 * sentence saying what is missing, never as a crash or a guess. Structural problems that AMD's
 * reader would turn into a failed attach are kept as per-object problems (a queue whose CWSR
 * area is not in the core has no waves and says why), so a partial core still explains what it
 * can.
 *
 * The image reads process memory through a gc_image_memory: a core file's segments
 * (gc_image_open) or a client's callback (gc_image_open_note, the amd-dbgapi library, where
 * the client owns the core and hands over the note and memory).
 *
 * Internal to analyze (the CLI's `gpucore analyze` and the amd-dbgapi library use it). Objects
 * are owned by the image; pointers stay valid until gc_image_close(). Not thread-safe for
 * concurrent use of one image. No printing.
 */
#ifndef GC_ANALYZE_IMAGE_H
#define GC_ANALYZE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>
#include <gpucore/status.h>

#include "arch.h"
#include "cwsr.h"

struct gc_image;

#define GC_IMAGE_NAME_MAX 128u

struct gc_image_agent {
    uint32_t index;
    const gpucore_kfd_device_entry_t *entry; /* from the note (owned by the image) */
    const struct gc_arch *arch;              /* NULL: target unknown (no waves decoded) */
    char name[64];            /* the target name ("gfx90a"); "Device vvvv:dddd" when the
                                 target is unknown (no PCI-id database is consulted) */
    int supports_debugging;   /* TRAP_DEBUG_SUPPORT and FIRMWARE_SUPPORTED, arch known */
};

struct gc_image_queue {
    uint32_t index;
    uint32_t agent;           /* index */
    const gpucore_kfd_queue_entry_t *entry;
    int is_aql;               /* queue_type is an HSA AQL queue: decoded; else listed only */
    uint64_t amd_queue;       /* read_pointer_address - 128 */
    uint64_t read_id, write_id;       /* dispatch ids from amd_queue_t (write_id from the
                                         note's write pointer); 0 if amd_queue_t is missing */
    uint64_t scratch_base, scratch_stride; /* scratch_backing_memory_location (XCC 0); XCC i's
                                         scratch is at scratch_base + i * scratch_stride.
                                         The stride is 0 (unknown) when r_version is 0 or
                                         >= 11 (the field was removed) */
    uint32_t compute_tmpring_size;
    uint32_t num_xcc;
    uint32_t first_wave, nwaves;      /* in gc_image_wave order: XCC by XCC, each in
                                         control-stack order (AMD's attach order) */
    uint32_t first_dispatch, ndispatches; /* the dispatches the image keeps of the queue's
                                         kernel-dispatch packets with ids in [read_id,
                                         write_id), oldest first: every one it read, unless
                                         the memory budget or GC_IMAGE_MAX_DISPATCHES stopped
                                         it (then those before that packet, and those a wave
                                         runs; a problem says so), or only those a wave runs
                                         (GC_IMAGE_WAVE_DISPATCHES) */
    uint64_t dispatch_packets;        /* the kernel-dispatch packets among the active ones the
                                         ring walk read, kept or not */
    char problem[256];        /* "" or why the queue is incomplete ("CWSR area of XCC 1 at
                                 0x... not captured") */
    /* Waves the save areas list against those saved: running_waves counts the wave entries of
       the control stacks that are in the core; running_known is 1 when every XCC's control
       stack was read (else running_waves is a lower bound). lost_reason is the capture's
       GPUCORE_REASON_* (manifest) for save-area bytes it left out or could not read, with
       lost_status GPUCORE_RANGE_SKIPPED or _UNREADABLE; 0 when none are missing, or the core
       does not say why (lost_status 0 too). */
    uint32_t running_waves;
    int running_known;
    int save_area_lost;       /* some save-area bytes of the queue are not in the core */
    uint32_t lost_reason, lost_status;
};

struct gc_image_dispatch {
    uint32_t index;
    uint32_t queue;
    uint64_t packet_id;
    uint64_t packet_address;
    uint16_t header, setup;
    uint16_t workgroup_size[3];
    uint32_t grid_size[3];
    uint32_t private_segment_size, group_segment_size;
    uint64_t kernel_object;   /* descriptor address */
    uint64_t kernarg_address;
    uint64_t completion_signal; /* 0: none */
    uint64_t kernel_entry;    /* 0 if the descriptor is not in the core */
    uint32_t code_object;     /* index, UINT32_MAX if unknown */
    const char *kernel_name;  /* symbol of the descriptor ("NAME.kd" gives NAME) or of the
                                 entry, "" if unknown; never NULL; owned by the image */
};

struct gc_image_wave {
    uint32_t index;           /* image-wide */
    uint32_t queue, xcc;
    uint32_t dispatch;        /* index, UINT32_MAX if it cannot be associated */
    int dispatch_inferred;    /* 1: the TTMPs name no dispatch; the queue's only active one
                                 runs the kernel whose code holds the PC (image.c,
                                 infer_dispatches()); 0: the TTMPs named it, or none */
    uint32_t workgroup[3];    /* workgroup id (UINT32_MAX each when unknown) */
    uint32_t wave_in_group;   /* from the TTMPs; when they are not valid, the position in
                                 the saved group */
    uint32_t group_leader;    /* image-wide index of the wave holding the group's LDS (itself
                                 for the first wave of a group) */
    uint32_t lanes;
    uint64_t pc;
    uint64_t exec;
    int stopped;              /* trap handler stopped it */
    uint32_t stop_reasons;    /* GC_STOP_* (arch/wave.h) */
    uint32_t watchpoints;     /* bit k: address watch k triggered (with GC_STOP_WATCHPOINT) */
    /* The decoded record: counts, state words, workgroup place, record_offset/record_size. Of
       its register pointers only hwreg and ttmp are set, to status[] below (what every
       question about the wave's state reads: arch/wave.h); vgpr, shared_vgpr, accvgpr, sgpr
       and lds are NULL. The saved registers stay in the core: gc_image_wave_regs() or
       gc_image_record_read() read the record when asked. */
    struct gc_wave wave;
    uint64_t record_address;  /* process address of the record's lowest byte */
    uint8_t status[GC_CWSR_STATUS_BYTES]; /* its 16 hwreg slots and 16 TTMPs, read at open */
};

struct gc_image_code_object {
    uint32_t index;
    char uri[1024];
    uint64_t load_address;
    const uint8_t *bytes;     /* the ELF image, or NULL if not available */
    uint64_t size;
    const char *source;       /* "memory", "embedded", "file" (below the code-object
                                 directory), "missing" (bytes NULL; a problem says why), or
                                 "not loaded" (GC_IMAGE_NO_CODE_BYTES) */
};

/*
 * Where an image reads the process's memory. read() copies [addr, addr + size) into buf:
 * GPUCORE_OK when every byte was read; GPUCORE_E_UNAVAILABLE when not, *ret_done the readable
 * prefix (memory the core does not hold); GPUCORE_E_NOMEM stops what the image is doing; any
 * other status counts as unreadable, and errmsg() (optional) says why in one phrase.
 * Both are called with the image's user pointer; the struct is copied, user is borrowed.
 */
struct gc_image_memory {
    gpucore_status_t (*read)(void *user, uint64_t addr, void *buf, uint64_t size,
                             uint64_t *ret_done);
    const char *(*errmsg)(void *user);
    void *user;
};
/* The image asks a gc_image_open_note() source nothing more: such a source cannot say which
   bytes it holds, so save areas and AQL rings are bounded by the fixed limits of
   image_internal.h (GC_IMAGE_MAX_CWSR_TOTAL, GC_IMAGE_MAX_RING_SLOTS). Core files are bounded
   by what they hold: only bytes of segment data present in the file (not p_memsz past
   p_filesz) are allocated for save areas or walked in rings; and what the image keeps of them
   (dispatches, waves, symbols, code-object bytes) is charged to the core's memory budget, of
   which the image takes at most a share (image_internal.h, GC_IMAGE_BUDGET_SHARE): past it,
   the image keeps what fits and a problem says what it left out. */

/* gc_image_open_note() flags */
#define GC_IMAGE_NO_CODE_BYTES 0x1u /* list code objects (URI, load address) without reading
                                       their bytes: no symbols, no kernel names */
#define GC_IMAGE_WAVE_DISPATCHES 0x2u /* keep only the dispatches a saved wave runs (what AMD's
                                       library creates), each read from its packet; the ring
                                       is still walked and its kernel-dispatch packets
                                       counted (gc_image_queue::dispatch_packets). Without a
                                       memory budget (a note's image) this bounds the
                                       dispatches by the waves, not by the rings */
#define GC_IMAGE_AMD_SCRATCH 0x4u /* place a wave's scratch slot (private memory) as AMD's
                                     amd-dbgapi 0.77 does, whether or not the wave was launched
                                     with scratch enabled (its scratch_en bit, which AMD's
                                     library never consults). Without it such a wave has no
                                     private memory (GPUCORE_E_LIMIT), which is what the
                                     analyzer tells */

/*
 * How an image may look beyond the core. Zero-initialized: nothing but the core.
 *
 * code_object_dir: NULL (the default): a file:// code object whose bytes are neither in the
 * core (memory://) nor embedded (GPUCORE CODE_OBJECTS) has no bytes, and a problem says
 * "file:// URI not opened". A core is untrusted input: it must not make the analyzer open a
 * file of the host it names (/etc/shadow, a FIFO, a device, a host ELF). A directory: the
 * URI's path is resolved below it as if it were the root (openat2 RESOLVE_IN_ROOT |
 * RESOLVE_NO_MAGICLINKS: '..' and absolute symlinks stay inside), and only a regular file
 * (never a FIFO or device: resolved O_PATH, checked, then reopened O_NONBLOCK) that is an
 * AMDGPU ELF64 file of at most GC_IMAGE_MAX_CODE_OBJECT_SIZE bytes is used.
 */
#define GC_IMAGE_MAX_CODE_OBJECT_SIZE (256u << 20) /* bytes of one code object */

struct gc_image_options {
    const char *code_object_dir;
};

/*
 * Build the image of @p core (borrowed: keep it open while the image lives).
 * Code objects come from r_debug's link map; when r_debug is not in the core, from the
 * GPUCORE embedded list (GPUCORE_NT_CODE_OBJECTS) if there is one. Symbols (STT_FUNC and
 * STT_OBJECT of .symtab) are read with libelf from the bytes; dispatch kernel names come
 * from the "NAME.kd" symbol at the descriptor, else the function at the kernel entry. More
 * than the limits or the memory budget allow (waves, dispatches, symbols, code-object bytes)
 * is not a failure: the image keeps what fits and a problem says what it left out.
 * @retval GPUCORE_OK          (the image may still have per-object problems)
 * @retval GPUCORE_E_NOTFOUND  no AMDGPU note: the core holds no GPU state
 * @retval GPUCORE_E_CORRUPT, GPUCORE_E_VERSION  the note cannot be decoded (the diag says why)
 * @retval GPUCORE_E_INVAL, GPUCORE_E_NOMEM
 */
gpucore_status_t gc_image_open(gpucore_core_t *core, struct gc_image **ret,
                               gpucore_diag_t *reterr_diag);

/*
 * Build the image of a split core: @p gpu, the AMDGPU core file (e_machine 224, as the ROCm
 * runtime writes gpucore.PID: the note and the GPU mappings), and @p host, the process's host
 * core (the kernel's core.PID), whose memory holds what the GPU file does not -- r_debug and
 * the link map, code objects loaded from host memory. Both borrowed. Every read tries the GPU
 * file first, then the host core, byte range by byte range. The AMDGPU note is the GPU file's
 * (else the host core's); GPUCORE notes are the GPU file's. @p host NULL: gc_image_open(gpu).
 * @retval as gc_image_open() (GPUCORE_E_NOTFOUND: neither core has the note).
 */
gpucore_status_t gc_image_open_split(gpucore_core_t *gpu, gpucore_core_t *host,
                                     struct gc_image **ret, gpucore_diag_t *reterr_diag);

/* gc_image_open_split() (gc_image_open() when @p host is NULL) with options (@p opts NULL:
   the defaults; borrowed for the call). @retval as gc_image_open_split(). */
gpucore_status_t gc_image_open_with(gpucore_core_t *gpu, gpucore_core_t *host,
                                    const struct gc_image_options *opts, struct gc_image **ret,
                                    gpucore_diag_t *reterr_diag);

/*
 * Build an image from an AMDGPU note's descriptor (@p note, @p note_size bytes, copied) and a
 * memory source, with no core file: what the amd-dbgapi library has. There are no GPUCORE
 * notes, so no embedded code objects and no manifest (missing memory is reported without the
 * capture's reason), and no code-object directory: a file:// code object has no bytes.
 * @p flags: GC_IMAGE_NO_CODE_BYTES, GC_IMAGE_WAVE_DISPATCHES, GC_IMAGE_AMD_SCRATCH.
 * @retval as gc_image_open(), without GPUCORE_E_NOTFOUND (the caller found the note);
 *         GPUCORE_E_INVAL also for a NULL note or memory source.
 */
gpucore_status_t gc_image_open_note(const void *note, size_t note_size,
                                    const struct gc_image_memory *mem, uint32_t flags,
                                    struct gc_image **ret, gpucore_diag_t *reterr_diag);
void gc_image_close(struct gc_image *img); /* accepts NULL */

const gpucore_amdgpu_note_t *gc_image_note(const struct gc_image *img);
uint32_t gc_image_r_version(const struct gc_image *img); /* 0 if r_debug is not in the core */

uint32_t gc_image_agent_count(const struct gc_image *img);
const struct gc_image_agent *gc_image_agent(const struct gc_image *img, uint32_t i);
uint32_t gc_image_queue_count(const struct gc_image *img);
const struct gc_image_queue *gc_image_queue(const struct gc_image *img, uint32_t i);
uint32_t gc_image_dispatch_count(const struct gc_image *img);
const struct gc_image_dispatch *gc_image_dispatch(const struct gc_image *img, uint32_t i);
uint32_t gc_image_wave_count(const struct gc_image *img);
const struct gc_image_wave *gc_image_wave(const struct gc_image *img, uint32_t i);
uint32_t gc_image_code_object_count(const struct gc_image *img);
const struct gc_image_code_object *gc_image_code_object(const struct gc_image *img, uint32_t i);

/*
 * The saved registers of a wave (VGPRs, SGPRs, the LDS of a group leader) are not copied when
 * the image is built: each XCC's wave area is read through once, in windows of
 * GC_IMAGE_WAVE_WINDOW bytes, for the 128 status bytes of every wave (gc_image_wave::status),
 * and a wave's whole record is read again from the memory source (the core file through
 * libcore's reader, the client's memory for the amd-dbgapi library) when it is asked for.
 * The layout of every record (where each register block is) was fixed and checked from the
 * control stack at open, and a record is read into a buffer of exactly its size, so bytes that
 * differ on a later read (a file rewritten under us) change values, never bounds; hwreg and
 * ttmp always point at the copies of open, so the stop state, PC and EXEC the image reports
 * and the registers it serves agree. A compressed core decodes the frames a record lies in
 * (libcore's frame cache keeps the last few): no copy of the save areas either way.
 */
#define GC_IMAGE_WAVE_WINDOW (1u << 20)

/* A wave's record read from the source: @p w with every register pointer bound (into bytes,
   hwreg and ttmp into the image's status copy). Zero-initialize; reusable for any wave. */
struct gc_image_record {
    uint32_t wave;            /* image wave index it holds; UINT32_MAX when none (set by read) */
    uint8_t *bytes;           /* owned: the record's bytes */
    uint64_t cap;             /* bytes allocated */
    struct gc_wave w;
};

/*
 * Read wave @p i's record into @p rec (its buffer grown as needed). rec->w is valid until the
 * next read into @p rec, gc_image_record_done() or gc_image_close().
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_UNAVAILABLE the source no longer gives the record's bytes (a file cut or
 *                               damaged after open, a client that fails the read); the diag
 *                               says which wave and why
 * @retval GPUCORE_E_INVAL       NULL image or record, @p i out of range, a wave of an unknown
 *                               family
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_image_record_read(struct gc_image *img, uint32_t i,
                                      struct gc_image_record *rec, gpucore_diag_t *reterr_diag);
void gc_image_record_done(struct gc_image_record *rec); /* frees the buffer; accepts NULL */

/*
 * Wave @p i with its saved registers, through a cache of GC_IMAGE_RECORD_CACHE records the
 * image keeps: *ret is valid until GC_IMAGE_RECORD_CACHE calls for other waves, or
 * gc_image_close(). Statuses as gc_image_record_read().
 */
#define GC_IMAGE_RECORD_CACHE 4u
gpucore_status_t gc_image_wave_regs(struct gc_image *img, uint32_t i, const struct gc_wave **ret,
                                    gpucore_diag_t *reterr_diag);

/* Problems found while building (one sentence each), for reports. */
uint32_t gc_image_problem_count(const struct gc_image *img);
const char *gc_image_problem(const struct gc_image *img, uint32_t i);

/* The index of the code object whose loaded extent (its PT_LOAD segments at its load address)
   holds @p addr, or UINT32_MAX (none, or NULL image). When extents overlap (a core may say
   anything), the one starting highest holds it, then the lowest index. O(log code objects). */
uint32_t gc_image_code_object_at(const struct gc_image *img, uint64_t addr);

/*
 * Function symbol containing @p pc in the code objects (st_value + load address, st_size;
 * a symbol of size 0 covers only its own address): name (truncated to @p name_size) and the
 * offset from its start. Of several, the one starting highest, then the first in code-object
 * and symbol-table order. O(log symbols).
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND (no code object or symbol covers it),
 *         GPUCORE_E_INVAL (NULL image or name, name_size 0).
 */
gpucore_status_t gc_image_symbolize(const struct gc_image *img, uint64_t pc, char *name,
                                    size_t name_size, uint64_t *ret_offset);

/*
 * Why the capture left @p addr out, by its manifest: the GPUCORE_REASON_* of the skipped or
 * unreadable range holding it (GPUCORE_REASON_REDACTED: withheld by --redact), or
 * GPUCORE_REASON_NONE when no manifest range says it is missing (or no manifest, or NULL).
 */
uint32_t gc_image_missing_reason(const struct gc_image *img, uint64_t addr);

/*
 * Read memory as a wave sees it. @p space: GC_ASPACE_GLOBAL (core segments), GENERIC (lowered
 * by aperture, then as the space it lowers to), LOCAL (the wave's workgroup LDS), PRIVATE_LANE
 * (@p lane's swizzled scratch), PRIVATE_WAVE (unswizzled). @p wave may be UINT32_MAX for GLOBAL
 * (and for GENERIC addresses that lower to global). @p lane is used by PRIVATE_LANE only.
 * @p ret_done (optional) is always written: the bytes read from the start.
 * The diag names the address and, for memory missing from the core, why the capture's
 * manifest says it is missing ("reason tier, tier referenced").
 * @retval GPUCORE_OK          all bytes read
 * @retval GPUCORE_E_UNAVAILABLE some byte was not captured; *ret_done is the readable prefix and
 *                             the diag says what is missing. Also: private memory whose
 *                             location is unknown (amd_queue_t not in the core, per-XCC stride
 *                             not recorded, shader-engine count unknown, a tmpring value AMD's
 *                             library rejects)
 * @retval GPUCORE_E_LIMIT     outside the space (past the LDS size, the scratch slot, a wave
 *                             without scratch, a generic aperture's 4 GiB, an address range
 *                             wrapping 2^64)
 * @retval GPUCORE_E_INVAL     bad wave/lane/space, NULL image, NULL buf with size > 0
 * @retval GPUCORE_E_CORRUPT   a compressed frame fails to decode, or the scratch slot address
 *                             wraps
 * @retval GPUCORE_E_NOMEM     out of memory (frame buffer)
 */
gpucore_status_t gc_image_read(struct gc_image *img, uint32_t wave, uint32_t space, uint32_t lane,
                               uint64_t addr, void *buf, uint64_t size, uint64_t *ret_done,
                               gpucore_diag_t *reterr_diag);

#endif /* GC_ANALYZE_IMAGE_H */
