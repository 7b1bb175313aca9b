/* SPDX-License-Identifier: MIT */
/*
 * libcore writer: round trips through the reader (plain and zstd at several levels, threads and
 * frame sizes), the layout rules (p_align, p_offset, holes, PN_XNUM), libelf and the zstd CLI
 * as independent oracles, transcode, and the manifest the writer keeps.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
#include <gelf.h>
#include <libelf.h>

#include <gpucore/core.h>

#include "test_core_util.h"

/* ============================================================================================ */
/* A model of what a test writes                                                                */
/* ============================================================================================ */

struct mseg {
    uint64_t vaddr;
    uint64_t size;
    uint8_t *data;
    uint32_t flags;
    char label[32];
};

struct model {
    struct mseg *segs;
    size_t n;
};

static const struct {
    const char *owner;
    uint32_t type;
    const char *desc;
    uint32_t size;
} model_notes[] = {
    { "CORE", 1, "\x01\x02\x03\x04\x05\x06\x07\x08", 8 },
    { "X", 2, "", 0 },
    { "LONGOWNER", 3, "hello", 5 },
};

static void model_add(struct model *m, uint64_t vaddr, uint64_t size, uint64_t seed, int zeros)
{
    struct mseg *s;

    m->segs = realloc(m->segs, (m->n + 1) * sizeof(*m->segs));
    assert_non_null(m->segs);
    s = &m->segs[m->n++];
    memset(s, 0, sizeof(*s));
    s->vaddr = vaddr;
    s->size = size;
    s->data = malloc(size);
    assert_non_null(s->data);
    tc_fill(s->data, size, seed);
    if (zeros && size > 3 * 4096) /* keep a few bytes at each end, zeros in between */
        memset(s->data + 16, 0, size - 32);
    s->flags = seed % 3 == 0 ? (PF_R | PF_X) : seed % 3 == 1 ? PF_R : 0;
    snprintf(s->label, sizeof(s->label), "seg %llu", (unsigned long long)seed);
}

/*
 * The standard mixed model: @p count segments at varied alignments and sizes (some large enough
 * to span several 64 KiB frames, some mostly zero), plus three adjacent ones at 0x70000000 for
 * cross-segment reads.
 */
static void model_build(struct model *m, unsigned count, uint64_t max_size)
{
    static const uint64_t offs[] = { 0, 0x8, 0x3, 0x1000, 0x800, 0x11 };
    uint64_t st = 42;

    memset(m, 0, sizeof(*m));
    for (unsigned i = 0; i < count; i++) {
        uint64_t size = 1 + tc_rand(&st) % max_size;

        if (i % 17 == 0)
            size = 5 * max_size + 123;
        model_add(m, 0x100000ull * (i + 1) + offs[i % 6], size, i, i % 5 == 0);
    }
    model_add(m, 0x70000000, 0x3000, 1001, 0);
    model_add(m, 0x70003000, 0x2000, 1002, 0);
    model_add(m, 0x70005000, 0x10, 1003, 0);
}

static void model_free(struct model *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->segs[i].data);
    free(m->segs);
    memset(m, 0, sizeof(*m));
}

/* Write the model in a shuffled (but fixed) order, with the model's notes. */
static void model_write(const struct model *m, const char *path,
                        const struct gpucore_writer_opts *o)
{
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    size_t *order = malloc(m->n * sizeof(*order));
    uint64_t st = 7;

    assert_non_null(order);
    for (size_t i = 0; i < m->n; i++)
        order[i] = i;
    for (size_t i = m->n; i > 1; i--) {
        size_t j = (size_t)(tc_rand(&st) % i), t = order[i - 1];

        order[i - 1] = order[j];
        order[j] = t;
    }
    assert_int_equal(gpucore_writer_open(path, o, &w, &d), GPUCORE_OK);
    for (size_t i = 0; i < GC_TEST_ARRAY(model_notes); i++)
        assert_int_equal(gpucore_writer_add_note(w, model_notes[i].owner, model_notes[i].type,
                                                 model_notes[i].desc, model_notes[i].size),
                         GPUCORE_OK);
    for (size_t k = 0; k < m->n; k++) {
        const struct mseg *s = &m->segs[order[k]];

        if (gpucore_writer_add_segment(w, s->vaddr, s->data, s->size,
                                       GPUCORE_OPTS(gpucore_range_info, .tier = GPUCORE_TIER_ALL,
                                                    .p_flags = s->flags, .label = s->label)) !=
            GPUCORE_OK)
            fail_msg("add_segment 0x%llx: %s", (unsigned long long)s->vaddr,
                     gpucore_writer_errmsg(w));
    }
    if (gpucore_writer_finish(w, NULL, &d) != GPUCORE_OK)
        fail_msg("finish %s: %s", path, d.message);
    free(order);
}

