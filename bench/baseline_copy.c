/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-baseline: what the ROCm runtime's core dump writer does with GPU memory today
 * (docs/core-format.md §10), as the reference row of bench/bench_capture.sh.
 *
 *     gpucore-bench-baseline [--kfd sim|linux] [--socket NAME] -o PATH PID
 *
 * Lists the GPU mappings of process PID with gc_kfd_gpu_mappings() -- on linux the
 * /dev/dri/renderD* (and /dev/kfd) entries of /proc/PID/maps, on sim the simulated device's
 * allocation list, i.e. the same address ranges -- and copies every readable one into PATH:
 * pread(2) of /proc/PID/mem in 1 MiB chunks, each chunk write(2)n straight after, dense (no
 * hole or zero detection, no compression, no format: just the bytes back to back), then fsync.
 * Mappings flagged GC_KFD_MAP_NO_READ (doorbells, MMIO) are skipped, as reading them has side
 * effects. The target is not stopped (gpucore stops it; this copies while it runs).
 *
 * A page that cannot be read (EIO/EFAULT) is written as zeros and counted, so the output keeps
 * one byte per mapped byte; the target vanishing (ESRCH, or a read of 0 bytes) is an error.
 *
 * Prints one line: "gpucore-bench-baseline: PATH: N mappings (M skipped), B bytes copied
 * (U unreadable) in S s". Exit status: 0 done; 64 usage; 69 no driver, no such process, or
 * not allowed to read it; 70 the driver failed otherwise; 71 out of memory; 73 cannot create
 * PATH; 74 I/O error; 76 the mapping list is malformed. On failure PATH is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "gc_util.h"
#include "kfd.h"

static const char prog[] = "gpucore-bench-baseline";

#define CHUNK (1u << 20) /* pread/write unit */
#define PAGE  4096u

struct backend_name {
    const char *name;
    enum gc_kfd_backend backend;
};

static const struct backend_name backends[] = {
    { "linux", GC_KFD_BACKEND_LINUX },
    { "sim", GC_KFD_BACKEND_SIM },
};

struct totals {
    uint32_t mappings, skipped;
    uint64_t copied, unreadable;
};

/* @p what (NULL: none) says what is wrong with the argument @p arg. */
static int usage(const char *what, const char *arg)
{
    if (what)
        fprintf(stderr, "%s: %s, got '%s'\n", prog, what, arg);
    fprintf(stderr, "usage: %s [--kfd sim|linux] [--socket NAME] -o PATH PID\n", prog);
    return EX_USAGE;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* write(2) all of @p n bytes; 0 or errno. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        if (w == 0)
            return EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * Read [addr, addr + n) of the target into @p buf. Unreadable pages (EIO, EFAULT) become zeros
 * and are added to *unreadable. 0, or errno (ESRCH when the target is gone).
 */
static int read_chunk(int mem, uint64_t addr, uint8_t *buf, size_t n, uint64_t *unreadable)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(mem, buf + got, n - got, (off_t)(addr + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            return ESRCH; /* /proc/PID/mem reads 0 bytes once the mm is gone */
        if (errno != EIO && errno != EFAULT)
            return errno;
        /* Step over the page that failed: to the next page boundary, at most what is left. */
        uint64_t a = addr + got;
        size_t step = (size_t)(PAGE - (a & (PAGE - 1)));
        if (step > n - got)
            step = n - got;
        memset(buf + got, 0, step);
        *unreadable += step;
        got += step;
    }
    return 0;
}

/*
 * The mapping list comes from the driver (or the target's /proc): check it before using it.
 * Returns a message or NULL.
 */
static const char *check_mapping(const struct gc_kfd_mapping *m, const struct gc_kfd_mapping *prev)
{
    if (m->size == 0)
        return "is empty";
    if (m->base > (uint64_t)INT64_MAX - m->size)
        return "ends beyond the largest /proc/PID/mem offset";
    if (prev && m->base < prev->base + prev->size)
        return "overlaps or precedes the previous one (the list must be sorted)";
    return NULL;
}

static int copy_mappings(int mem, int out, const struct gc_kfd_mapping *maps, uint32_t n,
                         uint8_t *buf, struct totals *t)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct gc_kfd_mapping *m = &maps[i];
        const char *bad = check_mapping(m, i ? &maps[i - 1] : NULL);
        if (bad) {
            fprintf(stderr, "%s: GPU mapping %" PRIu32 " [0x%" PRIx64 ", +0x%" PRIx64 ") %s\n",
                    prog, i, m->base, m->size, bad);
            return EX_PROTOCOL;
        }
        t->mappings++;
        if (m->flags & GC_KFD_MAP_NO_READ) {
            t->skipped++;
            continue;
        }
        for (uint64_t off = 0; off < m->size;) {
            size_t len = m->size - off < CHUNK ? (size_t)(m->size - off) : CHUNK;
            int e = read_chunk(mem, m->base + off, buf, len, &t->unreadable);
            if (e) {
                fprintf(stderr, "%s: reading target memory at 0x%" PRIx64 ": %s\n", prog,
                        m->base + off, e == ESRCH ? "the process is gone" : strerror(e));
                return e == ESRCH ? EX_UNAVAILABLE : EX_IOERR;
            }
            e = write_all(out, buf, len);
            if (e) {
                fprintf(stderr, "%s: writing the copy: %s\n", prog, strerror(e));
                return EX_IOERR;
            }
            off += len;
            t->copied += len;
        }
    }
    return 0;
}

