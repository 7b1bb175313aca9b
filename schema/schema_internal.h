/* SPDX-License-Identifier: MIT */
/*
 * schema/ internals: the field tables generated from the .def files, the generic table-driven
 * field codec that every note codec is built on, limits, enum name tables and UTF-8 checking.
 *
 * The .def files are the single source of truth for every wire layout (conventions G-FMT-6):
 * the codecs walk the tables built here, and gen_format_tables prints FORMAT.md's field tables
 * from the very same objects, so the spec cannot drift from the code.
 *
 * Not installed; not part of the ABI. Unit tests and the generator link the object library.
 */
#ifndef SCHEMA_INTERNAL_H
#define SCHEMA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>
#include <gpucore/status.h>

#include "gc_util.h"

/* ------------------------------------------------------------------------------------------ */
/* Limits. Each exists to bound what a hostile descriptor can make a reader allocate or walk.  */
/* ------------------------------------------------------------------------------------------ */

/* AMDGPU note: real entries are 16/120/64 (128 with capability2); 4096 leaves room for decades
 * of KFD growth while keeping count * size far from any overflow. */
#define GC_KFD_MAX_ENTRY_SIZE 4096u
/* A node has at most a few dozen agents and a few hundred queues; 65536 is generous. */
#define GC_KFD_MAX_COUNT 65536u

/* GPUCORE notes. */
#define GC_NOTE_MINOR          5u /* minor written by this library */
#define GC_NOTE_MAX_RECORDS    (16u << 20)
#define GC_NOTE_MAX_STRING     (16u << 20)
#define GC_NOTE_MAX_DESC       0xFFFFFFFFu /* n_descsz is a u32 */
#define GC_NOTE_INCOMPAT_KNOWN 0u          /* format 1.0 defines no incompat bits */
#define GC_NOTE_COMPAT_KNOWN   0u          /* ... and no compat bits */

/* ------------------------------------------------------------------------------------------ */
/* Field tables                                                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * How a wire field maps to its host member. The codec interprets these; nothing else may
 * special-case a field by name.
 */
enum gc_kind {
    GC_KIND_UNSIGNED,    /* little-endian unsigned integer; host member of the same width */
    GC_KIND_SIGNED,      /* two's-complement little-endian; host int32_t or int64_t */
    GC_KIND_STRING,      /* u32 heap offset of {u32 len, UTF-8}; host gpucore_str_t */
    GC_KIND_BLOB_OFFSET, /* u64 heap offset of a blob; host `const uint8_t *` */
    GC_KIND_BLOB_SIZE,   /* u64 size of that blob; host uint64_t */
    GC_KIND_RESERVED,    /* written as zero, no host member; non-zero on read means "newer" */
};

struct gc_field {
    const char *name; /* wire name, as documented in FORMAT.md */
    const char *doc;  /* one line for FORMAT.md; never contains '|' */
    uint32_t offset;  /* from the start of the record (or descriptor, for headers) */
    uint32_t width;   /* bytes on the wire */
    enum gc_kind kind;
    size_t host_offset; /* offsetof the host member; 0 for GC_KIND_RESERVED */
};

struct gc_layout {
    const char *id;      /* the .def id, used for generated-table names */
    const char *title;   /* human name, also used in diagnostics */
    uint32_t min_size;   /* smallest stored size a reader accepts */
    uint32_t known_size; /* end of the last field this library knows */
    const struct gc_field *fields;
    size_t nfields;
    size_t host_size;
};

/* One extern per layout, and GC_OFF_<id>_<field> / GC_WIDTH_<id>_<field> wire constants. */
#define GC_LAYOUT(id, T, min_size, known_size, title) extern const struct gc_layout gc_layout_##id;
#define GC_FIELD(id, name, off, width, kind, member, doc)
#define GC_LAYOUT_END(id)
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END

#define GC_LAYOUT(id, T, min_size, known_size, title)
#define GC_FIELD(id, name, off, width, kind, member, doc) \
    GC_OFF_##id##_##name = (off), GC_WIDTH_##id##_##name = (width),
#define GC_LAYOUT_END(id)
enum {
#include "schema_layouts.def"
    GC_OFF_END_ = 0
};
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END

/* Every layout, in .def order, for the generator and the table-invariant tests. */
extern const struct gc_layout *const gc_layouts[];
extern const size_t gc_layout_count;

/* ------------------------------------------------------------------------------------------ */
/* Enum value tables (gpucore_enums.def)                                                      */
/* ------------------------------------------------------------------------------------------ */

enum gc_enum_group {
#define GC_ENUM_GROUP(group, is_bits, title) GC_ENUM_##group,
#define GC_ENUM(group, value, name, doc)
#include "gpucore_enums.def"
#undef GC_ENUM_GROUP
#undef GC_ENUM
    GC_ENUM_GROUP_COUNT_
};

struct gc_enum_group_desc {
    const char *id;
    const char *title;
    int is_bits; /* values are flag bits (documented in hex) rather than enumerators */
};

struct gc_enum_row {
    enum gc_enum_group group;
    uint32_t value;
    const char *name; /* the string the name functions return */
    const char *doc;
};