/* The model segment at @p vaddr; there must be one. */
static const struct mseg *model_find(const struct model *m, uint64_t vaddr)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->segs[i].vaddr == vaddr)
            return &m->segs[i];
    print_error("no model segment at 0x%llx\n", (unsigned long long)vaddr);
    abort();
}

static uint64_t expected_align(uint64_t vaddr)
{
    uint64_t a = 1;

    while (a < 4096 && !(vaddr & a))
        a <<= 1;
    return vaddr == 0 ? 4096 : a;
}

/* Everything the reader says about a core written from @p m matches @p m. */
static void model_check(const struct model *m, const char *path, int compressed)
{
    gpucore_core_t *core = NULL;
    struct gpucore_core_info info;
    gpucore_manifest_t *man;
    gpucore_diag_t d;
    uint64_t done, prev_end = 0;
    uint8_t *buf;

    assert_int_equal(gpucore_core_open(path, NULL, &core, &d), GPUCORE_OK);
    assert_int_equal(gpucore_core_get_info(core, &info), GPUCORE_OK);
    assert_int_equal(!!(info.flags & GPUCORE_INFO_COMPRESSED), compressed);
    assert_int_equal(info.load_count, m->n);
    assert_int_equal(info.phnum, m->n + 1);
    assert_int_equal(info.note_count, GC_TEST_ARRAY(model_notes) + 1);
    assert_int_equal(info.kind, GPUCORE_CORE_UNIFIED);
    assert_int_equal(gpucore_core_quirk_count(core), 0);
    assert_int_equal(gpucore_core_segment_count(core), m->n);

    for (uint32_t i = 0; i < GC_TEST_ARRAY(model_notes); i++) {
        struct gpucore_note n;

        assert_int_equal(gpucore_core_note(core, i, &n), GPUCORE_OK);
        assert_string_equal(n.owner, model_notes[i].owner);
        assert_int_equal(n.type, model_notes[i].type);
        assert_int_equal(n.desc_size, model_notes[i].size);
        assert_memory_equal(n.desc, model_notes[i].desc, model_notes[i].size);
    }

    for (uint32_t i = 0; i < m->n; i++) {
        struct gpucore_segment s;
        const struct mseg *ms;

        assert_int_equal(gpucore_core_segment(core, i, &s), GPUCORE_OK);
        ms = model_find(m, s.vaddr);
        assert_non_null(ms);
        assert_true(s.vaddr >= prev_end); /* sorted, disjoint */
        prev_end = s.vaddr + s.memsz;
        assert_int_equal(s.filesz, ms->size);
        assert_int_equal(s.memsz, ms->size);
        assert_int_equal(s.flags, ms->flags ? ms->flags : (PF_R | PF_W));
        assert_int_equal(s.align, expected_align(s.vaddr));
        assert_int_equal(s.offset % s.align, 0);
        buf = malloc(ms->size);
        assert_non_null(buf);
        assert_int_equal(gpucore_core_read(core, s.vaddr, buf, ms->size, &done), GPUCORE_OK);
        assert_int_equal(done, ms->size);
        assert_memory_equal(buf, ms->data, ms->size);
        free(buf);
    }

    /* Across the three adjacent segments at 0x70000000, then into the gap after them. */
    buf = malloc(0x5010);
    assert_non_null(buf);
    assert_int_equal(gpucore_core_read(core, 0x70000000, buf, 0x5010, &done), GPUCORE_OK);
    assert_memory_equal(buf, model_find(m, 0x70000000)->data, 0x3000);
    assert_memory_equal(buf + 0x3000, model_find(m, 0x70003000)->data, 0x2000);
    assert_memory_equal(buf + 0x5000, model_find(m, 0x70005000)->data, 0x10);
    assert_int_equal(gpucore_core_read(core, 0x70005008, buf, 0x20, &done), GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 8);
    assert_non_null(strstr(gpucore_core_errmsg(core), "0x70005010"));
    free(buf);

    man = tc_manifest(core);
    assert_non_null(man);
    assert_int_equal(man->count, m->n);
    assert_int_equal(man->flags, 0);
    for (uint32_t i = 0; i < man->count; i++) {
        const struct mseg *ms = model_find(m, man->entries[i].address);

        assert_non_null(ms);
        assert_int_equal(man->entries[i].status, GPUCORE_RANGE_CAPTURED);
        assert_int_equal(man->entries[i].size, ms->size);
        assert_int_equal(man->entries[i].tier, GPUCORE_TIER_ALL);
        assert_string_equal(man->entries[i].label.ptr, ms->label);
        if (i)
            assert_true(man->entries[i - 1].address < man->entries[i].address);
    }
    gpucore_manifest_free(man);
    gpucore_core_close(core);
}

