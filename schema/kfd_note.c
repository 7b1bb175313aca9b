/* SPDX-License-Identifier: MIT */
/*
 * The AMDGPU core-state note (owner "AMDGPU", type 33): AMD's format, read with the rules of
 * ROCdbgapi's note reader and gpucore's stricter ones, written exactly as ROCdbgapi's
 * create_core_state_note lays it out. Field positions live in kfd_note.def.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "gc_kfd_entry.h"
#include "gc_le.h"
#include "schema_internal.h"

#define GC_NO_COUNT UINT32_MAX

/*
 * The three sections that follow the header, in wire order. Each is described by the header
 * fields that give its entry size and count; runtime info is a single entry.
 */
struct gc_kfd_section {
    const char *what;
    const struct gc_layout *layout;
    uint32_t size_off;  /* header field holding the entry size */
    uint32_t count_off; /* header field holding the count, or GC_NO_COUNT */
    /* Host entry i of this section; the caller owns the note, so dropping const is safe. */
    const void *(*entry)(const gpucore_amdgpu_note_t *note, uint32_t i);
};

static const void *gc_kfd_runtime_entry(const gpucore_amdgpu_note_t *note, uint32_t i)
{
    (void)i;
    return &note->runtime;
}

static const void *gc_kfd_agent_entry(const gpucore_amdgpu_note_t *note, uint32_t i)
{
    return &note->agents[i];
}

static const void *gc_kfd_queue_entry(const gpucore_amdgpu_note_t *note, uint32_t i)
{
    return &note->queues[i];
}

static const struct gc_kfd_section gc_kfd_sections[] = {
    { "runtime info", &gc_layout_kfd_runtime_info, GC_OFF_amdgpu_header_runtime_info_size,
      GC_NO_COUNT, gc_kfd_runtime_entry },
    { "device entry", &gc_layout_kfd_device_entry, GC_OFF_amdgpu_header_agent_entry_size,
      GC_OFF_amdgpu_header_agent_entry_count, gc_kfd_agent_entry },
    { "queue entry", &gc_layout_kfd_queue_entry, GC_OFF_amdgpu_header_queue_entry_size,
      GC_OFF_amdgpu_header_queue_entry_count, gc_kfd_queue_entry },
};

#define GC_KFD_HEADER_WHAT "AMDGPU note header"

/* With the limits above, no descriptor can reach n_descsz's 4 GiB ceiling. */
_Static_assert(GPUCORE_AMDGPU_NOTE_HEADER_SIZE + GC_KFD_MAX_ENTRY_SIZE +
                               2ull * GC_KFD_MAX_COUNT * GC_KFD_MAX_ENTRY_SIZE <=
                       UINT32_MAX,
               "AMDGPU note limits allow descriptors above 4 GiB");
_Static_assert(GPUCORE_AMDGPU_NOTE_HEADER_SIZE == 40, "header size");

static uint64_t gc_kfd_header_get(const gpucore_amdgpu_note_t *hdr, uint32_t off)
{
    return gc_field_get(hdr, gc_layout_field(&gc_layout_amdgpu_header, off));
}

static const char *gc_kfd_header_name(uint32_t off)
{
    return gc_layout_field(&gc_layout_amdgpu_header, off)->name;
}

static uint32_t gc_kfd_count(const struct gc_kfd_section *s, const gpucore_amdgpu_note_t *hdr)
{
    return s->count_off == GC_NO_COUNT ? 1u : (uint32_t)gc_kfd_header_get(hdr, s->count_off);
}

/*
 * Entry-size and count rules shared by decode (status as given) and encode (E_INVAL): what
 * AMD's reader requires (multiple of 8) and what gpucore adds (at least the KFD 1.13 layout,
 * at most the limits).
 */
