/* SPDX-License-Identifier: MIT */
/**
 * @file gpucore/schema.h
 * @brief Byte layouts of the notes a gpucore core carries, with explicit little-endian codecs.
 *
 * Two families of notes:
 *
 *  - The **AMDGPU core-state note** (owner "AMDGPU", type 33, `NT_AMDGPU_KFD_CORE_STATE`): AMD's
 *    format, byte-compatible with what ROCdbgapi writes and reads. See schema/FORMAT.md part A.
 *  - **gpucore extension notes** (owner "GPUCORE"): capture metadata, capture manifest, embedded
 *    code objects and the allocation map. Each descriptor starts with the same self-describing
 *    header (::gpucore_note_header) so older readers skip what they do not know. See
 *    schema/FORMAT.md part B.
 *
 * Codecs work on note *descriptors* (the bytes after the ELF note name), never on the ELF note
 * envelope, and never touch files. Decoders validate every size before use and report the byte
 * offset of the first problem in `reterr_diag`.
 *
 * Ownership: `*_decode` functions return one heap object that owns everything it points to
 * (arrays, NUL-terminated string copies, embedded bytes); free it with the matching `*_free`,
 * which accepts NULL. `*_encode` functions return a buffer the caller frees with
 * gpucore_free(). Output parameters are written only on success.
 *
 * Thread safety: all functions are reentrant; no global state.
 */
#ifndef GPUCORE_SCHEMA_H
#define GPUCORE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Free a buffer returned by a gpucore function. Accepts NULL. */
GPUCORE_API void gpucore_free(void *p);

/* ============================================================================================ */
/* Part A: the AMDGPU core-state note                                                           */
/* ============================================================================================ */

#define GPUCORE_AMDGPU_NOTE_OWNER "AMDGPU"
#define GPUCORE_NT_AMDGPU_KFD_CORE_STATE 33u
/** The leading u64 of the descriptor; the only value AMD's reader accepts. */
#define GPUCORE_AMDGPU_NOTE_VERSION 1u

/** Wire sizes of the KFD 1.13+ structures. */
#define GPUCORE_KFD_RUNTIME_INFO_SIZE 16u
#define GPUCORE_KFD_DEVICE_ENTRY_SIZE 120u
#define GPUCORE_KFD_QUEUE_ENTRY_SIZE 64u
/** Device entry size once `capability2` is added (accepted on read, never written). */
#define GPUCORE_KFD_DEVICE_ENTRY_SIZE_CAP2 128u
/** Bytes before the runtime info: u64 version, u32 major, u32 minor, u64 runtime size, 4 x u32. */
#define GPUCORE_AMDGPU_NOTE_HEADER_SIZE 40u

/** `kfd_runtime_info.runtime_state` values. */
#define GPUCORE_KFD_RUNTIME_DISABLED 0u
#define GPUCORE_KFD_RUNTIME_ENABLED 1u
#define GPUCORE_KFD_RUNTIME_ENABLED_BUSY 2u
#define GPUCORE_KFD_RUNTIME_ENABLED_ERROR 3u

/** `capability` bits AMD's reader looks at (HSA_CAP_*). */
#define GPUCORE_HSA_CAP_WATCH_POINTS_SUPPORTED 0x80u
#define GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_MASK 0xF00u
#define GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT 8u
#define GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT 0x8000u
#define GPUCORE_HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED 0x40000u
#define GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED 0x20000000u
#define GPUCORE_HSA_CAP_TRAP_DEBUG_PRECISE_ALU_OPERATIONS_SUPPORTED 0x40000000u

/** `debug_prop` bits (HSA_DBG_*). */
#define GPUCORE_HSA_DBG_WATCH_ADDR_MASK_LO_MASK 0xFu
#define GPUCORE_HSA_DBG_WATCH_ADDR_MASK_HI_MASK 0x3F0u
#define GPUCORE_HSA_DBG_DISPATCH_INFO_ALWAYS_VALID 0x400u
#define GPUCORE_HSA_DBG_WATCHPOINTS_EXCLUSIVE 0x800u

/** `queue_type` values (KFD_IOC_QUEUE_TYPE_*). */
#define GPUCORE_KFD_QUEUE_TYPE_COMPUTE 0u
#define GPUCORE_KFD_QUEUE_TYPE_SDMA 1u
#define GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL 2u
#define GPUCORE_KFD_QUEUE_TYPE_SDMA_XGMI 3u
#define GPUCORE_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID 4u

