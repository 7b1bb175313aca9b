/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the CWSR decoder (gc_cwsr_decode), with the encoder as round-trip partner
 * (G-FUZZ-2).
 *
 * Input: byte 0 selects the target (index into gc_arch_table, modulo its size); bytes 1..40 are
 * the kfd_context_save_area_header; the rest is the used control stack (control_stack_size
 * bytes, or whatever is left) followed by the used wave area (everything after it).
 *
 * Invariants (abort() on violation):
 *  - a failure returns a documented status with a consistent diagnostic and leaves the result
 *    untouched;
 *  - a success describes the input exactly: waves in control-stack order, every record inside
 *    the wave area, records tiling it downward from its end with the family's gap, group
 *    leaders that are first waves of the same group, LDS only in leaders, register blocks
 *    inside their record, and every register readable;
 *  - where the decoded waves are something the encoder accepts (canonical workgroups), encoding
 *    them and decoding the result gives the same waves and byte-identical records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_util.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* [p, p + n) lies inside [lo, lo + len). */
static int inside(const uint8_t *p, uint64_t n, const uint8_t *lo, uint64_t len)
{
    return p >= lo && (uint64_t)(p - lo) <= len && len - (uint64_t)(p - lo) >= n;
}

static void check_wave(const struct gc_arch *a, const struct gc_cwsr_decoded *d, uint32_t i,
                       const uint8_t *wave_area, uint64_t wave_begin, uint64_t *top)
{
    const struct gc_cwsr_layout *l = a->cwsr;
    const struct gc_wave *w = &d->waves[i];
    const uint8_t *rec;
    uint32_t sum = 0;

    CHECK(w->index == i);
    CHECK(w->lanes == 32 || w->lanes == 64);
    CHECK(w->first_wave <= 1 && w->last_wave <= 1 && w->scratch_en <= 1);
    CHECK(w->group < d->group_count);
    CHECK(w->group_leader <= i);
    CHECK(d->waves[w->group_leader].first_wave);
    CHECK(d->waves[w->group_leader].group == w->group);
    CHECK(!w->first_wave || w->group_leader == i);
    CHECK(w->lds_size == d->waves[w->group_leader].lds_size);
    CHECK(w->state[0] & 0x80000000u);
    CHECK(!(w->wave_word & 0xc0000000u));
    CHECK(l->sgpr_fixed ? w->sgprs == l->sgpr_fixed : w->sgprs <= 112);
    CHECK(l->acc_rule != GC_ACC_NONE || w->accvgprs == 0);
    CHECK(l->shared_vgpr_granule || w->shared_vgprs == 0);

    /* Records tile the wave area downward from its end, gap above each. */
    CHECK(*top >= wave_begin + l->record_gap + w->record_size);
    *top -= l->record_gap + w->record_size;
    CHECK(w->record_offset == *top);
    CHECK(w->record_size == (uint64_t)w->vgprs * w->lanes * 4 + w->shared_vgprs * 128ull +
                                    w->accvgprs * 256ull + w->sgprs * 4ull + 128 +
                                    (w->first_wave ? w->lds_size : 0));
    rec = wave_area + (w->record_offset - wave_begin);
    CHECK(inside(w->vgpr, (uint64_t)w->vgprs * w->lanes * 4, rec, w->record_size));
    CHECK(!w->shared_vgpr || inside(w->shared_vgpr, w->shared_vgprs * 128ull, rec, w->record_size));
    CHECK(!w->accvgpr || inside(w->accvgpr, w->accvgprs * 256ull, rec, w->record_size));
    CHECK(!w->sgpr || inside(w->sgpr, w->sgprs * 4ull, rec, w->record_size));
    CHECK(inside(w->hwreg, 64, rec, w->record_size));
    CHECK(inside(w->ttmp, 64, rec, w->record_size));
    CHECK(!w->lds ||
          (w->first_wave && w->lds_size && w->lds + w->lds_size == rec + w->record_size));
    CHECK(w->lds || !w->first_wave || !w->lds_size);

    /* Every register is readable (the sanitizers see any stray read). */
    for (uint32_t r = 0; r < w->vgprs; r++)
        for (uint32_t ln = 0; ln < w->lanes; ln++)
            sum += gc_wave_vgpr(w, r, ln);
    for (uint32_t r = 0; r < w->accvgprs; r++)
        for (uint32_t ln = 0; ln < 64; ln++)
            sum += gc_wave_accvgpr(w, r, ln);
    for (uint32_t r = 0; r < w->shared_vgprs; r++)
        for (uint32_t ln = 0; ln < 32; ln++)
            sum += gc_wave_shared_vgpr(w, r, ln);
    for (uint32_t r = 0; r < w->sgprs; r++)
        sum += gc_wave_sgpr(w, r);
    for (uint32_t r = 0; r < 16; r++)
        sum += gc_wave_hwreg(w, r) + gc_wave_ttmp(w, r);
    CHECK(gc_wave_vgpr(w, w->vgprs, 0) == 0 && gc_wave_sgpr(w, w->sgprs) == 0);
    (void)sum;
}

