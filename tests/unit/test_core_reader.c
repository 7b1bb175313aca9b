/* SPDX-License-Identifier: MIT */
/*
 * libcore reader: read semantics on hand-made images (cross-segment reads, zero tails,
 * unavailable ranges), tolerated quirks of other writers, and malformed inputs -- each with
 * its specific status and a message and offset naming the place.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include <gpucore/core.h>

#include "gc_le.h"
#include "test_core_util.h"

#define NO_OFFSET UINT64_MAX

/*
 * Open @p len bytes at @p buf and expect @p want; for failures, also that the diag carries the
 * same status, the offset @p off (or none), and a message containing @p text.
 */
static gpucore_core_t *expect(const void *buf, size_t len, const struct gpucore_open_opts *o,
                              gpucore_status_t want, uint64_t off, const char *text)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    gpucore_status_t st;

    memset(&d, 0, sizeof(d));
    st = gpucore_core_open_memory(buf, len, o, &core, &d);
    if (st != want)
        fail_msg("open: %s (%s), expected %s", gpucore_status_name(st), d.message,
                 gpucore_status_name(want));
    if (want == GPUCORE_OK)
        return core;
    assert_null(core);
    assert_int_equal(d.status, want);
    if (off == NO_OFFSET) {
        assert_false(d.flags & GPUCORE_DIAG_HAS_OFFSET);
    } else {
        assert_true(d.flags & GPUCORE_DIAG_HAS_OFFSET);
        if (d.offset != off)
            fail_msg("offset 0x%llx, expected 0x%llx (%s)", (unsigned long long)d.offset,
                     (unsigned long long)off, d.message);
    }
    if (text && !strstr(d.message, text))
        fail_msg("message \"%s\" lacks \"%s\"", d.message, text);
    return NULL;
}

static uint64_t ph_at(const struct tc_std *s, unsigned i)
{
    return s->phoff + 56u * i;
}

/* ============================================================================================ */
/* Valid images                                                                                 */
/* ============================================================================================ */

