/* SPDX-License-Identifier: MIT */
/*
 * libcore writer under pressure: the size budget (plain and compressed), caller stops,
 * unreadable ranges reported by the read callback, callback failures and write errors.
 * Whatever happens the result is a valid core whose manifest says what is missing and why.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/core.h>

#include "test_core_util.h"

#define MiB (1ull << 20)

static int setup(void **state)
{
    return tc_fixture_new(state, "budget", "b.core");
}

static uint64_t file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* Sum of manifest entries with this status (and reason, unless ~0u). */
static uint64_t manifest_bytes(const gpucore_manifest_t *m, uint32_t status, uint32_t reason)
{
    uint64_t sum = 0;

    for (uint32_t i = 0; i < m->count; i++)
        if (m->entries[i].status == status && (reason == ~0u || m->entries[i].reason == reason))
            sum += m->entries[i].size;
    return sum;
}

/*
 * The core at @p path is valid; every range in its manifest is either readable with the right
 * contents (CAPTURED; @p data holds what is at @p base) or entirely unavailable (SKIPPED,
 * UNREADABLE), and the manifest accounts for @p total bytes. Returns the captured byte count.
 */
static uint64_t check_accounting(const char *path, uint64_t base, const uint8_t *data,
                                 uint64_t total, uint32_t want_flags, uint32_t want_reason)
{
    gpucore_core_t *core = NULL;
    gpucore_manifest_t *m;
    gpucore_diag_t d;
    uint64_t captured = 0, prev = 0;
    uint8_t *buf = malloc(total);

    assert_non_null(buf);
    if (gpucore_core_open(path, NULL, &core, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    m = tc_manifest(core);
    assert_non_null(m);
    assert_int_equal(m->flags, want_flags);
    assert_int_equal(m->truncation_reason, want_reason);
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];
        uint64_t done = 0;
        gpucore_status_t st = gpucore_core_read(core, e->address, buf, e->size, &done);

        assert_true(e->address >= prev); /* address order, no overlap */
        prev = e->address + e->size;
        if (e->status == GPUCORE_RANGE_CAPTURED) {
            assert_int_equal(st, GPUCORE_OK);
            assert_memory_equal(buf, data + (e->address - base), e->size);
            captured += e->size;
        } else {
            /* Nothing of a range not captured is readable. */
            assert_int_equal(st, GPUCORE_E_UNAVAILABLE);
            assert_int_equal(done, 0);
        }
    }
    assert_int_equal(manifest_bytes(m, GPUCORE_RANGE_CAPTURED, ~0u) +
                             manifest_bytes(m, GPUCORE_RANGE_SKIPPED, ~0u) +
                             manifest_bytes(m, GPUCORE_RANGE_UNREADABLE, ~0u),
                     total);
    gpucore_manifest_free(m);
    gpucore_core_close(core);
    free(buf);
    return captured;
}

/* Eight 1.25 MiB random segments at 0x10000000 (with a gap between each), budget @p budget. */
static void budget_run(struct tc_fixture *f, const struct gpucore_writer_opts *o, int late_note)
{
    const uint64_t seg = 5 * MiB / 4, base = 0x10000000, stride = 2 * MiB;
    uint8_t *data = malloc(8 * stride);
    struct gpucore_writer_stats stats;
    gpucore_writer_t *w = NULL;
    uint64_t captured = 0;
    int limited = 0;

    assert_non_null(data);
    tc_fill(data, 8 * stride, 77);
    assert_int_equal(gpucore_writer_open(f->path, o, &w, NULL), GPUCORE_OK);
    for (int i = 0; i < 8; i++) {
        gpucore_status_t st = gpucore_writer_add_segment(
                w, base + (uint64_t)i * stride, data + (uint64_t)i * stride, seg,
                GPUCORE_OPTS(gpucore_range_info, .label = "chunk"));

        if (st == GPUCORE_E_LIMIT)
            limited = 1;
        else
            assert_int_equal(st, GPUCORE_OK);
    }
    /* Once the budget is exhausted, later segments are refused and recorded. */
    assert_true(limited);
    if (late_note) {
        /* A large note added after the data: finish must cut data to make room. */
        uint8_t *big = calloc(1, 512 << 10);

        assert_non_null(big);
        tc_fill(big, 512 << 10, 5);
        assert_int_equal(gpucore_writer_add_note(w, "BIG", 1, big, 512 << 10), GPUCORE_OK);
        free(big);
    }
    assert_int_equal(gpucore_writer_get_stats(w, &stats), GPUCORE_OK);
    assert_true(stats.truncated);
    assert_int_equal(stats.truncation_reason, GPUCORE_REASON_BUDGET);
    assert_int_equal(gpucore_writer_finish(w, &stats, NULL), GPUCORE_OK);
    assert_true(file_size(f->path) <= o->max_bytes);
    assert_int_equal(stats.truncated, 1);

    /* Account for the data as the eight segments laid out at their addresses. */
    {
        uint8_t *flat = calloc(1, 8 * stride);

        assert_non_null(flat);
        for (int i = 0; i < 8; i++)
            memcpy(flat + (uint64_t)i * stride, data + (uint64_t)i * stride, seg);
        captured = check_accounting(f->path, base, flat, 8 * seg, GPUCORE_MANIFEST_TRUNCATED,
                                    GPUCORE_REASON_BUDGET);
        free(flat);
    }
    print_message("budget %llu: file %llu bytes, %llu data bytes kept\n",
                  (unsigned long long)o->max_bytes, (unsigned long long)file_size(f->path),
                  (unsigned long long)captured);
    /* Used well: at least half of the budget went to data. */
    assert_true(captured > o->max_bytes / 2);
    assert_int_equal(captured, stats.data_bytes);
    free(data);
}

