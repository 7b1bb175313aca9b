/* SPDX-License-Identifier: MIT */
/**
 * @file gpucore/core.h
 * @brief The core-file container: a streaming ELF core writer and a random-access reader.
 *
 * ## File layout written
 *
 * An ELF64 little-endian `ET_CORE` file, either *unified* (the host's `e_machine`, for cores that
 * also carry host threads) or *split* (`EM_AMDGPU`, OSABI 64 `ELFOSABI_AMDGPU_HSA`, ABI version 3).
 * Logical layout, as the Linux kernel writes its cores:
 *
 *     [ELF header][program headers][notes][zero padding][segment data, in the order added]
 *
 * Everything a reader needs to find the data comes first, so a file cut anywhere after the
 * notes (an interrupted copy, a full disk) still opens with gpucore_core_open() and
 * GPUCORE_OPEN_ALLOW_TRUNCATED: the segments are clipped at the end of the file and the core
 * is marked truncated. The writer reserves the head -- ELF header, program headers and notes
 * -- before the first segment byte, as a whole number of 4096-byte pages: what is known then,
 * plus gpucore_writer_opts::head_reserve (or a default slack of 16 KiB, 4 KiB with a budget).
 * Segment data streams after it; gpucore_writer_finish() writes the final head in place. A
 * head that outgrew its reservation (more notes or segments than reserved for) moves the data
 * up by whole pages at finish, at the cost of copying it once. The program header table holds
 * the PT_NOTE first, then the PT_LOADs sorted by address. More than 65534 program headers use
 * `PN_XNUM` with the count in section header 0, as Linux does; that header follows the program
 * headers and precedes the notes.
 *
 * Every PT_LOAD's `p_offset` is congruent to its `p_vaddr` modulo `p_align`, where `p_align` is
 * the largest power of two that divides `p_vaddr`, capped at 4096 (4096 for address 0); the
 * padding is zeros. PT_LOADs have `p_paddr` 0 and `p_memsz` equal to `p_filesz`. The PT_NOTE has
 * `p_align` 4 and is left out when there are no notes at all. With `PN_XNUM`, `e_phnum` is
 * 0xffff and one `SHT_NULL` section header holds the count in `sh_info` (`e_shnum` 1,
 * `e_shentsize` 64), exactly as Linux writes it. Unified cores have OSABI 0 (System V), as
 * Linux cores do. In plain files all-zero file pages, and the unused part of the head, are
 * left as holes. Output is deterministic: the same calls give the same bytes.
 *
 * ## Compression
 *
 * With compression on, the logical file above is cut into independent zstd frames followed by
 * a seek table in zstd's *seekable format* (a skippable frame with magic 0x184D2A5E, one
 * {compressed size, decompressed size} pair per frame, and the footer {u32 frame count, u8
 * descriptor, u32 magic 0x8F92EAB1}; descriptor 0: no per-frame checksums, every frame carries
 * its own). The contract readers may rely on:
 *  - the file is a sequence of zstd frames and skippable frames, the seek table last;
 *  - every zstd frame declares its content size (Frame_Content_Size) and has an XXH64 checksum;
 *  - the logical image is the concatenation of the zstd frames' contents in file order;
 *  - no frame holds more than 64 MiB (the frame size, 512 KiB by default);
 *  - the first frames hold the head (ELF header, program headers, notes, padding) and nothing
 *    else; each data frame k holds logical bytes [H + k F, H + (k+1) F) for head size H and
 *    frame size F, the last one possibly fewer.
 * So a file that lost its end (and its seek table) is indexed by walking its frames from the
 * start. In a large core without a budget the head frames may be followed by a skippable
 * frame padding their reservation (its contents a hole, at most 1/64 of the file; moving the
 * data frames instead would copy them); its seek-table entry is merged into the last head
 * frame's. `zstd -d` turns the file into the plain core.
 *
 * With `threads` > 1, that many worker threads compress whole frames in parallel while the
 * caller streams the next ones; frames are written in order, and the file is byte-identical
 * to one written with a single thread (under a budget, the data is cut a little earlier or
 * later: the frame that does not fit is found later). Frames in flight take about 4 x `threads` x frame size
 * of memory.
 *
 * ## Budget
 *
 * `max_bytes` bounds the file's apparent size (`st_size`, what `ls -l` shows), holes included
 * -- a sparse file grows to that size wherever it is copied or compressed -- for plain and
 * compressed cores alike; for compressed cores that is the compressed bytes. It is a promise:
 * the file published is never larger. When segment data would not fit, the writer cuts the
 * data at that point (a segment is shortened or dropped), records every range it could not
 * write in the manifest as SKIPPED/BUDGET, sets GPUCORE_MANIFEST_TRUNCATED and accepts no more
 * data. The file stays a valid core. A budget below GPUCORE_WRITER_MIN_BUDGET is refused by
 * gpucore_writer_open(); one the head alone (ELF header, program headers, notes, manifest)
 * exceeds makes gpucore_writer_finish() fail with GPUCORE_E_LIMIT, naming the bytes needed.
 *
 * Plain cores are cut at the exact byte. Compressed sizes are known only once a frame is
 * compressed: the frame that does not fit is cut to the longest prefix that does (prefixes
 * are compressed in a binary search), so the file comes within a few hundred bytes of the
 * budget. The head's compressed size is known only at finish: data that add_segment() already
 * accepted can still be shortened there, from the end, so the data first added is the data
 * kept. The manifest always says what was kept. The reader's built-in limits (2^20 program
 * headers, 2^20 zstd frames) end the data the same way, recorded as BUDGET, so every core
 * written can be read back.
 *
 * ## Atomic publish
 *
 * Data goes to an unnamed temporary file in the destination directory (`O_TMPFILE`, or a
 * hidden `.NAME.XXXXXX` file where that is unsupported) and is linked under the final name
 * only by gpucore_writer_finish(). No partial file ever appears under the final name, and an
 * existing file of that name is replaced (GPUCORE_WRITE_OVERWRITE) by one atomic rename, never
 * truncated or written through a symlink. The file and its directory are synced before
 * gpucore_writer_finish() returns.
 *
 * Thread safety: a writer or reader handle must not be used from two threads at once;
 * distinct handles are independent. A reader of a compressed core decodes the frames one read
 * needs on up to 4 threads (the CPUs the process may run on): its helper threads, with every
 * signal blocked, are started by the first read that needs two or more frames not cached and
 * stopped by gpucore_core_close(). A child forked while such a core is open must not use it.
 */
