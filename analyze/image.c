/* SPDX-License-Identifier: MIT */
/*
 * The GPU process image of a core: agents, queues, dispatches, waves (image.h). Code objects
 * and symbols are in image_co.c, memory reads in image_mem.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_le.h"
#include "gc_rocr.h"
#include "image_internal.h"
#include "wave.h"

/* hsa_packet_type_t KERNEL_DISPATCH in bits 7:0 of the packet header */
#define AQL_TYPE_KERNEL_DISPATCH 2u
#define AQL_PACKET_SIZE          64u
#define KD_SIZE                  64u
#define KD_ENTRY_OFFSET          16u

/* ---- small helpers --------------------------------------------------------------------------- */

gpucore_status_t gc_image_mem_read(struct gc_image *img, uint64_t addr, void *buf, uint64_t size,
                                   uint64_t *ret_done)
{
    uint64_t done = 0;
    gpucore_status_t st = img->mem.read(img->mem.user, addr, buf, size, &done);

    if (done > size)
        done = size; /* never trust a source beyond what was asked */
    if (ret_done)
        *ret_done = st == GPUCORE_OK ? size : done;
    return st;
}

const char *gc_image_mem_errmsg(struct gc_image *img)
{
    const char *m = img->mem.errmsg ? img->mem.errmsg(img->mem.user) : NULL;

    return m ? m : "";
}

/* The core file as a memory source. */
static gpucore_status_t core_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                  uint64_t *ret_done)
{
    return gpucore_core_read(user, addr, buf, size, ret_done);
}

static const char *core_errmsg(void *user)
{
    return gpucore_core_errmsg(user);
}

gpucore_status_t gc_image_problemf(struct gc_image *img, const char *fmt, ...)
{
    char buf[320];
    va_list ap;

    if (img->nproblems >= GC_IMAGE_MAX_PROBLEMS)
        return GPUCORE_OK; /* enough said */
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char *s = gc_strdup(buf);
    if (!s)
        return GPUCORE_E_NOMEM;
    char **slot = gc_image_grow((void **)&img->problems, &img->nproblems, &img->cap_problems,
                                sizeof(char *), GC_IMAGE_MAX_PROBLEMS);
    if (!slot) {
        gc_free(s);
        return GPUCORE_E_NOMEM;
    }
    *slot = s;
    return GPUCORE_OK;
}

void *gc_image_grow(void **arr, uint32_t *n, uint32_t *cap, size_t elem, uint32_t max)
{
    if (*n >= max)
        return NULL;
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 8;
        if (ncap > max)
            ncap = max;
        void *p = gc_realloc_array(*arr, ncap, elem);
        if (!p)
            return NULL;
        *arr = p;
        *cap = ncap;
    }
    uint8_t *e = (uint8_t *)*arr + (size_t)*n * elem;
    memset(e, 0, elem);
    (*n)++;
    return e;
}

/* ---- the memory budget (image_internal.h) ------------------------------------------------------ */

int gc_image_charge(struct gc_image *img, uint64_t bytes)
{
    if (!img->core)
        return 1;
    if (img->mem_keep_free > img->mem_limit - img->mem_charged ||
        bytes > img->mem_limit - img->mem_charged - img->mem_keep_free ||
        gpucore_core_mem_reserve(img->core, bytes, "the GPU image", NULL) != GPUCORE_OK)
        return 0;
    img->mem_charged += bytes;
    return 1;
}

void gc_image_uncharge(struct gc_image *img, uint64_t bytes)
{
    if (!img->core)
        return;
    if (bytes > img->mem_charged)
        bytes = img->mem_charged;
    gpucore_core_mem_release(img->core, bytes);
    img->mem_charged -= bytes;
}

const char *gc_image_budget_words(struct gc_image *img)
{
    char lim[32];

    snprintf(img->budget_words, sizeof(img->budget_words),
             "the memory budget is spent (the image takes at most %s, 1/%u of the budget; "
             "GPUCORE_MEM_BUDGET raises it)",
             gc_format_size(img->mem_limit, lim, sizeof(lim)), GC_IMAGE_BUDGET_SHARE);
    return img->budget_words;
}

/* The image's share of @p core's budget: 1/GC_IMAGE_BUDGET_SHARE of it (not of what is left,
   which the frame cache makes vary: an image of a core keeps the same whenever it is built). */
static void set_mem_limit(struct gc_image *img, gpucore_core_t *core)
{
    struct gpucore_core_mem m;

    img->mem_limit = UINT64_MAX;
    if (gpucore_core_mem_get(core, &m) == GPUCORE_OK && m.budget != GPUCORE_MEM_BUDGET_UNLIMITED)
        img->mem_limit = m.budget / GC_IMAGE_BUDGET_SHARE;
}

void *gc_image_grow_charged(struct gc_image *img, void **arr, uint32_t *n, uint32_t *cap,
                            size_t elem, uint32_t max, gpucore_status_t *ret_st)
{
    uint8_t *e;

    *ret_st = GPUCORE_OK;
    if (*n >= max) {
        *ret_st = GPUCORE_E_LIMIT;
        return NULL;
    }
    if (*n == *cap) {
        /* double while the budget allows it, then smaller steps, down to one element */
        uint32_t step = *cap ? *cap : 8, ncap;
        void *p;

        for (;; step /= 2) {
            ncap = step > max - *cap ? max : *cap + step;
            if (gc_image_charge(img, (uint64_t)(ncap - *cap) * elem))
                break;
            if (step <= 1) {
                *ret_st = GPUCORE_E_LIMIT;
                return NULL;
            }
        }
        p = gc_realloc_array(*arr, ncap, elem);
        if (!p) {
            gc_image_uncharge(img, (uint64_t)(ncap - *cap) * elem);
            *ret_st = GPUCORE_E_NOMEM;
            return NULL;
        }
        *arr = p;
        *cap = ncap;
    }
    e = (uint8_t *)*arr + (size_t)*n * elem;
    memset(e, 0, elem);
    (*n)++;
    return e;
}

/* Give back the capacity of a kept array beyond its @p n elements (the build is over). */
static void *shrink_charged(struct gc_image *img, void *arr, uint32_t n, uint32_t *cap,
                            size_t elem)
{
    void *p;

    if (!n || n >= *cap)
        return arr;
    p = gc_realloc_array(arr, n, elem);
    if (!p)
        return arr;
    gc_image_uncharge(img, (uint64_t)(*cap - n) * elem);
    *cap = n;
    return p;
}

/* Read exactly @p size bytes of process memory: 1 read, 0 not in the core, <0 fatal status. */
static int read_exact(struct gc_image *img, uint64_t addr, void *buf, uint64_t size,
                      gpucore_status_t *fatal)
{
    gpucore_status_t st = gc_image_mem_read(img, addr, buf, size, NULL);

    if (st == GPUCORE_OK)
        return 1;
    if (st == GPUCORE_E_UNAVAILABLE)
        return 0;
    if (st == GPUCORE_E_NOMEM) {
        *fatal = st;
        return -1;
    }
    return 0; /* a damaged compressed frame reads as missing */
}

/* ---- what the source holds ---------------------------------------------------------------- */

