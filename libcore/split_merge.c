/* SPDX-License-Identifier: MIT */
/*
 * gc_merge_split(): a split dump (the ROCm runtime's GPU file, the kernel's host core) into one
 * unified core. The rules are in split_merge.h.
 */
#include "split_merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "gc_le.h"
#include "gc_util.h"

#define EM_AMDGPU_   224u
#define NT_PRSTATUS_ 1u
#define NT_PRPSINFO_ 3u
#define PRPSINFO_SIZE_ \
    136u /* x86-64 struct elf_prpsinfo: pr_pid at 24, fname at 40, psargs at 56 */
#define NT_AMDGPU_CORE_STATE_ 33u
#define PF_X_                 1u
#define PF_W_                 2u
#define PF_R_                 4u

/* One PT_LOAD of the output: [vaddr, vaddr + size) read from one input. */
struct piece {
    uint64_t vaddr;
    uint64_t size;
    uint32_t from; /* GC_MERGE_GPU or GC_MERGE_HOST */
    uint32_t flags;
};

struct pieces {
    struct piece *v;
    uint32_t n, cap;
};

static gpucore_status_t push(struct pieces *p, uint64_t vaddr, uint64_t size, uint32_t from,
                             uint32_t flags)
{
    struct piece *v;

    if (size == 0)
        return GPUCORE_OK;
    v = gc_array_grow(p->v, &p->cap, p->n, sizeof(*p->v), 64);
    if (!v)
        return GPUCORE_E_NOMEM;
    p->v = v;
    p->v[p->n++] = (struct piece){ vaddr, size, from, flags };
    return GPUCORE_OK;
}

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;

    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The read callback's state: which core, and the first failure it saw. */
struct source {
    gpucore_core_t *core;
    uint32_t which;
    gpucore_status_t failed;
    char message[GPUCORE_DIAG_MESSAGE_SIZE];
};

static int64_t read_source(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                           uint64_t *ret_bad_size)
{
    struct source *s = user;
    uint64_t done = 0;
    gpucore_status_t st = gpucore_core_read(s->core, addr, buf, size, &done);

    if (st == GPUCORE_OK)
        return (int64_t)size;
    if (st == GPUCORE_E_UNAVAILABLE) {
        /* Only ranges with data are asked for; a file that changed under us lands here. */
        *ret_errno = EIO;
        *ret_bad_size = size - done;
        return (int64_t)done;
    }
    if (!s->failed) {
        s->failed = st;
        snprintf(s->message, sizeof(s->message), "%s", gpucore_core_errmsg(s->core));
    }
    return st;
}

int64_t gc_merge_pid_from_name(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    const char *p;
    int64_t pid = 0;

    if (!path)
        return -1;
    base = base ? base + 1 : path;
    if (strncmp(base, "gpucore.", 8) != 0)
        return -1;
    p = base + 8;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        pid = pid * 10 + (*p - '0');
        if (pid > INT32_MAX)
            return -1;
    }
    if (*p != '\0' && strcmp(p, ".gpu") != 0)
        return -1;
    return pid;
}

/* The host core's pid: NT_PRPSINFO's pr_pid, else the first NT_PRSTATUS's; -1 if none. */
static int64_t host_pid(const gpucore_core_t *host)
{
    struct gpucore_note n;
    uint32_t i = 0;

    if (gpucore_core_find_note(host, "CORE", NT_PRPSINFO_, &i, &n) == GPUCORE_OK &&
        n.desc_size == PRPSINFO_SIZE_)
        return (int32_t)gc_le32_get(n.desc + 24);
    i = 0;
    if (gpucore_core_find_note(host, "CORE", NT_PRSTATUS_, &i, &n) == GPUCORE_OK &&
        n.desc_size >= 36)
        return (int32_t)gc_le32_get(n.desc + 32);
    return -1;
}

/* The GPU file's pid: its CAPTURE_META's, else what its name says. */
static int64_t gpu_pid(const gpucore_core_t *gpu, int64_t from_name, const char **ret_source)
{
    struct gpucore_note n;
    gpucore_capture_meta_t *m = NULL;
    uint32_t i = 0;
    int64_t pid = -1;

    if (gpucore_core_find_note(gpu, "GPUCORE", GPUCORE_NT_CAPTURE_META, &i, &n) == GPUCORE_OK &&
        gpucore_capture_meta_decode(n.desc, n.desc_size, &m, NULL) == GPUCORE_OK) {
        if (m->pid)
            pid = m->pid;
        gpucore_capture_meta_free(m);
    }
    if (pid >= 0) {
        *ret_source = "its capture metadata";
        return pid;
    }
    *ret_source = "its file name";
    return from_name;
}

