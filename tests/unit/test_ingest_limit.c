/* SPDX-License-Identifier: MIT */
/*
 * gc_ingest_stream()'s size limit (ingest.h, "Size limit"), on host streams built here (an
 * x86-64 ET_CORE: a note and three PT_LOADs of bytes no compressor shrinks):
 *  - plain and compressed, the file is never larger than the limit; what it holds is a prefix
 *    of the stream's data, byte for byte; the rest is recorded skipped, reason "budget", and
 *    the core is marked truncated for the budget;
 *  - through a pipe, the writer writes its whole stream: ingest reads every byte past the
 *    limit (no EPIPE, no blocked writer);
 *  - a limit below the smallest core is refused; a head larger than the limit publishes
 *    nothing and says the output failed; 0 is the default for the half, UNLIMITED none.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "gc_le.h"
#include "ingest.h"

#define NLOADS 3u

/* The PT_LOADs: addresses and sizes (the middle one the large one a limit cuts). */
static const struct {
    uint64_t vaddr, size;
} loads[NLOADS] = {
    { 0x400000, 64u << 10 },
    { 0x10000000, 2u << 20 },
    { 0x7ffff0000000, 64u << 10 },
};

struct stream {
    uint8_t *buf;
    size_t len;
    size_t data_off[NLOADS]; /* where each PT_LOAD's data is in buf */
};

/* xorshift64: bytes no compressor shrinks, the same every run */
static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

/* A host stream: ELF header, program headers (a PT_NOTE of @p note_size bytes, then the
   PT_LOADs), the note (one "CORE" note of zeros), the data; all packed, front to back. */
static struct stream make_stream(size_t note_size)
{
    struct stream s = { 0 };
    size_t phnum = 1 + NLOADS, pos = 64 + 56 * phnum, note_off = pos, total;
    uint8_t *eh, *ph;

    pos += note_size;
    for (unsigned i = 0; i < NLOADS; i++) {
        pos = (pos + 15) & ~(size_t)15;
        s.data_off[i] = pos;
        pos += loads[i].size;
    }
    total = pos;
    s.buf = calloc(1, total);
    assert_non_null(s.buf);
    s.len = total;
    eh = s.buf;
    memcpy(eh, "\177ELF\2\1\1", 7);
    gc_le16_put(eh + 16, 4);  /* ET_CORE */
    gc_le16_put(eh + 18, 62); /* EM_X86_64 */
    gc_le32_put(eh + 20, 1);
    gc_le64_put(eh + 32, 64);
    gc_le16_put(eh + 52, 64);
    gc_le16_put(eh + 54, 56);
    gc_le16_put(eh + 56, (uint16_t)phnum);
    ph = s.buf + 64;
    gc_le32_put(ph, 4); /* PT_NOTE */
    gc_le64_put(ph + 8, note_off);
    gc_le64_put(ph + 32, note_size);
    gc_le64_put(ph + 40, note_size);
    /* one note filling the segment: "CORE", type 1 (NT_PRSTATUS), a descriptor of zeros */
    gc_le32_put(s.buf + note_off, 5);
    gc_le32_put(s.buf + note_off + 4, (uint32_t)(note_size - 20));
    gc_le32_put(s.buf + note_off + 8, 1);
    memcpy(s.buf + note_off + 12, "CORE", 5);
    for (unsigned i = 0; i < NLOADS; i++) {
        uint8_t *p = ph + 56 * (1 + i);

        gc_le32_put(p, 1); /* PT_LOAD */
        gc_le32_put(p + 4, 6);
        gc_le64_put(p + 8, s.data_off[i]);
        gc_le64_put(p + 16, loads[i].vaddr);
        gc_le64_put(p + 32, loads[i].size);
        gc_le64_put(p + 40, loads[i].size);
        fill_random(s.buf + s.data_off[i], loads[i].size, 0x9e3779b97f4a7c15ull * (i + 1));
    }
    return s;
}

static const char *out_path(void)
{
    static char path[512];
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");

    snprintf(path, sizeof(path), "%s/test_ingest_limit.%d.core", dir && *dir ? dir : "/tmp",
             (int)getpid());
    return path;
}

/* Ingest @p s from a memory file with @p max_bytes and @p compress into out_path(). */
static gpucore_status_t ingest(const struct stream *s, uint64_t max_bytes, int compress,
                               struct gc_ingest_result *res, gpucore_diag_t *d)
{
    int fd = memfd_create("test_ingest_limit", MFD_CLOEXEC);
    gpucore_status_t st;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, s->buf, s->len), (ssize_t)s->len);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    unlink(out_path());
    st = gc_ingest_stream(fd, out_path(),
                          &(struct gc_ingest_opts){ .keep_all = 1,
                                                    .max_bytes = max_bytes,
                                                    .compress = (uint32_t)compress },
                          res, d);
    close(fd);
    return st;
}

/* The core at out_path(): its bytes are the stream's, a prefix of the data in stream order;
   the manifest says truncated for the budget and records the rest as skipped/budget. */
