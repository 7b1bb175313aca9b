/* SPDX-License-Identifier: MIT */
/*
 * The host notes and host memory rules of the Linux ELF core dumper (fs/binfmt_elf.c), encoded
 * field by field in the x86-64 layouts, from ptrace and /proc.
 */
#include "host_core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_le.h"
#include "gc_rocr.h"
#include "gc_util.h"

#define PAGE 4096u

/* ---- x86-64 note layouts (offsets of the kernel's structs) --------------------------------- */

#define PRSTATUS_SIZE 336u
#define PRS_SIGNO 0u
#define PRS_CODE 4u
#define PRS_ERRNO 8u
#define PRS_CURSIG 12u /* short */
#define PRS_SIGPEND 16u
#define PRS_SIGHOLD 24u
#define PRS_PID 32u
#define PRS_PPID 36u
#define PRS_PGRP 40u
#define PRS_SID 44u
#define PRS_UTIME 48u /* 4 timevals of 16 bytes: utime, stime, cutime, cstime */
#define PRS_REG 112u
#define PRS_FPVALID 328u

#define PRPSINFO_SIZE 136u
#define PSI_STATE 0u
#define PSI_SNAME 1u
#define PSI_ZOMB 2u
#define PSI_NICE 3u
#define PSI_FLAG 8u
#define PSI_UID 16u
#define PSI_GID 20u
#define PSI_PID 24u
#define PSI_PPID 28u
#define PSI_PGRP 32u
#define PSI_SID 36u
#define PSI_FNAME 40u
#define PSI_FNAME_SIZE 16u
#define PSI_PSARGS 56u
#define PSI_PSARGS_SIZE 80u

#define SIGINFO_SIZE 128u
#define MAX_AUXV (64u * 1024u)
#define MAX_SMALL_FILE (64u * 1024u)

_Static_assert(PRS_REG + GC_TRACEE_GREGS_SIZE + 4 + 4 == PRSTATUS_SIZE, "elf_prstatus");
_Static_assert(PSI_PSARGS + PSI_PSARGS_SIZE == PRPSINFO_SIZE, "elf_prpsinfo");

/* ---- /proc files ----------------------------------------------------------------------------- */

/* Read a whole (small) file with a read loop; NUL-terminated. 0 or -errno (-EFBIG if larger). */
static int read_small(const char *path, size_t max, char **ret, size_t *ret_len)
{
    char *buf = gc_malloc(max + 1);
    size_t len = 0;
    int fd;

    if (!buf)
        return -ENOMEM;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;

        gc_free(buf);
        return -e;
    }
    for (;;) {
        ssize_t n = read(fd, buf + len, max + 1 - len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;

            close(fd);
            gc_free(buf);
            return -e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max) {
            close(fd);
            gc_free(buf);
            return -EFBIG;
        }
    }
    close(fd);
    buf[len] = '\0';
    *ret = buf;
    *ret_len = len;
    return 0;
}

static gpucore_status_t proc_fail(gpucore_diag_t *diag, const char *path, int err)
{
    if (err == -ENOENT || err == -ESRCH)
        return gc_diag_set(diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                           "%s: the process is gone", path);
    if (err == -ENOMEM)
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot read %s: %s", path,
                       strerror(-err));
}

/* What the notes need from /proc/PID[/task/TID]/stat. */
struct proc_stat {
    char comm[PSI_FNAME_SIZE];
    char state;
    int64_t ppid, pgrp, sid;
    uint64_t flags;
    int64_t nice;
    uint64_t utime, stime;   /* clock ticks */
    int64_t cutime, cstime;
};

/* One decimal field (optionally signed) followed by a space or the end. */
static int stat_num(const char **p, int64_t *ret)
{
    const char *s = *p;
    char *end;
    long long v;

    if (*s != '-' && (*s < '0' || *s > '9'))
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || (*end != ' ' && *end != '\n' && *end != '\0'))
        return -1;
    *ret = v;
    *p = *end == ' ' ? end + 1 : end;
    return 0;
}

static gpucore_status_t read_stat(const char *path, struct proc_stat *ret, gpucore_diag_t *diag)
{
    char *text;
    size_t len;
    const char *open_paren, *close_paren, *p;
    int64_t v[17]; /* fields 4 .. 20 */
    int rc = read_small(path, MAX_SMALL_FILE, &text, &len);

    if (rc < 0)
        return proc_fail(diag, path, rc);
    memset(ret, 0, sizeof(*ret));
    /* "pid (comm) S ...": comm may hold spaces and parentheses; it ends at the last ')'. */
    open_paren = strchr(text, '(');
    close_paren = strrchr(text, ')');
    if (!open_paren || !close_paren || close_paren < open_paren ||
        (size_t)(close_paren - open_paren - 1) >= PSI_FNAME_SIZE || close_paren[1] != ' ' ||
        !close_paren[2] || close_paren[3] != ' ') {
        gc_free(text);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s: expected \"PID (COMM) STATE ...\"", path);
    }
    memcpy(ret->comm, open_paren + 1, (size_t)(close_paren - open_paren - 1));
    ret->state = close_paren[2];
    p = close_paren + 4;
    for (size_t i = 0; i < GC_ARRAY_SIZE(v); i++) {
        if (stat_num(&p, &v[i]) < 0) {
            gc_free(text);
            return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                               "%s: field %zu is not a number", path, i + 4);
        }
    }
    gc_free(text);
    ret->ppid = v[0];
    ret->pgrp = v[1];
    ret->sid = v[2];
    ret->flags = (uint64_t)v[5];
    ret->utime = (uint64_t)v[10];
    ret->stime = (uint64_t)v[11];
    ret->cutime = v[12];
    ret->cstime = v[13];
    ret->nice = v[15];
    return GPUCORE_OK;
}

