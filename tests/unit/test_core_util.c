/* SPDX-License-Identifier: MIT */
#include "test_core_util.h"

#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gc_le.h"

char *tc_mkdtemp(const char *tag)
{
    const char *base = getenv("GPUCORE_TEST_TMPDIR");
    char *t;

    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755);
    t = malloc(strlen(base) + strlen(tag) + 16);
    if (!t)
        abort();
    sprintf(t, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(t))
        abort();
    return t;
}

void tc_rmdir(const char *dir)
{
    DIR *d;
    struct dirent *e;

    if (getenv("GPUCORE_TEST_KEEP")) /* debugging: leave the files for inspection */
        return;
    d = opendir(dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char *p;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        p = tc_path(dir, e->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

int tc_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

char *tc_path(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);

    if (!p)
        abort();
    sprintf(p, "%s/%s", dir, name);
    return p;
}

int tc_fixture_new(void **state, const char *tag, const char *file)
{
    struct tc_fixture *f = calloc(1, sizeof(*f));

    if (!f)
        abort();
    f->dir = tc_mkdtemp(tag);
    f->path = tc_path(f->dir, file);
    *state = f;
    return 0;
}

int tc_fixture_teardown(void **state)
{
    struct tc_fixture *f = *state;

    tc_rmdir(f->dir);
    free(f->dir);
    free(f->path);
    free(f);
    return 0;
}

uint64_t tc_rand(uint64_t *s)
{
    /* xorshift64*: deterministic across platforms, enough for test data. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

void tc_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *b = buf;
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = tc_rand(&s);

        for (size_t j = 0; j < 8 && i + j < n; j++)
            b[i + j] = (uint8_t)(v >> (8 * j));
    }
}

uint8_t *tc_read_file(const char *path, size_t *ret_size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *ret_size = (size_t)n;
    return buf;
}

int tc_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok;

    if (!f)
        return -1;
    ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

gpucore_manifest_t *tc_manifest(gpucore_core_t *core)
{
    struct gpucore_note n;
    gpucore_manifest_t *m = NULL;
    uint32_t idx = 0;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &idx, &n) !=
        GPUCORE_OK)
        return NULL;
    if (gpucore_manifest_decode(n.desc, (size_t)n.desc_size, &m, NULL) != GPUCORE_OK)
        return NULL;
    return m;
}

const char *tc_zstd_cli(void)
{
    static const char *const candidates[] = { "/usr/bin/zstd", "/usr/local/bin/zstd", "/bin/zstd" };

    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    return NULL;
}

uint64_t tc_image_put(struct tc_image *im, const void *p, size_t n)
{
    uint64_t at = im->len;
    uint8_t *nb = realloc(im->buf, im->len + n + 1);

    if (!nb)
        abort();
    im->buf = nb;
    if (p)
        memcpy(im->buf + im->len, p, n);
    else
        memset(im->buf + im->len, 0, n);
    im->len += n;
    return at;
}

void tc_image_ehdr(struct tc_image *im, uint16_t machine, uint64_t phoff, uint16_t phnum)
{
    uint8_t *h = im->buf;

    memset(h, 0, 64);
    memcpy(h, ELFMAG, SELFMAG);
    h[EI_CLASS] = ELFCLASS64;
    h[EI_DATA] = ELFDATA2LSB;
    h[EI_VERSION] = EV_CURRENT;
    gc_le16_put(h + 16, ET_CORE);
    gc_le16_put(h + 18, machine);
    gc_le32_put(h + 20, EV_CURRENT);
    gc_le64_put(h + 32, phoff);
    gc_le16_put(h + 52, 64);
    gc_le16_put(h + 54, 56);
    gc_le16_put(h + 56, phnum);
}

void tc_image_phdr(struct tc_image *im, uint64_t at, const struct tc_phdr *ph)
{
    uint8_t *p = im->buf + at;

    gc_le32_put(p + 0, ph->type);
    gc_le32_put(p + 4, ph->flags);
    gc_le64_put(p + 8, ph->offset);
    gc_le64_put(p + 16, ph->vaddr);
    gc_le64_put(p + 24, ph->paddr);
    gc_le64_put(p + 32, ph->filesz);
    gc_le64_put(p + 40, ph->memsz);
    gc_le64_put(p + 48, ph->align);
}

uint64_t tc_image_note(struct tc_image *im, const char *owner, uint32_t type, const void *desc,
                       uint32_t size)
{
    uint32_t namesz = (uint32_t)strlen(owner) + 1;
    uint8_t hdr[12];
    uint64_t at;

    gc_le32_put(hdr, namesz);
    gc_le32_put(hdr + 4, size);
    gc_le32_put(hdr + 8, type);
    at = tc_image_put(im, hdr, sizeof(hdr));
    tc_image_put(im, owner, namesz);
    tc_image_put(im, NULL, (4 - namesz % 4) % 4);
    tc_image_put(im, desc, size);
    tc_image_put(im, NULL, (4 - size % 4) % 4);
    return at;
}

void tc_std_build(struct tc_std *s)
{
    static const uint8_t desc8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint8_t data[0x100];

    memset(s, 0, sizeof(*s));
    tc_image_put(&s->im, NULL, 64);
    s->notes_off = tc_image_note(&s->im, "CORE", 1, desc8, sizeof(desc8));
    tc_image_note(&s->im, "GPUTEST", 7, "abc", 3);
    s->notes_len = s->im.len - s->notes_off;
    tc_image_put(&s->im, NULL, (16 - s->im.len % 16) % 16);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(0xA0 ^ i);
    s->load0_off = tc_image_put(&s->im, data, 0x100);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(0x50 + i);
    s->load1_off = tc_image_put(&s->im, data, 0x80);
    s->phoff = tc_image_put(&s->im, NULL, 3 * 56);
    tc_image_ehdr(&s->im, EM_X86_64, s->phoff, 3);
    tc_std_phdr(s, 0,
                &(struct tc_phdr){ .type = PT_NOTE,
                                   .flags = PF_R,
                                   .offset = s->notes_off,
                                   .filesz = s->notes_len,
                                   .align = 4 });
    tc_std_phdr(s, 1,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = PF_R | PF_W,
                                   .offset = s->load0_off,
                                   .vaddr = 0x10000,
                                   .filesz = 0x100,
                                   .memsz = 0x100,
                                   .align = 16 });
    tc_std_phdr(s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = PF_R,
                                   .offset = s->load1_off,
                                   .vaddr = 0x20000,
                                   .filesz = 0x80,
                                   .memsz = 0x1000,
                                   .align = 16 });
}

void tc_std_phdr(struct tc_std *s, unsigned i, const struct tc_phdr *ph)
{
    tc_image_phdr(&s->im, s->phoff + 56u * i, ph);
}

void tc_std_free(struct tc_std *s)
{
    free(s->im.buf);
    memset(s, 0, sizeof(*s));
}
