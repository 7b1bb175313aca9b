/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for analyze/image: the input is a core file (plain or compressed). Opened with
 * gpucore_core_open_memory, then gc_image_open, then every agent, queue, dispatch, wave, code
 * object and problem is walked and a few reads are made in every address space.
 *
 * Invariants (abort() on violation): gc_image_open returns a documented status, with a message
 * on failure and no image; on success every index and count is consistent (waves and
 * dispatches inside their queue's range, a queue's dispatches its own and in packet order,
 * no more than the kernel-dispatch packets it counted, group leaders and dispatches in range,
 * problems non-empty), reads return documented statuses with *ret_done never above the size,
 * and symbolization of every PC succeeds or says NOTFOUND. The same bytes opened as a split
 * dump (gc_image_open_split, the host core being a second view of them) rebuild the same
 * process. The work is bounded by the input (plain cores): save areas allocate at most as many
 * bytes as the input has, and every queue reads at most as many AQL packets as fit in it; and
 * what the image keeps stays within its share of the core's memory budget.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/core.h>

#include "image.h"
#include "image_internal.h"
#include "wave.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_read(struct gc_image *img, uint32_t wave, uint32_t space, uint32_t lane,
                       uint64_t addr, uint64_t size)
{
    uint8_t buf[64];
    uint64_t done = UINT64_MAX;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    if (size > sizeof(buf))
        size = sizeof(buf);
    st = gc_image_read(img, wave, space, lane, addr, buf, size, &done, &d);
    if (done > size)
        abort();
    switch (st) {
    case GPUCORE_OK:
        if (done != size)
            abort();
        break;
    case GPUCORE_E_UNAVAILABLE:
    case GPUCORE_E_LIMIT:
    case GPUCORE_E_INVAL:
    case GPUCORE_E_CORRUPT:
    case GPUCORE_E_NOMEM:
        if (!d.message[0])
            abort();
        break;
    default:
        abort();
    }
}

/* A split dump whose host core is the same bytes: the split reads (the GPU file, then the host
   core, range by range) rebuild the same process. */