gpucore_status_t gc_host_arg_env(pid_t pid, const char *proc_root, uint64_t *ret_start,
                                 uint64_t *ret_end)
{
    char path[96], *text;
    size_t len;
    const char *p;
    uint64_t f[4];
    int rc;

    snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
    rc = read_small(path, MAX_SMALL_FILE, &text, &len);
    if (rc < 0)
        return GPUCORE_E_IO;
    /* After "pid (comm) " come fields 3 (state) on: arg_start .. env_end are fields 48 .. 51. */
    p = strrchr(text, ')');
    if (!p || p[1] != ' ' || !p[2] || p[3] != ' ') {
        gc_free(text);
        return GPUCORE_E_IO;
    }
    p += 4;
    /* Fields as unsigned: some (rsslim: RLIM_INFINITY) do not fit a signed 64-bit number. */
    for (uint32_t field = 4; field <= 51; field++) {
        char *end;
        unsigned long long v;

        if (*p == '-') /* priority and nice may be negative */
            p++;
        errno = 0;
        v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (!(*p >= '0' && *p <= '9') || errno || (*end != ' ' && *end != '\n')) {
            gc_free(text);
            return GPUCORE_E_IO; /* a kernel before 3.5 lists fewer fields */
        }
        if (field >= 48)
            f[field - 48] = (uint64_t)v;
        p = *end == ' ' ? end + 1 : end;
    }
    gc_free(text);
    /* argv then environ strings, contiguous at the top of the main stack */
    if (f[0] == 0 || f[3] <= f[0])
        return GPUCORE_E_IO;
    *ret_start = f[0];
    *ret_end = f[3];
    return GPUCORE_OK;
}

/* What the notes need from /proc/.../status. */
struct proc_status {
    uint32_t uid, gid;
    uint64_t sigpnd, sigblk;
};

struct status_key {
    const char *key;
    int hex;
    size_t off; /* offsetof in struct proc_status */
    int width;  /* 4 or 8 */
};

static const struct status_key status_keys[] = {
    { "Uid:", 0, offsetof(struct proc_status, uid), 4 },
    { "Gid:", 0, offsetof(struct proc_status, gid), 4 },
    { "SigPnd:", 1, offsetof(struct proc_status, sigpnd), 8 },
    { "SigBlk:", 1, offsetof(struct proc_status, sigblk), 8 },
};

static gpucore_status_t read_status(const char *path, struct proc_status *ret,
                                    gpucore_diag_t *diag)
{
    char *text;
    size_t len;
    unsigned found = 0;
    int rc = read_small(path, MAX_SMALL_FILE, &text, &len);

    if (rc < 0)
        return proc_fail(diag, path, rc);
    memset(ret, 0, sizeof(*ret));
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');

        if (nl)
            *nl = '\0';
        for (size_t i = 0; i < GC_ARRAY_SIZE(status_keys); i++) {
            size_t kl = strlen(status_keys[i].key);
            unsigned long long v;
            char *end;

            if (strncmp(line, status_keys[i].key, kl) != 0)
                continue;
            errno = 0;
            v = strtoull(line + kl, &end, status_keys[i].hex ? 16 : 10);
            if (errno || end == line + kl || (status_keys[i].width == 4 && v > UINT32_MAX)) {
                gc_free(text);
                return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                                   "%s: malformed %s line", path, status_keys[i].key);
            }
            if (status_keys[i].width == 4) {
                uint32_t v32 = (uint32_t)v;

                memcpy((char *)ret + status_keys[i].off, &v32, sizeof(v32));
            } else {
                uint64_t v64 = (uint64_t)v;

                memcpy((char *)ret + status_keys[i].off, &v64, sizeof(v64));
            }
            found |= 1u << i;
        }
        line = nl ? nl + 1 : NULL;
    }
    gc_free(text);
    GC_FAIL_IF(found != (1u << GC_ARRAY_SIZE(status_keys)) - 1, diag, GPUCORE_E_IO,
               GC_NO_OFFSET, "%s: Uid, Gid, SigPnd or SigBlk line missing", path);
    return GPUCORE_OK;
}

uint32_t gc_host_coredump_filter(pid_t pid)
{
    char path[64], *text, *end;
    size_t len;
    unsigned long v;

    snprintf(path, sizeof(path), "/proc/%d/coredump_filter", (int)pid);
    if (read_small(path, 64, &text, &len) < 0)
        return GC_COREDUMP_FILTER_DEFAULT;
    errno = 0;
    v = strtoul(text, &end, 16);
    if (errno || end == text || (*end != '\n' && *end != '\0') || v > UINT32_MAX)
        v = GC_COREDUMP_FILTER_DEFAULT;
    gc_free(text);
    return (uint32_t)v;
}

/* ---- memory selection ------------------------------------------------------------------------ */

#define FILTER_ANON_PRIVATE 0x01u
#define FILTER_ANON_SHARED 0x02u
#define FILTER_MAPPED_PRIVATE 0x04u
#define FILTER_MAPPED_SHARED 0x08u
#define FILTER_ELF_HEADERS 0x10u
#define FILTER_HUGETLB_PRIVATE 0x20u
#define FILTER_HUGETLB_SHARED 0x40u