static void test_std_image(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    struct gpucore_core_info info;
    struct gpucore_segment seg;
    struct gpucore_note n;
    uint8_t buf[0x2000];
    uint64_t done;
    uint32_t idx = 0;

    (void)state;
    tc_std_build(&s);
    core = expect(s.im.buf, s.im.len, NULL, GPUCORE_OK, 0, NULL);
    assert_int_equal(gpucore_core_get_info(core, &info), GPUCORE_OK);
    assert_int_equal(info.phnum, 3);
    assert_int_equal(info.load_count, 2);
    assert_int_equal(info.note_count, 2);
    assert_int_equal(info.load_bytes, 0x180);
    assert_int_equal(info.load_memsz, 0x1100);
    assert_int_equal(info.logical_size, s.im.len);
    assert_int_equal(info.flags, 0);

    assert_int_equal(gpucore_core_note(core, 0, &n), GPUCORE_OK);
    assert_string_equal(n.owner, "CORE");
    assert_int_equal(n.offset, s.notes_off);
    assert_int_equal(gpucore_core_find_note(core, "GPUTEST", 7, &idx, &n), GPUCORE_OK);
    assert_int_equal(idx, 1);
    assert_int_equal(n.desc_size, 3);
    assert_memory_equal(n.desc, "abc", 3);
    idx = 2;
    assert_int_equal(gpucore_core_find_note(core, "GPUTEST", 7, &idx, &n), GPUCORE_E_NOTFOUND);
    assert_int_equal(gpucore_core_note(core, 2, &n), GPUCORE_E_INVAL);

    assert_int_equal(gpucore_core_segment(core, 1, &seg), GPUCORE_OK);
    assert_int_equal(seg.vaddr, 0x20000);
    assert_int_equal(gpucore_core_segment(core, 2, &seg), GPUCORE_E_INVAL);

    /* p_filesz < p_memsz: the tail reads as zeros. */
    memset(buf, 0xEE, sizeof(buf));
    assert_int_equal(gpucore_core_read(core, 0x20000, buf, 0x1000, &done), GPUCORE_OK);
    assert_int_equal(done, 0x1000);
    assert_memory_equal(buf, s.im.buf + s.load1_off, 0x80);
    for (int i = 0x80; i < 0x1000; i++)
        assert_int_equal(buf[i], 0);
    /* Past the end of the segment: the readable prefix, then unavailable. */
    assert_int_equal(gpucore_core_read(core, 0x20ff0, buf, 0x20, &done), GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 0x10);
    assert_non_null(strstr(gpucore_core_errmsg(core), "no segment"));
    assert_int_equal(gpucore_core_read(core, 0x0, buf, 1, NULL), GPUCORE_E_UNAVAILABLE);
    assert_int_equal(gpucore_core_read(core, UINT64_MAX - 1, buf, 4, &done), GPUCORE_E_UNAVAILABLE);
    assert_int_equal(gpucore_core_read(core, 0x10000, NULL, 1, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_core_read(core, 0x10000, NULL, 0, &done), GPUCORE_OK);
    assert_int_equal(done, 0);

    assert_int_equal(gpucore_core_read_file(core, 0, buf, 64), GPUCORE_OK);
    assert_memory_equal(buf, "\177ELF", 4);
    assert_int_equal(gpucore_core_read_file(core, s.im.len - 4, buf, 8), GPUCORE_E_INVAL);
    assert_non_null(strstr(gpucore_core_errmsg(core), "outside"));
    gpucore_core_close(core);
    gpucore_core_close(NULL);
    tc_std_free(&s);
}

/* A PT_LOAD with p_filesz 0 (how Linux marks mappings it did not dump) is unavailable. */
static void test_filesz_zero(void **state)
{
    struct tc_image im = { 0 };
    gpucore_core_t *core;
    uint8_t data[32], buf[64];
    uint64_t off, phoff, done;

    (void)state;
    tc_fill(data, sizeof(data), 1);
    tc_image_put(&im, NULL, 64);
    off = tc_image_put(&im, data, sizeof(data));
    phoff = tc_image_put(&im, NULL, 2 * 56);
    tc_image_ehdr(&im, EM_X86_64, phoff, 2);
    tc_image_phdr(&im, phoff,
                  &(struct tc_phdr){ .type = PT_LOAD,
                                     .flags = PF_R,
                                     .offset = off,
                                     .vaddr = 0x1000,
                                     .filesz = 32,
                                     .memsz = 32 });
    tc_image_phdr(
            &im, phoff + 56,
            &(struct tc_phdr){ .type = PT_LOAD, .flags = PF_R, .vaddr = 0x1020, .memsz = 0x1000 });
    core = expect(im.buf, im.len, NULL, GPUCORE_OK, 0, NULL);
    assert_int_equal(gpucore_core_read(core, 0x1010, buf, 0x20, &done), GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, 0x10);
    assert_memory_equal(buf, data + 0x10, 0x10);
    assert_non_null(strstr(gpucore_core_errmsg(core), "p_filesz 0"));
    gpucore_core_close(core);
    free(im.buf);
}

/* GNU-style notes in a PT_NOTE with p_align 8: names and descriptors padded to 8. */
static void test_notes_align8(void **state)
{
    struct tc_image im = { 0 };
    gpucore_core_t *core;
    struct gpucore_note n;
    uint8_t note[64] = { 0 };
    uint64_t off, phoff;

    (void)state;
    /* "GNU" note: 12-byte header, name at 12 (4 bytes), desc at 16 (8-aligned), 16 bytes. */
    gc_le32_put(note, 4);
    gc_le32_put(note + 4, 16);
    gc_le32_put(note + 8, NT_GNU_PROPERTY_TYPE_0);
    memcpy(note + 12, "GNU", 4);
    memset(note + 16, 0xAB, 16);
    /* Second note at 32: owner "ABCDE" (6 bytes, padded to 8 from 44 -> desc at 56). */
    gc_le32_put(note + 32, 6);
    gc_le32_put(note + 36, 4);
    gc_le32_put(note + 40, 9);
    memcpy(note + 44, "ABCDE", 6);
    memcpy(note + 56, "wxyz", 4);
    tc_image_put(&im, NULL, 64);
    off = tc_image_put(&im, note, 64);
    phoff = tc_image_put(&im, NULL, 56);
    tc_image_ehdr(&im, EM_X86_64, phoff, 1);
    tc_image_phdr(&im, phoff,
                  &(struct tc_phdr){ .type = PT_NOTE, .offset = off, .filesz = 64, .align = 8 });
    core = expect(im.buf, im.len, NULL, GPUCORE_OK, 0, NULL);
    assert_int_equal(gpucore_core_note_count(core), 2);
    assert_int_equal(gpucore_core_note(core, 0, &n), GPUCORE_OK);
    assert_string_equal(n.owner, "GNU");
    assert_int_equal(n.desc_size, 16);
    assert_int_equal(n.desc[0], 0xAB);
    assert_int_equal(gpucore_core_note(core, 1, &n), GPUCORE_OK);
    assert_string_equal(n.owner, "ABCDE");
    assert_int_equal(n.type, 9);
    assert_memory_equal(n.desc, "wxyz", 4);
    assert_int_equal(n.offset, off + 32);
    gpucore_core_close(core);
    free(im.buf);
}

/* What the ROCm runtime writes: accepted, each deviation reported once as a quirk. */
static void test_quirks(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    struct gpucore_core_info info;
    const char *want[] = { "p_align 0xc is not a power of two", "not congruent", "lack PF_R",
                           "EI_ABIVERSION 0" };

    (void)state;
    tc_std_build(&s);
    tc_image_ehdr(&s.im, EM_AMDGPU, s.phoff, 3);
    s.im.buf[EI_OSABI] = 64; /* ABI version stays 0, as ROCr writes it */
    tc_std_phdr(&s, 1,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = 3,
                                   .offset = s.load0_off,
                                   .vaddr = 0x10000,
                                   .filesz = 0x100,
                                   .memsz = 0x100,
                                   .align = 12 });
    tc_std_phdr(&s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = 3,
                                   .offset = s.load1_off,
                                   .vaddr = 0x20008,
                                   .filesz = 0x80,
                                   .memsz = 0x80,
                                   .align = 16 });
    core = expect(s.im.buf, s.im.len, NULL, GPUCORE_OK, 0, NULL);
    gpucore_core_get_info(core, &info);
    assert_true(info.flags & GPUCORE_INFO_QUIRKS);
    assert_int_equal(info.kind, GPUCORE_CORE_SPLIT);
    assert_int_equal(gpucore_core_quirk_count(core), 4);
    for (uint32_t i = 0; i < 4; i++) {
        int found = 0;

        for (uint32_t k = 0; k < 4; k++)
            found |= strstr(gpucore_core_quirk(core, k), want[i]) != NULL;
        if (!found)
            fail_msg("no quirk mentions \"%s\"", want[i]);
    }
    /* Both LOADs lack PF_R: reported once, with a count. */
    for (uint32_t k = 0; k < 4; k++)
        if (strstr(gpucore_core_quirk(core, k), "PF_R"))
            assert_non_null(strstr(gpucore_core_quirk(core, k), "2 program headers"));
    assert_null(gpucore_core_quirk(core, 4));
    gpucore_core_close(core);
    tc_std_free(&s);
}