static gpucore_status_t gc_kfd_check_sizes(const gpucore_amdgpu_note_t *hdr, int encoding,
                                           gpucore_diag_t *diag)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++) {
        const struct gc_kfd_section *s = &gc_kfd_sections[i];
        uint64_t esize = gc_kfd_header_get(hdr, s->size_off);
        const char *name = gc_kfd_header_name(s->size_off);
        /* Decode failures point at the header field itself. */
        uint64_t where = encoding ? GC_NO_OFFSET : s->size_off;
        uint64_t base = where;

        if (esize % 8)
            return gc_fail(diag, encoding ? GPUCORE_E_INVAL : GPUCORE_E_CORRUPT, where,
                           GC_KFD_HEADER_WHAT, UINT32_MAX, base,
                           "%s %" PRIu64 " is not a multiple of 8", name, esize);
        if (esize < s->layout->min_size)
            return gc_fail(diag, encoding ? GPUCORE_E_INVAL : GPUCORE_E_CORRUPT, where,
                           GC_KFD_HEADER_WHAT, UINT32_MAX, base,
                           "%s %" PRIu64 " is below the %" PRIu32
                           "-byte KFD 1.13 %s (early patch-series layouts are refused)",
                           name, esize, s->layout->min_size, s->what);
        if (esize > GC_KFD_MAX_ENTRY_SIZE)
            return gc_fail(diag, encoding ? GPUCORE_E_INVAL : GPUCORE_E_LIMIT, where,
                           GC_KFD_HEADER_WHAT, UINT32_MAX, base,
                           "%s %" PRIu64 " exceeds the %u-byte limit", name, esize,
                           GC_KFD_MAX_ENTRY_SIZE);
        if (gc_kfd_count(s, hdr) > GC_KFD_MAX_COUNT)
            return gc_fail(diag, encoding ? GPUCORE_E_INVAL : GPUCORE_E_LIMIT,
                           encoding ? GC_NO_OFFSET : s->count_off, GC_KFD_HEADER_WHAT, UINT32_MAX,
                           encoding ? GC_NO_OFFSET : s->count_off,
                           "%s %" PRIu32 " exceeds the limit of %u",
                           gc_kfd_header_name(s->count_off), gc_kfd_count(s, hdr),
                           GC_KFD_MAX_COUNT);
    }
    return GPUCORE_OK;
}

static size_t gc_align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

