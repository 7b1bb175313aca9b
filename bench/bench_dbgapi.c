/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-dbgapi: how fast a debugger opens a core through libgpucore-dbgapi, and how
 * much memory it takes -- open, enumerate, read every register of every wave.
 *
 *   gpucore-bench-dbgapi [--repeat N] [--baseline DIR] CORE...
 *
 * Rows, per core (each measured in a child process of its own, --repeat times, median wall
 * time and the child's peak RSS):
 *
 *   floor: open the core       the process, its libraries (LLVM's disassembler is most of the
 *                              RSS) and gpucore_core_open: what every other row includes
 *   image (analyze/, no API)   gc_image_open, then every register of every wave read with
 *                              gc_image_wave_regs (the record, from the core) and gc_reg_read:
 *                              the work under the library, without it
 *   dbgapi attach + events     amd_dbgapi_initialize, attach (the core handshake), drain the
 *                              RUNTIME and WAVE_STOP events, detach, finalize
 *   dbgapi + lists and info    as above, then every list and the PC, EXEC, stop reason,
 *                              dispatch and workgroup of every wave
 *   dbgapi + every register    as above, then wave_register_list and read_register of every
 *                              register (its size asked once per register handle) of every wave
 *
 * With --baseline DIR, the three dbgapi rows are measured twice, each in one table: "copies:"
 * with the librocm-dbgapi.so.0 of DIR (a libgpucore-dbgapi built from an earlier revision;
 * the row's child runs this program with LD_LIBRARY_PATH=DIR, which the build tree's RUNPATH
 * yields to), and "views:" with the library this program was built with. The client
 * is this program in both: the same calls, the same core. Under the table, the library each
 * group of rows loaded.
 *
 * Memory: the child's peak RSS (getrusage), and, just before the row detaches or closes what
 * it opened, its RssAnon (heap, decoded frames: memory of its own) and RssFile (pages of
 * mapped files it touched -- the plain core, and the libraries, libLLVM above all: page cache,
 * shared with every other process).
 *
 * Memory is served to the library from the core through gpucore_core_read, as `gpucore
 * dbgapi-dump` serves it; a compressed core decodes frames on demand. Counts (waves,
 * registers, bytes read) are printed per row and must agree between the dbgapi rows and the
 * image row, or the benchmark fails (exit 1). Nothing is asserted about time. bench/README.md
 * ("amd-dbgapi") explains the figures.
 *
 * Exit: 0 done; 1 a core could not be read or the rows disagree; 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch_regs.h"
#include "image.h"

static const char prog[] = "gpucore-bench-dbgapi";

/* What a row did, reported by the child through a pipe. */
struct counts {
    uint64_t waves, registers, bytes;
    long anon_kb; /* RssAnon before the row lets go: the heap, without mapped files */
    long file_kb; /* RssFile then: mapped files (the core, the libraries) */
    int failed;
    char library[512]; /* the file amd_dbgapi_initialize came from */
};

/* RssAnon and RssFile of this process (kB; -1 if /proc does not say). */
static void rss_now(long *ret_anon_kb, long *ret_file_kb)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];

    *ret_anon_kb = *ret_file_kb = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (sscanf(line, "RssAnon: %ld kB", ret_anon_kb) == 1)
            continue;
        sscanf(line, "RssFile: %ld kB", ret_file_kb);
    }
    if (f)
        fclose(f);
}

/* ---- the client ------------------------------------------------------------------------------ */

static gpucore_core_t *core;
static struct gpucore_note note;

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
    return AMD_DBGAPI_STATUS_ERROR;
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
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
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

/* ---- rows ------------------------------------------------------------------------------------ */

enum depth { OPEN, ATTACH, LISTS, REGISTERS };

/* Register sizes by handle: asked once each, as a debugger caches its register table. */
struct size_cache {
    uint64_t base, n;
    uint64_t *size; /* 0: not asked yet */
};