extern const struct gc_enum_group_desc gc_enum_groups[GC_ENUM_GROUP_COUNT_];
extern const struct gc_enum_row gc_enum_rows[];
extern const size_t gc_enum_row_count;

/* Name of a value in a group, or NULL if this library does not know it. */
const char *gc_enum_name(enum gc_enum_group group, uint32_t value);
/* OR of every value in a bit group: anything outside it came from a newer writer. */
uint32_t gc_enum_known_bits(enum gc_enum_group group);

/* ------------------------------------------------------------------------------------------ */
/* Generic field codec (schema_codec.c)                                                       */
/* ------------------------------------------------------------------------------------------ */

/*
 * Decoding state for one descriptor. Strings and blobs are copied into `arena`, a block the
 * caller sized in advance (see gc_reader_arena_bound()); a reader without an arena refuses
 * string and blob fields, which is what the AMDGPU note wants.
 */
struct gc_reader {
    const uint8_t *desc;
    size_t size;
    uint64_t heap_off; /* descriptor offset of the heap */
    uint64_t heap_len;
    uint64_t heap_used; /* summed size of every referenced heap item */
    char *arena;
    size_t arena_len;
    size_t arena_cap;
    uint32_t newer; /* set to `newer_flag` when unknown non-zero data is seen */
    uint32_t newer_flag;
    gpucore_diag_t *diag;
};

/* Blob reference found while decoding one record; the note codec decides what it means. */
struct gc_blob_ref {
    int present;         /* the layout has a blob */
    uint64_t offset;     /* heap offset as stored */
    uint64_t size;       /* size as stored */
    uint64_t field_off;  /* descriptor offset of the blob_offset field, for diagnostics */
    uint64_t record_off; /* descriptor offset of the record holding it */
};

/* The field of L at wire offset `offset` (which must exist). */
const struct gc_field *gc_layout_field(const struct gc_layout *L, uint32_t offset);
/* Read or write the host member of an integer field (UNSIGNED, SIGNED, BLOB_SIZE). */
uint64_t gc_field_get(const void *host, const struct gc_field *f);
void gc_field_put(void *host, const struct gc_field *f, uint64_t v);

/*
 * Decode the fields of `L` that lie inside the first `stored` bytes at descriptor offset
 * `base` into `host` (which the caller zeroed). The caller has checked that [base, base +
 * stored) is inside the descriptor. `what` and `index` (UINT32_MAX: none) name the record in
 * diagnostics. Bytes in [L->known_size, stored) and non-zero reserved fields set r->newer.
 * A blob field is only recorded in `ret_blob` (may be NULL if the layout has none).
 */
gpucore_status_t gc_layout_decode(struct gc_reader *r, const struct gc_layout *L, uint64_t base,
                                  uint64_t stored, void *host, const char *what, uint32_t index,
                                  struct gc_blob_ref *ret_blob);

/* Set r->newer if any byte of the descriptor in [from, to) is non-zero. */
void gc_reader_scan_newer(struct gc_reader *r, uint64_t from, uint64_t to);

/*
 * Resolve a blob reference against the heap and copy it into the arena.
 * E_CORRUPT if it is not inside the heap; E_LIMIT if referenced items outgrow the heap.
 */
gpucore_status_t gc_reader_blob(struct gc_reader *r, const struct gc_blob_ref *ref,
                                const uint8_t **ret_bytes, const char *what, uint32_t index);

/* Encoding state: records are written in place by the caller, the heap grows here. */
struct gc_writer {
    struct gc_buf heap;
    uint64_t fixed_len; /* header + records: the heap starts here */
    gpucore_diag_t *diag;
};

/*
 * Encode the fields of `L` that fit in `stored` bytes from `host` into `rec` (zero-filled by
 * the caller), appending strings and blobs to w->heap. Reserved fields and bytes past the known
 * fields stay zero. Refuses invalid strings and a descriptor above GC_NOTE_MAX_DESC (E_INVAL).
 */
gpucore_status_t gc_layout_encode(struct gc_writer *w, const struct gc_layout *L, uint8_t *rec,
                                  uint64_t stored, const void *host, const char *what,
                                  uint32_t index);

/*
 * Check UTF-8 strictly (Unicode 15, table 3-7: no overlongs, no surrogates, nothing above
 * U+10FFFF, no truncated sequences). NUL is a valid character. Returns 1 if valid; otherwise 0
 * with the index of the first bad byte in *ret_bad.
 */

/*
 * Record a failure about `what` (a structure: "device entry", "MANIFEST record") and return
 * `status`. The message reads "<what>[ <index>] at offset 0x<base>: <detail>"; `index`
 * UINT32_MAX and `base` GC_NO_OFFSET leave those parts out. `offset` goes to diag->offset: the
 * byte the failure is about, usually the offending field rather than the structure.
 */
gpucore_status_t gc_fail(gpucore_diag_t *diag, gpucore_status_t status, uint64_t offset,
                         const char *what, uint32_t index, uint64_t base, const char *fmt, ...)
        GC_PRINTF(7, 8);

/* Common-header decode shared by the public function and the note decoders. */
gpucore_status_t gc_note_header_decode(const uint8_t *desc, size_t size,
                                       gpucore_note_header_t *ret_header, gpucore_diag_t *diag);

#endif /* SCHEMA_INTERNAL_H */
