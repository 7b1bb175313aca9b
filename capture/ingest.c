/* SPDX-License-Identifier: MIT */
/*
 * gc_ingest_stream(): a core from a pipe, written while it is read. The rules are in ingest.h.
 */
#include "ingest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "gc_rocr.h"
#include "gc_util.h"
#include "kfd.h"

#define EHDR_SIZE             64u
#define PHDR_SIZE             56u
#define PT_LOAD_              1u
#define PT_NOTE_              4u
#define ET_CORE_              4u
#define EM_AMDGPU_            224u
#define NT_AMDGPU_CORE_STATE_ 33u
#define CHUNK                 (1u << 20)

/* ---- the stream ---------------------------------------------------------------------------- */

struct stream {
    int fd;
    int null_fd;   /* /dev/null for splice, -1 when not opened (yet) */
    int no_splice; /* splice failed once: read and drop instead */
    uint64_t pos;  /* bytes consumed */
    int eof;
    int err;          /* errno of a failed read */
    uint8_t *scratch; /* CHUNK bytes for reads that are dropped */
};

/* A non-blocking descriptor with nothing to read yet: wait for data, not in a busy loop. */
static void s_wait(const struct stream *s)
{
    struct pollfd p = { .fd = s->fd, .events = POLLIN };

    (void)poll(&p, 1, -1);
}

/* Read up to @p n bytes (all of them unless the stream ends or fails). */
static size_t s_read(struct stream *s, void *buf, size_t n)
{
    size_t got = 0;

    while (got < n && !s->eof && !s->err) {
        ssize_t r = read(s->fd, (uint8_t *)buf + got, n - got);

        if (r > 0) {
            got += (size_t)r;
            s->pos += (uint64_t)r;
        } else if (r == 0) {
            s->eof = 1;
        } else if (errno == EAGAIN) {
            s_wait(s);
        } else if (errno != EINTR) {
            s->err = errno;
        }
    }
    return got;
}

/* Drop @p n bytes; returns how many were dropped (fewer at the end of the stream). */
static uint64_t s_skip(struct stream *s, uint64_t n)
{
    uint64_t done = 0;

    if (s->null_fd < 0 && !s->no_splice) {
        s->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (s->null_fd < 0)
            s->no_splice = 1;
    }
    while (done < n && !s->eof && !s->err) {
        uint64_t want = n - done;

        if (!s->no_splice) {
            ssize_t r = splice(s->fd, NULL, s->null_fd, NULL,
                               want > (64u << 20) ? (64u << 20) : (size_t)want, SPLICE_F_MOVE);

            if (r > 0) {
                done += (uint64_t)r;
                s->pos += (uint64_t)r;
                continue;
            }
            if (r == 0) {
                s->eof = 1;
                break;
            }
            if (errno == EAGAIN) {
                s_wait(s);
                continue;
            }
            if (errno == EINTR)
                continue;
            s->no_splice = 1; /* not a pipe: read and drop */
        }
        if (!s->scratch && !(s->scratch = gc_malloc(CHUNK))) {
            s->err = ENOMEM;
            break;
        }
        done += s_read(s, s->scratch, want > CHUNK ? CHUNK : (size_t)want);
    }
    return done;
}

uint64_t gc_ingest_drain(int fd)
{
    struct stream s = { .fd = fd, .null_fd = -1 };
    uint64_t total = 0;

    while (!s.eof && !s.err)
        total += s_skip(&s, UINT64_MAX);
    if (s.null_fd >= 0)
        close(s.null_fd);
    gc_free(s.scratch);
    return total;
}

/* ---- what is kept ------------------------------------------------------------------------- */

struct range {
    uint64_t lo, hi; /* [lo, hi) */
};

struct ranges {
    struct range *v;
    uint32_t n, cap;
};

static gpucore_status_t ranges_add(struct ranges *r, uint64_t lo, uint64_t size)
{
    struct range *v;
    uint64_t hi = size > UINT64_MAX - lo ? UINT64_MAX : lo + size;

    if (!size)
        return GPUCORE_OK;
    v = gc_array_grow(r->v, &r->cap, r->n, sizeof(*r->v), 16);
    if (!v)
        return GPUCORE_E_NOMEM;
    r->v = v;
    r->v[r->n++] = (struct range){ lo, hi };
    return GPUCORE_OK;
}