static uint64_t reg_size(struct size_cache *c, amd_dbgapi_register_id_t r)
{
    uint64_t v = 0;

    if (r.handle >= c->base && r.handle - c->base < c->n && c->size[r.handle - c->base])
        return c->size[r.handle - c->base];
    if (amd_dbgapi_register_get_info(r, AMD_DBGAPI_REGISTER_INFO_SIZE, sizeof(v), &v) !=
        AMD_DBGAPI_STATUS_SUCCESS)
        return 0;
    if (r.handle >= c->base && r.handle - c->base < c->n)
        c->size[r.handle - c->base] = v;
    return v;
}

static void row_dbgapi(enum depth depth, struct counts *k)
{
    amd_dbgapi_process_id_t p;
    amd_dbgapi_wave_id_t *waves = NULL;
    size_t nwaves = 0;
    struct size_cache cache = { 0, 0, NULL };
    uint8_t buf[1024];

    if (amd_dbgapi_initialize(&callbacks) != AMD_DBGAPI_STATUS_SUCCESS ||
        amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)&core, &p) !=
                AMD_DBGAPI_STATUS_SUCCESS) {
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
        amd_dbgapi_process_wave_list(p, &nwaves, &waves, NULL);
        for (size_t i = 0; i < nwaves; i++) {
            static const amd_dbgapi_wave_info_t q[] = {
                AMD_DBGAPI_WAVE_INFO_PC, AMD_DBGAPI_WAVE_INFO_EXEC_MASK,
                AMD_DBGAPI_WAVE_INFO_DISPATCH, AMD_DBGAPI_WAVE_INFO_WORKGROUP
            };
            uint32_t reasons;

            for (size_t j = 0; j < sizeof(q) / sizeof(q[0]); j++)
                amd_dbgapi_wave_get_info(waves[i], q[j], 8, buf);
            amd_dbgapi_wave_get_info(waves[i], AMD_DBGAPI_WAVE_INFO_STOP_REASON, 4, &reasons);
        }
        k->waves = nwaves;
    }
    if (depth >= REGISTERS && nwaves) {
        amd_dbgapi_architecture_id_t a;
        amd_dbgapi_register_id_t *all = NULL;
        size_t nall = 0;

        if (amd_dbgapi_wave_get_info(waves[0], AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, sizeof(a), &a) ==
                    AMD_DBGAPI_STATUS_SUCCESS &&
            amd_dbgapi_architecture_register_list(a, &nall, &all) == AMD_DBGAPI_STATUS_SUCCESS &&
            nall) {
            cache.base = all[0].handle;
            cache.n = all[nall - 1].handle - all[0].handle + 1;
            cache.size = calloc(cache.n, sizeof(*cache.size));
        }
        free(all);
        for (size_t i = 0; i < nwaves; i++) {
            amd_dbgapi_register_id_t *regs = NULL;
            size_t n = 0;

            if (amd_dbgapi_wave_register_list(waves[i], &n, &regs) != AMD_DBGAPI_STATUS_SUCCESS) {
                k->failed = 1;
                break;
            }
            for (size_t r = 0; r < n; r++) {
                uint64_t size = reg_size(&cache, regs[r]);

                if (size == 0 || size > sizeof(buf) ||
                    amd_dbgapi_read_register(waves[i], regs[r], 0, size, buf) !=
                            AMD_DBGAPI_STATUS_SUCCESS) {
                    k->failed = 1;
                    continue;
                }
                k->registers++;
                k->bytes += size;
            }
            free(regs);
        }
        free(cache.size);
    }
    free(waves);
    rss_now(&k->anon_kb, &k->file_kb); /* with everything still open */
    amd_dbgapi_process_detach(p);
    amd_dbgapi_finalize();
}