#ifndef GPUCORE_CORE_H
#define GPUCORE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>
#include <gpucore/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================ */
/* Writer                                                                                       */
/* ============================================================================================ */

typedef struct gpucore_writer gpucore_writer_t;

/** gpucore_writer_opts::kind */
#define GPUCORE_CORE_UNIFIED 0u /**< host e_machine (default) */
#define GPUCORE_CORE_SPLIT 1u   /**< EM_AMDGPU, OSABI 64, ABI version 3: GPU part only */

/** gpucore_writer_opts::flags */
#define GPUCORE_WRITE_OVERWRITE 0x1u   /**< replace an existing file instead of GPUCORE_E_EXIST */
#define GPUCORE_WRITE_NO_MANIFEST 0x2u /**< do not emit the GPUCORE manifest note */

/** The most other names gpucore_writer_opts::rename_on_exist is asked for. */
#define GPUCORE_WRITER_RENAMES_MAX 999u

/**
 * Another name for a core whose final name appeared while it was written (another process took
 * it, and GPUCORE_WRITE_OVERWRITE is unset): attempt 1, 2, ... up to GPUCORE_WRITER_RENAMES_MAX.
 * Write the path to @p buf (@p size bytes) and return 0, or return nonzero to stop (the finish
 * then fails with GPUCORE_E_EXIST). The file stays in its directory: only the path's last
 * component is used. The writer never replaces a file under any of the names.
 */
typedef int (*gpucore_writer_rename_fn)(void *user, uint32_t attempt, char *buf, size_t size);

/**
 * Writer options. Initialise with GPUCORE_OPTS(gpucore_writer_opts, ...) so `sz` is set; fields
 * left 0 take the documented default. Pass NULL for all defaults.
 */
struct gpucore_writer_opts {
    size_t sz;               /**< sizeof(struct gpucore_writer_opts) as compiled by the caller */
    uint32_t kind;           /**< GPUCORE_CORE_*; default unified */
    uint32_t e_machine;      /**< unified only: ELF machine; 0 = this host's */
    uint32_t flags;          /**< GPUCORE_WRITE_* */
    uint32_t mode;           /**< file mode, set with fchmod (the umask does not apply); 0 = 0600 */
    uint64_t max_bytes;      /**< size budget for the file on disk; 0 = unlimited */
    int32_t compress_level;  /**< 0 = plain file; 1..22 = zstd level; < 0 = zstd fast levels
                                  (down to ZSTD_minCLevel()) */
    uint32_t threads;        /**< compression worker threads, at most 256; 0 or 1 = inline */
    uint32_t frame_size;     /**< logical bytes per zstd frame; 0 = 512 KiB, or larger for a
                                  large expected_bytes; 64 KiB .. 64 MiB */
    uint32_t compress;       /**< non-zero: compress (with compress_level, 0 = level 3) */
    uint64_t head_reserve;   /**< bytes of program headers and notes still to come when the
                                  first segment is added (0 = a default slack; see "File layout
                                  written"); at most 1 GiB is taken */
    uint64_t expected_bytes; /**< about how many bytes the core will hold (0 = not known). With
                                  compress and frame_size 0 the writer takes larger frames than
                                  512 KiB when the default's reach (2^20 frames, 512 GiB) is
                                  less than twice this, so the frame count does not cut the
                                  core; an estimate is enough */
    uint32_t manifest_flags; /**< GPUCORE_MANIFEST_REDACTED and GPUCORE_MANIFEST_NO_HOST_MEMORY
                                  bits the manifest carries (what the caller withheld); the
                                  writer adds GPUCORE_MANIFEST_TRUNCATED itself */
    gpucore_writer_rename_fn rename_on_exist; /**< NULL: a name taken meanwhile fails the
                                                   finish (GPUCORE_E_EXIST) */
    void *rename_user;                        /**< rename_on_exist's @p user */
    size_t : 0;
};