/* Host copy of n little-endian words (NULL when n is 0). */
static uint32_t *host_words(const uint8_t *p, uint64_t n)
{
    uint32_t *out;

    if (!n)
        return NULL;
    out = malloc(n * sizeof(*out));
    CHECK(out);
    for (uint64_t i = 0; i < n; i++)
        out[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                 (uint32_t)p[4 * i + 3] << 24;
    return out;
}

/* Encode the decoded waves again; when the encoder accepts them, compare the re-decode. */
static void round_trip(const struct gc_arch *a, const struct gc_cwsr_decoded *d,
                       const uint8_t *wave_area, uint64_t wave_begin)
{
    struct gc_wave_spec *s = calloc(d->wave_count ? d->wave_count : 1, sizeof(*s));
    struct gc_cwsr_header h;
    struct gc_cwsr_decoded d2;
    uint32_t ctl = 48 + 12 * d->wave_count; /* room for every wave to start a group */
    uint8_t *img = NULL;
    size_t size = 0;
    gpucore_status_t st;

    CHECK(s);
    for (uint32_t i = 0; i < d->wave_count; i++) {
        const struct gc_wave *w = &d->waves[i];

        s[i].wave32 = w->lanes == 32;
        s[i].vgprs = w->vgprs;
        s[i].accvgprs = w->accvgprs;
        s[i].shared_vgprs = w->shared_vgprs;
        s[i].sgprs = w->sgprs;
        s[i].lds_size = w->lds_size;
        s[i].first_wave = w->first_wave;
        s[i].last_wave = w->last_wave;
        s[i].se_id = w->se_id;
        s[i].scratch_id = w->scratch_id;
        s[i].scratch_en = w->scratch_en;
        s[i].vgpr = host_words(w->vgpr, (uint64_t)w->vgprs * w->lanes);
        s[i].accvgpr = host_words(w->accvgpr, w->accvgprs * 64ull);
        s[i].shared_vgpr = host_words(w->shared_vgpr, w->shared_vgprs * 32ull);
        s[i].sgpr = host_words(w->sgpr, w->sgprs);
        for (uint32_t r = 0; r < 16; r++) {
            s[i].hwreg[r] = gc_wave_hwreg(w, r);
            s[i].ttmp[r] = gc_wave_ttmp(w, r);
        }
        s[i].lds = w->lds;
    }

    st = gc_cwsr_encode(a, s, d->wave_count, ctl, &d->header, &img, &size, &h, NULL);
    /* E_INVAL: not canonical (a group left open, a state change inside a group, ...). */
    CHECK(st == GPUCORE_OK || st == GPUCORE_E_INVAL || st == GPUCORE_E_NOMEM);
    if (st == GPUCORE_OK) {
        const uint8_t *wave2 = img + h.wave_state_offset - h.wave_state_size;

        CHECK(h.debug_offset == d->header.debug_offset);
        CHECK(h.err_payload_addr == d->header.err_payload_addr);
        /* The same wave area, except that an empty control stack ignores it. */
        CHECK(h.wave_state_size == d->header.wave_state_size ||
              (d->header.control_stack_size == 0 && h.wave_state_size == 0));
        CHECK(gc_cwsr_decode(a, &h, img + h.control_stack_offset, h.control_stack_size, wave2,
                             h.wave_state_size, &d2, NULL) == GPUCORE_OK);
        CHECK(d2.wave_count == d->wave_count && d2.group_count == d->group_count);
        for (uint32_t i = 0; i < d->wave_count; i++) {
            const struct gc_wave *w = &d->waves[i], *v = &d2.waves[i];

            CHECK(v->group == w->group && v->group_leader == w->group_leader);
            CHECK(v->first_wave == w->first_wave && v->last_wave == w->last_wave);
            CHECK(v->se_id == w->se_id && v->scratch_id == w->scratch_id &&
                  v->scratch_en == w->scratch_en);
            CHECK(v->lanes == w->lanes && v->vgprs == w->vgprs && v->accvgprs == w->accvgprs &&
                  v->shared_vgprs == w->shared_vgprs && v->sgprs == w->sgprs &&
                  v->lds_size == w->lds_size);
            CHECK(v->record_size == w->record_size);
            CHECK(v->record_offset - h.wave_state_offset ==
                  w->record_offset - d->header.wave_state_offset);
            /* Same registers at the same places: the records are byte-identical. */
            CHECK(memcmp(wave2 + (v->record_offset - (h.wave_state_offset - h.wave_state_size)),
                         wave_area + (w->record_offset - wave_begin), w->record_size) == 0);
        }
        gc_cwsr_decoded_done(&d2);
        gc_free(img);
    }
    for (uint32_t i = 0; i < d->wave_count; i++) {
        free((void *)s[i].vgpr);
        free((void *)s[i].accvgpr);
        free((void *)s[i].shared_vgpr);
        free((void *)s[i].sgpr);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct gc_arch *a;
    struct gc_cwsr_header h;
    struct gc_cwsr_decoded d, before;
    gpucore_diag_t diag;
    gpucore_status_t st;
    const uint8_t *ctl, *wave;
    size_t rest, ctl_len, wave_len;
    uint64_t wave_begin, top;

    if (size < 1 + GC_CWSR_HEADER_SIZE)
        return 0;
    a = &gc_arch_table[data[0] % gc_arch_count()];
    CHECK(gc_cwsr_header_decode(data + 1, GC_CWSR_HEADER_SIZE, &h) == GPUCORE_OK);
    ctl = data + 1 + GC_CWSR_HEADER_SIZE;
    rest = size - 1 - GC_CWSR_HEADER_SIZE;
    ctl_len = h.control_stack_size < rest ? h.control_stack_size : rest;
    wave = ctl + ctl_len;
    wave_len = rest - ctl_len;

    memset(&d, 0x5a, sizeof(d));
    before = d;
    memset(&diag, 0, sizeof(diag));
    st = gc_cwsr_decode(a, &h, ctl, ctl_len, wave, wave_len, &d, &diag);
    if (st != GPUCORE_OK) {
        CHECK(st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_LIMIT ||
              st == GPUCORE_E_NOMEM);
        CHECK(diag.status == st);
        CHECK(memchr(diag.message, '\0', sizeof(diag.message)) && diag.message[0]);
        CHECK(st == GPUCORE_E_NOMEM || (diag.flags & GPUCORE_DIAG_HAS_OFFSET));
        CHECK(memcmp(&d, &before, sizeof(d)) == 0);
        return 0;
    }

    /* The header's consistency rules held. */
    CHECK(h.control_stack_size % 4 == 0 && h.wave_state_size % 4 == 0);
    wave_begin = (uint64_t)h.wave_state_offset - h.wave_state_size;
    CHECK((uint64_t)h.control_stack_offset + h.control_stack_size == wave_begin);
    CHECK(ctl_len == h.control_stack_size && wave_len >= h.wave_state_size);
    CHECK(memcmp(&d.header, &h, sizeof(h)) == 0);
    CHECK(d.wave_count <= h.control_stack_size / 4);
    CHECK(d.group_count <= d.wave_count);
    CHECK((d.wave_count == 0) == (d.waves == NULL));

    top = h.wave_state_offset;
    for (uint32_t i = 0; i < d.wave_count; i++)
        check_wave(a, &d, i, wave, wave_begin, &top);
    /* All of the wave area is records (unless the control stack is empty: then nothing is). */
    CHECK(top == wave_begin || h.control_stack_size == 0);

    round_trip(a, &d, wave, wave_begin);
    gc_cwsr_decoded_done(&d);
    return 0;
}