/* Refuse what is not a split pair; on success *ret_amdgpu is the GPU file's AMDGPU note. */
static gpucore_status_t check_inputs(gpucore_core_t *gpu, gpucore_core_t *host,
                                     const struct gc_merge_opts *o, struct gpucore_note *ret_amdgpu,
                                     int64_t *ret_pid, enum gc_merge_file *which,
                                     gpucore_diag_t *diag)
{
    struct gpucore_core_info gi, hi;
    struct gpucore_note n, extra;
    gpucore_amdgpu_note_t *decoded = NULL;
    gpucore_diag_t d;
    uint32_t i = 0;
    int64_t gp, hp;
    const char *src = "";
    gpucore_status_t st;

    gpucore_core_get_info(gpu, &gi);
    gpucore_core_get_info(host, &hi);
    *which = GC_MERGE_GPU;
    if (gi.e_machine != EM_AMDGPU_)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, 0x12,
                           "e_machine %u is not EM_AMDGPU (224): not the GPU half of a split "
                           "dump%s",
                           gi.e_machine,
                           hi.e_machine == EM_AMDGPU_ ? " (are GPU-FILE and HOST-CORE swapped?)"
                                                      : "");
    if (gpucore_core_find_note(gpu, "AMDGPU", NT_AMDGPU_CORE_STATE_, &i, &n) != GPUCORE_OK)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                           "no AMDGPU core-state note: not a GPU core file of the ROCm runtime");
    i++;
    if (gpucore_core_find_note(gpu, "AMDGPU", NT_AMDGPU_CORE_STATE_, &i, &extra) == GPUCORE_OK)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, extra.offset,
                           "a second AMDGPU core-state note: a core holds exactly one");
    st = gpucore_amdgpu_note_decode(n.desc, n.desc_size, &decoded, &d);
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_NOMEM)
            return st;
        return gc_diag_set(diag, GPUCORE_E_CORRUPT,
                           n.offset + 20 + ((d.flags & GPUCORE_DIAG_HAS_OFFSET) ? d.offset : 0),
                           "AMDGPU note: %s", d.message);
    }
    gpucore_amdgpu_note_free(decoded);

    *which = GC_MERGE_HOST;
    if (hi.e_machine == EM_AMDGPU_)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, 0x12,
                           "e_machine 224 (EM_AMDGPU): a GPU core file, not the host core of the "
                           "process (are GPU-FILE and HOST-CORE swapped?)");
    i = 0;
    if (gpucore_core_find_note(host, "AMDGPU", NT_AMDGPU_CORE_STATE_, &i, &extra) == GPUCORE_OK)
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, extra.offset,
                           "the host core already holds an AMDGPU note: it is a unified core, "
                           "there is nothing to merge");
    gp = gpu_pid(gpu, o->gpu_pid, &src);
    hp = host_pid(host);
    if (gp >= 0 && hp >= 0 && gp != hp) {
        *which = GC_MERGE_GPU;
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                           "process %" PRId64 " (from %s), but the host core is of process "
                           "%" PRId64 ": the two files are not of one crash",
                           gp, src, hp);
    }
    *ret_amdgpu = n;
    *ret_pid = hp >= 0 ? hp : gp;
    return GPUCORE_OK;
}

/* The host mapping's flags at @p addr, or 0 when no host PT_LOAD holds it. */
static uint32_t host_flags_at(const gpucore_core_t *host, uint64_t addr)
{
    uint32_t lo = 0, hi = gpucore_core_segment_count(host);
    struct gpucore_segment s;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        gpucore_core_segment(host, mid, &s);
        if (addr < s.vaddr)
            hi = mid;
        else if (addr - s.vaddr >= s.memsz)
            lo = mid + 1;
        else
            return s.flags;
    }
    return 0;
}

static uint32_t shf_to_pf(uint32_t shf)
{
    return ((shf & 2u) ? PF_R_ : 0) | ((shf & 1u) ? PF_W_ : 0) | ((shf & 4u) ? PF_X_ : 0);
}

/* The first of @p known (sorted and disjoint) that ends after @p lo: a binary search, so a
   hostile manifest of many entries costs log(n) per host segment, not n. */
