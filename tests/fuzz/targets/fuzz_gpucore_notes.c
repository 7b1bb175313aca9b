/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the GPUCORE extension-note decoders, with their encoders as round-trip
 * partners (G-FUZZ-2). Input: one selector byte, then a note descriptor. The selector is the
 * note type (GPUCORE_NT_*); any other value runs only the common-header decoder, so corpora
 * stay valid when types are added.
 *
 * Invariants (abort() on violation):
 *  - a failure returns a documented status, fills the diagnostic consistently, leaves the
 *    output untouched, and never points past the input;
 *  - a success means the common header decodes and its records fit in the descriptor;
 *  - x decodes to A => encode(A) succeeds and decodes to B equal to A, and B encodes to
 *    exactly encode(A) (the encoding is canonical). B is marked NEWER only if A holds flag bits
 *    format 1.0 does not define: those are kept as stored, everything else unknown is dropped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(gpucore_status_t st, const gpucore_diag_t *diag, size_t size)
{
    CHECK(st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_VERSION ||
          st == GPUCORE_E_LIMIT || st == GPUCORE_E_NOMEM);
    CHECK(diag->status == st);
    CHECK(memchr(diag->message, '\0', sizeof(diag->message)) && diag->message[0]);
    if (st != GPUCORE_E_NOMEM) {
        CHECK(diag->flags & GPUCORE_DIAG_HAS_OFFSET);
        CHECK(diag->offset <= size);
    }
}

static void check_str(gpucore_str_t a, gpucore_str_t b)
{
    CHECK(a.ptr && b.ptr);
    CHECK(a.ptr[a.len] == '\0' && b.ptr[b.len] == '\0');
    CHECK(a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0);
}

static void check_header(const void *desc, size_t size)
{
    gpucore_note_header_t h;

    CHECK(gpucore_note_header_decode(desc, size, &h, NULL) == GPUCORE_OK);
    CHECK(h.major == GPUCORE_NOTE_MAJOR && h.header_size >= GPUCORE_NOTE_HEADER_SIZE);
    CHECK(h.header_size + (uint64_t)h.record_count * h.record_size <= size);
}

/* --- one round trip per type: decode, encode, decode, compare, encode, compare bytes ---- */

