/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the GPU plan (capture/plan.c): the input is a synthetic target, so every
 * value the planner reads (r_debug, link map, URIs, code-object images, amd_queue_t, rings,
 * packets, kernel descriptors, kernargs, CWSR headers, control stacks and wave records) and the
 * snapshot entries themselves are hostile.
 *
 * Input (little-endian):
 *   u32 kfd_minor, u32 embed_limit (0 = 64 KiB here)
 *   16  kfd_runtime_info
 *   u8  ndevices (mod 5), u8 nqueues (mod 9), u8 nmaps (mod 17), u8 nexceptions (mod 5)
 *   ndevices * 120  kfd_dbg_device_info_entry
 *   nqueues * 64    kfd_queue_snapshot_entry
 *   nmaps * 24      { u64 base, u64 size, u32 kind, u32 flags } (sorted; overlaps dropped)
 *   nexceptions * 24 { u32 code, u32 gpu_id, u32 queue_id, u32 pad, u64 fault_va }
 *   then memory segments until the end: { u64 addr, u32 len, len bytes }
 * Memory outside the segments is unreadable (EFAULT, readable prefix reported).
 * tests/unit/test_plan.c writes seeds in this format from real scenario images.
 *
 * Invariants (abort() on violation): the plan succeeds or fails with a documented status and a
 * message; on success the note decodes, the tiers are sorted, disjoint and merged, the state
 * tier is in 64-byte lines, items are sorted and findable, the code objects and allocation map
 * encode, embedded bytes respect the limit, and the planner never asked for more than a bounded
 * number of bytes per read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "plan.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEGMENTS 4096u

struct segment {
    uint64_t addr;
    uint32_t len;
    const uint8_t *bytes;
};

struct target {
    struct segment seg[MAX_SEGMENTS];
    uint32_t nseg;
    const struct gc_kfd_mapping *maps;
    uint32_t nmaps;
};

struct cursor {
    const uint8_t *p;
    size_t left;
};

static int take(struct cursor *c, void *out, size_t n)
{
    if (c->left < n)
        return 0;
    memcpy(out, c->p, n); /* the host is little-endian, like the format */
    c->p += n;
    c->left -= n;
    return 1;
}

static gpucore_status_t target_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                    uint64_t *ret_done, int *ret_errno)
{
    const struct target *t = user;
    uint64_t done = 0;

    /* the planner never reads doorbells or MMIO */
    for (uint32_t i = 0; i < t->nmaps; i++)
        if (t->maps[i].flags & GC_KFD_MAP_NO_READ)
            CHECK(addr + size <= t->maps[i].base || addr >= t->maps[i].base + t->maps[i].size);

    while (done < size) {
        uint64_t a = addr + done;
        uint32_t i = 0;

        while (i < t->nseg && !(a >= t->seg[i].addr && a - t->seg[i].addr < t->seg[i].len))
            i++;
        if (i == t->nseg || a < addr) {
            *ret_done = done;
            *ret_errno = EFAULT;
            return GPUCORE_E_UNAVAILABLE;
        }
        uint64_t off = a - t->seg[i].addr;
        uint64_t n = t->seg[i].len - off;

        if (n > size - done)
            n = size - done;
        memcpy((uint8_t *)buf + done, t->seg[i].bytes + off, (size_t)n);
        done += n;
    }
    *ret_done = size;
    return GPUCORE_OK;
}

static int map_cmp(const void *a, const void *b)
{
    const struct gc_kfd_mapping *x = a, *y = b;

    return x->base < y->base ? -1 : x->base > y->base;
}

/* A state-tier edge: a 64-byte line boundary, the top of the address space, or the edge of a
 * mapping that must not be read (cut out of every tier). */
static int line_edge(const struct gc_plan_input *in, uint64_t a)
{
    if ((a & 63) == 0 || a == UINT64_MAX)
        return 1;
    for (uint32_t i = 0; i < in->nmaps; i++)
        if ((in->maps[i].flags & GC_KFD_MAP_NO_READ) &&
            (a == in->maps[i].base || a == in->maps[i].base + in->maps[i].size))
            return 1;
    return 0;
}