/* ============================================================================================ */
/* Oracles                                                                                      */
/* ============================================================================================ */

/* libelf agrees with our reader about program headers and notes of a plain core. */
static void libelf_check(const char *path)
{
    gpucore_core_t *core = NULL;
    struct gpucore_core_info info;
    size_t phnum, nnotes = 0, nloads = 0;
    GElf_Ehdr eh;
    Elf *elf;
    int fd;

    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    assert_non_null(elf);
    assert_int_equal(elf_kind(elf), ELF_K_ELF);
    assert_non_null(gelf_getehdr(elf, &eh));
    assert_int_equal(eh.e_type, ET_CORE);
    assert_int_equal(eh.e_machine, info.e_machine);
    assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
    assert_int_equal(phnum, info.phnum);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;

        assert_non_null(gelf_getphdr(elf, (int)i, &ph));
        if (ph.p_type == PT_LOAD) {
            struct gpucore_segment s;

            /* The writer sorts PT_LOADs by address after the single PT_NOTE. */
            assert_int_equal(i, nloads + 1);
            assert_int_equal(gpucore_core_segment(core, (uint32_t)nloads, &s), GPUCORE_OK);
            assert_int_equal(ph.p_vaddr, s.vaddr);
            assert_int_equal(ph.p_filesz, s.filesz);
            assert_int_equal(ph.p_memsz, s.memsz);
            assert_int_equal(ph.p_offset, s.offset);
            assert_int_equal(ph.p_align, s.align);
            assert_int_equal(ph.p_paddr, 0);
            nloads++;
        } else if (ph.p_type == PT_NOTE) {
            Elf_Data *data =
                    elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
            size_t off = 0, name_off, desc_off;
            GElf_Nhdr nh;

            assert_int_equal(i, 0);
            assert_int_equal(ph.p_align, 4);
            assert_non_null(data);
            while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
                struct gpucore_note n;

                assert_int_equal(gpucore_core_note(core, (uint32_t)nnotes, &n), GPUCORE_OK);
                assert_string_equal((const char *)data->d_buf + name_off, n.owner);
                assert_int_equal(nh.n_type, n.type);
                assert_int_equal(nh.n_descsz, n.desc_size);
                assert_memory_equal((const char *)data->d_buf + desc_off, n.desc, n.desc_size);
                nnotes++;
            }
        }
    }
    assert_int_equal(nloads, info.load_count);
    assert_int_equal(nnotes, info.note_count);
    elf_end(elf);
    close(fd);
    gpucore_core_close(core);
}