#define ROUND_TRIP(type, a, compare, unknown_bits)                                      \
    do {                                                                                \
        type *b_ = NULL;                                                                \
        void *d1_ = NULL, *d2_ = NULL;                                                  \
        size_t n1_ = 0, n2_ = 0;                                                        \
                                                                                        \
        CHECK(type##_encode_(a, &d1_, &n1_) == GPUCORE_OK);                             \
        check_header(d1_, n1_);                                                         \
        CHECK(type##_decode_(d1_, n1_, &b_) == GPUCORE_OK);                             \
        CHECK(b_->decoded_flags == ((unknown_bits) ? GPUCORE_NOTE_DECODED_NEWER : 0u)); \
        compare(a, b_);                                                                 \
        CHECK(type##_encode_(b_, &d2_, &n2_) == GPUCORE_OK);                            \
        CHECK(n1_ == n2_ && memcmp(d1_, d2_, n1_) == 0);                                \
        type##_free_(b_);                                                               \
        gpucore_free(d1_);                                                              \
        gpucore_free(d2_);                                                              \
    } while (0)

#define gpucore_capture_meta_t_encode_(x, d, n) gpucore_capture_meta_encode(x, d, n, NULL)
#define gpucore_capture_meta_t_decode_(d, n, r) gpucore_capture_meta_decode(d, n, r, NULL)
#define gpucore_capture_meta_t_free_            gpucore_capture_meta_free
#define gpucore_manifest_t_encode_(x, d, n)     gpucore_manifest_encode(x, d, n, NULL)
#define gpucore_manifest_t_decode_(d, n, r)     gpucore_manifest_decode(d, n, r, NULL)
#define gpucore_manifest_t_free_                gpucore_manifest_free
#define gpucore_code_objects_t_encode_(x, d, n) gpucore_code_objects_encode(x, d, n, NULL)
#define gpucore_code_objects_t_decode_(d, n, r) gpucore_code_objects_decode(d, n, r, NULL)
#define gpucore_code_objects_t_free_            gpucore_code_objects_free
#define gpucore_alloc_map_t_encode_(x, d, n)    gpucore_alloc_map_encode(x, d, n, NULL)
#define gpucore_alloc_map_t_decode_(d, n, r)    gpucore_alloc_map_decode(d, n, r, NULL)
#define gpucore_alloc_map_t_free_               gpucore_alloc_map_free

static int meta_unknown_bits(const gpucore_capture_meta_t *a)
{
    return (a->flags & ~(GPUCORE_META_HOST_STOPPED | GPUCORE_META_QUEUES_SUSPENDED |
                         GPUCORE_META_PRECISE_MEMORY | GPUCORE_META_UID_KNOWN)) != 0;
}

static int manifest_unknown_bits(const gpucore_manifest_t *a)
{
    return (a->flags & ~(GPUCORE_MANIFEST_TRUNCATED | GPUCORE_MANIFEST_REDACTED |
                         GPUCORE_MANIFEST_NO_HOST_MEMORY)) != 0;
}

static int code_objects_unknown_bits(const gpucore_code_objects_t *a)
{
    for (uint32_t i = 0; i < a->count; i++)
        if (a->objects[i].flags & ~(GPUCORE_CODE_OBJECT_EMBEDDED | GPUCORE_CODE_OBJECT_TRUNCATED))
            return 1;
    return 0;
}

static int alloc_map_unknown_bits(const gpucore_alloc_map_t *a)
{
    for (uint32_t i = 0; i < a->count; i++)
        if (a->allocs[i].flags)
            return 1;
    return 0;
}

static void compare_meta(const gpucore_capture_meta_t *a, const gpucore_capture_meta_t *b)
{
    CHECK(a->time_ns == b->time_ns && a->duration_ns == b->duration_ns && a->pid == b->pid);
    CHECK(a->trigger == b->trigger && a->tier == b->tier && a->flags == b->flags);
    CHECK(a->max_size == b->max_size && a->deadline_ms == b->deadline_ms);
    CHECK(a->kfd_major == b->kfd_major && a->kfd_minor == b->kfd_minor);
    CHECK(a->kfd_device_entry_size == b->kfd_device_entry_size);
    CHECK(a->kfd_queue_entry_size == b->kfd_queue_entry_size);
    CHECK(a->signal == b->signal && a->compress_level == b->compress_level);
    check_str(a->producer, b->producer);
    check_str(a->producer_version, b->producer_version);
    check_str(a->hostname, b->hostname);
    check_str(a->kernel, b->kernel);
    check_str(a->exe, b->exe);
    check_str(a->cmdline, b->cmdline);
    check_str(a->options, b->options);
    CHECK(a->exception_code == b->exception_code && a->exception_gpu_id == b->exception_gpu_id);
    CHECK(a->exception_queue_id == b->exception_queue_id && a->fault_address == b->fault_address);
    CHECK(a->fault_reasons == b->fault_reasons && a->error_thread == b->error_thread);
    CHECK(a->uid == b->uid);
    check_str(a->job, b->job);
    check_str(a->rank, b->rank);
}

static void compare_manifest(const gpucore_manifest_t *a, const gpucore_manifest_t *b)
{
    CHECK(a->flags == b->flags && a->truncation_reason == b->truncation_reason);
    CHECK(a->count == b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        const gpucore_manifest_entry_t *x = &a->entries[i], *y = &b->entries[i];

        CHECK(x->address == y->address && x->size == y->size && x->tier == y->tier);
        CHECK(x->status == y->status && x->reason == y->reason && x->err == y->err);
        check_str(x->label, y->label);
        (void)gpucore_tier_name(x->tier);
        (void)gpucore_range_status_name(x->status);
        (void)gpucore_reason_name(x->reason);
    }
}

static void compare_code_objects(const gpucore_code_objects_t *a, const gpucore_code_objects_t *b)
{
    CHECK(a->count == b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        const gpucore_code_object_t *x = &a->objects[i], *y = &b->objects[i];
        uint32_t kind = x->flags & (GPUCORE_CODE_OBJECT_EMBEDDED | GPUCORE_CODE_OBJECT_TRUNCATED);

        CHECK(x->load_address == y->load_address && x->size == y->size);
        CHECK(x->flags == y->flags && x->bytes_size == y->bytes_size);
        check_str(x->uri, y->uri);
        /* The decoder's flag rules, seen from outside. */
        CHECK(kind != (GPUCORE_CODE_OBJECT_EMBEDDED | GPUCORE_CODE_OBJECT_TRUNCATED));
        if (kind == GPUCORE_CODE_OBJECT_EMBEDDED)
            CHECK(x->bytes && x->bytes_size == x->size);
        else if (kind == GPUCORE_CODE_OBJECT_TRUNCATED)
            CHECK(x->bytes && x->bytes_size < x->size);
        else
            CHECK(!x->bytes && !x->bytes_size && !y->bytes);
        if (x->bytes)
            CHECK(y->bytes && memcmp(x->bytes, y->bytes, (size_t)x->bytes_size) == 0);
    }
}

static void compare_alloc_map(const gpucore_alloc_map_t *a, const gpucore_alloc_map_t *b)
{
    CHECK(a->count == b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        const gpucore_alloc_t *x = &a->allocs[i], *y = &b->allocs[i];

        CHECK(x->base == y->base && x->size == y->size && x->kind == y->kind);
        CHECK(x->gpu_id == y->gpu_id && x->flags == y->flags);
        check_str(x->label, y->label);
        (void)gpucore_alloc_kind_name(x->kind);
    }
}

static const uint32_t note_types[] = { GPUCORE_NT_CAPTURE_META, GPUCORE_NT_MANIFEST,
                                       GPUCORE_NT_CODE_OBJECTS, GPUCORE_NT_ALLOC_MAP };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *sentinel = (void *)&size;
    gpucore_diag_t diag;
    gpucore_status_t st;
    const uint8_t *desc;
    size_t n;

    if (size < 1)
        return 0;
    desc = data + 1;
    n = size - 1;
    memset(&diag, 0, sizeof(diag));
    (void)gpucore_note_type_name(data[0]);

    /* The first byte selects the note type by index (1..4), so corpora stay valid whatever
     * numbers the types have on disk. */
    switch (data[0] >= 1 && data[0] <= 4 ? note_types[data[0] - 1] : 0u) {
    case GPUCORE_NT_CAPTURE_META: {
        gpucore_capture_meta_t *a = sentinel;

        st = gpucore_capture_meta_decode(desc, n, &a, &diag);
        if (st == GPUCORE_OK) {
            check_header(desc, n);
            (void)gpucore_trigger_name(a->trigger);
            (void)gpucore_tier_name(a->tier);
            ROUND_TRIP(gpucore_capture_meta_t, a, compare_meta, meta_unknown_bits(a));
            gpucore_capture_meta_free(a);
            return 0;
        }
        CHECK(a == sentinel);
        break;
    }
    case GPUCORE_NT_MANIFEST: {
        gpucore_manifest_t *a = sentinel;

        st = gpucore_manifest_decode(desc, n, &a, &diag);
        if (st == GPUCORE_OK) {
            check_header(desc, n);
            ROUND_TRIP(gpucore_manifest_t, a, compare_manifest, manifest_unknown_bits(a));
            gpucore_manifest_free(a);
            return 0;
        }
        CHECK(a == sentinel);
        break;
    }
    case GPUCORE_NT_CODE_OBJECTS: {
        gpucore_code_objects_t *a = sentinel;

        st = gpucore_code_objects_decode(desc, n, &a, &diag);
        if (st == GPUCORE_OK) {
            check_header(desc, n);
            ROUND_TRIP(gpucore_code_objects_t, a, compare_code_objects,
                       code_objects_unknown_bits(a));
            gpucore_code_objects_free(a);
            return 0;
        }
        CHECK(a == sentinel);
        break;
    }
    case GPUCORE_NT_ALLOC_MAP: {
        gpucore_alloc_map_t *a = sentinel;

        st = gpucore_alloc_map_decode(desc, n, &a, &diag);
        if (st == GPUCORE_OK) {
            check_header(desc, n);
            ROUND_TRIP(gpucore_alloc_map_t, a, compare_alloc_map, alloc_map_unknown_bits(a));
            gpucore_alloc_map_free(a);
            return 0;
        }
        CHECK(a == sentinel);
        break;
    }
    default: {
        gpucore_note_header_t h;

        st = gpucore_note_header_decode(desc, n, &h, &diag);
        if (st == GPUCORE_OK) {
            check_header(desc, n);
            return 0;
        }
        CHECK(st != GPUCORE_E_LIMIT && st != GPUCORE_E_NOMEM);
        break;
    }
    }
    check_failure(st, &diag, n);
    return 0;
}