/* A host core's flags are its mappings': the kernel writes the [vsyscall] page (`--xp`) as PF_X
   alone, with no data. Not a deviation, and nothing of the ROCm runtime's. */
static void test_host_exec_only_not_quirk(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    struct gpucore_core_info info;

    (void)state;
    tc_std_build(&s);
    tc_std_phdr(&s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = PF_X,
                                   .offset = s.load1_off,
                                   .vaddr = 0xffffffffff600000ull,
                                   .filesz = 0,
                                   .memsz = 0x1000,
                                   .align = 1 }); /* no alignment constraint */
    core = expect(s.im.buf, s.im.len, NULL, GPUCORE_OK, 0, NULL);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.kind, GPUCORE_CORE_UNIFIED);
    assert_false(info.flags & GPUCORE_INFO_QUIRKS);
    assert_int_equal(gpucore_core_quirk_count(core), 0);
    assert_null(gpucore_core_quirk(core, 0));
    gpucore_core_close(core);
    tc_std_free(&s);
}

static void test_open_args(void **state)
{
    struct tc_std s;
    gpucore_core_t *core = NULL;
    uint8_t big[sizeof(struct gpucore_open_opts) + 8] = { 0 };
    struct gpucore_open_opts *o = (struct gpucore_open_opts *)big;

    (void)state;
    tc_std_build(&s);
    expect(s.im.buf, s.im.len, &(struct gpucore_open_opts){ .sz = 1 }, GPUCORE_E_INVAL, NO_OFFSET,
           "sz");
    expect(s.im.buf, s.im.len, GPUCORE_OPTS(gpucore_open_opts, .flags = 0x10), GPUCORE_E_INVAL,
           NO_OFFSET, "flags");
    o->sz = sizeof(big);
    core = expect(s.im.buf, s.im.len, o, GPUCORE_OK, 0, NULL);
    gpucore_core_close(core);
    big[sizeof(big) - 1] = 1;
    expect(s.im.buf, s.im.len, o, GPUCORE_E_INVAL, NO_OFFSET, "byte");
    assert_int_equal(gpucore_core_open_memory(s.im.buf, s.im.len, NULL, NULL, NULL),
                     GPUCORE_E_INVAL);
    assert_int_equal(gpucore_core_open_memory(NULL, 10, NULL, &core, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_core_open(NULL, NULL, &core, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_core_open("/nonexistent/x.core", NULL, &core, NULL), GPUCORE_E_IO);
    assert_int_equal(gpucore_core_open("/", NULL, &core, NULL), GPUCORE_E_IO);
    tc_std_free(&s);
}

/* ============================================================================================ */
/* Malformed ELF                                                                                */
/* ============================================================================================ */

static void test_empty(void **state)
{
    char *dir = tc_mkdtemp("empty");
    char *path = tc_path(dir, "e.core");
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;

    (void)state;
    expect("", 0, NULL, GPUCORE_E_TRUNCATED, 0, "empty file");
    assert_int_equal(tc_write_file(path, "", 0), 0);
    assert_int_equal(gpucore_core_open(path, NULL, &core, &d), GPUCORE_E_TRUNCATED);
    assert_non_null(strstr(d.message, "empty file"));
    free(path);
    tc_rmdir(dir);
    free(dir);
}

static void test_short_header(void **state)
{
    struct tc_std s;

    (void)state;
    tc_std_build(&s);
    expect(s.im.buf, 32, NULL, GPUCORE_E_TRUNCATED, 0, "inside the ELF header");
    tc_std_free(&s);
}

static void test_bad_ident(void **state)
{
    static const struct {
        unsigned at;
        uint8_t value;
        const char *text;
    } cases[] = {
        { 1, 'X', "not an ELF file" },
        { EI_CLASS, ELFCLASS32, "ELFCLASS64" },
        { EI_DATA, ELFDATA2MSB, "little-endian" },
        { EI_VERSION, 0, "EV_CURRENT" },
    };

    (void)state;
    for (size_t i = 0; i < GC_TEST_ARRAY(cases); i++) {
        struct tc_std s;

        tc_std_build(&s);
        s.im.buf[cases[i].at] = cases[i].value;
        expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, cases[i].at == 1 ? 0 : cases[i].at,
               cases[i].text);
        tc_std_free(&s);
    }
}

static void test_bad_header_fields(void **state)
{
    static const struct {
        unsigned at;
        uint16_t value;
        const char *text;
    } cases[] = {
        { 16, ET_EXEC, "not ET_CORE" },
        { 52, 52, "e_ehsize 52" },
        { 54, 32, "e_phentsize 32" },
    };

    (void)state;
    for (size_t i = 0; i < GC_TEST_ARRAY(cases); i++) {
        struct tc_std s;

        tc_std_build(&s);
        gc_le16_put(s.im.buf + cases[i].at, cases[i].value);
        expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, cases[i].at, cases[i].text);
        tc_std_free(&s);
    }
}

