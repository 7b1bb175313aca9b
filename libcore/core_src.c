/* SPDX-License-Identifier: MIT */
/*
 * Where a reader's bytes come from, and what it may allocate.
 *
 * Files are read with pread(), never mapped: a mapped file that shrinks under us turns the next
 * access into SIGBUS, and a library must not install signal handlers behind its caller's back.
 * A short read is reported as a truncated input instead.
 *
 * The memory budget counts what a reader allocates because of what a file claims (decoded
 * frames, note copies, tables), so a small hostile file cannot make it allocate much more than
 * a small multiple of its own size.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_internal.h"
#include "gc_le.h"
#include "gc_util.h"

/* pread() in pieces of at most this, so a length never overflows ssize_t on any platform. */
#define SRC_MAX_PREAD (1u << 30)

gpucore_status_t gc_core_src_read(const struct gc_core_src *s, uint64_t off, void *buf, uint64_t n,
                                  gpucore_diag_t *diag)
{
    uint8_t *out = buf;

    if (n == 0)
        return GPUCORE_OK;
    if (s->mem) {
        if (gc_out_of_bounds(off, n, s->size))
            return gc_diag_set(diag, GPUCORE_E_TRUNCATED, off,
                               "offset 0x%llx: 0x%llx bytes wanted past the end of the input "
                               "(0x%llx bytes)",
                               (unsigned long long)off, (unsigned long long)n,
                               (unsigned long long)s->size);
        memcpy(out, s->mem + off, (size_t)n);
        return GPUCORE_OK;
    }
    while (n) {
        size_t want = n < SRC_MAX_PREAD ? (size_t)n : SRC_MAX_PREAD;
        ssize_t r = pread(s->fd, out, want, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;

            return gc_diag_set(diag, GPUCORE_E_IO, off, "offset 0x%llx: cannot read: %s",
                               (unsigned long long)off, strerror(e));
        }
        if (r == 0) {
            struct stat sb;
            unsigned long long now = fstat(s->fd, &sb) == 0 ? (unsigned long long)sb.st_size : 0;

            return gc_diag_set(diag, GPUCORE_E_TRUNCATED, off,
                               "offset 0x%llx: the file ends here (0x%llx bytes now, 0x%llx "
                               "when it was opened): it was cut while being read",
                               (unsigned long long)off, now, (unsigned long long)s->size);
        }
        out += r;
        off += (uint64_t)r;
        n -= (uint64_t)r;
    }
    return GPUCORE_OK;
}

uint64_t gc_core_mem_default(uint64_t content)
{
    uint64_t m = content > UINT64_MAX / GPUCORE_MEM_BUDGET_FACTOR
                         ? UINT64_MAX
                         : content * GPUCORE_MEM_BUDGET_FACTOR;

    return m > GPUCORE_MEM_BUDGET_FLOOR ? m : GPUCORE_MEM_BUDGET_FLOOR;
}

gpucore_status_t gc_core_mem_charge(struct gc_core_mem *m, uint64_t n, uint64_t off,
                                    const char *what, gpucore_diag_t *diag)
{
    if (n > m->limit - m->used) {
        if (off == GC_NO_OFFSET)
            return gc_diag_set(diag, GPUCORE_E_LIMIT, off,
                               "%s needs 0x%llx bytes of memory, but only 0x%llx of the "
                               "reader's 0x%llx-byte budget are left (raise it with "
                               "gpucore_open_opts::mem_budget)",
                               what, (unsigned long long)n,
                               (unsigned long long)(m->limit - m->used),
                               (unsigned long long)m->limit);
        return gc_diag_set(diag, GPUCORE_E_LIMIT, off,
                           "offset 0x%llx: %s needs 0x%llx bytes of memory, but only 0x%llx of "
                           "the reader's 0x%llx-byte budget are left (raise it with "
                           "gpucore_open_opts::mem_budget)",
                           (unsigned long long)off, what, (unsigned long long)n,
                           (unsigned long long)(m->limit - m->used), (unsigned long long)m->limit);
    }
    m->used += n;
    if (m->used > m->peak)
        m->peak = m->used;
    return GPUCORE_OK;
}

void gc_core_mem_release(struct gc_core_mem *m, uint64_t n)
{
    m->used = n < m->used ? m->used - n : 0;
}

gpucore_status_t gc_core_mem_alloc(struct gc_core_mem *m, uint64_t n, uint64_t off,
                                   const char *what, void *ret, gpucore_diag_t *diag)
{
    void *p;

    GC_TRY(gc_core_mem_charge(m, n, off, what, diag));
    p = n <= SIZE_MAX ? gc_malloc(n ? (size_t)n : 1) : NULL;
    if (!p) {
        gc_core_mem_release(m, n);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET,
                           "out of memory (0x%llx bytes for %s)", (unsigned long long)n, what);
    }
    memcpy(ret, &p, sizeof(p));
    return GPUCORE_OK;
}

void gc_core_mem_free(struct gc_core_mem *m, void *p, uint64_t n)
{
    if (!p)
        return;
    gc_free(p);
    gc_core_mem_release(m, n);
}
