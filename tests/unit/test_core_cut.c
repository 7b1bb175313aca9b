/* SPDX-License-Identifier: MIT */
/*
 * Cores that survive being cut, and budgets that are never exceeded (issue 10, items 11-12).
 *
 *  - a plain core cut at any offset after its notes opens (GPUCORE_OPEN_ALLOW_TRUNCATED) with
 *    every byte before the cut and is marked truncated; cut inside its head it opens with the
 *    complete notes or fails with a message, never crashes;
 *  - a compressed core is a sequence of zstd frames (each declaring its content size, at most
 *    64 MiB) and skippable frames, the seek table last, the head in its own first frames: the
 *    complete frames of any prefix decode, with zstd alone, to a plain core that opens cut;
 *  - a head that outgrows its reservation (notes added after the data) moves the data, holes
 *    and alignment intact;
 *  - a sweep of budgets, plain and compressed (inline and with threads), notes added before
 *    and after the data: the file never exceeds the budget, a compressed one comes within a
 *    few hundred bytes of it, and the manifest accounts for every byte.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_findFrameCompressedSize, ZSTD_getFrameContentSize */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include <gpucore/core.h>

#include "test_core_util.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

/* The model process: segments of mixed content, some pages zero. */
#define NSEGS 9
struct model {
    uint64_t vaddr[NSEGS];
    uint64_t size[NSEGS];
    uint8_t *data[NSEGS];
};

static void model_build(struct model *m)
{
    uint64_t rng = 77;

    for (int i = 0; i < NSEGS; i++) {
        uint64_t size = (1 + tc_rand(&rng) % 24) * 4096 + (i == 3 ? 123 : 0);

        m->vaddr[i] = 0x10000000ull + (uint64_t)i * 0x1000000 + (i == 5 ? 0x40 : 0);
        m->size[i] = size;
        m->data[i] = calloc(1, size);
        assert_non_null(m->data[i]);
        for (uint64_t p = 0; p < size; p += 4096) {
            uint64_t n = size - p < 4096 ? size - p : 4096;
            uint64_t kind = tc_rand(&rng) % 3;

            if (kind == 1)
                tc_fill(m->data[i] + p, (size_t)n, tc_rand(&rng)); /* random */
            else if (kind == 2)
                for (uint64_t k = 0; k < n; k++) /* patterned */
                    m->data[i][p + k] = (uint8_t)(k / 7 + i);
        }
    }
}

static void model_free(struct model *m)
{
    for (int i = 0; i < NSEGS; i++)
        free(m->data[i]);
}

static uint64_t model_bytes(const struct model *m)
{
    uint64_t sum = 0;

    for (int i = 0; i < NSEGS; i++)
        sum += m->size[i];
    return sum;
}

/*
 * Write the model: a note before the data, the segments, then @p late_note bytes of notes
 * after them (as capture does: registers are taken after the memory).
 */
static gpucore_status_t model_write(const struct model *m, const char *path,
                                    const struct gpucore_writer_opts *o, size_t late_note,
                                    struct gpucore_writer_stats *ret_stats, gpucore_diag_t *d)
{
    gpucore_writer_t *w = NULL;
    uint8_t *note = malloc(late_note ? late_note : 1);
    gpucore_status_t st;

    assert_non_null(note);
    assert_int_equal(gpucore_writer_open(path, o, &w, d), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, "early", 5), GPUCORE_OK);
    for (int i = 0; i < NSEGS; i++) {
        st = gpucore_writer_add_segment(
                w, m->vaddr[i], m->data[i], m->size[i],
                GPUCORE_OPTS(gpucore_range_info, .label = i % 2 ? "odd" : "even"));
        assert_true(st == GPUCORE_OK || st == GPUCORE_E_LIMIT);
    }
    if (late_note) {
        tc_fill(note, late_note, 9);
        assert_int_equal(gpucore_writer_add_note(w, "LATE", 2, note, late_note), GPUCORE_OK);
    }
    free(note);
    return gpucore_writer_finish(w, ret_stats, d);
}