static void test_budget_plain(void **state)
{
    budget_run(*state, GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB), 0);
}

static void test_budget_plain_late_note(void **state)
{
    budget_run(*state, GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB), 1);
}

static void test_budget_compressed(void **state)
{
    budget_run(*state,
               GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB, .compress = 1,
                            .frame_size = 64 << 10),
               0);
}

static void test_budget_compressed_late_note(void **state)
{
    budget_run(*state,
               GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB, .compress = 1,
                            .frame_size = 64 << 10),
               1);
}

static void test_budget_compressed_threads(void **state)
{
    budget_run(*state,
               GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB, .compress_level = 1,
                            .threads = 2),
               0);
    /* Small frames: the cut lands while many frames are in flight. */
    budget_run(*state,
               GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 3 * MiB, .compress_level = 1,
                            .threads = 3, .frame_size = 64 << 10, .flags = GPUCORE_WRITE_OVERWRITE),
               1);
}

/*
 * Budgets at the bottom: below GPUCORE_WRITER_MIN_BUDGET they are refused; at it, the head
 * fits and the data does not (a valid core, complete in its metadata, exactly within the
 * budget); below what the notes need, finish fails naming the bytes and publishes nothing.
 */
static void test_budget_tiny(void **state)
{
    struct tc_fixture *f = *state;
    static uint8_t data[8192];
    static uint8_t big_note[6000];
    gpucore_writer_t *w = NULL;
    gpucore_core_t *core = NULL;
    struct gpucore_core_info info;
    gpucore_manifest_t *m;
    gpucore_diag_t d;
    gpucore_status_t st;

    tc_fill(data, sizeof(data), 4); /* incompressible: it cannot fit */
    for (int compressed = 0; compressed < 2; compressed++) {
        assert_int_equal(gpucore_writer_open(f->path,
                                             GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 100,
                                                          .compress = (uint32_t)compressed),
                                             &w, &d),
                         GPUCORE_E_INVAL);
        assert_non_null(strstr(d.message, "4096 bytes"));
        assert_int_equal(gpucore_writer_open(f->path,
                                             GPUCORE_OPTS(gpucore_writer_opts,
                                                          .max_bytes = GPUCORE_WRITER_MIN_BUDGET,
                                                          .compress = (uint32_t)compressed,
                                                          .flags = GPUCORE_WRITE_OVERWRITE),
                                             &w, NULL),
                         GPUCORE_OK);
        assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, "abcd", 4), GPUCORE_OK);
        assert_int_equal(gpucore_writer_add_segment(w, 0x1000, data, sizeof(data), NULL),
                         GPUCORE_OK); /* accepted, then recorded as cut */
        /* Plain: the budget is known to be spent. Compressed: the bytes wait in the partial
         * frame (they might compress to nothing) and finish() cuts them. */
        st = gpucore_writer_add_segment(w, 0x9000, data, sizeof(data), NULL);
        assert_int_equal(st, compressed && st == GPUCORE_OK ? GPUCORE_OK : GPUCORE_E_LIMIT);
        assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
        assert_true(file_size(f->path) <= GPUCORE_WRITER_MIN_BUDGET);
        assert_int_equal(gpucore_core_open(f->path, NULL, &core, NULL), GPUCORE_OK);
        gpucore_core_get_info(core, &info);
        /* A plain head takes its whole page; a compressed one leaves room for a little. */
        assert_int_equal(info.load_count, compressed ? 1 : 0);
        assert_int_equal(info.note_count, 2);
        m = tc_manifest(core);
        assert_non_null(m);
        assert_int_equal(m->flags, GPUCORE_MANIFEST_TRUNCATED);
        assert_int_equal(manifest_bytes(m, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_BUDGET) +
                                 info.load_bytes,
                         2 * sizeof(data));
        gpucore_manifest_free(m);
        gpucore_core_close(core);

        /* Notes the budget cannot hold: E_LIMIT with the bytes needed, nothing published. */
        assert_int_equal(unlink(f->path), 0);
        tc_fill(big_note, sizeof(big_note), 5);
        assert_int_equal(gpucore_writer_open(f->path,
                                             GPUCORE_OPTS(gpucore_writer_opts,
                                                          .max_bytes = GPUCORE_WRITER_MIN_BUDGET,
                                                          .compress = (uint32_t)compressed),
                                             &w, NULL),
                         GPUCORE_OK);
        assert_int_equal(gpucore_writer_add_segment(w, 0x1000, data, sizeof(data), NULL),
                         GPUCORE_OK);
        assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, big_note, sizeof(big_note)),
                         GPUCORE_OK);
        assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_E_LIMIT);
        assert_non_null(strstr(d.message, "more than the size budget of 4096 bytes"));
        assert_int_equal(tc_dir_entries(f->dir), 0);
    }
}