static void test_phdrs_past_eof(void **state)
{
    struct tc_std s;

    (void)state;
    tc_std_build(&s);
    gc_le64_put(s.im.buf + 32, s.im.len - 100);
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, 32, "program header table");
    gc_le64_put(s.im.buf + 32, UINT64_MAX - 8); /* an offset that would wrap */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, 32, "runs past the end");
    tc_std_free(&s);
}

/* PN_XNUM: the count lives in section header 0, which must exist and be sane. */
static void test_pn_xnum(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    struct gpucore_core_info info;
    uint8_t sh[64] = { 0 };
    uint64_t shoff;

    (void)state;
    tc_std_build(&s);
    gc_le16_put(s.im.buf + 56, PN_XNUM);
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, 56, "no section header");

    gc_le32_put(sh + 44, 3); /* sh_info: the real count */
    shoff = tc_image_put(&s.im, sh, sizeof(sh));
    gc_le64_put(s.im.buf + 40, shoff);
    gc_le16_put(s.im.buf + 58, 64);
    gc_le16_put(s.im.buf + 60, 1);
    core = expect(s.im.buf, s.im.len, NULL, GPUCORE_OK, 0, NULL);
    gpucore_core_get_info(core, &info);
    assert_true(info.flags & GPUCORE_INFO_PN_XNUM);
    assert_int_equal(info.phnum, 3);
    gpucore_core_close(core);

    gc_le32_put(s.im.buf + shoff + 44, (1u << 20) + 1); /* absurd */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_LIMIT, shoff + 44, "program headers");
    gc_le32_put(s.im.buf + shoff + 44, 1u << 20); /* allowed, but the table is not there */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, 32, "program header table");
    gc_le16_put(s.im.buf + 58, 40);
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, 58, "e_shentsize");
    gc_le16_put(s.im.buf + 58, 64);
    gc_le64_put(s.im.buf + 40, s.im.len - 10);
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, 40, "section header 0");
    tc_std_free(&s);
}