GPUCORE_API gpucore_status_t gpucore_amdgpu_note_decode(const void *desc, size_t size,
                                                        gpucore_amdgpu_note_t **ret_note,
                                                        gpucore_diag_t *reterr_diag)
{
    struct gc_reader r = { 0 };
    gpucore_amdgpu_note_t hdr = { 0 };
    gpucore_amdgpu_note_t *note;
    size_t agents_at, queues_at, total;
    uint64_t off;

    if (!desc || !ret_note)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "gpucore_amdgpu_note_decode: NULL %s", desc ? "ret_note" : "desc");
    r.desc = desc;
    r.size = size;
    r.newer_flag = GPUCORE_AMDGPU_NOTE_NEWER;
    r.diag = reterr_diag;

    /* Like AMD's reader, look at the version first: another version may have another layout. */
    for (size_t i = 0; i < gc_layout_amdgpu_header.nfields; i++) {
        const struct gc_field *f = &gc_layout_amdgpu_header.fields[i];

        if (gc_out_of_bounds(f->offset, f->width, size))
            return gc_fail(reterr_diag, GPUCORE_E_TRUNCATED, f->offset, GC_KFD_HEADER_WHAT,
                           UINT32_MAX, f->offset,
                           "descriptor of %zu bytes ends inside %s (bytes %" PRIu32 "..%" PRIu32
                           ")",
                           size, f->name, f->offset, f->offset + f->width - 1);
        if (f->offset == GC_OFF_amdgpu_header_note_version &&
            gc_le64_get(r.desc) != GPUCORE_AMDGPU_NOTE_VERSION)
            return gc_fail(reterr_diag, GPUCORE_E_VERSION, f->offset, GC_KFD_HEADER_WHAT,
                           UINT32_MAX, 0, "note version %" PRIu64 " is not %u", gc_le64_get(r.desc),
                           GPUCORE_AMDGPU_NOTE_VERSION);
    }
    GC_TRY(gc_layout_decode(&r, &gc_layout_amdgpu_header, 0, GPUCORE_AMDGPU_NOTE_HEADER_SIZE, &hdr,
                            GC_KFD_HEADER_WHAT, UINT32_MAX, NULL));
    GC_TRY(gc_kfd_check_sizes(&hdr, 0, reterr_diag));

    /* Sizes and counts are bounded now, so none of this arithmetic can wrap. */
    off = GPUCORE_AMDGPU_NOTE_HEADER_SIZE;
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++) {
        const struct gc_kfd_section *s = &gc_kfd_sections[i];
        uint64_t esize = gc_kfd_header_get(&hdr, s->size_off);
        uint32_t count = gc_kfd_count(s, &hdr);

        if (gc_out_of_bounds(off, count * esize, size)) {
            uint64_t k = off > size ? 0 : (size - off) / esize;
            uint64_t at = off + k * esize;

            return gc_fail(reterr_diag, GPUCORE_E_TRUNCATED, at, s->what,
                           s->count_off == GC_NO_COUNT ? UINT32_MAX : (uint32_t)k, at,
                           "needs %" PRIu64
                           " bytes but the descriptor ends at 0x%zx (count %" PRIu32 ")",
                           esize, size, count);
        }
        off += count * esize;
    }
    /* AMD's reader insists on ending exactly at the last entry; so does gpucore. */
    if (off != size)
        return gc_fail(reterr_diag, GPUCORE_E_CORRUPT, off, "AMDGPU note", UINT32_MAX, GC_NO_OFFSET,
                       "%zu trailing bytes at 0x%" PRIx64 " after the last entry (descriptor "
                       "is %zu bytes)",
                       size - (size_t)off, off, size);

    agents_at = gc_align_up(sizeof(*note), _Alignof(gpucore_kfd_device_entry_t));
    queues_at = gc_align_up(agents_at + hdr.agent_count * sizeof(gpucore_kfd_device_entry_t),
                            _Alignof(gpucore_kfd_queue_entry_t));
    total = queues_at + hdr.queue_count * sizeof(gpucore_kfd_queue_entry_t);
    note = calloc(1, total);
    if (!note)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "cannot allocate %zu bytes for the AMDGPU note", total);
    *note = hdr;
    note->agents = (gpucore_kfd_device_entry_t *)(void *)((char *)note + agents_at);
    note->queues = (gpucore_kfd_queue_entry_t *)(void *)((char *)note + queues_at);

    off = GPUCORE_AMDGPU_NOTE_HEADER_SIZE;
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++) {
        const struct gc_kfd_section *s = &gc_kfd_sections[i];
        uint64_t esize = gc_kfd_header_get(&hdr, s->size_off);
        uint32_t count = gc_kfd_count(s, &hdr);

        for (uint32_t k = 0; k < count; k++, off += esize) {
            gpucore_status_t st =
                    gc_layout_decode(&r, s->layout, off, esize,
                                     (void *)(uintptr_t)s->entry(note, k), s->what, k, NULL);
            /* Integer fields only: nothing in these layouts can fail once bounds hold. */
            assert(st == GPUCORE_OK);
            (void)st;
        }
    }
    note->flags = r.newer;
    *ret_note = note;
    return GPUCORE_OK;
}

GPUCORE_API void gpucore_amdgpu_note_free(gpucore_amdgpu_note_t *note)
{
    free(note);
}