/* writer_stop: the caller's own budget (a deadline) ends the capture. */
static void test_stop(void **state)
{
    struct tc_fixture *f = *state;
    uint8_t data[3][4096];
    gpucore_writer_t *w = NULL;
    struct gpucore_writer_stats stats;
    uint8_t flat[3 * 4096];

    for (int i = 0; i < 3; i++)
        tc_fill(data[i], sizeof(data[i]), (uint64_t)i + 10);
    memcpy(flat, data, sizeof(flat));
    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_stop(w, 0), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, data[0], 4096, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x2000, data[1], 4096, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_stop(w, GPUCORE_REASON_DEADLINE), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x3000, data[2], 4096, NULL), GPUCORE_E_LIMIT);
    assert_non_null(strstr(gpucore_writer_errmsg(w), "deadline"));
    /* Overlap is still a caller error, even after the stop. */
    assert_int_equal(gpucore_writer_add_segment(w, 0x3800, data[2], 16, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_finish(w, &stats, NULL), GPUCORE_OK);
    assert_int_equal(stats.truncation_reason, GPUCORE_REASON_DEADLINE);
    assert_int_equal(stats.data_bytes, 8192);
    assert_int_equal(stats.skipped_bytes, 4096);
    assert_int_equal(check_accounting(f->path, 0x1000, flat, sizeof(flat),
                                      GPUCORE_MANIFEST_TRUNCATED, GPUCORE_REASON_DEADLINE),
                     8192);
}

/* The caller's manifest flags (--redact, --no-host-memory) and a redacted range: recorded, the
 * withheld bytes unreadable from the core, TRUNCATED still the writer's own. */
