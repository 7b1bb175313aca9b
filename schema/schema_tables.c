/* SPDX-License-Identifier: MIT */
/*
 * The field tables of every wire layout, instantiated from the .def files. Everything the
 * codecs and the FORMAT.md generator know about byte positions comes from here.
 */
#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>

#include "schema_internal.h"

/* Host type of each layout, so field rows can name members without repeating the type. */
#define GC_LAYOUT(id, T, min_size, known_size, title) typedef T gc_host_##id;
#define GC_FIELD(id, name, off, width, kind, member, doc)
#define GC_LAYOUT_END(id)
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END

/*
 * Compile-time proof that each host member has the C type its kind and width demand, so the
 * codec's typed stores through host_offset can never write past or misinterpret a member.
 */
#define GC_HOST_WIDTH_UNSIGNED(T, m) \
    _Generic(((T *)0)->m, uint8_t : 1u, uint16_t : 2u, uint32_t : 4u, uint64_t : 8u, default : 0u)
#define GC_HOST_WIDTH_SIGNED(T, m)      _Generic(((T *)0)->m, int32_t : 4u, int64_t : 8u, default : 0u)
#define GC_HOST_WIDTH_STRING(T, m)      _Generic(((T *)0)->m, gpucore_str_t : 4u, default : 0u)
#define GC_HOST_WIDTH_BLOB_OFFSET(T, m) _Generic(((T *)0)->m, const uint8_t * : 8u, default : 0u)
#define GC_HOST_WIDTH_BLOB_SIZE(T, m)   _Generic(((T *)0)->m, uint64_t : 8u, default : 0u)
#define GC_HOST_WIDTH_RESERVED(T, m)    4u

#define GC_HOST_OFFSET_UNSIGNED(T, m)    offsetof(T, m)
#define GC_HOST_OFFSET_SIGNED(T, m)      offsetof(T, m)
#define GC_HOST_OFFSET_STRING(T, m)      offsetof(T, m)
#define GC_HOST_OFFSET_BLOB_OFFSET(T, m) offsetof(T, m)
#define GC_HOST_OFFSET_BLOB_SIZE(T, m)   offsetof(T, m)
#define GC_HOST_OFFSET_RESERVED(T, m)    0u

#define GC_LAYOUT(id, T, min_size, known_size, title) \
    _Static_assert((min_size) <= (known_size), #id ": min_size above known_size");
#define GC_FIELD(id, name, off, width, kind, member, doc)                 \
    _Static_assert(GC_HOST_WIDTH_##kind(gc_host_##id, member) == (width), \
                   #id "." #name ": host member type does not match kind " #kind " and width");
#define GC_LAYOUT_END(id)
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END

/* The formatter would split these row macros; keep one initializer per row. */
/* clang-format off */
#define GC_LAYOUT(id, T, min_size, known_size, title)                                              \
    static const struct gc_field gc_fields_##id[] = {
#define GC_FIELD(id, name, off, width, kind, member, doc)                                          \
        { #name, doc, (off), (width), GC_KIND_##kind,                                              \
          GC_HOST_OFFSET_##kind(gc_host_##id, member) },
#define GC_LAYOUT_END(id) };
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END

#define GC_LAYOUT(id_, T, min_size_, known_size_, title_)                                         \
    const struct gc_layout gc_layout_##id_ = {                                                     \
        .id = #id_,                                                                                \
        .title = (title_),                                                                         \
        .min_size = (min_size_),                                                                   \
        .known_size = (known_size_),                                                               \
        .fields = gc_fields_##id_,                                                                 \
        .nfields = GC_ARRAY_SIZE(gc_fields_##id_),                                                 \
        .host_size = sizeof(T),                                                                    \
    };
#define GC_FIELD(id, name, off, width, kind, member, doc)
#define GC_LAYOUT_END(id)
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END
/* clang-format on */

const struct gc_layout *const gc_layouts[] = {
#define GC_LAYOUT(id, T, min_size, known_size, title) &gc_layout_##id,
#define GC_FIELD(id, name, off, width, kind, member, doc)
#define GC_LAYOUT_END(id)
#include "schema_layouts.def"
#undef GC_LAYOUT
#undef GC_FIELD
#undef GC_LAYOUT_END
};
const size_t gc_layout_count = GC_ARRAY_SIZE(gc_layouts);