static void test_load_past_eof(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    struct gpucore_core_info info;
    struct gpucore_segment seg;
    uint8_t buf[0x200];
    uint64_t done, keep;

    (void)state;
    tc_std_build(&s);
    keep = s.im.len - s.load1_off; /* data present after LOAD 1's start */
    tc_std_phdr(&s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = PF_R,
                                   .offset = s.load1_off,
                                   .vaddr = 0x20000,
                                   .filesz = 0x10000,
                                   .memsz = 0x10000 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, ph_at(&s, 2),
           "program header 2 (PT_LOAD) p_offset+p_filesz");

    core = expect(s.im.buf, s.im.len,
                  GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
                  GPUCORE_OK, 0, NULL);
    gpucore_core_get_info(core, &info);
    assert_true(info.flags & GPUCORE_INFO_FILE_TRUNCATED);
    assert_int_equal(gpucore_core_segment(core, 1, &seg), GPUCORE_OK);
    assert_int_equal(seg.filesz, keep);
    assert_int_equal(seg.memsz, keep); /* the lost bytes are not zeros: they are gone */
    assert_int_equal(gpucore_core_read(core, 0x20000, buf, 0x80, NULL), GPUCORE_OK);
    assert_memory_equal(buf, s.im.buf + s.load1_off, 0x80);
    assert_int_equal(gpucore_core_read(core, 0x20000, buf, sizeof(buf), &done),
                     GPUCORE_E_UNAVAILABLE);
    assert_int_equal(done, keep);
    gpucore_core_close(core);

    /* p_offset + p_filesz wrapping is corrupt, truncation allowed or not. */
    tc_std_phdr(&s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .offset = UINT64_MAX - 4,
                                   .vaddr = 0x20000,
                                   .filesz = 0x10,
                                   .memsz = 0x10 });
    expect(s.im.buf, s.im.len,
           GPUCORE_OPTS(gpucore_open_opts, .flags = GPUCORE_OPEN_ALLOW_TRUNCATED),
           GPUCORE_E_CORRUPT, ph_at(&s, 2), "wraps");
    tc_std_free(&s);
}

