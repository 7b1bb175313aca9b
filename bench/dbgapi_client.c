/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-dbgapi-client: a neutral amd-dbgapi client that opens a core through whichever
 * librocm-dbgapi.so.0 the loader finds -- ours from the build tree (RUNPATH), or AMD's or an
 * earlier gpucore's through LD_LIBRARY_PATH -- so both libraries are measured with the same
 * program, the same calls and the same core.
 *
 *   gpucore-bench-dbgapi-client [--report-fd FD] attach|lists|registers|print CORE
 *
 *   attach     amd_dbgapi_initialize, attach (the core handshake: the AMDGPU note handed over,
 *              memory read through xfer_global_memory), drain every event, detach, finalize
 *   lists      as attach, then every list and the PC, EXEC, stop reason, dispatch and
 *              workgroup of every wave
 *   registers  as lists, then wave_register_list and read_register of every register of every
 *              wave (size and name asked once per register handle, as a debugger caches its
 *              register table): the library's own share of a register dump
 *   print      as registers, and every value printed to stdout as a debugger's dump would
 *              ("wave N NAME 0x<bytes, little-endian, lowest first>"): the end-to-end work of a
 *              client that prints everything
 *
 * The program links only the library's public header and libcore (to read the core's note and
 * memory, plain or compressed), so its peak RSS is the library's plus a small floor. On exit it
 * writes one line "waves=W registers=R bytes=B anon_kb=A file_kb=F library=PATH" to FD (default
 * stderr): the counts, RssAnon and RssFile just before detaching, and the library file the
 * loader chose.
 *
 * Exit: 0 done; 1 the core or the library failed (said on stderr); 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "bench_rss.h"

static const char prog[] = "gpucore-bench-dbgapi-client";

/* The largest register any architecture has (a wave64 VGPR: 64 lanes x 4 bytes). */
#define CLIENT_MAX_REGISTER_BYTES 1024u
/* stdout's buffer in print mode: one write(2) per MiB of text. */
#define CLIENT_PRINT_BUFFER (1u << 20)

static gpucore_core_t *core;
static struct gpucore_note note;

/* ---- the callbacks a debugger gives the library ---------------------------------------------- */

static void *cb_allocate(size_t n)
{
    return n ? malloc(n) : NULL;
}

static void cb_deallocate(void *p)
{
    free(p);
}

static amd_dbgapi_status_t cb_info(amd_dbgapi_client_process_id_t id,
                                   amd_dbgapi_client_process_info_t q, size_t n, void *value)
{
    amd_dbgapi_core_state_data_t cs;
    void *copy;

    (void)id;
    if (q == AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID)
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    if (q != AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE || n != sizeof(cs) || !value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    /* The library owns the copy (it frees it with cb_deallocate). */
    copy = malloc(note.desc_size);
    if (!copy)
        return AMD_DBGAPI_STATUS_ERROR;
    memcpy(copy, note.desc, note.desc_size);
    cs.endianness = AMD_DBGAPI_ENDIAN_LITTLE;
    cs.size = note.desc_size;
    cs.data = copy;
    memcpy(value, &cs, sizeof(cs));
    return AMD_DBGAPI_STATUS_SUCCESS;
}

static amd_dbgapi_status_t cb_insert(amd_dbgapi_client_process_id_t id,
                                     amd_dbgapi_global_address_t a, amd_dbgapi_breakpoint_id_t b)
{
    (void)id, (void)a, (void)b;
    return AMD_DBGAPI_STATUS_ERROR; /* a core cannot take a breakpoint */
}

static amd_dbgapi_status_t cb_remove(amd_dbgapi_client_process_id_t id,
                                     amd_dbgapi_breakpoint_id_t b)
{
    (void)id, (void)b;
    return AMD_DBGAPI_STATUS_ERROR;
}

static amd_dbgapi_status_t cb_xfer(amd_dbgapi_client_process_id_t id,
                                   amd_dbgapi_global_address_t address, amd_dbgapi_size_t *n,
                                   void *read, const void *write)
{
    uint64_t done = 0;

    (void)id;
    if (!read || write) {
        *n = 0;
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS; /* a core is read-only */
    }
    gpucore_core_read(core, address, read, *n, &done);
    *n = done;
    return done ? AMD_DBGAPI_STATUS_SUCCESS : AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
}

static void cb_log(amd_dbgapi_log_level_t level, const char *message)
{
    (void)level;
    fprintf(stderr, "%s: amd-dbgapi: %s\n", prog, message);
}

static amd_dbgapi_callbacks_t callbacks = { cb_allocate, cb_deallocate, cb_info, cb_insert,
                                            cb_remove,   cb_xfer,       cb_log };

/* ---- the work -------------------------------------------------------------------------------- */

enum depth { ATTACH, LISTS, REGISTERS, PRINT };

static const char *const depth_names[] = { "attach", "lists", "registers", "print" };

struct counts {
    uint64_t waves, registers, bytes;
    long anon_kb, file_kb;
    int failed;
};

/*
 * What a debugger caches of each register handle: its size and name, asked once. Handles are
 * opaque: kept in a small open-addressing table keyed by handle, grown by doubling.
 */
struct reg_info {
    uint64_t handle; /* 0: free slot */
    uint64_t size;
    char *name;
};

struct reg_cache {
    struct reg_info *slot;
    size_t cap, used; /* cap a power of two */
};

static struct reg_info *cache_slot(struct reg_cache *c, uint64_t handle)
{
    size_t i = (size_t)(handle * 0x9e3779b97f4a7c15ull) & (c->cap - 1);

    while (c->slot[i].handle && c->slot[i].handle != handle)
        i = (i + 1) & (c->cap - 1);
    return &c->slot[i];
}

static int cache_grow(struct reg_cache *c)
{
    struct reg_cache n = { calloc(c->cap ? c->cap * 2 : 1024, sizeof(struct reg_info)),
                           c->cap ? c->cap * 2 : 1024, c->used };

    if (!n.slot)
        return -1;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slot[i].handle)
            *cache_slot(&n, c->slot[i].handle) = c->slot[i];
    free(c->slot);
    *c = n;
    return 0;
}