static void check_plan(const struct gc_plan *p, const struct gc_plan_input *in)
{
    uint64_t embed_limit = in->embed_limit;
    gpucore_amdgpu_note_t *note = NULL;
    void *desc = NULL;
    size_t dsize = 0;
    uint64_t embedded = 0;

    CHECK(gpucore_amdgpu_note_decode(p->amdgpu_note, p->amdgpu_note_size, &note, NULL) ==
          GPUCORE_OK);
    CHECK(note->agent_count == p->agents && note->queue_count == p->queues);
    gpucore_amdgpu_note_free(note);
    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++) {
        const struct gc_rangeset *s = &p->tier[t];

        for (uint32_t i = 0; i < s->count; i++) {
            CHECK(s->r[i].start < s->r[i].end);
            CHECK(i == 0 || s->r[i - 1].end < s->r[i].start);
            if (t == GPUCORE_TIER_STATE) /* whole lines, except at the top of the space */
                CHECK(line_edge(in, s->r[i].start) && line_edge(in, s->r[i].end));
            for (uint32_t k = 0; k < in->nmaps; k++)
                if (in->maps[k].flags & GC_KFD_MAP_NO_READ)
                    CHECK(s->r[i].end <= in->maps[k].base ||
                          s->r[i].start >= in->maps[k].base + in->maps[k].size);
            for (uint32_t u = t + 1; u < GC_PLAN_TIERS; u++)
                CHECK(!gc_rangeset_overlaps(&p->tier[u], s->r[i].start,
                                            s->r[i].end - s->r[i].start));
        }
    }
    for (uint32_t i = 0; i < p->nitems; i++) {
        CHECK(p->items[i].size > 0 && p->items[i].tier < GC_PLAN_TIERS);
        CHECK(i == 0 || p->items[i - 1].addr <= p->items[i].addr);
        CHECK(memchr(p->items[i].label, '\0', sizeof(p->items[i].label)));
        CHECK(gc_plan_item_at(p, p->items[i].addr) != NULL);
    }
    for (uint32_t i = 0; i < p->code_objects.count; i++)
        embedded += p->code_objects.objects[i].bytes_size;
    CHECK(embedded <= embed_limit);
    CHECK(gpucore_code_objects_encode(&p->code_objects, &desc, &dsize, NULL) == GPUCORE_OK);
    gpucore_free(desc);
    desc = NULL;
    CHECK(gpucore_alloc_map_encode(&p->alloc_map, &desc, &dsize, NULL) == GPUCORE_OK);
    gpucore_free(desc);
    CHECK(p->waves >= p->stopped_waves);
    for (uint32_t i = 0; i < p->nwarnings; i++)
        CHECK(p->warnings[i] && p->warnings[i][0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct target t;
    struct cursor c = { data, size };
    struct kfd_dbg_device_info_entry dev[4];
    struct kfd_queue_snapshot_entry q[8];
    struct gc_kfd_mapping maps[16];
    struct gc_plan_exception ex[4];
    struct gc_plan_input in;
    uint32_t embed = 0;
    uint8_t counts[4];
    struct gc_plan *p = NULL;
    gpucore_diag_t diag;
    gpucore_status_t st;

    memset(&in, 0, sizeof(in));
    memset(maps, 0, sizeof(maps));
    if (!take(&c, &in.kfd_minor, 4) || !take(&c, &embed, 4) || !take(&c, &in.rinfo, 16) ||
        !take(&c, counts, 4))
        return 0;
    in.kfd_major = 1;
    in.ndevices = counts[0] % 5;
    in.nqueues = counts[1] % 9;
    in.nexceptions = counts[3] % 5;
    for (uint32_t i = 0; i < in.ndevices; i++)
        if (!take(&c, &dev[i], sizeof(dev[i])))
            return 0;
    for (uint32_t i = 0; i < in.nqueues; i++)
        if (!take(&c, &q[i], sizeof(q[i])))
            return 0;
    for (uint32_t i = 0; i < counts[2] % 17u; i++) {
        struct gc_kfd_mapping m;

        memset(&m, 0, sizeof(m));
        if (!take(&c, &m.base, 8) || !take(&c, &m.size, 8) || !take(&c, &m.kind, 4) ||
            !take(&c, &m.flags, 4))
            return 0;
        snprintf(m.label, sizeof(m.label), "map %u", i);
        maps[in.nmaps++] = m;
    }
    for (uint32_t i = 0; i < in.nexceptions; i++) {
        uint32_t pad;

        if (!take(&c, &ex[i].code, 4) || !take(&c, &ex[i].gpu_id, 4) ||
            !take(&c, &ex[i].queue_id, 4) || !take(&c, &pad, 4) || !take(&c, &ex[i].fault_va, 8))
            return 0;
    }
    /* keep the mappings valid (sorted, disjoint, non-empty): the planner trusts its caller */
    qsort(maps, in.nmaps, sizeof(maps[0]), map_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < in.nmaps; i++) {
        if (maps[i].size == 0 || maps[i].size > UINT64_MAX - maps[i].base)
            continue;
        if (n && maps[i].base < maps[n - 1].base + maps[n - 1].size)
            continue;
        maps[n++] = maps[i];
    }
    in.nmaps = n;
    t.nseg = 0;
    while (c.left >= 12 && t.nseg < MAX_SEGMENTS) {
        struct segment *s = &t.seg[t.nseg];

        take(&c, &s->addr, 8);
        take(&c, &s->len, 4);
        if (s->len > c.left)
            s->len = (uint32_t)c.left;
        if ((uint64_t)s->len > UINT64_MAX - s->addr)
            s->len = (uint32_t)(UINT64_MAX - s->addr);
        s->bytes = c.p;
        c.p += s->len;
        c.left -= s->len;
        t.nseg++;
    }
    in.devices = dev;
    in.device_entry_size = sizeof(dev[0]);
    in.queues = q;
    in.queue_entry_size = sizeof(q[0]);
    in.maps = maps;
    in.exceptions = ex;
    in.mem.read = target_read;
    in.mem.user = &t;
    t.maps = maps;
    t.nmaps = in.nmaps;
    in.window = 16384;
    in.embed_limit = embed ? embed % (1u << 20) + 1 : 65536;

    memset(&diag, 0, sizeof(diag));
    st = gc_plan_build(&in, &p, &diag);
    if (st != GPUCORE_OK) {
        CHECK(st == GPUCORE_E_INVAL || st == GPUCORE_E_NOMEM);
        CHECK(p == NULL);
        CHECK(diag.message[0] != '\0');
        return 0;
    }
    CHECK(p != NULL);
    check_plan(p, &in);
    if (getenv("GPUCORE_FUZZ_PLAN_VERBOSE"))
        fprintf(stderr,
                "fuzz_plan: %u waves (%u stopped, %u faulting), %u dispatches, %u code "
                "objects, %u items, %u warnings\n",
                p->waves, p->stopped_waves, p->faulting_waves, p->dispatches, p->code_objects.count,
                p->nitems, p->nwarnings);
    gc_plan_free(p);
    return 0;
}
