/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for analyze/devprintf: the input is amdhsa.printf entries, one a line, then a NUL
 * byte, then the bytes of a printf buffer (docs/device-printf.md). gc_dp_formats_parse()
 * returns a documented status with a message and no formats, or formats sorted by unique id;
 * gc_dp_decode() walks only inside the bytes given and the used count, in record order, with
 * at most GC_DP_MAX_RECORDS records, texts of bounded length only for trusted formats, and
 * every argument's hex inside its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devprintf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ENTRIES 64u /* lines taken as entries: enough to mix ids and mismatches */

static void check_formats(const struct gc_dp_formats *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->f[i].id == 0 || (i && f->f[i].id <= f->f[i - 1].id) ||
            f->f[i].nargs > GC_DP_MAX_ARGS || !f->f[i].format)
            abort();
    }
}

static void check_buffer(const struct gc_dp_buffer *b, const uint8_t *buf, uint64_t held)
{
    uint64_t end = 0;

    if (b->nrecords > GC_DP_MAX_RECORDS || b->held != held ||
        b->truncated != (held < (uint64_t)GC_DP_HEADER + b->used && b->size >= GC_DP_HEADER &&
                         b->used <= b->size - GC_DP_HEADER))
        abort();
    for (uint32_t i = 0; i < b->nrecords; i++) {
        const struct gc_dp_record *r = &b->records[i];
        char hex[160];

        if (r->offset < GC_DP_HEADER || r->offset < end || r->format->id != r->id)
            abort();
        end = (uint64_t)r->offset + r->format->record_size;
        if (end > held || end > (uint64_t)GC_DP_HEADER + b->used)
            abort();
        if (!r->text != !!r->format->mismatch[0])
            abort();
        if (r->text && strlen(r->text) > GC_DP_MAX_TEXT + 3)
            abort();
        for (uint32_t k = 0; k < r->format->nargs; k++) {
            gc_dp_arg_hex(r, buf, k, hex, sizeof(hex), NULL);
            if (strlen(hex) >= sizeof(hex))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    char *text = malloc(tlen + 1), *lines[MAX_ENTRIES], *s;
    uint32_t n = 0;
    struct gc_dp_formats *f = NULL;
    struct gc_dp_buffer *b = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    if (!text)
        abort();
    memcpy(text, data, tlen);
    text[tlen] = '\0';
    for (s = text; n < MAX_ENTRIES && s; n++) {
        lines[n] = s;
        s = strchr(s, '\n');
        if (s)
            *s++ = '\0';
    }
    st = gc_dp_formats_parse(lines, n, &f, &d);
    if (st != GPUCORE_OK) {
        if (f || !d.message[0] || (st != GPUCORE_E_CORRUPT && st != GPUCORE_E_LIMIT))
            abort();
        free(text);
        return 0;
    }
    check_formats(f);
    if (nul) {
        const uint8_t *buf = nul + 1;
        uint64_t held = size - tlen - 1;

        st = gc_dp_decode(f, buf, held, &b, &d);
        if (st == GPUCORE_OK)
            check_buffer(b, buf, held);
        else if (b || st != GPUCORE_E_UNAVAILABLE || held >= GC_DP_HEADER)
            abort();
        gc_dp_buffer_free(b);
    }
    gc_dp_formats_free(f);
    free(text);
    return 0;
}