/** `kfd_runtime_info` (16 bytes on the wire). */
typedef struct gpucore_kfd_runtime_info {
    uint64_t r_debug;       /**< address of ROCr's `_amdgpu_r_debug` */
    uint32_t runtime_state; /**< GPUCORE_KFD_RUNTIME_* */
    uint32_t ttmp_setup;    /**< 1 if SPI set up the trap temporaries */
} gpucore_kfd_runtime_info_t;

/** `kfd_dbg_device_info_entry` (120 bytes on the wire; 128 with capability2). */
typedef struct gpucore_kfd_device_entry {
    uint64_t exception_status;
    uint64_t lds_base;
    uint64_t lds_limit;
    uint64_t scratch_base;
    uint64_t scratch_limit;
    uint64_t gpuvm_base;
    uint64_t gpuvm_limit;
    uint32_t gpu_id;
    uint32_t location_id;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t revision_id;
    uint32_t subsystem_vendor_id;
    uint32_t subsystem_device_id;
    uint32_t fw_version;
    uint32_t gfx_target_version; /**< decimal MMmmss, e.g. 90010 for gfx90a */
    uint32_t simd_count;
    uint32_t max_waves_per_simd;
    uint32_t array_count; /**< per XCC */
    uint32_t simd_arrays_per_engine;
    uint32_t num_xcc;
    uint32_t capability; /**< GPUCORE_HSA_CAP_* */
    uint32_t debug_prop; /**< GPUCORE_HSA_DBG_* */
    uint32_t capability2; /**< only in 128-byte entries; 0 otherwise */
} gpucore_kfd_device_entry_t;

/** The queue id in gpucore_kfd_queue_entry_t::queue_id; the bits above it are the driver's
    status flags (GPUCORE_KFD_QUEUE_ERROR_BIT, GPUCORE_KFD_QUEUE_INVALID_BIT). */
#define GPUCORE_KFD_QUEUE_ID_MASK 0x3fffffffu
#define GPUCORE_KFD_QUEUE_ERROR_BIT (1u << 30)   /**< the queue had an error */
#define GPUCORE_KFD_QUEUE_INVALID_BIT (1u << 31) /**< the id named no queue */

/** `kfd_queue_snapshot_entry` (64 bytes on the wire). */
typedef struct gpucore_kfd_queue_entry {
    uint64_t exception_status;
    uint64_t ring_base_address;
    uint64_t write_pointer_address; /**< &amd_queue_t.write_dispatch_id */
    uint64_t read_pointer_address;  /**< &amd_queue_t.read_dispatch_id */
    uint64_t ctx_save_restore_address;
    uint32_t queue_id; /**< GPUCORE_KFD_QUEUE_ID_MASK; bits 31/30 are KFD invalid/error flags */
    uint32_t gpu_id;
    uint32_t ring_size; /**< bytes */
    uint32_t queue_type; /**< GPUCORE_KFD_QUEUE_TYPE_* */
    uint32_t ctx_save_restore_area_size; /**< per XCC */
    uint32_t reserved;
} gpucore_kfd_queue_entry_t;

/** gpucore_amdgpu_note_t::flags, set by the decoder. */
#define GPUCORE_AMDGPU_NOTE_NEWER 0x1u /**< entries larger than known, with non-zero extra bytes */

/** The decoded AMDGPU note. */
typedef struct gpucore_amdgpu_note {
    uint64_t note_version; /**< always GPUCORE_AMDGPU_NOTE_VERSION after a successful decode */
    uint32_t kfd_major;
    uint32_t kfd_minor;
    /** Entry sizes as stored (decode) or to write (encode; 0 selects the KFD 1.13+ size). */
    uint64_t runtime_info_size;
    uint32_t agent_entry_size;
    uint32_t queue_entry_size;
    gpucore_kfd_runtime_info_t runtime;
    uint32_t agent_count;
    uint32_t queue_count;
    gpucore_kfd_device_entry_t *agents; /**< agent_count entries */
    gpucore_kfd_queue_entry_t *queues;  /**< queue_count entries */
    uint32_t flags;                     /**< GPUCORE_AMDGPU_NOTE_* */
} gpucore_amdgpu_note_t;