/**
 * The smallest gpucore_writer_opts::max_bytes accepted: one page, which holds the ELF header,
 * the PT_NOTE and a manifest. Real captures need more (their notes); gpucore_writer_finish()
 * says how much when the budget is too small for them.
 */
#define GPUCORE_WRITER_MIN_BUDGET 4096u

/** Initialise an options struct as a compound literal with `sz` set. */
#define GPUCORE_OPTS(type, ...) (&(struct type){ .sz = sizeof(struct type), __VA_ARGS__ })

/**
 * Start writing a core at @p path.
 *
 * @param path   destination; its directory must exist.
 * @param opts   options or NULL.
 * @param ret_writer on success, the writer; finish with gpucore_writer_finish() or throw away
 *               with gpucore_writer_abort().
 * @retval GPUCORE_OK        started.
 * @retval GPUCORE_E_INVAL   NULL path/ret_writer, bad options (unknown kind or flags, frame size
 *                           out of range, max_bytes below GPUCORE_WRITER_MIN_BUDGET, non-zero
 *                           bytes in option fields this version does not know).
 * @retval GPUCORE_E_EXIST   @p path exists and GPUCORE_WRITE_OVERWRITE is not set.
 * @retval GPUCORE_E_IO      the temporary file could not be created (errno in the diag text).
 * @retval GPUCORE_E_CANTCREAT the output cannot be created there: a directory of @p path does
 *                           not exist or is not one, or is not writable (errno in the diag).
 * @retval GPUCORE_E_NOMEM   out of memory.
 */
GPUCORE_API gpucore_status_t gpucore_writer_open(const char *path,
                                                 const struct gpucore_writer_opts *opts,
                                                 gpucore_writer_t **ret_writer,
                                                 gpucore_diag_t *reterr_diag);

/**
 * Queue a note. Notes are kept in memory and written, in the order added, into the single
 * PT_NOTE segment by gpucore_writer_finish(), at the head of the file (notes added after the
 * first segment use the head's reservation; see "File layout written"). Owner names are written NUL-terminated and padded
 * to 4 bytes, descriptors padded to 4 bytes.
 *
 * @param desc  descriptor bytes, copied. May be NULL if @p size is 0.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL writer/owner, empty owner, desc above 4 GiB, writer
 *         already failed or finished), GPUCORE_E_NOMEM (writer failed).
 * @retval GPUCORE_E_LIMIT  more than 2^20 - 2 notes, or notes above 768 MiB in all: the reader
 *         would refuse the core. Nothing is added; the writer stays usable.
 */
GPUCORE_API gpucore_status_t gpucore_writer_add_note(gpucore_writer_t *w, const char *owner,
                                                     uint32_t type, const void *desc,
                                                     size_t size);

/** Description of a memory range, for the manifest. */
struct gpucore_range_info {
    size_t sz;          /**< sizeof(struct gpucore_range_info) */
    uint32_t tier;      /**< GPUCORE_TIER_* */
    uint32_t p_flags;   /**< PF_R/PF_W/PF_X bits (4/2/1) for the segment; 0 = PF_R|PF_W */
    const char *label;  /**< what it is, for the manifest; may be NULL. Copied; a byte where
                             UTF-8 breaks (a file name in another encoding) becomes '?' */
    size_t : 0;
};

/**
 * Pull callback for segment data: copy @p size bytes starting at virtual address @p addr into
 * @p buf. Called with increasing addresses, in chunks of at most 1 MiB.
 *
 * @return the number of bytes copied (0..size). Returning less than @p size means the bytes from
 *         `addr + returned` are unreadable; set *ret_errno to the errno and *ret_bad_size to how
 *         many bytes from there are unreadable (at least 1; the writer skips them and calls
 *         again after them; 0 counts as 1, and a size past the segment's end is clipped to
 *         it). Return a negative gpucore_status_t to abort the whole segment with that status.
 *         Returning more than @p size is a bug the writer fails with GPUCORE_E_INVAL.
 */
typedef int64_t (*gpucore_read_fn)(void *user, uint64_t addr, void *buf, uint64_t size,
                                   int *ret_errno, uint64_t *ret_bad_size);