/*
 * The core opens; every segment holds the model's bytes (a prefix of them when cut); the
 * manifest accounts for all model bytes. Returns the captured byte count.
 */
static uint64_t model_check(const struct model *m, gpucore_core_t *core, int manifest_whole)
{
    uint64_t captured = 0, accounted = 0;
    gpucore_manifest_t *man;

    for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
        struct gpucore_segment seg;
        uint8_t *buf;
        int found = 0;

        assert_int_equal(gpucore_core_segment(core, i, &seg), GPUCORE_OK);
        assert_int_equal(seg.offset % seg.align, seg.vaddr % seg.align); /* alignment kept */
        buf = malloc(seg.filesz ? seg.filesz : 1);
        assert_non_null(buf);
        assert_int_equal(gpucore_core_read(core, seg.vaddr, buf, seg.filesz, NULL), GPUCORE_OK);
        for (int k = 0; k < NSEGS; k++) {
            if (seg.vaddr >= m->vaddr[k] && seg.vaddr - m->vaddr[k] < m->size[k]) {
                assert_true(seg.vaddr - m->vaddr[k] + seg.filesz <= m->size[k]);
                assert_memory_equal(buf, m->data[k] + (seg.vaddr - m->vaddr[k]), seg.filesz);
                found = 1;
            }
        }
        assert_true(found);
        captured += seg.filesz;
        free(buf);
    }
    man = tc_manifest(core);
    assert_non_null(man);
    for (uint32_t i = 0; i < man->count; i++)
        accounted += man->entries[i].size;
    if (manifest_whole)
        assert_int_equal(accounted, model_bytes(m));
    gpucore_manifest_free(man);
    return captured;
}

