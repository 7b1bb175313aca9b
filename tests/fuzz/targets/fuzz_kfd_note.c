/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the AMDGPU core-state note decoder (gpucore_amdgpu_note_decode), with its
 * encoder as round-trip partner (G-FUZZ-2). The input is a note descriptor.
 *
 * Invariants (abort() on violation):
 *  - a failure returns a documented status, fills the diagnostic consistently, leaves the
 *    output untouched, and never points past the input;
 *  - a success describes the input exactly: sizes within the rules, sections ending at the end;
 *  - re-encoding with the decoded sizes gives a descriptor of the same size, byte-identical to
 *    the input unless the decoder flagged unknown non-zero bytes (NEWER);
 *  - decoding that again succeeds without NEWER and re-encodes to the same bytes.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpucore_amdgpu_note_t *sentinel = (gpucore_amdgpu_note_t *)(uintptr_t)&size;
    gpucore_amdgpu_note_t *a = sentinel, *b = NULL;
    gpucore_diag_t diag;
    gpucore_status_t st;
    void *d1 = NULL, *d2 = NULL;
    size_t n1 = 0, n2 = 0;
    uint64_t total;
    char name[32];

    memset(&diag, 0, sizeof(diag));
    st = gpucore_amdgpu_note_decode(data, size, &a, &diag);
    if (st != GPUCORE_OK) {
        check_failure(st, &diag, size);
        CHECK(a == sentinel);
        return 0;
    }

    CHECK(a->note_version == GPUCORE_AMDGPU_NOTE_VERSION);
    CHECK(a->runtime_info_size % 8 == 0 && a->runtime_info_size >= 16 &&
          a->runtime_info_size <= 4096);
    CHECK(a->agent_entry_size % 8 == 0 && a->agent_entry_size >= 120 &&
          a->agent_entry_size <= 4096);
    CHECK(a->queue_entry_size % 8 == 0 && a->queue_entry_size >= 64 && a->queue_entry_size <= 4096);
    CHECK(a->agent_count <= 65536 && a->queue_count <= 65536);
    total = GPUCORE_AMDGPU_NOTE_HEADER_SIZE + a->runtime_info_size +
            (uint64_t)a->agent_count * a->agent_entry_size +
            (uint64_t)a->queue_count * a->queue_entry_size;
    CHECK(total == size);
    CHECK((a->flags & ~GPUCORE_AMDGPU_NOTE_NEWER) == 0);
    if (a->agent_entry_size < GPUCORE_KFD_DEVICE_ENTRY_SIZE_CAP2)
        for (uint32_t i = 0; i < a->agent_count; i++)
            CHECK(a->agents[i].capability2 == 0);

    /* The semantic check and the names must cope with anything the decoder accepts. */
    st = gpucore_amdgpu_note_check(a, &diag);
    CHECK(st == GPUCORE_OK || st == GPUCORE_E_VERSION || st == GPUCORE_E_CORRUPT ||
          st == GPUCORE_E_NOMEM);
    if (st == GPUCORE_E_VERSION || st == GPUCORE_E_CORRUPT)
        CHECK(diag.status == st && (diag.flags & GPUCORE_DIAG_HAS_OFFSET) && diag.offset < size);
    for (uint32_t i = 0; i < a->agent_count; i++) {
        st = gpucore_gfx_target_name(a->agents[i].gfx_target_version, name, sizeof(name));
        CHECK(st == GPUCORE_OK || st == GPUCORE_E_INVAL);
        if (st == GPUCORE_OK)
            CHECK(!strncmp(name, "gfx", 3));
    }

    CHECK(gpucore_amdgpu_note_encode(a, &d1, &n1, NULL) == GPUCORE_OK);
    CHECK(n1 == size);
    if (!a->flags)
        CHECK(memcmp(d1, data, size) == 0);

    CHECK(gpucore_amdgpu_note_decode(d1, n1, &b, NULL) == GPUCORE_OK);
    CHECK(b->flags == 0);
    CHECK(b->kfd_major == a->kfd_major && b->kfd_minor == a->kfd_minor);
    CHECK(b->runtime_info_size == a->runtime_info_size);
    CHECK(b->agent_entry_size == a->agent_entry_size);
    CHECK(b->queue_entry_size == a->queue_entry_size);
    CHECK(b->agent_count == a->agent_count && b->queue_count == a->queue_count);
    CHECK(b->runtime.r_debug == a->runtime.r_debug);
    CHECK(b->runtime.runtime_state == a->runtime.runtime_state);
    CHECK(b->runtime.ttmp_setup == a->runtime.ttmp_setup);
    CHECK(gpucore_amdgpu_note_encode(b, &d2, &n2, NULL) == GPUCORE_OK);
    CHECK(n2 == n1 && memcmp(d1, d2, n1) == 0);

    gpucore_free(d1);
    gpucore_free(d2);
    gpucore_amdgpu_note_free(a);
    gpucore_amdgpu_note_free(b);
    return 0;
}
