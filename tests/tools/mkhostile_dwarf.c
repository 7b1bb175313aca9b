/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-dwarf: write a code object whose DWARF once made the source-line step take
 * CPU or memory far out of proportion to its size (tests/tools/hostile_dwarf.h lists the cases).
 *
 *     gpucore-mkhostile-dwarf OUT CASE N [BASE.co [KERNEL]] [--alt PATH]
 *         the code object; with BASE.co, the DWARF describes BASE's function KERNEL ("vadd")
 *         and replaces BASE's own, so a scenario can load it (tests/srcline/srcline_hostile.sh,
 *         bench/hostile/dwarf.tsv). Prints the PC inside the function: "pc 0x...".
 *     gpucore-mkhostile-dwarf DIR
 *         small instances of every case (N = 16; zlib-bomb 1 MiB; altlink naming a path that
 *         does not exist) as fuzz_srcline seeds: DIR/<case>.co, each a few KiB.
 *         tests/fuzz/corpus/fuzz_srcline holds them; `fuzz-seeds-srcline-in-sync` checks they
 *         are what this writes (tests/tools/check_seeds.sh).
 *
 * Exit status: 0 written; 64 usage; 66 BASE cannot be read; 70 the case cannot be built;
 * 73 OUT cannot be written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "hostile_dwarf.h"

#define SEED_N 16u

static int usage(void)
{
    fprintf(stderr, "usage: gpucore-mkhostile-dwarf OUT CASE N [BASE.co [KERNEL]] [--alt PATH]\n"
                    "       gpucore-mkhostile-dwarf SEED-DIR\n");
    return EX_USAGE;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n)) != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    } else if (b) {
        *size = (size_t)n;
    }
    fclose(f);
    return b;
}

static int write_one(const char *out, enum hd_case c, const struct hd_opts *o, int say_pc)
{
    uint8_t *img;
    size_t size;
    uint64_t pc;
    char why[128];
    FILE *f;

    if (hd_build(c, o, &img, &size, &pc, why, sizeof(why)) != 0) {
        fprintf(stderr, "gpucore-mkhostile-dwarf: %s: %s\n", hd_case_name(c), why);
        return EX_SOFTWARE;
    }
    f = fopen(out, "wb");
    if (!f || fwrite(img, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "gpucore-mkhostile-dwarf: %s: cannot write\n", out);
        free(img);
        return EX_CANTCREAT;
    }
    free(img);
    if (say_pc)
        printf("pc 0x%llx\n", (unsigned long long)pc);
    return 0;
}

int main(int argc, char **argv)
{
    struct hd_opts o = { 0 };
    uint8_t *base = NULL;
    const char *pos[5];
    int npos = 0, c, rc;
    char *end;

    if (argc == 2) {
        for (int k = 0; k < HD_NCASES; k++) {
            char path[4096];

            if ((size_t)snprintf(path, sizeof(path), "%s/%s.co", argv[1],
                                 hd_case_name((enum hd_case)k)) >= sizeof(path))
                return usage();
            o.n = k == HD_ZLIB_BOMB ? 1 : SEED_N;
            rc = write_one(path, (enum hd_case)k, &o, 0);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--alt") == 0 && i + 1 < argc)
            o.alt_path = argv[++i];
        else if (npos < 5)
            pos[npos++] = argv[i];
        else
            return usage();
    }
    if (npos < 3 || (c = hd_case_by_name(pos[1])) < 0)
        return usage();
    o.n = (uint32_t)strtoul(pos[2], &end, 0);
    if (*end || !o.n)
        return usage();
    if (npos >= 4) {
        base = slurp(pos[3], &o.base_size);
        if (!base) {
            fprintf(stderr, "gpucore-mkhostile-dwarf: %s: cannot read\n", pos[3]);
            return EX_NOINPUT;
        }
        o.base = base;
        o.kernel = npos == 5 ? pos[4] : "vadd";
    }
    rc = write_one(pos[0], (enum hd_case)c, &o, 1);
    free(base);
    return rc;
}