static void row_image(struct counts *k)
{
    struct gc_image *img = NULL;
    gpucore_diag_t d = { 0 };
    uint8_t buf[1024];

    if (gc_image_open(core, &img, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s\n", prog, d.message);
        k->failed = 1;
        return;
    }
    k->waves = gc_image_wave_count(img);
    for (uint32_t i = 0; i < k->waves; i++) {
        const struct gc_image_wave *w = gc_image_wave(img, i);
        const struct gc_arch *arch = gc_image_agent(img, gc_image_queue(img, w->queue)->agent)->arch;
        const struct gc_wave *saved = NULL;
        struct gc_reglist l = { 0 };

        if (gc_wave_register_list(arch, &w->wave, &l) != GPUCORE_OK ||
            gc_image_wave_regs(img, i, &saved, NULL) != GPUCORE_OK) {
            gc_reglist_done(&l);
            k->failed = 1;
            continue;
        }
        for (size_t r = 0; r < l.count; r++) {
            if (l.regs[r].size > sizeof(buf) ||
                gc_reg_read(arch, saved, gc_image_r_version(img), &l.regs[r], 0, buf,
                            l.regs[r].size) != GPUCORE_OK) {
                k->failed = 1;
                continue;
            }
            k->registers++;
            k->bytes += l.regs[r].size;
        }
        gc_reglist_done(&l);
    }
    rss_now(&k->anon_kb, &k->file_kb); /* with the image still open */
    gc_image_close(img);
}

static const struct row {
    const char *label;
    int image;
    enum depth depth;
    int baseline; /* measured with the --baseline library (only with --baseline) */
} rows[] = {
    { "floor: open the core", 0, OPEN, 0 },
    { "image (analyze/, no API)", 1, REGISTERS, 0 },
    { "copies: dbgapi attach + events", 0, ATTACH, 1 },
    { "copies: dbgapi + lists and info", 0, LISTS, 1 },
    { "copies: dbgapi + every register", 0, REGISTERS, 1 },
    { "dbgapi attach + events", 0, ATTACH, 0 },
    { "dbgapi + lists and info", 0, LISTS, 0 },
    { "dbgapi + every register", 0, REGISTERS, 0 },
};

/* --baseline DIR, or NULL */
static const char *baseline_dir;

/* ---- measuring ------------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Row @p r on @p path, in this process (a child): the counts to @p fd; exits. */
_Noreturn static void run_row(const char *path, const struct row *r, int fd)
{
    struct counts k = { 0 };
    gpucore_diag_t d = { 0 };
    uint32_t at = 0;
    Dl_info info;

    if (dladdr((void *)amd_dbgapi_initialize, &info) && info.dli_fname)
        snprintf(k.library, sizeof(k.library), "%s", info.dli_fname);
    if (gpucore_core_open(path, NULL, &core, &d) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, d.message);
        _exit(1);
    }
    if (gpucore_core_find_note(core, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE,
                               &at, &note) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s: no AMDGPU note\n", prog, path);
        _exit(1);
    }
    if (r->image)
        row_image(&k);
    else if (r->depth > OPEN)
        row_dbgapi(r->depth, &k);
    else
        rss_now(&k.anon_kb, &k.file_kb);
    gpucore_core_close(core);
    _exit(write(fd, &k, sizeof(k)) == (ssize_t)sizeof(k) && !k.failed ? 0 : 1);
}

/* Run row @p r on @p path in a child (this program, executed again with --child): its wall
   time, peak RSS and counts. */
static int measure(const char *path, const struct row *r, double *ret_secs, long *ret_rss_kb,
                   struct counts *ret)
{
    int fd[2];
    pid_t pid;
    int status;
    struct rusage ru;
    double t0;

    if (pipe(fd) != 0)
        return -1;
    t0 = now();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* This program again, so that every row pays the start of a process and the loading
           of its libraries (a forked child would share the parent's pages and count none of
           them), and a baseline row loads the library of baseline_dir. */
        char row[16], out[16];
        char *args[] = { (char *)prog, (char *)"--child", row, out, (char *)path, NULL };