/* Append to an array whose capacity is implied by its count: 16, then powers of two. */
static gpucore_status_t push_range(struct gc_host_range **arr, uint32_t *n,
                                   const struct gc_host_range *r, gpucore_diag_t *diag)
{
    if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0)) {
        uint32_t cap = *n ? *n * 2 : 16;
        struct gc_host_range *q = gc_realloc_array(*arr, cap, sizeof(*q));

        GC_FAIL_IF(!q, diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        *arr = q;
    }
    (*arr)[(*n)++] = *r;
    return GPUCORE_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);

    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * The kernel's vma_dump_size(): bytes of @p m to dump from its start, and the reason for the
 * rest.
 */
static uint64_t dump_size(const struct gc_procmap *m, uint32_t filter,
                          const struct gc_mem_reader *mem, uint32_t *ret_reason)
{
    uint64_t whole = m->end - m->start;
    int shared = (m->perms & GC_PROCMAP_SHARED) || (m->vmflags & GC_VMFLAG_SHARED);
    int has_file = m->path[0] != '\0' && m->path[0] != '[';
    uint8_t magic[4];

    *ret_reason = GPUCORE_REASON_POLICY;
    if (strcmp(m->path, "[vsyscall]") == 0) {
        *ret_reason = GPUCORE_REASON_SPECIAL; /* the gate page: not readable from outside */
        return 0;
    }
    if (strcmp(m->path, "[vdso]") == 0)
        return whole; /* always dumped */
    if (m->vmflags & GC_VMFLAG_DONTDUMP)
        return 0;
    if (m->vmflags & GC_VMFLAG_HUGETLB)
        return (filter & (shared ? FILTER_HUGETLB_SHARED : FILTER_HUGETLB_PRIVATE)) ? whole : 0;
    if (m->vmflags & GC_VMFLAG_IO) {
        *ret_reason = GPUCORE_REASON_SPECIAL;
        return 0;
    }
    if (shared) {
        /* Shared memory of a file without a name (shmem, memfd, deleted) counts as anonymous. */
        int anon = !has_file || ends_with(m->path, " (deleted)");

        return (filter & (anon ? FILTER_ANON_SHARED : FILTER_MAPPED_SHARED)) ? whole : 0;
    }
    if ((m->anonymous_kb || m->swap_kb) && (filter & FILTER_ANON_PRIVATE))
        return whole;
    if (!has_file)
        return 0;
    if (filter & FILTER_MAPPED_PRIVATE)
        return whole;
    if ((filter & FILTER_ELF_HEADERS) && m->offset == 0 && (m->perms & GC_PROCMAP_READ) && mem &&
        gc_mem_read_all(mem, m->start, magic, sizeof(magic)) == 0 && magic[0] == 0x7f &&
        magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F')
        return whole < PAGE ? whole : PAGE;
    return 0;
}

static uint32_t pflags_of(const struct gc_procmap *m)
{
    return ((m->perms & GC_PROCMAP_READ) ? 4u : 0u) | ((m->perms & GC_PROCMAP_WRITE) ? 2u : 0u) |
           ((m->perms & GC_PROCMAP_EXEC) ? 1u : 0u);
}

gpucore_status_t gc_host_select(const struct gc_procmaps *maps, uint32_t filter,
                                const struct gc_rangeset *exclude, const struct gc_mem_reader *mem,
                                struct gc_host_ranges *ret, gpucore_diag_t *reterr_diag)
{
    struct gc_host_ranges out = { 0 };
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!maps || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no mappings or no result pointer");
    for (uint32_t i = 0; i < maps->count && st == GPUCORE_OK; i++) {
        const struct gc_procmap *m = &maps->maps[i];
        struct gc_host_range r = { 0 };
        uint32_t reason;
        uint64_t n;

        if (exclude && gc_rangeset_overlaps(exclude, m->start, m->end - m->start))
            continue;
        n = dump_size(m, filter, mem, &reason);
        r.p_flags = pflags_of(m);
        r.label = m->path[0] ? m->path : "[anon]";
        if (n) {
            r.start = m->start;
            r.size = n;
            st = push_range(&out.r, &out.count, &r, reterr_diag);
        }
        if (st == GPUCORE_OK && n < m->end - m->start) {
            r.start = m->start + n;
            r.size = m->end - m->start - n;
            r.reason = reason;
            st = push_range(&out.skipped, &out.nskipped, &r, reterr_diag);
        }
    }
    if (st != GPUCORE_OK) {
        gc_host_ranges_free(&out);
        return st;
    }
    *ret = out;
    return GPUCORE_OK;
}

void gc_host_ranges_free(struct gc_host_ranges *r)
{
    if (!r)
        return;
    gc_free(r->r);
    gc_free(r->skipped);
    memset(r, 0, sizeof(*r));
}

/* ---- the order host memory is written in --------------------------------------------------- */

/* Offsets of registers in the NT_PRSTATUS pr_reg image (struct user_regs_struct, x86-64). */
#define GREG_RSP 152u
/* Registers that may hold an address worth keeping: rax..r15 (0..112), rip, fs_base, gs_base;
 * orig_rax, the segment selectors and eflags are never addresses. */
static const uint16_t pointer_regs[] = { 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104,
                                         112, 128, 168, 176 };

/* Add the part of [lo, hi) that @p sel holds to @p dst. */
static gpucore_status_t want_window(struct gc_rangeset *dst, const struct gc_rangeset *sel,
                                    uint64_t lo, uint64_t hi)
{
    return hi > lo ? gc_rangeset_add_within(dst, sel, lo, hi - lo) : GPUCORE_OK;
}

/* One thread's stack windows (priorities 0 and 2) and register windows (priority 1). */
static gpucore_status_t want_thread(struct gc_rangeset ret[GC_HOST_PRIORITIES],
                                    const struct gc_rangeset *sel, const struct gc_procmaps *maps,
                                    const struct gc_tracee_thread *th)
{
    uint64_t sp, lo, top = UINT64_MAX;
    const struct gc_procmap *m;

    if (!th->regs_valid)
        return GPUCORE_OK;
    sp = gc_le64_get(th->gregs + GREG_RSP);
    lo = (sp > 128 ? sp - 128 : 0) & ~(uint64_t)(PAGE - 1);
    m = maps ? gc_procmaps_find(maps, sp) : NULL;
    if (m)
        top = m->end;
    GC_TRY(want_window(&ret[0], sel, lo,
                       sp <= top - GC_HOST_STACK_NEAR ? sp + GC_HOST_STACK_NEAR : top));
    GC_TRY(want_window(&ret[2], sel, lo,
                       sp <= top - GC_HOST_STACK_FAR ? sp + GC_HOST_STACK_FAR : top));
    for (size_t i = 0; i < GC_ARRAY_SIZE(pointer_regs); i++) {
        uint64_t v = gc_le64_get(th->gregs + pointer_regs[i]);
        uint64_t a = v & ~(uint64_t)(PAGE - 1);
        uint64_t b = (v | (PAGE - 1)) + 1;

        a = a >= GC_HOST_REG_WINDOW ? a - GC_HOST_REG_WINDOW : 0;
        b = b != 0 && b <= UINT64_MAX - GC_HOST_REG_WINDOW ? b + GC_HOST_REG_WINDOW
                                                            : UINT64_MAX;
        GC_TRY(want_window(&ret[1], sel, a, b));
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_host_stacks(const struct gc_procmaps *maps, const struct gc_tracee *t,
                                struct gc_rangeset *ret)
{
    uint32_t n = t ? gc_tracee_thread_count(t) : 0;

    if (!ret)
        return GPUCORE_E_INVAL;
    for (uint32_t i = 0; i < n; i++) {
        const struct gc_tracee_thread *th = gc_tracee_thread(t, i);
        const struct gc_procmap *m;
        uint64_t sp, lo, top = UINT64_MAX;

        if (!th->regs_valid)
            continue;
        sp = gc_le64_get(th->gregs + GREG_RSP);
        lo = (sp > 128 ? sp - 128 : 0) & ~(uint64_t)(PAGE - 1);
        m = maps ? gc_procmaps_find(maps, sp) : NULL;
        if (m)
            top = m->end;
        top = sp <= top - GC_HOST_STACK_FAR ? sp + GC_HOST_STACK_FAR : top;
        if (top > lo)
            GC_TRY(gc_rangeset_add(ret, lo, top - lo));
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_host_prioritize(const struct gc_rangeset *selected,
                                    const struct gc_procmaps *maps, const struct gc_tracee *t,
                                    const struct gc_rangeset *early,
                                    struct gc_rangeset ret[GC_HOST_PRIORITIES],
                                    gpucore_diag_t *reterr_diag)
{
    const struct gc_tracee_thread *sig_th = t ? gc_tracee_signalled_thread(t) : NULL;
    uint32_t n = t ? gc_tracee_thread_count(t) : 0;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!selected || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no host ranges or no result sets");
    if (sig_th)
        st = want_thread(ret, selected, maps, sig_th);
    for (uint32_t i = 0; i < n && st == GPUCORE_OK; i++) {
        const struct gc_tracee_thread *th = gc_tracee_thread(t, i);

        if (th != sig_th)
            st = want_thread(ret, selected, maps, th);
    }
    for (uint32_t i = 0; early && i < early->count && st == GPUCORE_OK; i++)
        st = want_window(&ret[1], selected, early->r[i].start, early->r[i].end);
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&ret[3], selected);
    /* Each set minus everything before it: what priority p adds. */
    for (uint32_t p = 1; p < GC_HOST_PRIORITIES && st == GPUCORE_OK; p++)
        for (uint32_t q = 0; q < p && st == GPUCORE_OK; q++)
            st = gc_rangeset_subtract(&ret[p], &ret[q]);
    if (st != GPUCORE_OK)
        return gc_diag_set(reterr_diag, st, GC_NO_OFFSET,
                           st == GPUCORE_E_NOMEM ? "out of memory ordering host memory"
                                                 : "too many host ranges to order");
    return GPUCORE_OK;
}

/* The page holding [addr, addr + size), added to @p ret (nothing for address 0). */
static gpucore_status_t keep_pages(struct gc_rangeset *ret, uint64_t addr, uint64_t size)
{
    uint64_t a = addr & ~(uint64_t)(PAGE - 1), end;

    if (addr == 0 || size > UINT64_MAX - addr)
        return GPUCORE_OK;
    end = addr + size;
    end = end > UINT64_MAX - (PAGE - 1) ? UINT64_MAX : (end + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    return gc_rangeset_add(ret, a, end - a);
}

#define AT_PHDR_ 3u
#define AT_PHNUM_ 5u
#define PT_DYNAMIC_ 2u
#define PT_PHDR_ 6u
#define DT_DEBUG_ 21u
#define PHDR_SIZE   56u
#define NAME_WINDOW 256u

/* The bytes [addr, addr + size) exactly, or their pages (keep_pages) when not @p exact. */
static gpucore_status_t keep(struct gc_rangeset *ret, uint64_t addr, uint64_t size, int exact)
{
    if (!exact)
        return keep_pages(ret, addr, size);
    if (addr == 0 || size == 0 || size > UINT64_MAX - addr)
        return GPUCORE_OK;
    return gc_rangeset_add(ret, addr, size);
}

/* A link_map node's name: with @p exact the string and its NUL as far as it can be read. */
static gpucore_status_t keep_name(struct gc_rangeset *ret, uint64_t addr, int exact,
                                  const struct gc_mem_reader *mem)
{
    char name[NAME_WINDOW];
    size_t len;

    if (!exact)
        return keep_pages(ret, addr, NAME_WINDOW);
    /* a name ending near the end of its mapping: shorter reads */
    for (uint64_t n = NAME_WINDOW; n >= 16; n /= 2) {
        if (addr && gc_mem_read_all(mem, addr, name, n) == 0) {
            len = strnlen(name, n);
            return keep(ret, addr, len < n ? len + 1 : n, 1);
        }
    }
    return GPUCORE_OK;
}

static gpucore_status_t link_map_walk(pid_t pid, const char *proc_root,
                                      const struct gc_mem_reader *mem, struct gc_rangeset *ret,
                                      int exact, gpucore_diag_t *reterr_diag)
{
    char path[96], *auxv = NULL;
    size_t len = 0;
    uint64_t phdr = 0, phnum = 0, bias = 0, dyn = 0, dyn_size = 0, r_debug = 0, node;
    int have_bias = 0;
    uint8_t *ph = NULL, e[16], rd[GC_ROCR_R_DEBUG_SIZE], lm[GC_ROCR_LINK_MAP_SIZE];
    struct gc_rocr_r_debug r;
    struct gc_rocr_link_map l;
    gpucore_status_t st = GPUCORE_OK;

    GC_FAIL_IF(!proc_root || !mem || !mem->read || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "no /proc root, reader or result set");
    snprintf(path, sizeof(path), "%s/%d/auxv", proc_root, (int)pid);
    if (read_small(path, MAX_AUXV, &auxv, &len) < 0)
        return GPUCORE_OK;
    for (size_t i = 0; i + 16 <= len; i += 16) {
        uint64_t type = gc_le64_get(auxv + i), val = gc_le64_get(auxv + i + 8);

        if (type == AT_PHDR_)
            phdr = val;
        else if (type == AT_PHNUM_)
            phnum = val;
    }
    gc_free(auxv);
    if (!phdr || !phnum || phnum > GC_HOST_MAX_PHNUM)
        return GPUCORE_OK;
    ph = gc_malloc((size_t)phnum * PHDR_SIZE);
    if (!ph)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    if (gc_mem_read_all(mem, phdr, ph, phnum * PHDR_SIZE) == 0) {
        /* The load bias from PT_PHDR (where the headers are against where they were linked). */
        for (uint64_t i = 0; i < phnum; i++) {
            const uint8_t *p = ph + i * PHDR_SIZE;

            if (gc_le32_get(p) == PT_PHDR_) {
                bias = phdr - gc_le64_get(p + 16);
                have_bias = 1;
            }
        }
        for (uint64_t i = 0; i < phnum && have_bias; i++) {
            const uint8_t *p = ph + i * PHDR_SIZE;

            if (gc_le32_get(p) == PT_DYNAMIC_) {
                dyn = bias + gc_le64_get(p + 16);
                dyn_size = gc_le64_get(p + 40);
            }
        }
    }
    gc_free(ph);
    if (!dyn || dyn_size / 16 == 0)
        return GPUCORE_OK;
    if (dyn_size / 16 > GC_HOST_MAX_DYNAMIC)
        dyn_size = (uint64_t)GC_HOST_MAX_DYNAMIC * 16;
    st = keep(ret, dyn, dyn_size, exact);
    for (uint64_t i = 0; i < dyn_size / 16 && st == GPUCORE_OK; i++) {
        if (gc_mem_read_all(mem, dyn + 16 * i, e, sizeof(e)) != 0 || gc_le64_get(e) == 0)
            break; /* unreadable, or DT_NULL */
        if (gc_le64_get(e) == DT_DEBUG_)
            r_debug = gc_le64_get(e + 8);
    }
    if (st != GPUCORE_OK || !r_debug)
        return st;
    /* glibc's r_debug and link_map have the layouts ROCr's list has (gc_rocr.h). */
    st = keep(ret, r_debug, GC_ROCR_R_DEBUG_SIZE, exact);
    if (st != GPUCORE_OK || gc_mem_read_all(mem, r_debug, rd, sizeof(rd)) != 0)
        return st;
    gc_rocr_r_debug_decode(rd, &r);
    node = r.r_map;
    for (uint32_t n = 0; node && n < GC_HOST_MAX_LINK_MAP && st == GPUCORE_OK; n++) {
        if (gc_mem_read_all(mem, node, lm, sizeof(lm)) != 0)
            break;
        gc_rocr_link_map_decode(lm, &l);
        st = keep(ret, node, sizeof(lm), exact);
        if (st == GPUCORE_OK)
            st = keep_name(ret, l.l_name, exact, mem);
        if (st == GPUCORE_OK)
            st = keep(ret, l.l_ld, 16, exact);
        node = l.l_next;
    }
    if (st != GPUCORE_OK)
        return gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "%s",
                           st == GPUCORE_E_NOMEM ? "out of memory" : "too many ranges");
    return GPUCORE_OK;
}

gpucore_status_t gc_host_link_map(pid_t pid, const char *proc_root, const struct gc_mem_reader *mem,
                                  struct gc_rangeset *ret, gpucore_diag_t *reterr_diag)
{
    return link_map_walk(pid, proc_root, mem, ret, 0, reterr_diag);
}

gpucore_status_t gc_host_link_map_exact(pid_t pid, const char *proc_root,
                                        const struct gc_mem_reader *mem, struct gc_rangeset *ret,
                                        gpucore_diag_t *reterr_diag)
{
    return link_map_walk(pid, proc_root, mem, ret, 1, reterr_diag);
}

/* ---- notes ------------------------------------------------------------------------------- */

static void put_timeval(uint8_t *p, uint64_t ticks, long hz)
{
    uint64_t h = hz > 0 ? (uint64_t)hz : 100u;

    gc_le64_put(p, ticks / h);
    gc_le64_put(p + 8, (ticks % h) * 1000000u / h);
}

static gpucore_status_t note(gpucore_writer_t *w, const char *owner, uint32_t type,
                             const void *desc, size_t size, gpucore_diag_t *diag);

/*
 * NT_X86_XSAVE_LAYOUT (Linux 6.11+, written once after every thread's notes): one record
 * {u32 type, size, offset, flags = 0} per extended state component the kernel exposes (XCR0
 * bits from 2 up), with its size and standard-format offset from CPUID leaf 0xD, so a reader
 * can parse NT_X86_XSTATE without guessing the layout from its size. Left out when no thread
 * had an XSAVE area or the host cannot say (no XSAVE).
 */
static gpucore_status_t add_xsave_layout(gpucore_writer_t *w, const struct gc_tracee *t,
                                         gpucore_diag_t *diag)
{
#if defined(__x86_64__)
    uint8_t d[64 * 16];
    size_t n = 0;
    uint32_t eax, ebx, ecx, edx, lo, hi;
    uint64_t xcr0;
    int have_xstate = 0;

    for (uint32_t i = 0; i < gc_tracee_thread_count(t); i++)
        have_xstate |= gc_tracee_thread(t, i)->xstate_size > 0;
    if (!have_xstate)
        return GPUCORE_OK;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(1), "c"(0));
    if (!(ecx & (1u << 27))) /* OSXSAVE */
        return GPUCORE_OK;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (uint64_t)hi << 32 | lo;
    for (uint32_t bit = 2; bit < 64; bit++) {
        if (!(xcr0 & (1ull << bit)))
            continue;
        __asm__ volatile("cpuid"
                         : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
                         : "a"(0xd), "c"(bit));
        gc_le32_put(d + 16 * n, bit);
        gc_le32_put(d + 16 * n + 4, eax);
        gc_le32_put(d + 16 * n + 8, ebx);
        gc_le32_put(d + 16 * n + 12, 0);
        n++;
    }
    if (n == 0)
        return GPUCORE_OK;
    return note(w, "LINUX", GC_NT_X86_XSAVE_LAYOUT, d, 16 * n, diag);
#else
    (void)w;
    (void)t;
    (void)diag;
    return GPUCORE_OK;
#endif
}

static gpucore_status_t writer_fail(gpucore_writer_t *w, gpucore_status_t st, uint32_t type,
                                    gpucore_diag_t *diag)
{
    return gc_diag_set(diag, st, GC_NO_OFFSET, "cannot add the host note of type 0x%x: %s",
                       (unsigned)type,
                       gpucore_writer_errmsg(w)[0] ? gpucore_writer_errmsg(w)
                                                   : gpucore_status_name(st));
}

/* Add one note; a writer failure is described in the diag. */
static gpucore_status_t note(gpucore_writer_t *w, const char *owner, uint32_t type,
                             const void *desc, size_t size, gpucore_diag_t *diag)
{
    gpucore_status_t st = gpucore_writer_add_note(w, owner, type, desc, size);

    return st == GPUCORE_OK ? st : writer_fail(w, st, type, diag);
}

/* pr_state / pr_sname from the /proc state letter (the kernel's "RSDTZW" numbering). A
 * ptrace-stopped thread ('t') is reported as stopped ('T'), not with the kernel's index 4. */
struct state_code {
    char proc;
    uint8_t pr_state;
    char sname;
};

static const struct state_code state_codes[] = {
    { 'R', 0, 'R' }, { 'S', 1, 'S' }, { 'D', 2, 'D' }, { 'T', 3, 'T' },
    { 't', 3, 'T' }, { 'Z', 4, 'Z' }, { 'X', 4, 'Z' }, { 'I', 2, 'D' },
};

/* The bit of the signal @p th was caught delivering when it was stopped (pr_sigpend's layout,
 * bit N-1 for signal N, as /proc's SigPnd), 0 if none: the kernel had dequeued it already, so
 * SigPnd no longer shows it, yet the thread takes it once it runs again. */
static uint64_t caught_signal_mask(const struct gc_tracee_thread *th)
{
    int sig = th->pending_signal;

    return sig >= 1 && sig <= 64 ? (uint64_t)1 << (sig - 1) : 0;
}

static gpucore_status_t add_prstatus(gpucore_writer_t *w, const struct gc_host_note_input *in,
                                     const struct gc_tracee_thread *th, int cursig,
                                     const struct proc_stat *ps, gpucore_diag_t *diag)
{
    uint8_t d[PRSTATUS_SIZE];
    char path[96];
    struct proc_stat ts;
    struct proc_status tst;
    long hz = sysconf(_SC_CLK_TCK);
    int leader = th->tid == in->pid;

    snprintf(path, sizeof(path), "%s/%d/task/%d/stat", in->proc_root, (int)in->pid,
             (int)th->tid);
    GC_TRY(read_stat(path, &ts, diag));
    snprintf(path, sizeof(path), "%s/%d/task/%d/status", in->proc_root, (int)in->pid,
             (int)th->tid);
    GC_TRY(read_status(path, &tst, diag));

    memset(d, 0, sizeof(d));
    gc_le32_put(d + PRS_SIGNO, (uint32_t)cursig);
    gc_le16_put(d + PRS_CURSIG, (uint16_t)cursig);
    gc_le64_put(d + PRS_SIGPEND, tst.sigpnd | caught_signal_mask(th));
    gc_le64_put(d + PRS_SIGHOLD, tst.sigblk);
    gc_le32_put(d + PRS_PID, (uint32_t)th->tid);
    gc_le32_put(d + PRS_PPID, (uint32_t)ps->ppid);
    gc_le32_put(d + PRS_PGRP, (uint32_t)ps->pgrp);
    gc_le32_put(d + PRS_SID, (uint32_t)ps->sid);
    /* The leader's times are the whole group's (as the kernel's thread_group_cputime). */
    put_timeval(d + PRS_UTIME, leader ? ps->utime : ts.utime, hz);
    put_timeval(d + PRS_UTIME + 16, leader ? ps->stime : ts.stime, hz);
    put_timeval(d + PRS_UTIME + 32, ps->cutime > 0 ? (uint64_t)ps->cutime : 0, hz);
    put_timeval(d + PRS_UTIME + 48, ps->cstime > 0 ? (uint64_t)ps->cstime : 0, hz);
    if (th->regs_valid) {
        memcpy(d + PRS_REG, th->gregs, GC_TRACEE_GREGS_SIZE); /* already little-endian */
        gc_le32_put(d + PRS_FPVALID, 1);
    }
    return note(w, "CORE", GC_NT_PRSTATUS, d, sizeof(d), diag);
}

static gpucore_status_t add_prpsinfo(gpucore_writer_t *w, const struct gc_host_note_input *in,
                                     const struct proc_stat *ps, gpucore_diag_t *diag)
{
    uint8_t d[PRPSINFO_SIZE];
    char path[96], *cmd;
    size_t len;
    struct proc_status st;
    uint8_t pr_state = 0;
    char sname = '.';
    int rc;

    snprintf(path, sizeof(path), "%s/%d/status", in->proc_root, (int)in->pid);
    GC_TRY(read_status(path, &st, diag));
    for (size_t i = 0; i < GC_ARRAY_SIZE(state_codes); i++)
        if (state_codes[i].proc == ps->state) {
            pr_state = state_codes[i].pr_state;
            sname = state_codes[i].sname;
        }
    memset(d, 0, sizeof(d));
    d[PSI_STATE] = pr_state;
    d[PSI_SNAME] = (uint8_t)sname;
    d[PSI_ZOMB] = sname == 'Z';
    d[PSI_NICE] = (uint8_t)(int8_t)ps->nice;
    gc_le64_put(d + PSI_FLAG, ps->flags);
    gc_le32_put(d + PSI_UID, st.uid);
    gc_le32_put(d + PSI_GID, st.gid);
    gc_le32_put(d + PSI_PID, (uint32_t)in->pid);
    gc_le32_put(d + PSI_PPID, (uint32_t)ps->ppid);
    gc_le32_put(d + PSI_PGRP, (uint32_t)ps->pgrp);
    gc_le32_put(d + PSI_SID, (uint32_t)ps->sid);
    memcpy(d + PSI_FNAME, ps->comm, strnlen(ps->comm, PSI_FNAME_SIZE - 1));
    /* The kernel's fill_psinfo: at most 79 bytes of the arguments, NULs as spaces. */
    snprintf(path, sizeof(path), "%s/%d/cmdline", in->proc_root, (int)in->pid);
    rc = read_small(path, 1u << 20, &cmd, &len);
    if (rc == 0) {
        size_t n = len < PSI_PSARGS_SIZE - 1 ? len : PSI_PSARGS_SIZE - 1;

        if (in->psargs_first_only) /* --redact: the arguments are user data, argv[0] is not */
            n = strnlen(cmd, n);

        for (size_t i = 0; i < n; i++)
            d[PSI_PSARGS + i] = cmd[i] ? (uint8_t)cmd[i] : (uint8_t)' ';
        gc_free(cmd);
    } else if (rc != -EFBIG) {
        return proc_fail(diag, path, rc);
    }
    return note(w, "CORE", GC_NT_PRPSINFO, d, sizeof(d), diag);
}

static gpucore_status_t add_siginfo(gpucore_writer_t *w, int signo, gpucore_diag_t *diag)
{
    uint8_t d[SIGINFO_SIZE];

    memset(d, 0, sizeof(d));
    if (signo) {
        gc_le32_put(d + 0, (uint32_t)signo);
        gc_le32_put(d + 8, (uint32_t)SI_USER);
        gc_le32_put(d + 16, (uint32_t)getpid()); /* si_pid */
        gc_le32_put(d + 20, (uint32_t)getuid()); /* si_uid */
    } else {
        /* Not signalled: what GDB's gcore writes for a process it stopped (the siginfo of the
         * stop ptrace's attach makes: SIGSTOP from the kernel, no sender), while pr_cursig
         * stays 0, so no debugger reports a signal the process never had. */
        gc_le32_put(d + 0, (uint32_t)SIGSTOP);
        gc_le32_put(d + 8, (uint32_t)SI_KERNEL);
    }
    return note(w, "CORE", GC_NT_SIGINFO, d, sizeof(d), diag);
}

static gpucore_status_t add_auxv(gpucore_writer_t *w, const struct gc_host_note_input *in,
                                 gpucore_diag_t *diag)
{
    char path[96], *buf;
    size_t len;
    int rc;
    gpucore_status_t st;

    snprintf(path, sizeof(path), "%s/%d/auxv", in->proc_root, (int)in->pid);
    rc = read_small(path, MAX_AUXV, &buf, &len);
    if (rc < 0)
        return proc_fail(diag, path, rc);
    /* Pairs of 64-bit words ending with AT_NULL: the kernel's saved_auxv. */
    if (len % 16 != 0 || len == 0 || gc_le64_get(buf + len - 16) != 0) {
        gc_free(buf);
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET,
                           "%s: %zu bytes, expected (type, value) pairs ending with AT_NULL",
                           path, len);
    }
    st = note(w, "CORE", GC_NT_AUXV, buf, len, diag);
    gc_free(buf);
    return st;
}

static int is_file_mapping(const struct gc_procmap *m)
{
    return m->path[0] != '\0' && m->path[0] != '[';
}

static gpucore_status_t add_file_note(gpucore_writer_t *w, const struct gc_procmaps *maps,
                                      gpucore_diag_t *diag)
{
    struct gc_buf b;
    uint64_t count = 0;
    uint8_t *data;
    size_t len;
    gpucore_status_t st;

    for (uint32_t i = 0; maps && i < maps->count; i++)
        count += (uint64_t)is_file_mapping(&maps->maps[i]);
    if (count == 0)
        return GPUCORE_OK; /* the kernel leaves NT_FILE out */
    gc_buf_init(&b);
    gc_buf_put64(&b, count);
    gc_buf_put64(&b, PAGE);
    for (uint32_t i = 0; i < maps->count; i++) {
        const struct gc_procmap *m = &maps->maps[i];

        if (!is_file_mapping(m))
            continue;
        gc_buf_put64(&b, m->start);
        gc_buf_put64(&b, m->end);
        gc_buf_put64(&b, m->offset / PAGE);
    }
    for (uint32_t i = 0; i < maps->count; i++)
        if (is_file_mapping(&maps->maps[i]))
            gc_buf_append(&b, maps->maps[i].path, strlen(maps->maps[i].path) + 1);
    if (gc_buf_status(&b) != GPUCORE_OK) {
        gc_buf_done(&b);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    data = gc_buf_steal(&b, &len);
    st = note(w, "CORE", GC_NT_FILE, data, len, diag);
    gc_free(data);
    return st;
}

static gpucore_status_t add_thread_regs(gpucore_writer_t *w, const struct gc_tracee_thread *th,
                                        gpucore_diag_t *diag)
{
    if (!th->regs_valid)
        return GPUCORE_OK;
    GC_TRY(note(w, "CORE", GC_NT_FPREGSET, th->fpregs, GC_TRACEE_FPREGS_SIZE, diag));
    if (th->xstate && th->xstate_size)
        GC_TRY(note(w, "LINUX", GC_NT_X86_XSTATE, th->xstate, th->xstate_size, diag));
    return GPUCORE_OK;
}

gpucore_status_t gc_host_add_notes(gpucore_writer_t *w, const struct gc_host_note_input *in,
                                   gpucore_diag_t *reterr_diag)
{
    const struct gc_tracee_thread *first;
    struct proc_stat ps;
    char path[96];
    uint32_t n;
    int signo;
    gpucore_status_t st;

    GC_FAIL_IF(!w || !in || !in->tracee || !in->proc_root, reterr_diag, GPUCORE_E_INVAL,
               GC_NO_OFFSET, "no writer, tracee or /proc root");
    n = gc_tracee_thread_count(in->tracee);
    GC_FAIL_IF(n == 0, reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "process %d has no threads left", (int)in->pid);
    first = gc_tracee_thread(in->tracee, 0);
    for (uint32_t i = 0; in->first_thread > 0 && i < n; i++)
        if (gc_tracee_thread(in->tracee, i)->tid == in->first_thread)
            first = gc_tracee_thread(in->tracee, i);
    /* The capture's signal, never one a thread was caught delivering as it was stopped: that
     * one came after the capture began (a runtime's abort() racing with it) and goes to the
     * thread's pr_sigpend. */
    signo = in->default_signal;

    snprintf(path, sizeof(path), "%s/%d/stat", in->proc_root, (int)in->pid);
    GC_TRY(read_stat(path, &ps, reterr_diag));

    /* The kernel's order: the first thread's NT_PRSTATUS, the process-wide notes, the first
     * thread's other regsets; then each other thread's notes. Every thread reports the
     * capture's signal in pr_cursig, as the kernel's fill_note_info does. */
    st = add_prstatus(w, in, first, signo, &ps, reterr_diag);
    if (st == GPUCORE_OK)
        st = add_prpsinfo(w, in, &ps, reterr_diag);
    if (st == GPUCORE_OK)
        st = add_siginfo(w, signo, reterr_diag);
    if (st == GPUCORE_OK)
        st = add_auxv(w, in, reterr_diag);
    if (st == GPUCORE_OK)
        st = add_file_note(w, in->maps, reterr_diag);
    if (st == GPUCORE_OK)
        st = add_thread_regs(w, first, reterr_diag);
    for (uint32_t i = 0; i < n && st == GPUCORE_OK; i++) {
        const struct gc_tracee_thread *th = gc_tracee_thread(in->tracee, i);

        if (th == first)
            continue;
        st = add_prstatus(w, in, th, signo, &ps, reterr_diag);
        if (st == GPUCORE_OK)
            st = add_thread_regs(w, th, reterr_diag);
    }
    if (st == GPUCORE_OK)
        st = add_xsave_layout(w, in->tracee, reterr_diag);
    return st;
}