static uint64_t file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* End of the PT_NOTE (the head's last structure) of an open core. */
static uint64_t notes_end(gpucore_core_t *core)
{
    uint32_t n = gpucore_core_note_count(core);
    struct gpucore_note note;

    assert_true(n > 0);
    assert_int_equal(gpucore_core_note(core, n - 1, &note), GPUCORE_OK);
    return note.offset + 12 + ((strlen(note.owner) + 1 + 3) & ~3ull) +
           ((note.desc_size + 3) & ~3ull);
}

/* Open @p img[0, cut) from memory, allowing truncation; check what it shows. */
static void open_cut(const struct model *m, const uint8_t *img, size_t cut, size_t whole,
                     uint64_t nend)
{
    gpucore_core_t *core = NULL;
    struct gpucore_core_info info;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    st = gpucore_core_open_memory(img, cut,
                                  GPUCORE_OPTS(gpucore_open_opts,
                                               .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                                  &core, &d);
    if (cut < nend) {
        /* Inside the head: the complete notes, or a clear refusal. */
        if (st != GPUCORE_OK) {
            assert_true(strlen(d.message) > 0);
            return;
        }
    } else if (st != GPUCORE_OK) {
        fail_msg("cut at %zu of %zu (notes end at %llu): %s", cut, whole,
                 (unsigned long long)nend, d.message);
    }
    assert_int_equal(gpucore_core_get_info(core, &info), GPUCORE_OK);
    if (cut < whole)
        assert_true(info.flags & GPUCORE_INFO_FILE_TRUNCATED);
    else
        assert_false(info.flags & GPUCORE_INFO_FILE_TRUNCATED);
    if (cut >= nend)
        model_check(m, core, cut == whole);
    gpucore_core_close(core);
}

/* ============================================================================================ */

static void test_cut_plain(void **state)
{
    char *dir = tc_mkdtemp("cutp");
    char *path = tc_path(dir, "p.core");
    gpucore_core_t *core = NULL;
    struct model m;
    uint8_t *img;
    size_t len;
    uint64_t nend, first_data = UINT64_MAX;

    (void)state;
    model_build(&m);
    assert_int_equal(model_write(&m, path, NULL, 3000, NULL, NULL), GPUCORE_OK);
    img = tc_read_file(path, &len);
    assert_non_null(img);
    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    nend = notes_end(core);
    for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
        struct gpucore_segment seg;

        gpucore_core_segment(core, i, &seg);
        if (seg.offset < first_data)
            first_data = seg.offset;
        /* Everything structural comes before any data. */
        assert_true(seg.offset >= nend);
    }
    gpucore_core_close(core);
    /* The head's notable offsets, then a stride through everything. */
    {
        const uint64_t at[] = { 0, 63, 64, 64 + 56, 64 + 56 * 3 + 1, nend - 1, nend, nend + 1,
                                first_data - 1, first_data, first_data + 1, first_data + 4096,
                                len / 2, len - 4097, len - 1, len };

        for (size_t i = 0; i < GC_TEST_ARRAY(at); i++)
            open_cut(&m, img, (size_t)at[i], len, nend);
        for (size_t cut = 0; cut < len; cut += 997)
            open_cut(&m, img, cut, len, nend);
    }
    free(img);
    model_free(&m);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

/*
 * Walk a compressed core by the contract: zstd frames with content sizes (<= 64 MiB) and
 * skippable frames; the last frame is the seek table. Decode every complete zstd frame before
 * @p cut into a plain image; *ret_len gets its length. Returns the number of zstd frames.
 */
static uint32_t decode_prefix(const uint8_t *file, size_t cut, int whole, uint8_t **ret,
                              size_t *ret_len, uint64_t *ret_first_frame)
{
    size_t at = 0, len = 0, cap = 0;
    uint8_t *out = NULL;
    uint32_t nz = 0, last_magic = 0;

    *ret_first_frame = 0;
    while (at < cut) {
        size_t fsz = ZSTD_findFrameCompressedSize(file + at, cut - at);
        uint32_t magic;

        if (ZSTD_isError(fsz)) {
            assert_false(whole); /* only the frame the cut went through is incomplete */
            break;
        }
        magic = (uint32_t)file[at] | (uint32_t)file[at + 1] << 8 | (uint32_t)file[at + 2] << 16 |
                (uint32_t)file[at + 3] << 24;
        last_magic = magic;
        if ((magic & 0xFFFFFFF0u) != 0x184D2A50u) {
            unsigned long long csize = ZSTD_getFrameContentSize(file + at, fsz);
            size_t r;

            assert_int_equal(magic, 0xFD2FB528u);
            assert_true(csize != ZSTD_CONTENTSIZE_UNKNOWN && csize != ZSTD_CONTENTSIZE_ERROR);
            assert_true(csize > 0 && csize <= 64 * MiB);
            if (len + csize > cap) {
                cap = (len + (size_t)csize) * 2;
                out = realloc(out, cap);
                assert_non_null(out);
            }
            r = ZSTD_decompress(out + len, (size_t)csize, file + at, fsz);
            assert_false(ZSTD_isError(r));
            assert_int_equal(r, csize);
            if (nz == 0)
                *ret_first_frame = csize;
            len += r;
            nz++;
        }
        at += fsz;
    }
    if (whole)
        assert_int_equal(last_magic, 0x184D2A5Eu); /* the seek table, last */
    *ret = out;
    *ret_len = len;
    return nz;
}

static void test_cut_compressed(void **state)
{
    static const struct {
        uint32_t threads;
        size_t late;
    } variants[] = { { 0, 3000 }, { 3, 200 * 1024 } };
    char *dir = tc_mkdtemp("cutz");
    char *path = tc_path(dir, "z.core"), *plain = tc_path(dir, "p.core");
    struct model m;

    (void)state;
    model_build(&m);
    for (size_t v = 0; v < GC_TEST_ARRAY(variants); v++) {
        gpucore_core_t *core = NULL;
        uint8_t *z, *img, *ref;
        size_t zlen, len, reflen;
        uint64_t nend, first, head = UINT64_MAX;

        unlink(path);
        unlink(plain);
        assert_int_equal(model_write(&m, path,
                                     GPUCORE_OPTS(gpucore_writer_opts, .compress = 1,
                                                  .frame_size = 64 << 10,
                                                  .threads = variants[v].threads),
                                     variants[v].late, NULL, NULL),
                         GPUCORE_OK);
        z = tc_read_file(path, &zlen);
        assert_non_null(z);
        /* The whole file: the frames decode to exactly the reader's logical image. */
        decode_prefix(z, zlen, 1, &img, &len, &first);
        assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
        assert_int_equal(gpucore_core_transcode(core, plain, NULL, NULL), GPUCORE_OK);
        nend = notes_end(core);
        for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
            struct gpucore_segment seg;

            gpucore_core_segment(core, i, &seg);
            head = seg.offset < head ? seg.offset : head;
        }
        gpucore_core_close(core);
        ref = tc_read_file(plain, &reflen);
        assert_non_null(ref);
        assert_int_equal(len, reflen);
        assert_memory_equal(img, ref, len);
        /* The head (up to the first segment's page) is in frames of its own, first. */
        head -= head % 4096;
        assert_true(nend <= head);
        assert_true(first <= head);
        {
            uint64_t covered = 0;

            for (size_t at = 0; at < zlen && covered < head;) {
                size_t fsz = ZSTD_findFrameCompressedSize(z + at, zlen - at);

                assert_false(ZSTD_isError(fsz));
                if (z[at] == 0x28) /* a zstd frame: 0xFD2FB528 little-endian */
                    covered += ZSTD_getFrameContentSize(z + at, fsz);
                at += fsz;
            }
            assert_int_equal(covered, head);
        }
        free(img);
        /* Cut anywhere: the complete frames give a plain core that opens cut. */
        for (size_t cut = 0; cut <= zlen; cut += zlen / 40 + 1) {
            size_t c = cut < zlen ? cut : zlen;

            decode_prefix(z, c, c == zlen, &img, &len, &first);
            if (len)
                open_cut(&m, img, len, reflen, nend);
            free(img);
        }
        free(ref);
        free(z);
    }
    model_free(&m);
    free(path);
    free(plain);
    tc_rmdir(dir);
    free(dir);
}

/* Notes far beyond the reservation, added after the data: the data moves, intact. */
static void test_head_outgrows(void **state)
{
    char *dir = tc_mkdtemp("outgrow");
    char *path = tc_path(dir, "o.core");
    struct model m;

    (void)state;
    model_build(&m);
    for (int compressed = 0; compressed < 2; compressed++) {
        gpucore_core_t *core = NULL;
        struct stat st;
        uint64_t nend, blocks_small;

        unlink(path);
        /* Reference: the same core with the late notes reserved for. */
        assert_int_equal(model_write(&m, path,
                                     GPUCORE_OPTS(gpucore_writer_opts,
                                                  .compress = (uint32_t)compressed,
                                                  .head_reserve = 300 * KiB),
                                     256 * KiB, NULL, NULL),
                         GPUCORE_OK);
        assert_int_equal(stat(path, &st), 0);
        blocks_small = (uint64_t)st.st_blocks;
        unlink(path);
        assert_int_equal(model_write(&m, path,
                                     GPUCORE_OPTS(gpucore_writer_opts,
                                                  .compress = (uint32_t)compressed,
                                                  .head_reserve = 1),
                                     256 * KiB, NULL, NULL),
                         GPUCORE_OK);
        assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
        nend = notes_end(core);
        assert_true(nend > 256 * KiB);
        for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
            struct gpucore_segment seg;

            gpucore_core_segment(core, i, &seg);
            assert_true(seg.offset >= nend);
        }
        assert_int_equal(model_check(&m, core, 1), model_bytes(&m));
        gpucore_core_close(core);
        /* Holes moved with the data: no more blocks than the core that reserved enough. */
        assert_int_equal(stat(path, &st), 0);
        if (!compressed)
            assert_true((uint64_t)st.st_blocks <= blocks_small + 8);

        /* Under a budget: the data is cut from the end first, then moved; never above it. */
        unlink(path);
        assert_int_equal(model_write(&m, path,
                                     GPUCORE_OPTS(gpucore_writer_opts,
                                                  .compress = (uint32_t)compressed,
                                                  .max_bytes = 200 * KiB),
                                     64 * KiB, NULL, NULL),
                         GPUCORE_OK);
        assert_true(file_size(path) <= 200 * KiB);
        assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
        nend = notes_end(core);
        assert_true(nend > 64 * KiB);
        for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
            struct gpucore_segment seg;

            gpucore_core_segment(core, i, &seg);
            assert_true(seg.offset >= nend);
        }
        assert_true(model_check(&m, core, 1) > 0);
        gpucore_core_close(core);
    }
    model_free(&m);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