static void test_bad_loads(void **state)
{
    struct tc_std s;

    (void)state;
    tc_std_build(&s);
    tc_std_phdr(&s, 1,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .offset = s.load0_off,
                                   .vaddr = 0x10000,
                                   .filesz = 0x100,
                                   .memsz = 0x80 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, ph_at(&s, 1),
           "program header 1 (PT_LOAD) p_filesz 0x100 exceeds p_memsz 0x80");

    tc_std_phdr(&s, 1,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .offset = s.load0_off,
                                   .vaddr = UINT64_MAX - 0x10,
                                   .filesz = 0x100,
                                   .memsz = 0x100 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, ph_at(&s, 1), "wraps past 2^64");

    tc_std_phdr(&s, 1,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .offset = s.load0_off,
                                   .vaddr = 0x1ff80,
                                   .filesz = 0x100,
                                   .memsz = 0x100 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, ph_at(&s, 2),
           "program headers 1 and 2 (PT_LOAD) overlap");
    tc_std_free(&s);
}

static void test_bad_notes(void **state)
{
    struct tc_std s;
    uint64_t n0;

    (void)state;
    tc_std_build(&s);
    n0 = s.notes_off;
    gc_le32_put(s.im.buf + n0, 0x1000); /* namesz */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, n0, "namesz 4096 runs past");
    tc_std_free(&s);

    tc_std_build(&s);
    gc_le32_put(s.im.buf + n0 + 4, 0x1000); /* descsz */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, n0, "descsz 0x1000 runs past");
    gc_le32_put(s.im.buf + n0 + 4, UINT32_MAX);
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, n0, "descsz 0xffffffff");
    tc_std_free(&s);

    tc_std_build(&s);
    s.im.buf[n0 + 12 + 4] = 'S'; /* "CORES": namesz 5 without the NUL */
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, n0, "not NUL-terminated");
    tc_std_free(&s);

    /* Four stray bytes after the last note: not a note header. */
    tc_std_build(&s);
    tc_std_phdr(&s, 0,
                &(struct tc_phdr){ .type = PT_NOTE,
                                   .offset = s.notes_off,
                                   .filesz = s.notes_len + 4,
                                   .align = 4 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_CORRUPT, s.notes_off + s.notes_len,
           "a note header needs 12");
    /* The PT_NOTE itself past the end of the file. */
    tc_std_phdr(&s, 0,
                &(struct tc_phdr){
                        .type = PT_NOTE, .offset = s.notes_off, .filesz = s.im.len, .align = 4 });
    expect(s.im.buf, s.im.len, NULL, GPUCORE_E_TRUNCATED, ph_at(&s, 0),
           "program header 0 (PT_NOTE)");
    tc_std_free(&s);
}

/* ============================================================================================ */
/* Malformed compressed cores                                                                   */
/* ============================================================================================ */

struct zcore {
    char *dir;
    uint8_t *buf;
    size_t len;
    uint32_t nframes;
    uint64_t table; /* offset of the seek table's first entry */
};