/* The note as it will be written: version 1 and the default for every size left at 0. */
static void gc_kfd_resolve(const gpucore_amdgpu_note_t *note, gpucore_amdgpu_note_t *out)
{
    *out = *note;
    out->note_version = GPUCORE_AMDGPU_NOTE_VERSION;
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++) {
        const struct gc_kfd_section *s = &gc_kfd_sections[i];
        const struct gc_field *f = gc_layout_field(&gc_layout_amdgpu_header, s->size_off);

        if (!gc_field_get(out, f))
            gc_field_put(out, f, s->layout->min_size);
    }
}

GPUCORE_API gpucore_status_t gpucore_amdgpu_note_encode(const gpucore_amdgpu_note_t *note,
                                                        void **ret_desc, size_t *ret_size,
                                                        gpucore_diag_t *reterr_diag)
{
    gpucore_amdgpu_note_t hdr;
    uint64_t total = GPUCORE_AMDGPU_NOTE_HEADER_SIZE;
    gpucore_status_t st;
    uint8_t *buf, *p;

    if (!note || !ret_desc || !ret_size)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "gpucore_amdgpu_note_encode: NULL argument");
    gc_kfd_resolve(note, &hdr);
    GC_TRY(gc_kfd_check_sizes(&hdr, 1, reterr_diag));
    if ((hdr.agent_count && !hdr.agents) || (hdr.queue_count && !hdr.queues))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "AMDGPU note: %s array is NULL with a non-zero count",
                           hdr.agent_count && !hdr.agents ? "agents" : "queues");
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++)
        total += gc_kfd_count(&gc_kfd_sections[i], &hdr) *
                 gc_kfd_header_get(&hdr, gc_kfd_sections[i].size_off);

    buf = calloc(1, (size_t)total);
    if (!buf)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "cannot allocate %" PRIu64 " bytes for the AMDGPU note", total);
    /* Integer fields only, so no writer (no heap) and nothing that can fail. */
    st = gc_layout_encode(NULL, &gc_layout_amdgpu_header, buf, GPUCORE_AMDGPU_NOTE_HEADER_SIZE,
                          &hdr, GC_KFD_HEADER_WHAT, UINT32_MAX);
    assert(st == GPUCORE_OK);
    p = buf + GPUCORE_AMDGPU_NOTE_HEADER_SIZE;
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_kfd_sections); i++) {
        const struct gc_kfd_section *s = &gc_kfd_sections[i];
        uint64_t esize = gc_kfd_header_get(&hdr, s->size_off);
        uint32_t count = gc_kfd_count(s, &hdr);

        for (uint32_t k = 0; k < count; k++, p += esize) {
            st = gc_layout_encode(NULL, s->layout, p, esize, s->entry(&hdr, k), s->what, k);
            assert(st == GPUCORE_OK);
        }
    }
    assert(p == buf + total);
    (void)st;
    *ret_desc = buf;
    *ret_size = (size_t)total;
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Semantic rules of AMD's reader (docs/core-format.md 7.1 step 6)                                */
/* ------------------------------------------------------------------------------------------ */

/*
 * Device properties ROCdbgapi divides by or sizes arrays with: a zero is fatal there ("Invalid
 * node properties"), and num_xcc = 0 breaks its shader-engine arithmetic.
 */
static const uint32_t gc_kfd_nonzero_device_fields[] = {
    GC_OFF_kfd_device_entry_simd_count,  GC_OFF_kfd_device_entry_max_waves_per_simd,
    GC_OFF_kfd_device_entry_array_count, GC_OFF_kfd_device_entry_simd_arrays_per_engine,
    GC_OFF_kfd_device_entry_num_xcc,
};

struct gc_gpu_id_slot {
    uint32_t gpu_id;
    uint32_t index;
};

static int gc_gpu_id_cmp(const void *a, const void *b)
{
    const struct gc_gpu_id_slot *x = a, *y = b;

    if (x->gpu_id != y->gpu_id)
        return x->gpu_id < y->gpu_id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static const struct gc_gpu_id_slot *gc_gpu_id_find(const struct gc_gpu_id_slot *v, uint32_t n,
                                                   uint32_t gpu_id)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (v[mid].gpu_id < gpu_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].gpu_id == gpu_id ? &v[lo] : NULL;
}