/**
 * Decode an AMDGPU note descriptor with the rules of AMD's reader, plus gpucore's stricter ones.
 *
 * Accepted: note version 1; `runtime_info_size`, `agent_entry_size` and `queue_entry_size`
 * multiples of 8 and at least the KFD 1.13 sizes (16, 120, 64); each entry decoded from
 * `min(stored, known)` bytes and strided by the stored size; the last entry ending exactly at
 * @p size. Larger entries are accepted (GPUCORE_AMDGPU_NOTE_NEWER if their extra bytes are
 * non-zero); a 128-byte device entry yields `capability2`.
 *
 * Semantic rules that AMD's reader applies later (KFD version window, runtime state, node
 * properties, gpu_id matching) are *not* checked here; see gpucore_amdgpu_note_check().
 *
 * @param desc      descriptor bytes (borrowed).
 * @param size      descriptor size (`n_descsz`).
 * @param ret_note  on success, a new note; free with gpucore_amdgpu_note_free().
 * @param reterr_diag optional failure detail; offsets are relative to @p desc.
 * @retval GPUCORE_OK          decoded.
 * @retval GPUCORE_E_INVAL     @p desc or @p ret_note is NULL.
 * @retval GPUCORE_E_TRUNCATED the descriptor ends before a field or entry it announces.
 * @retval GPUCORE_E_CORRUPT   a size is not a multiple of 8, is below the KFD 1.13 layout, or
 *                             bytes follow the last queue entry.
 * @retval GPUCORE_E_VERSION   the leading version is not 1.
 * @retval GPUCORE_E_LIMIT     an entry size above 4096 bytes or a count above 65536.
 * @retval GPUCORE_E_NOMEM     out of memory.
 */
GPUCORE_API gpucore_status_t gpucore_amdgpu_note_decode(const void *desc, size_t size,
                                                        gpucore_amdgpu_note_t **ret_note,
                                                        gpucore_diag_t *reterr_diag);

/** Free a note from gpucore_amdgpu_note_decode(). Accepts NULL. */
GPUCORE_API void gpucore_amdgpu_note_free(gpucore_amdgpu_note_t *note);

/**
 * Encode an AMDGPU note descriptor exactly as ROCdbgapi's `create_core_state_note` lays it out:
 * u64 version 1, the header, runtime info, device entries, queue entries, nothing after.
 *
 * Entry sizes come from the note (0 selects 16 / 120 / 64); a size larger than the known
 * structure is zero-filled past the known fields. `note_version` is ignored (always 1).
 * `capability2` is written only into device entries of at least 128 bytes.
 *
 * @param note      the note to encode (borrowed).
 * @param ret_desc  on success, the descriptor bytes; free with gpucore_free().
 * @param ret_size  on success, their size (the future `n_descsz`).
 * @retval GPUCORE_OK       encoded.
 * @retval GPUCORE_E_INVAL  NULL argument, an entry size not a multiple of 8, below the known
 *                          size or above 4096, a count above 65536, a non-zero count with a
 *                          NULL array, or a descriptor above 4 GiB.
 * @retval GPUCORE_E_NOMEM  out of memory.
 */
GPUCORE_API gpucore_status_t gpucore_amdgpu_note_encode(const gpucore_amdgpu_note_t *note,
                                                        void **ret_desc, size_t *ret_size,
                                                        gpucore_diag_t *reterr_diag);

/**
 * Check the semantic rules AMD's debugger library applies after parsing (docs/core-format.md 7.1
 * step 6 and 7.2): KFD major 1 and 1.13 <= version < 2.0; `runtime_state` == ENABLED; non-zero
 * `simd_count`, `max_waves_per_simd`, `array_count`, `simd_arrays_per_engine` and `num_xcc`;
 * every queue's `gpu_id` names an agent; unique agent gpu_ids.
 *
 * A core that fails these still opens in gpucore; AMD's library would show no GPU state (or
 * fail fatally for an unknown gpu_id). Use this to warn.
 *
 * @retval GPUCORE_OK        every rule holds.
 * @retval GPUCORE_E_VERSION the KFD version is outside [1.13, 2.0).
 * @retval GPUCORE_E_CORRUPT another rule fails; @p reterr_diag names it (the offset is the
 *                           descriptor offset of the offending field).
 * @retval GPUCORE_E_INVAL   @p note is NULL, or a non-zero count comes with a NULL array.
 * @retval GPUCORE_E_NOMEM   out of memory (the gpu_id rules sort a copy of the ids).
 */