/**
 * Add a PT_LOAD segment whose bytes come from @p read. Data is streamed to the file in chunks;
 * nothing of the segment is held in memory beyond one chunk.
 *
 * Unreadable sub-ranges split the segment: readable parts become PT_LOADs and the unreadable
 * parts are recorded in the manifest as UNREADABLE (reason IO_ERROR) with their errno. When the
 * budget runs out the segment is cut and the rest is recorded as SKIPPED/BUDGET; the rest is
 * not read. @p info may be NULL (tier STATE, PF_R|PF_W, no label); it follows the `sz` rule of
 * options structs. The label is copied.
 *
 * @retval GPUCORE_OK         added (possibly shortened or split; see the manifest).
 * @retval GPUCORE_E_INVAL    NULL writer/read, size 0, address range wrapping past 2^64, range
 *                            overlapping an earlier segment, writer already failed or finished.
 * @retval GPUCORE_E_LIMIT    the budget was already exhausted (or gpucore_writer_stop() was
 *                            called) before this segment: nothing was written, the range is
 *                            recorded as SKIPPED with that reason. Not a failure of the writer;
 *                            later calls will also return it.
 * @retval GPUCORE_E_IO       writing the file failed (ENOSPC ...). The writer is now failed:
 *                            only gpucore_writer_abort() is allowed.
 * @retval GPUCORE_E_NOMEM    out of memory (writer failed).
 * @retval other negative     returned by @p read to abort; the writer is failed.
 */
GPUCORE_API gpucore_status_t gpucore_writer_add_segment_fn(gpucore_writer_t *w, uint64_t vaddr,
                                                           uint64_t size,
                                                           const struct gpucore_range_info *info,
                                                           gpucore_read_fn read, void *user);

/** Add a PT_LOAD segment from a buffer (copied as it is written). Statuses as above. */
GPUCORE_API gpucore_status_t gpucore_writer_add_segment(gpucore_writer_t *w, uint64_t vaddr,
                                                        const void *data, uint64_t size,
                                                        const struct gpucore_range_info *info);

/**
 * Record a range that was deliberately not captured (its tier was not requested, a policy
 * excluded it, it is a doorbell mapping...). Only the manifest changes.
 *
 * @param reason GPUCORE_REASON_* other than NONE (REDACTED: the range holds user data the
 *               caller withheld). The entry's status is SKIPPED. The range may
 *               overlap segments (it is not checked against them).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL writer, size 0, wrapping range, unknown reason, bad
 *         info), GPUCORE_E_NOMEM.
 */
GPUCORE_API gpucore_status_t gpucore_writer_record_skip(gpucore_writer_t *w, uint64_t vaddr,
                                                        uint64_t size,
                                                        const struct gpucore_range_info *info,
                                                        uint32_t reason);

/**
 * Mark the capture as cut short for @p reason (GPUCORE_REASON_DEADLINE, ...) from now on: later
 * segments are recorded as SKIPPED with that reason and the manifest gets
 * GPUCORE_MANIFEST_TRUNCATED. Used by callers that enforce their own budgets (time). Data
 * already accepted stays. Once the capture is cut (by a stop or the budget), the first reason
 * is the one recorded as the manifest's truncation reason.
 *
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL or failed writer, reason NONE or unknown).
 */
GPUCORE_API gpucore_status_t gpucore_writer_stop(gpucore_writer_t *w, uint32_t reason);

/** Figures of a writer so far. */
struct gpucore_writer_stats {
    uint64_t file_bytes;     /**< bytes on disk so far (excluding holes) */
    uint64_t logical_bytes;  /**< size of the logical (uncompressed) file so far */
    uint64_t data_bytes;     /**< segment bytes accepted */
    uint64_t skipped_bytes;  /**< segment bytes skipped or unreadable */
    uint32_t segments;
    uint32_t notes;
    uint32_t truncated;      /**< non-zero once a budget cut the data */
    uint32_t truncation_reason;
};

/** Fill @p ret_stats. @retval GPUCORE_OK, GPUCORE_E_INVAL. */
GPUCORE_API gpucore_status_t gpucore_writer_get_stats(const gpucore_writer_t *w,
                                                      struct gpucore_writer_stats *ret_stats);

/**
 * Write the head -- ELF header, program headers, the notes plus the manifest unless disabled
 * -- at the start of the file, flush, `fsync`, and link the file under its final name. Frees
 * @p w whatever the outcome.
 *
 * The manifest (owner "GPUCORE", type GPUCORE_NT_MANIFEST, after the caller's notes) lists, in
 * address order, one CAPTURED entry per PT_LOAD written (with the tier and label of its
 * gpucore_range_info), the ranges skipped or unreadable (contiguous pieces of one call with the
 * same status merged), and the record_skip() ranges. If the file does not fit the budget,
 * segment data is cut here first, from the end (see "Budget").
 *
 * @param ret_stats optional final figures (on success).
 * @retval GPUCORE_OK       the core exists under its final name.
 * @retval GPUCORE_E_INVAL  NULL writer, or a writer that already failed (nothing is published).
 * @retval GPUCORE_E_EXIST  the final name appeared meanwhile and overwriting was not allowed.
 * @retval GPUCORE_E_LIMIT  the head alone exceeds max_bytes; nothing is published, and the
 *                          diag names the bytes the head needs.
 * @retval GPUCORE_E_IO     writing, syncing or linking failed; nothing is published (if only
 *                          syncing the directory failed after linking, the name is removed).
 * @retval GPUCORE_E_NOMEM  out of memory; nothing is published.
 */