        close(fd[0]);
        snprintf(row, sizeof(row), "%d", (int)(r - rows));
        snprintf(out, sizeof(out), "%d", fd[1]);
        if (!r->baseline || setenv("LD_LIBRARY_PATH", baseline_dir, 1) == 0)
            execv("/proc/self/exe", args);
        fprintf(stderr, "%s: cannot run row '%s': %s\n", prog, r->label, strerror(errno));
        _exit(1);
    }
    close(fd[1]);
    if (read(fd[0], ret, sizeof(*ret)) != (ssize_t)sizeof(*ret))
        memset(ret, 0, sizeof(*ret));
    close(fd[0]);
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *ret_secs = now() - t0;
    *ret_rss_kb = ru.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static int bench_core(const char *path, unsigned repeat)
{
    struct counts ref = { 0 };
    char lib_copies[512] = "", lib_views[512] = "";
    int rc = 0;

    printf("\n%s: median of %u run(s), each in a process of its own\n", path, repeat);
    printf("%-33s %8s %6s %10s %8s %8s %9s %9s\n", "row", "seconds", "waves", "registers",
           "MB read", "RSS MiB", "anon MiB", "file MiB");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        double secs[99];
        long rss = 0;
        struct counts k = { 0 };
        const char *label = rows[i].label;

        if (rows[i].baseline && !baseline_dir)
            continue;
        if (baseline_dir && !rows[i].baseline && !rows[i].image && rows[i].depth > OPEN)
            label = rows[i].depth == ATTACH ? "views: dbgapi attach + events"
                    : rows[i].depth == LISTS ? "views: dbgapi + lists and info"
                                             : "views: dbgapi + every register";

        for (unsigned n = 0; n < repeat; n++) {
            long kb = 0;

            if (measure(path, &rows[i], &secs[n], &kb, &k) != 0) {
                fprintf(stderr, "%s: %s: row '%s' failed\n", prog, path, rows[i].label);
                return 1;
            }
            if (kb > rss)
                rss = kb;
        }
        qsort(secs, repeat, sizeof(secs[0]), cmp_double);
        if (!rows[i].image && rows[i].depth > OPEN)
            snprintf(rows[i].baseline ? lib_copies : lib_views, sizeof(lib_views), "%s",
                     k.library);
        printf("%-33s %8.3f %6" PRIu64 " %10" PRIu64 " %8.2f %8.1f %9.1f %9.1f\n", label,
               repeat % 2 ? secs[repeat / 2] : (secs[repeat / 2 - 1] + secs[repeat / 2]) / 2,
               k.waves, k.registers, (double)k.bytes / 1e6, (double)rss / 1024.0,
               (double)k.anon_kb / 1024.0, (double)k.file_kb / 1024.0);
        if (rows[i].image) {
            ref = k;
        } else if (rows[i].depth == REGISTERS &&
                   (k.waves != ref.waves || k.registers != ref.registers || k.bytes != ref.bytes)) {
            fprintf(stderr, "%s: %s: the library read %" PRIu64 " registers of %" PRIu64
                            " waves, the image %" PRIu64 " of %" PRIu64 "\n",
                    prog, path, k.registers, k.waves, ref.registers, ref.waves);
            rc = 1;
        }
    }
    if (baseline_dir) {
        printf("copies: %s\n", lib_copies);
        printf("views:  %s\n", lib_views);
        if (!strcmp(lib_copies, lib_views)) {
            fprintf(stderr, "%s: the baseline rows loaded the same library\n", prog);
            rc = 1;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    unsigned repeat = 3;
    int first = 1, rc = 0;

    /* a baseline row, re-executed by measure(): --child ROW FD CORE */
    if (argc == 5 && !strcmp(argv[1], "--child")) {
        int r = atoi(argv[2]);

        if (r < 0 || (size_t)r >= sizeof(rows) / sizeof(rows[0]))
            return 2;
        run_row(argv[4], &rows[r], atoi(argv[3]));
    }
    while (first < argc && argv[first][0] == '-') {
        char *end;
        unsigned long v;

        if (!strcmp(argv[first], "--baseline") && first + 1 < argc) {
            baseline_dir = argv[first + 1];
            first += 2;
            continue;
        }
        if (strcmp(argv[first], "--repeat") != 0 || first + 1 >= argc) {
            fprintf(stderr, "usage: %s [--repeat N] [--baseline DIR] CORE...\n", prog);
            return 2;
        }
        errno = 0;
        v = strtoul(argv[first + 1], &end, 10);
        if (errno || *end || v < 1 || v > 99) {
            fprintf(stderr, "%s: --repeat takes 1 to 99\n", prog);
            return 2;
        }
        repeat = (unsigned)v;
        first += 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--repeat N] [--baseline DIR] CORE...\n", prog);
        return 2;
    }
    for (int i = first; i < argc; i++)
        rc |= bench_core(argv[i], repeat);
    return rc;
}
