/* SPDX-License-Identifier: MIT */
/*
 * The streaming core writer (gpucore/core.h). Segment bytes go straight to a sink (plain or
 * zstd) in the order they are added, after a reservation for the head; everything else -- the
 * ELF header, program headers, notes and the manifest -- is kept in memory and written into
 * the head by gpucore_writer_finish(), so the file starts with all of it.
 *
 * Bookkeeping:
 *  - segs[]: the PT_LOADs as written, in stream order, so a budget cut at logical offset L
 *    affects a suffix of them (apply_cut);
 *  - ents[]: manifest entries that are not written segments (skipped, unreadable), each tagged
 *    with the add call (`req`) it came from so that the pieces of one range merge back;
 *  - a search tree of every range passed to add_segment, to refuse overlaps in O(log n).
 */
#include <elf.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <gpucore/core.h>

#include "core_elf.h"
#include "core_internal.h"
#include "core_publish.h"
#include "core_sink.h"
#include "gc_le.h"
#include "gc_util.h"

/* Linux puts the real count in section header 0 from this many program headers on. */
#define XNUM_THRESHOLD 0xffffu
/* Guess of the encoded manifest per entry and fixed part (exact sizes are used at finish). */
#define MANIFEST_EST_FIXED 128u
#define MANIFEST_EST_ENTRY 64u
/* Head rebuilds at finish while cutting for the budget; after them all data is dropped. */
#define FINISH_MAX_ROUNDS 64
/*
 * Room reserved ahead of the data for what the caller may still add (notes, segments) when it
 * did not say (gpucore_writer_opts::head_reserve); less with a budget, where it counts.
 */
#define HEAD_SLACK_DEFAULT (16ull << 10)
#define HEAD_SLACK_BUDGET  (4ull << 10)
/* Largest head reservation taken from the caller: the reader's own limit on notes. */
#define HEAD_RESERVE_MAX GC_CORE_MAX_NOTE_BYTES
#define PF_ALL            (PF_R | PF_W | PF_X)

struct wseg {
    uint64_t vaddr;
    uint64_t filesz;
    uint64_t offset; /* logical file offset */
    uint32_t flags;
    uint32_t tier;
    uint32_t req;
    const char *label;
};

struct went {
    uint64_t addr;
    uint64_t size;
    uint32_t tier;
    uint32_t status; /* GPUCORE_RANGE_* */
    uint32_t reason;
    uint32_t err;
    uint32_t req;
    const char *label;
};

struct wrange {
    uint64_t start;
    uint64_t end; /* exclusive */
};

/* One add_segment call being processed. */
struct req {
    uint64_t end;
    uint32_t tier;
    uint32_t flags;
    uint32_t id;
    const char *label;
    int open; /* segs[nsegs - 1] is this call's current piece */
};

struct gpucore_writer {
    struct gc_core_publish pub;
    struct gc_core_sink *sink;
    uint32_t flags;
    uint16_t machine;
    uint8_t osabi;
    uint8_t abiversion;
    gpucore_status_t failed; /* < 0: only abort is allowed */
    char errmsg[GPUCORE_DIAG_MESSAGE_SIZE];

    struct gc_buf notes; /* encoded note envelopes, in order */
    uint32_t nnotes;
    struct wseg *segs;
    uint32_t nsegs, segs_cap;
    struct went *ents;
    uint32_t nents, ents_cap;
    char **labels; /* interned label copies, owned */
    uint32_t nlabels, labels_cap;
    uint64_t label_est; /* bytes of labels in the manifest, estimated */
    void *ranges;       /* tsearch root of struct wrange */
    uint32_t next_req;
    uint8_t *chunk; /* read-callback buffer, GC_CORE_CHUNK_SIZE */

    uint32_t truncated;
    uint32_t trunc_reason;
    uint32_t manifest_flags; /* the caller's GPUCORE_MANIFEST_* bits */
    uint64_t data_bytes;
    uint64_t skipped_bytes;
    uint64_t head_reserve; /* gpucore_writer_opts::head_reserve */
    uint64_t budget;       /* max_bytes, 0 = none */
    int started;           /* the sink's head is reserved */
};

static const uint8_t zero_page[4096];

/* ---------------------------------------------------------------------------------------- */
/* Failure bookkeeping                                                                      */

static gpucore_status_t keep_msg(gpucore_writer_t *w, gpucore_status_t st, const gpucore_diag_t *d)
{
    memcpy(w->errmsg, d->message, sizeof(w->errmsg));
    return st;
}

/* A failure the writer cannot recover from: remember it, so only abort is left. */
static gpucore_status_t fail(gpucore_writer_t *w, gpucore_status_t st, const gpucore_diag_t *d)
{
    w->failed = st;
    return keep_msg(w, st, d);
}