GPUCORE_API gpucore_status_t gpucore_writer_finish(gpucore_writer_t *w,
                                                   struct gpucore_writer_stats *ret_stats,
                                                   gpucore_diag_t *reterr_diag);

/** Throw the core away: the temporary file is removed, nothing is published. Accepts NULL. */
GPUCORE_API void gpucore_writer_abort(gpucore_writer_t *w);

/** Last failure detail of a writer (empty string if none). Owned by @p w. */
GPUCORE_API const char *gpucore_writer_errmsg(const gpucore_writer_t *w);

/* ============================================================================================ */
/* Reader                                                                                       */
/* ============================================================================================ */

typedef struct gpucore_core gpucore_core_t;

/** gpucore_open_opts::flags */
#define GPUCORE_OPEN_ALLOW_TRUNCATED 0x1u /**< open a core cut short (see gpucore_core_open()) */

/**
 * The largest frame content the reader accepts by default (gpucore_open_opts::max_frame_size):
 * the largest frame the writer writes (gpucore_writer_opts::frame_size at most 64 MiB).
 */
#define GPUCORE_MAX_FRAME_CONTENT (64ull << 20)

/**
 * Decoded frames the cache keeps at most, in bytes (besides at most
 * gpucore_open_opts::frame_cache frames). A frame larger than this is still decoded and kept
 * alone.
 */
#define GPUCORE_FRAME_CACHE_BYTES (64ull << 20)

/**
 * The reader's memory budget (gpucore_open_opts::mem_budget).
 *
 * Everything a reader allocates because a file says so is charged to one budget per open
 * core: the zstd frame index, decoded frames in the cache, the compressed bytes of the frame
 * being decoded, the copies of the PT_NOTE segments, the note index, the segment table, and
 * whatever callers reserve with gpucore_core_mem_reserve() (an analyzer charges what it
 * builds from the core there, e.g. GPUCORE_NOTE_DECODED_MAX() before decoding a note). Fixed costs (the handle, the zstd decoder's ~100 KiB, quirk
 * strings, a few KiB of stack buffers) are not counted. When an allocation does not fit, the
 * frame cache is emptied first; if it still does not fit, the call fails with GPUCORE_E_LIMIT
 * and a message naming the file offset, what needed the memory, how much, and the budget.
 *
 * The default is GPUCORE_MEM_BUDGET_FACTOR times the bytes the input really holds, and at least
 * GPUCORE_MEM_BUDGET_FLOOR. "Really holds": the allocated size of a file (st_blocks x 512, at
 * most st_size; holes hold nothing), the size of a memory buffer. The factor covers what a
 * core's own structures cost decoded (a 56-byte program header becomes a 56-byte segment entry,
 * a 12-byte note a 40-byte index entry, an 8-byte seek table entry a 32-byte index entry). The
 * floor holds one decoded frame of the largest size the writer writes (64 MiB) plus as much
 * again for notes and tables, so a highly compressible core written with the largest frames
 * still opens; a decompression bomb gets no further than that. A core whose notes alone exceed
 * the budget (possible when they compress very well) needs a larger mem_budget.
 */
#define GPUCORE_MEM_BUDGET_FLOOR  (128ull << 20)
#define GPUCORE_MEM_BUDGET_FACTOR 4u
/**
 * Opening a compressed core decodes at most this many times its memory budget to read the
 * headers, program headers and notes (GPUCORE_E_LIMIT beyond): notes spread over many large
 * frames would otherwise cost CPU without bound while memory stays bounded. A core the writer
 * wrote decodes about its notes and program headers plus a few frames. Reads after the open
 * are not limited. No limit with GPUCORE_MEM_BUDGET_UNLIMITED.
 */
#define GPUCORE_OPEN_DECODE_FACTOR 4u
/** gpucore_open_opts::mem_budget value that turns the budget off. */
#define GPUCORE_MEM_BUDGET_UNLIMITED UINT64_MAX

struct gpucore_open_opts {
    size_t sz;
    uint32_t flags;          /**< GPUCORE_OPEN_* */
    uint32_t frame_cache;    /**< decoded frames kept (compressed cores); 0 = 8 */
    uint64_t max_frame_size; /**< refuse frames decompressing to more (GPUCORE_E_LIMIT);
                                  0 = GPUCORE_MAX_FRAME_CONTENT */
    uint64_t mem_budget;     /**< bytes the reader may allocate for this core (see
                                  GPUCORE_MEM_BUDGET_FLOOR); 0 = the default,
                                  GPUCORE_MEM_BUDGET_UNLIMITED = no limit */
    size_t : 0;
};