static uint32_t first_known_after(const struct pieces *known, uint64_t lo)
{
    uint32_t a = 0, b = known->n;

    while (a < b) {
        uint32_t mid = a + (b - a) / 2;

        if (known->v[mid].vaddr + known->v[mid].size <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/*
 * Record [lo, hi) of a device mapping that neither file holds as SKIPPED/"special", but the
 * parts the GPU file's own manifest already explains (@p known, sorted and disjoint: an
 * ingested half's tier, a stream cut short), which carry_manifest() records with their own
 * reason.
 */
static gpucore_status_t record_missing(gpucore_writer_t *w, uint64_t lo, uint64_t hi,
                                       const struct pieces *known, struct gc_merge_result *res)
{
    for (uint32_t i = first_known_after(known, lo); i < known->n && lo < hi; i++) {
        uint64_t klo = known->v[i].vaddr, khi = klo + known->v[i].size;

        if (klo >= hi)
            break;
        if (klo > lo) {
            gpucore_status_t st = record_missing(w, lo, klo, &(struct pieces){ 0 }, res);

            if (st)
                return st;
        }
        lo = khi < hi ? khi : hi;
    }
    if (lo >= hi)
        return GPUCORE_OK;
    res->missing_bytes += hi - lo;
    return gpucore_writer_record_skip(w, lo, hi - lo,
                                      GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_ALL,
                                                   .label = "device mapping in neither file"),
                                      GPUCORE_REASON_SPECIAL);
}

/*
 * Take [lo, hi) of a segment of @p from whose file data ends at @p data_end: the part with
 * data is a piece of the output; the rest (p_memsz past p_filesz: zeros by ELF's rule, or
 * what a cut file lost) is recorded as skipped, never written out as zeros. A hostile file
 * of a few bytes can announce terabytes of p_memsz; the merge costs what the files hold.
 */
static gpucore_status_t take(gpucore_writer_t *w, struct pieces *out, uint64_t lo, uint64_t hi,
                             uint64_t data_end, uint32_t from, uint32_t flags, int cut,
                             struct gc_merge_result *res)
{
    uint64_t mid = data_end < lo ? lo : data_end > hi ? hi : data_end;
    gpucore_status_t st = push(out, lo, mid - lo, from, flags);

    if (st)
        return st;
    if (from == GC_MERGE_GPU)
        res->gpu_bytes += mid - lo;
    else
        res->host_bytes += mid - lo;
    if (mid >= hi)
        return GPUCORE_OK;
    return gpucore_writer_record_skip(
            w, mid, hi - mid,
            GPUCORE_OPTS(gpucore_range_info,
                         .tier = from == GC_MERGE_GPU ? GPUCORE_TIER_ALL : GPUCORE_TIER_HOST,
                         .label = cut ? "past the end of the cut file"
                                      : "no data in the file (p_memsz past p_filesz)"),
            cut ? GPUCORE_REASON_IO_ERROR : GPUCORE_REASON_SPECIAL);
}

/*
 * The output's PT_LOADs, by address, and the manifest's skipped ranges: every GPU segment
 * with data whole; host segments with data minus what GPU segments cover.
 */
static gpucore_status_t plan_pieces(gpucore_core_t *gpu, gpucore_core_t *host, gpucore_writer_t *w,
                                    const struct pieces *known, struct pieces *out,
                                    struct gc_merge_result *res)
{
    uint32_t ng = gpucore_core_segment_count(gpu), nh = gpucore_core_segment_count(host);
    struct gpucore_segment s, g;
    struct gpucore_core_info gi_info, hi_info;
    int shf_style = 0, gpu_cut, host_cut;
    uint32_t gi = 0;
    gpucore_status_t st;

    gpu_cut = gpucore_core_get_info(gpu, &gi_info) == GPUCORE_OK &&
              (gi_info.flags & GPUCORE_INFO_FILE_TRUNCATED);
    host_cut = gpucore_core_get_info(host, &hi_info) == GPUCORE_OK &&
               (hi_info.flags & GPUCORE_INFO_FILE_TRUNCATED);
    for (uint32_t i = 0; i < ng; i++) {
        gpucore_core_segment(gpu, i, &s);
        if (s.filesz && !(s.flags & PF_R_))
            shf_style = 1;
    }
    for (uint32_t i = 0; i < ng; i++) {
        uint32_t flags;

        gpucore_core_segment(gpu, i, &s);
        if (!s.filesz)
            continue;
        flags = host_flags_at(host, s.vaddr);
        if (!flags)
            flags = shf_style ? shf_to_pf(s.flags) : s.flags;
        st = take(w, out, s.vaddr, s.vaddr + s.memsz, s.vaddr + s.filesz, GC_MERGE_GPU, flags,
                  gpu_cut, res);
        if (st)
            return st;
    }
    /*
     * Host segments, each minus the GPU segments over it. Both lists are sorted and disjoint
     * within themselves, so one walk of the GPU list serves all host segments.
     */
    for (uint32_t i = 0; i < nh; i++) {
        uint64_t at, end;
        uint32_t j;

        gpucore_core_segment(host, i, &s);
        at = s.vaddr;
        end = s.vaddr + s.memsz;
        while (gi < ng && (gpucore_core_segment(gpu, gi, &g), g.vaddr + g.memsz <= at))
            gi++;
        for (j = gi; j < ng && at < end; j++) {
            uint64_t glo, ghi, cut;

            gpucore_core_segment(gpu, j, &g);
            if (!g.filesz)
                continue;
            glo = g.vaddr;
            ghi = g.vaddr + g.memsz;
            if (glo >= end)
                break;
            if (glo > at) {
                if (s.filesz) {
                    st = take(w, out, at, glo, s.vaddr + s.filesz, GC_MERGE_HOST, s.flags,
                              host_cut, res);
                } else {
                    st = record_missing(w, at, glo, known, res);
                }
                if (st)
                    return st;
                at = glo;
            }
            cut = (ghi < end ? ghi : end) - at;
            if (s.filesz) {
                st = gpucore_writer_record_skip(
                        w, at, cut,
                        GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_HOST,
                                     .label = "host copy; the GPU file's bytes are kept"),
                        GPUCORE_REASON_POLICY);
                if (st)
                    return st;
                res->superseded_bytes += cut;
            }
            at += cut;
        }
        if (at < end) {
            if (s.filesz) {
                st = take(w, out, at, end, s.vaddr + s.filesz, GC_MERGE_HOST, s.flags, host_cut,
                          res);
            } else {
                st = record_missing(w, at, end, known, res);
            }
            if (st)
                return st;
        }
    }
    for (uint32_t i = 0; i < out->n; i++) {
        if (out->v[i].from == GC_MERGE_HOST)
            res->host_segments++;
        else
            res->gpu_segments++;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof(out->v[0]), cmp_piece);
    return GPUCORE_OK;
}

/* Copy a fixed-size, possibly unterminated char field of a note into @p buf as a string. */
static void field_string(const uint8_t *p, size_t size, char *buf)
{
    size_t n = 0;

    while (n < size && p[n])
        n++;
    memcpy(buf, p, n);
    buf[n] = '\0';
    /* Bytes that are not printable ASCII would make the string invalid UTF-8 for the encoder. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
            buf[i] = '?';
}

/*
 * The executable's path as the kernel gave it to the process: the string at AT_EXECFN (31) of
 * NT_AUXV, read from the host core's memory; "" when either is missing. At most @p size - 1
 * bytes; a string not NUL-terminated within them is not taken.
 */
static void host_execfn(gpucore_core_t *host, char *buf, size_t size)
{
    struct gpucore_note n;
    uint64_t at = 0, done = 0;
    uint32_t i = 0;

    buf[0] = '\0';
    if (gpucore_core_find_note(host, "CORE", 6 /* NT_AUXV */, &i, &n) != GPUCORE_OK)
        return;
    for (uint64_t o = 0; o + 16 <= n.desc_size; o += 16)
        if (gc_le64_get(n.desc + o) == 31 /* AT_EXECFN */) {
            at = gc_le64_get(n.desc + o + 8);
            break;
        }
    if (!at)
        return;
    /* Page by page: the string may end just before memory the core does not hold. */
    while (done < size) {
        uint64_t chunk = 4096 - ((at + done) & 4095), got = 0;

        if (chunk > size - done)
            chunk = size - done;
        gpucore_core_read(host, at + done, buf + done, chunk, &got);
        if (memchr(buf + done, '\0', got)) {
            field_string((const uint8_t *)buf, strlen(buf), buf);
            return;
        }
        if (got < chunk)
            break;
        done += chunk;
    }
    buf[0] = '\0';
}

/* A CAPTURE_META for a GPU file that has none (split_merge.h says what it holds). */
static gpucore_status_t add_capture_meta(gpucore_writer_t *w, gpucore_core_t *host, int64_t pid,
                                         const struct gc_merge_opts *o, gpucore_diag_t *diag)
{
    gpucore_capture_meta_t m;
    struct gpucore_note n;
    char fname[17] = "", psargs[81] = "", options[512], execfn[4096];
    void *desc = NULL;
    size_t size = 0;
    uint32_t i = 0;
    gpucore_status_t st;

    memset(&m, 0, sizeof(m));
    m.time_ns = o->time_ns;
    m.pid = pid > 0 ? (uint32_t)pid : 0;
    m.trigger = GPUCORE_TRIGGER_UNKNOWN;
    m.tier = GPUCORE_TIER_ALL;
    m.exception_queue_id = 0xffffffffu;
    m.compress_level = o->compress ? (o->compress_level ? o->compress_level : 3) : 0;
    m.producer = (gpucore_str_t){ "gpucore", 7 };
    m.producer_version =
            (gpucore_str_t){ GPUCORE_VERSION_STRING, (uint32_t)strlen(GPUCORE_VERSION_STRING) };
    if (gpucore_core_find_note(host, "CORE", NT_PRPSINFO_, &i, &n) == GPUCORE_OK &&
        n.desc_size == PRPSINFO_SIZE_) {
        field_string(n.desc + 40, 16, fname);
        field_string(n.desc + 56, 80, psargs);
        /* The kernel writes the arguments with a space for each NUL, the last one too. */
        for (size_t k = strlen(psargs); k > 0 && psargs[k - 1] == ' '; k--)
            psargs[k - 1] = '\0';
    }
    host_execfn(host, execfn, sizeof(execfn));
    if (execfn[0])
        m.exe = (gpucore_str_t){ execfn, (uint32_t)strlen(execfn) };
    else if (fname[0])
        m.exe = (gpucore_str_t){ fname, (uint32_t)strlen(fname) };
    if (psargs[0])
        m.cmdline = (gpucore_str_t){ psargs, (uint32_t)strlen(psargs) };
    snprintf(options, sizeof(options), "merge %s %s", o->gpu_name ? o->gpu_name : "GPU-FILE",
             o->host_name ? o->host_name : "HOST-CORE");
    field_string((const uint8_t *)options, strlen(options), options);
    m.options = (gpucore_str_t){ options, (uint32_t)strlen(options) };
    st = gpucore_capture_meta_encode(&m, &desc, &size, diag);
    if (st)
        return st;
    st = gpucore_writer_add_note(w, "GPUCORE", GPUCORE_NT_CAPTURE_META, desc, size);
    gpucore_free(desc);
    return st;
}

/* An input manifest's reason for a range it lacks, as the merged core records it: one this
   build does not know, or none, reads as an I/O error. */
static uint32_t carried_reason(uint32_t reason)
{
    return reason > GPUCORE_REASON_NONE && reason <= GPUCORE_REASON_SPECIAL
                   ? reason
                   : GPUCORE_REASON_IO_ERROR;
}

/* An input manifest's tier, as the merged core records it: one this build does not know reads
   as "all". */
static uint32_t carried_tier(uint32_t tier)
{
    return tier <= GPUCORE_TIER_HOST ? tier : GPUCORE_TIER_ALL;
}

/*
 * What the GPU file's own manifest says was not captured (an ingested GPU half: the ranges its
 * tier left out, what a cut stream lost) stays said, and a GPU file marked truncated makes
 * the merged core truncated, for the same reason. Called after the last segment. A manifest
 * that does not decode is left out (analyze reports it in the GPU file).
 */
static gpucore_status_t carry_manifest(gpucore_writer_t *w, const gpucore_manifest_t *m)
{
    gpucore_status_t st = GPUCORE_OK;

    if (!m)
        return GPUCORE_OK;
    for (uint32_t i = 0; i < m->count && !st; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];
        char label[256];

        if (e->status == GPUCORE_RANGE_CAPTURED || !e->size || e->address > UINT64_MAX - e->size)
            continue;
        snprintf(label, sizeof(label), "%.*s", (int)(e->label.len < 255 ? e->label.len : 255),
                 e->label.ptr);
        field_string((const uint8_t *)label, strlen(label), label);
        st = gpucore_writer_record_skip(
                w, e->address, e->size,
                GPUCORE_OPTS(gpucore_range_info, .tier = carried_tier(e->tier), .label = label),
                carried_reason(e->reason));
    }
    if (!st && (m->flags & GPUCORE_MANIFEST_TRUNCATED))
        st = gpucore_writer_stop(w, carried_reason(m->truncation_reason));
    return st;
}

/*
 * Record [lo, hi) of the host core's manifest entry @p e as its own manifest says, but the
 * parts the GPU file holds (@p gpu_segs, sorted and disjoint), whose bytes the merged core
 * has.
 */
static gpucore_status_t record_host_entry(gpucore_writer_t *w, uint64_t lo, uint64_t hi,
                                          const gpucore_manifest_entry_t *e, const char *label,
                                          const struct pieces *gpu_segs)
{
    const struct gpucore_range_info *info =
            GPUCORE_OPTS(gpucore_range_info, .tier = carried_tier(e->tier), .label = label);
    uint32_t reason = carried_reason(e->reason);

    for (uint32_t i = first_known_after(gpu_segs, lo); i < gpu_segs->n && lo < hi; i++) {
        uint64_t glo = gpu_segs->v[i].vaddr, ghi = glo + gpu_segs->v[i].size;
        gpucore_status_t st;

        if (glo >= hi)
            break;
        if (glo > lo && (st = gpucore_writer_record_skip(w, lo, glo - lo, info, reason)))
            return st;
        lo = ghi < hi ? ghi : hi;
    }
    return lo < hi ? gpucore_writer_record_skip(w, lo, hi - lo, info, reason) : GPUCORE_OK;
}

/*
 * What the host core's own manifest says was not captured (a host half written by `gpucore
 * ingest --host`: what its size limit dropped, what a cut stream lost, the device mappings
 * the kernel listed without data) stays said where the GPU file does not hold the bytes, and
 * a host core marked truncated makes the merged core truncated, as carry_manifest() does for
 * the GPU file. The kernel's own cores have no manifest. Called after the last segment.
 */
static gpucore_status_t carry_host_manifest(gpucore_writer_t *w, gpucore_core_t *gpu,
                                            const gpucore_manifest_t *m)
{
    struct pieces gpu_segs = { 0 }, ents = { 0 };
    struct gpucore_segment g;
    uint64_t done = 0; /* entries are recorded from here up: a hostile manifest's overlapping
                          entries are clipped, so the work is linear in entries and segments */
    gpucore_status_t st = GPUCORE_OK;

    if (!m)
        return GPUCORE_OK;
    for (uint32_t i = 0; i < gpucore_core_segment_count(gpu) && !st; i++) {
        gpucore_core_segment(gpu, i, &g);
        if (g.filesz)
            st = push(&gpu_segs, g.vaddr, g.memsz, GC_MERGE_GPU, 0);
    }
    for (uint32_t i = 0; i < m->count && !st; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];

        if (e->status != GPUCORE_RANGE_CAPTURED && e->size && e->address <= UINT64_MAX - e->size)
            st = push(&ents, e->address, e->size, i, 0); /* from: the entry's index */
    }
    if (ents.n)
        qsort(ents.v, ents.n, sizeof(ents.v[0]), cmp_piece);
    for (uint32_t i = 0; i < ents.n && !st; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[ents.v[i].from];
        uint64_t lo = ents.v[i].vaddr > done ? ents.v[i].vaddr : done;
        uint64_t hi = ents.v[i].vaddr + ents.v[i].size;
        char label[256];

        if (lo >= hi)
            continue;
        snprintf(label, sizeof(label), "%.*s", (int)(e->label.len < 255 ? e->label.len : 255),
                 e->label.ptr);
        field_string((const uint8_t *)label, strlen(label), label);
        st = record_host_entry(w, lo, hi, e, label, &gpu_segs);
        done = hi;
    }
    gc_free(gpu_segs.v);
    gc_free(ents.v);
    if (!st && (m->flags & GPUCORE_MANIFEST_TRUNCATED))
        st = gpucore_writer_stop(w, carried_reason(m->truncation_reason));
    return st;
}

