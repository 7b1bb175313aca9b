/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share (each is one translation unit, so the helpers are static):
 *
 * CHECK(c)  the invariant assertion: when c is false, one line naming the condition, the file
 *           and the line on stderr, then abort(), which libFuzzer and the corpus driver
 *           (regress_main.c) report with the input.
 * fuzz_scratch_file()  a file path in a private directory the target may write to, made on
 *           the first call and removed, with the file, when the process exits normally.
 */
#ifndef GPUCORE_TESTS_FUZZ_COMMON_H
#define GPUCORE_TESTS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(c)                                                                      \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                                  \
        }                                                                             \
    } while (0)

struct fuzz_scratch {
    char dir[256];  /* the private directory */
    char path[300]; /* dir + "/out" */
};

/* The one scratch place of the process (static inline: no warning in a target not using it). */
static inline struct fuzz_scratch *fuzz_scratch(void)
{
    static struct fuzz_scratch s;

    return &s;
}

static inline void fuzz_scratch_remove(void)
{
    unlink(fuzz_scratch()->path);
    rmdir(fuzz_scratch()->dir);
}

/* fuzz_scratch_file(NAME): "$TMPDIR/NAME.XXXXXX/out" (P_tmpdir without TMPDIR); the same path
 * on every call. The directory is the target's alone; the file in it is the caller's to
 * create and unlink between inputs. A directory that cannot be made aborts (CHECK). */
static inline const char *fuzz_scratch_file(const char *name)
{
    struct fuzz_scratch *s = fuzz_scratch();
    const char *tmp = getenv("TMPDIR");

    if (s->path[0])
        return s->path;
    CHECK(snprintf(s->dir, sizeof(s->dir), "%s/%s.XXXXXX", tmp && *tmp ? tmp : P_tmpdir, name) <
          (int)sizeof(s->dir));
    CHECK(mkdtemp(s->dir) != NULL);
    CHECK(snprintf(s->path, sizeof(s->path), "%s/out", s->dir) < (int)sizeof(s->path));
    CHECK(atexit(fuzz_scratch_remove) == 0);
    return s->path;
}

#endif