/** gpucore_core_info::flags */
#define GPUCORE_INFO_COMPRESSED 0x1u     /**< zstd seekable file */
/** The file was cut short (GPUCORE_OPEN_ALLOW_TRUNCATED): segments were clipped at its end, or
 *  a zstd frame or the seek table was cut. */
#define GPUCORE_INFO_FILE_TRUNCATED 0x2u
#define GPUCORE_INFO_PN_XNUM 0x4u        /**< program header count in section header 0 */
#define GPUCORE_INFO_QUIRKS 0x8u         /**< tolerated deviations; see gpucore_core_quirk() */

struct gpucore_core_info {
    uint32_t kind;          /**< GPUCORE_CORE_UNIFIED or GPUCORE_CORE_SPLIT (e_machine 224) */
    uint32_t e_machine;
    uint32_t osabi;
    uint32_t abiversion;
    uint32_t e_flags;
    uint32_t flags;         /**< GPUCORE_INFO_* */
    uint64_t file_size;     /**< bytes on disk */
    uint64_t logical_size;  /**< size of the (decompressed) ELF image */
    uint32_t phnum;         /**< program headers, all types */
    uint32_t load_count;    /**< PT_LOAD segments listed (those with p_memsz > 0) */
    uint32_t note_count;
    uint32_t frame_count;   /**< zstd frames (compressed cores) */
    uint64_t load_bytes;    /**< sum of PT_LOAD p_filesz (after clipping) */
    uint64_t load_memsz;    /**< sum of PT_LOAD p_memsz (after clipping) */
};

/** A note of the core. Pointers are owned by the core and valid until gpucore_core_close(). */
struct gpucore_note {
    const char *owner;    /**< NUL-terminated owner name */
    uint32_t type;
    const uint8_t *desc;  /**< descriptor bytes (4-byte aligned is not guaranteed) */
    uint64_t desc_size;
    uint64_t offset;      /**< logical file offset of the note header */
};

/** A PT_LOAD segment of the core. */
struct gpucore_segment {
    uint64_t vaddr;
    uint64_t memsz;
    uint64_t filesz;  /**< after clipping; bytes past filesz read as zeros, or are unavailable
                           when filesz is 0 (how Linux marks mappings it did not dump) */
    uint64_t offset;  /**< logical file offset */
    uint32_t flags;   /**< p_flags */
    uint64_t align;
};

/**
 * Open a core (plain or zstd-compressed; detected from the first bytes). Everything structural
 * is validated here: ELF header, program headers (inside the file, no overlapping PT_LOADs, no
 * address wrap), notes (sizes and padding inside their segment), the zstd seek table (sizes
 * add up to the file). Segment data is not read.
 *
 * The path is opened with O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and must be a regular
 * file: a FIFO, a device, a socket or a directory is refused at once (GPUCORE_E_IO), never
 * waited on or read. The file is read with pread(), never mapped: program headers and notes
 * are copied at open, and a file that shrinks while open makes later reads fail with
 * GPUCORE_E_TRUNCATED ("it was cut while being read") instead of raising SIGBUS. The library
 * installs no signal handlers.
 *
 * @retval GPUCORE_OK         opened.
 * @retval GPUCORE_E_INVAL    NULL argument or bad options.
 * @retval GPUCORE_E_IO       the file cannot be opened or read (errno in the message), or is
 *                            not a regular file.
 * @retval GPUCORE_E_TRUNCATED the file ends inside a structure, or a segment's data runs past
 *                            the end (without GPUCORE_OPEN_ALLOW_TRUNCATED), or the file shrank
 *                            while being opened.
 * @retval GPUCORE_E_CORRUPT  not an ELF64 LSB core, or a structure is inconsistent.
 * @retval GPUCORE_E_LIMIT    more program headers, notes or frames than the reader accepts
 *                            (2^20 each), a frame above max_frame_size, or the core needs more
 *                            memory than its budget (gpucore_open_opts::mem_budget).
 * @retval GPUCORE_E_NOTSUP   a compressed file without a seek table whose frames lack sizes.
 * @retval GPUCORE_E_NOMEM    out of memory.
 * The diag names the file offset (logical offset for compressed files; physical offset for
 * errors in the zstd frames or seek table) and what was expected.
 *
 * Details of what is accepted:
 *  - notes are 4-byte aligned, or 8-byte aligned in a PT_NOTE with `p_align` 8 (GNU property
 *    notes); the padding after the last note may be missing; a note with `n_namesz` 0 has
 *    owner "";
 *  - PT_LOADs with `p_memsz` 0 describe no memory and are not listed;
 *  - with GPUCORE_OPEN_ALLOW_TRUNCATED a segment running past the end of the file keeps the
 *    bytes present: its `p_filesz` and `p_memsz` are cut to them (the lost bytes read as
 *    unavailable, not as zeros); a PT_NOTE cut short keeps its complete notes;
 *  - deviations that other writers are known for are accepted and listed once per kind by
 *    gpucore_core_quirk(): `p_align` not a power of two, `p_offset` not congruent to `p_vaddr`
 *    modulo `p_align`, a split core's PT_LOAD flags without PF_R (a host core's flags are its
 *    mappings': the kernel writes an execute-only one as PF_X), a split core with EI_ABIVERSION
 *    other than 3;
 *  - compressed files: a sequence of zstd frames and skippable frames, every zstd frame with
 *    its content size; the logical image is the concatenation of the zstd frames' contents in
 *    file order. When the file does not end with a seek table (a core cut short loses it, as
 *    it comes last), the frames are indexed by walking them from the start, reading only frame
 *    and block headers (linear in the file, memory only for the index). With
 *    GPUCORE_OPEN_ALLOW_TRUNCATED a frame cut by the end of the file is dropped (its bytes read
 *    as unavailable), the image ends with the last complete frame, and the core is marked
 *    GPUCORE_INFO_FILE_TRUNCATED; without it, GPUCORE_E_TRUNCATED;
 *  - PT_NOTE segments are copied to memory at open and may hold 1 GiB in all (GPUCORE_E_LIMIT
 *    beyond), within the memory budget.
 */