/* The manifest of @p core (NULL when it has none or it does not decode). */
static gpucore_manifest_t *core_manifest(gpucore_core_t *core)
{
    struct gpucore_note n;
    gpucore_manifest_t *m = NULL;
    uint32_t i = 0;

    if (gpucore_core_find_note(core, "GPUCORE", GPUCORE_NT_MANIFEST, &i, &n) != GPUCORE_OK ||
        gpucore_manifest_decode(n.desc, n.desc_size, &m, NULL) != GPUCORE_OK)
        return NULL;
    return m;
}

/* The GPU file's manifest (NULL when it has none or it does not decode: analyze of the GPU
 * file says why), and its ranges not captured, sorted, in @p known. */
static gpucore_status_t gpu_manifest(gpucore_core_t *gpu, gpucore_manifest_t **ret,
                                     struct pieces *known)
{
    gpucore_manifest_t *m = core_manifest(gpu);
    uint32_t i;
    gpucore_status_t st = GPUCORE_OK;

    *ret = NULL;
    if (!m)
        return GPUCORE_OK;
    for (i = 0; i < m->count && !st; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];

        if (e->status != GPUCORE_RANGE_CAPTURED && e->size && e->address <= UINT64_MAX - e->size)
            st = push(known, e->address, e->size, GC_MERGE_GPU, 0);
    }
    if (st) {
        gpucore_manifest_free(m);
        return st;
    }
    if (known->n) {
        uint32_t k = 0;

        /* sorted, then overlapping or touching entries joined: record_missing() searches it */
        qsort(known->v, known->n, sizeof(known->v[0]), cmp_piece);
        for (uint32_t j = 1; j < known->n; j++) {
            struct piece *last = &known->v[k];
            uint64_t end = last->vaddr + last->size, jend = known->v[j].vaddr + known->v[j].size;

            if (known->v[j].vaddr <= end) {
                if (jend > end)
                    last->size = jend - last->vaddr;
            } else {
                known->v[++k] = known->v[j];
            }
        }
        known->n = k + 1;
    }
    *ret = m;
    return GPUCORE_OK;
}