GPUCORE_API gpucore_status_t gpucore_amdgpu_note_check(const gpucore_amdgpu_note_t *note,
                                                       gpucore_diag_t *reterr_diag);

/**
 * Name of the gfx target for a decimal `gfx_target_version` ("gfx90a" for 90010): major =
 * v / 10000, minor = (v / 100) % 100, stepping = v % 100, with minor and stepping >= 10 written
 * as letters. Writes at most @p size bytes including the NUL.
 *
 * @retval GPUCORE_OK        written.
 * @retval GPUCORE_E_INVAL   NULL buffer, or minor/stepping >= 36 (not expressible).
 * @retval GPUCORE_E_LIMIT   @p size too small.
 */
GPUCORE_API gpucore_status_t gpucore_gfx_target_name(uint32_t gfx_target_version, char *buf,
                                                     size_t size);

/* ============================================================================================ */
/* Part B: gpucore extension notes (owner "GPUCORE")                                            */
/* ============================================================================================ */

#define GPUCORE_NOTE_OWNER "GPUCORE"

/**
 * Note types under owner "GPUCORE". Values are on disk: append only.
 *
 * They are 0x4743xxxx ("GC") rather than small integers on purpose: BFD (gdb), eu-readelf and
 * llvm-readelf interpret core-file note types 1-6 as NT_PRSTATUS, NT_FPREGSET, NT_PRPSINFO...
 * whatever the owner name, so a GPUCORE note of type 2 made gdb read our manifest as a
 * thread's floating-point registers.
 */
#define GPUCORE_NT_CAPTURE_META 0x47430001u /**< capture metadata, one record */
#define GPUCORE_NT_MANIFEST 0x47430002u     /**< every address range captured or skipped */
#define GPUCORE_NT_CODE_OBJECTS 0x47430003u /**< code objects with embedded bytes */
#define GPUCORE_NT_ALLOC_MAP 0x47430004u    /**< GPU allocations */

/** Size of the common header as written by format 1.0. */
#define GPUCORE_NOTE_HEADER_SIZE 28u
/** Major format version of every GPUCORE note this library writes and reads. */
#define GPUCORE_NOTE_MAJOR 1u
/** A string or blob reference that means "absent". */
#define GPUCORE_REF_NONE UINT32_MAX

/**
 * The common header of every GPUCORE note descriptor (all fields little-endian u32).
 *
 * After `header_size` bytes come `record_count` records of `record_size` bytes, then the
 * *heap*: the rest of the descriptor, holding length-prefixed UTF-8 strings and blobs that
 * records refer to by heap offset.
 */
typedef struct gpucore_note_header {
    uint32_t major;        /**< readers refuse a major they do not know */
    uint32_t minor;        /**< new optional fields or records; readers ignore extras */
    uint32_t header_size;  /**< >= 28; readers skip an unknown tail */
    uint32_t incompat;     /**< feature bits a reader must understand */
    uint32_t compat;       /**< feature bits a reader may ignore */
    uint32_t record_size;  /**< bytes per record as written; readers stride by it */
    uint32_t record_count;
} gpucore_note_header_t;

/**
 * Decode and check the common header.
 *
 * @retval GPUCORE_OK         decoded; records and heap fit in @p size.
 * @retval GPUCORE_E_INVAL    NULL argument.
 * @retval GPUCORE_E_TRUNCATED @p size is below 28, below `header_size`, or below the records.
 * @retval GPUCORE_E_CORRUPT  `header_size` < 28, or `header_size` or `record_size` not a
 *                            multiple of 4.
 * @retval GPUCORE_E_VERSION  `major` is not GPUCORE_NOTE_MAJOR, or `incompat` has unknown bits.
 */
GPUCORE_API gpucore_status_t gpucore_note_header_decode(const void *desc, size_t size,
                                                        gpucore_note_header_t *ret_header,
                                                        gpucore_diag_t *reterr_diag);

/**
 * A string from a GPUCORE note: UTF-8, `len` bytes, NUL-terminated copy at `ptr` (`ptr` is
 * never NULL after decode; an absent string decodes as "" with `len` 0). May contain NUL bytes
 * (the command line uses them as separators), so use `len`, not strlen().
 * For encoding, `ptr` == NULL means absent.
 */