static int cmp_range(const void *a, const void *b)
{
    const struct range *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge overlapping or touching ranges. */
static void ranges_normalise(struct ranges *r)
{
    uint32_t k = 0;

    if (!r->n)
        return;
    qsort(r->v, r->n, sizeof(r->v[0]), cmp_range);
    for (uint32_t i = 1; i < r->n; i++) {
        if (r->v[i].lo <= r->v[k].hi) {
            if (r->v[i].hi > r->v[k].hi)
                r->v[k].hi = r->v[i].hi;
        } else {
            r->v[++k] = r->v[i];
        }
    }
    r->n = k + 1;
}

/*
 * One XCC's context-save area, trimmed to its used parts once its header streamed past
 * (ingest.h, "Context-save areas"). PENDING until then; WHOLE on any doubt.
 */
enum { AREA_PENDING, AREA_TRIMMED, AREA_WHOLE };

struct area {
    uint64_t lo, size;         /* [lo, lo + size), no wrap */
    uint64_t used_lo, used_hi; /* TRIMMED: kept besides the header (control stack, waves) */
    uint32_t qid, xcc;
    uint32_t state;
};

struct areas {
    struct area *v; /* sorted by lo, disjoint (after areas_settle) */
    uint32_t n, cap;
};

static int cmp_area(const void *a, const void *b)
{
    const struct area *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* ---- the head ----------------------------------------------------------------------------- */

struct seg {
    uint32_t type;
    uint32_t flags;
    uint64_t offset, vaddr, filesz, memsz;
};

static int cmp_seg_offset(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;

    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_seg_vaddr(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;

    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* ---- the pipeline ------------------------------------------------------------------------- */

struct ingest {
    struct stream s;
    const struct gc_ingest_opts *o;
    gpucore_writer_t *w;
    struct seg *segs;
    uint32_t nsegs;
    struct seg *empty; /* PT_LOADs with p_filesz 0 */
    uint32_t nempty;
    struct ranges keep;    /* kept whole: sorted, disjoint */
    struct areas areas;    /* kept in part */
    int have_note;         /* the AMDGPU note streamed past */
    const struct seg *cur; /* the segment the read callback serves */
    struct area *tee;      /* the pending area whose header the read callback copies */
    uint8_t hdr[GC_CWSR_HEADER_SIZE];
    uint32_t hdr_got;
    struct gc_ingest_result res;
    gpucore_diag_t *diag;
};

static void warn(struct ingest *g, const char *fmt, ...) GC_PRINTF(2, 3);

static void warn(struct ingest *g, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (g->res.warnings++ >= GC_INGEST_MAX_WARNINGS || !g->o->warn)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    g->o->warn(g->o->warn_user, msg);
}

/* The stream offset of address @p addr of segment @p sg (for messages). */
static uint64_t stream_offset(const struct seg *sg, uint64_t addr)
{
    return sg->offset + (addr - sg->vaddr);
}

static gpucore_status_t areas_add(struct areas *a, uint64_t lo, uint64_t size, uint32_t qid,
                                  uint32_t xcc)
{
    struct area *v = gc_array_grow(a->v, &a->cap, a->n, sizeof(*a->v), 16);

    if (!v)
        return GPUCORE_E_NOMEM;
    a->v = v;
    a->v[a->n++] = (struct area){ .lo = lo, .size = size, .qid = qid, .xcc = xcc };
    return GPUCORE_OK;
}

/*
 * Sort the areas; areas that overlap one another (a hostile note: no layout says which bytes
 * are whose) move to the ranges kept whole.
 */
static gpucore_status_t areas_settle(struct ingest *g)
{
    struct areas *a = &g->areas;
    uint32_t k = 0;
    gpucore_status_t st = GPUCORE_OK;

    if (!a->n)
        return GPUCORE_OK;
    qsort(a->v, a->n, sizeof(a->v[0]), cmp_area);
    for (uint32_t i = 1; i < a->n; i++)
        if (a->v[i].lo < a->v[i - 1].lo + a->v[i - 1].size)
            a->v[i].state = a->v[i - 1].state = AREA_WHOLE;
    for (uint32_t i = 0; i < a->n && !st; i++) {
        if (a->v[i].state != AREA_WHOLE) {
            a->v[k++] = a->v[i];
            continue;
        }
        warn(g,
             "queue %u, XCC %u: the context-save area at 0x%" PRIx64 " overlaps another "
             "queue's; kept whole",
             a->v[i].qid, a->v[i].xcc, a->v[i].lo);
        g->res.save_areas_whole++;
        st = ranges_add(&g->keep, a->v[i].lo, a->v[i].size);
    }
    a->n = k;
    return st;
}

/* The ranges the AMDGPU note names (ingest.h, "What is kept"). */
static gpucore_status_t named_ranges(struct ingest *g, const gpucore_amdgpu_note_t *note)
{
    struct ranges *r = &g->keep;
    gpucore_status_t st = GPUCORE_OK;

    if (note->runtime.r_debug)
        st = ranges_add(r, note->runtime.r_debug, GC_ROCR_R_DEBUG_SIZE);
    for (uint32_t i = 0; i < note->queue_count && !st; i++) {
        const gpucore_kfd_queue_entry_t *q = &note->queues[i];
        const gpucore_kfd_device_entry_t *dev = NULL;
        struct gc_cwsr_sizes sz;
        const struct gc_arch *arch;
        uint32_t nxcc = 1, qid = q->queue_id & GC_KFD_QUEUE_ID_MASK;
        uint64_t ctx = q->ctx_save_restore_address, area = q->ctx_save_restore_area_size;

        for (uint32_t a = 0; a < note->agent_count; a++)
            if (note->agents[a].gpu_id == q->gpu_id)
                dev = &note->agents[a];
        if (dev && dev->num_xcc)
            nxcc = dev->num_xcc;
        st = ranges_add(r, q->ring_base_address, q->ring_size);
        uint64_t aq_lo, aq_size;

        if (!st && gc_rocr_amd_queue_lines(q->read_pointer_address, &aq_lo, &aq_size))
            st = ranges_add(r, aq_lo, aq_size);
        if (st || !ctx)
            continue;
        arch = dev ? gc_arch_by_gfx_version(dev->gfx_target_version) : NULL;
        if (!arch) {
            if (dev)
                warn(g,
                     "queue %u: gfx_target_version %u is not a known target; its context-save "
                     "area at 0x%" PRIx64 " is kept whole, to the end of its segment",
                     qid, dev->gfx_target_version, ctx);
            else
                warn(g,
                     "queue %u: no agent has its gpu_id 0x%x; its context-save area at "
                     "0x%" PRIx64 " is kept whole, to the end of its segment",
                     qid, q->gpu_id, ctx);
            st = ranges_add(r, ctx, UINT64_MAX);
            continue;
        }
        if (gc_cwsr_compute_sizes(arch, dev->simd_count, dev->array_count,
                                  dev->simd_arrays_per_engine, nxcc, &sz) != GPUCORE_OK ||
            sz.cwsr_size != area) {
            warn(g,
                 "queue %u: a context-save area of 0x%" PRIx64 " bytes per XCC is not what "
                 "%s with these node properties needs; the area at 0x%" PRIx64 " is kept whole, "
                 "to the end of its segment",
                 qid, area, arch->name, ctx);
            st = ranges_add(r, ctx, UINT64_MAX);
            continue;
        }
        if (nxcc > GC_INGEST_MAX_XCC || nxcc > GC_INGEST_MAX_SAVE_AREAS - g->areas.n ||
            sz.total_size > UINT64_MAX - ctx) {
            warn(g,
                 "queue %u: %u XCC areas at 0x%" PRIx64 " are more than ingest trims (%u per "
                 "queue, %u in all) or run past 2^64; kept whole",
                 qid, nxcc, ctx, GC_INGEST_MAX_XCC, GC_INGEST_MAX_SAVE_AREAS);
            st = ranges_add(r, ctx, sz.total_size);
            continue;
        }
        for (uint32_t x = 0; x < nxcc && !st; x++)
            st = areas_add(&g->areas, ctx + x * area, area, qid, x);
        /* the debugger area after the XCC areas, to the aligned end (docs/cwsr-layout.md 2) */
        if (!st)
            st = ranges_add(r, ctx + nxcc * area, sz.total_size - nxcc * area);
    }
    if (!st)
        st = areas_settle(g);
    if (!st)
        ranges_normalise(r);
    return st;
}

/* The writer's pull callback: the stream, which must be exactly at @p addr's file offset. */
static int64_t read_stream(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                           uint64_t *ret_bad_size)
{
    struct ingest *g = user;
    uint64_t want = g->cur->offset + (addr - g->cur->vaddr);
    size_t got;

    if (want != g->s.pos)
        return GPUCORE_E_INVAL; /* the writer reads forward only; a bug if not */
    got = s_read(&g->s, buf, (size_t)size);
    g->res.bytes_kept += got;
    if (g->tee) {
        /* the header of a pending area passes: copy it for the decision after this call */
        uint64_t hlo = g->tee->lo, hhi = hlo + GC_CWSR_HEADER_SIZE;
        uint64_t a0 = addr > hlo ? addr : hlo, a1 = addr + got < hhi ? addr + got : hhi;

        if (a0 < a1) {
            memcpy(g->hdr + (a0 - hlo), (const uint8_t *)buf + (a0 - addr), (size_t)(a1 - a0));
            g->hdr_got += (uint32_t)(a1 - a0);
        }
    }
    if (got < size) {
        *ret_errno = g->s.err ? g->s.err : EPIPE;
        *ret_bad_size = (g->cur->vaddr + g->cur->filesz) - (addr + got);
        g->res.stream_cut = 1;
    }
    return (int64_t)got;
}

static gpucore_status_t read_head(struct ingest *g, uint8_t *eh)
{
    gpucore_diag_t *diag = g->diag;
    uint64_t phoff, table, end = 0;
    uint32_t phnum, phentsize, machine;
    uint8_t *ph;
    size_t got = s_read(&g->s, eh, EHDR_SIZE);

    if (g->s.err)
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "reading the stream: %s",
                           strerror(g->s.err));
    GC_FAIL_IF(got < EHDR_SIZE, diag, GPUCORE_E_TRUNCATED, got,
               "the stream ends inside the ELF header (%zu of 64 bytes)", got);
    GC_FAIL_IF(memcmp(eh, "\177ELF", 4) != 0, diag, GPUCORE_E_CORRUPT, 0,
               "not an ELF file (no \\177ELF magic)");
    GC_FAIL_IF(eh[4] != 2 || eh[5] != 1, diag, GPUCORE_E_CORRUPT, 4,
               "not a 64-bit little-endian ELF file (class %u, data %u)", eh[4], eh[5]);
    GC_FAIL_IF(gc_le16_get(eh + 16) != ET_CORE_, diag, GPUCORE_E_CORRUPT, 0x10,
               "e_type %u is not ET_CORE (4)", gc_le16_get(eh + 16));
    machine = gc_le16_get(eh + 18);
    GC_FAIL_IF(g->o->expect_gpu && machine != EM_AMDGPU_, diag, GPUCORE_E_CORRUPT, 0x12,
               "e_machine %u is not EM_AMDGPU (224): not the GPU half of a split dump (a host "
               "core? use --host)",
               machine);
    GC_FAIL_IF(!g->o->expect_gpu && machine == EM_AMDGPU_, diag, GPUCORE_E_CORRUPT, 0x12,
               "e_machine 224 (EM_AMDGPU): the GPU half of a split dump, not a host core "
               "(drop --host)");
    phoff = gc_le64_get(eh + 32);
    phentsize = gc_le16_get(eh + 54);
    phnum = gc_le16_get(eh + 56);
    GC_FAIL_IF(phnum == 0xffff, diag, GPUCORE_E_CORRUPT, 0x38,
               "e_phnum 0xffff (PN_XNUM): the program header count comes after the data, which "
               "a stream cannot wait for");
    GC_FAIL_IF(phnum == 0, diag, GPUCORE_E_CORRUPT, 0x38, "no program headers");
    GC_FAIL_IF(phentsize != PHDR_SIZE, diag, GPUCORE_E_CORRUPT, 0x36, "e_phentsize %u is not 56",
               phentsize);
    GC_FAIL_IF(phoff < EHDR_SIZE, diag, GPUCORE_E_CORRUPT, 0x20,
               "e_phoff 0x%" PRIx64 " is inside the ELF header", phoff);
    table = (uint64_t)phnum * PHDR_SIZE;
    GC_FAIL_IF(phoff > g->o->max_head || table > g->o->max_head - phoff, diag, GPUCORE_E_LIMIT,
               0x20,
               "program header table at 0x%" PRIx64 " (%u entries) is beyond the %" PRIu64
               " bytes of head this reads",
               phoff, phnum, g->o->max_head);
    s_skip(&g->s, phoff - g->s.pos);
    ph = gc_malloc((size_t)table);
    g->segs = gc_calloc_array(phnum, sizeof(*g->segs));
    g->empty = gc_calloc_array(phnum, sizeof(*g->empty));
    if (!ph || !g->segs || !g->empty) {
        gc_free(ph);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    got = s_read(&g->s, ph, (size_t)table);
    if (got < table) {
        gc_free(ph);
        if (g->s.err)
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "reading the stream: %s",
                               strerror(g->s.err));
        return gc_diag_set(diag, GPUCORE_E_TRUNCATED, g->s.pos,
                           "the stream ends inside the program header table (0x%" PRIx64
                           ", %u entries)",
                           phoff, phnum);
    }
    for (uint32_t i = 0; i < phnum; i++) {
        const uint8_t *p = ph + (size_t)i * PHDR_SIZE;
        struct seg s = { gc_le32_get(p),      gc_le32_get(p + 4),  gc_le64_get(p + 8),
                         gc_le64_get(p + 16), gc_le64_get(p + 32), gc_le64_get(p + 40) };
        uint64_t at = phoff + (uint64_t)i * PHDR_SIZE;

        if (s.type == PT_LOAD_ && s.filesz == 0 && s.memsz && s.vaddr <= UINT64_MAX - s.memsz) {
            /* listed without data (the kernel's device mappings): said in the manifest */
            if (g->nempty < phnum)
                g->empty[g->nempty++] = s;
            continue;
        }
        if ((s.type != PT_LOAD_ && s.type != PT_NOTE_) || s.filesz == 0)
            continue;
        if (s.type == PT_LOAD_ && (s.memsz < s.filesz || s.vaddr > UINT64_MAX - s.memsz)) {
            gc_free(ph);
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                               "PT_LOAD at 0x%" PRIx64 ": p_memsz 0x%" PRIx64
                               " below p_filesz 0x%" PRIx64 " or past the address space",
                               s.vaddr, s.memsz, s.filesz);
        }
        if (s.offset > UINT64_MAX - s.filesz) {
            gc_free(ph);
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, at, "segment data past 2^64");
        }
        g->segs[g->nsegs++] = s;
    }
    gc_free(ph);
    /* Front to back, and no two PT_LOADs at one address. */
    qsort(g->segs, g->nsegs, sizeof(*g->segs), cmp_seg_vaddr);
    for (uint32_t i = 0, prev = UINT32_MAX; i < g->nsegs; i++) {
        if (g->segs[i].type != PT_LOAD_)
            continue;
        if (prev != UINT32_MAX && g->segs[i].vaddr < g->segs[prev].vaddr + g->segs[prev].memsz)
            return gc_diag_set(diag, GPUCORE_E_CORRUPT, phoff,
                               "PT_LOADs at 0x%" PRIx64 " and 0x%" PRIx64 " overlap",
                               g->segs[prev].vaddr, g->segs[i].vaddr);
        prev = i;
    }
    qsort(g->segs, g->nsegs, sizeof(*g->segs), cmp_seg_offset);
    end = phoff + table;
    for (uint32_t i = 0; i < g->nsegs; i++) {
        GC_FAIL_IF(g->segs[i].offset < end, diag, GPUCORE_E_CORRUPT, g->segs[i].offset,
                   "segment data at 0x%" PRIx64 " precedes the end of the program header table "
                   "or of the segment before it (0x%" PRIx64 "): a stream must be front to back",
                   g->segs[i].offset, end);
        end = g->segs[i].offset + g->segs[i].filesz;
    }
    return GPUCORE_OK;
}

/* A PT_NOTE segment: every note to the writer; the AMDGPU note decides what is kept. */
static gpucore_status_t read_notes(struct ingest *g, const struct seg *sg, uint64_t *inout_head)
{
    gpucore_diag_t *diag = g->diag;
    uint8_t *buf;
    size_t got;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(sg->filesz > g->o->max_head - *inout_head, diag, GPUCORE_E_LIMIT, sg->offset,
               "PT_NOTE of 0x%" PRIx64 " bytes: the head would exceed %" PRIu64 " bytes",
               sg->filesz, g->o->max_head);
    *inout_head += sg->filesz;
    buf = gc_malloc((size_t)sg->filesz);
    if (!buf)
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    got = s_read(&g->s, buf, (size_t)sg->filesz);
    if (got < sg->filesz) {
        gc_free(buf);
        if (g->s.err)
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "reading the stream: %s",
                               strerror(g->s.err));
        return gc_diag_set(diag, GPUCORE_E_TRUNCATED, g->s.pos,
                           "the stream ends inside the PT_NOTE at 0x%" PRIx64, sg->offset);
    }
    for (uint64_t pos = 0; pos < sg->filesz && !st;) {
        uint64_t at = sg->offset + pos, namesz, descsz, name_pad, desc_pad;
        uint32_t type;
        char owner[64];

        if (sg->filesz - pos < 12) /* padding at the end */
            break;
        namesz = gc_le32_get(buf + pos);
        descsz = gc_le32_get(buf + pos + 4);
        type = gc_le32_get(buf + pos + 8);
        name_pad = (namesz + 3) & ~3ull;
        desc_pad = (descsz + 3) & ~3ull;
        if (name_pad > sg->filesz - pos - 12 || desc_pad > sg->filesz - pos - 12 - name_pad) {
            /* the kernel does not pad the last descriptor of a segment */
            if (!(name_pad <= sg->filesz - pos - 12 &&
                  descsz == sg->filesz - pos - 12 - name_pad)) {
                st = gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                                 "note of %" PRIu64 "+%" PRIu64 " bytes runs past its PT_NOTE",
                                 namesz, descsz);
                break;
            }
            desc_pad = descsz;
        }
        if (namesz == 0 || namesz >= sizeof(owner) || buf[pos + 12 + namesz - 1] != '\0' ||
            memchr(buf + pos + 12, '\0', namesz - 1)) {
            st = gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                             "note owner of %" PRIu64 " bytes is not a NUL-terminated name",
                             namesz);
            break;
        }
        memcpy(owner, buf + pos + 12, namesz);
        if (strcmp(owner, "GPUCORE") == 0 &&
            (type == GPUCORE_NT_MANIFEST || (type == GPUCORE_NT_CAPTURE_META && g->o->meta))) {
            /* the writer writes its own manifest; the caller gave its CAPTURE_META */
        } else if (gpucore_writer_add_note(g->w, owner, type, buf + pos + 12 + name_pad, descsz) !=
                   GPUCORE_OK) {
            st = gc_diag_set(diag, GPUCORE_E_LIMIT, at, "note: %s", gpucore_writer_errmsg(g->w));
            break;
        }
        if (strcmp(owner, "AMDGPU") == 0 && type == NT_AMDGPU_CORE_STATE_) {
            gpucore_amdgpu_note_t *note = NULL;
            gpucore_diag_t d;

            if (g->have_note) {
                st = gc_diag_set(diag, GPUCORE_E_CORRUPT, at,
                                 "a second AMDGPU core-state note: a core holds exactly one");
                break;
            }
            st = gpucore_amdgpu_note_decode(buf + pos + 12 + name_pad, descsz, &note, &d);
            if (st) {
                if (st != GPUCORE_E_NOMEM)
                    st = gc_diag_set(diag, GPUCORE_E_CORRUPT,
                                     at + 12 + name_pad +
                                             ((d.flags & GPUCORE_DIAG_HAS_OFFSET) ? d.offset : 0),
                                     "AMDGPU note: %s", d.message);
                break;
            }
            g->have_note = 1;
            st = named_ranges(g, note);
            gpucore_amdgpu_note_free(note);
        }
        pos += 12 + name_pad + desc_pad;
    }
    gc_free(buf);
    return st;
}