/*
 * The GPU file's own CAPTURE_META (an ingested GPU half has one: pid, time, executable,
 * tier), its options extended with "; merged with HOST-NAME" so the core says it was merged
 * and from what. GPUCORE_E_CORRUPT when it does not decode (the caller copies it as it is).
 */
static gpucore_status_t add_merged_meta(gpucore_writer_t *w, gpucore_core_t *host,
                                        const struct gpucore_note *n, const struct gc_merge_opts *o,
                                        gpucore_diag_t *diag)
{
    gpucore_capture_meta_t *m = NULL;
    char options[1024], execfn[4096];
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    if (gpucore_capture_meta_decode(n->desc, n->desc_size, &m, NULL) != GPUCORE_OK)
        return GPUCORE_E_CORRUPT;
    snprintf(options, sizeof(options), "%.*s%smerged with %s",
             (int)(m->options.len < 512 ? m->options.len : 512), m->options.ptr,
             m->options.len ? "; " : "", o->host_name ? o->host_name : "HOST-CORE");
    field_string((const uint8_t *)options, strlen(options), options);
    m->options = (gpucore_str_t){ options, (uint32_t)strlen(options) };
    if (!m->exe.len) { /* the process was gone when the GPU half was stored */
        host_execfn(host, execfn, sizeof(execfn));
        if (execfn[0])
            m->exe = (gpucore_str_t){ execfn, (uint32_t)strlen(execfn) };
    }
    m->compress_level = o->compress ? (o->compress_level ? o->compress_level : 3) : 0;
    st = gpucore_capture_meta_encode(m, &desc, &size, diag);
    gpucore_capture_meta_free(m);
    if (st)
        return st == GPUCORE_E_INVAL ? GPUCORE_E_CORRUPT : st;
    st = gpucore_writer_add_note(w, "GPUCORE", GPUCORE_NT_CAPTURE_META, desc, size);
    gpucore_free(desc);
    return st;
}