static void check_split(const uint8_t *data, size_t size, gpucore_core_t *core, uint32_t na,
                        uint32_t nq, uint32_t nd, uint32_t nw)
{
    gpucore_core_t *host = NULL;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    if (gpucore_core_open_memory(data, size, NULL, &host, NULL) != GPUCORE_OK)
        abort(); /* the same bytes opened once already */
    st = gc_image_open_split(core, host, &img, &d);
    if (st == GPUCORE_OK) {
        if (gc_image_agent_count(img) != na || gc_image_queue_count(img) != nq ||
            gc_image_dispatch_count(img) != nd || gc_image_wave_count(img) != nw)
            abort();
        check_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, UINT64_MAX - 3, 16);
    } else if (st != GPUCORE_E_NOMEM || img || !d.message[0]) {
        abort();
    }
    gc_image_close(img);
    gpucore_core_close(host);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpucore_core_t *core = NULL;
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;
    char name[GC_IMAGE_NAME_MAX];
    uint64_t off;

    if (gpucore_core_open_memory(data, size, NULL, &core, NULL) != GPUCORE_OK)
        return 0;
    st = gc_image_open(core, &img, &d);
    if (st != GPUCORE_OK) {
        if (img || !d.message[0])
            abort();
        if (st != GPUCORE_E_NOTFOUND && st != GPUCORE_E_CORRUPT && st != GPUCORE_E_VERSION &&
            st != GPUCORE_E_NOMEM && st != GPUCORE_E_LIMIT)
            abort();
        gpucore_core_close(core);
        return 0;
    }
    uint32_t na = gc_image_agent_count(img), nq = gc_image_queue_count(img);
    uint32_t nd = gc_image_dispatch_count(img), nw = gc_image_wave_count(img);
    uint32_t nc = gc_image_code_object_count(img);

    if (na != gc_image_note(img)->agent_count || nq != gc_image_note(img)->queue_count)
        abort();
    for (uint32_t i = 0; i < na; i++)
        if (gc_image_agent(img, i)->index != i || !gc_image_agent(img, i)->entry)
            abort();
    for (uint32_t i = 0; i < nq; i++) {
        const struct gc_image_queue *q = gc_image_queue(img, i);

        if (q->first_wave > nw || q->nwaves > nw - q->first_wave || q->first_dispatch > nd ||
            q->ndispatches > nd - q->first_dispatch)
            abort();
        if (q->agent != UINT32_MAX && q->agent >= na)
            abort();
        /* a queue's dispatches: its own, in packet order, of its active packets, and no more
           than the kernel-dispatch packets the image read */
        if (q->ndispatches > q->dispatch_packets)
            abort();
        for (uint32_t k = 0; k < q->ndispatches; k++) {
            const struct gc_image_dispatch *di = gc_image_dispatch(img, q->first_dispatch + k);

            if (di->queue != i || di->packet_id < q->read_id || di->packet_id >= q->write_id ||
                (k && di->packet_id <= gc_image_dispatch(img, q->first_dispatch + k - 1)->packet_id))
                abort();
        }
    }
    for (uint32_t i = 0; i < nd; i++) {
        const struct gc_image_dispatch *di = gc_image_dispatch(img, i);

        if (di->queue >= nq || (di->code_object != UINT32_MAX && di->code_object >= nc) ||
            !di->kernel_name)
            abort();
    }
    for (uint32_t i = 0; i < nc; i++) {
        const struct gc_image_code_object *co = gc_image_code_object(img, i);

        if (!co->source || (co->bytes == NULL) != (strcmp(co->source, "missing") == 0))
            abort();
    }
    for (uint32_t i = 0; i < nw; i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);

        if (w->queue >= nq || w->group_leader >= nw ||
            (w->dispatch != UINT32_MAX && w->dispatch >= nd))
            abort();
        st = gc_image_symbolize(img, w->pc, name, sizeof(name), &off);
        if (st != GPUCORE_OK && st != GPUCORE_E_NOTFOUND)
            abort();
        if (i < 4) {
            check_read(img, i, GC_ASPACE_LOCAL, 0, 0, 16);
            check_read(img, i, GC_ASPACE_LOCAL, 0, w->wave.lds_size, 4);
            check_read(img, i, GC_ASPACE_PRIVATE_WAVE, 0, 0, 16);
            check_read(img, i, GC_ASPACE_PRIVATE_LANE, w->lanes - 1, 6, 9);
            check_read(img, i, GC_ASPACE_GENERIC, 0, 0x2000000000000ull | 4, 8);
            check_read(img, i, GC_ASPACE_GENERIC, 0, 0x1fffffffffffcull, 8);
        }
    }
    for (uint32_t i = 0; i < gc_image_problem_count(img); i++)
        if (!gc_image_problem(img, i) || !gc_image_problem(img, i)[0])
            abort();
    if (gc_image_problem(img, gc_image_problem_count(img)) || gc_image_wave(img, nw))
        abort();
    for (uint32_t i = 0; i < nd && i < 4; i++)
        check_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, gc_image_dispatch(img, i)->kernel_object,
                   64);
    check_read(img, UINT32_MAX, GC_ASPACE_GLOBAL, 0, UINT64_MAX - 3, 16);
    check_read(img, nw, GC_ASPACE_LOCAL, 0, 0, 4);
    check_read(img, 0, 99, 0, 0, 4);
    {
        struct gpucore_core_info info;
        struct gc_image_stats stats;

        gc_image_get_stats(img, &stats);
        /* what the image keeps is charged, within its share of the budget */
        if (img->mem_charged > img->mem_limit)
            abort();
        if (gpucore_core_get_info(core, &info) == GPUCORE_OK &&
            !(info.flags & GPUCORE_INFO_COMPRESSED) &&
            /* a partly held wave area costs up to GC_IMAGE_PARTIAL_AREA_FACTOR x its charge */
            (stats.cwsr_bytes > (uint64_t)size * GC_IMAGE_PARTIAL_AREA_FACTOR ||
             stats.ring_slots > (uint64_t)nq * (size / 64u + 1u)))
            abort();
    }
    gc_image_close(img);
    check_split(data, size, core, na, nq, nd, nw);
    gpucore_core_close(core);
    return 0;
}