/* ============================================================================================ */

static void sweep(const struct gpucore_writer_opts *base_opts, int compressed)
{
    char *dir = tc_mkdtemp("sweep");
    char *path = tc_path(dir, "s.core");
    struct model m;
    uint64_t full, under_max = 0;
    unsigned truncated = 0;

    model_build(&m);
    full = model_bytes(&m);
    for (uint64_t budget = GPUCORE_WRITER_MIN_BUDGET; budget < full + 64 * KiB;
         budget += budget / 5 + 1237) {
        /* Late notes of 6000 bytes: the smallest budgets cannot hold the head. */
        for (size_t late = 0; late <= 6000; late += 6000) {
            struct gpucore_writer_opts o = *base_opts;
            struct gpucore_writer_stats stats;
            gpucore_core_t *core = NULL;
            gpucore_diag_t d = { 0 };
            gpucore_status_t st;
            uint64_t size;

            o.max_bytes = budget;
            unlink(path);
            st = model_write(&m, path, &o, late, &stats, &d);
            if (st == GPUCORE_E_LIMIT) {
                /* Only when the notes alone exceed the budget. */
                assert_true(late && budget < 12 * KiB);
                assert_non_null(strstr(d.message, "more than the size budget"));
                assert_int_equal(tc_dir_entries(dir), 0);
                continue;
            }
            assert_int_equal(st, GPUCORE_OK);
            size = file_size(path);
            if (size > budget)
                fail_msg("budget %llu: the file has %llu bytes", (unsigned long long)budget,
                         (unsigned long long)size);
            assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
            model_check(&m, core, 1);
            gpucore_core_close(core);
            if (stats.truncated) {
                truncated++;
                /* Compressed: within a frame header, a prefix step and a manifest entry. */
                if (compressed && budget - size > under_max)
                    under_max = budget - size;
            }
        }
    }
    assert_true(truncated > 10);
    if (compressed)
        assert_true(under_max < 1024);
    print_message("%u truncated cores, largest gap under the budget %llu bytes\n", truncated,
                  (unsigned long long)under_max);
    model_free(&m);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

static void test_budget_sweep_plain(void **state)
{
    (void)state;
    sweep(GPUCORE_OPTS(gpucore_writer_opts, .flags = 0), 0);
}

static void test_budget_sweep_compressed(void **state)
{
    (void)state;
    sweep(GPUCORE_OPTS(gpucore_writer_opts, .compress = 1, .frame_size = 64 << 10), 1);
}

static void test_budget_sweep_compressed_threads(void **state)
{
    (void)state;
    sweep(GPUCORE_OPTS(gpucore_writer_opts, .compress = 1, .frame_size = 64 << 10, .threads = 3),
          1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_plain),
        cmocka_unit_test(test_cut_compressed),
        cmocka_unit_test(test_head_outgrows),
        cmocka_unit_test(test_budget_sweep_plain),
        cmocka_unit_test(test_budget_sweep_compressed),
        cmocka_unit_test(test_budget_sweep_compressed_threads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