/* A compressed core of 1 MiB of random data in 64 KiB frames (or @p frame_size). */
static void zcore_make(struct zcore *z, uint32_t frame_size)
{
    char *path;
    uint8_t *data = malloc(1 << 20);
    gpucore_writer_t *w = NULL;

    assert_non_null(data);
    memset(z, 0, sizeof(*z));
    z->dir = tc_mkdtemp("zcore");
    path = tc_path(z->dir, "z.zst");
    tc_fill(data, 1 << 20, 11);
    assert_int_equal(gpucore_writer_open(path,
                                         GPUCORE_OPTS(gpucore_writer_opts, .compress = 1,
                                                      .frame_size = frame_size,
                                                      .head_reserve = 1), /* one head frame */
                                         &w, NULL),
                     GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_note(w, "CORE", 1, "abcd", 4), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x100000, data, 1 << 20, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
    z->buf = tc_read_file(path, &z->len);
    assert_non_null(z->buf);
    z->nframes = gc_le32_get(z->buf + z->len - 9);
    z->table = z->len - 9 - 8ull * z->nframes;
    free(path);
    free(data);
}

static void zcore_free(struct zcore *z)
{
    tc_rmdir(z->dir);
    free(z->dir);
    free(z->buf);
}

/* Physical offset of frame @p k, from the seek table. */
static uint64_t zframe_off(const struct zcore *z, uint32_t k)
{
    uint64_t off = 0;

    for (uint32_t i = 0; i < k; i++)
        off += gc_le32_get(z->buf + z->table + 8ull * i);
    return off;
}

static void test_zstd_corrupt_frame(void **state)
{
    struct zcore z;
    gpucore_core_t *core;
    uint8_t buf[256];
    uint64_t f5 = 0;
    char want[64];

    (void)state;
    zcore_make(&z, 64 << 10);
    f5 = zframe_off(&z, 5);
    z.buf[f5 + 1000] ^= 0x40; /* inside frame 5's data: caught by its checksum */
    core = expect(z.buf, z.len, NULL, GPUCORE_OK, 0, NULL);
    /* Frame 5 holds logical [64 + 4 * 64 KiB, 64 + 5 * 64 KiB). */
    assert_int_equal(gpucore_core_read(core, 0x100000 + 0x10, buf, sizeof(buf), NULL), GPUCORE_OK);
    assert_int_equal(
            gpucore_core_read(core, 0x100000 + 4 * 0x10000 + 0x100, buf, sizeof(buf), NULL),
            GPUCORE_E_CORRUPT);
    snprintf(want, sizeof(want), "zstd frame 5 at offset 0x%llx", (unsigned long long)f5);
    if (!strstr(gpucore_core_errmsg(core), want))
        fail_msg("\"%s\" lacks \"%s\"", gpucore_core_errmsg(core), want);
    gpucore_core_close(core);
    zcore_free(&z);
}

static void test_zstd_bad_seek_table(void **state)
{
    struct zcore z;
    uint64_t start;

    (void)state;
    zcore_make(&z, 64 << 10);
    start = z.table - 8;

    z.buf[start] ^= 1; /* the skippable frame magic */
    expect(z.buf, z.len, NULL, GPUCORE_E_CORRUPT, start, "seek table");
    z.buf[start] ^= 1;

    /* Compressed sizes that stop short of the table, or run into it. */
    gc_le32_put(z.buf + z.table + 8 * 3, gc_le32_get(z.buf + z.table + 8 * 3) - 1);
    expect(z.buf, z.len, NULL, GPUCORE_E_CORRUPT, start, "add up to");
    gc_le32_put(z.buf + z.table + 8 * 3, gc_le32_get(z.buf + z.table + 8 * 3) + 2);
    expect(z.buf, z.len, NULL, GPUCORE_E_CORRUPT, z.table + 8ull * (z.nframes - 1),
           "bytes are left before the table");
    gc_le32_put(z.buf + z.table + 8 * 3, gc_le32_get(z.buf + z.table + 8 * 3) - 1);

    gc_le32_put(z.buf + z.len - 9, 0x7fffffff); /* frame count */
    expect(z.buf, z.len, NULL, GPUCORE_E_LIMIT, z.len - 9, "frames");
    gc_le32_put(z.buf + z.len - 9, z.nframes + 1000); /* plausible count, no such table */
    expect(z.buf, z.len, NULL, GPUCORE_E_CORRUPT, z.len - (8 + 8 * (z.nframes + 1000ull) + 9),
           "does not start with magic");
    gc_le32_put(z.buf + z.len - 9, z.nframes);

    z.buf[z.len - 5] = 0x04; /* reserved descriptor bit */
    expect(z.buf, z.len, NULL, GPUCORE_E_CORRUPT, z.len - 5, "reserved bits");
    z.buf[z.len - 5] = 0;

    /* Sizes add up but one frame is announced a byte short: caught when decoded. */
    {
        gpucore_core_t *core;
        uint8_t buf[64];
        uint64_t at3 = z.table + 8 * 3 + 4, at4 = z.table + 8 * 4 + 4;

        gc_le32_put(z.buf + at3, gc_le32_get(z.buf + at3) - 1);
        gc_le32_put(z.buf + at4, gc_le32_get(z.buf + at4) + 1);
        core = expect(z.buf, z.len, NULL, GPUCORE_OK, 0, NULL);
        assert_int_equal(
                gpucore_core_read(core, 0x100000 + 2 * 0x10000 + 8, buf, sizeof(buf), NULL),
                GPUCORE_E_CORRUPT);
        assert_non_null(strstr(gpucore_core_errmsg(core), "zstd frame 3"));
        gpucore_core_close(core);
    }
    zcore_free(&z);
}

static void test_zstd_frame_limit(void **state)
{
    struct zcore z;
    size_t stripped;

    (void)state;
    zcore_make(&z, 4 << 20); /* the whole logical file in one frame after the header */
    expect(z.buf, z.len, GPUCORE_OPTS(gpucore_open_opts, .max_frame_size = 64 << 10),
           GPUCORE_E_LIMIT, z.table + 8 + 4, "more than the limit");
    /* Without the seek table the frames are walked: the same limit applies. */
    stripped = (size_t)(z.table - 8);
    expect(z.buf, stripped, GPUCORE_OPTS(gpucore_open_opts, .max_frame_size = 64 << 10),
           GPUCORE_E_LIMIT, zframe_off(&z, 1), "more than the limit");
    zcore_free(&z);
}

static void test_zstd_no_seek_table(void **state)
{
    struct zcore z;
    gpucore_core_t *core;
    struct gpucore_core_info info;
    uint8_t buf[64];
    size_t stripped;

    (void)state;
    zcore_make(&z, 64 << 10);
    stripped = (size_t)(z.table - 8);
    core = expect(z.buf, stripped, NULL, GPUCORE_OK, 0, NULL);
    gpucore_core_get_info(core, &info);
    assert_int_equal(info.frame_count, z.nframes);
    assert_int_equal(gpucore_core_read(core, 0x100000 + 0xfff00, buf, sizeof(buf), NULL),
                     GPUCORE_OK);
    gpucore_core_close(core);
    /* Cut inside the last frame. */
    expect(z.buf, stripped - 10, NULL, GPUCORE_E_TRUNCATED, zframe_off(&z, z.nframes - 1),
           "ends inside a zstd frame");
    /* Garbage where a frame should start. */
    memset(z.buf + zframe_off(&z, 3), 'x', 4);
    expect(z.buf, stripped, NULL, GPUCORE_E_CORRUPT, zframe_off(&z, 3), "not a zstd frame");
    zcore_free(&z);
}

/* A zstd stream without content sizes (and no seek table) cannot be read at random. */
static void test_zstd_no_content_size(void **state)
{
    struct tc_std s;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_inBuffer in;
    ZSTD_outBuffer out;
    uint8_t dst[4096];

    (void)state;
    tc_std_build(&s);
    in = (ZSTD_inBuffer){ s.im.buf, s.im.len, 0 };
    out = (ZSTD_outBuffer){ dst, sizeof(dst), 0 };
    assert_non_null(cctx);
    /* Streamed with e_continue first, so the frame header cannot carry the size. */
    assert_false(ZSTD_isError(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue)));
    assert_int_equal(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end), 0);
    expect(dst, out.pos, NULL, GPUCORE_E_NOTSUP, 0, "gpucore decompress");
    ZSTD_freeCCtx(cctx);
    tc_std_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_std_image),
        cmocka_unit_test(test_filesz_zero),
        cmocka_unit_test(test_notes_align8),
        cmocka_unit_test(test_quirks),
        cmocka_unit_test(test_host_exec_only_not_quirk),
        cmocka_unit_test(test_open_args),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_short_header),
        cmocka_unit_test(test_bad_ident),
        cmocka_unit_test(test_bad_header_fields),
        cmocka_unit_test(test_phdrs_past_eof),
        cmocka_unit_test(test_pn_xnum),
        cmocka_unit_test(test_load_past_eof),
        cmocka_unit_test(test_bad_loads),
        cmocka_unit_test(test_bad_notes),
        cmocka_unit_test(test_zstd_corrupt_frame),
        cmocka_unit_test(test_zstd_bad_seek_table),
        cmocka_unit_test(test_zstd_frame_limit),
        cmocka_unit_test(test_zstd_no_seek_table),
        cmocka_unit_test(test_zstd_no_content_size),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