typedef struct gpucore_str {
    const char *ptr;
    uint32_t len;
} gpucore_str_t;

/** Decoder result flag common to the GPUCORE note objects below. */
#define GPUCORE_NOTE_DECODED_NEWER 0x1u /**< larger header/records with non-zero unknown bytes */

/* --- capture metadata (GPUCORE_NT_CAPTURE_META) --------------------------------------------- */

/** What started the capture. */
#define GPUCORE_TRIGGER_UNKNOWN 0u
#define GPUCORE_TRIGGER_ON_DEMAND 1u   /**< `gpucore capture PID` */
#define GPUCORE_TRIGGER_QUEUE_ERROR 2u /**< a queue exception (`run`, `watch`) */
#define GPUCORE_TRIGGER_MEMORY_VIOLATION 3u
#define GPUCORE_TRIGGER_HANG 4u        /**< a watchdog or user asked for a hang snapshot */
#define GPUCORE_TRIGGER_SYNTHETIC 5u   /**< written by a program, not from a live process */

/** Memory tiers, cumulative: each includes the ones before it. */
#define GPUCORE_TIER_STATE 0u
#define GPUCORE_TIER_SCRATCH 1u
#define GPUCORE_TIER_REFERENCED 2u
#define GPUCORE_TIER_ALL 3u
#define GPUCORE_TIER_HOST 4u /**< host memory (not a GPU tier; used in the manifest) */

/** gpucore_capture_meta_t::flags */
#define GPUCORE_META_HOST_STOPPED 0x1u     /**< every host thread was stopped */
#define GPUCORE_META_QUEUES_SUSPENDED 0x2u /**< every queue was suspended when read */
#define GPUCORE_META_PRECISE_MEMORY 0x4u   /**< precise memory mode was on: PCs are exact */
#define GPUCORE_META_UID_KNOWN 0x8u        /**< 1.4: uid holds the target's real user id */

/** Capture metadata: one record. */
typedef struct gpucore_capture_meta {
    uint64_t time_ns;     /**< capture start, ns since the Unix epoch (UTC) */
    uint64_t duration_ns; /**< capture wall time */
    uint32_t pid;
    uint32_t trigger;     /**< GPUCORE_TRIGGER_* */
    uint32_t tier;        /**< GPUCORE_TIER_* requested */
    uint32_t flags;       /**< GPUCORE_META_* */
    uint64_t max_size;    /**< size budget in bytes, 0 = none */
    uint64_t deadline_ms; /**< time budget, 0 = none */
    uint32_t kfd_major;   /**< KFD version the kernel reported; 0 = unknown */
    uint32_t kfd_minor;
    uint32_t kfd_device_entry_size; /**< entry_size KFD returned for device snapshots */
    uint32_t kfd_queue_entry_size;  /**< entry_size KFD returned for queue snapshots */
    uint32_t signal;                /**< host signal involved, 0 = none */
    int32_t compress_level;         /**< zstd level used, 0 = not compressed */
    gpucore_str_t producer;         /**< "gpucore" */
    gpucore_str_t producer_version; /**< "0.1.0" */
    gpucore_str_t hostname;
    gpucore_str_t kernel;  /**< uname -r */
    gpucore_str_t exe;     /**< target executable path */
    gpucore_str_t cmdline; /**< arguments separated by NUL bytes, as /proc/PID/cmdline */
    gpucore_str_t options; /**< capture options, as text */
    uint32_t decoded_flags; /**< GPUCORE_NOTE_DECODED_* (decode only) */
    /* Format 1.1 (0 when decoding a 1.0 record): */
    uint32_t exception_code;     /**< KFD exception code that triggered the capture; 0 = none */
    uint32_t exception_gpu_id;   /**< device it was raised on; 0 = none */
    uint32_t exception_queue_id; /**< KFD queue id; 0xffffffff = device/process exception */
    uint64_t fault_address;      /**< memory violation: faulting address; 0 = unknown */
    /* Format 1.2 (0 when decoding an older record): */
    uint32_t fault_reasons;      /**< memory violation: GPUCORE_FAULT_* bits; 0 = unknown */
    /* Format 1.3 (0 when decoding an older record): */
    uint32_t error_thread;       /**< host thread id (tid) on which the runtime reported the GPU
                                      error (the runtime hook's thread); 0 = unknown. The core's
                                      host notes list that thread first. */
    /* Format 1.4 (0 / empty when decoding an older record): */
    uint32_t uid;        /**< the target's real user id, when flags has GPUCORE_META_UID_KNOWN */
    gpucore_str_t job;   /**< job id from the target's environment (as %j); empty = none */
    gpucore_str_t rank;  /**< rank from the target's environment (as %r); empty = none */
} gpucore_capture_meta_t;