static int run_cmp(const void *a, const void *b)
{
    const struct gc_image_run *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The runs of segment data the core files hold ([vaddr, vaddr + p_filesz) of every PT_LOAD),
   merged where they touch or overlap (a split dump's two files may both hold a range). */
static gpucore_status_t build_runs(struct gc_image *img, gpucore_core_t *a, gpucore_core_t *b)
{
    gpucore_core_t *cores[2] = { a, b };
    uint64_t n = 0, held = 0;
    uint32_t k = 0;

    for (int c = 0; c < 2; c++)
        if (cores[c])
            n += gpucore_core_segment_count(cores[c]);
    img->have_runs = 1;
    img->cwsr_budget = 0;
    if (!n)
        return GPUCORE_OK;
    img->runs = gc_calloc_array(n, sizeof(*img->runs));
    if (!img->runs)
        return GPUCORE_E_NOMEM;
    for (int c = 0; c < 2; c++) {
        uint32_t ns = cores[c] ? gpucore_core_segment_count(cores[c]) : 0;

        for (uint32_t i = 0; i < ns; i++) {
            struct gpucore_segment seg;

            if (gpucore_core_segment(cores[c], i, &seg) != GPUCORE_OK || !seg.filesz)
                continue;
            img->runs[k].lo = seg.vaddr;
            img->runs[k].hi = seg.vaddr + (seg.filesz < seg.memsz ? seg.filesz : seg.memsz);
            if (img->runs[k].hi > img->runs[k].lo)
                k++;
        }
    }
    qsort(img->runs, k, sizeof(*img->runs), run_cmp);
    img->nruns = 0;
    for (uint32_t i = 0; i < k; i++) {
        struct gc_image_run *last = img->nruns ? &img->runs[img->nruns - 1] : NULL;

        if (last && img->runs[i].lo <= last->hi) {
            if (img->runs[i].hi > last->hi)
                last->hi = img->runs[i].hi;
            continue;
        }
        img->runs[img->nruns++] = img->runs[i];
    }
    for (uint32_t i = 0; i < img->nruns; i++) {
        img->runs[i].before = held;
        held += img->runs[i].hi - img->runs[i].lo;
    }
    img->runs_held = held;
    img->cwsr_budget = held;
    return GPUCORE_OK;
}

/* Index of the first run ending after @p addr (nruns if none). */
static uint32_t run_after(const struct gc_image *img, uint64_t addr)
{
    uint32_t lo = 0, hi = img->nruns;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (img->runs[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Bytes held below @p addr. */
static uint64_t held_below(const struct gc_image *img, uint64_t addr)
{
    uint32_t i = run_after(img, addr);

    if (i == img->nruns)
        return img->nruns ? img->runs[i - 1].before + img->runs[i - 1].hi - img->runs[i - 1].lo
                          : 0;
    return img->runs[i].before + (addr > img->runs[i].lo ? addr - img->runs[i].lo : 0);
}

/* Bytes of [addr, addr + size) the source holds (size when it cannot say). No wrap. */
static uint64_t held_bytes(const struct gc_image *img, uint64_t addr, uint64_t size)
{
    if (!img->have_runs)
        return size;
    return held_below(img, addr + size) - held_below(img, addr);
}

/* The first byte of [addr, addr + size) the source does not hold (addr + size if none). */
static uint64_t first_gap(const struct gc_image *img, uint64_t addr, uint64_t size)
{
    uint32_t i;

    if (!img->have_runs)
        return addr + size;
    i = run_after(img, addr);
    if (i == img->nruns || img->runs[i].lo > addr)
        return addr;
    return img->runs[i].hi < addr + size ? img->runs[i].hi : addr + size;
}

void gc_image_get_stats(const struct gc_image *img, struct gc_image_stats *ret)
{
    ret->ring_slots = img ? img->ring_slots : 0;
    ret->cwsr_bytes = img ? img->cwsr_bytes : 0;
}

/* The queue's problem (first one kept) and the image's list. */
static gpucore_status_t queue_problem(struct gc_image *img, struct gc_image_queue *q,
                                      const char *fmt, ...) GC_PRINTF(3, 4);
static gpucore_status_t queue_problem(struct gc_image *img, struct gc_image_queue *q,
                                      const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (!q->problem[0])
        snprintf(q->problem, sizeof(q->problem), "%s", buf);
    return gc_image_problemf(img, "queue %u: %s", q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK, buf);
}

/* ---- agents ---------------------------------------------------------------------------------- */

static gpucore_status_t build_agents(struct gc_image *img)
{
    const gpucore_amdgpu_note_t *n = img->note;
    const uint32_t need =
            GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT | GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;

    if (!n->agent_count)
        return GPUCORE_OK;
    img->agents = gc_calloc_array(n->agent_count, sizeof(*img->agents));
    if (!img->agents)
        return GPUCORE_E_NOMEM;
    img->nagents = n->agent_count;
    for (uint32_t i = 0; i < n->agent_count; i++) {
        struct gc_image_agent *a = &img->agents[i];
        const gpucore_kfd_device_entry_t *e = &n->agents[i];

        a->index = i;
        a->entry = e;
        a->arch = gc_arch_by_gfx_version(e->gfx_target_version);
        if (a->arch) {
            snprintf(a->name, sizeof(a->name), "%s", a->arch->name);
        } else {
            snprintf(a->name, sizeof(a->name), "Device %04x:%04x", e->vendor_id & 0xffffu,
                     e->device_id & 0xffffu);
            GC_TRY(gc_image_problemf(img,
                                     "agent %u (gpu_id 0x%x): gfx_target_version %u is not a "
                                     "known target; its waves are not decoded",
                                     i, e->gpu_id, e->gfx_target_version));
        }
        a->supports_debugging = a->arch && (e->capability & need) == need;
        if (a->arch && !a->supports_debugging)
            GC_TRY(gc_image_problemf(img,
                                     "agent %u (gpu_id 0x%x) does not advertise trap debugging "
                                     "with firmware support (capability 0x%x): AMD's library "
                                     "would not show its queues",
                                     i, e->gpu_id, e->capability));
    }
    return GPUCORE_OK;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Agents by (gpu_id, index), so each queue finds its agent in O(log agents); the first agent
   of a gpu_id wins, as in the note's order. */
static gpucore_status_t index_agents(struct gc_image *img)
{
    if (!img->nagents)
        return GPUCORE_OK;
    img->agent_by_gpu = gc_calloc_array(img->nagents, sizeof(uint64_t));
    if (!img->agent_by_gpu)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < img->nagents; i++)
        img->agent_by_gpu[i] = (uint64_t)img->agents[i].entry->gpu_id << 32 | i;
    qsort(img->agent_by_gpu, img->nagents, sizeof(uint64_t), u64_cmp);
    return GPUCORE_OK;
}

static uint32_t agent_of_gpu(const struct gc_image *img, uint32_t gpu_id)
{
    uint32_t lo = 0, hi = img->nagents;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (img->agent_by_gpu[mid] >> 32 < gpu_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < img->nagents && img->agent_by_gpu[lo] >> 32 == gpu_id)
        return (uint32_t)img->agent_by_gpu[lo];
    return UINT32_MAX;
}

/* ---- r_debug --------------------------------------------------------------------------------- */

static gpucore_status_t read_rdebug(struct gc_image *img)
{
    uint8_t rd[GC_ROCR_R_DEBUG_SIZE];
    struct gc_rocr_r_debug r_debug;
    gpucore_status_t fatal = GPUCORE_OK;
    uint64_t at = img->note->runtime.r_debug;
    int r;

    if (!at)
        return gc_image_problemf(img, "the runtime info has no r_debug address; code objects "
                                      "come from the embedded list only");
    r = read_exact(img, at, rd, sizeof(rd), &fatal);
    if (r < 0)
        return fatal;
    if (r == 0)
        return gc_image_problemf(img,
                                 "r_debug at 0x%" PRIx64 " is not in the core; the runtime "
                                 "version and the link map are unknown",
                                 at);
    gc_rocr_r_debug_decode(rd, &r_debug);
    img->r_version = r_debug.r_version;
    if (r_debug.r_state != 0)
        GC_TRY(gc_image_problemf(img,
                                 "r_debug at 0x%" PRIx64 " has r_state %u, not RT_CONSISTENT: "
                                 "AMD's library would list no code objects",
                                 at, r_debug.r_state));
    if (!gc_rocr_r_version_supported(img->r_version))
        return gc_image_problemf(img,
                                 "r_debug version %u is outside %u..%u, the versions gpucore "
                                 "supports; its link map is not followed",
                                 img->r_version, GC_ROCR_R_VERSION_MIN, GC_ROCR_R_VERSION_MAX);
    img->have_rdebug = 1;
    img->r_map = r_debug.r_map;
    return GPUCORE_OK;
}

/* ---- dispatches --------------------------------------------------------------------------------
 */

static int is_kernel_dispatch(const uint8_t *pkt)
{
    return (gc_le16_get(pkt) & 0xffu) == AQL_TYPE_KERNEL_DISPATCH;
}

/*
 * Keep the dispatch of kernel-dispatch packet @p id at @p at (@p pkt, its 64 bytes) of queue
 * @p q, charged to the memory budget: *ret is the dispatch, or NULL when the budget or
 * GC_IMAGE_MAX_DISPATCHES refuses it (*ret_why: GC_IMAGE_UNKEPT_BUDGET or _LIMIT). Its
 * kernel descriptor is read for the entry; one not in the core is counted for kd_problem().
 */
static gpucore_status_t keep_dispatch(struct gc_image *img, struct gc_image_queue *q, uint64_t id,
                                      uint64_t at, const uint8_t *pkt,
                                      struct gc_image_dispatch **ret, uint32_t *ret_why)
{
    struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    gpucore_status_t fatal = GPUCORE_OK, st;
    struct gc_image_dispatch *d;
    uint8_t kd[KD_SIZE];
    int r;

    *ret = NULL;
    d = gc_image_grow_charged(img, (void **)&img->dispatches, &img->ndispatches,
                              &img->cap_dispatches, sizeof(*d), GC_IMAGE_MAX_DISPATCHES, &st);
    if (!d) {
        *ret_why = img->ndispatches >= GC_IMAGE_MAX_DISPATCHES ? GC_IMAGE_UNKEPT_LIMIT
                                                                : GC_IMAGE_UNKEPT_BUDGET;
        return st == GPUCORE_E_LIMIT ? GPUCORE_OK : st;
    }
    d->index = img->ndispatches - 1;
    d->queue = q->index;
    d->packet_id = id;
    d->packet_address = at;
    d->header = gc_le16_get(pkt);
    d->setup = gc_le16_get(pkt + 2);
    for (int k = 0; k < 3; k++) {
        d->workgroup_size[k] = gc_le16_get(pkt + 4 + 2 * k);
        d->grid_size[k] = gc_le32_get(pkt + 12 + 4 * k);
    }
    d->private_segment_size = gc_le32_get(pkt + 24);
    d->group_segment_size = gc_le32_get(pkt + 28);
    d->kernel_object = gc_le64_get(pkt + 32);
    d->kernarg_address = gc_le64_get(pkt + 40);
    d->completion_signal = gc_le64_get(pkt + 56);
    r = d->kernel_object ? read_exact(img, d->kernel_object, kd, sizeof(kd), &fatal) : 0;
    if (r < 0)
        return fatal;
    if (r > 0) {
        d->kernel_entry = d->kernel_object + gc_le64_get(kd + KD_ENTRY_OFFSET);
    } else if (!qp->kd_missing++) {
        qp->kd_missing_kd = d->kernel_object;
        qp->kd_missing_id = id;
    }
    d->code_object = gc_image_code_object_at(img, d->kernel_object);
    d->kernel_name = gc_image_kernel_name(img, d->kernel_object, d->kernel_entry);
    q->ndispatches++;
    *ret = d;
    return GPUCORE_OK;
}

/* The dispatches kept whose kernel descriptor is not in the core, said once for the queue. */
static gpucore_status_t kd_problem(struct gc_image *img, struct gc_image_queue *q)
{
    struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    uint64_t n = qp->kd_missing;

    qp->kd_missing = 0;
    if (!n)
        return GPUCORE_OK;
    if (n == 1)
        return queue_problem(img, q,
                             "kernel descriptor 0x%" PRIx64 " of packet %" PRIu64
                             " is not in the core",
                             qp->kd_missing_kd, qp->kd_missing_id);
    return queue_problem(img, q,
                         "kernel descriptor 0x%" PRIx64 " of packet %" PRIu64 " is not in the "
                         "core, nor are the descriptors of %" PRIu64 " more packets",
                         qp->kd_missing_kd, qp->kd_missing_id, n - 1);
}

/* Stop keeping the queue's dispatches from packet @p id on, for @p why (GC_IMAGE_UNKEPT_*). */
static void stop_keeping(struct gc_image_queue_priv *qp, uint64_t id, uint32_t why)
{
    if (id < qp->unkept_from) {
        qp->unkept_from = id;
        qp->unkept_why = why;
    }
}

/* One active AQL packet @p id at @p at: a kernel dispatch is counted, and kept while the image
   keeps the queue's dispatches. */
static gpucore_status_t add_packet(struct gc_image *img, struct gc_image_queue *q, uint64_t id,
                                   uint64_t at, const uint8_t *pkt)
{
    struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    struct gc_image_dispatch *d;
    uint32_t why = 0;

    if (!is_kernel_dispatch(pkt))
        return GPUCORE_OK;
    q->dispatch_packets++;
    if (id >= qp->unkept_from)
        return GPUCORE_OK;
    GC_TRY(keep_dispatch(img, q, id, at, pkt, &d, &why));
    if (!d)
        stop_keeping(qp, id, why);
    return GPUCORE_OK;
}

/* Why a queue's dispatches from some packet on are not kept, in words. */
static const char *unkept_words(struct gc_image *img, uint32_t why, char *buf, size_t size)
{
    if (why == GC_IMAGE_UNKEPT_BUDGET)
        return gc_image_budget_words(img);
    if (why == GC_IMAGE_UNKEPT_LIMIT)
        snprintf(buf, size, "the image keeps at most %u dispatches", GC_IMAGE_MAX_DISPATCHES);
    else
        snprintf(buf, size, "the rings hold more than %u packets", GC_IMAGE_MAX_RING_SLOTS);
    return buf;
}

/* The kernel dispatches the walk counted but did not keep (not when only those a wave runs
   were asked for). */
static gpucore_status_t unkept_problem(struct gc_image *img, struct gc_image_queue *q)
{
    const struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    char buf[96];

    if (qp->unkept_why == GC_IMAGE_UNKEPT_ASKED || q->dispatch_packets <= q->ndispatches)
        return GPUCORE_OK;
    return queue_problem(img, q,
                         "%" PRIu64 " of its %" PRIu64 " kernel dispatches, from packet %" PRIu64
                         " on, are counted, not kept: %s",
                         q->dispatch_packets - q->ndispatches, q->dispatch_packets,
                         qp->unkept_from, unkept_words(img, qp->unkept_why, buf, sizeof(buf)));
}

/* Ring walk state: the first active packet not in the core, and how many were not. */
struct ring_walk {
    uint64_t missing, first_missing_id, first_missing_at;
    int stopped; /* the image-wide packet limit was reached */
};

/*
 * Read @p count consecutive active packets from @p id at @p at, all held by the source, 64 at
 * a time. A source that does not hold them after all (one that cannot say what it holds)
 * ends the walk at the first missing packet.
 */
static gpucore_status_t read_packets(struct gc_image *img, struct gc_image_queue *q, uint64_t id,
                                     uint64_t at, uint64_t count, struct ring_walk *w)
{
    uint8_t buf[64 * AQL_PACKET_SIZE];

    while (count && !w->stopped) {
        uint64_t c = count < 64 ? count : 64, done = 0, ok;
        gpucore_status_t st;

        if (img->ring_slots + c > GC_IMAGE_MAX_RING_SLOTS) {
            w->stopped = 1;
            /* a wave's dispatch past here is still read from its own packet */
            stop_keeping(&img->qpriv[q->index], id, GC_IMAGE_UNKEPT_RING_LIMIT);
            img->qpriv[q->index].walk_end = id;
            if (!img->ring_limit_said) {
                img->ring_limit_said = 1;
                GC_TRY(gc_image_problemf(img,
                                         "the AQL rings hold more than %u active packets in "
                                         "all: queue %u and later ones are not fully decoded",
                                         GC_IMAGE_MAX_RING_SLOTS,
                                         q->entry->queue_id & GPUCORE_KFD_QUEUE_ID_MASK));
            }
            return GPUCORE_OK;
        }
        img->ring_slots += c;
        st = gc_image_mem_read(img, at, buf, c * AQL_PACKET_SIZE, &done);
        if (st == GPUCORE_E_NOMEM)
            return st;
        ok = st == GPUCORE_OK ? c : done / AQL_PACKET_SIZE;
        for (uint64_t k = 0; k < ok; k++)
            GC_TRY(add_packet(img, q, id + k, at + k * AQL_PACKET_SIZE,
                              buf + k * AQL_PACKET_SIZE));
        if (ok < c) {
            if (!w->missing) {
                w->first_missing_id = id + ok;
                w->first_missing_at = at + ok * AQL_PACKET_SIZE;
            }
            w->missing += count - ok;
            w->stopped = 1;
            return GPUCORE_OK;
        }
        id += c;
        at += c * AQL_PACKET_SIZE;
        count -= c;
    }
    return GPUCORE_OK;
}

/*
 * The active packets [read_id, write_id) in id order, reading only the slots whose bytes the
 * source holds: the work is bounded by the file's content, not by the ring size it claims.
 * Slots it does not hold are counted; zero fill (p_memsz past p_filesz) holds no packet.
 */
static gpucore_status_t walk_ring(struct gc_image *img, struct gc_image_queue *q, uint64_t n,
                                  struct ring_walk *w)
{
    const uint64_t base = q->entry->ring_base_address;
    const uint64_t m = q->write_id - q->read_id, s0 = q->read_id % n;
    const uint64_t first = m < n - s0 ? m : n - s0;
    const struct {
        uint64_t slot, count, id;
    } part[2] = { { s0, first, q->read_id }, { 0, m - first, q->read_id + first } };

    for (int p = 0; p < 2 && !w->stopped; p++) {
        uint64_t k = 0;

        while (k < part[p].count && !w->stopped) {
            uint64_t at = base + (part[p].slot + k) * AQL_PACKET_SIZE;
            uint64_t left = part[p].count - k;
            uint64_t held = first_gap(img, at, left * AQL_PACKET_SIZE) - at;
            uint64_t whole = held / AQL_PACKET_SIZE, next, skip;
            uint32_t r;

            if (whole) {
                GC_TRY(read_packets(img, q, part[p].id + k, at, whole, w));
                k += whole;
                continue;
            }
            /* slot k is not (wholly) held: skip to the next slot the next run reaches */
            r = run_after(img, at + held);
            next = r < img->nruns ? img->runs[r].lo : UINT64_MAX;
            if (next <= at + held) /* a run holding part of the slot: skip past it */
                next = img->runs[r].hi;
            skip = next >= at + left * AQL_PACKET_SIZE
                           ? left
                           : (next - at + AQL_PACKET_SIZE - 1) / AQL_PACKET_SIZE;
            if (!skip)
                skip = 1;
            if (!w->missing) {
                w->first_missing_id = part[p].id + k;
                w->first_missing_at = at;
            }
            w->missing += skip;
            k += skip;
        }
    }
    return GPUCORE_OK;
}

static gpucore_status_t build_dispatches(struct gc_image *img, struct gc_image_queue *q)
{
    const gpucore_kfd_queue_entry_t *e = q->entry;
    const struct gc_arch *arch = img->agents[q->agent].arch;
    struct ring_walk w = { 0 };
    gpucore_status_t st;
    uint8_t probe;
    uint64_t n;

    if (e->ring_size == 0 || e->ring_size % AQL_PACKET_SIZE)
        return queue_problem(img, q, "ring size %u is not a whole number of 64-byte packets",
                             e->ring_size);
    n = e->ring_size / AQL_PACKET_SIZE;
    if (arch && n > gc_arch_max_queue_packets(arch))
        return queue_problem(img, q,
                             "ring of %" PRIu64 " packets is larger than the dispatch index "
                             "of %s can address",
                             n, arch->name);
    if (q->write_id < q->read_id)
        return queue_problem(img, q,
                             "write_dispatch_id %" PRIu64 " is below read_dispatch_id %" PRIu64,
                             q->write_id, q->read_id);
    if (q->write_id - q->read_id > n)
        return queue_problem(img, q, "%" PRIu64 " active packets do not fit a ring of %" PRIu64,
                             q->write_id - q->read_id, n);
    if (e->ring_base_address > UINT64_MAX - e->ring_size)
        return queue_problem(img, q, "ring at 0x%" PRIx64 " wraps the address space",
                             e->ring_base_address);
    img->qpriv[q->index].ring_ok = 1;
    img->qpriv[q->index].walk_end = q->write_id;
    img->mem_keep_free = img->walk_reserve;
    st = walk_ring(img, q, n, &w);
    img->mem_keep_free = 0;
    GC_TRY(st);
    GC_TRY(kd_problem(img, q));
    GC_TRY(unkept_problem(img, q));
    if (!w.missing) {
        img->qpriv[q->index].walk_whole = img->qpriv[q->index].walk_end == q->write_id;
        return GPUCORE_OK;
    }
    if (img->have_runs &&
        gc_image_mem_read(img, w.first_missing_at, &probe, 1, NULL) == GPUCORE_OK)
        return queue_problem(img, q,
                             "%" PRIu64 " of the %" PRIu64 " active AQL packets (from packet "
                             "%" PRIu64 " at 0x%" PRIx64 ") are zero fill past the file's "
                             "segment data: not decoded",
                             w.missing, q->write_id - q->read_id, w.first_missing_id,
                             w.first_missing_at);
    return queue_problem(img, q,
                         "AQL packet %" PRIu64 " at 0x%" PRIx64 " is not in the core; %" PRIu64
                         " of the %" PRIu64 " active packets not decoded",
                         w.first_missing_id, w.first_missing_at, w.missing,
                         q->write_id - q->read_id);
}

/* ---- waves ----------------------------------------------------------------------------------- */

static uint32_t find_dispatch(const struct gc_image *img, const struct gc_image_queue *q,
                              uint64_t packet_id)
{
    /* a queue's dispatches are in packet-id order (the ring is walked oldest first) */
    uint32_t lo = 0, hi = q->ndispatches;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (img->dispatches[q->first_dispatch + mid].packet_id < packet_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < q->ndispatches && img->dispatches[q->first_dispatch + lo].packet_id == packet_id)
        return q->first_dispatch + lo;
    return UINT32_MAX;
}

/* Wave @p wave runs packet @p packet_id: resolve_waves() finds its dispatch once the ring is
   walked. Charged; a refusal leaves the wave without a dispatch (unassociated_problems()). */
static gpucore_status_t defer_wave(struct gc_image *img, uint32_t wave, uint64_t packet_id)
{
    gpucore_status_t st;
    struct gc_image_pending *p = gc_image_grow_charged(img, (void **)&img->pending,
                                                       &img->npending, &img->cap_pending,
                                                       sizeof(*p), UINT32_MAX, &st);

    if (!p)
        return st == GPUCORE_E_LIMIT ? GPUCORE_OK : st;
    p->packet_id = packet_id;
    p->wave = wave;
    return GPUCORE_OK;
}

static int pending_cmp(const void *a, const void *b)
{
    const struct gc_image_pending *x = a, *y = b;

    if (x->packet_id != y->packet_id)
        return x->packet_id < y->packet_id ? -1 : 1;
    return x->wave < y->wave ? -1 : x->wave > y->wave;
}

/* Sort the queue's waiting waves by packet, and count the packets: the dispatches its waves
   run, which the ring walks leave room for (walk_reserve). */
static void sort_pending(struct gc_image *img, struct gc_image_queue_priv *qp)
{
    struct gc_image_pending *p;

    qp->wave_packets = 0;
    if (!qp->npending)
        return;
    p = img->pending + qp->pending_first;
    qsort(p, qp->npending, sizeof(*p), pending_cmp);
    for (uint32_t i = 0; i < qp->npending; i++)
        qp->wave_packets += !i || p[i].packet_id != p[i - 1].packet_id;
    img->walk_reserve += (uint64_t)qp->wave_packets * sizeof(struct gc_image_dispatch);
}

/*
 * The dispatch of each of the queue's waves, once its ring is walked: a packet whose dispatch
 * the walk kept is found among those (by binary search); one past them (the walk stopped
 * keeping) is read alone, and kept (charged) when it is a kernel dispatch the source holds. Those
 * follow the kept dispatches in packet order, so the queue's dispatches stay in packet order.
 * The work is one search, or one read, per packet a wave names: bounded by the waves.
 */
static gpucore_status_t resolve_waves(struct gc_image *img, struct gc_image_queue *q)
{
    struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    const struct gc_image_pending *p = qp->npending ? img->pending + qp->pending_first : NULL;
    const uint64_t n = q->entry->ring_size / AQL_PACKET_SIZE;
    gpucore_status_t fatal = GPUCORE_OK;
    uint32_t why = 0, lost = 0;
    uint8_t pkt[AQL_PACKET_SIZE];

    img->walk_reserve -= (uint64_t)qp->wave_packets * sizeof(struct gc_image_dispatch);
    for (uint32_t i = 0, j; i < qp->npending; i = j) {
        const uint64_t id = p[i].packet_id;
        const uint64_t at = q->entry->ring_base_address + (n ? id % n : 0) * AQL_PACKET_SIZE;
        uint32_t d = find_dispatch(img, q, id);
        struct gc_image_dispatch *kept = NULL;
        int r;

        for (j = i; j < qp->npending && p[j].packet_id == id; j++)
            ;
        if (d == UINT32_MAX && id >= qp->unkept_from && qp->ring_ok) {
            if (why) { /* the budget or the limit refused one: the rest cannot be kept either */
                lost += j - i;
                continue;
            }
            if (img->have_runs && held_bytes(img, at, AQL_PACKET_SIZE) != AQL_PACKET_SIZE)
                continue;
            r = read_exact(img, at, pkt, sizeof(pkt), &fatal);
            if (r < 0)
                return fatal;
            if (r == 0 || !is_kernel_dispatch(pkt))
                continue;
            if (id >= qp->walk_end) /* one the walk did not reach */
                q->dispatch_packets++;
            GC_TRY(keep_dispatch(img, q, id, at, pkt, &kept, &why));
            if (!kept) {
                lost += j - i;
                continue;
            }
            d = kept->index;
        }
        for (uint32_t k = i; d != UINT32_MAX && k < j; k++)
            img->waves[p[k].wave].dispatch = d;
    }
    if (lost) {
        char buf[96];

        GC_TRY(queue_problem(img, q, "the dispatches of %u waves are not kept: %s", lost,
                             unkept_words(img, why, buf, sizeof(buf))));
    }
    return kd_problem(img, q);
}

/* Saved waves the image does not keep: the budget or GC_IMAGE_MAX_WAVES refused wave @p from
   of XCC @p xcc's area, and the @p left waves it was to keep from there on. */
static gpucore_status_t waves_not_kept(struct gc_image *img, struct gc_image_queue *q,
                                       uint32_t xcc, uint32_t from, uint32_t left)
{
    char buf[64];

    if (img->nwaves >= GC_IMAGE_MAX_WAVES)
        snprintf(buf, sizeof(buf), "the image keeps at most %u waves", GC_IMAGE_MAX_WAVES);
    return queue_problem(img, q, "%u saved waves of XCC %u, from wave %u on, are not kept: %s",
                         left, xcc, from,
                         img->nwaves >= GC_IMAGE_MAX_WAVES ? buf : gc_image_budget_words(img));
}

/*
 * Add the decoded waves of @p area (at process address @p area_base) to the image, with their
 * status bytes from @p status (GC_CWSR_STATUS_BYTES per wave, by area index; scan_wave_area()).
 * @p keep (NULL: every wave) says which waves to keep, by area index; a kept wave's group
 * leader must be kept too (its record holds the workgroup's LDS), which add_partial()
 * guarantees. Each wave is charged to the memory budget; when a charge is refused, the waves
 * from there on are left out (their group leaders come before them, so those kept keep
 * theirs). Each wave's packet waits for resolve_waves(), which runs once the ring is walked.
 */
static gpucore_status_t add_waves(struct gc_image *img, struct gc_image_queue *q, uint32_t xcc,
                                  uint64_t area_base, struct gc_image_area *area,
                                  const uint8_t *status, const uint8_t *keep)
{
    const struct gc_image_agent *ag = &img->agents[q->agent];
    const struct gc_arch *arch = ag->arch;
    struct gc_wave_env env = {
        .r_version = img->r_version,
        .spi_ttmps_setup = img->note->runtime.ttmp_setup ||
                           (ag->entry->debug_prop & GPUCORE_HSA_DBG_DISPATCH_INFO_ALWAYS_VALID),
    };
    uint32_t base = img->nwaves, kept = 0;
    uint32_t *image_index = NULL; /* area index -> image index, when some are left out */
    gpucore_status_t st = GPUCORE_OK;

    if (keep) {
        image_index = gc_calloc_array(area->dec.wave_count ? area->dec.wave_count : 1,
                                      sizeof(*image_index));
        if (!image_index)
            return GPUCORE_E_NOMEM;
        for (uint32_t i = 0; i < area->dec.wave_count; i++)
            image_index[i] = keep[i] ? base + kept++ : UINT32_MAX;
    }
    for (uint32_t i = 0; i < area->dec.wave_count && st == GPUCORE_OK; i++) {
        struct gc_wave bound = area->dec.waves[i];
        const struct gc_wave *w = &bound;
        struct gc_image_wave *iw;
        struct gc_wave_stop stop;
        uint32_t idx, num;

        if (keep && !keep[i])
            continue;
        iw = gc_image_grow_charged(img, (void **)&img->waves, &img->nwaves, &img->cap_waves,
                                   sizeof(*iw), GC_IMAGE_MAX_WAVES, &st);
        if (!iw) {
            uint32_t left = 0;

            for (uint32_t k = i; st == GPUCORE_E_LIMIT && k < area->dec.wave_count; k++)
                left += !keep || keep[k];
            if (st == GPUCORE_E_LIMIT)
                st = waves_not_kept(img, q, xcc, i, left);
            break;
        }
        iw->index = img->nwaves - 1;
        iw->queue = q->index;
        iw->xcc = xcc;
        /* hwreg and ttmp point at iw->status once the image is built (bind_status()): the
           array moves while it grows */
        memcpy(iw->status, status + (size_t)i * GC_CWSR_STATUS_BYTES, GC_CWSR_STATUS_BYTES);
        bound.hwreg = status + (size_t)i * GC_CWSR_STATUS_BYTES;
        bound.ttmp = bound.hwreg + GC_CWSR_STATUS_BYTES / 2;
        iw->wave = *w;
        iw->wave.hwreg = iw->wave.ttmp = NULL;
        iw->record_address = area_base + w->record_offset;
        iw->lanes = w->lanes;
        iw->group_leader = image_index ? image_index[w->group_leader] : base + w->group_leader;
        /* The state AMD's library answers from once it has taken the wave over (it clears
           TTMPs the SPI did not set up before reading ttmp6); the dispatch association below
           reads the saved TTMPs, as AMD's does. */
        if (gc_wave_stop_at_attach(arch, w, &env, &stop) != GPUCORE_OK)
            memset(&stop, 0, sizeof(stop));
        iw->pc = stop.pc;
        iw->exec = gc_wave_exec_mask(arch, w);
        iw->stopped = (int)stop.stopped;
        iw->stop_reasons = stop.reasons;
        iw->watchpoints = stop.watchpoints;
        iw->dispatch = UINT32_MAX;
        iw->dispatch_inferred = 0;
        if (gc_wave_workgroup_id(arch, w, &env, iw->workgroup) != GPUCORE_OK)
            iw->workgroup[0] = iw->workgroup[1] = iw->workgroup[2] = UINT32_MAX;
        iw->wave_in_group = gc_wave_number_in_group(arch, w, &env, &num) == GPUCORE_OK
                                    ? num
                                    : w->index - w->group_leader;
        q->nwaves++;
        if (gc_wave_dispatch_index(arch, w, &env, &idx) == GPUCORE_OK) {
            uint64_t pid;

            if (gc_packet_id(idx, q->entry->ring_size, q->read_id, q->write_id, &pid) !=
                GPUCORE_OK)
                continue;
            st = defer_wave(img, iw->index, pid);
        }
    }
    gc_free(image_index);
    return st;
}

/* Whether @p pc is in the code of dispatch @p dp's kernel: the function symbol holding it
   starts at the kernel's entry, or has the kernel's name in the code object holding the
   descriptor (the entry is wrong when the descriptor's bytes in the core are not the code
   object's: a capture that read them as zeros gives the descriptor's own address). */
static int pc_in_kernel(const struct gc_image *img, const struct gc_image_dispatch *dp,
                        uint64_t pc)
{
    char name[GC_IMAGE_NAME_MAX];
    uint64_t off = 0;

    if (gc_image_symbolize(img, pc, name, sizeof(name), &off) != GPUCORE_OK)
        return 0;
    if (dp->kernel_entry && pc - off == dp->kernel_entry)
        return 1;
    return dp->kernel_name[0] && strcmp(name, dp->kernel_name) == 0 &&
           dp->code_object != UINT32_MAX && gc_image_code_object_at(img, pc) == dp->code_object;
}

/*
 * The dispatch of waves whose TTMPs name none, where it is certain: ROCr has the SPI write the
 * dispatch into the TTMPs only under HSA_ENABLE_DEBUG=1 (or a debugger's
 * DISPATCH_INFO_ALWAYS_VALID), so the waves of an ordinary HIP run carry no packet id. When the
 * queue's whole ring was read and holds exactly one active kernel dispatch, which the image
 * keeps, a wave whose PC lies in that kernel's code (pc_in_kernel()) can run nothing else: it
 * is associated, marked dispatch_inferred. A PC elsewhere (a called function, another
 * kernel's code, no symbol) leaves the wave unassociated. AMD's library has no such rule (such
 * waves belong to its "dummy" dispatch of none), so an image opened with
 * GC_IMAGE_WAVE_DISPATCHES, its view, infers nothing. O(waves x log symbols).
 */
static void infer_dispatches(struct gc_image *img, struct gc_image_queue *q)
{
    const struct gc_image_queue_priv *qp = &img->qpriv[q->index];
    const struct gc_image_dispatch *dp;

    if ((img->flags & GC_IMAGE_WAVE_DISPATCHES) || !qp->ring_ok || !qp->walk_whole ||
        q->dispatch_packets != 1 || q->ndispatches != 1)
        return;
    dp = &img->dispatches[q->first_dispatch];
    if (dp->packet_id < q->read_id || dp->packet_id >= q->write_id)
        return;
    for (uint32_t i = 0; i < q->nwaves; i++) {
        struct gc_image_wave *w = &img->waves[q->first_wave + i];

        if (w->dispatch != UINT32_MAX || !pc_in_kernel(img, dp, w->pc))
            continue;
        w->dispatch = dp->index;
        w->dispatch_inferred = 1;
    }
}

/* The queue's waves no active dispatch runs, said per XCC (once resolve_waves() is done). */
static gpucore_status_t unassociated_problems(struct gc_image *img, struct gc_image_queue *q)
{
    uint32_t count[GC_IMAGE_MAX_XCC] = { 0 };

    for (uint32_t i = 0; i < q->nwaves; i++) {
        const struct gc_image_wave *w = &img->waves[q->first_wave + i];

        if (w->dispatch == UINT32_MAX && w->xcc < GC_IMAGE_MAX_XCC)
            count[w->xcc]++;
    }
    for (uint32_t x = 0; x < GC_IMAGE_MAX_XCC; x++)
        if (count[x])
            GC_TRY(queue_problem(img, q,
                                 "%u waves of XCC %u cannot be associated with an active "
                                 "dispatch",
                                 count[x], x));
    return GPUCORE_OK;
}

/* The capture's reason for save-area bytes at @p addr missing from the core, kept on the queue
   (the first one found). */
static void save_area_lost(struct gc_image *img, struct gc_image_queue *q, uint64_t addr)
{
    const gpucore_manifest_entry_t *m = gc_image_manifest_gap(img, addr);

    q->save_area_lost = 1;
    if (q->lost_reason)
        return;
    if (m) {
        q->lost_reason = m->reason;
        q->lost_status = m->status;
    } else if (img->manifest && (img->manifest->flags & GPUCORE_MANIFEST_TRUNCATED)) {
        q->lost_reason = img->manifest->truncation_reason;
        q->lost_status = GPUCORE_RANGE_SKIPPED;
    }
}

/*
 * Is all of [addr, addr + size) (@p what of XCC @p xcc) held by the source? 1 if so; else 0,
 * and the queue's problem says what the file lacks: bytes of zero fill (p_memsz past p_filesz,
 * which never become allocated memory), or bytes not captured (the manifest says why).
 */
static gpucore_status_t check_held(struct gc_image *img, struct gc_image_queue *q, uint32_t xcc,
                                   const char *what, uint64_t addr, uint64_t size, int *ret_held)
{
    uint64_t gap = first_gap(img, addr, size);
    uint8_t probe;

    *ret_held = held_bytes(img, addr, size) == size;
    if (*ret_held)
        return GPUCORE_OK;
    if (gc_image_mem_read(img, gap, &probe, 1, NULL) == GPUCORE_OK)
        return queue_problem(img, q,
                             "CWSR %s of XCC %u at 0x%" PRIx64 ": %" PRIu64 " of its %" PRIu64
                             " bytes are zero fill past the file's segment data; waves not "
                             "decoded",
                             what, xcc, addr, size - held_bytes(img, addr, size), size);
    save_area_lost(img, q, gap);
    return queue_problem(img, q, "CWSR %s of XCC %u at 0x%" PRIx64 " not captured", what, xcc,
                         addr);
}

/* Waves a control stack lists, by the decoder's rules (gc_cwsr_decode), without decoding:
   from word 2, bit 30 an event, bit 31 a state (with its second word on gfx10+), else a wave.
   *ret_bad: the index of a wave word before any state word (which the decoder rejects), or 0. */
static uint32_t listed_waves(const struct gc_arch *arch, const uint8_t *ctl, uint64_t size,
                             uint64_t *ret_bad)
{
    const uint32_t state_words = arch->cwsr ? arch->cwsr->state_words : 1;
    uint32_t n = 0;
    int have_state = 0;

    *ret_bad = 0;
    for (uint64_t i = 2; i < size / 4; i++) {
        uint32_t w = gc_le32_get(ctl + 4 * i);

        if (w & (1u << 30))
            continue;
        if (w & (1u << 31)) {
            have_state = 1;
            i += state_words ? state_words - 1 : 0;
        } else if (!have_state) {
            *ret_bad = i;
            return n;
        } else {
            n++;
        }
    }
    return n;
}

/* Take @p size bytes of the save-area budget: 1, or 0 with the queue's problem said. Bytes
   read are never given back, so the work is bounded too, not only what is kept. */
static gpucore_status_t take_budget(struct gc_image *img, struct gc_image_queue *q, uint32_t xcc,
                                    uint64_t base, uint64_t size, int *ret_ok)
{
    *ret_ok = size <= img->cwsr_budget;
    if (*ret_ok) {
        img->cwsr_budget -= size;
        return GPUCORE_OK;
    }
    if (img->cwsr_budget_said)
        return queue_problem(img, q,
                             "CWSR area of XCC %u at 0x%" PRIx64 " not decoded: the save-area "
                             "limit is spent",
                             xcc, base);
    img->cwsr_budget_said = 1;
    return queue_problem(img, q,
                         "CWSR area of XCC %u at 0x%" PRIx64 " not decoded: the save areas need "
                         "more than the %" PRIu64 " bytes %s",
                         xcc, base, img->have_runs ? img->runs_held : (uint64_t)GC_IMAGE_MAX_CWSR_TOTAL,
                         img->have_runs ? "of segment data the file holds"
                                        : "the analyzer reads for them");
}

/* Give back the last area's buffers (it was not decoded); the budget keeps what was read. */
static void drop_area(struct gc_image *img)
{
    struct gc_image_area *a = &img->areas[img->nareas - 1];

    img->cwsr_bytes -= a->ctl_size;
    gc_image_uncharge(img, a->ctl_size);
    if (a->decoded)
        gc_cwsr_decoded_done(&a->dec);
    gc_free(a->ctl);
    img->nareas--;
}

/* Read the bytes of [addr, addr + size) the source holds into @p buf (the rest is left as it
   is): 1, 0 when a held run does not read (a damaged frame), -1 with *fatal. */
static int read_held(struct gc_image *img, uint64_t addr, uint8_t *buf, uint64_t size,
                     gpucore_status_t *fatal)
{
    uint64_t end = addr + size;

    for (uint32_t i = run_after(img, addr); i < img->nruns && img->runs[i].lo < end; i++) {
        uint64_t lo = img->runs[i].lo > addr ? img->runs[i].lo : addr;
        uint64_t hi = img->runs[i].hi < end ? img->runs[i].hi : end;
        int r = read_exact(img, lo, buf + (lo - addr), hi - lo, fatal);

        if (r <= 0)
            return r;
    }
    return 1;
}

/*
 * Read the wave area [lo, lo + size) through once, GC_IMAGE_WAVE_WINDOW bytes at a time (only
 * the bytes the source holds when @p partial: the rest reads as zeros), and copy the status
 * bytes of each wave of @p dec (NULL: read only) into @p status (GC_CWSR_STATUS_BYTES per wave,
 * by area index). Records lie downward from the top of the area in control-stack order, so by
 * rising address the waves come last index first. 1 read, 0 some bytes did not read, -1 with
 * *fatal.
 */
static int scan_wave_area(struct gc_image *img, const struct gc_arch *arch, uint64_t lo,
                          uint64_t size, int partial, const struct gc_cwsr_decoded *dec,
                          uint8_t *status, gpucore_status_t *fatal)
{
    uint64_t win = size < GC_IMAGE_WAVE_WINDOW ? size : GC_IMAGE_WAVE_WINDOW;
    uint64_t wave_begin = dec ? (uint64_t)dec->header.wave_state_offset -
                                        dec->header.wave_state_size
                              : 0;
    uint32_t left = dec ? dec->wave_count : 0; /* waves not yet complete: 0 .. left-1 */
    uint8_t *buf = gc_malloc(win ? win : 1);
    int r = 1;

    if (!buf) {
        *fatal = GPUCORE_E_NOMEM;
        return -1;
    }
    for (uint64_t c0 = 0; c0 < size && r > 0; c0 += win) {
        uint64_t n = size - c0 < win ? size - c0 : win, c1 = c0 + n;

        if (partial) {
            memset(buf, 0, (size_t)n);
            r = read_held(img, lo + c0, buf, n, fatal);
        } else {
            r = read_exact(img, lo + c0, buf, n, fatal);
        }
        while (r > 0 && left) {
            const struct gc_wave *w = &dec->waves[left - 1];
            uint64_t off, s0, s1, from, to;

            if (gc_cwsr_wave_status_offset(arch, w, &off) != GPUCORE_OK) {
                left--; /* not a layout the decoder makes: its status stays zero */
                continue;
            }
            s0 = w->record_offset - wave_begin + off;
            s1 = s0 + GC_CWSR_STATUS_BYTES;
            if (s0 >= c1)
                break;
            from = s0 > c0 ? s0 : c0;
            to = s1 < c1 ? s1 : c1;
            if (to > from)
                memcpy(status + (size_t)(left - 1) * GC_CWSR_STATUS_BYTES + (from - s0),
                       buf + (from - c0), (size_t)(to - from));
            if (s1 > c1)
                break; /* the rest is in the next window */
            left--;
        }
    }
    gc_free(buf);
    return r;
}

/*
 * The waves of an area whose wave area the file holds in part: those whose record, and whose
 * group leader's record (it holds the workgroup's LDS), the file holds whole. The queue's
 * problem says how many of the listed waves that is, and why the rest are missing.
 */
static gpucore_status_t add_partial(struct gc_image *img, struct gc_image_queue *q, uint32_t xcc,
                                    struct gc_image_area *a, uint64_t base, uint64_t wave_lo,
                                    uint64_t wss, const uint8_t *status)
{
    uint32_t n = a->dec.wave_count, kept = 0;
    uint8_t *whole = gc_calloc_array(n ? n : 1, 2);
    gpucore_status_t st;

    if (!whole)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const struct gc_wave *w = &a->dec.waves[i];

        whole[i] = held_bytes(img, base + w->record_offset, w->record_size) == w->record_size;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t leader = a->dec.waves[i].group_leader;

        whole[n + i] = whole[i] && leader < n && whole[leader];
        kept += whole[n + i];
    }
    save_area_lost(img, q, first_gap(img, wave_lo, wss));
    st = queue_problem(img, q,
                       "CWSR wave area of XCC %u at 0x%" PRIx64 ": %" PRIu64 " of its %" PRIu64
                       " bytes not captured; %u of the %u saved waves have their records whole",
                       xcc, wave_lo, wss - held_bytes(img, wave_lo, wss), wss, kept, n);
    if (st == GPUCORE_OK)
        st = add_waves(img, q, xcc, base, a, status, whole + n);
    gc_free(whole);
    return st;
}

/* The first bytes of a control stack checked before anything is allocated for it: a stack the
   decoder would refuse at once (all zeros: a wave before any state word) costs nothing. */
#define AREA_CTL_HEAD_BYTES 4096u

/*
 * One XCC's save area while decode_area() reads it, in three steps (area_header(),
 * area_control_stack(), area_waves()). A step that ends the area early sets @p stop, and for
 * a problem of the area fills @p problem (and @p lost, when bytes are missing from the core):
 * both are said after the one unwind, as what is given back is charged to the image's budget
 * the problem's text is charged to too.
 */
struct area_read {
    struct gc_image *img;
    struct gc_image_queue *q;
    const struct gc_arch *arch;
    uint32_t xcc;
    uint64_t base, area_size;
    struct gc_cwsr_header h;
    int counted;             /* the control stack was read: its waves are in q->running_waves */
    int stop;                /* nothing more to read of this area */
    uint64_t ctl_charged;    /* the control stack's bytes charged before its area existed */
    struct gc_image_area *a; /* the area added (img->areas' last), or NULL */
    int keep;                /* its waves are in the image: the area stays, its layout goes */
    uint8_t *status;         /* each wave's status bytes while the area is decoded, or NULL */
    uint64_t scratch;        /* charged for the layout and the status bytes */
    int lost;                /* save_area_lost(lost_addr) before the problem */
    uint64_t lost_addr;
    /* the queue's problem, or "": as long as queue_problem() formats, so the same text */
    char problem[256];
};

/* The area ends here, with nothing more to say (a step that found nothing to read, or said why
   itself): GPUCORE_OK. */
static gpucore_status_t area_end(struct area_read *w)
{
    w->stop = 1;
    return GPUCORE_OK;
}

static void area_vproblem(struct area_read *w, const char *fmt, va_list ap) GC_PRINTF(2, 0);
static void area_vproblem(struct area_read *w, const char *fmt, va_list ap)
{
    vsnprintf(w->problem, sizeof(w->problem), fmt, ap);
    w->stop = 1;
}

/* The area ends with the queue's problem: GPUCORE_OK. */
static gpucore_status_t area_problem(struct area_read *w, const char *fmt, ...) GC_PRINTF(2, 3);
static gpucore_status_t area_problem(struct area_read *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    area_vproblem(w, fmt, ap);
    va_end(ap);
    return GPUCORE_OK;
}

/* The area ends because the core lacks the bytes at @p addr: GPUCORE_OK. */
static gpucore_status_t area_lost(struct area_read *w, uint64_t addr, const char *fmt, ...)
        GC_PRINTF(3, 4);
static gpucore_status_t area_lost(struct area_read *w, uint64_t addr, const char *fmt, ...)
{
    va_list ap;

    w->lost = 1;
    w->lost_addr = addr;
    va_start(ap, fmt);
    area_vproblem(w, fmt, ap);
    va_end(ap);
    return GPUCORE_OK;
}

/* The decoder's refusal of a control stack whose word @p bad is a wave before any state. */
static gpucore_status_t area_bad_word(struct area_read *w, uint64_t bad)
{
    return area_problem(w,
                        "saved waves of XCC %u at 0x%" PRIx64 " do not decode: control "
                        "stack word %" PRIu64 " is a wave before any state word",
                        w->xcc, w->base, bad);
}

/* Step 1: the area's header, read and checked against the area. */
static gpucore_status_t area_header(struct area_read *w)
{
    const struct gc_cwsr_header *h = &w->h;
    uint8_t raw[GC_CWSR_HEADER_SIZE];
    gpucore_status_t fatal = GPUCORE_OK;
    int r = read_exact(w->img, w->base, raw, sizeof(raw), &fatal);

    if (r < 0)
        return fatal;
    if (r == 0)
        return area_lost(w, w->base, "CWSR area of XCC %u at 0x%" PRIx64 " not captured", w->xcc,
                         w->base);
    if (gc_cwsr_header_decode(raw, sizeof(raw), &w->h) != GPUCORE_OK)
        return area_problem(w, "CWSR header of XCC %u at 0x%" PRIx64 " does not decode", w->xcc,
                            w->base);
    if (h->control_stack_size == 0) {
        w->counted = 1;
        return area_end(w); /* no waves */
    }
    uint64_t cso = h->control_stack_offset, css = h->control_stack_size;
    uint64_t wso = h->wave_state_offset, wss = h->wave_state_size;
    if (cso + css > w->area_size || wso > w->area_size || wss > wso || cso + css != wso - wss ||
        css + wss > GC_IMAGE_MAX_CWSR_READ)
        return area_problem(w,
                            "CWSR header of XCC %u at 0x%" PRIx64 " is inconsistent (control "
                            "stack 0x%x+0x%x, wave area 0x%x-0x%x, area 0x%" PRIx64 ")",
                            w->xcc, w->base, h->control_stack_offset, h->control_stack_size,
                            h->wave_state_offset, h->wave_state_size, w->area_size);
    if (css > GC_IMAGE_MAX_CTL_STACK)
        return area_problem(w,
                            "CWSR control stack of XCC %u at 0x%" PRIx64 " claims 0x%x bytes, "
                            "more than the 0x%x the analyzer reads: waves not decoded",
                            w->xcc, w->base + cso, h->control_stack_size, GC_IMAGE_MAX_CTL_STACK);
    return GPUCORE_OK;
}

/* Step 2: the control stack, read into a new area (w->a) and its waves counted. */
static gpucore_status_t area_control_stack(struct area_read *w)
{
    struct gc_image *img = w->img;
    const uint64_t cso = w->h.control_stack_offset, css = w->h.control_stack_size;
    uint64_t at = w->base + cso, bad, nhead = css < AREA_CTL_HEAD_BYTES ? css : AREA_CTL_HEAD_BYTES;
    uint8_t head[AREA_CTL_HEAD_BYTES];
    gpucore_status_t fatal = GPUCORE_OK;
    int r, held;

    /* Only bytes the file holds become memory, and all save areas together no more than it
       holds (areas overlapping one another cannot multiply it). */
    GC_TRY(check_held(img, w->q, w->xcc, "control stack", at, css, &held));
    if (!held)
        return area_end(w);
    r = read_exact(img, at, head, nhead, &fatal);
    if (r < 0)
        return fatal;
    if (r > 0 && (listed_waves(w->arch, head, nhead, &bad), bad))
        return area_bad_word(w, bad);
    GC_TRY(take_budget(img, w->q, w->xcc, w->base, css, &held));
    if (!held)
        return area_end(w);
    if (!gc_image_charge(img, css))
        return area_problem(w, "CWSR area of XCC %u at 0x%" PRIx64 " not decoded: %s", w->xcc,
                            w->base, gc_image_budget_words(img));
    w->ctl_charged = css;
    w->a = gc_image_grow((void **)&img->areas, &img->nareas, &img->cap_areas, sizeof(*w->a),
                         UINT32_MAX);
    if (!w->a)
        return GPUCORE_E_NOMEM;
    w->a->ctl_size = css; /* charged and counted: drop_area() gives both back */
    img->cwsr_bytes += css;
    w->a->ctl = gc_malloc(css);
    if (!w->a->ctl)
        return GPUCORE_E_NOMEM;
    r = read_exact(img, at, w->a->ctl, css, &fatal);
    if (r < 0)
        return fatal;
    if (r == 0)
        return area_lost(w, at, "CWSR control stack of XCC %u at 0x%" PRIx64 " not captured",
                         w->xcc, at);
    uint32_t listed = listed_waves(w->arch, w->a->ctl, css, &bad);
    /* what the decoder would reject: no wave area is read for it */
    if (bad)
        return area_bad_word(w, bad);
    if (listed > GC_IMAGE_MAX_WAVES)
        return area_problem(w,
                            "saved waves of XCC %u at 0x%" PRIx64 " do not decode: the control "
                            "stack lists %u waves, more than %u",
                            w->xcc, w->base, listed, GC_IMAGE_MAX_WAVES);
    w->q->running_waves += listed;
    w->counted = 1;
    return GPUCORE_OK;
}

/* Step 3: the wave area, read once for the layout's status bytes, and the waves added. */
static gpucore_status_t area_waves(struct area_read *w)
{
    struct gc_image *img = w->img;
    struct gc_image_area *a = w->a;
    const uint64_t wso = w->h.wave_state_offset, wss = w->h.wave_state_size;
    gpucore_status_t fatal = GPUCORE_OK, st = GPUCORE_OK;
    gpucore_diag_t d = { 0 };
    int r, held = 1;

    /*
     * A wave area the file holds only in part (a size budget cut it) still gives the waves
     * whose records it holds whole: the missing bytes read as zeros, and add_partial() leaves
     * out every wave whose record (or its group leader's) is not all held. It takes wss /
     * GC_IMAGE_PARTIAL_AREA_FACTOR of the save-area budget (at least the bytes held), so the
     * work for partial areas stays within that factor of the file.
     */
    uint64_t wave_lo = w->base + wso - wss, wave_have = wss ? held_bytes(img, wave_lo, wss) : 0;
    int partial = img->have_runs && wss && wave_have > 0 && wave_have < wss;
    if (wss) {
        if (partial) {
            uint64_t charge = wss / GC_IMAGE_PARTIAL_AREA_FACTOR;

            st = take_budget(img, w->q, w->xcc, w->base, charge > wave_have ? charge : wave_have,
                             &held);
        } else {
            st = check_held(img, w->q, w->xcc, "wave area", wave_lo, wss, &held);
            if (st == GPUCORE_OK && held)
                st = take_budget(img, w->q, w->xcc, w->base, wss, &held);
        }
        if (st != GPUCORE_OK)
            return st;
        if (!held)
            return area_end(w);
    }
    /*
     * The layout of the records follows from the control stack; the wave area is read through
     * once, in windows, for the status bytes of each wave (image.h), and not kept. Problems
     * come in the order they did when the area was read whole before it was decoded: a wave
     * area that does not read is "not captured" whether or not it would decode.
     */
    st = gc_cwsr_decode_layout(w->arch, &w->h, a->ctl, a->ctl_size, &a->dec, &d);
    if (st == GPUCORE_E_NOMEM)
        return st;
    a->decoded = st == GPUCORE_OK;
    /* the layout and the status bytes, while the area is decoded */
    uint64_t scratch = a->decoded ? (uint64_t)a->dec.wave_count *
                                            (sizeof(struct gc_wave) + GC_CWSR_STATUS_BYTES)
                                  : 0;
    if (scratch && !gc_image_charge(img, scratch))
        return area_problem(w, "saved waves of XCC %u at 0x%" PRIx64 " not decoded: %s", w->xcc,
                            w->base, gc_image_budget_words(img));
    w->scratch = scratch;
    if (a->decoded && a->dec.wave_count) {
        w->status = gc_calloc_array(a->dec.wave_count, GC_CWSR_STATUS_BYTES);
        if (!w->status)
            return GPUCORE_E_NOMEM;
    }
    if (wss) {
        r = scan_wave_area(img, w->arch, wave_lo, wss, partial, a->decoded ? &a->dec : NULL,
                           w->status, &fatal);
        if (r < 0)
            return fatal;
        if (r == 0)
            return area_lost(w, wave_lo, "CWSR wave area of XCC %u at 0x%" PRIx64 " not captured",
                             w->xcc, wave_lo);
    }
    if (!a->decoded)
        return area_problem(w, "saved waves of XCC %u at 0x%" PRIx64 " do not decode: %s", w->xcc,
                            w->base, d.message);
    w->keep = 1;
    return partial ? add_partial(img, w->q, w->xcc, a, w->base, wave_lo, wss, w->status)
                   : add_waves(img, w->q, w->xcc, w->base, a, w->status, NULL);
}

/*
 * One XCC's save area: its header, its control stack, its wave area (the steps above), then
 * the one unwind: what the area charged is given back (an area whose waves were added keeps
 * its control stack and gives back its layout), and only then the queue's problem is said.
 * *ret_counted is 1 when its control stack was read (the waves it lists are in
 * q->running_waves).
 */
static gpucore_status_t decode_area(struct gc_image *img, struct gc_image_queue *q, uint32_t xcc,
                                    uint64_t base, uint64_t area_size, int *ret_counted)
{
    struct area_read w = { .img = img,
                           .q = q,
                           .arch = img->agents[q->agent].arch,
                           .xcc = xcc,
                           .base = base,
                           .area_size = area_size };
    gpucore_status_t st = area_header(&w);

    if (st == GPUCORE_OK && !w.stop)
        st = area_control_stack(&w);
    if (st == GPUCORE_OK && !w.stop)
        st = area_waves(&w);

    gc_free(w.status);
    gc_image_uncharge(img, w.scratch);
    if (w.a && w.keep) {
        /* the waves are in the image: the layout is not needed any more */
        gc_cwsr_decoded_done(&w.a->dec);
        w.a->decoded = 0;
    } else if (w.a) {
        drop_area(img);
    } else {
        gc_image_uncharge(img, w.ctl_charged);
    }
    if (w.lost)
        save_area_lost(img, q, w.lost_addr);
    if (st == GPUCORE_OK && w.problem[0])
        st = queue_problem(img, q, "%s", w.problem);
    *ret_counted = w.counted;
    return st;
}

/* ---- queues ---------------------------------------------------------------------------------- */

static gpucore_status_t read_amd_queue(struct gc_image *img, struct gc_image_queue *q,
                                       struct gc_image_queue_priv *qp)
{
    const gpucore_kfd_queue_entry_t *e = q->entry;
    uint8_t raw[GC_ROCR_AMDQ_SIZE];
    struct gc_rocr_amd_queue aq;
    gpucore_status_t fatal = GPUCORE_OK;
    int r;

    if (!gc_rocr_amd_queue_at(e->read_pointer_address, &q->amd_queue))
        return queue_problem(img, q, "read pointer 0x%" PRIx64 " cannot be inside an amd_queue_t",
                             e->read_pointer_address);
    r = read_exact(img, q->amd_queue, raw, sizeof(raw), &fatal);
    if (r < 0)
        return fatal;
    if (r == 0)
        return queue_problem(img, q,
                             "amd_queue_t at 0x%" PRIx64 " not captured: no dispatches, "
                             "no scratch",
                             q->amd_queue);
    GC_TRY(gc_rocr_amd_queue_decode(raw, sizeof(raw), &aq));
    qp->have_amdq = 1;
    q->read_id = aq.read_dispatch_id;
    q->write_id = aq.write_dispatch_id;
    /* the write pointer of the note is authoritative when it is elsewhere */
    if (e->write_pointer_address != q->amd_queue + GC_ROCR_AMDQ_WRITE_DISPATCH_ID) {
        uint8_t v[8];

        r = read_exact(img, e->write_pointer_address, v, sizeof(v), &fatal);
        if (r < 0)
            return fatal;
        if (r > 0)
            q->write_id = gc_le64_get(v);
    }
    q->compute_tmpring_size = aq.compute_tmpring_size;
    qp->scratch_loc = aq.scratch_location;
    q->scratch_base = qp->scratch_loc;
    /* ROCr r_version 11 removed scratch_backing_memory_byte_size (docs/core-format.md 8.5) */
    if (gc_rocr_amd_queue_has_stride(img->r_version)) {
        q->scratch_stride = aq.scratch_byte_size;
        qp->have_stride = 1;
    }
    return GPUCORE_OK;
}

/* The waves of queue @p q from its save areas, one per XCC (nothing when it has none). */
static gpucore_status_t build_waves(struct gc_image *img, struct gc_image_queue *q)
{
    const gpucore_kfd_queue_entry_t *e = q->entry;
    const gpucore_kfd_device_entry_t *dev = img->agents[q->agent].entry;
    const uint32_t nxcc = dev->num_xcc;
    const uint64_t area = e->ctx_save_restore_area_size;

    if (!img->agents[q->agent].arch)
        return queue_problem(img, q, "the agent's target is unknown: waves not decoded");
    if (!e->ctx_save_restore_address || !area)
        return queue_problem(img, q, "no context save area");
    if (nxcc == 0 || nxcc > GC_IMAGE_MAX_XCC)
        return queue_problem(img, q, "the agent says %u XCCs: waves not decoded", nxcc);
    if (area * nxcc > UINT64_MAX - e->ctx_save_restore_address)
        return queue_problem(img, q, "context save area at 0x%" PRIx64 " wraps the address space",
                             e->ctx_save_restore_address);
    q->running_known = 1;
    for (uint32_t x = 0; x < nxcc; x++) {
        int counted;

        GC_TRY(decode_area(img, q, x, e->ctx_save_restore_address + x * area, area, &counted));
        if (!counted)
            q->running_known = 0;
    }
    return GPUCORE_OK;
}

/* A queue's waves (the first pass: every queue's, before any ring is walked). */
static gpucore_status_t build_queue(struct gc_image *img, uint32_t i)
{
    struct gc_image_queue *q = &img->queues[i];
    struct gc_image_queue_priv *qp = &img->qpriv[i];
    const gpucore_kfd_queue_entry_t *e = q->entry;
    const gpucore_kfd_device_entry_t *dev;
    gpucore_status_t st;

    q->first_wave = img->nwaves;
    qp->pending_first = img->npending;
    if (q->agent == UINT32_MAX)
        return queue_problem(img, q, "gpu_id 0x%x names no agent of the note", e->gpu_id);
    dev = img->agents[q->agent].entry;
    q->num_xcc = dev->num_xcc;
    if (dev->simd_arrays_per_engine && dev->array_count &&
        dev->array_count % dev->simd_arrays_per_engine == 0)
        qp->se_count = dev->array_count / dev->simd_arrays_per_engine;
    q->is_aql = e->queue_type == GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    if (!q->is_aql)
        return GPUCORE_OK;
    GC_TRY(read_amd_queue(img, q, qp));
    st = build_waves(img, q);
    qp->npending = img->npending - qp->pending_first;
    sort_pending(img, qp);
    return st;
}

/* A queue's dispatches (the second pass): its ring walked, then its waves' dispatches. */
static gpucore_status_t build_queue_dispatches(struct gc_image *img, uint32_t i)
{
    struct gc_image_queue *q = &img->queues[i];

    q->first_dispatch = img->ndispatches;
    if (img->qpriv[i].have_amdq)
        GC_TRY(build_dispatches(img, q));
    GC_TRY(resolve_waves(img, q));
    infer_dispatches(img, q);
    return unassociated_problems(img, q);
}

static gpucore_status_t build_queues(struct gc_image *img)
{
    const gpucore_amdgpu_note_t *n = img->note;

    if (!n->queue_count)
        return GPUCORE_OK;
    img->queues = gc_calloc_array(n->queue_count, sizeof(*img->queues));
    img->qpriv = gc_calloc_array(n->queue_count, sizeof(*img->qpriv));
    if (!img->queues || !img->qpriv)
        return GPUCORE_E_NOMEM;
    img->nqueues = n->queue_count;
    for (uint32_t i = 0; i < n->queue_count; i++) {
        struct gc_image_queue *q = &img->queues[i];

        /* every dispatch the ring walk reads is kept, or only those a wave runs */
        img->qpriv[i].unkept_from = img->flags & GC_IMAGE_WAVE_DISPATCHES ? 0 : UINT64_MAX;
        img->qpriv[i].unkept_why = GC_IMAGE_UNKEPT_ASKED;
        q->index = i;
        q->entry = &n->queues[i];
        q->agent = agent_of_gpu(img, q->entry->gpu_id);
    }
    /* Waves first, so that dispatches never crowd them out of the memory budget; the walks
       leave room for the dispatches the waves run (walk_reserve). */
    for (uint32_t i = 0; i < n->queue_count; i++)
        GC_TRY(build_queue(img, i));
    for (uint32_t i = 0; i < n->queue_count; i++)
        GC_TRY(build_queue_dispatches(img, i));
    /* wave pointers into the grown array are fixed now; nothing keeps pointers across growth */
    return GPUCORE_OK;
}

/* ---- GPUCORE notes ----------------------------------------------------------------------------
 */

static gpucore_status_t read_gpucore_notes(struct gc_image *img)
{
    struct gpucore_note note;
    uint32_t at = 0;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    if (gpucore_core_find_note(img->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CODE_OBJECTS, &at,
                               &note) == GPUCORE_OK) {
        st = gpucore_code_objects_decode(note.desc, note.desc_size, &img->embedded, &d);
        if (st == GPUCORE_E_NOMEM)
            return st;
        if (st != GPUCORE_OK)
            GC_TRY(gc_image_problemf(img, "the embedded code-object note does not decode: %s",
                                     d.message));
    }
    at = 0;
    if (gpucore_core_find_note(img->core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &at, &note) ==
        GPUCORE_OK) {
        st = gpucore_manifest_decode(note.desc, note.desc_size, &img->manifest, &d);
        if (st == GPUCORE_E_NOMEM)
            return st;
        if (st != GPUCORE_OK)
            GC_TRY(gc_image_problemf(img, "the capture manifest does not decode: %s", d.message));
        else if ((st = gc_image_index_manifest(img)) != GPUCORE_OK)
            return st;
        else if (img->manifest->flags & GPUCORE_MANIFEST_TRUNCATED)
            GC_TRY(gc_image_problemf(img,
                                     "the capture was cut short (%s): some memory is "
                                     "missing",
                                     gpucore_reason_name(img->manifest->truncation_reason)));
    }
    return GPUCORE_OK;
}

/* ---- open / close ---------------------------------------------------------------------------- */

/* Point every wave's hwreg and ttmp at its status copy, now that the wave array stays put. */
static void bind_status(struct gc_image *img)
{
    /* the arrays grew by doubling; they stay as they are from now on */
    img->waves = shrink_charged(img, img->waves, img->nwaves, &img->cap_waves, sizeof(*img->waves));
    img->dispatches = shrink_charged(img, img->dispatches, img->ndispatches, &img->cap_dispatches,
                                     sizeof(*img->dispatches));
    gc_free(img->pending);
    gc_image_uncharge(img, (uint64_t)img->cap_pending * sizeof(*img->pending));
    img->pending = NULL;
    img->npending = img->cap_pending = 0;
    for (uint32_t i = 0; i < img->nwaves; i++) {
        img->waves[i].wave.hwreg = img->waves[i].status;
        img->waves[i].wave.ttmp = img->waves[i].status + GC_CWSR_STATUS_BYTES / 2;
    }
    for (uint32_t i = 0; i < GC_IMAGE_RECORD_CACHE; i++)
        img->recs[i].wave = UINT32_MAX;
}

/* Everything after the GPUCORE notes: the note (at @p note_offset of the file, or GC_NO_OFFSET),
   r_debug, agents, code objects, queues. */
static gpucore_status_t build(struct gc_image *img, const void *desc, size_t desc_size,
                              uint64_t note_offset, gpucore_diag_t *diag)
{
    gpucore_status_t st;
    gpucore_diag_t d = { 0 };

    st = gpucore_amdgpu_note_decode(desc, desc_size, &img->note, &d);
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_NOMEM || st == GPUCORE_E_INVAL)
            return st;
        if (note_offset == GC_NO_OFFSET)
            return gc_diag_set(diag, st == GPUCORE_E_VERSION ? st : GPUCORE_E_CORRUPT,
                               d.flags & GPUCORE_DIAG_HAS_OFFSET ? d.offset : GC_NO_OFFSET,
                               "AMDGPU note: %s", d.message);
        return gc_diag_set(diag, st == GPUCORE_E_VERSION ? st : GPUCORE_E_CORRUPT,
                           d.flags & GPUCORE_DIAG_HAS_OFFSET ? note_offset + d.offset
                                                             : GC_NO_OFFSET,
                           "AMDGPU note at file offset 0x%" PRIx64 ": %s", note_offset, d.message);
    }
    if (gpucore_amdgpu_note_check(img->note, &d) != GPUCORE_OK)
        GC_TRY(gc_image_problemf(img, "AMD's library would reject this note: %s", d.message));
    GC_TRY(read_rdebug(img));
    GC_TRY(build_agents(img));
    GC_TRY(index_agents(img));
    GC_TRY(gc_image_load_code_objects(img));
    GC_TRY(build_queues(img));
    bind_status(img);
    return GPUCORE_OK;
}

/* Allocate an image reading through @p mem. */
static struct gc_image *image_new(const struct gc_image_memory *mem, uint32_t flags,
                                  gpucore_diag_t *diag)
{
    struct gc_image *img = gc_calloc_array(1, sizeof(*img));

    if (!img) {
        gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory building the GPU image");
        return NULL;
    }
    img->mem = *mem;
    img->flags = flags;
    img->code_budget = UINT64_MAX; /* an image from a note: GC_IMAGE_MAX_CODE_BYTES only */
    img->cwsr_budget = GC_IMAGE_MAX_CWSR_TOTAL; /* until the source says what it holds */
    img->mem_limit = UINT64_MAX;                /* until a core's budget says otherwise */
    for (uint32_t i = 0; i < GC_IMAGE_RECORD_CACHE; i++)
        img->recs[i].wave = UINT32_MAX;
    return img;
}

/* Common end of both opens: on failure the diag says why and the image is gone. */
static gpucore_status_t image_done(struct gc_image *img, gpucore_status_t st,
                                   struct gc_image **ret, gpucore_diag_t *diag)
{
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_NOMEM)
            gc_diag_set(diag, st, GC_NO_OFFSET, "out of memory building the GPU image");
        gc_image_close(img);
        return st;
    }
    img->code_object_dir = NULL; /* the caller's, for the open only */
    *ret = img;
    return GPUCORE_OK;
}