static void test_manifest_flags(void **state)
{
    struct tc_fixture *f = *state;
    uint8_t data[2][4096], flat[2 * 4096];
    gpucore_writer_t *w = NULL;
    const uint32_t both = GPUCORE_MANIFEST_REDACTED | GPUCORE_MANIFEST_NO_HOST_MEMORY;

    for (int i = 0; i < 2; i++)
        tc_fill(data[i], sizeof(data[i]), (uint64_t)i + 20);
    memcpy(flat, data, sizeof(flat));
    assert_int_equal(gpucore_writer_open(f->path,
                                         GPUCORE_OPTS(gpucore_writer_opts,
                                                      .manifest_flags = GPUCORE_MANIFEST_TRUNCATED),
                                         &w, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_open(f->path,
                                         GPUCORE_OPTS(gpucore_writer_opts, .manifest_flags = 0x8),
                                         &w, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_open(f->path,
                                         GPUCORE_OPTS(gpucore_writer_opts, .manifest_flags = both),
                                         &w, NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, data[0], 4096, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_record_skip(w, 0x2000, 4096, NULL, GPUCORE_REASON_REDACTED),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
    assert_int_equal(check_accounting(f->path, 0x1000, flat, sizeof(flat), both, 0), 4096);
    {
        gpucore_core_t *core = NULL;
        gpucore_manifest_t *m;

        assert_int_equal(gpucore_core_open(f->path, NULL, &core, NULL), GPUCORE_OK);
        m = tc_manifest(core);
        assert_non_null(m);
        assert_int_equal(manifest_bytes(m, GPUCORE_RANGE_SKIPPED, GPUCORE_REASON_REDACTED), 4096);
        gpucore_manifest_free(m);
        gpucore_core_close(core);
    }
}

/* ============================================================================================ */
/* The read callback                                                                            */
/* ============================================================================================ */

struct source {
    uint64_t base;
    const uint8_t *data;
    struct {
        uint64_t lo, hi;
        int err;
    } bad[3];
    int nbad;
    uint64_t next;     /* addresses must increase */
    uint64_t max_size; /* largest request seen */
    int calls;
    int64_t fail_with; /* non-zero: return this on the second call */
};

static int64_t source_read(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                           uint64_t *ret_bad_size)
{
    struct source *s = user;
    uint64_t n = size;

    s->calls++;
    assert_true(addr >= s->next);
    if (size > s->max_size)
        s->max_size = size;
    if (s->fail_with && s->calls == 2)
        return s->fail_with;
    for (int i = 0; i < s->nbad; i++) {
        if (addr == s->bad[i].lo) { /* unreadable from the first byte asked for */
            *ret_errno = s->bad[i].err;
            *ret_bad_size = s->bad[i].hi - s->bad[i].lo;
            return 0;
        }
        if (addr > s->bad[i].lo && addr < s->bad[i].hi)
            fail_msg("read callback asked for 0x%llx inside an unreadable range",
                     (unsigned long long)addr);
        if (s->bad[i].lo > addr && s->bad[i].lo - addr < n) {
            n = s->bad[i].lo - addr;
            *ret_errno = s->bad[i].err;
            *ret_bad_size = s->bad[i].hi - s->bad[i].lo;
        }
    }
    memcpy(buf, s->data + (addr - s->base), n);
    s->next = addr + n;
    return (int64_t)n;
}

static void test_unreadable(void **state)
{
    struct tc_fixture *f = *state;
    const uint64_t base = 0x40000000, size = 3 * MiB;
    uint8_t *data = malloc(size);
    struct source src = { .base = base, .data = data, .nbad = 2 };
    gpucore_writer_t *w = NULL;
    gpucore_core_t *core = NULL;
    struct gpucore_core_info info;
    gpucore_manifest_t *m;
    uint32_t unreadable = 0;

    assert_non_null(data);
    tc_fill(data, size, 3);
    src.bad[0].lo = base + 0x3000;
    src.bad[0].hi = base + 0x5000;
    src.bad[0].err = EIO;
    /* Crosses the 1 MiB chunk boundary: the writer must skip it and resume after it. */
    src.bad[1].lo = base + 0x180000;
    src.bad[1].hi = base + 0x280000;
    src.bad[1].err = EFAULT;
    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment_fn(
                             w, base, size, GPUCORE_OPTS(gpucore_range_info, .label = "heap"),
                             source_read, &src),
                     GPUCORE_OK);
    assert_true(src.max_size <= MiB);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);

    assert_int_equal(check_accounting(f->path, base, data, size, 0, 0), size - 0x2000 - 0x100000);
    assert_int_equal(gpucore_core_open(f->path, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.load_count, 3); /* split around the two holes */
    m = tc_manifest(core);
    assert_non_null(m);
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];

        assert_string_equal(e->label.ptr, "heap");
        if (e->status != GPUCORE_RANGE_UNREADABLE)
            continue;
        assert_int_equal(e->reason, GPUCORE_REASON_IO_ERROR);
        assert_int_equal(e->address, src.bad[unreadable].lo);
        assert_int_equal(e->size, src.bad[unreadable].hi - src.bad[unreadable].lo);
        assert_int_equal(e->err, (uint32_t)src.bad[unreadable].err);
        unreadable++;
    }
    assert_int_equal(unreadable, 2);
    gpucore_manifest_free(m);
    gpucore_core_close(core);
    free(data);
}

/* The whole range unreadable from its first byte: no PT_LOAD, one manifest entry. */
static void test_unreadable_all(void **state)
{
    struct tc_fixture *f = *state;
    static uint8_t data[8192];
    struct source src = { .base = 0x1000, .data = data, .nbad = 1 };
    gpucore_writer_t *w = NULL;
    struct gpucore_writer_stats stats;

    src.bad[0].lo = 0x1000;
    src.bad[0].hi = 0x3000;
    src.bad[0].err = EIO;
    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment_fn(w, 0x1000, 0x2000, NULL, source_read, &src),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, &stats, NULL), GPUCORE_OK);
    assert_int_equal(stats.segments, 0);
    assert_int_equal(stats.skipped_bytes, 0x2000);
    assert_int_equal(check_accounting(f->path, 0x1000, data, 0x2000, 0, 0), 0);
}