static int list_mappings(pid_t pid, const struct gc_kfd_open_opts *o,
                         struct gc_kfd_mapping **maps, uint32_t *n)
{
    gpucore_diag_t d;
    struct gc_kfd *k = NULL;
    gpucore_status_t st = gc_kfd_open(pid, o, &k, &d);

    if (st == GPUCORE_OK) {
        st = gc_kfd_gpu_mappings(k, maps, n, &d);
        gc_kfd_close(k);
    }
    if (st == GPUCORE_OK)
        return 0;
    fprintf(stderr, "%s: %s\n", prog, d.message);
    return st == GPUCORE_E_NODEV || st == GPUCORE_E_NOTFOUND || st == GPUCORE_E_PERM
                   ? EX_UNAVAILABLE
                   : EX_SOFTWARE;
}

int main(int argc, char **argv)
{
    struct gc_kfd_open_opts o = { .backend = GC_KFD_BACKEND_SIM };
    const char *out_path = NULL;
    const char *pid_text = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--kfd") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            size_t j = 0;
            while (j < GC_ARRAY_SIZE(backends) && strcmp(backends[j].name, v) != 0)
                j++;
            if (j == GC_ARRAY_SIZE(backends))
                return usage("--kfd takes sim or linux", v);
            o.backend = backends[j].backend;
        } else if (strcmp(a, "--socket") == 0 && i + 1 < argc) {
            o.sim_socket = argv[++i];
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (a[0] != '-' && !pid_text) {
            pid_text = a;
        } else {
            return usage("expected an option with its value, or one PID", a);
        }
    }
    if (!out_path || !pid_text)
        return usage(NULL, NULL);
    char *end;
    errno = 0;
    long pid = strtol(pid_text, &end, 10);
    if (errno || *end || end == pid_text || pid <= 0 || pid > INT32_MAX)
        return usage("PID must be a positive decimal process id", pid_text);

    double t0 = now_s();
    struct gc_kfd_mapping *maps = NULL;
    uint32_t n = 0;
    int rc = list_mappings((pid_t)pid, &o, &maps, &n);
    if (rc) {
        gc_free(maps);
        return rc;
    }

    char mem_path[64];
    snprintf(mem_path, sizeof(mem_path), "/proc/%ld/mem", pid);
    int mem = open(mem_path, O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        int e = errno;
        fprintf(stderr, "%s: cannot open %s: %s%s\n", prog, mem_path, strerror(e),
                e == EACCES || e == EPERM ? " (needs root or ptrace rights over the process)" : "");
        gc_free(maps);
        return e == ENOENT || e == EACCES || e == EPERM ? EX_UNAVAILABLE : EX_IOERR;
    }
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", prog, out_path, strerror(errno));
        close(mem);
        gc_free(maps);
        return EX_CANTCREAT;
    }
    uint8_t *buf = gc_malloc(CHUNK);
    struct totals t = { 0 };
    rc = buf ? copy_mappings(mem, out, maps, n, buf, &t) : EX_OSERR;
    if (!buf)
        fprintf(stderr, "%s: out of memory\n", prog);
    if (rc == 0 && fsync(out) != 0) {
        fprintf(stderr, "%s: fsync %s: %s\n", prog, out_path, strerror(errno));
        rc = EX_IOERR;
    }
    if (close(out) != 0 && rc == 0) {
        fprintf(stderr, "%s: closing %s: %s\n", prog, out_path, strerror(errno));
        rc = EX_IOERR;
    }
    close(mem);
    gc_free(buf);
    gc_free(maps);
    if (rc) {
        unlink(out_path);
        return rc;
    }
    printf("%s: %s: %" PRIu32 " mappings (%" PRIu32 " skipped), %" PRIu64
           " bytes copied (%" PRIu64 " unreadable) in %.3f s\n",
           prog, out_path, t.mappings, t.skipped, t.copied, t.unreadable, now_s() - t0);
    return 0;
}