GPUCORE_API gpucore_status_t gpucore_amdgpu_note_check(const gpucore_amdgpu_note_t *note,
                                                       gpucore_diag_t *reterr_diag)
{
    const struct gc_layout *dev = &gc_layout_kfd_device_entry;
    gpucore_amdgpu_note_t hdr;
    struct gc_gpu_id_slot *ids;
    gpucore_status_t st = GPUCORE_OK;
    uint64_t agents_off, queues_off;

    if (!note)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "gpucore_amdgpu_note_check: NULL note");
    if ((note->agent_count && !note->agents) || (note->queue_count && !note->queues))
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "AMDGPU note: NULL array with a non-zero count");
    /* Offsets are reported as the descriptor would hold them, with the sizes as written. */
    gc_kfd_resolve(note, &hdr);
    agents_off = GPUCORE_AMDGPU_NOTE_HEADER_SIZE + hdr.runtime_info_size;
    queues_off = agents_off + (uint64_t)hdr.agent_count * hdr.agent_entry_size;

    /* ROCdbgapi's kfd_driver_base_t::check_version window: [1.13, 2.0). */
    if (hdr.kfd_major != 1)
        return gc_fail(reterr_diag, GPUCORE_E_VERSION, GC_OFF_amdgpu_header_kfd_version_major,
                       GC_KFD_HEADER_WHAT, UINT32_MAX, GC_OFF_amdgpu_header_kfd_version_major,
                       "KFD version %" PRIu32 ".%" PRIu32 " is outside [1.13, 2.0)", hdr.kfd_major,
                       hdr.kfd_minor);
    if (hdr.kfd_minor < 13)
        return gc_fail(reterr_diag, GPUCORE_E_VERSION, GC_OFF_amdgpu_header_kfd_version_minor,
                       GC_KFD_HEADER_WHAT, UINT32_MAX, GC_OFF_amdgpu_header_kfd_version_minor,
                       "KFD version %" PRIu32 ".%" PRIu32 " is outside [1.13, 2.0)", hdr.kfd_major,
                       hdr.kfd_minor);
    if (hdr.runtime.runtime_state != GPUCORE_KFD_RUNTIME_ENABLED) {
        const char *name = gc_enum_name(GC_ENUM_runtime_state, hdr.runtime.runtime_state);

        return gc_fail(reterr_diag, GPUCORE_E_CORRUPT,
                       GPUCORE_AMDGPU_NOTE_HEADER_SIZE + GC_OFF_kfd_runtime_info_runtime_state,
                       "runtime info", UINT32_MAX, GPUCORE_AMDGPU_NOTE_HEADER_SIZE,
                       "runtime_state %" PRIu32 " (%s) is not 1 (enabled): AMD's debugger "
                       "shows no agents",
                       hdr.runtime.runtime_state, name ? name : "unknown");
    }

    for (uint32_t i = 0; i < hdr.agent_count; i++) {
        uint64_t base = agents_off + (uint64_t)i * hdr.agent_entry_size;

        for (size_t k = 0; k < GC_ARRAY_SIZE(gc_kfd_nonzero_device_fields); k++) {
            const struct gc_field *f = gc_layout_field(dev, gc_kfd_nonzero_device_fields[k]);

            if (!gc_field_get(&hdr.agents[i], f))
                return gc_fail(reterr_diag, GPUCORE_E_CORRUPT, base + f->offset, "device entry", i,
                               base, "%s is 0: AMD's debugger fails on it", f->name);
        }
    }

    /* Sorted gpu_ids make both remaining rules O(n log n) even for hostile counts. */
    ids = calloc(hdr.agent_count ? hdr.agent_count : 1, sizeof(*ids));
    if (!ids)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "cannot allocate the gpu_id index");
    for (uint32_t i = 0; i < hdr.agent_count; i++) {
        ids[i].gpu_id = hdr.agents[i].gpu_id;
        ids[i].index = i;
    }
    qsort(ids, hdr.agent_count, sizeof(*ids), gc_gpu_id_cmp);
    for (uint32_t i = 1; i < hdr.agent_count && st == GPUCORE_OK; i++) {
        if (ids[i].gpu_id == ids[i - 1].gpu_id) {
            uint64_t base = agents_off + (uint64_t)ids[i].index * hdr.agent_entry_size;

            st = gc_fail(reterr_diag, GPUCORE_E_CORRUPT, base + GC_OFF_kfd_device_entry_gpu_id,
                         "device entry", ids[i].index, base,
                         "gpu_id 0x%" PRIx32 " repeats device entry %" PRIu32, ids[i].gpu_id,
                         ids[i - 1].index);
        }
    }
    for (uint32_t j = 0; j < hdr.queue_count && st == GPUCORE_OK; j++) {
        if (!gc_gpu_id_find(ids, hdr.agent_count, hdr.queues[j].gpu_id)) {
            uint64_t base = queues_off + (uint64_t)j * hdr.queue_entry_size;

            st = gc_fail(reterr_diag, GPUCORE_E_CORRUPT, base + GC_OFF_kfd_queue_entry_gpu_id,
                         "queue entry", j, base,
                         "gpu_id 0x%" PRIx32 " names no device entry: AMD's debugger fails "
                         "fatally",
                         hdr.queues[j].gpu_id);
        }
    }
    free(ids);
    return st;
}

