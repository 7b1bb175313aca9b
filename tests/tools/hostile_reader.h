/* SPDX-License-Identifier: MIT */
/*
 * Crafted cores that attack the reader (issue 10, items 7 and 11): zstd frames that decode to
 * far more than the file holds, a PT_NOTE of 1 GiB, a million program headers, four million
 * manifest records. Every big run of bytes is a zstd RLE block, so the files stay a few KB.
 * Used by gpucore-mkhostile-reader, the reader's unit tests, and bench/hostile/reader.tsv.
 */
#ifndef GC_TEST_HOSTILE_READER_H
#define GC_TEST_HOSTILE_READER_H

#include <stddef.h>
#include <stdint.h>

/* One case: its name, what it attacks, and its builder's size parameter. */
struct hr_case {
    const char *name;
    const char *what;
};

/* The cases, ending with a {NULL, NULL} row. */
extern const struct hr_case hr_cases[];

/*
 * Build case @p name into a malloc'ed buffer (*ret, *ret_size). @p scale divides the sizes the
 * case claims (1: as named, e.g. 1 GiB; 1024: a small seed of the same shape for a fuzz
 * corpus). Returns 0, or -1 for an unknown case or out of memory.
 */
int hr_build(const char *name, unsigned scale, uint8_t **ret, size_t *ret_size);

#endif /* GC_TEST_HOSTILE_READER_H */
