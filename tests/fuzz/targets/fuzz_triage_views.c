/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for `gpucore analyze`'s per-wave views (analyze/triage.h): the input is a core
 * file (plain or compressed), opened with gpucore_core_open_memory and gc_triage_open; then
 * `waves` is listed a wave at a time with every filter, and regs, disasm and mem are asked of
 * the first and the last wave.
 *
 * Invariants (abort() on violation): gc_triage_open returns a documented status; the head of
 * `waves` counts exactly the waves the iteration lists, in ascending order, each record's
 * "index" the one asked for and its "queue" a queue of the core; a stopped wave's record has
 * its instruction or why there is none, a running wave's neither; the filters partition the
 * waves (the queues' counts sum to the whole, --faulting lists the records marked faulting,
 * --stopped those marked stopped, --wave N one); a queue the core does not have is refused
 * with GPUCORE_E_NOTFOUND, blaming the request; the other views answer with a document or a
 * documented failure with its message; and once the triage is closed the core's memory budget
 * is back where it was before it was opened (the instruction cache and everything else given
 * back), but for a compressed core's decoded frames, which the reader keeps in its cache
 * (GPUCORE_FRAME_CACHE_BYTES at most).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpucore/core.h>

#include "image.h"
#include "triage.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t mem_used(const gpucore_core_t *core)
{
    struct gpucore_core_mem m;

    CHECK(gpucore_core_mem_get(core, &m) == GPUCORE_OK);
    return m.used;
}

/* Whether @p key of @p o is a string (1), null (0); abort otherwise. */
static int is_text(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    CHECK(json_is_string(v) || json_is_null(v));
    return json_is_string(v);
}

/* List the waves @p req asks for, checking each record; returns how many, and into *ret_marked
   how many have "faulting" (@p mark "faulting") or "stopped" true. */
static uint32_t list(const struct gc_triage *t, const struct gc_triage_request *req,
                     const char *mark, uint32_t *ret_marked)
{
    struct gc_triage_error err = { 0 };
    json_t *head = gc_triage_waves_head(t, req, &err);
    uint32_t n = 0, marked = 0, prev = UINT32_MAX, nq = gc_image_queue_count(t->img);

    if (!head) {
        CHECK(err.diag.status == GPUCORE_E_NOMEM && err.blame == GC_TRIAGE_BLAME_MEMORY);
        *ret_marked = 0;
        return UINT32_MAX;
    }
    CHECK(json_object_get(head, "waves") == NULL);
    for (uint32_t i = gc_triage_waves_next(t, req, 0); i != UINT32_MAX;
         i = gc_triage_waves_next(t, req, i + 1)) {
        json_t *w = gc_triage_waves_item(t, req, i);
        int stopped, insn, why;

        CHECK(prev == UINT32_MAX || i > prev);
        prev = i;
        n++;
        if (!w)
            continue; /* out of memory */
        CHECK(json_integer_value(json_object_get(w, "index")) == (json_int_t)i);
        CHECK(json_integer_value(json_object_get(w, "queue")) < (json_int_t)nq);
        stopped = json_is_true(json_object_get(w, "stopped"));
        insn = is_text(w, "instruction");
        why = is_text(w, "instruction_error");
        if (stopped || req->wave >= 0)
            CHECK(insn + why == 1);
        else
            CHECK(!insn && !why);
        if (mark && json_is_true(json_object_get(w, mark)))
            marked++;
        json_decref(w);
    }
    CHECK((json_int_t)n == json_integer_value(json_object_get(head, "count")));
    json_decref(head);
    *ret_marked = marked;
    return n;
}

/* A builder's answer: a document, or a failure with a status and a message. */
static void answered(json_t *doc, const struct gc_triage_error *err)
{
    if (doc) {
        CHECK(json_is_string(json_object_get(doc, "schema")));
        json_decref(doc);
        return;
    }
    CHECK(err->diag.status != GPUCORE_OK && err->diag.message[0]);
}

/* regs, disasm (at the wave's PC) and mem (its LDS and 64 bytes of global memory at its PC). */
static void wave_views(const struct gc_triage *t, uint32_t wave)
{
    struct gc_triage_request req = { .wave = wave, .queue = -1, .size = 64, .space = "local",
                                     .before = 4, .after = 4 };
    struct gc_triage_error err = { 0 };
    const struct gc_image_wave *w = gc_image_wave(t->img, wave);

    answered(gc_triage_regs(t, &req, &err), &err);
    memset(&err, 0, sizeof(err));
    answered(gc_triage_disasm(t, &req, &err), &err);
    memset(&err, 0, sizeof(err));
    answered(gc_triage_mem(t, &req, &err), &err);
    req.space = "global";
    req.has_address = 1;
    req.address = w ? w->pc : 0;
    memset(&err, 0, sizeof(err));
    answered(gc_triage_mem(t, &req, &err), &err);
}

static void views(const struct gc_triage *t)
{
    struct gc_triage_request req = { .wave = -1, .queue = -1 };
    struct gc_triage_error err = { 0 };
    uint32_t nq = gc_image_queue_count(t->img), nw = gc_image_wave_count(t->img);
    uint32_t all, stopped, faulting, n, marked, sum = 0;
    struct gc_triage_request f = req;

    all = list(t, &req, "stopped", &stopped);
    if (all == UINT32_MAX || list(t, &req, "faulting", &faulting) == UINT32_MAX)
        return;
    CHECK(all == nw);
    f.stopped = 1;
    n = list(t, &f, NULL, &marked);
    CHECK(n == UINT32_MAX || n == stopped);
    f = req;
    f.faulting = 1;
    n = list(t, &f, NULL, &marked);
    CHECK(n == UINT32_MAX || n == faulting);
    for (uint32_t q = 0; q < nq; q++) {
        req.queue = q;
        n = list(t, &req, NULL, &marked);
        if (n == UINT32_MAX)
            return;
        sum += n;
    }
    CHECK(sum == all);
    req.queue = nq;
    CHECK(!gc_triage_waves_head(t, &req, &err));
    CHECK(err.diag.status == GPUCORE_E_NOTFOUND && err.blame == GC_TRIAGE_BLAME_REQUEST);
    req.queue = -1;
    if (nw) {
        req.wave = nw - 1;
        n = list(t, &req, NULL, &marked);
        CHECK(n == UINT32_MAX || n == 1);
        wave_views(t, 0);
        wave_views(t, nw - 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpucore_core_t *core = NULL;
    struct gc_triage t = { .path = "fuzz.core" };
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    struct gpucore_core_info info;
    uint64_t before;

    if (gpucore_core_open_memory(data, size, NULL, &core, NULL) != GPUCORE_OK)
        return 0;
    t.core = core;
    before = mem_used(core);
    st = gc_triage_open(&t, &d);
    if (st != GPUCORE_OK) {
        CHECK(!t.img && d.message[0]);
        CHECK(st == GPUCORE_E_NOTFOUND || st == GPUCORE_E_CORRUPT || st == GPUCORE_E_VERSION ||
              st == GPUCORE_E_NOMEM || st == GPUCORE_E_LIMIT);
    } else {
        views(&t);
        gc_triage_close(&t);
    }
    if (gpucore_core_get_info(core, &info) == GPUCORE_OK && (info.flags & GPUCORE_INFO_COMPRESSED))
        CHECK(mem_used(core) <= before + GPUCORE_FRAME_CACHE_BYTES);
    else
        CHECK(mem_used(core) == before);
    gpucore_core_close(core);
    return 0;
}