/** gpucore_capture_meta_t::fault_reasons: why a memory violation faulted. The bits are those
 *  of the ROCm runtime's hsa_amd_memory_fault_reason_t; the driver's four failure flags (not
 *  present, read-only, no-execute, imprecise) map onto the first three and IMPRECISE. */
#define GPUCORE_FAULT_PAGE_NOT_PRESENT 0x1u  /**< the page is not mapped */
#define GPUCORE_FAULT_READ_ONLY        0x2u  /**< a write to a read-only page */
#define GPUCORE_FAULT_NO_EXECUTE       0x4u  /**< an instruction fetch from a no-execute page */
#define GPUCORE_FAULT_HOST_ONLY        0x8u  /**< GPU access to host-only memory */
#define GPUCORE_FAULT_DRAM_ECC         0x10u /**< an uncorrectable DRAM ECC error */
#define GPUCORE_FAULT_IMPRECISE        0x20u /**< the address may not be the exact one */
#define GPUCORE_FAULT_SRAM_ECC         0x40u /**< an uncorrectable SRAM ECC error */
#define GPUCORE_FAULT_HANG             0x80000000u /**< the GPU hung (a reset) */

/* --- capture manifest (GPUCORE_NT_MANIFEST) -------------------------------------------------- */

/** gpucore_manifest_entry_t::status */
#define GPUCORE_RANGE_CAPTURED 1u   /**< bytes are in the core */
#define GPUCORE_RANGE_SKIPPED 2u    /**< deliberately left out; see reason */
#define GPUCORE_RANGE_UNREADABLE 3u /**< reading it failed */

/** gpucore_manifest_entry_t::reason (why a range is not captured) */
#define GPUCORE_REASON_NONE 0u
#define GPUCORE_REASON_TIER 1u     /**< its tier was not requested */
#define GPUCORE_REASON_BUDGET 2u   /**< the size budget was exhausted */
#define GPUCORE_REASON_DEADLINE 3u /**< the time budget was exhausted */
#define GPUCORE_REASON_IO_ERROR 4u /**< the read failed (EIO, EFAULT, ...) */
#define GPUCORE_REASON_POLICY 5u   /**< excluded by an option (privacy, filter) */
#define GPUCORE_REASON_SPECIAL 6u  /**< a mapping that must not be read (doorbells, MMIO) */
#define GPUCORE_REASON_REDACTED 7u /**< 1.5: user data withheld by --redact (status SKIPPED) */

/** gpucore_manifest_t::flags */
#define GPUCORE_MANIFEST_TRUNCATED 0x1u /**< a budget stopped the capture early */
#define GPUCORE_MANIFEST_REDACTED 0x2u  /**< 1.5: user data withheld (ranges with reason REDACTED) */
#define GPUCORE_MANIFEST_NO_HOST_MEMORY 0x4u /**< 1.5: host memory left out but stacks (--no-host-memory) */

typedef struct gpucore_manifest_entry {
    uint64_t address;
    uint64_t size;
    uint32_t tier;   /**< GPUCORE_TIER_* */
    uint32_t status; /**< GPUCORE_RANGE_* */
    uint32_t reason; /**< GPUCORE_REASON_* */
    uint32_t err;    /**< errno of a failed read, else 0 */
    gpucore_str_t label; /**< what the range is ("AQL ring, queue 3") */
} gpucore_manifest_entry_t;

typedef struct gpucore_manifest {
    uint32_t flags;             /**< GPUCORE_MANIFEST_* */
    uint32_t truncation_reason; /**< GPUCORE_REASON_* that stopped the capture, else 0 */
    uint32_t count;
    gpucore_manifest_entry_t *entries;
    uint32_t decoded_flags; /**< GPUCORE_NOTE_DECODED_* (decode only) */
} gpucore_manifest_t;

/* --- code objects (GPUCORE_NT_CODE_OBJECTS) -------------------------------------------------- */