static void check_core(const struct stream *s, uint64_t limit, const struct gc_ingest_result *res)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d = { 0 };
    struct gpucore_note n;
    gpucore_manifest_t *m = NULL;
    struct stat st;
    uint64_t kept = 0, skipped = 0, total = 0;
    uint32_t idx = 0;
    int past = 0; /* a PT_LOAD not whole was seen: none after it may hold data */

    assert_int_equal(stat(out_path(), &st), 0);
    assert_true((uint64_t)st.st_size <= limit);
    assert_int_equal(gpucore_core_open(out_path(), NULL, &core, &d), GPUCORE_OK);
    for (unsigned i = 0; i < NLOADS; i++) {
        uint8_t *buf = malloc(loads[i].size);
        uint64_t done = 0;

        assert_non_null(buf);
        total += loads[i].size;
        (void)gpucore_core_read(core, loads[i].vaddr, buf, loads[i].size, &done);
        if (done)
            assert_false(past);
        assert_memory_equal(buf, s->buf + s->data_off[i], done);
        if (done < loads[i].size)
            past = 1;
        kept += done;
        free(buf);
    }
    assert_true(past);
    assert_int_equal(kept, res->bytes_kept);
    assert_int_equal(gpucore_core_find_note(core, "GPUCORE", GPUCORE_NT_MANIFEST, &idx, &n),
                     GPUCORE_OK);
    assert_int_equal(gpucore_manifest_decode(n.desc, n.desc_size, &m, NULL), GPUCORE_OK);
    assert_true(m->flags & GPUCORE_MANIFEST_TRUNCATED);
    assert_int_equal(m->truncation_reason, GPUCORE_REASON_BUDGET);
    for (uint32_t i = 0; i < m->count; i++) {
        if (m->entries[i].status == GPUCORE_RANGE_CAPTURED)
            continue;
        assert_int_equal(m->entries[i].status, GPUCORE_RANGE_SKIPPED);
        assert_int_equal(m->entries[i].reason, GPUCORE_REASON_BUDGET);
        skipped += m->entries[i].size;
    }
    assert_int_equal(kept + skipped, total); /* every byte kept or said to be skipped */
    gpucore_manifest_free(m);
    gpucore_core_close(core);
}

static void test_plain(void **state)
{
    struct stream s = make_stream(4096);
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d = { 0 };
    const uint64_t limit = 1u << 20;

    (void)state;
    assert_int_equal(ingest(&s, limit, 0, &res, &d), GPUCORE_OK);
    assert_int_equal(res.size_limited, 1);
    assert_int_equal(res.max_bytes, limit);
    assert_int_equal(res.bytes_read, s.len); /* every byte of the stream read */
    assert_false(res.stream_cut);
    assert_true(res.bytes_over_limit >= loads[2].size);
    check_core(&s, limit, &res);
    unlink(out_path());
    free(s.buf);
}

static void test_compressed(void **state)
{
    struct stream s = make_stream(4096);
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d = { 0 };
    const uint64_t limit = 768u << 10;

    (void)state;
    assert_int_equal(ingest(&s, limit, 1, &res, &d), GPUCORE_OK);
    assert_int_equal(res.size_limited, 1);
    assert_int_equal(res.bytes_read, s.len);
    check_core(&s, limit, &res);
    unlink(out_path());
    free(s.buf);
}

/* Through a pipe: a child writes the whole stream and exits 0 only if every write succeeded;
   ingest under a limit a tenth of the stream reads all of it. */
static void test_pipe_drained(void **state)
{
    struct stream s = make_stream(4096);
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d = { 0 };
    int p[2], status;
    pid_t pid;

    (void)state;
    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t off = 0;

        close(p[0]);
        signal(SIGPIPE, SIG_IGN); /* EPIPE as an error, told apart by the exit status */
        while (off < s.len) {
            ssize_t n = write(p[1], s.buf + off, s.len - off);

            if (n <= 0)
                _exit(errno == EPIPE ? 3 : 4);
            off += (size_t)n;
        }
        _exit(0);
    }
    close(p[1]);
    unlink(out_path());
    assert_int_equal(
            gc_ingest_stream(p[0], out_path(),
                             &(struct gc_ingest_opts){ .keep_all = 1, .max_bytes = 256u << 10 },
                             &res, &d),
            GPUCORE_OK);
    assert_int_equal(gc_ingest_drain(p[0]), 0); /* nothing after the last segment */
    close(p[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(res.bytes_read, s.len);
    assert_int_equal(res.size_limited, 1);
    check_core(&s, 256u << 10, &res);
    unlink(out_path());
    free(s.buf);
}

/* Limits that cannot hold a core, the defaults, and no limit. */
static void test_bounds(void **state)
{
    struct stream s = make_stream(4096), big = make_stream(64u << 10);
    struct gc_ingest_result res = { 0 };
    gpucore_diag_t d = { 0 };
    struct stat st;

    (void)state;
    assert_int_equal(ingest(&s, GPUCORE_WRITER_MIN_BUDGET - 1, 0, &res, &d), GPUCORE_E_INVAL);
    /* the head (a 64 KiB note) alone does not fit 16 KiB: nothing published, the output's
       failure, naming the bytes needed */
    res.output_failed = 0;
    assert_int_equal(ingest(&big, 16u << 10, 0, &res, &d), GPUCORE_E_LIMIT);
    assert_int_equal(res.output_failed, 1);
    assert_int_equal(res.bytes_read, big.len);
    assert_int_not_equal(stat(out_path(), &st), 0);
    /* 0: the default of the half; UNLIMITED: everything kept */
    assert_int_equal(ingest(&s, 0, 0, &res, &d), GPUCORE_OK);
    assert_int_equal(res.max_bytes, GC_INGEST_HOST_SIZE_MAX);
    assert_false(res.size_limited);
    assert_int_equal(ingest(&s, GC_INGEST_SIZE_UNLIMITED, 0, &res, &d), GPUCORE_OK);
    assert_false(res.size_limited);
    assert_int_equal(res.bytes_kept, loads[0].size + loads[1].size + loads[2].size);
    unlink(out_path());
    free(s.buf);
    free(big.buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_compressed),
        cmocka_unit_test(test_pipe_drained),
        cmocka_unit_test(test_bounds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
