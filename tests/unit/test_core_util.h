/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libcore unit tests: scratch directories, deterministic data, whole-file
 * reads, and a tiny builder of hand-made ELF core images for the malformed-input tests.
 */
#ifndef TEST_CORE_UTIL_H
#define TEST_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/core.h>

#define GC_TEST_ARRAY(a) (sizeof(a) / sizeof((a)[0]))

/* A fresh empty directory under $GPUCORE_TEST_TMPDIR (or /tmp); the caller frees the string. */
char *tc_mkdtemp(const char *tag);
/* Remove a directory and the files in it (one level, which is all the tests create). */
void tc_rmdir(const char *dir);
/* Number of entries in @p dir besides "." and "..". */
int tc_dir_entries(const char *dir);
/* "dir/name", malloc'ed. */
char *tc_path(const char *dir, const char *name);

/*
 * Per-test fixture: a fresh scratch directory and the path of one core file in it.
 * tc_fixture_new() is meant for a cmocka setup function; tc_fixture_teardown() is one.
 */
struct tc_fixture {
    char *dir;
    char *path;
};
int tc_fixture_new(void **state, const char *tag, const char *file);
int tc_fixture_teardown(void **state);

/* Deterministic, poorly compressible bytes. */
void tc_fill(void *buf, size_t n, uint64_t seed);
uint64_t tc_rand(uint64_t *state);

/* Whole file into memory (NULL on error); *ret_size gets its size. */
uint8_t *tc_read_file(const char *path, size_t *ret_size);
int tc_write_file(const char *path, const void *data, size_t size);

/* The manifest of a core (NULL if there is none); free with gpucore_manifest_free. */
gpucore_manifest_t *tc_manifest(gpucore_core_t *core);

/* The path of the zstd program, or NULL if there is none. */
const char *tc_zstd_cli(void);

/*
 * A hand-made ELF64 core image: header, program header table, PT_NOTE data and PT_LOAD data,
 * each placed by the test. Fields are plain values; tc_image_encode() lays them out.
 */
struct tc_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct tc_image {
    uint8_t *buf;
    size_t len;
};

/* Append @p n bytes (may be NULL: zeros) and return their offset. */
uint64_t tc_image_put(struct tc_image *im, const void *p, size_t n);
/* Write an ELF header at 0 (the image must be >= 64 bytes) for @p phnum headers at @p phoff. */
void tc_image_ehdr(struct tc_image *im, uint16_t machine, uint64_t phoff, uint16_t phnum);
void tc_image_phdr(struct tc_image *im, uint64_t at, const struct tc_phdr *ph);
/* Append one note, 4-byte padded; returns its offset. */
uint64_t tc_image_note(struct tc_image *im, const char *owner, uint32_t type, const void *desc,
                       uint32_t size);

/*
 * The standard small valid image most malformed tests start from:
 *   [ehdr][note "CORE"/1, 8-byte desc][note "GPUTEST"/7, 3-byte desc][load 0 data 0x100]
 *   [load 1 data 0x80][phdrs: NOTE, LOAD 0x10000 (0x100/0x100), LOAD 0x20000 (0x80/0x1000)]
 * tc_std_* are the offsets of its parts.
 */
struct tc_std {
    struct tc_image im;
    uint64_t notes_off, notes_len;
    uint64_t load0_off, load1_off;
    uint64_t phoff; /* phdr 0 = NOTE, 1 = LOAD 0, 2 = LOAD 1 */
};
void tc_std_build(struct tc_std *s);
/* Rewrite program header @p i of the standard image. */
void tc_std_phdr(struct tc_std *s, unsigned i, const struct tc_phdr *ph);
void tc_std_free(struct tc_std *s);

#endif /* TEST_CORE_UTIL_H */
