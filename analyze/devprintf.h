/* SPDX-License-Identifier: MIT */
/*
 * The device printf buffer of an OpenCL kernel on AMDGPU (docs/device-printf.md): the formats
 * of a code object's "amdhsa.printf" metadata (kernargs.h keeps them undecoded) and the records
 * a dispatch's kernel wrote into its printf buffer (the hidden_printf_buffer argument), walked
 * and formatted into messages.
 *
 * The buffer: an 8-byte header (u32 at +0 the bytes of records the kernels wrote after it, u32
 * at +4 the buffer's size as the runtime allocated it), then records back to back, each a u32
 * printf id (1-based, the format's) and the arguments' bytes, as many as the format's entry says.
 * A format entry is "ID:N:S1:...:SN:FORMAT" (N arguments of S1..SN bytes); in FORMAT the
 * compiler wrote \a \b \f \n \r \v as a backslash and a letter and ':' as "\72".
 *
 * Every byte of the metadata and of the buffer comes from a core and is hostile: counts, sizes,
 * widths and texts are bounded (GC_DP_MAX_*), core bytes are never a format for the C library,
 * the walk stops with a sentence at the first byte it cannot explain. Nothing here prints.
 * HIP's device printf and assert use the hostcall buffer, not this format: not decoded here.
 */
#ifndef GC_ANALYZE_DEVPRINTF_H
#define GC_ANALYZE_DEVPRINTF_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#define GC_DP_HEADER 8u /* bytes of the buffer's header: used (u32), size (u32) */
/* Arguments of one format: a call site's argument count, which no real printf comes near; it
   bounds the per-format size list a hostile entry makes us keep. */
#define GC_DP_MAX_ARGS 64u
/* Bytes of one argument: a %s literal is inlined in the record (padded to 4 bytes), and the
   literal is part of the program, like the format (kernargs.h's GC_KA_MAX_PRINTF_STRING). */
#define GC_DP_MAX_ARG_SIZE 4096u
/* Records decoded of one buffer: enough for every lane of a few workgroups that each print a
   line; the rest of a larger buffer is said, not decoded (the report stays readable and its
   memory bounded). */
#define GC_DP_MAX_RECORDS 1024u
/* Bytes of one message's text after escaping; a longer one is cut and ends with "...". */
#define GC_DP_MAX_TEXT 1024u
/* Largest width or precision a conversion may give ("%300d" is not trusted): what a message
   could sensibly pad to, and what keeps one conversion's output small. */
#define GC_DP_MAX_WIDTH 256u

/* One "amdhsa.printf" entry. */
struct gc_dp_format {
    uint32_t id;          /* 1-based */
    uint32_t nargs;
    uint32_t *sizes;      /* nargs bytes counts (owned; NULL when nargs is 0) */
    uint32_t record_size; /* 4 + the sizes: the record's bytes in the buffer */
    char *format;         /* FORMAT unescaped (owned, NUL-free) */
    /* "" when the sizes match the format's conversions; else why the record's text is not
       trusted (it is then not formatted: its arguments are still listed) */
    char mismatch[160];
};

struct gc_dp_formats {
    uint32_t n;
    struct gc_dp_format *f; /* sorted by id, ids unique */
};

/*
 * Parse the @p n entries @p strings (borrowed, NUL-terminated: gc_ka_metadata's printf) into
 * *ret, owned by the caller (gc_dp_formats_free()). A format whose sizes do not match its
 * conversions, or with a width or precision past GC_DP_MAX_WIDTH, parses with `mismatch` set.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CORRUPT an entry is not "ID:N:S1:...:SN:FORMAT" with decimal numbers, an
 *                           id is 0 or given twice (diag names the entry: "amdhsa.printf[3]")
 * @retval GPUCORE_E_LIMIT   N past GC_DP_MAX_ARGS, a size past GC_DP_MAX_ARG_SIZE
 * @retval GPUCORE_E_INVAL   NULL ret, or NULL strings with n > 0
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_dp_formats_parse(char *const *strings, uint32_t n,
                                     struct gc_dp_formats **ret, gpucore_diag_t *reterr_diag);

void gc_dp_formats_free(struct gc_dp_formats *f); /* accepts NULL */

/* One record of the buffer. */
struct gc_dp_record {
    uint32_t offset;                   /* of its id, from the buffer's start (header included) */
    uint32_t id;
    const struct gc_dp_format *format; /* borrowed from the formats */
    char *text; /* the message (owned), bytes outside printable ASCII as C escapes ("\n",
                   "\x1b") and a backslash as "\\"; NULL when format->mismatch is set */
};

struct gc_dp_buffer {
    uint32_t used, size; /* the header's words */
    uint64_t held;       /* bytes of the buffer given (what the core holds from its start) */
    int truncated;       /* held < GC_DP_HEADER + used: the core has only part of the records */
    uint32_t nrecords;
    struct gc_dp_record *records;
    /* "" or why the walk stopped before the header's end of records, with the offset: an
       unknown id, a record past the used bytes, more than GC_DP_MAX_RECORDS, a header whose
       used count does not fit its size (nothing decoded) */
    char problem[GPUCORE_DIAG_MESSAGE_SIZE];
};

/*
 * Walk the buffer @p buf (@p held bytes from its start, borrowed) with the formats @p f into
 * *ret, owned by the caller (gc_dp_buffer_free()). A walk that stops early is not a failure:
 * `problem` says why, the records before are kept.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_UNAVAILABLE held < GC_DP_HEADER: the header is not there
 * @retval GPUCORE_E_INVAL       NULL argument
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_dp_decode(const struct gc_dp_formats *f, const uint8_t *buf, uint64_t held,
                              struct gc_dp_buffer **ret, gpucore_diag_t *reterr_diag);

void gc_dp_buffer_free(struct gc_dp_buffer *b); /* accepts NULL */

/*
 * Argument @p i of record @p r (in the buffer @p buf the record was decoded from) as hex into
 * @p out: a 4- or 8-byte argument as its little-endian value ("0x00000600"), any other size as
 * its bytes in memory order ("3f3f3f00"), at most 64 bytes then "...". The offset of the
 * argument in the buffer goes to *ret_offset (optional).
 */
void gc_dp_arg_hex(const struct gc_dp_record *r, const uint8_t *buf, uint32_t i, char *out,
                   size_t size, uint32_t *ret_offset);

/* @p s (@p n bytes) escaped as the record texts are, into @p out (NUL-terminated, cut with
   "..." when it does not fit). */
void gc_dp_escape(const char *s, size_t n, char *out, size_t size);

#endif /* GC_ANALYZE_DEVPRINTF_H */