GPUCORE_API gpucore_status_t gpucore_core_open(const char *path,
                                               const struct gpucore_open_opts *opts,
                                               gpucore_core_t **ret_core,
                                               gpucore_diag_t *reterr_diag);

/**
 * Open a core from an open file descriptor (for callers that open the file their own way,
 * e.g. with openat2() or after dropping privileges). The core reads through its own duplicate
 * of @p fd (F_DUPFD_CLOEXEC); the caller keeps @p fd and its file status flags are not changed.
 * Same checks and statuses as gpucore_core_open() (a descriptor that is not a regular file is
 * GPUCORE_E_IO); GPUCORE_E_INVAL for a negative or unusable descriptor.
 */
GPUCORE_API gpucore_status_t gpucore_core_open_fd(int fd, const struct gpucore_open_opts *opts,
                                                  gpucore_core_t **ret_core,
                                                  gpucore_diag_t *reterr_diag);

/**
 * Open a core held in memory (borrowed: it must stay valid until close). Same checks and
 * statuses as gpucore_core_open(); used by tests and fuzz targets.
 */
GPUCORE_API gpucore_status_t gpucore_core_open_memory(const void *data, size_t size,
                                                      const struct gpucore_open_opts *opts,
                                                      gpucore_core_t **ret_core,
                                                      gpucore_diag_t *reterr_diag);

/** Memory budget figures of an open core, in bytes (see GPUCORE_MEM_BUDGET_FLOOR). */
struct gpucore_core_mem {
    uint64_t budget; /**< the limit; GPUCORE_MEM_BUDGET_UNLIMITED when off */
    uint64_t used;   /**< charged now */
    uint64_t peak;   /**< the most charged at any time since open */
};

/** Fill @p ret_mem. @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL argument). */
GPUCORE_API gpucore_status_t gpucore_core_mem_get(const gpucore_core_t *core,
                                                  struct gpucore_core_mem *ret_mem);

/**
 * Charge @p bytes that the caller is about to allocate because of this core (structures it
 * builds from the core's contents) to the core's memory budget, so one limit covers the whole
 * reading of an untrusted core. Give them back with gpucore_core_mem_release() when freed.
 * Charges made here may make later reads of compressed cores evict cached frames, or fail with
 * GPUCORE_E_LIMIT when even one frame no longer fits.
 *
 * @param what  what needs the memory, for the message ("the CWSR save areas"); may be NULL.
 * @retval GPUCORE_OK       charged.
 * @retval GPUCORE_E_LIMIT  it does not fit: nothing is charged; the diag says what needed how
 *                          much and what is left.
 * @retval GPUCORE_E_INVAL  NULL core.
 * Not thread-safe, like every call on one core.
 */
GPUCORE_API gpucore_status_t gpucore_core_mem_reserve(gpucore_core_t *core, uint64_t bytes,
                                                      const char *what,
                                                      gpucore_diag_t *reterr_diag);

/** Give back @p bytes charged with gpucore_core_mem_reserve(). Accepts NULL. */
GPUCORE_API void gpucore_core_mem_release(gpucore_core_t *core, uint64_t bytes);

/** Close a core. Accepts NULL. */
GPUCORE_API void gpucore_core_close(gpucore_core_t *core);

/** Fill @p ret_info. @retval GPUCORE_OK, GPUCORE_E_INVAL. */
GPUCORE_API gpucore_status_t gpucore_core_get_info(const gpucore_core_t *core,
                                                   struct gpucore_core_info *ret_info);

/** Number of notes, in file order. */
GPUCORE_API uint32_t gpucore_core_note_count(const gpucore_core_t *core);

