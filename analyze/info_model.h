/* SPDX-License-Identifier: MIT */
/*
 * The model of `gpucore info`: one JSON document (schema "gpucore.info/1") that describes a
 * core as the container and its notes say it is. `gpucore info` prints it (--json) or renders
 * it as text (cli/cmd_info.c), so the two outputs can never disagree. The triage report's model
 * lives beside it (triage.h); this one needs no process image, only the core and its notes.
 *
 * The document's members (JSON conventions of gc_json.h: addresses, masks and exception words
 * "0x..." strings, sizes and counts integers, absent data null):
 *   schema        "gpucore.info/1"
 *   file          {path, kind, e_machine, machine, osabi, abiversion, e_flags, compressed,
 *                  frames, file_truncated, file_size, logical_size, program_headers, quirks}
 *                 kind is one of GC_INFO_KIND_* below
 *   notes         [{owner, type, name, size, offset}]
 *   amdgpu        null (no NT_AMDGPU_KFD_CORE_STATE note), {note_offset, size, error} (it
 *                 cannot be decoded), or the decoded note: {note_offset, size, note_version,
 *                 kfd_major, kfd_minor, runtime_info_size, agent_entry_size, queue_entry_size,
 *                 newer_than_reader, runtime, agents, queues, amd_reader_check}
 *   capture, manifest, code_objects, allocations   null without the gpucore note, {error}
 *                 when it cannot be decoded, else its contents
 *   segments      {count, file_bytes, memory_bytes, not_dumped, lowest, highest, list}
 *   problems      [sentences a user should know]
 */
#ifndef GC_ANALYZE_INFO_MODEL_H
#define GC_ANALYZE_INFO_MODEL_H

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

#include "info_keys.h" /* the members read back: GC_IK_* */

#define GC_INFO_SCHEMA "gpucore.info/1"

/* file.kind: what the core is, from its ELF header and whether it holds GPU state. */
#define GC_INFO_KIND_HOST    "host"    /* a host ELF core without an AMDGPU core-state note
                                          (the kernel's, gcore's): no GPU state */
#define GC_INFO_KIND_UNIFIED "unified" /* a host ELF core with the AMDGPU note: host and GPU */
#define GC_INFO_KIND_SPLIT   "split"   /* EM_AMDGPU: the GPU part only (the ROCm runtime's
                                          gpucore.PID); its host memory is another file */

/*
 * What the model costs per record a core lists (a manifest range, a code object, an
 * allocation, a segment): a JSON object of about eight members with jansson's hash table and
 * strings is 0.6-1 KiB. It is charged to the core's memory budget, with the decoded note
 * (GPUCORE_NOTE_DECODED_MAX), before the record is built, so a small core that lists millions
 * of records is refused with the budget's message rather than taking gigabytes.
 */
#define GC_INFO_JSON_RECORD_COST 1024u

/* Room for gc_info.unusable: an offset, a sentence and the decoder's message. */
#define GC_INFO_UNUSABLE_SIZE (GPUCORE_DIAG_MESSAGE_SIZE + 128)

/* A built model. Owned by the caller; release it with gc_info_free(). */
struct gc_info {
    json_t *doc; /* the document above */
    /* Why the AMDGPU state cannot be used ("offset 0x...: the AMDGPU note cannot be decoded:
       ..." or "...: AMD's debugger library would not use the AMDGPU state: ..."): "" when it
       can, or when the core has none. The document is complete either way; the program
       prints it, then this, and exits 65. */
    char unusable[GC_INFO_UNUSABLE_SIZE];
};

/*
 * Build the model of @p core (open, read-only for the model except for its memory budget,
 * which the model's records are charged to and never given back while the core is open);
 * @p path is what file.path says. On success *ret holds a new document.
 *
 * @retval GPUCORE_OK       *ret is filled (a malformed note is described in the document,
 *                          not a failure).
 * @retval GPUCORE_E_LIMIT  the model does not fit the core's memory budget
 *                          (gpucore_core_mem_reserve()); *reterr_diag says what needed how
 *                          much; *ret is empty.
 * @retval GPUCORE_E_NOMEM  the document cannot be allocated; *ret is empty.
 * @retval GPUCORE_E_INVAL  a NULL argument.
 * @p reterr_diag may be NULL. The core is not thread-safe: one call at a time on it.
 */
gpucore_status_t gc_info_build(gpucore_core_t *core, const char *path, struct gc_info *ret,
                               gpucore_diag_t *reterr_diag);

/* Release what gc_info_build() filled in; accepts NULL and an empty struct. */
void gc_info_free(struct gc_info *info);

#endif /* GC_ANALYZE_INFO_MODEL_H */