/* What the cores hold, for the code-object budget (image_internal.h): their segment data
   (build_runs, overlaps counted once) and the embedded copies. */
static void set_code_budget(struct gc_image *img)
{
    uint64_t held = img->runs_held;

    for (uint32_t i = 0; img->embedded && i < img->embedded->count; i++)
        held += img->embedded->objects[i].bytes_size;
    img->code_budget = held;
}

static gpucore_status_t open_one(gpucore_core_t *core, const struct gc_image_options *opts,
                                 struct gc_image **ret, gpucore_diag_t *reterr_diag)
{
    const struct gc_image_memory mem = { core_read, core_errmsg, core };
    struct gpucore_note note;
    struct gc_image *img;
    uint32_t at = 0;
    gpucore_status_t st;

    GC_FAIL_IF(!core || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_open needs a core and a result pointer");
    st = gpucore_core_find_note(core, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE,
                                &at, &note);
    GC_FAIL_IF(st != GPUCORE_OK, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "the core has no AMDGPU note (owner \"AMDGPU\", type 33): it holds no GPU state");
    img = image_new(&mem, 0, reterr_diag);
    if (!img)
        return GPUCORE_E_NOMEM;
    img->core = core;
    set_mem_limit(img, core);
    img->code_object_dir = opts ? opts->code_object_dir : NULL;
    st = build_runs(img, core, NULL);
    if (st == GPUCORE_OK)
        st = read_gpucore_notes(img);
    if (st == GPUCORE_OK) {
        set_code_budget(img);
        st = build(img, note.desc, note.desc_size, note.offset, reterr_diag);
    }
    return image_done(img, st, ret, reterr_diag);
}

gpucore_status_t gc_image_open(gpucore_core_t *core, struct gc_image **ret,
                               gpucore_diag_t *reterr_diag)
{
    return open_one(core, NULL, ret, reterr_diag);
}

/* A split core's memory: the GPU file first, then the host core, for each byte in turn. */
struct split_source {
    gpucore_core_t *gpu, *host;
    gpucore_core_t *last_failed;
};

static gpucore_status_t split_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                   uint64_t *ret_done)
{
    struct split_source *src = user;
    uint64_t done = 0;
    gpucore_status_t st = GPUCORE_OK;

    while (done < size) {
        gpucore_core_t *cores[2] = { src->gpu, src->host };
        uint64_t got = 0;
        int progressed = 0;

        for (int i = 0; i < 2 && !progressed; i++) {
            st = gpucore_core_read(cores[i], addr + done, (uint8_t *)buf + done, size - done,
                                   &got);
            if (st != GPUCORE_OK && st != GPUCORE_E_UNAVAILABLE) {
                src->last_failed = cores[i];
                *ret_done = done;
                return st;
            }
            if (st != GPUCORE_OK)
                src->last_failed = cores[i];
            if (got > size - done)
                got = size - done;
            progressed = got > 0;
            done += got;
        }
        if (!progressed)
            break;
    }
    *ret_done = done;
    return done == size ? GPUCORE_OK : GPUCORE_E_UNAVAILABLE;
}