/* The cached size and name of @p r, asked of the library the first time; NULL on failure. */
static const struct reg_info *reg_info(struct reg_cache *c, amd_dbgapi_register_id_t r)
{
    struct reg_info *s;

    if ((c->used + 1) * 2 > c->cap && cache_grow(c) != 0)
        return NULL;
    s = cache_slot(c, r.handle);
    if (s->handle)
        return s;
    if (amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_SIZE, sizeof(s->size),
                                     &s->size) != AMD_DBGAPI_STATUS_SUCCESS ||
        amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_NAME, sizeof(s->name),
                                     &s->name) != AMD_DBGAPI_STATUS_SUCCESS)
        return NULL;
    s->handle = r.handle;
    c->used++;
    return s;
}

static void cache_free(struct reg_cache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->slot[i].name); /* allocated by the library through cb_allocate */
    free(c->slot);
}

/* One register's line: "wave N NAME 0x" and its bytes in hex, lowest address first. */
static void print_register(size_t wave, const char *name, const uint8_t *v, uint64_t size)
{
    static const char hex[] = "0123456789abcdef";
    char text[2 * CLIENT_MAX_REGISTER_BYTES + 1];

    for (uint64_t i = 0; i < size; i++) {
        text[2 * i] = hex[v[i] >> 4];
        text[2 * i + 1] = hex[v[i] & 15];
    }
    text[2 * size] = '\0';
    printf("wave %zu %s 0x%s\n", wave, name, text);
}

static void read_registers(amd_dbgapi_wave_id_t *waves, size_t nwaves, int print,
                           struct counts *k)
{
    struct reg_cache cache = { NULL, 0, 0 };
    uint8_t buf[CLIENT_MAX_REGISTER_BYTES];

    for (size_t i = 0; i < nwaves; i++) {
        amd_dbgapi_register_id_t *regs = NULL;
        size_t n = 0;

        if (amd_dbgapi_wave_register_list(waves[i], &n, &regs) != AMD_DBGAPI_STATUS_SUCCESS) {
            fprintf(stderr, "%s: wave %zu: no register list\n", prog, i);
            k->failed = 1;
            break;
        }
        for (size_t r = 0; r < n; r++) {
            const struct reg_info *ri = reg_info(&cache, regs[r]);

            if (!ri || ri->size == 0 || ri->size > sizeof(buf) ||
                amd_dbgapi_read_register(waves[i], regs[r], 0, ri->size, buf) !=
                        AMD_DBGAPI_STATUS_SUCCESS) {
                k->failed = 1;
                continue;
            }
            if (print)
                print_register(i, ri->name, buf, ri->size);
            k->registers++;
            k->bytes += ri->size;
        }
        free(regs);
    }
    cache_free(&cache);
}

