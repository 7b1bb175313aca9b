/* SPDX-License-Identifier: MIT */
/*
 * A dispatch's device printf messages for the report (triage_internal.h, gc_tr_printf_json):
 * the printf buffer the kernel's hidden_printf_buffer argument points at, read from the core as
 * far as the core holds it, decoded with the code object's amdhsa.printf formats (devprintf.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "devprintf.h"
#include "gc_le.h"
#include "triage_internal.h"
#include "wave.h" /* GC_ASPACE_GLOBAL */

/* Bytes of a printf buffer read from a core: GC_DP_MAX_RECORDS records of a few arguments each
   fit many times over; the read is charged to the core's memory budget too. */
#define PRINTF_MAX_READ (4u << 20)

/* {offset, id, format, args, text, text_error} of one record. */
static json_t *record_json(const struct gc_dp_record *r, const uint8_t *buf)
{
    json_t *o = json_object(), *args = json_array();
    char fmt[1024], hex[160];

    gc_dp_escape(r->format->format, strlen(r->format->format), fmt, sizeof(fmt));
    for (uint32_t i = 0; i < r->format->nargs; i++) {
        gc_dp_arg_hex(r, buf, i, hex, sizeof(hex), NULL);
        json_array_append_new(args, json_string(hex));
    }
    json_object_set_new(o, GC_TK_OFFSET, gc_json_uint(r->offset));
    json_object_set_new(o, GC_TK_ID, gc_json_uint(r->id));
    json_object_set_new(o, "format", json_string(fmt));
    json_object_set_new(o, GC_TK_ARGS, args);
    json_object_set_new(o, GC_TK_TEXT, r->text ? json_string(r->text) : json_null());
    json_object_set_new(o, GC_TK_TEXT_ERROR,
                        r->format->mismatch[0]
                                ? json_sprintf("the format's metadata is not trusted: %s",
                                               r->format->mismatch)
                                : json_null());
    return o;
}

/* The buffer's members into @p o from the @p held bytes read at its start. */
static void buffer_json(const struct gc_dp_formats *f, const char *formats_error,
                        const uint8_t *buf, uint64_t held, uint64_t room, json_t *o)
{
    struct gc_dp_buffer *b = NULL;
    json_t *recs = json_array();
    gpucore_diag_t d;
    char problem[GPUCORE_DIAG_MESSAGE_SIZE + 128] = "";

    if (!f)
        snprintf(problem, sizeof(problem), "the code object's printf formats cannot be read: %s",
                 formats_error && formats_error[0] ? formats_error : "none given");
    else if (gc_dp_decode(f, buf, held, &b, &d) != GPUCORE_OK)
        snprintf(problem, sizeof(problem), "%s", d.message);
    if (held >= GC_DP_HEADER) {
        uint32_t size = gc_le32_get(buf + 4);

        json_object_set_new(o, GC_TK_USED, gc_json_uint(gc_le32_get(buf)));
        json_object_set_new(o, GC_TK_SIZE, gc_json_uint(size));
        if (!problem[0] && b && !b->problem[0] && size > room)
            snprintf(problem, sizeof(problem),
                     "the header says a %" PRIu32 "-byte buffer, its allocation holds %" PRIu64
                     " bytes from the buffer's address", size, room);
    } else {
        json_object_set_new(o, GC_TK_USED, json_null());
        json_object_set_new(o, GC_TK_SIZE, json_null());
    }
    if (b && !problem[0] && b->problem[0])
        snprintf(problem, sizeof(problem), "%s", b->problem);
    for (uint32_t i = 0; b && i < b->nrecords; i++)
        json_array_append_new(recs, record_json(&b->records[i], buf));
    json_object_set_new(o, GC_TK_HELD, gc_json_uint(held));
    json_object_set_new(o, GC_TK_TRUNCATED, json_boolean(b && b->truncated));
    json_object_set_new(o, GC_TK_RECORDS, recs);
    json_object_set_new(o, GC_TK_PROBLEM, gc_json_str_or_null(problem));
    gc_dp_buffer_free(b);
}

void gc_tr_printf_json(const struct gc_triage *t, const struct gc_dp_formats *formats,
                       const char *formats_error, uint64_t address, uint64_t room, json_t *o)
{
    json_t *p;
    uint8_t *buf = NULL;
    uint64_t want, held = 0;
    gpucore_diag_t d;
    gpucore_status_t st;

    if (!address) {
        json_object_set_new(o, GC_TK_PRINTF, json_null());
        return;
    }
    p = json_object();
    json_object_set_new(p, GC_TK_ADDRESS, gc_json_hex(address));
    want = room < PRINTF_MAX_READ ? room : PRINTF_MAX_READ;
    if (address > UINT64_MAX - want)
        want = UINT64_MAX - address;
    if (gpucore_core_mem_reserve(t->core, want, "the printf buffer", &d) != GPUCORE_OK) {
        json_object_set_new(p, GC_TK_HELD, gc_json_uint(0));
        json_object_set_new(p, GC_TK_TRUNCATED, json_false());
        json_object_set_new(p, GC_TK_RECORDS, json_array());
        json_object_set_new(p, GC_TK_PROBLEM, json_sprintf("not read: %s", d.message));
        json_object_set_new(o, GC_TK_PRINTF, p);
        return;
    }
    buf = gc_malloc(want ? want : 1);
    st = buf ? gc_image_read(t->img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, address, buf, want, &held,
                             &d)
             : GPUCORE_E_NOMEM;
    if (st == GPUCORE_E_NOMEM)
        held = 0;
    if (held < GC_DP_HEADER) {
        json_object_set_new(p, GC_TK_USED, json_null());
        json_object_set_new(p, GC_TK_SIZE, json_null());
        json_object_set_new(p, GC_TK_HELD, gc_json_uint(held));
        json_object_set_new(p, GC_TK_TRUNCATED, json_false());
        json_object_set_new(p, GC_TK_RECORDS, json_array());
        json_object_set_new(p, GC_TK_PROBLEM,
                            st == GPUCORE_E_NOMEM ? json_string("out of memory for the printf buffer")
                            : st != GPUCORE_OK
                                    ? json_sprintf("the buffer's header is not in the core (%s)",
                                                   d.message)
                                    : json_sprintf("its allocation holds %" PRIu64 " bytes from "
                                                   "the buffer's address, fewer than the %u-byte "
                                                   "header", held, GC_DP_HEADER));
    } else {
        buffer_json(formats, formats_error, buf, held, room, p);
    }
    gc_free(buf);
    gpucore_core_mem_release(t->core, want);
    json_object_set_new(o, GC_TK_PRINTF, p);
}