/* `zstd -d -c compressed` gives exactly @p plain. Returns 0 if it did, 1 if zstd is missing. */
static int zstd_cli_check(const char *compressed, const char *plain, const char *dir)
{
    const char *zstd = tc_zstd_cli();
    char *out = tc_path(dir, "zstd-d.out");
    char cmd[4096];
    uint8_t *a, *b;
    size_t na, nb;

    if (!zstd) {
        print_message("zstd program not found: skipping the zstd -d check\n");
        free(out);
        return 1;
    }
    snprintf(cmd, sizeof(cmd), "'%s' -q -d -c '%s' > '%s'", zstd, compressed, out);
    assert_int_equal(system(cmd), 0);
    a = tc_read_file(out, &na);
    b = tc_read_file(plain, &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
    unlink(out);
    free(out);
    return 0;
}

static void files_equal(const char *x, const char *y)
{
    uint8_t *a, *b;
    size_t na, nb;

    a = tc_read_file(x, &na);
    b = tc_read_file(y, &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
}

/* ============================================================================================ */
/* Round trips                                                                                  */
/* ============================================================================================ */

struct variant {
    const char *name;
    int32_t level;
    uint32_t threads;
    uint32_t frame_size;
};

/* Plain reference plus each compressed variant; every file checked against the model. */
static void roundtrip(const struct variant *v, size_t nv, unsigned count, uint64_t max_size)
{
    char *dir = tc_mkdtemp("roundtrip");
    char *plain = tc_path(dir, "plain.core");
    struct model m;

    model_build(&m, count, max_size);
    model_write(&m, plain, GPUCORE_OPTS(gpucore_writer_opts, .e_machine = 0));
    model_check(&m, plain, 0);
    libelf_check(plain);
    for (size_t i = 0; i < nv; i++) {
        char *z = tc_path(dir, v[i].name);

        model_write(&m, z,
                    GPUCORE_OPTS(gpucore_writer_opts, .compress = 1, .compress_level = v[i].level,
                                 .threads = v[i].threads, .frame_size = v[i].frame_size));
        model_check(&m, z, 1);
        zstd_cli_check(z, plain, dir);
        if (v[i].threads > 1) {
            /* Worker threads change nothing in the output. */
            char *single = tc_path(dir, "single.zst");

            model_write(&m, single,
                        GPUCORE_OPTS(gpucore_writer_opts, .compress_level = v[i].level,
                                     .frame_size = v[i].frame_size));
            files_equal(z, single);
            unlink(single);
            free(single);
        }
        free(z);
    }
    model_free(&m);
    free(plain);
    tc_rmdir(dir);
    free(dir);
}

static void test_roundtrip_plain_and_levels(void **state)
{
    static const struct variant v[] = {
        { "l1.zst", 1, 0, 0 },
        { "l3.zst", 3, 0, 0 },
        { "lm5.zst", -5, 0, 0 },
        { "f64k.zst", 3, 0, 64 << 10 },
        { "f4m.zst", 3, 0, 4 << 20 },
        { "t2.zst", 3, 2, 0 },
        { "t3f64k.zst", 1, 3, 64 << 10 },
    };

    (void)state;
    roundtrip(v, GC_TEST_ARRAY(v), 120, 40 << 10);
}

static void test_roundtrip_level19(void **state)
{
    static const struct variant v[] = { { "l19.zst", 19, 0, 64 << 10 } };

    (void)state;
    /* Level 19 is slow; a smaller model still spans several frames. */
    roundtrip(v, GC_TEST_ARRAY(v), 24, 8 << 10);
}

/* The compressed core really is a sequence of frames plus a seek table with the sizes. */
static void test_compressed_layout(void **state)
{
    char *dir = tc_mkdtemp("zlayout");
    char *z = tc_path(dir, "c.zst");
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    struct model m;
    uint8_t *file;
    size_t size;

    (void)state;
    model_build(&m, 30, 20 << 10);
    model_write(&m, z, GPUCORE_OPTS(gpucore_writer_opts, .compress = 1, .frame_size = 64 << 10));
    file = tc_read_file(z, &size);
    assert_non_null(file);
    /* Frame 0 magic at 0; seekable footer at the end. */
    assert_int_equal(file[0] | file[1] << 8 | file[2] << 16 | (uint32_t)file[3] << 24, 0xFD2FB528u);
    assert_int_equal(file[size - 4] | file[size - 3] << 8 | file[size - 2] << 16 |
                             (uint32_t)file[size - 1] << 24,
                     0x8F92EAB1u);
    assert_int_equal(gpucore_core_open(z, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.file_size, size);
    /* The head (everything before the first segment's page) in frames of its own, then the
     * data in 64 KiB frames. */
    {
        uint64_t head = info.logical_size, f = 64 << 10;
        struct gpucore_segment seg;

        for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++) {
            assert_int_equal(gpucore_core_segment(core, i, &seg), GPUCORE_OK);
            if (seg.offset < head)
                head = seg.offset;
        }
        head -= head % 4096;
        assert_int_equal(info.frame_count,
                         (head + f - 1) / f + (info.logical_size - head + f - 1) / f);
    }
    gpucore_core_close(core);
    free(file);
    model_free(&m);
    free(z);
    tc_rmdir(dir);
    free(dir);
}

/* ============================================================================================ */
/* Layout rules                                                                                 */
/* ============================================================================================ */

static void test_sparse_holes(void **state)
{
    char *dir = tc_mkdtemp("sparse");
    char *path = tc_path(dir, "s.core");
    const uint64_t size = 16 << 20;
    uint8_t *data = calloc(1, size), *back = malloc(size);
    gpucore_writer_t *w = NULL;
    struct gpucore_writer_stats stats;
    gpucore_core_t *core = NULL;
    struct stat st;

    (void)state;
    assert_non_null(data);
    assert_non_null(back);
    tc_fill(data, 4096, 1);
    tc_fill(data + size - 100, 100, 2);
    tc_fill(data + 5 * 4096 + 7, 10, 3);
    assert_int_equal(gpucore_writer_open(path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x10000000, data, size, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, &stats, NULL), GPUCORE_OK);
    assert_int_equal(stat(path, &st), 0);
    assert_true((uint64_t)st.st_size > size);
    /* Three data pages, the header page and the metadata: far below 1 MiB allocated. */
    assert_true((uint64_t)st.st_blocks * 512 < (1 << 20));
    assert_true(stats.file_bytes < (1 << 20));
    assert_int_equal(stats.logical_bytes, (uint64_t)st.st_size);
    assert_int_equal(stats.data_bytes, size);
    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_core_read(core, 0x10000000, back, size, NULL), GPUCORE_OK);
    assert_memory_equal(back, data, size);
    gpucore_core_close(core);
    free(data);
    free(back);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

static void test_align_and_offsets(void **state)
{
    static const uint64_t addrs[] = { 0x1000,     0x10008,    0x20003,   0,
                                      0x30000000, 0x40000040, 0x50000002 };
    static const uint64_t aligns[] = { 4096, 8, 1, 4096, 4096, 64, 2 };
    char *dir = tc_mkdtemp("align");
    char *path = tc_path(dir, "a.core");
    gpucore_writer_t *w = NULL;
    uint8_t data[100];
    GElf_Phdr ph;
    size_t phnum;
    Elf *elf;
    int fd;

    (void)state;
    tc_fill(data, sizeof(data), 9);
    assert_int_equal(gpucore_writer_open(path, NULL, &w, NULL), GPUCORE_OK);
    for (size_t i = 0; i < GC_TEST_ARRAY(addrs); i++)
        assert_int_equal(gpucore_writer_add_segment(w, addrs[i], data, sizeof(data), NULL),
                         GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);

    elf_version(EV_CURRENT);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(elf);
    assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
    assert_int_equal(phnum, GC_TEST_ARRAY(addrs) + 1);
    for (size_t i = 1; i < phnum; i++) {
        size_t k;

        assert_non_null(gelf_getphdr(elf, (int)i, &ph));
        assert_int_equal(ph.p_type, PT_LOAD);
        if (i > 1) { /* sorted by address */
            GElf_Phdr prev;

            gelf_getphdr(elf, (int)i - 1, &prev);
            assert_true(prev.p_vaddr < ph.p_vaddr);
        }
        for (k = 0; addrs[k] != ph.p_vaddr; k++)
            ;
        assert_int_equal(ph.p_align, aligns[k]);
        assert_int_equal(ph.p_offset % ph.p_align, 0);
        assert_int_equal(ph.p_flags, PF_R | PF_W);
        assert_int_equal(ph.p_memsz, ph.p_filesz);
    }
    elf_end(elf);
    close(fd);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

static void test_pn_xnum(void **state)
{
    const uint32_t n = 70000;
    const uint64_t base = 0x200000000ull;
    char *dir = tc_mkdtemp("xnum");
    char *path = tc_path(dir, "x.core");
    uint8_t page[4096], back[8192];
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    gpucore_writer_t *w = NULL;
    size_t phnum;
    GElf_Ehdr eh;
    Elf *elf;
    int fd;

    (void)state;
    assert_int_equal(gpucore_writer_open(path, NULL, &w, NULL), GPUCORE_OK);
    for (uint32_t i = 0; i < n; i++) {
        /* Mostly zero pages (holes); every 100th carries its index. */
        memset(page, 0, sizeof(page));
        if (i % 100 == 0)
            memcpy(page, &i, sizeof(i));
        assert_int_equal(
                gpucore_writer_add_segment(w, base + (uint64_t)i * 4096, page, sizeof(page), NULL),
                GPUCORE_OK);
    }
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);

    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.phnum, n + 1);
    assert_int_equal(info.load_count, n);
    assert_true(info.flags & GPUCORE_INFO_PN_XNUM);
    /* Across a segment boundary: the tail of page 99 and the head of page 100. */
    assert_int_equal(gpucore_core_read(core, base + 100 * 4096 - 4096, back, 8192, NULL),
                     GPUCORE_OK);
    assert_int_equal(back[4096], 100);
    assert_int_equal(back[4097], 0);
    assert_int_equal(gpucore_core_read(core, base + 69900ull * 4096, back, 4, NULL), GPUCORE_OK);
    assert_int_equal(back[0] | back[1] << 8 | back[2] << 16, 69900);
    gpucore_core_close(core);

    elf_version(EV_CURRENT);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    assert_non_null(elf);
    assert_non_null(gelf_getehdr(elf, &eh));
    assert_int_equal(eh.e_phnum, PN_XNUM);
    assert_int_equal(eh.e_shnum, 1);
    assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
    assert_int_equal(phnum, n + 1);
    elf_end(elf);
    close(fd);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

static void test_header_kinds(void **state)
{
    char *dir = tc_mkdtemp("kinds");
    char *path = tc_path(dir, "k.core");
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    gpucore_writer_t *w = NULL;

    (void)state;
    assert_int_equal(
            gpucore_writer_open(path, GPUCORE_OPTS(gpucore_writer_opts, .kind = GPUCORE_CORE_SPLIT),
                                &w, NULL),
            GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "abcd", 4, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.kind, GPUCORE_CORE_SPLIT);
    assert_int_equal(info.e_machine, EM_AMDGPU);
    assert_int_equal(info.osabi, 64);
    assert_int_equal(info.abiversion, 3);
    assert_int_equal(gpucore_core_quirk_count(core), 0);
    gpucore_core_close(core);

    assert_int_equal(gpucore_writer_open(path,
                                         GPUCORE_OPTS(gpucore_writer_opts, .e_machine = EM_AARCH64,
                                                      .flags = GPUCORE_WRITE_OVERWRITE |
                                                               GPUCORE_WRITE_NO_MANIFEST),
                                         &w, NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_core_open(path, NULL, &core, NULL), GPUCORE_OK);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.kind, GPUCORE_CORE_UNIFIED);
    assert_int_equal(info.e_machine, EM_AARCH64);
    assert_int_equal(info.osabi, ELFOSABI_SYSV);
    /* No notes, no segments: no program headers at all. */
    assert_int_equal(info.phnum, 0);
    assert_int_equal(info.note_count, 0);
    gpucore_core_close(core);
    free(path);
    tc_rmdir(dir);
    free(dir);
}

/* ============================================================================================ */
/* Transcode                                                                                    */
/* ============================================================================================ */

static void test_transcode(void **state)
{
    char *dir = tc_mkdtemp("transcode");
    char *plain = tc_path(dir, "p.core"), *z = tc_path(dir, "z.zst");
    char *tz = tc_path(dir, "tz.zst"), *tp = tc_path(dir, "tp.core");
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    struct model m;
    struct stat a, b;

    (void)state;
    model_build(&m, 40, 30 << 10);
    model_write(&m, plain, NULL);
    model_write(&m, z, GPUCORE_OPTS(gpucore_writer_opts, .compress = 1));

    /* plain -> compressed is byte for byte what the writer compresses. */
    assert_int_equal(gpucore_core_open(plain, NULL, &core, NULL), GPUCORE_OK);
    assert_int_equal(
            gpucore_core_transcode(core, tz, GPUCORE_OPTS(gpucore_writer_opts, .compress = 1), &d),
            GPUCORE_OK);
    /* Refuses to overwrite, and refuses writer-only options. */
    assert_int_equal(gpucore_core_transcode(core, tz, NULL, &d), GPUCORE_E_EXIST);
    assert_int_equal(gpucore_core_transcode(core, tp,
                                            GPUCORE_OPTS(gpucore_writer_opts, .max_bytes = 10), &d),
                     GPUCORE_E_INVAL);
    gpucore_core_close(core);
    files_equal(tz, z);

    /* compressed -> plain restores the plain core, holes included. */
    assert_int_equal(gpucore_core_open(z, NULL, &core, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_core_transcode(core, tp, NULL, &d), GPUCORE_OK);
    gpucore_core_close(core);
    files_equal(tp, plain);
    assert_int_equal(stat(plain, &a), 0);
    assert_int_equal(stat(tp, &b), 0);
    assert_int_equal(a.st_blocks, b.st_blocks);
    model_check(&m, tp, 0);

    model_free(&m);
    free(plain);
    free(z);
    free(tz);
    free(tp);
    tc_rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_plain_and_levels),
        cmocka_unit_test(test_roundtrip_level19),
        cmocka_unit_test(test_compressed_layout),
        cmocka_unit_test(test_sparse_holes),
        cmocka_unit_test(test_align_and_offsets),
        cmocka_unit_test(test_pn_xnum),
        cmocka_unit_test(test_header_kinds),
        cmocka_unit_test(test_transcode),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