static gpucore_status_t usable(gpucore_writer_t *w)
{
    gpucore_diag_t d;

    if (w->failed)
        return keep_msg(w,
                        gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                    "the writer failed earlier (%s)",
                                    gpucore_status_name(w->failed)),
                        &d);
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Growable arrays                                                                          */

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    uint32_t ncap;
    void *p;

    if (n < *cap)
        return 0;
    if (*cap > UINT32_MAX / 2)
        return -1;
    ncap = *cap ? *cap * 2 : 64;
    p = gc_realloc_array(*arr, ncap, elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

static gpucore_status_t intern_label(gpucore_writer_t *w, const char *label, const char **ret,
                                     gpucore_diag_t *d)
{
    char *copy;

    *ret = NULL;
    if (!label)
        return GPUCORE_OK;
    GC_FAIL_IF(grow((void **)&w->labels, &w->labels_cap, w->nlabels, sizeof(*w->labels)), d,
               GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    copy = gc_strdup(label);
    GC_FAIL_IF(!copy, d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    /* The manifest holds UTF-8; a label is often a path the target chose. */
    gc_utf8_scrub(copy, strlen(copy));
    w->labels[w->nlabels++] = copy;
    *ret = copy;
    return GPUCORE_OK;
}

static uint64_t label_cost(const char *label)
{
    return label ? strlen(label) + 8 : 0;
}

static gpucore_status_t add_entry(gpucore_writer_t *w, const struct went *e, gpucore_diag_t *d)
{
    GC_FAIL_IF(grow((void **)&w->ents, &w->ents_cap, w->nents, sizeof(*w->ents)), d,
               GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    w->ents[w->nents++] = *e;
    w->label_est += label_cost(e->label);
    return GPUCORE_OK;
}

/* Record [addr, addr + size) of request @p r as not written. */
static gpucore_status_t add_gap(gpucore_writer_t *w, const struct req *r, uint64_t addr,
                                uint64_t size, uint32_t status, uint32_t reason, uint32_t err,
                                gpucore_diag_t *d)
{
    struct went e = {
        .addr = addr,
        .size = size,
        .tier = r->tier,
        .status = status,
        .reason = reason,
        .err = err,
        .req = r->id,
        .label = r->label,
    };

    if (!size)
        return GPUCORE_OK;
    w->skipped_bytes += size;
    return add_entry(w, &e, d);
}

static void set_truncated(gpucore_writer_t *w, uint32_t reason)
{
    if (!w->truncated) {
        w->truncated = 1;
        w->trunc_reason = reason;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Budget                                                                                   */

/*
 * Estimate of the head's logical size -- ELF header, program headers, notes and manifest --
 * assuming @p more_segs more PT_LOADs and @p more_ents more manifest entries. Only the budget
 * checks while data is written depend on it; finish() uses exact sizes.
 */
static uint64_t meta_estimate(const gpucore_writer_t *w, uint64_t more_segs, uint64_t more_ents)
{
    uint64_t segs = w->nsegs + more_segs;
    uint64_t notes = w->notes.len;
    uint64_t phnum;

    if (!(w->flags & GPUCORE_WRITE_NO_MANIFEST))
        notes += gc_elf_note_size(strlen(GPUCORE_NOTE_OWNER),
                                  MANIFEST_EST_FIXED +
                                          (segs + w->nents + more_ents) * MANIFEST_EST_ENTRY +
                                          w->label_est);
    phnum = 1 + segs;
    return GC_ELF_EHDR_SIZE + phnum * GC_ELF_PHDR_SIZE +
           (phnum >= XNUM_THRESHOLD ? GC_ELF_SHDR_SIZE : 0) + notes;
}

/*
 * Reserve the head, once, before the first data byte: what is known now plus what the caller
 * said is still to come (or a default slack), in whole pages.
 */
static gpucore_status_t start_head(gpucore_writer_t *w, gpucore_diag_t *d)
{
    uint64_t more = w->head_reserve ? w->head_reserve
                                    : w->budget ? HEAD_SLACK_BUDGET : HEAD_SLACK_DEFAULT;

    if (w->started)
        return GPUCORE_OK;
    w->started = 1;
    return w->sink->ops->start(w->sink,
                               gc_core_align_up(meta_estimate(w, 0, 0) + more, GC_CORE_HEAD_ALIGN),
                               d);
}

/* The segments the reader's program header limit still allows (the PT_NOTE takes one). */
static int phdrs_full(const gpucore_writer_t *w)
{
    return w->nsegs + 1u >= GC_CORE_MAX_PHDRS;
}

/*
 * The stream was cut at logical offset @p cut: shorten or drop the segments past it (a suffix
 * of segs[], which is in stream order) and record what they lose as SKIPPED/BUDGET.
 */
static gpucore_status_t apply_cut(gpucore_writer_t *w, uint64_t cut, gpucore_diag_t *d)
{
    set_truncated(w, GPUCORE_REASON_BUDGET);
    while (w->nsegs) {
        struct wseg *s = &w->segs[w->nsegs - 1];
        struct req r = { .tier = s->tier, .id = s->req, .label = s->label };
        uint64_t keep;

        if (s->offset + s->filesz <= cut)
            break;
        keep = s->offset >= cut ? 0 : cut - s->offset;
        GC_TRY(add_gap(w, &r, s->vaddr + keep, s->filesz - keep, GPUCORE_RANGE_SKIPPED,
                       GPUCORE_REASON_BUDGET, 0, d));
        w->data_bytes -= s->filesz - keep;
        s->filesz = keep;
        if (keep)
            break;
        w->nsegs--;
    }
    return GPUCORE_OK;
}

static gpucore_status_t sink_append(gpucore_writer_t *w, const uint8_t *p, size_t n,
                                    uint64_t *ret_cut, gpucore_diag_t *d)
{
    return w->sink->ops->append(w->sink, p, n, ret_cut, d);
}

/* ---------------------------------------------------------------------------------------- */
/* Segments                                                                                 */

static int range_cmp(const void *a, const void *b)
{
    const struct wrange *x = a, *y = b;

    /* Stored ranges never overlap, so "overlapping" is a consistent "equal". */
    if (x->end <= y->start)
        return -1;
    if (y->end <= x->start)
        return 1;
    return 0;
}

/* Reserve [vaddr, end) in the overlap index; E_INVAL if it overlaps an earlier segment. */
static gpucore_status_t claim_range(gpucore_writer_t *w, uint64_t vaddr, uint64_t end,
                                    gpucore_diag_t *d)
{
    struct wrange *r = gc_malloc(sizeof(*r));
    struct wrange **found;

    GC_FAIL_IF(!r, d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    r->start = vaddr;
    r->end = end;
    found = tsearch(r, &w->ranges, range_cmp);
    if (!found) {
        gc_free(r);
        return gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    if (*found != r) {
        gpucore_status_t st =
                gc_diag_set(d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                            "segment [0x%llx, 0x%llx) overlaps the segment "
                            "[0x%llx, 0x%llx) added earlier",
                            (unsigned long long)vaddr, (unsigned long long)end,
                            (unsigned long long)(*found)->start, (unsigned long long)(*found)->end);
        gc_free(r);
        return st;
    }
    return GPUCORE_OK;
}

/*
 * Write @p n readable bytes at @p addr of request @p r: open a PT_LOAD for them if none is
 * open (padding the stream to its alignment), then as much as the budget allows. When the
 * budget runs out, w->truncated is set and the part of these bytes not written is recorded.
 */
static gpucore_status_t emit(gpucore_writer_t *w, struct req *r, uint64_t addr, const uint8_t *p,
                             uint64_t n, gpucore_diag_t *d)
{
    struct gc_core_sink *s = w->sink;
    uint64_t cut, room, k;

    GC_TRY(start_head(w, d));
    s->meta_est = meta_estimate(w, 1, 2);
    if (!r->open) {
        uint64_t pad = gc_core_align_up(s->pos, gc_elf_load_align(addr)) - s->pos;
        struct wseg *seg;

        if (phdrs_full(w) || s->ops->room(s) <= pad) {
            set_truncated(w, GPUCORE_REASON_BUDGET);
            return add_gap(w, r, addr, n, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET, 0, d);
        }
        GC_TRY(sink_append(w, zero_page, (size_t)pad, &cut, d));
        if (cut != GC_CORE_NONE) {
            GC_TRY(apply_cut(w, cut, d));
            return add_gap(w, r, addr, n, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET, 0, d);
        }
        GC_FAIL_IF(grow((void **)&w->segs, &w->segs_cap, w->nsegs, sizeof(*w->segs)), d,
                   GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        seg = &w->segs[w->nsegs++];
        seg->vaddr = addr;
        seg->filesz = 0;
        seg->offset = s->pos;
        seg->flags = r->flags;
        seg->tier = r->tier;
        seg->req = r->id;
        seg->label = r->label;
        w->label_est += label_cost(r->label);
        r->open = 1;
    }
    room = s->ops->room(s);
    k = n < room ? n : room;
    if (k) {
        /* Count the bytes first: a cut inside them is then undone by apply_cut like any other. */
        w->segs[w->nsegs - 1].filesz += k;
        w->data_bytes += k;
        GC_TRY(sink_append(w, p, (size_t)k, &cut, d));
        if (cut != GC_CORE_NONE) {
            r->open = 0;
            GC_TRY(apply_cut(w, cut, d));
            return add_gap(w, r, addr + k, n - k, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET, 0,
                           d);
        }
    }
    if (k < n) {
        r->open = 0;
        set_truncated(w, GPUCORE_REASON_BUDGET);
        return add_gap(w, r, addr + k, n - k, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET, 0, d);
    }
    return GPUCORE_OK;
}

static gpucore_status_t parse_info(const struct gpucore_range_info *info, struct req *r,
                                   gpucore_diag_t *d)
{
    GC_TRY(gc_core_opts_check(info, GC_OPTS_END(gpucore_range_info, label), "range info", d));
    r->tier = GC_OPTS_GET(info, gpucore_range_info, tier, GPUCORE_TIER_STATE);
    r->flags = GC_OPTS_GET(info, gpucore_range_info, p_flags, 0u);
    r->label = GC_OPTS_GET(info, gpucore_range_info, label, (const char *)NULL);
    GC_FAIL_IF(r->tier > GPUCORE_TIER_HOST, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "unknown tier %u",
               r->tier);
    GC_FAIL_IF(r->flags & ~(uint32_t)PF_ALL, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "p_flags 0x%x has bits other than PF_R|PF_W|PF_X", r->flags);
    if (!r->flags)
        r->flags = PF_R | PF_W;
    return GPUCORE_OK;
}

/* Common checks of add_segment and record_skip; interns the label into r->label. */
static gpucore_status_t begin_range(gpucore_writer_t *w, uint64_t vaddr, uint64_t size,
                                    const struct gpucore_range_info *info, struct req *r,
                                    gpucore_diag_t *d)
{
    const char *label;

    memset(r, 0, sizeof(*r));
    GC_FAIL_IF(!size, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "empty range at 0x%llx",
               (unsigned long long)vaddr);
    /* The exclusive end must be representable: readers compute vaddr + memsz. */
    GC_FAIL_IF(size > UINT64_MAX - vaddr, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "range 0x%llx + 0x%llx wraps past 2^64", (unsigned long long)vaddr,
               (unsigned long long)size);
    GC_TRY(parse_info(info, r, d));
    GC_TRY(intern_label(w, r->label, &label, d));
    r->label = label;
    r->end = vaddr + size;
    r->id = w->next_req++;
    return GPUCORE_OK;
}

/*
 * add_segment and add_segment_fn. Exactly one of @p read and @p direct is set; for @p direct
 * the bytes are taken from the caller's buffer without a copy.
 */
static gpucore_status_t add_range(gpucore_writer_t *w, uint64_t vaddr, uint64_t size,
                                  const struct gpucore_range_info *info, gpucore_read_fn read,
                                  void *user, const uint8_t *direct)
{
    gpucore_diag_t d;
    gpucore_status_t st;
    struct req r;
    uint64_t addr = vaddr;

    GC_TRY(usable(w));
    st = begin_range(w, vaddr, size, info, &r, &d);
    if (st == GPUCORE_OK)
        st = claim_range(w, vaddr, r.end, &d);
    if (st < 0)
        return st == GPUCORE_E_NOMEM ? fail(w, st, &d) : keep_msg(w, st, &d);
    if (w->truncated) {
        st = add_gap(w, &r, vaddr, size, GPUCORE_RANGE_SKIPPED, w->trunc_reason, 0, &d);
        if (st < 0)
            return fail(w, st, &d);
        gc_diag_set(&d, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                    "segment at 0x%llx not written: the capture was cut short (%s)",
                    (unsigned long long)vaddr, gpucore_reason_name(w->trunc_reason));
        return keep_msg(w, GPUCORE_E_LIMIT, &d);
    }
    if (!direct && !w->chunk) {
        w->chunk = gc_malloc(GC_CORE_CHUNK_SIZE);
        if (!w->chunk)
            return fail(w, gc_diag_set(&d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory"), &d);
    }

    while (addr < r.end && !w->truncated) {
        uint64_t n = r.end - addr < GC_CORE_CHUNK_SIZE ? r.end - addr : GC_CORE_CHUNK_SIZE;
        const uint8_t *p = direct ? direct + (addr - vaddr) : w->chunk;
        uint64_t got = n, bad = 0;
        int err = 0;

        st = GPUCORE_OK;
        if (!direct) {
            int64_t rv = read(user, addr, w->chunk, n, &err, &bad);

            if (rv < 0) {
                /* The callback's own status, passed on (anything outside int is E_IO). */
                gpucore_status_t cs = rv < INT32_MIN ? GPUCORE_E_IO : (gpucore_status_t)rv;

                return fail(w,
                            gc_diag_set(&d, cs, GC_NO_OFFSET,
                                        "the read callback failed at 0x%llx (%s)",
                                        (unsigned long long)addr, gpucore_status_name(cs)),
                            &d);
            }
            if ((uint64_t)rv > n)
                return fail(w,
                            gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                        "the read callback returned %lld bytes for a "
                                        "%llu-byte read at 0x%llx",
                                        (long long)rv, (unsigned long long)n,
                                        (unsigned long long)addr),
                            &d);
            got = (uint64_t)rv;
            /* Tolerate a callback that forgets ret_bad_size: skip at least one byte. */
            if (got < n && (bad == 0 || bad > r.end - addr - got))
                bad = bad ? r.end - addr - got : 1;
        }
        if (got)
            st = emit(w, &r, addr, p, got, &d);
        if (st == GPUCORE_OK && got < n) {
            r.open = 0; /* the readable part after the hole is a new PT_LOAD */
            st = add_gap(w, &r, addr + got, bad, GPUCORE_RANGE_UNREADABLE, GPUCORE_REASON_IO_ERROR,
                         (uint32_t)err, &d);
            got += bad;
        }
        if (st < 0)
            return fail(w, st, &d);
        addr += got;
    }
    if (addr < r.end) {
        /* The budget ran out in this segment: the rest is not even read. */
        st = add_gap(w, &r, addr, r.end - addr, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET, 0,
                     &d);
        if (st < 0)
            return fail(w, st, &d);
    }
    return GPUCORE_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Public API: streaming                                                                    */

gpucore_status_t gc_core_wopts_parse(const struct gpucore_writer_opts *opts,
                                     struct gc_core_wopts *o, gpucore_diag_t *d)
{
    uint32_t compress;

    GC_TRY(gc_core_opts_check(opts, GC_OPTS_END(gpucore_writer_opts, rename_user),
                              "writer options", d));
    o->kind = GC_OPTS_GET(opts, gpucore_writer_opts, kind, GPUCORE_CORE_UNIFIED);
    o->e_machine = GC_OPTS_GET(opts, gpucore_writer_opts, e_machine, 0u);
    o->flags = GC_OPTS_GET(opts, gpucore_writer_opts, flags, 0u);
    o->mode = GC_OPTS_GET(opts, gpucore_writer_opts, mode, 0u);
    o->max_bytes = GC_OPTS_GET(opts, gpucore_writer_opts, max_bytes, (uint64_t)0);
    o->level = GC_OPTS_GET(opts, gpucore_writer_opts, compress_level, 0);
    o->threads = GC_OPTS_GET(opts, gpucore_writer_opts, threads, 0u);
    o->frame_size = GC_OPTS_GET(opts, gpucore_writer_opts, frame_size, 0u);
    compress = GC_OPTS_GET(opts, gpucore_writer_opts, compress, 0u);
    o->head_reserve = GC_OPTS_GET(opts, gpucore_writer_opts, head_reserve, (uint64_t)0);
    o->expected_bytes = GC_OPTS_GET(opts, gpucore_writer_opts, expected_bytes, (uint64_t)0);
    o->manifest_flags = GC_OPTS_GET(opts, gpucore_writer_opts, manifest_flags, 0u);
    o->rename_on_exist = GC_OPTS_GET(opts, gpucore_writer_opts, rename_on_exist,
                                     (gpucore_writer_rename_fn)NULL);
    o->rename_user = GC_OPTS_GET(opts, gpucore_writer_opts, rename_user, (void *)NULL);

    GC_FAIL_IF(o->kind > GPUCORE_CORE_SPLIT, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "unknown kind %u",
               o->kind);
    GC_FAIL_IF(o->e_machine > UINT16_MAX || (o->e_machine && o->kind == GPUCORE_CORE_SPLIT), d,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "e_machine %u is invalid for this kind of core",
               o->e_machine);
    GC_FAIL_IF(o->flags & ~(GPUCORE_WRITE_OVERWRITE | GPUCORE_WRITE_NO_MANIFEST), d,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "unknown writer flags 0x%x", o->flags);
    GC_FAIL_IF(o->manifest_flags & ~(GPUCORE_MANIFEST_REDACTED | GPUCORE_MANIFEST_NO_HOST_MEMORY),
               d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "manifest flags 0x%x: only redacted and no-host-memory are the caller's",
               o->manifest_flags);
    GC_FAIL_IF(o->mode & ~07777u, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "mode 0%o is not a file mode",
               o->mode);
    GC_FAIL_IF(o->frame_size && (o->frame_size < GC_CORE_MIN_FRAME_SIZE ||
                                 o->frame_size > GC_CORE_MAX_FRAME_SIZE),
               d, GPUCORE_E_INVAL, GC_NO_OFFSET, "frame size %u is outside [%u, %u]", o->frame_size,
               GC_CORE_MIN_FRAME_SIZE, GC_CORE_MAX_FRAME_SIZE);
    GC_FAIL_IF(o->max_bytes && o->max_bytes < GPUCORE_WRITER_MIN_BUDGET, d, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "a size budget of %llu bytes is below the smallest core, %u bytes",
               (unsigned long long)o->max_bytes, GPUCORE_WRITER_MIN_BUDGET);
    GC_FAIL_IF(o->threads > GC_CORE_MAX_THREADS, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "%u threads is more than %u", o->threads, GC_CORE_MAX_THREADS);
    if (compress && !o->level)
        o->level = 3;
    GC_FAIL_IF(o->level && (o->level < ZSTD_minCLevel() || o->level > ZSTD_maxCLevel()), d,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "zstd level %d is outside [%d, %d]", o->level,
               ZSTD_minCLevel(), ZSTD_maxCLevel());
    if (!o->mode)
        o->mode = 0600;
    if (!o->frame_size)
        o->frame_size = gc_core_frame_size_for(o->expected_bytes);
    return GPUCORE_OK;
}

uint32_t gc_core_frame_size_for(uint64_t logical)
{
    uint64_t f = GC_CORE_DEFAULT_FRAME_SIZE;

    while (f < GC_CORE_MAX_FRAME_SIZE && logical / f >= GC_CORE_MAX_FRAMES / 2)
        f *= 2;
    return (uint32_t)f;
}

GPUCORE_API gpucore_status_t gpucore_writer_open(const char *path,
                                                 const struct gpucore_writer_opts *opts,
                                                 gpucore_writer_t **ret_writer,
                                                 gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t *d = reterr_diag;
    struct gc_core_wopts o;
    gpucore_writer_t *w;
    gpucore_status_t st;

    GC_FAIL_IF(!path || !ret_writer, d, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gpucore_writer_open: NULL %s", !path ? "path" : "ret_writer");
    GC_TRY(gc_core_wopts_parse(opts, &o, d));

    w = gc_calloc_array(1, sizeof(*w));
    GC_FAIL_IF(!w, d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    gc_buf_init(&w->notes);
    w->flags = o.flags;
    w->manifest_flags = o.manifest_flags;
    w->budget = o.max_bytes;
    w->head_reserve = o.head_reserve < HEAD_RESERVE_MAX ? o.head_reserve : HEAD_RESERVE_MAX;
    if (o.kind == GPUCORE_CORE_SPLIT) {
        w->machine = EM_AMDGPU;
        w->osabi = GC_ELFOSABI_AMDGPU_HSA;
        w->abiversion = GC_ELFABIVERSION_AMDGPU_HSA_V5;
    } else {
        w->machine = o.e_machine ? (uint16_t)o.e_machine : gc_elf_host_machine();
        w->osabi = ELFOSABI_SYSV; /* what Linux writes in its cores */
    }
    st = gc_core_publish_open(&w->pub, path, o.mode, gc_core_publish_flags(&o), d);
    if (st < 0) {
        gc_free(w);
        return st;
    }
    w->pub.rename_on_exist = o.rename_on_exist;
    w->pub.rename_user = o.rename_user;
    st = gc_core_sink_new(w->pub.fd, &o, &w->sink, d);
    if (st < 0) {
        gpucore_writer_abort(w);
        return st;
    }
    *ret_writer = w;
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_writer_add_note(gpucore_writer_t *w, const char *owner,
                                                     uint32_t type, const void *desc, size_t size)
{
    gpucore_diag_t d;
    size_t len;

    if (!w)
        return GPUCORE_E_INVAL;
    GC_TRY(usable(w));
    if (!owner || !*owner || (!desc && size) || size > UINT32_MAX)
        return keep_msg(w,
                        gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET, "add_note: %s",
                                    !owner || !*owner   ? "empty owner"
                                    : size > UINT32_MAX ? "descriptor above 4 GiB"
                                                        : "NULL descriptor"),
                        &d);
    len = strlen(owner);
    if (len >= UINT32_MAX ||
        gc_elf_note_size(len, size) > GC_CORE_MAX_USER_NOTE_BYTES - w->notes.len ||
        w->nnotes + 2u >= GC_CORE_MAX_NOTES)
        return keep_msg(w,
                        gc_diag_set(&d, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                                    "add_note: notes beyond %u or %llu bytes would make the "
                                    "core unreadable",
                                    GC_CORE_MAX_NOTES - 2, GC_CORE_MAX_USER_NOTE_BYTES),
                        &d);
    gc_elf_note_append(&w->notes, owner, type, desc, size);
    if (gc_buf_status(&w->notes))
        return fail(w, gc_diag_set(&d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory"), &d);
    w->nnotes++;
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_writer_add_segment_fn(gpucore_writer_t *w, uint64_t vaddr,
                                                           uint64_t size,
                                                           const struct gpucore_range_info *info,
                                                           gpucore_read_fn read, void *user)
{
    if (!w)
        return GPUCORE_E_INVAL;
    if (!read) {
        gpucore_diag_t d;

        return keep_msg(w, gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL read callback"),
                        &d);
    }
    return add_range(w, vaddr, size, info, read, user, NULL);
}

GPUCORE_API gpucore_status_t gpucore_writer_add_segment(gpucore_writer_t *w, uint64_t vaddr,
                                                        const void *data, uint64_t size,
                                                        const struct gpucore_range_info *info)
{
    if (!w)
        return GPUCORE_E_INVAL;
    if (!data) {
        gpucore_diag_t d;

        return keep_msg(w, gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL data"), &d);
    }
    return add_range(w, vaddr, size, info, NULL, NULL, data);
}

static int reason_known(uint32_t reason)
{
    return reason >= GPUCORE_REASON_TIER && reason <= GPUCORE_REASON_REDACTED;
}

GPUCORE_API gpucore_status_t gpucore_writer_record_skip(gpucore_writer_t *w, uint64_t vaddr,
                                                        uint64_t size,
                                                        const struct gpucore_range_info *info,
                                                        uint32_t reason)
{
    gpucore_diag_t d;
    gpucore_status_t st;
    struct req r;

    if (!w)
        return GPUCORE_E_INVAL;
    GC_TRY(usable(w));
    if (!reason_known(reason))
        return keep_msg(w,
                        gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                    "record_skip: unknown reason %u", reason),
                        &d);
    st = begin_range(w, vaddr, size, info, &r, &d);
    if (st == GPUCORE_OK) {
        struct went e = {
            .addr = vaddr,
            .size = size,
            .tier = r.tier,
            .status = GPUCORE_RANGE_SKIPPED,
            .reason = reason,
            .req = r.id,
            .label = r.label,
        };

        st = add_entry(w, &e, &d);
    }
    if (st < 0)
        return st == GPUCORE_E_NOMEM ? fail(w, st, &d) : keep_msg(w, st, &d);
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_writer_stop(gpucore_writer_t *w, uint32_t reason)
{
    gpucore_diag_t d;

    if (!w)
        return GPUCORE_E_INVAL;
    GC_TRY(usable(w));
    if (!reason_known(reason))
        return keep_msg(
                w,
                gc_diag_set(&d, GPUCORE_E_INVAL, GC_NO_OFFSET, "stop: unknown reason %u", reason),
                &d);
    set_truncated(w, reason);
    return GPUCORE_OK;
}

GPUCORE_API gpucore_status_t gpucore_writer_get_stats(const gpucore_writer_t *w,
                                                      struct gpucore_writer_stats *ret_stats)
{
    if (!w || !ret_stats)
        return GPUCORE_E_INVAL;
    memset(ret_stats, 0, sizeof(*ret_stats));
    ret_stats->file_bytes = w->sink->ops->file_bytes(w->sink);
    ret_stats->logical_bytes = w->sink->pos;
    ret_stats->data_bytes = w->data_bytes;
    ret_stats->skipped_bytes = w->skipped_bytes;
    ret_stats->segments = w->nsegs;
    ret_stats->notes = w->nnotes;
    ret_stats->truncated = w->truncated;
    ret_stats->truncation_reason = w->trunc_reason;
    return GPUCORE_OK;
}

GPUCORE_API const char *gpucore_writer_errmsg(const gpucore_writer_t *w)
{
    return w ? w->errmsg : "";
}

/* ---------------------------------------------------------------------------------------- */
/* Finish                                                                                   */

static int seg_cmp(const void *a, const void *b)
{
    const struct wseg *x = a, *y = b;

    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int ent_cmp(const void *a, const void *b)
{
    const struct went *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    return 0;
}

static int mentry_cmp(const void *a, const void *b)
{
    const gpucore_manifest_entry_t *x = a, *y = b;

    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    if (x->status != y->status)
        return x->status < y->status ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

static gpucore_str_t str_of(const char *s)
{
    gpucore_str_t r = { s, s ? (uint32_t)strlen(s) : 0 };

    return r;
}

/*
 * The manifest note: one CAPTURED entry per PT_LOAD, the skipped and unreadable ranges (pieces
 * of one add call merged back where they touch), in address order.
 */
static gpucore_status_t append_manifest(gpucore_writer_t *w, const struct wseg *sorted,
                                        struct gc_buf *notes, gpucore_diag_t *d)
{
    gpucore_manifest_t m = { 0 };
    struct went *ents = NULL;
    uint32_t n = 0;
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    m.entries = gc_calloc_array((size_t)w->nsegs + w->nents, sizeof(*m.entries));
    if (w->nents)
        ents = gc_calloc_array(w->nents, sizeof(*ents));
    if (!m.entries || (w->nents && !ents)) {
        st = gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < w->nsegs; i++) {
        gpucore_manifest_entry_t *e = &m.entries[m.count++];

        e->address = sorted[i].vaddr;
        e->size = sorted[i].filesz;
        e->tier = sorted[i].tier;
        e->status = GPUCORE_RANGE_CAPTURED;
        e->label = str_of(sorted[i].label);
    }
    if (w->nents) {
        memcpy(ents, w->ents, w->nents * sizeof(*ents));
        qsort(ents, w->nents, sizeof(*ents), ent_cmp);
        for (uint32_t i = 0; i < w->nents; i++) {
            struct went *last = n ? &ents[n - 1] : NULL;

            if (last && last->req == ents[i].req && last->addr + last->size == ents[i].addr &&
                last->status == ents[i].status && last->reason == ents[i].reason &&
                last->err == ents[i].err) {
                last->size += ents[i].size;
                continue;
            }
            ents[n++] = ents[i];
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        gpucore_manifest_entry_t *e = &m.entries[m.count++];

        e->address = ents[i].addr;
        e->size = ents[i].size;
        e->tier = ents[i].tier;
        e->status = ents[i].status;
        e->reason = ents[i].reason;
        e->err = ents[i].err;
        e->label = str_of(ents[i].label);
    }
    qsort(m.entries, m.count, sizeof(*m.entries), mentry_cmp);
    m.flags = (w->truncated ? GPUCORE_MANIFEST_TRUNCATED : 0) | w->manifest_flags;
    m.truncation_reason = w->truncated ? w->trunc_reason : GPUCORE_REASON_NONE;
    st = gpucore_manifest_encode(&m, &desc, &size, d);
    if (st < 0) {
        gc_diag_prefix(d, "manifest");
        goto out;
    }
    gc_elf_note_append(notes, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, desc, size);
out:
    gpucore_free(desc);
    gc_free(ents);
    gc_free(m.entries);
    return st;
}

/*
 * The head as it stands -- [ELF header][program headers][section header 0 with PN_XNUM]
 * [notes, manifest last] -- with every PT_LOAD's offset moved by @p shift (the data moves up
 * when the head outgrows its reservation).
 */
static gpucore_status_t build_head(gpucore_writer_t *w, uint64_t shift, struct gc_buf *head,
                                   gpucore_diag_t *d)
{
    struct gc_buf notes;
    struct wseg *sorted;
    struct gc_elf_ehdr eh;
    struct gc_elf_phdr ph;
    uint64_t phnum, note_off;
    gpucore_status_t st = GPUCORE_OK;
    uint8_t *p;

    sorted = gc_calloc_array(w->nsegs ? w->nsegs : 1, sizeof(*sorted));
    GC_FAIL_IF(!sorted, d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    if (w->nsegs)
        memcpy(sorted, w->segs, w->nsegs * sizeof(*sorted));
    qsort(sorted, w->nsegs, sizeof(*sorted), seg_cmp);

    gc_buf_init(&notes);
    if (w->notes.len)
        gc_buf_append(&notes, w->notes.data, w->notes.len);
    if (!(w->flags & GPUCORE_WRITE_NO_MANIFEST)) {
        st = append_manifest(w, sorted, &notes, d);
        if (st < 0)
            goto out;
    }
    phnum = (notes.len != 0) + (uint64_t)w->nsegs;
    note_off = GC_ELF_EHDR_SIZE + phnum * GC_ELF_PHDR_SIZE +
               (phnum >= XNUM_THRESHOLD ? GC_ELF_SHDR_SIZE : 0);

    gc_elf_ehdr_init_core(&eh, w->machine, w->osabi, w->abiversion);
    eh.phoff = phnum ? GC_ELF_EHDR_SIZE : 0;
    eh.phnum = (uint16_t)(phnum >= XNUM_THRESHOLD ? PN_XNUM : phnum);
    if (phnum >= XNUM_THRESHOLD) {
        eh.shoff = GC_ELF_EHDR_SIZE + phnum * GC_ELF_PHDR_SIZE;
        eh.shentsize = GC_ELF_SHDR_SIZE;
        eh.shnum = 1;
    }
    if ((p = gc_buf_grow(head, GC_ELF_EHDR_SIZE)))
        gc_elf_ehdr_encode(p, &eh);
    if (notes.len) {
        ph = (struct gc_elf_phdr){
            .type = PT_NOTE, .flags = PF_R, .offset = note_off, .filesz = notes.len, .align = 4
        };
        if ((p = gc_buf_grow(head, GC_ELF_PHDR_SIZE)))
            gc_elf_phdr_encode(p, &ph);
    }
    for (uint32_t i = 0; i < w->nsegs; i++) {
        ph = (struct gc_elf_phdr){ .type = PT_LOAD,
                                   .flags = sorted[i].flags,
                                   .offset = sorted[i].offset + shift,
                                   .vaddr = sorted[i].vaddr,
                                   .filesz = sorted[i].filesz,
                                   .memsz = sorted[i].filesz,
                                   .align = gc_elf_load_align(sorted[i].vaddr) };
        if ((p = gc_buf_grow(head, GC_ELF_PHDR_SIZE)))
            gc_elf_phdr_encode(p, &ph);
    }
    if (phnum >= XNUM_THRESHOLD) {
        /* As Linux's fill_extnum_info(): one SHT_NULL section header carrying the count. */
        struct gc_elf_shdr sh = { .type = SHT_NULL, .size = 1, .info = (uint32_t)phnum };

        if ((p = gc_buf_grow(head, GC_ELF_SHDR_SIZE)))
            gc_elf_shdr_encode(p, &sh);
    }
    if (notes.len)
        gc_buf_append(head, notes.data, notes.len);
    if (gc_buf_status(&notes) || gc_buf_status(head))
        st = gc_diag_set(d, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
out:
    gc_buf_done(&notes);
    gc_free(sorted);
    return st;
}

static void writer_free(gpucore_writer_t *w)
{
    if (w->sink)
        w->sink->ops->destroy(w->sink);
    gc_core_publish_abort(&w->pub);
    gc_buf_done(&w->notes);
    for (uint32_t i = 0; i < w->nlabels; i++)
        gc_free(w->labels[i]);
    gc_free(w->labels);
    gc_free(w->segs);
    gc_free(w->ents);
    gc_free(w->chunk);
    tdestroy(w->ranges, gc_free);
    gc_free(w);
}

GPUCORE_API gpucore_status_t gpucore_writer_finish(gpucore_writer_t *w,
                                                   struct gpucore_writer_stats *ret_stats,
                                                   gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t *d = reterr_diag;
    struct gpucore_writer_stats stats;
    struct gc_buf head;
    gpucore_status_t st;
    uint64_t cut;

    GC_FAIL_IF(!w, d, GPUCORE_E_INVAL, GC_NO_OFFSET, "gpucore_writer_finish: NULL writer");
    if (w->failed) {
        st = gc_diag_set(d, GPUCORE_E_INVAL, GC_NO_OFFSET,
                         "the writer failed earlier, nothing is published: %s", w->errmsg);
        goto out_free;
    }
    st = start_head(w, d);
    if (st < 0)
        goto out_free;
    /*
     * Fit the real head: when the file does not fit the budget the sink proposes a cut, the
     * segments are shortened, and the head (manifest, phdrs) is rebuilt for the new state.
     * Each round only moves the cut down; after FINISH_MAX_ROUNDS all data is dropped.
     */
    for (int round = 0;; round++) {
        uint64_t need, final, data = w->sink->pos > w->sink->head;

        gc_buf_init(&head);
        st = build_head(w, 0, &head, d);
        need = head.len;
        /* The data keeps its place unless the head outgrew the reservation. */
        final = gc_core_align_up(need, GC_CORE_HEAD_ALIGN);
        if (final < w->sink->head)
            final = w->sink->head;
        if (st == GPUCORE_OK && data && final != w->sink->head) {
            gc_buf_done(&head);
            gc_buf_init(&head);
            st = build_head(w, final - w->sink->head, &head, d);
        }
        if (st == GPUCORE_OK)
            st = w->sink->ops->finish(w->sink, head.data, head.len, final, &cut, d);
        gc_buf_done(&head);
        if (st == GPUCORE_OK && cut != GC_CORE_NONE) {
            if (round >= FINISH_MAX_ROUNDS)
                cut = w->sink->head;
            st = apply_cut(w, cut, d);
            if (st == GPUCORE_OK)
                st = w->sink->ops->rewind(w->sink, cut, d);
            if (st == GPUCORE_OK)
                continue;
        }
        if (st < 0)
            goto out_free;
        break;
    }
    gpucore_writer_get_stats(w, &stats);
    if (!(w->flags & GPUCORE_WRITE_NO_MANIFEST))
        stats.notes++;
    st = gc_core_publish_commit(&w->pub, d);
    if (st == GPUCORE_OK && ret_stats)
        *ret_stats = stats;
out_free:
    writer_free(w);
    return st;
}

GPUCORE_API void gpucore_writer_abort(gpucore_writer_t *w)
{
    if (w)
        writer_free(w);
}