/* Notes: the host's (not GPU state), the AMDGPU note, the GPU file's GPUCORE notes. */
static gpucore_status_t add_notes(gpucore_writer_t *w, gpucore_core_t *gpu, gpucore_core_t *host,
                                  const struct gpucore_note *amdgpu, int64_t pid,
                                  const struct gc_merge_opts *o, gpucore_diag_t *diag)
{
    struct gpucore_note n;
    int has_meta = 0;
    gpucore_status_t st;

    for (uint32_t i = 0; i < gpucore_core_note_count(host); i++) {
        gpucore_core_note(host, i, &n);
        if (strcmp(n.owner, "GPUCORE") == 0 || strcmp(n.owner, "AMDGPU") == 0)
            continue;
        st = gpucore_writer_add_note(w, n.owner, n.type, n.desc, n.desc_size);
        if (st)
            return gc_diag_set(diag, st, n.offset, "host note at 0x%" PRIx64 ": %s", n.offset,
                               gpucore_writer_errmsg(w));
    }
    st = gpucore_writer_add_note(w, "AMDGPU", NT_AMDGPU_CORE_STATE_, amdgpu->desc,
                                 amdgpu->desc_size);
    if (st)
        return gc_diag_set(diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(w));
    for (uint32_t i = 0; i < gpucore_core_note_count(gpu); i++) {
        gpucore_core_note(gpu, i, &n);
        if (strcmp(n.owner, "GPUCORE") != 0 || n.type == GPUCORE_NT_MANIFEST)
            continue;
        if (n.type == GPUCORE_NT_CAPTURE_META && !has_meta) {
            has_meta = 1;
            st = add_merged_meta(w, host, &n, o, diag);
            if (st == GPUCORE_OK)
                continue;
            if (st != GPUCORE_E_CORRUPT)
                return st;
            /* one that does not decode is copied as it is: analyze says what is wrong */
        }
        st = gpucore_writer_add_note(w, n.owner, n.type, n.desc, n.desc_size);
        if (st)
            return gc_diag_set(diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(w));
    }
    if (!has_meta)
        return add_capture_meta(w, host, pid, o, diag);
    return GPUCORE_OK;
}