GPUCORE_API gpucore_status_t gpucore_gfx_target_name(uint32_t gfx_target_version, char *buf,
                                                     size_t size)
{
    /* Minor and stepping are single characters: 0-9, then a-z for 10..35. */
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint32_t major = gfx_target_version / 10000;
    uint32_t minor = gfx_target_version / 100 % 100;
    uint32_t stepping = gfx_target_version % 100;
    char name[32];
    int n;

    if (!buf || minor >= sizeof(digits) - 1 || stepping >= sizeof(digits) - 1)
        return GPUCORE_E_INVAL;
    n = snprintf(name, sizeof(name), "gfx%" PRIu32 "%c%c", major, digits[minor], digits[stepping]);
    assert(n > 0 && (size_t)n < sizeof(name));
    if ((size_t)n >= size)
        return GPUCORE_E_LIMIT;
    memcpy(buf, name, (size_t)n + 1);
    return GPUCORE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* One entry (gc_kfd_entry.h)                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* One entry of layout @p L (a kfd_note.def row of integer fields) in the @p n bytes at @p b. */
static gpucore_status_t entry_decode(const struct gc_layout *L, const uint8_t *b, size_t n,
                                     void *ret, size_t ret_size)
{
    struct gc_reader r;

    if (!b || !ret)
        return GPUCORE_E_INVAL;
    if (n < L->min_size)
        return GPUCORE_E_TRUNCATED;
    memset(&r, 0, sizeof(r));
    r.desc = b;
    r.size = n;
    memset(ret, 0, ret_size);
    /* integer fields only: no heap, no string, nothing that can fail */
    return gc_layout_decode(&r, L, 0, n, ret, L->title, UINT32_MAX, NULL);
}

gpucore_status_t gc_kfd_device_entry_decode(const uint8_t *b, size_t n,
                                            gpucore_kfd_device_entry_t *ret)
{
    return entry_decode(&gc_layout_kfd_device_entry, b, n, ret, sizeof(*ret));
}

gpucore_status_t gc_kfd_queue_entry_decode(const uint8_t *b, size_t n,
                                           gpucore_kfd_queue_entry_t *ret)
{
    return entry_decode(&gc_layout_kfd_queue_entry, b, n, ret, sizeof(*ret));
}