/** gpucore_code_object_t::flags */
#define GPUCORE_CODE_OBJECT_EMBEDDED 0x1u  /**< `bytes` holds the whole code object */
#define GPUCORE_CODE_OBJECT_TRUNCATED 0x2u /**< `bytes` holds only a prefix */

typedef struct gpucore_code_object {
    uint64_t load_address; /**< `l_addr` from the runtime's link map */
    uint64_t size;         /**< size of the code object, embedded or not */
    uint32_t flags;        /**< GPUCORE_CODE_OBJECT_* */
    gpucore_str_t uri;     /**< the URI exactly as the runtime wrote it */
    const uint8_t *bytes;  /**< embedded bytes or NULL */
    uint64_t bytes_size;
} gpucore_code_object_t;

typedef struct gpucore_code_objects {
    uint32_t count;
    gpucore_code_object_t *objects;
    uint32_t decoded_flags;
} gpucore_code_objects_t;

/* --- allocation map (GPUCORE_NT_ALLOC_MAP) --------------------------------------------------- */

/** gpucore_alloc_t::kind */
#define GPUCORE_ALLOC_UNKNOWN 0u
#define GPUCORE_ALLOC_VRAM 1u
#define GPUCORE_ALLOC_GTT 2u
#define GPUCORE_ALLOC_USERPTR 3u /**< host memory registered with the GPU */
#define GPUCORE_ALLOC_SCRATCH 4u
#define GPUCORE_ALLOC_CWSR 5u
#define GPUCORE_ALLOC_RING 6u
#define GPUCORE_ALLOC_CODE 7u
#define GPUCORE_ALLOC_KERNARG 8u
#define GPUCORE_ALLOC_DOORBELL 9u
#define GPUCORE_ALLOC_MMIO 10u

typedef struct gpucore_alloc {
    uint64_t base;
    uint64_t size;
    uint32_t kind;   /**< GPUCORE_ALLOC_* */
    uint32_t gpu_id; /**< owning agent's gpu_id, 0 = none or host */
    uint32_t flags;  /**< reserved, 0 */
    gpucore_str_t label;
} gpucore_alloc_t;

typedef struct gpucore_alloc_map {
    uint32_t count;
    gpucore_alloc_t *allocs;
    uint32_t decoded_flags;
} gpucore_alloc_map_t;

/*
 * Codecs. Every decoder:
 *  - checks the common header (gpucore_note_header_decode());
 *  - refuses a record_size below the format 1.0 record size (GPUCORE_E_CORRUPT);
 *  - decodes min(record_size, known) bytes per record and strides by record_size;
 *  - resolves string and blob references inside the heap, refusing references outside it,
 *    string lengths past its end, and invalid UTF-8 (GPUCORE_E_CORRUPT);
 *  - for CAPTURE_META, requires record_count == 1;
 *  - for CODE_OBJECTS, requires the blob to agree with the flags (EMBEDDED: blob_size == size;
 *    TRUNCATED: blob_size < size; neither: blob_offset and blob_size 0) (GPUCORE_E_CORRUPT);
 *  - sets GPUCORE_NOTE_DECODED_NEWER for a newer minor, compat bits, unknown flag bits, or
 *    non-zero reserved fields or unknown header/record tails.
 * Statuses: GPUCORE_OK, GPUCORE_E_INVAL (NULL argument), GPUCORE_E_TRUNCATED, GPUCORE_E_CORRUPT,
 * GPUCORE_E_VERSION, GPUCORE_E_LIMIT (more than 16M records, a string above 16 MiB, or string
 * and blob references that together cover more than the heap), GPUCORE_E_NOMEM.
 * The decoded object is one allocation of at most GPUCORE_NOTE_DECODED_MAX(size) bytes, whatever
 * the counts in the descriptor claim: a record count is bounded by the bytes that hold the
 * records, and string and blob copies by the heap. Callers reading an untrusted core can charge
 * that much to the core's memory budget first (gpucore_core_mem_reserve()).
 *
 * Every encoder writes format 1.<current minor>, zero-fills padding, and refuses
 * (GPUCORE_E_INVAL) strings that are not valid UTF-8 or longer than 16 MiB, a NULL string with a
 * non-zero length, a NULL array with a non-zero count, more than 16M records, code objects whose
 * bytes disagree with their flags, and descriptors above 4 GiB. Empty strings are written as
 * absent. Statuses: GPUCORE_OK, GPUCORE_E_INVAL, GPUCORE_E_NOMEM.
 */