gpucore_status_t gc_merge_split(gpucore_core_t *gpu, gpucore_core_t *host, const char *out,
                                const struct gc_merge_opts *opts, struct gc_merge_result *ret,
                                enum gc_merge_file *reterr_which, gpucore_diag_t *reterr_diag)
{
    static const struct gc_merge_opts defaults = { .gpu_pid = -1 };
    const struct gc_merge_opts *o = opts ? opts : &defaults;
    struct gc_merge_result res = { .pid = -1 };
    struct source src[2] = { { .core = gpu, .which = GC_MERGE_GPU },
                             { .core = host, .which = GC_MERGE_HOST } };
    struct gpucore_core_info gi, hi;
    struct gpucore_writer_stats stats;
    struct gpucore_note amdgpu = { 0 };
    struct pieces pieces = { 0 }, known = { 0 };
    gpucore_manifest_t *manifest = NULL, *host_manifest = NULL;
    enum gc_merge_file which = GC_MERGE_OUT;
    gpucore_writer_t *w = NULL;
    char glabel[160], hlabel[160];
    gpucore_status_t st;

    if (!gpu || !host || !out) {
        if (reterr_which)
            *reterr_which = GC_MERGE_OUT;
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    }
    st = check_inputs(gpu, host, o, &amdgpu, &res.pid, &which, reterr_diag);
    if (st)
        goto out;
    which = GC_MERGE_OUT;
    gpucore_core_get_info(gpu, &gi);
    gpucore_core_get_info(host, &hi);
    res.gpu_truncated = !!(gi.flags & GPUCORE_INFO_FILE_TRUNCATED);
    res.host_truncated = !!(hi.flags & GPUCORE_INFO_FILE_TRUNCATED);
    st = gpucore_writer_open(
            out,
            GPUCORE_OPTS(
                    gpucore_writer_opts, .kind = GPUCORE_CORE_UNIFIED, .e_machine = hi.e_machine,
                    .mode = o->mode, .flags = o->overwrite ? GPUCORE_WRITE_OVERWRITE : 0u,
                    .compress = o->compress, .compress_level = o->compress ? o->compress_level : 0,
                    /* notes come first; what follows the first segment is the
                       program headers and the manifest (an entry and a label per range) */
                    .head_reserve = (uint64_t)(gi.phnum + hi.phnum + 16) * (56u + 128u),
                    .expected_bytes = gi.load_bytes + hi.load_bytes),
            &w, reterr_diag);
    if (st)
        goto out;
    st = add_notes(w, gpu, host, &amdgpu, res.pid, o, reterr_diag);
    if (st)
        goto out;
    st = gpu_manifest(gpu, &manifest, &known);
    if (st == GPUCORE_OK)
        st = plan_pieces(gpu, host, w, &known, &pieces, &res);
    if (st) {
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s",
                    st == GPUCORE_E_NOMEM ? "out of memory" : gpucore_writer_errmsg(w));
        goto out;
    }
    snprintf(glabel, sizeof(glabel), "gpu: %s", o->gpu_name ? o->gpu_name : "GPU file");
    snprintf(hlabel, sizeof(hlabel), "host: %s", o->host_name ? o->host_name : "host core");
    field_string((const uint8_t *)glabel, strlen(glabel), glabel);
    field_string((const uint8_t *)hlabel, strlen(hlabel), hlabel);
    for (uint32_t i = 0; i < pieces.n; i++) {
        const struct piece *p = &pieces.v[i];
        struct source *s = &src[p->from];
        int is_gpu = p->from == GC_MERGE_GPU;

        st = gpucore_writer_add_segment_fn(
                w, p->vaddr, p->size,
                GPUCORE_OPTS(gpucore_range_info,
                             .tier = is_gpu ? GPUCORE_TIER_ALL : GPUCORE_TIER_HOST,
                             .p_flags = p->flags, .label = is_gpu ? glabel : hlabel),
                read_source, s);
        if (st == GPUCORE_E_LIMIT)
            continue; /* no budget is set: cannot happen, but the manifest would say so */
        if (st) {
            if (s->failed) {
                which = (enum gc_merge_file)s->which;
                gc_diag_set(reterr_diag, s->failed, GC_NO_OFFSET,
                            "reading 0x%" PRIx64 "..0x%" PRIx64 ": %s", p->vaddr,
                            p->vaddr + p->size, s->message);
                st = s->failed;
            } else {
                gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(w));
            }
            goto out;
        }
    }
    st = carry_manifest(w, manifest);
    if (!st) {
        host_manifest = core_manifest(host);
        st = carry_host_manifest(w, gpu, host_manifest);
    }
    if (st) {
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s", gpucore_writer_errmsg(w));
        goto out;
    }
    st = gpucore_writer_finish(w, &stats, reterr_diag);
    w = NULL;
    if (st)
        goto out;
    res.file_bytes = stats.file_bytes;
    if (ret)
        *ret = res;
out:
    gpucore_writer_abort(w);
    gpucore_manifest_free(manifest);
    gpucore_manifest_free(host_manifest);
    gc_free(pieces.v);
    gc_free(known.v);
    if (st && reterr_which)
        *reterr_which = which;
    return st;
}