/** Note @p index. @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL or index out of range). */
GPUCORE_API gpucore_status_t gpucore_core_note(const gpucore_core_t *core, uint32_t index,
                                               struct gpucore_note *ret_note);

/**
 * First note with this owner and type at or after note @p *inout_index; on success
 * @p *inout_index is the index found (pass index + 1 to continue).
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND, GPUCORE_E_INVAL.
 */
GPUCORE_API gpucore_status_t gpucore_core_find_note(const gpucore_core_t *core, const char *owner,
                                                    uint32_t type, uint32_t *inout_index,
                                                    struct gpucore_note *ret_note);

/** Number of PT_LOAD segments, sorted by address. */
GPUCORE_API uint32_t gpucore_core_segment_count(const gpucore_core_t *core);

/** Segment @p index. @retval GPUCORE_OK, GPUCORE_E_INVAL. */
GPUCORE_API gpucore_status_t gpucore_core_segment(const gpucore_core_t *core, uint32_t index,
                                                  struct gpucore_segment *ret_segment);

/**
 * Read process memory: @p size bytes at virtual address @p addr into @p buf. Segment lookup is a
 * binary search; compressed frames are decoded on demand and cached, each frame a read needs
 * once, several at a time when a read needs several (see "Thread safety" above).
 *
 * @param ret_done optional: bytes copied (all of them on success; on
 *                 GPUCORE_E_UNAVAILABLE, the readable prefix).
 * @retval GPUCORE_OK           all bytes read.
 * @retval GPUCORE_E_UNAVAILABLE some byte is in no segment, or in a segment with p_filesz 0.
 * @retval GPUCORE_E_CORRUPT    a compressed frame fails to decode or its checksum is wrong
 *                              (gpucore_core_errmsg() names the frame and its file offset).
 * @retval GPUCORE_E_TRUNCATED  the file became shorter than it was at open.
 * @retval GPUCORE_E_IO         reading the file failed.
 * @retval GPUCORE_E_LIMIT      a frame does not fit in the memory budget.
 * @retval GPUCORE_E_INVAL      NULL core, or NULL buf with size > 0.
 * @retval GPUCORE_E_NOMEM      out of memory (frame buffer).
 */
GPUCORE_API gpucore_status_t gpucore_core_read(gpucore_core_t *core, uint64_t addr, void *buf,
                                               uint64_t size, uint64_t *ret_done);

/**
 * Read bytes of the logical ELF image (not process memory): used by `gpucore decompress` and
 * tests. Statuses as gpucore_core_read(), with GPUCORE_E_INVAL for a range past the image.
 */
GPUCORE_API gpucore_status_t gpucore_core_read_file(gpucore_core_t *core, uint64_t offset,
                                                    void *buf, uint64_t size);

/**
 * Write the logical ELF image of @p core, byte for byte, to a new file at @p path: plain (with
 * all-zero pages as holes) or, with `opts->compress`, as zstd seekable frames laid out as the
 * writer lays out compressed cores. Used by `gpucore compress` / `gpucore decompress`; works
 * on any core the reader opens, including foreign ones. Publishes atomically like the writer.
 *
 * Only these writer options apply: compress, compress_level, threads, frame_size, flags
 * (GPUCORE_WRITE_OVERWRITE), mode. `kind`, `e_machine`, `max_bytes` and `head_reserve` must be 0.
 *
 * @retval GPUCORE_OK          written and published.
 * @retval GPUCORE_E_INVAL     NULL argument or options out of range.
 * @retval GPUCORE_E_EXIST     @p path exists and GPUCORE_WRITE_OVERWRITE is not set.
 * @retval GPUCORE_E_CORRUPT   a compressed frame of the input fails to decode.
 * @retval GPUCORE_E_TRUNCATED the input became shorter than it was at open.
 * @retval GPUCORE_E_LIMIT     a frame of the input does not fit in its memory budget.
 * @retval GPUCORE_E_IO        reading the input or writing the output failed.
 * @retval GPUCORE_E_CANTCREAT the output cannot be created (its directory is missing or not
 *                             writable).
 * @retval GPUCORE_E_NOMEM     out of memory.
 * Nothing is left under @p path on failure.
 */
GPUCORE_API gpucore_status_t gpucore_core_transcode(gpucore_core_t *core, const char *path,
                                                    const struct gpucore_writer_opts *opts,
                                                    gpucore_diag_t *reterr_diag);

/** Last failure detail of a core handle (empty if none). Owned by @p core. */
GPUCORE_API const char *gpucore_core_errmsg(const gpucore_core_t *core);

/** Number of tolerated deviations found at open (ROCr writer quirks and the like). */
GPUCORE_API uint32_t gpucore_core_quirk_count(const gpucore_core_t *core);

/** Text of quirk @p index, owned by the core; NULL if out of range. */
GPUCORE_API const char *gpucore_core_quirk(const gpucore_core_t *core, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* GPUCORE_CORE_H */