/**
 * Most bytes a decoder allocates for a descriptor of @p size bytes: host records are at most
 * 1.5 times their smallest encoded size, copies of strings and blobs at most the heap, plus a
 * fixed top object.
 */
#define GPUCORE_NOTE_DECODED_MAX(size) ((uint64_t)(size) + (uint64_t)(size) / 2 + 256u)

GPUCORE_API gpucore_status_t gpucore_capture_meta_encode(const gpucore_capture_meta_t *meta,
                                                         void **ret_desc, size_t *ret_size,
                                                         gpucore_diag_t *reterr_diag);
GPUCORE_API gpucore_status_t gpucore_capture_meta_decode(const void *desc, size_t size,
                                                         gpucore_capture_meta_t **ret_meta,
                                                         gpucore_diag_t *reterr_diag);
GPUCORE_API void gpucore_capture_meta_free(gpucore_capture_meta_t *meta);

GPUCORE_API gpucore_status_t gpucore_manifest_encode(const gpucore_manifest_t *manifest,
                                                     void **ret_desc, size_t *ret_size,
                                                     gpucore_diag_t *reterr_diag);
GPUCORE_API gpucore_status_t gpucore_manifest_decode(const void *desc, size_t size,
                                                     gpucore_manifest_t **ret_manifest,
                                                     gpucore_diag_t *reterr_diag);
GPUCORE_API void gpucore_manifest_free(gpucore_manifest_t *manifest);

GPUCORE_API gpucore_status_t gpucore_code_objects_encode(const gpucore_code_objects_t *objects,
                                                         void **ret_desc, size_t *ret_size,
                                                         gpucore_diag_t *reterr_diag);
GPUCORE_API gpucore_status_t gpucore_code_objects_decode(const void *desc, size_t size,
                                                         gpucore_code_objects_t **ret_objects,
                                                         gpucore_diag_t *reterr_diag);
GPUCORE_API void gpucore_code_objects_free(gpucore_code_objects_t *objects);

GPUCORE_API gpucore_status_t gpucore_alloc_map_encode(const gpucore_alloc_map_t *map,
                                                      void **ret_desc, size_t *ret_size,
                                                      gpucore_diag_t *reterr_diag);
GPUCORE_API gpucore_status_t gpucore_alloc_map_decode(const void *desc, size_t size,
                                                      gpucore_alloc_map_t **ret_map,
                                                      gpucore_diag_t *reterr_diag);
GPUCORE_API void gpucore_alloc_map_free(gpucore_alloc_map_t *map);

/**
 * Names for enum-like values, for text and JSON output. Each returns a static string, or NULL
 * for a value this version does not know (callers print the number then).
 */
GPUCORE_API const char *gpucore_trigger_name(uint32_t trigger);
GPUCORE_API const char *gpucore_tier_name(uint32_t tier);
GPUCORE_API const char *gpucore_range_status_name(uint32_t status);
GPUCORE_API const char *gpucore_reason_name(uint32_t reason);
GPUCORE_API const char *gpucore_alloc_kind_name(uint32_t kind);
GPUCORE_API const char *gpucore_note_type_name(uint32_t type); /**< GPUCORE_NT_* */
GPUCORE_API const char *gpucore_runtime_state_name(uint32_t state); /**< GPUCORE_KFD_RUNTIME_* */
GPUCORE_API const char *gpucore_queue_type_name(uint32_t type);  /**< GPUCORE_KFD_QUEUE_TYPE_* */

/**
 * Walk the named bits and fields of the AMDGPU device `capability` (GPUCORE_HSA_CAP_*) and
 * `debug_prop` (GPUCORE_HSA_DBG_*) words: entry @p index (0, 1, ...) returns its name and, if
 * @p ret_mask is non-NULL, its mask (a single bit, or several bits for a multi-bit field).
 * Returns NULL past the last entry.
 */
GPUCORE_API const char *gpucore_capability_flag(uint32_t index, uint32_t *ret_mask);
GPUCORE_API const char *gpucore_debug_prop_flag(uint32_t index, uint32_t *ret_mask);

#ifdef __cplusplus
}
#endif

#endif /* GPUCORE_SCHEMA_H */