/* A callback that aborts the segment fails the writer; nothing is published. */
static void test_callback_failure(void **state)
{
    struct tc_fixture *f = *state;
    static uint8_t data[3 << 20];
    struct source src = { .base = 0x1000, .data = data, .fail_with = GPUCORE_E_PERM };
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;

    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(
            gpucore_writer_add_segment_fn(w, 0x1000, sizeof(data), NULL, source_read, &src),
            GPUCORE_E_PERM);
    assert_non_null(strstr(gpucore_writer_errmsg(w), "read callback"));
    /* Only abort (or a failing finish) is left. */
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, "x", 1), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_E_INVAL);
    assert_non_null(strstr(d.message, "failed earlier"));
    assert_int_equal(tc_dir_entries(f->dir), 0);
}

/* A write error (here EFBIG from RLIMIT_FSIZE, as ENOSPC would be) fails the writer cleanly. */
static void test_write_error(void **state)
{
    struct tc_fixture *f = *state;
    uint8_t *data = malloc(4 * MiB);
    struct rlimit old, lim;
    gpucore_writer_t *w = NULL;
    gpucore_status_t st;

    assert_non_null(data);
    tc_fill(data, 4 * MiB, 1);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = MiB;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    st = gpucore_writer_add_segment(w, 0x1000, data, 4 * MiB, NULL);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(st, GPUCORE_E_IO);
    assert_non_null(strstr(gpucore_writer_errmsg(w), "File too large"));
    gpucore_writer_abort(w);
    assert_int_equal(tc_dir_entries(f->dir), 0);
    free(data);
}

/* Bad arguments are refused without failing the writer. */
static void test_bad_arguments(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    struct gpucore_range_info big = { .sz = sizeof(big) + 8 };
    uint8_t info_buf[sizeof(struct gpucore_range_info) + 8] = { 0 };
    struct gpucore_writer_stats stats;

    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "abcd", 4, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1003, "abcd", 4, NULL), GPUCORE_E_INVAL);
    assert_non_null(strstr(gpucore_writer_errmsg(w), "overlaps"));
    assert_int_equal(gpucore_writer_add_segment(w, 0xffc, "abcd", 5, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0xffc, "abcd", 4, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x2000, "abcd", 0, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, UINT64_MAX - 2, "abcd", 4, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0x2000, NULL, 4, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment_fn(w, 0x2000, 4, NULL, NULL, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0x2000, "abcd", 4,
                                                GPUCORE_OPTS(gpucore_range_info, .p_flags = 8)),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0x2000, "abcd", 4,
                                                GPUCORE_OPTS(gpucore_range_info, .tier = 99)),
                     GPUCORE_E_INVAL);
    /* sz rule: a larger struct is fine if the bytes we do not know are zero. */
    memcpy(info_buf, &big, sizeof(big));
    assert_int_equal(
            gpucore_writer_add_segment(w, 0x2000, "abcd", 4, (struct gpucore_range_info *)info_buf),
            GPUCORE_OK);
    info_buf[sizeof(big) + 3] = 1;
    assert_int_equal(
            gpucore_writer_add_segment(w, 0x3000, "abcd", 4, (struct gpucore_range_info *)info_buf),
            GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_segment(w, 0x3000, "abcd", 4,
                                                &(struct gpucore_range_info){ .sz = 4 }),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_note(w, "", 1, "x", 1), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_note(w, NULL, 1, "x", 1), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, NULL, 1), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, NULL, 0), GPUCORE_OK);
    assert_int_equal(gpucore_writer_record_skip(w, 0x5000, 0x1000, NULL, 99), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_record_skip(w, 0x5000, 0, NULL, GPUCORE_REASON_TIER),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_record_skip(w, 0x5000, 0x1000, NULL, GPUCORE_REASON_SPECIAL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_get_stats(w, &stats), GPUCORE_OK);
    assert_int_equal(stats.segments, 3);
    assert_int_equal(stats.notes, 1);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);

    assert_int_equal(gpucore_writer_add_note(NULL, "CORE", 1, "x", 1), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_stop(NULL, GPUCORE_REASON_DEADLINE), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_get_stats(NULL, &stats), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_finish(NULL, NULL, NULL), GPUCORE_E_INVAL);
    assert_string_equal(gpucore_writer_errmsg(NULL), "");
    gpucore_writer_abort(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_budget_plain, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_budget_plain_late_note, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_budget_compressed, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_budget_compressed_late_note, setup,
                                        tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_budget_compressed_threads, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_budget_tiny, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_stop, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_flags, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unreadable, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_all, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_callback_failure, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_write_error, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, tc_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