static const char *split_errmsg(void *user)
{
    struct split_source *src = user;

    return src->last_failed ? gpucore_core_errmsg(src->last_failed) : "";
}

gpucore_status_t gc_image_open_split(gpucore_core_t *gpu, gpucore_core_t *host,
                                     struct gc_image **ret, gpucore_diag_t *reterr_diag)
{
    return gc_image_open_with(gpu, host, NULL, ret, reterr_diag);
}

gpucore_status_t gc_image_open_with(gpucore_core_t *gpu, gpucore_core_t *host,
                                    const struct gc_image_options *opts, struct gc_image **ret,
                                    gpucore_diag_t *reterr_diag)
{
    struct split_source *src;
    struct gpucore_note note;
    struct gc_image *img;
    uint32_t at = 0;
    gpucore_status_t st;

    if (!host)
        return open_one(gpu, opts, ret, reterr_diag);
    GC_FAIL_IF(!gpu || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_open_split needs a core and a result pointer");
    st = gpucore_core_find_note(gpu, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE,
                                &at, &note);
    if (st != GPUCORE_OK) {
        at = 0;
        st = gpucore_core_find_note(host, GPUCORE_AMDGPU_NOTE_OWNER,
                                    GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &at, &note);
    }
    GC_FAIL_IF(st != GPUCORE_OK, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "neither core has an AMDGPU note (owner \"AMDGPU\", type 33): no GPU state");
    src = gc_calloc_array(1, sizeof(*src));
    GC_FAIL_IF(!src, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    src->gpu = gpu;
    src->host = host;
    {
        const struct gc_image_memory mem = { split_read, split_errmsg, src };

        img = image_new(&mem, 0, reterr_diag);
    }
    if (!img) {
        gc_free(src);
        return GPUCORE_E_NOMEM;
    }
    img->core = gpu;
    set_mem_limit(img, gpu);
    img->owned_source = src;
    img->code_object_dir = opts ? opts->code_object_dir : NULL;
    st = build_runs(img, gpu, host);
    if (st == GPUCORE_OK)
        st = read_gpucore_notes(img);
    if (st == GPUCORE_OK) {
        set_code_budget(img);
        st = build(img, note.desc, note.desc_size, note.offset, reterr_diag);
    }
    return image_done(img, st, ret, reterr_diag);
}

gpucore_status_t gc_image_open_note(const void *note, size_t note_size,
                                    const struct gc_image_memory *mem, uint32_t flags,
                                    struct gc_image **ret, gpucore_diag_t *reterr_diag)
{
    struct gc_image *img;

    GC_FAIL_IF(!note || !mem || !mem->read || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_open_note needs a note, a memory source and a result pointer");
    img = image_new(mem, flags, reterr_diag);
    if (!img)
        return GPUCORE_E_NOMEM;
    return image_done(img, build(img, note, note_size, GC_NO_OFFSET, reterr_diag), ret,
                      reterr_diag);
}

void gc_image_close(struct gc_image *img)
{
    if (!img)
        return;
    for (uint32_t i = 0; i < img->nareas; i++) {
        if (img->areas[i].decoded)
            gc_cwsr_decoded_done(&img->areas[i].dec);
        gc_free(img->areas[i].ctl);
    }
    gc_free(img->areas);
    for (uint32_t i = 0; i < GC_IMAGE_RECORD_CACHE; i++)
        gc_image_record_done(&img->recs[i]);
    gc_image_free_code_objects(img);
    for (uint32_t i = 0; i < img->nproblems; i++)
        gc_free(img->problems[i]);
    gc_free(img->problems);
    gc_free(img->waves);
    gc_free(img->pending);
    gc_free(img->dispatches);
    gc_free(img->queues);
    gc_free(img->qpriv);
    gc_free(img->agents);
    gc_free(img->agent_by_gpu);
    gc_free(img->runs);
    gc_free(img->gaps);
    gc_free(img->gap_widest);
    gpucore_code_objects_free(img->embedded);
    gc_free(img->owned_source);
    gpucore_manifest_free(img->manifest);
    gpucore_amdgpu_note_free(img->note);
    gc_image_uncharge(img, img->mem_charged);
    gc_free(img);
}

/* ---- accessors ------------------------------------------------------------------------------- */

const gpucore_amdgpu_note_t *gc_image_note(const struct gc_image *img)
{
    return img ? img->note : NULL;
}

uint32_t gc_image_r_version(const struct gc_image *img)
{
    return img ? img->r_version : 0;
}

#define GC_IMAGE_LIST(name, type, arr, count)                           \
    uint32_t gc_image_##name##_count(const struct gc_image *img)        \
    {                                                                   \
        return img ? img->count : 0;                                    \
    }                                                                   \
    const type *gc_image_##name(const struct gc_image *img, uint32_t i) \
    {                                                                   \
        return img && i < img->count ? &img->arr[i] : NULL;             \
    }

GC_IMAGE_LIST(agent, struct gc_image_agent, agents, nagents)
GC_IMAGE_LIST(queue, struct gc_image_queue, queues, nqueues)
GC_IMAGE_LIST(dispatch, struct gc_image_dispatch, dispatches, ndispatches)
GC_IMAGE_LIST(wave, struct gc_image_wave, waves, nwaves)
GC_IMAGE_LIST(code_object, struct gc_image_code_object, cos, ncos)

uint32_t gc_image_problem_count(const struct gc_image *img)
{
    return img ? img->nproblems : 0;
}

const char *gc_image_problem(const struct gc_image *img, uint32_t i)
{
    return img && i < img->nproblems ? img->problems[i] : NULL;
}

/* ---- saved registers, read when asked (image.h) ------------------------------------------- */

gpucore_status_t gc_image_record_read(struct gc_image *img, uint32_t i,
                                      struct gc_image_record *rec, gpucore_diag_t *reterr_diag)
{
    const struct gc_image_wave *iw;
    const struct gc_arch *arch;
    struct gc_wave w;
    gpucore_status_t fatal = GPUCORE_OK;
    uint64_t size;
    int r;

    GC_FAIL_IF(!img || !rec || i >= img->nwaves, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_record_read: no wave %u", i);
    iw = &img->waves[i];
    arch = img->agents[img->queues[iw->queue].agent].arch;
    size = iw->wave.record_size;
    GC_FAIL_IF(!arch || !arch->cwsr, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "wave %u: its GPU target is unknown", i);
    rec->wave = UINT32_MAX;
    if (rec->cap < size) {
        /* record sizes were bounded at open (GC_IMAGE_MAX_CWSR_READ) */
        uint8_t *b = gc_malloc((size_t)size);

        GC_FAIL_IF(!b, reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                   "out of memory reading wave %u's registers", i);
        gc_free(rec->bytes);
        rec->bytes = b;
        rec->cap = size;
    }
    r = size ? read_exact(img, iw->record_address, rec->bytes, size, &fatal) : 1;
    if (r < 0)
        return gc_diag_set(reterr_diag, fatal, GC_NO_OFFSET,
                           "out of memory reading wave %u's registers", i);
    if (r == 0) {
        const char *why = gc_image_mem_errmsg(img);

        return gc_diag_set(reterr_diag, GPUCORE_E_UNAVAILABLE, GC_NO_OFFSET,
                           "wave %u: its saved registers (%" PRIu64 " bytes at 0x%" PRIx64
                           ") no longer read%s%s",
                           i, size, iw->record_address, *why ? ": " : "", why);
    }
    w = iw->wave;
    GC_FAIL_IF(gc_cwsr_wave_bind(arch, &w, rec->bytes, (size_t)size) != GPUCORE_OK, reterr_diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "wave %u: its record does not bind", i);
    /* the state the image reported at open, whatever the source gives now */
    w.hwreg = iw->status;
    w.ttmp = iw->status + GC_CWSR_STATUS_BYTES / 2;
    rec->w = w;
    rec->wave = i;
    return GPUCORE_OK;
}

void gc_image_record_done(struct gc_image_record *rec)
{
    if (!rec)
        return;
    gc_free(rec->bytes);
    rec->bytes = NULL;
    rec->cap = 0;
    rec->wave = UINT32_MAX;
}

gpucore_status_t gc_image_wave_regs(struct gc_image *img, uint32_t i, const struct gc_wave **ret,
                                    gpucore_diag_t *reterr_diag)
{
    struct gc_image_record *rec;

    GC_FAIL_IF(!img || !ret || i >= img->nwaves, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_image_wave_regs: no wave %u", i);
    for (uint32_t k = 0; k < GC_IMAGE_RECORD_CACHE; k++)
        if (img->recs[k].wave == i) {
            *ret = &img->recs[k].w;
            return GPUCORE_OK;
        }
    rec = &img->recs[img->rec_next];
    img->rec_next = (img->rec_next + 1) % GC_IMAGE_RECORD_CACHE;
    GC_TRY(gc_image_record_read(img, i, rec, reterr_diag));
    *ret = &rec->w;
    return GPUCORE_OK;
}