static gpucore_status_t skip_range(struct ingest *g, uint64_t vaddr, uint64_t size, uint32_t reason,
                                   const char *label)
{
    uint64_t dropped = s_skip(&g->s, size);

    g->res.bytes_skipped += size;
    if (dropped < size)
        g->res.stream_cut = 1;
    return gpucore_writer_record_skip(
            g->w, vaddr, size,
            GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_ALL, .label = label), reason);
}

/* The first range of @p r whose end is above @p at (r->n if none). */
static uint32_t range_above(const struct ranges *r, uint64_t at)
{
    uint32_t lo = 0, hi = r->n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (r->v[mid].hi > at)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first area whose end is above @p at (NULL if none). */
static struct area *area_above(const struct areas *a, uint64_t at)
{
    uint32_t lo = 0, hi = a->n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (a->v[mid].lo + a->v[mid].size > at)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < a->n ? &a->v[lo] : NULL;
}

static void area_whole(struct ingest *g, struct area *a, const char *why)
{
    warn(g, "queue %u, XCC %u: the context-save area at 0x%" PRIx64 " is kept whole: %s", a->qid,
         a->xcc, a->lo, why);
    a->state = AREA_WHOLE;
    g->res.save_areas_whole++;
}

/* The header of @p a passed (g->hdr): keep its used parts only, or all of it on a doubt. */
static void area_decide(struct ingest *g, struct area *a, const struct seg *sg)
{
    struct gc_cwsr_header h = { 0 };
    struct gc_cwsr_used u;
    const char *why = "it does not decode";
    char msg[320];

    if (g->hdr_got == GC_CWSR_HEADER_SIZE &&
        gc_cwsr_header_decode(g->hdr, sizeof(g->hdr), &h) == GPUCORE_OK &&
        gc_cwsr_used_parts(&h, a->size, &u, &why) == GPUCORE_OK) {
        a->state = AREA_TRIMMED;
        a->used_lo = a->lo + u.ctl_offset;
        a->used_hi = a->lo + u.wave_offset + u.wave_size;
        g->res.save_areas_trimmed++;
        return;
    }
    snprintf(msg, sizeof(msg),
             "its header (stream offset 0x%" PRIx64 ") is inconsistent: %s (control stack "
             "0x%x+0x%x, wave area 0x%x-0x%x, area 0x%" PRIx64 ")",
             stream_offset(sg, a->lo), why, h.control_stack_offset, h.control_stack_size,
             h.wave_state_offset, h.wave_state_size, a->size);
    area_whole(g, a, msg);
}

/* What do_load() does with the bytes from @p at: one run of the same decision. */
struct piece {
    int keep;
    int unused;          /* not kept: the unused part of a trimmed area */
    uint64_t end;        /* the run is [at, end) */
    struct area *header; /* the run ends with this pending area's header */
};

/* The decision at @p at of segment @p sg and how far it surely holds. */
static void look(struct ingest *g, const struct seg *sg, uint64_t at, struct piece *p)
{
    uint64_t seg_hi = sg->vaddr + sg->filesz, end = seg_hi, aend = UINT64_MAX;
    uint32_t k = range_above(&g->keep, at);
    int in_keep = k < g->keep.n && g->keep.v[k].lo <= at, akeep = 0, unused = 0;
    struct area *a = area_above(&g->areas, at), *header = NULL;

    if (k < g->keep.n)
        end = in_keep ? g->keep.v[k].hi : g->keep.v[k].lo;
    if (a && a->lo <= at) {
        if (a->state == AREA_PENDING && g->res.size_limited)
            a->state = AREA_WHOLE; /* past the limit nothing is kept: no header to decide on */
        if (a->state == AREA_PENDING) {
            char why[160];

            if (at == a->lo && a->size >= GC_CWSR_HEADER_SIZE &&
                seg_hi - at >= GC_CWSR_HEADER_SIZE) {
                header = a;
                akeep = 1;
                aend = at + GC_CWSR_HEADER_SIZE;
            } else {
                if (at == a->lo)
                    snprintf(why, sizeof(why),
                             "its header runs past the end of the PT_LOAD at 0x%" PRIx64
                             " (stream offset 0x%" PRIx64 ")",
                             sg->vaddr, stream_offset(sg, at));
                else
                    snprintf(why, sizeof(why),
                             "it begins before the PT_LOAD at 0x%" PRIx64
                             " (stream offset 0x%" PRIx64 "), where its header was not seen",
                             sg->vaddr, sg->offset);
                area_whole(g, a, why);
            }
        }
        if (a->state == AREA_WHOLE) {
            akeep = 1;
            aend = a->lo + a->size;
        } else if (a->state == AREA_TRIMMED) {
            if (at < a->lo + GC_CWSR_HEADER_SIZE) {
                akeep = 1;
                aend = a->lo + GC_CWSR_HEADER_SIZE;
            } else if (at >= a->used_lo && at < a->used_hi) {
                akeep = 1;
                aend = a->used_hi;
            } else {
                unused = 1;
                aend = at < a->used_lo ? a->used_lo : a->lo + a->size;
            }
        }
    } else if (a) {
        aend = a->lo;
    }
    p->keep = in_keep || akeep;
    p->unused = !p->keep && unused;
    /* a pending header is kept whatever the other ranges say: its run ends with it */
    p->end = header ? aend : end < aend ? end : aend;
    if (p->end > seg_hi)
        p->end = seg_hi;
    p->header = header;
}

/* The longest run from @p at with one decision, ending at a pending header's end if any. */
static void next_piece(struct ingest *g, const struct seg *sg, uint64_t at, struct piece *p)
{
    uint64_t seg_hi = sg->vaddr + sg->filesz;

    look(g, sg, at, p);
    while (!p->header && p->end < seg_hi) {
        struct piece n;

        look(g, sg, p->end, &n);
        if (n.keep != p->keep || n.unused != p->unused)
            break;
        p->end = n.end;
        p->header = n.header;
    }
}

/* The segment data the writer holds so far (not what it read and then cut for the limit). */
static uint64_t written(const struct ingest *g)
{
    struct gpucore_writer_stats ws;

    return gpucore_writer_get_stats(g->w, &ws) == GPUCORE_OK ? ws.data_bytes : 0;
}

/*
 * After the writer took [at, end) of @p sg: once its budget ran out (gc_ingest_opts::max_bytes)
 * it reads no more, so the part it did not read is read here and dropped; the writer has
 * recorded it. Sets res.size_limited from the writer's state.
 */
static void after_limit(struct ingest *g, const struct seg *sg, uint64_t end)
{
    struct gpucore_writer_stats ws;
    uint64_t want = stream_offset(sg, end);

    if (g->res.size_limited || gpucore_writer_get_stats(g->w, &ws) != GPUCORE_OK ||
        !ws.truncated)
        return;
    g->res.size_limited = 1;
    if (g->s.pos < want && !g->res.stream_cut) {
        uint64_t dropped = s_skip(&g->s, want - g->s.pos);

        g->res.bytes_over_limit += dropped;
        if (g->s.pos < want)
            g->res.stream_cut = 1;
    }
}

/* One PT_LOAD: the parts kept to the writer, the rest dropped. */
static gpucore_status_t do_load(struct ingest *g, const struct seg *sg)
{
    uint64_t hi = sg->vaddr + sg->filesz, at = sg->vaddr;
    int small = !g->o->keep_all && sg->filesz <= g->o->small_max;
    int over = small && sg->filesz > g->o->small_total_max - g->res.small_bytes_kept;
    int whole = g->o->keep_all || (small && !over);
    int any_skipped = 0, was_limited = (int)g->res.size_limited;
    uint64_t kept_before = written(g);
    gpucore_status_t st = GPUCORE_OK;

    while (at < hi) {
        struct piece p = { .keep = 1, .end = hi };

        if (!whole)
            next_piece(g, sg, at, &p);
        if (!p.keep || g->res.size_limited) {
            int limit = p.keep; /* kept but for the size limit */

            any_skipped = 1;
            if (p.unused)
                g->res.save_area_bytes_dropped += p.end - at;
            if (limit)
                g->res.bytes_over_limit += p.end - at;
            st = skip_range(g, at, p.end - at,
                            limit || (over && !p.unused) ? GPUCORE_REASON_BUDGET
                                                         : GPUCORE_REASON_TIER,
                            limit      ? "past the size limit (gpucore ingest)"
                            : p.unused ? "unused part of a context-save area (gpucore ingest)"
                            : over     ? "small GPU memory past the total kept of it (gpucore "
                                         "ingest)"
                                       : "GPU memory not in tier state (gpucore ingest)");
            at = p.end;
            if (st) {
                g->res.output_failed = 1;
                return gc_diag_set(g->diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(g->w));
            }
            if (g->res.stream_cut)
                break;
            continue;
        }
        g->cur = sg;
        g->tee = p.header;
        g->hdr_got = 0;
        st = gpucore_writer_add_segment_fn(
                g->w, at, p.end - at,
                GPUCORE_OPTS(gpucore_range_info,
                             .tier = g->o->expect_gpu ? GPUCORE_TIER_STATE : GPUCORE_TIER_HOST,
                             .p_flags = sg->flags),
                read_stream, g);
        g->tee = NULL;
        if (st == GPUCORE_E_LIMIT)
            st = GPUCORE_OK; /* the budget was out already: the writer recorded the range */
        if (st) {
            g->res.output_failed = 1;
            return gc_diag_set(g->diag, st, GC_NO_OFFSET, "PT_LOAD at 0x%" PRIx64 ": %s", sg->vaddr,
                               gpucore_writer_errmsg(g->w));
        }
        after_limit(g, sg, p.end);
        at = p.end;
        if (g->res.stream_cut) {
            if (p.header && g->hdr_got && g->hdr_got < GC_CWSR_HEADER_SIZE)
                warn(g,
                     "queue %u, XCC %u: the stream ends inside the header of the context-save "
                     "area at 0x%" PRIx64 " (stream offset 0x%" PRIx64 "); the core is cut there",
                     p.header->qid, p.header->xcc, p.header->lo, stream_offset(sg, p.header->lo));
            break;
        }
        if (p.header && g->res.size_limited)
            p.header->state = AREA_WHOLE; /* nothing more is kept: no decision */
        else if (p.header)
            area_decide(g, p.header, sg);
    }
    if (small && !over)
        g->res.small_bytes_kept += written(g) - kept_before; /* less if cut */
    g->res.small_segments_over += (uint32_t)over;
    if (any_skipped || g->res.size_limited != (uint32_t)was_limited)
        g->res.segments_skipped++;
    else
        g->res.segments_kept++;
    return GPUCORE_OK;
}

gpucore_status_t gc_ingest_stream(int fd, const char *out, const struct gc_ingest_opts *opts,
                                  struct gc_ingest_result *ret, gpucore_diag_t *reterr_diag)
{
    struct gc_ingest_opts o = opts ? *opts : (struct gc_ingest_opts){ 0 };
    struct ingest g = { .s = { .fd = fd, .null_fd = -1 }, .o = &o, .diag = reterr_diag };
    uint8_t eh[EHDR_SIZE];
    uint64_t head = 0, expected = 0;
    gpucore_status_t st;
    uint32_t i;

    if (fd < 0 || !out)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "bad argument");
    if (!o.small_max)
        o.small_max = GC_INGEST_SMALL_MAX;
    if (!o.small_total_max)
        o.small_total_max = GC_INGEST_SMALL_TOTAL_MAX;
    if (!o.max_head)
        o.max_head = GC_INGEST_MAX_HEAD;
    if (!o.max_bytes)
        o.max_bytes = o.expect_gpu ? GC_INGEST_GPU_SIZE_MAX : GC_INGEST_HOST_SIZE_MAX;
    if (o.max_bytes < GPUCORE_WRITER_MIN_BUDGET)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "a size limit of %" PRIu64 " bytes is below the smallest core (%u)",
                           o.max_bytes, GPUCORE_WRITER_MIN_BUDGET);
    g.res.max_bytes = o.max_bytes;
    st = read_head(&g, eh);
    if (st)
        goto out;
    for (i = 0; i < g.nsegs; i++)
        expected += g.segs[i].filesz;
    head = g.s.pos;
    st = gpucore_writer_open(
            out,
            GPUCORE_OPTS(gpucore_writer_opts,
                         .kind = o.expect_gpu ? GPUCORE_CORE_SPLIT : GPUCORE_CORE_UNIFIED,
                         .e_machine = o.expect_gpu ? 0u : gc_le16_get(eh + 18), .mode = o.mode,
                         .compress = o.compress,
                         .compress_level = o.compress ? o.compress_level : 0,
                         .head_reserve = (uint64_t)(g.nsegs + 16) * (56u + 128u),
                         .expected_bytes = expected,
                         .max_bytes = o.max_bytes == GC_INGEST_SIZE_UNLIMITED ? 0 : o.max_bytes),
            &g.w, reterr_diag);
    if (st) {
        g.res.output_failed = 1;
        goto out;
    }
    if (o.meta && gpucore_writer_add_note(g.w, "GPUCORE", GPUCORE_NT_CAPTURE_META, o.meta,
                                          o.meta_size) != GPUCORE_OK) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "capture metadata: %s",
                         gpucore_writer_errmsg(g.w));
        g.res.output_failed = 1;
        goto out;
    }
    for (i = 0; i < g.nempty && !st; i++)
        st = gpucore_writer_record_skip(
                g.w, g.empty[i].vaddr, g.empty[i].memsz,
                GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_ALL,
                             .label = "listed without data by the writer of the stream"),
                GPUCORE_REASON_SPECIAL);
    if (st) {
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(g.w));
        g.res.output_failed = 1;
        goto out;
    }
    /* i ends at the first segment that did not come whole (the cut one), or at nsegs */
    for (i = 0; i < g.nsegs; i++) {
        const struct seg *sg = &g.segs[i];

        if (g.s.pos < sg->offset)
            s_skip(&g.s, sg->offset - g.s.pos); /* padding */
        if (g.s.pos < sg->offset) {
            g.res.stream_cut = 1;
            i--; /* this one never began (wraps to UINT32_MAX for the first: i++ below) */
            break;
        }
        if (sg->type == PT_NOTE_) {
            st = read_notes(&g, sg, &head);
            if (st)
                goto out;
            continue;
        }
        if (o.expect_gpu && !o.keep_all && !g.have_note) {
            st = gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, sg->offset,
                             "PT_LOAD data at 0x%" PRIx64 " before the AMDGPU note: what to "
                             "keep is not known yet (use --tier all)",
                             sg->offset);
            goto out;
        }
        st = do_load(&g, sg);
        if (st)
            goto out;
        if (g.res.stream_cut)
            break;
    }
    if (g.s.err) {
        st = gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET,
                         "reading the stream at 0x%" PRIx64 ": %s", g.s.pos, strerror(g.s.err));
        goto out;
    }
    if (o.expect_gpu && !g.have_note) {
        /* a GPU half without its note holds nothing a reader can use */
        if (g.res.stream_cut)
            st = gc_diag_set(reterr_diag, GPUCORE_E_TRUNCATED, g.s.pos,
                             "the stream ends before the AMDGPU note");
        else
            st = gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                             "no AMDGPU core-state note: not a GPU core of the ROCm runtime");
        goto out;
    }
    if (g.res.stream_cut) {
        /* A writer killed mid-stream: what arrived is kept, the rest is said to be missing. */
        gpucore_writer_stop(g.w, GPUCORE_REASON_IO_ERROR);
        /* the cut segment's rest is the writer's UNREADABLE entry; the ones after it: */
        for (i++; i < g.nsegs; i++)
            if (g.segs[i].type == PT_LOAD_)
                gpucore_writer_record_skip(g.w, g.segs[i].vaddr, g.segs[i].filesz,
                                           GPUCORE_OPTS(gpucore_range_info,
                                                        .tier = GPUCORE_TIER_ALL,
                                                        .label = "the stream ended before it"),
                                           GPUCORE_REASON_IO_ERROR);
    }
    {
        struct gpucore_writer_stats stats;

        st = gpucore_writer_finish(g.w, &stats, reterr_diag);
        g.w = NULL;
        if (st) {
            g.res.output_failed = 1;
            goto out;
        }
        g.res.file_bytes = stats.file_bytes;
        /* what the file holds: the budget may have shortened, at finish, data read before */
        g.res.bytes_kept = stats.data_bytes;
        if (g.res.small_bytes_kept > g.res.bytes_kept)
            g.res.small_bytes_kept = g.res.bytes_kept;
        g.res.size_limited = stats.truncated && stats.truncation_reason == GPUCORE_REASON_BUDGET;
    }
out:
    gpucore_writer_abort(g.w);
    g.res.bytes_read = g.s.pos;
    if (ret) {
        if (st == GPUCORE_OK) {
            *ret = g.res;
        } else {
            ret->bytes_read = g.s.pos;
            ret->output_failed = g.res.output_failed;
        }
    }
    if (g.s.null_fd >= 0)
        close(g.s.null_fd);
    gc_free(g.s.scratch);
    gc_free(g.segs);
    gc_free(g.empty);
    gc_free(g.keep.v);
    gc_free(g.areas.v);
    return st;
}