static void list_everything(amd_dbgapi_process_id_t p, amd_dbgapi_wave_id_t *waves,
                            size_t nwaves)
{
    static const amd_dbgapi_wave_info_t queries[] = {
        AMD_DBGAPI_WAVE_INFO_PC, AMD_DBGAPI_WAVE_INFO_EXEC_MASK, AMD_DBGAPI_WAVE_INFO_DISPATCH,
        AMD_DBGAPI_WAVE_INFO_WORKGROUP
    };
    uint8_t buf[8];
    size_t n;
    void *items;

#define LIST(kind)                                                                             \
    do {                                                                                       \
        items = NULL;                                                                          \
        if (amd_dbgapi_process_##kind##_list(p, &n, (void *)&items, NULL) ==                   \
            AMD_DBGAPI_STATUS_SUCCESS)                                                         \
            free(items);                                                                       \
    } while (0)
    LIST(agent);
    LIST(queue);
    LIST(dispatch);
    LIST(workgroup);
    LIST(code_object);
#undef LIST
    for (size_t i = 0; i < nwaves; i++) {
        uint32_t reasons;

        for (size_t j = 0; j < sizeof(queries) / sizeof(queries[0]); j++)
            amd_dbgapi_wave_get_info(waves[i], queries[j], sizeof(buf), buf);
        amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_STOP_REASON, sizeof(reasons),
                                 &reasons);
    }
}

static void run(enum depth depth, struct counts *k)
{
    amd_dbgapi_process_id_t p;
    amd_dbgapi_wave_id_t *waves = NULL;
    size_t nwaves = 0;

    if (amd_dbgapi_initialize(&callbacks) != AMD_DBGAPI_STATUS_SUCCESS ||
        amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)&core, &p) !=
                AMD_DBGAPI_STATUS_SUCCESS) {
        fprintf(stderr, "%s: the library did not attach to the core\n", prog);
        k->failed = 1;
        return;
    }
    for (;;) {
        amd_dbgapi_event_id_t ev;
        amd_dbgapi_event_kind_t kind;

        if (amd_dbgapi_process_next_pending_event(p, &ev, &kind) != AMD_DBGAPI_STATUS_SUCCESS ||
            ev.handle == 0)
            break;
        amd_dbgapi_event_processed(ev);
    }
    if (depth >= LISTS) {
        if (amd_dbgapi_process_wave_list(p, &nwaves, &waves, NULL) != AMD_DBGAPI_STATUS_SUCCESS)
            k->failed = 1;
        list_everything(p, waves, nwaves);
        k->waves = nwaves;
    }
    if (depth >= REGISTERS)
        read_registers(waves, nwaves, depth == PRINT, k);
    free(waves);
    bench_rss_now(&k->anon_kb, &k->file_kb); /* with everything still open */
    amd_dbgapi_process_detach(p);
    amd_dbgapi_finalize();
}

static int usage(void)
{
    fprintf(stderr, "usage: %s [--report-fd FD] attach|lists|registers|print CORE\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    struct counts k = { 0 };
    gpucore_diag_t d = { 0 };
    uint32_t at = 0;
    const char *library = "?";
    FILE *report = stderr;
    Dl_info info;
    int first = 1, depth = -1;

    if (argc == 5 && !strcmp(argv[1], "--report-fd")) {
        char *end;
        long fd;

        errno = 0;
        fd = strtol(argv[2], &end, 10);
        if (errno || *end || fd < 0 || fd > 1023 || !(report = fdopen((int)fd, "w")))
            return usage();
        first = 3;
    }
    if (argc - first != 2)
        return usage();
    for (int i = 0; i < (int)(sizeof(depth_names) / sizeof(depth_names[0])); i++)
        if (!strcmp(argv[first], depth_names[i]))
            depth = i;
    if (depth < 0)
        return usage();
    if (depth == PRINT)
        setvbuf(stdout, NULL, _IOFBF, CLIENT_PRINT_BUFFER);
    if (dladdr((void *)amd_dbgapi_initialize, &info) && info.dli_fname)
        library = info.dli_fname;
    if (gpucore_core_open(argv[first + 1], NULL, &core, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, argv[first + 1], d.message);
        return 1;
    }
    if (gpucore_core_find_note(core, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE,
                               &at, &note) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s: no AMDGPU note\n", prog, argv[first + 1]);
        gpucore_core_close(core);
        return 1;
    }
    run((enum depth)depth, &k);
    gpucore_core_close(core);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "%s: cannot write the dump: %s\n", prog, strerror(errno));
        k.failed = 1;
    }
    fprintf(report, "waves=%" PRIu64 " registers=%" PRIu64 " bytes=%" PRIu64
                    " anon_kb=%ld file_kb=%ld library=%s\n",
            k.waves, k.registers, k.bytes, k.anon_kb, k.file_kb, library);
    fflush(report);
    return k.failed ? 1 : 0;
}
