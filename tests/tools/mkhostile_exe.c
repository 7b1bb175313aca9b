/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-exe: write a small core that names PATH as its executable, for the tests of
 * what `gpucore debug` does with a path a core names (tests/debug/debug_hostile.sh) and for
 * bench/hostile/debug.tsv.
 *
 *     gpucore-mkhostile-exe OUTPUT meta PATH    gpucore's capture metadata names PATH
 *     gpucore-mkhostile-exe OUTPUT file PATH    no capture metadata; the kernel's NT_FILE maps
 *                                               PATH where NT_AUXV's AT_ENTRY points
 *
 * PATH is written as given (/proc/kmsg, a FIFO, "/../../../bin/true", ...). Besides the notes
 * the core holds one page of memory at the mapping. Public schema and libcore API only.
 * Exit status: 0 written; 64 usage; 70 the library refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#define MAP_START 0x400000ull
#define MAP_END   0x402000ull
#define ENTRY     0x401000ull
#define NT_AUXV_  6u
#define NT_FILE_  0x46494c45u
#define AT_ENTRY_ 9u
#define EM_X86_64_ 62u

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int die(const char *what, gpucore_status_t st, const char *msg)
{
    fprintf(stderr, "gpucore-mkhostile-exe: %s: %s (%s)\n", what, msg ? msg : "",
            gpucore_status_name(st));
    return EX_SOFTWARE;
}

/* NT_AUXV with AT_ENTRY, and NT_FILE: one mapping [MAP_START, MAP_END) of @p path. */
static gpucore_status_t file_notes(gpucore_writer_t *w, const char *path)
{
    uint8_t auxv[32] = { 0 }, *file;
    size_t len = strlen(path) + 1, size = 16 + 24 + len;
    gpucore_status_t st;

    put64(auxv, AT_ENTRY_);
    put64(auxv + 8, ENTRY);
    st = gpucore_writer_add_note(w, "CORE", NT_AUXV_, auxv, sizeof(auxv));
    if (st != GPUCORE_OK)
        return st;
    file = calloc(1, size);
    if (!file)
        return GPUCORE_E_NOMEM;
    put64(file, 1);        /* count */
    put64(file + 8, 4096); /* page size */
    put64(file + 16, MAP_START);
    put64(file + 24, MAP_END);
    put64(file + 32, 0);
    memcpy(file + 40, path, len);
    st = gpucore_writer_add_note(w, "CORE", NT_FILE_, file, size);
    free(file);
    return st;
}

static gpucore_status_t meta_note(gpucore_writer_t *w, const char *path)
{
    gpucore_capture_meta_t m = {
        .pid = 4242,
        .trigger = GPUCORE_TRIGGER_SYNTHETIC,
        .producer = { "gpucore-mkhostile-exe", sizeof("gpucore-mkhostile-exe") - 1 },
        .exe = { path, (uint32_t)strlen(path) },
    };
    void *desc = NULL;
    size_t size = 0;
    gpucore_diag_t d;
    gpucore_status_t st = gpucore_capture_meta_encode(&m, &desc, &size, &d);

    if (st != GPUCORE_OK)
        return st;
    st = gpucore_writer_add_note(w, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, desc, size);
    free(desc);
    return st;
}

int main(int argc, char **argv)
{
    static uint8_t page[4096];
    struct gpucore_writer_opts o = { .sz = sizeof(o), .e_machine = EM_X86_64_ };
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    gpucore_status_t st;

    if (argc != 4 || (strcmp(argv[2], "meta") != 0 && strcmp(argv[2], "file") != 0)) {
        fprintf(stderr, "usage: gpucore-mkhostile-exe OUTPUT meta|file PATH\n");
        return EX_USAGE;
    }
    st = gpucore_writer_open(argv[1], &o, &w, &d);
    if (st != GPUCORE_OK)
        return die(argv[1], st, d.message);
    st = strcmp(argv[2], "meta") == 0 ? meta_note(w, argv[3]) : file_notes(w, argv[3]);
    if (st == GPUCORE_OK)
        st = gpucore_writer_add_segment(w, MAP_START, page, sizeof(page), NULL);
    if (st != GPUCORE_OK) {
        int rc = die(argv[1], st, gpucore_writer_errmsg(w));

        gpucore_writer_abort(w);
        return rc;
    }
    st = gpucore_writer_finish(w, NULL, &d);
    if (st != GPUCORE_OK)
        return die(argv[1], st, d.message);
    return 0;
}
