/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-reader OUT CASE [SCALE]: write a crafted core that attacks the reader
 * (see hostile_reader.h; `gpucore-mkhostile-reader --list` names the cases). Besides those:
 *   big-plain   a plain core with one 4 GiB PT_LOAD left as a hole (sparse): reading it takes
 *               long enough to cut the file meanwhile (the shrinking-file case).
 * SCALE divides the sizes a case claims (default 1).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile_reader.h"

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ELF header and one PT_LOAD of @p size bytes at offset 4096, the data a hole. */
static int big_plain(int fd, uint64_t size)
{
    uint8_t h[64 + 56] = { 0 };

    memcpy(h, ELFMAG, SELFMAG);
    h[EI_CLASS] = ELFCLASS64;
    h[EI_DATA] = ELFDATA2LSB;
    h[EI_VERSION] = EV_CURRENT;
    le(h + 16, ET_CORE, 2);
    le(h + 18, EM_X86_64, 2);
    le(h + 20, EV_CURRENT, 4);
    le(h + 32, 64, 8);
    le(h + 52, 64, 2);
    le(h + 54, 56, 2);
    le(h + 56, 1, 2);
    le(h + 64, PT_LOAD, 4);
    le(h + 68, PF_R | PF_W, 4);
    le(h + 72, 4096, 8);
    le(h + 80, 0x100000000ull, 8);
    le(h + 96, size, 8);
    le(h + 104, size, 8);
    le(h + 112, 4096, 8);
    if (write_all(fd, h, sizeof(h)) != 0)
        return -1;
    return ftruncate(fd, (off_t)(4096 + size));
}

int main(int argc, char **argv)
{
    uint8_t *p = NULL;
    size_t n = 0;
    unsigned scale = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 1;
    int fd, rc;

    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (const struct hr_case *c = hr_cases; c->name; c++)
            printf("%s\t%s\n", c->name, c->what);
        printf("big-plain\ta sparse plain core with a 4 GiB PT_LOAD\n");
        return 0;
    }
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: gpucore-mkhostile-reader OUT CASE [SCALE] | --list\n");
        return 64;
    }
    if (strcmp(argv[2], "big-plain") != 0 && hr_build(argv[2], scale, &p, &n) != 0) {
        fprintf(stderr, "gpucore-mkhostile-reader: unknown case %s (see --list)\n", argv[2]);
        return 64;
    }
    fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "gpucore-mkhostile-reader: %s: %s\n", argv[1], strerror(errno));
        free(p);
        return 73;
    }
    rc = p ? write_all(fd, p, n) : big_plain(fd, (4ull << 30) / (scale ? scale : 1));
    free(p);
    if (close(fd) != 0 || rc != 0) {
        fprintf(stderr, "gpucore-mkhostile-reader: %s: write failed\n", argv[1]);
        return 74;
    }
    return 0;
}
