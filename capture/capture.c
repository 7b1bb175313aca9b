/* SPDX-License-Identifier: MIT */
/*
 * The capture pipeline (capture.h). One struct cap holds everything that must be undone, so
 * every exit path goes through cap_cleanup(): resume the queues this capture suspended,
 * disable debugging, close the driver session, resume and detach the threads. The writer is
 * either finished (a valid core, possibly marked truncated) or aborted (nothing published).
 */
#include "capture.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "capture_internal.h"
#include "gc_util.h"
#include "host_core.h"
#include "mem_reader.h"
#include "plan.h"
#include "procmaps.h"
#include "rangeset.h"
#include "target_file.h"
#include "tracee.h"

#define CAP_MAX_SERVICE 16u
#define CAP_STOP_TIMEOUT_MS 10000
#define CAP_OPEN_RETRY_MS 30000     /* RUN: how long the simulated driver may take to appear */
#define CAP_WAIT_SLICE_MS GC_CAPTURE_TICK_MS /* poll granularity between the driver and ptrace */
#define CAP_CHUNK (64ull << 20)     /* segment pieces without a deadline */
#define CAP_CHUNK_DEADLINE (4ull << 20) /* with one: the clock is checked between pieces */
#define CAP_PAGE 4096ull
/* file:// code objects are read as the target (target_file.h): each within this, and all of
   them within CAP_FILE_TOTAL_MS, and within the capture's deadline. */
#define CAP_FILE_TIMEOUT_MS 2000u
#define CAP_FILE_TOTAL_MS   10000u

/* The head reservation (head_estimate): fixed notes, per thread (NT_PRSTATUS, NT_FPREGSET,
 * NT_X86_XSTATE up to AMX's size), per mapping (program headers, manifest and NT_FILE entries). */
#define CAP_HEAD_FIXED (32ull << 10)
#define CAP_HEAD_PER_THREAD (16ull << 10)
#define CAP_HEAD_PER_RANGE 256ull

/* Exceptions a watching capture waits for: the queue errors (KFD_EC_MASK_QUEUE without the
 * lifecycle events EC_QUEUE_NEW, which are not errors) and the device's memory violation,
 * RAS error and fatal halt. */
#define CAP_WATCH_MASK ((KFD_EC_MASK_QUEUE & ~KFD_EC_MASK(EC_QUEUE_NEW)) |                         \
                        KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION) |                                   \
                        KFD_EC_MASK(EC_DEVICE_FATAL_HALT) | KFD_EC_MASK(EC_DEVICE_RAS_ERROR))
/* RUN arms a process as soon as it opened the driver, often before its runtime enabled itself
   (and WATCH may attach that early):
   amdkfd then holds the runtime's RUNTIME_ENABLE and raises EC_PROCESS_RUNTIME, which the
   debugger must see (it is in the mask) and answer (SEND_RUNTIME_EVENT) for the process to go
   on. */
#define CAP_RUN_MASK (CAP_WATCH_MASK | KFD_EC_MASK(EC_PROCESS_RUNTIME))
#define CAP_MAX_EXCEPTIONS 64u

struct cap {
    /* The output pattern's variables of the target (open_writer); the metadata records its
       job and rank from them too (add_meta): the environment is read once. */
    struct gc_capture_vars vars;
    char vars_storage[GC_CAPTURE_VARS_STORAGE];
    const struct gc_capture_opts *o;
    struct gc_capture_result *res;
    gpucore_diag_t *diag;

    struct gc_tracee *t;
    pid_t pid;
    struct gc_kfd *k;
    int enabled;
    struct kfd_runtime_info rinfo_at_enable; /* WATCH/RUN: what ENABLE said */
    pid_t service[CAP_MAX_SERVICE];
    uint32_t nservice;

    uint32_t *resume_ids; /* queues this capture suspended */
    uint32_t nresume;

    gpucore_writer_t *w;
    uint64_t start_mono_ns, start_real_ns;
    uint64_t deadline_ns; /* monotonic; 0 = none */
    int deadline_hit;

    /* Target memory, for every reader of the capture (cap_read on this capture). */
    struct gc_mem_reader mem;
    /* The read callback's failure that ended the capture (target gone, refused). */
    gpucore_status_t read_fail;
    gpucore_diag_t read_diag;

    struct gc_plan_exception exc[CAP_MAX_EXCEPTIONS];
    uint32_t nexc;
    int runtime_started;   /* EC_PROCESS_RUNTIME was among the events: the runtime waits in
                              its enable for the answer (answer_runtime) */
    uint64_t unreadable_bytes; /* stepped over by the writer's read callback */
    uint64_t file_ms;          /* spent reading file:// code objects */
    /* Progress (only with o->progress): the phase shown, the tier being written, the bytes
       written and planned. */
    char phase[160];
    const char *tier;
    uint64_t bytes_written, bytes_planned;
    uint32_t flags; /* GPUCORE_META_* */
    /* The name the output pattern gave and the number of the name taken (0: that name;
       capture_path.h): a name that appears while the core is written is numbered on. */
    char asked_path[PATH_MAX];
    uint32_t name_number;
    char renamed_from[PATH_MAX]; /* the name found taken at the finish; "" none */
};

/* ---- small helpers ---------------------------------------------------------------------- */

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int interrupted(const struct cap *c)
{
    return c->o->interrupted && *c->o->interrupted;
}

static int deadline_passed(struct cap *c)
{
    if (c->deadline_ns && !c->deadline_hit && clock_ns(CLOCK_MONOTONIC) >= c->deadline_ns)
        c->deadline_hit = 1;
    return c->deadline_hit;
}

static void report_progress(const struct cap *c, int new_phase)
{
    struct gc_capture_progress p = {
        .phase = c->phase, .tier = c->tier, .bytes_written = c->bytes_written,
        .bytes_planned = c->bytes_planned, .has_deadline = c->deadline_ns != 0,
        .new_phase = new_phase
    };

    if (c->deadline_ns) {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);

        p.deadline_left_ns = now < c->deadline_ns ? c->deadline_ns - now : 0;
    }
    c->o->progress(c->o->progress_user, &p);
}

/* Time passes in a wait: the progress line can say so. */
static void progress_tick(const struct cap *c)
{
    if (c->o->progress)
        report_progress(c, 0);
}

/* A new phase; @p tier is what memory it writes (NULL: none). */
static void progress_tier(struct cap *c, const char *tier, const char *fmt, ...) GC_PRINTF(3, 4);
static void progress_tier(struct cap *c, const char *tier, const char *fmt, ...)
{
    va_list ap;

    if (!c->o->progress)
        return;
    va_start(ap, fmt);
    vsnprintf(c->phase, sizeof(c->phase), fmt, ap);
    va_end(ap);
    c->tier = tier;
    report_progress(c, 1);
}

/* Count a warning; the first one is kept as the result's sentence. */
static void warn(struct cap *c, const char *fmt, ...) GC_PRINTF(2, 3);
static void warn(struct cap *c, const char *fmt, ...)
{
    va_list ap;

    if (c->res->nwarnings++ == 0) {
        va_start(ap, fmt);
        vsnprintf(c->res->warning, sizeof(c->res->warning), fmt, ap);
        va_end(ap);
    }
}

static gpucore_status_t interrupted_fail(struct cap *c)
{
    return gc_diag_set(c->diag, GPUCORE_E_INTR, GC_NO_OFFSET,
                       "interrupted: no core written; process %ld was resumed and detached",
                       (long)c->pid);
}

/* ---- undo everything ------------------------------------------------------------------- */

/* Resume the queues this capture suspended and disable debugging; errors are only counted
 * (the target may be gone, or a fault injected: the driver's own DISABLE resumes them too). */
static void cap_release_gpu(struct cap *c)
{
    gpucore_diag_t d = { 0 };

    if (!c->k)
        return;
    if (c->t && interrupted(c)) {
        /* The signal that interrupts gpucore is often the target's too: a terminal's ^C and
         * the SIGTERM of scancel or timeout go to a whole process group. A thread of the
         * target that took it waits in its signal stop for gpucore, and a driver that runs in
         * the target's threads (the simulated one) would not answer the calls below until
         * their timeout (20 s each): let those threads have their signal first. */
        enum gc_tracee_event ev;

        (void)gc_tracee_poll(c->t, 0, &ev, &d);
    }
    if (c->nresume) {
        uint32_t done = 0;

        if (gc_kfd_resume_queues(c->k, c->resume_ids, c->nresume, &done, &d) != GPUCORE_OK)
            warn(c, "resuming the queues failed: %s", d.message);
        c->nresume = 0;
    }
    if (c->enabled) {
        if (gc_kfd_disable(c->k, &d) != GPUCORE_OK)
            warn(c, "disabling debugging failed: %s", d.message);
        c->enabled = 0;
    }
    /* Closing the session is also the driver's cue for an implicit DISABLE (close of
     * /dev/kfd), so even a failed DISABLE leaves the target undebugged. Done now, while the
     * simulated driver's thread still runs. */
    gc_kfd_close(c->k);
    c->k = NULL;
}

/* Undo everything. RUN after a capture (@p ok): wait for the command's end, its status is
 * what `gpucore run` reports; after a failure or an interruption the command is detached and
 * left to run on (res->running) for the caller to wait for. */
static void resume_service(struct cap *c);

static void cap_cleanup(struct cap *c, int ok)
{
    gpucore_diag_t d = { 0 };

    gpucore_writer_abort(c->w);
    c->w = NULL;
    if (c->t)
        resume_service(c); /* stopped to read the host part: the driver must answer */
    cap_release_gpu(c);
    gc_free(c->resume_ids);
    c->resume_ids = NULL;
    if (c->t) {
        int status = -1;

        (void)gc_tracee_resume_all(c->t, &d);
        if (ok && c->o->mode == GC_CAPTURE_RUN && !interrupted(c) && !c->res->exited) {
            gpucore_status_t st;

            do
                st = gc_tracee_wait_exit(c->t, &status, &d);
            while (st == GPUCORE_E_INTR && !interrupted(c));
            if (st == GPUCORE_OK) {
                c->res->exited = 1;
                c->res->exit_status = status;
            }
        }
        status = gc_tracee_detach_status(c->t);
        c->t = NULL;
        if (c->o->mode == GC_CAPTURE_RUN && !c->res->exited) {
            /* Seen to exit while it was stopped for the detach: its status is taken. */
            if (status != -1) {
                c->res->exited = 1;
                c->res->exit_status = status;
            } else {
                c->res->running = 1;
            }
        }
    }
}

/* ---- reading target memory --------------------------------------------------------------- */

/* The capture's memory reader (c->mem): gc_kfd_read_memory, unless interrupted; the first
 * failure other than an unreadable part is kept to end the capture with. */
static gpucore_status_t cap_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                 uint64_t *ret_done, int *ret_errno)
{
    struct cap *c = user;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    if (interrupted(c))
        return GPUCORE_E_INTR;
    st = gc_kfd_read_memory(c->k, addr, buf, size, ret_done, ret_errno, &d);
    if (st != GPUCORE_OK && st != GPUCORE_E_UNAVAILABLE && c->read_fail == GPUCORE_OK) {
        c->read_fail = st;
        c->read_diag = d;
    }
    return st;
}

/* The plan's file reader: as the target could (target_file.h), within the time limits. */
static int plan_read_file(void *user, const char *path, uint64_t offset, uint64_t size,
                          uint8_t **ret, uint64_t *ret_size, char *why, size_t why_size)
{
    struct cap *c = user;
    uint64_t now = clock_ns(CLOCK_MONOTONIC), limit = CAP_FILE_TIMEOUT_MS;
    int r;

    if (c->file_ms >= CAP_FILE_TOTAL_MS) {
        snprintf(why, why_size, "file reads took %u ms in all already", CAP_FILE_TOTAL_MS);
        return 0;
    }
    if (CAP_FILE_TOTAL_MS - c->file_ms < limit)
        limit = CAP_FILE_TOTAL_MS - c->file_ms;
    if (c->deadline_ns) {
        if (now >= c->deadline_ns) {
            snprintf(why, why_size, "%s", "the capture deadline has passed");
            return 0;
        }
        if ((c->deadline_ns - now) / 1000000u < limit)
            limit = (c->deadline_ns - now) / 1000000u;
        if (limit == 0)
            limit = 1;
    }
    r = gc_target_file_read((uint32_t)c->pid, path, offset, size, GC_PLAN_MAX_CODE_OBJECT,
                            (uint32_t)limit, ret, ret_size, why, why_size);
    c->file_ms += (clock_ns(CLOCK_MONOTONIC) - now) / 1000000u;
    return r;
}

/* The writer's pull callback (libcore's gpucore_read_fn: the one adapter of c->mem):
 * unreadable pages are reported and stepped over; a target that is gone or refuses, or an
 * interruption, aborts the core. */
static int64_t writer_read(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                           uint64_t *ret_bad_size)
{
    struct cap *c = user;
    uint64_t done = 0;
    int err = 0;
    gpucore_status_t st = c->mem.read(c->mem.user, addr, buf, size, &done, &err);

    if (c->o->progress && (st == GPUCORE_OK || st == GPUCORE_E_UNAVAILABLE)) {
        c->bytes_written += st == GPUCORE_OK ? size : done;
        report_progress(c, 0);
    }
    if (st == GPUCORE_OK)
        return (int64_t)size;
    if (st == GPUCORE_E_UNAVAILABLE) {
        uint64_t bad = addr + done;

        *ret_errno = err ? err : EIO;
        *ret_bad_size = CAP_PAGE - (bad & (CAP_PAGE - 1));
        c->unreadable_bytes += *ret_bad_size;
        return (int64_t)done;
    }
    return (int64_t)st;
}

/* ---- writing memory --------------------------------------------------------------------- */

static const char *range_label(const struct gc_plan *p, const struct gc_kfd_mapping *maps,
                               uint32_t nmaps, uint64_t addr, const char *dflt)
{
    const struct gc_plan_item *it = p ? gc_plan_item_at(p, addr) : NULL;

    if (it && it->label[0])
        return it->label;
    for (uint32_t i = 0; i < nmaps; i++)
        if (addr >= maps[i].base && addr - maps[i].base < maps[i].size && maps[i].label[0])
            return maps[i].label;
    return dflt;
}

static void count_skipped(struct cap *c, uint32_t reason, uint64_t bytes)
{
    c->res->skipped_by_reason[reason < GC_CAPTURE_REASONS ? reason : GPUCORE_REASON_NONE] += bytes;
}

/* The writer's skipped-byte count now (0 if it cannot say). */
static uint64_t writer_skipped(const struct cap *c)
{
    struct gpucore_writer_stats s;

    return gpucore_writer_get_stats(c->w, &s) == GPUCORE_OK ? s.skipped_bytes : 0;
}

/*
 * The writer stopped taking data (budget, deadline): what it says. @p skipped_before is its
 * skipped-byte count before the call that ended now, @p unreadable the bytes of that call the
 * read callback reported unreadable: what else it skipped, the budget or deadline cut.
 */
static void note_writer_state(struct cap *c, uint64_t skipped_before, uint64_t unreadable)
{
    struct gpucore_writer_stats s;
    uint64_t delta;

    if (gpucore_writer_get_stats(c->w, &s) != GPUCORE_OK)
        return;
    delta = s.skipped_bytes > skipped_before ? s.skipped_bytes - skipped_before : 0;
    if (unreadable > delta)
        unreadable = delta;
    count_skipped(c, GPUCORE_REASON_IO_ERROR, unreadable);
    count_skipped(c, s.truncated ? s.truncation_reason : GPUCORE_REASON_IO_ERROR,
                  delta - unreadable);
    if (s.truncated) {
        c->res->truncated = 1;
        if (!c->res->truncation_reason)
            c->res->truncation_reason = s.truncation_reason;
    }
}

/*
 * Write [addr, addr + size) as segments of at most one chunk, checking the clock and the
 * interrupted flag between chunks. Returns OK (also when the budget or deadline left parts
 * out: the writer recorded them) or a failure (writer failed, interrupted).
 */
static gpucore_status_t write_range(struct cap *c, uint64_t addr, uint64_t size, uint32_t tier,
                                    uint32_t p_flags, const char *label)
{
    uint64_t chunk = c->deadline_ns ? CAP_CHUNK_DEADLINE : CAP_CHUNK;
    struct gpucore_range_info info = {
        .sz = sizeof(info), .tier = tier, .p_flags = p_flags, .label = label
    };

    while (size) {
        /* Once the data is cut, the rest goes in one call: the writer only records it. */
        uint64_t n = size < chunk || c->res->truncated ? size : chunk;
        uint64_t skipped_before = writer_skipped(c), unreadable_before = c->unreadable_bytes;
        gpucore_status_t st;

        if (interrupted(c))
            return interrupted_fail(c);
        if (!c->res->truncated && deadline_passed(c)) {
            (void)gpucore_writer_stop(c->w, GPUCORE_REASON_DEADLINE);
            c->res->truncated = 1;
            c->res->truncation_reason = GPUCORE_REASON_DEADLINE;
        }
        st = gpucore_writer_add_segment_fn(c->w, addr, n, &info, writer_read, c);
        if (st == GPUCORE_E_LIMIT) {
            /* the writer recorded the range as skipped */
            note_writer_state(c, skipped_before, c->unreadable_bytes - unreadable_before);
        } else if (st != GPUCORE_OK) {
            if (c->read_fail != GPUCORE_OK) {
                *c->diag = c->read_diag;
                if (c->read_fail == GPUCORE_E_NOTFOUND)
                    return gc_diag_set(c->diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                                       "process %ld exited during the capture: no core written",
                                       (long)c->pid);
                return c->read_fail;
            }
            if (st == GPUCORE_E_INTR)
                return interrupted_fail(c);
            return gc_diag_set(c->diag, st, GC_NO_OFFSET, "%s: writing the core failed: %s",
                               c->res->path,
                               gpucore_writer_errmsg(c->w)[0] ? gpucore_writer_errmsg(c->w)
                                                               : gpucore_strerror(st));
        } else {
            note_writer_state(c, skipped_before, c->unreadable_bytes - unreadable_before);
        }
        addr += n;
        size -= n;
    }
    return GPUCORE_OK;
}

static gpucore_status_t write_set(struct cap *c, const struct gc_rangeset *s, uint32_t tier,
                                  const struct gc_plan *p, const struct gc_kfd_mapping *maps,
                                  uint32_t nmaps)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const struct gc_range *r = &s->r[i];
        uint64_t size = r->end ? r->end - r->start : UINT64_MAX - r->start;

        GC_TRY(write_range(c, r->start, size, tier, 0,
                           range_label(p, maps, nmaps, r->start, gpucore_tier_name(tier))));
    }
    return GPUCORE_OK;
}

static void skip_set(struct cap *c, const struct gc_rangeset *s, uint32_t tier, uint32_t reason,
                     const struct gc_plan *p, const struct gc_kfd_mapping *maps, uint32_t nmaps)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const struct gc_range *r = &s->r[i];
        uint64_t size = r->end ? r->end - r->start : UINT64_MAX - r->start;
        struct gpucore_range_info info = {
            .sz = sizeof(info), .tier = tier,
            .label = range_label(p, maps, nmaps, r->start, gpucore_tier_name(tier))
        };

        if (gpucore_writer_record_skip(c->w, r->start, size, &info, reason) == GPUCORE_OK)
            count_skipped(c, reason, size);
    }
}

/*
 * Write [start, end) of the selected host memory, cut where the selected ranges (each one
 * mapping's, with its flags and label) meet.
 */
static gpucore_status_t write_host_span(struct cap *c, const struct gc_host_ranges *hr,
                                        uint64_t start, uint64_t end)
{
    while (start < end) {
        uint32_t a = 0, b = hr->count;
        const struct gc_host_range *r;
        uint64_t stop;

        /* The selected range holding start: the last one starting at or below it. */
        while (a < b) {
            uint32_t mid = a + (b - a) / 2;

            if (hr->r[mid].start <= start)
                a = mid + 1;
            else
                b = mid;
        }
        if (a == 0)
            return GPUCORE_OK; /* cannot happen: the span comes from the selected ranges */
        r = &hr->r[a - 1];
        stop = r->start + r->size < end ? r->start + r->size : end;
        if (stop <= start)
            return GPUCORE_OK;
        GC_TRY(write_range(c, start, stop - start, GPUCORE_TIER_HOST, r->p_flags, r->label));
        start = stop;
    }
    return GPUCORE_OK;
}

/* The host memory a capture writes, selected before any is written. */
struct host_sel {
    struct gc_host_ranges hr; /* the mappings by the kernel's rules, minus GPU mappings */
    struct gc_rangeset sel;   /* hr's ranges minus what the GPU tiers write */
};

static void host_sel_free(struct host_sel *hs)
{
    gc_host_ranges_free(&hs->hr);
    gc_rangeset_free(&hs->sel);
}

/*
 * Select the host memory: the kernel's rules (coredump_filter), minus GPU mappings and minus
 * @p gpu_written (NULL: none). Its size is the host part of the planned bytes.
 */
static gpucore_status_t select_host(struct cap *c, const struct gc_procmaps *pm,
                                    const struct gc_kfd_mapping *maps, uint32_t nmaps,
                                    const struct gc_rangeset *gpu_written, struct host_sel *hs)
{
    struct gc_rangeset exclude = GC_RANGESET_INIT;
    gpucore_status_t st = GPUCORE_OK;

    for (uint32_t i = 0; i < nmaps && st == GPUCORE_OK; i++)
        st = gc_rangeset_add(&exclude, maps[i].base, maps[i].size);
    if (st == GPUCORE_OK)
        st = gc_host_select(pm, gc_host_coredump_filter(c->pid), &exclude, &c->mem, &hs->hr,
                            c->diag);
    for (uint32_t i = 0; st == GPUCORE_OK && i < hs->hr.count; i++)
        st = gc_rangeset_add(&hs->sel, hs->hr.r[i].start, hs->hr.r[i].size);
    if (st == GPUCORE_OK && gpu_written)
        st = gc_rangeset_subtract(&hs->sel, gpu_written);
    if (st == GPUCORE_E_NOMEM)
        gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory selecting host memory");
    gc_rangeset_free(&exclude);
    return st;
}

/* Record every range of @p s as skipped for @p reason (tier HOST, labelled by its mapping). */
static void skip_host(struct cap *c, const struct host_sel *hs, const struct gc_rangeset *s,
                      uint32_t reason)
{
    for (uint32_t i = 0; i < s->count; i++) {
        uint64_t start = s->r[i].start, end = s->r[i].end;

        for (uint32_t j = 0; j < hs->hr.count && start < end; j++) {
            const struct gc_host_range *r = &hs->hr.r[j];
            uint64_t a = r->start > start ? r->start : start;
            uint64_t b = r->start + r->size < end ? r->start + r->size : end;
            struct gpucore_range_info info = { .sz = sizeof(info),
                                               .tier = GPUCORE_TIER_HOST,
                                               .p_flags = r->p_flags,
                                               .label = r->label };

            if (b > a && gpucore_writer_record_skip(c->w, a, b - a, &info, reason) == GPUCORE_OK)
                count_skipped(c, reason, b - a);
        }
    }
}

/*
 * --no-host-memory and --redact (docs/privacy.md): take out of the selected host memory what
 * they withhold, and record it. Both keep the threads' stacks and what makes them readable
 * without holding data of the program: mappings that are not writable and are backed by a file
 * or are the [vdso] (their bytes are the file's or the kernel's: under the kernel's default
 * rules, the ELF header pages a debugger identifies the modules by) and the dynamic linker's
 * chain (@p early, replaced by the chain's own bytes: the pages around a node dlopen
 * malloc'ed are the program's heap). Without these neither gdb nor analyze names a frame.
 * --redact also withholds the argument and environment strings at the top of the main stack.
 * What is withheld is recorded for POLICY (--no-host-memory) or REDACTED (--redact alone).
 */
static gpucore_status_t withhold_host(struct cap *c, const struct gc_procmaps *pm,
                                      struct host_sel *hs, struct gc_rangeset *early)
{
    struct gc_rangeset keep = GC_RANGESET_INIT, out = GC_RANGESET_INIT;
    gpucore_status_t st = gc_host_stacks(pm, c->t, &keep);
    uint64_t arg_lo, arg_hi;

    for (uint32_t i = 0; st == GPUCORE_OK && i < hs->hr.count; i++) {
        const struct gc_host_range *r = &hs->hr.r[i];

        if (!(r->p_flags & 2u) && r->label &&
            (r->label[0] == '/' || strcmp(r->label, "[vdso]") == 0))
            st = gc_rangeset_add(&keep, r->start, r->size);
    }
    if (st == GPUCORE_OK) {
        gc_rangeset_clear(early); /* what is ordered early is what is kept */
        st = gc_host_link_map_exact(c->pid, "/proc", &c->mem, early, c->diag);
    }
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&keep, early);
    if (st == GPUCORE_OK && c->o->redact &&
        gc_host_arg_env(c->pid, "/proc", &arg_lo, &arg_hi) == GPUCORE_OK)
        st = gc_rangeset_remove(&keep, arg_lo, arg_hi - arg_lo);
    /* out = sel − keep; sel −= out */
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&out, &hs->sel);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&out, &keep);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&hs->sel, &out);
    if (st == GPUCORE_OK) {
        skip_host(c, hs, &out,
                  c->o->no_host_memory ? GPUCORE_REASON_POLICY : GPUCORE_REASON_REDACTED);
    }
    gc_rangeset_free(&keep);
    gc_rangeset_free(&out);
    if (st != GPUCORE_OK)
        return gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory selecting host memory");
    return GPUCORE_OK;
}

/*
 * One rank of the state tier. With --redact the kernel-argument values that are not pointers
 * (plan.h: kernarg_values) are recorded as REDACTED instead of written.
 */
static gpucore_status_t write_state_rank(struct cap *c, const struct gc_plan *p, uint32_t r,
                                         const struct gc_kfd_mapping *maps, uint32_t nmaps)
{
    struct gc_rangeset w = GC_RANGESET_INIT, red = GC_RANGESET_INIT;
    gpucore_status_t st;

    if (!c->o->redact || !p->kernarg_values.count)
        return write_set(c, &p->state_rank[r], GPUCORE_TIER_STATE, p, maps, nmaps);
    /* red = rank ∩ values = rank − (rank − values); w = rank − values */
    st = gc_rangeset_union(&w, &p->state_rank[r]);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&w, &p->kernarg_values);
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&red, &p->state_rank[r]);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&red, &w);
    if (st != GPUCORE_OK) {
        st = gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory");
    } else {
        skip_set(c, &red, GPUCORE_TIER_STATE, GPUCORE_REASON_REDACTED, p, maps, nmaps);
        st = write_set(c, &w, GPUCORE_TIER_STATE, p, maps, nmaps);
    }
    gc_rangeset_free(&w);
    gc_rangeset_free(&red);
    return st;
}

/*
 * The referenced and all tiers under --redact: what lies in the runtime's own structures (CWSR
 * areas, AQL rings, loaded code objects: mappings the driver names so) is written; the rest,
 * buffers of the program (and memory of unknown use, all the linux backend can tell), scratch
 * and kernarg segments, is recorded as REDACTED.
 */
static gpucore_status_t write_redacted_tier(struct cap *c, const struct gc_plan *p, uint32_t t,
                                            const struct gc_kfd_mapping *maps, uint32_t nmaps)
{
    struct gc_rangeset keep = GC_RANGESET_INIT, w = GC_RANGESET_INIT, red = GC_RANGESET_INIT;
    gpucore_status_t st = GPUCORE_OK;

    for (uint32_t i = 0; st == GPUCORE_OK && i < nmaps; i++)
        if (maps[i].kind == GC_KFD_MEM_CWSR || maps[i].kind == GC_KFD_MEM_RING ||
            maps[i].kind == GC_KFD_MEM_CODE)
            st = gc_rangeset_add(&keep, maps[i].base, maps[i].size);
    /* red = tier − keep; w = tier − red */
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&red, &p->tier[t]);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&red, &keep);
    if (st == GPUCORE_OK)
        st = gc_rangeset_union(&w, &p->tier[t]);
    if (st == GPUCORE_OK)
        st = gc_rangeset_subtract(&w, &red);
    if (st != GPUCORE_OK) {
        st = gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory");
    } else {
        skip_set(c, &red, t, GPUCORE_REASON_REDACTED, p, maps, nmaps);
        st = write_set(c, &w, t, p, maps, nmaps);
    }
    gc_rangeset_free(&keep);
    gc_rangeset_free(&w);
    gc_rangeset_free(&red);
    return st;
}

/*
 * Write the selected host memory in the order of gc_host_prioritize (each thread's stack at
 * SP, what registers point at, the rest of the stacks, then the rest), so a budget cuts what
 * a backtrace needs least; then record what the rules left out.
 */
static gpucore_status_t write_host(struct cap *c, const struct gc_procmaps *pm,
                                   struct host_sel *hs)
{
    struct gc_rangeset early = GC_RANGESET_INIT, prio[GC_HOST_PRIORITIES];
    gpucore_status_t st;

    for (uint32_t p = 0; p < GC_HOST_PRIORITIES; p++)
        prio[p] = (struct gc_rangeset)GC_RANGESET_INIT;
    st = gc_host_link_map(c->pid, "/proc", &c->mem, &early, c->diag);
    if (st == GPUCORE_OK && (c->o->redact || c->o->no_host_memory))
        st = withhold_host(c, pm, hs, &early);
    if (st == GPUCORE_OK)
        st = gc_host_prioritize(&hs->sel, pm, c->t, &early, prio, c->diag);
    for (uint32_t p = 0; p < GC_HOST_PRIORITIES && st == GPUCORE_OK; p++)
        for (uint32_t j = 0; st == GPUCORE_OK && j < prio[p].count; j++)
            st = write_host_span(c, &hs->hr, prio[p].r[j].start, prio[p].r[j].end);
    for (uint32_t i = 0; st == GPUCORE_OK && i < hs->hr.nskipped; i++) {
        const struct gc_host_range *r = &hs->hr.skipped[i];
        uint32_t reason = r->reason ? r->reason : GPUCORE_REASON_POLICY;
        struct gpucore_range_info info = {
            .sz = sizeof(info), .tier = GPUCORE_TIER_HOST, .p_flags = r->p_flags,
            .label = r->label
        };

        if (r->size &&
            gpucore_writer_record_skip(c->w, r->start, r->size, &info, reason) == GPUCORE_OK)
            count_skipped(c, reason, r->size);
    }
    if (st == GPUCORE_E_NOMEM)
        gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory selecting host memory");
    gc_rangeset_free(&early);
    for (uint32_t p = 0; p < GC_HOST_PRIORITIES; p++)
        gc_rangeset_free(&prio[p]);
    return st;
}

/* ---- notes ------------------------------------------------------------------------------- */

static gpucore_status_t add_encoded(struct cap *c, uint32_t type, gpucore_status_t est, void *desc,
                                    size_t size, const char *what)
{
    gpucore_status_t st = est;

    if (st == GPUCORE_OK)
        st = gpucore_writer_add_note(c->w, GPUCORE_NOTE_OWNER, type, desc, size);
    gpucore_free(desc);
    if (st != GPUCORE_OK)
        return gc_diag_set(c->diag, st, GC_NO_OFFSET, "cannot add the %s note: %s", what,
                           gpucore_strerror(st));
    return GPUCORE_OK;
}

/* /proc/PID/<what> into a gc_malloc'ed buffer (NUL-terminated); *ret_len its length. */
static char *slurp_proc(pid_t pid, const char *what, size_t *ret_len)
{
    char path[64];
    FILE *f;
    char *buf;
    size_t n;

    *ret_len = 0;
    snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
    f = fopen(path, "re");
    if (!f)
        return NULL;
    buf = gc_malloc(4097);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    n = fread(buf, 1, 4096, f);
    fclose(f);
    buf[n] = '\0';
    *ret_len = n;
    return buf;
}

/* The real uid of @p pid (the first number of /proc/PID/status's "Uid:" line), -1 if unknown. */
static int64_t target_uid(pid_t pid)
{
    size_t n = 0;
    char *status = slurp_proc(pid, "status", &n), *line, *end;
    unsigned long long uid;
    int64_t r = -1;

    line = status ? strstr(status, "\nUid:\t") : NULL;
    if (line) {
        errno = 0;
        uid = strtoull(line + 6, &end, 10);
        if (errno == 0 && end != line + 6 && (*end == '\t' || *end == '\n') && uid <= UINT32_MAX)
            r = (int64_t)uid;
    }
    gc_free(status);
    return r;
}

/*
 * A string for the metadata note, which holds UTF-8 only: @p s (@p n bytes, which may be
 * changed) with every byte where a UTF-8 sequence breaks made '?'. The target chooses its
 * executable's name, command line and environment: a name in Latin-1 must not cost the core.
 */
static gpucore_str_t meta_str(char *s, size_t n)
{
    gc_utf8_scrub(s, n);
    return (gpucore_str_t){ s, (uint32_t)n };
}

static gpucore_status_t add_meta(struct cap *c, const struct gc_plan *p, uint32_t dev_esize,
                                 uint32_t q_esize, uint32_t kmaj, uint32_t kmin)
{
    gpucore_capture_meta_t m;
    struct utsname u;
    char host[256] = "", exe[4096] = "";
    char job[GC_CAPTURE_VALUE_MAX + 1], rank[GC_CAPTURE_VALUE_MAX + 1];
    const struct gc_capture_vars *vars = &c->vars;
    int64_t uid;
    char *cmdline, *options = NULL;
    size_t cmdlen = 0;
    ssize_t n;
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;
    char linkpath[64];

    (void)p;
    memset(&m, 0, sizeof(m));
    m.time_ns = c->start_real_ns;
    m.duration_ns = clock_ns(CLOCK_MONOTONIC) - c->start_mono_ns;
    m.pid = (uint32_t)c->pid;
    m.trigger = c->res->trigger;
    m.tier = c->o->tier;
    m.flags = c->flags;
    m.max_size = c->o->max_size;
    m.deadline_ms = c->o->deadline_ms;
    m.kfd_major = kmaj;
    m.kfd_minor = kmin;
    m.kfd_device_entry_size = dev_esize;
    m.kfd_queue_entry_size = q_esize;
    m.signal = 0;
    m.error_thread = (uint32_t)c->res->error_thread;
    m.compress_level = c->o->compress ? (c->o->compress_level ? c->o->compress_level : 3) : 0;
    m.producer = (gpucore_str_t){ "gpucore", 7 };
    m.producer_version = (gpucore_str_t){ GPUCORE_VERSION_STRING,
                                          (uint32_t)strlen(GPUCORE_VERSION_STRING) };
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        m.hostname = meta_str(host, strlen(host));
    }
    if (uname(&u) == 0)
        m.kernel = meta_str(u.release, strlen(u.release));
    snprintf(linkpath, sizeof(linkpath), "/proc/%ld/exe", (long)c->pid);
    n = readlink(linkpath, exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(c->res->exe, sizeof(c->res->exe), "%s", exe);
        m.exe = meta_str(exe, (size_t)n);
    }
    cmdline = slurp_proc(c->pid, "cmdline", &cmdlen);
    /* The command line keeps its NUL separators but not the trailing one. */
    if (cmdline && cmdlen && cmdline[cmdlen - 1] == '\0')
        cmdlen--;
    if (cmdline && c->o->redact) /* the arguments are user data; argv[0] names the program */
        cmdlen = strnlen(cmdline, cmdlen);
    if (cmdline && cmdlen)
        m.cmdline = meta_str(cmdline, cmdlen);
    if (c->o->options_text && *c->o->options_text && (options = strdup(c->o->options_text)))
        m.options = meta_str(options, strlen(options));
    /* Who and which job: what the output pattern's %j and %r read, raw but for broken UTF-8
       (a reader treats every string of a core as hostile), at most GC_CAPTURE_VALUE_MAX bytes. */
    uid = target_uid(c->pid);
    if (uid >= 0) {
        m.uid = (uint32_t)uid;
        m.flags |= GPUCORE_META_UID_KNOWN;
    }
    if (vars->job_id && *vars->job_id) {
        snprintf(job, sizeof(job), "%s", vars->job_id);
        m.job = meta_str(job, strlen(job));
    }
    if (vars->rank && *vars->rank) {
        snprintf(rank, sizeof(rank), "%s", vars->rank);
        m.rank = meta_str(rank, strlen(rank));
    }
    /* The exception that triggered the capture (the first raised), and the faulting address
     * of a memory violation, whichever exception record carried it. */
    if (c->nexc) {
        m.exception_code = c->exc[0].code;
        m.exception_gpu_id = c->exc[0].gpu_id;
        m.exception_queue_id = c->exc[0].queue_id;
    }
    for (uint32_t i = 0; i < c->nexc && !m.fault_address; i++) {
        m.fault_address = c->exc[i].fault_va;
        m.fault_reasons = c->exc[i].fault_reasons;
    }
    st = gpucore_capture_meta_encode(&m, &desc, &size, c->diag);
    gc_free(cmdline);
    free(options);
    return add_encoded(c, GPUCORE_NT_CAPTURE_META, st, desc, size, "capture metadata");
}

/* ---- the driver side -------------------------------------------------------------------- */

/*
 * One round of the target's ptrace events (gc_tracee_poll): GPUCORE_E_INTR when a signal to
 * gpucore cut it short (the caller checks its flag and polls again), the poll's failure with
 * the diag filled, or OK with *ret_event; a process that exited is recorded in the result.
 */
static gpucore_status_t poll_target(struct cap *c, int timeout_ms, enum gc_tracee_event *ret_event)
{
    gpucore_diag_t d = { 0 };
    gpucore_status_t st;

    *ret_event = GC_TRACEE_NOTHING;
    st = gc_tracee_poll(c->t, timeout_ms, ret_event, &d);
    if (st != GPUCORE_OK && st != GPUCORE_E_INTR)
        *c->diag = d;
    if (st == GPUCORE_OK && *ret_event == GC_TRACEE_EXITED) {
        c->res->exited = 1;
        c->res->exit_status = gc_tracee_exit_status(c->t);
    }
    return st;
}

/* RUN: handle the command's pending ptrace stops (thread creation above all) until none comes
 * for one slice. The simulated driver's thread is born stopped (PTRACE_O_TRACECLONE) and
 * answers nothing until it is resumed here. Returns OK, or NOTFOUND with res->exited. */
static gpucore_status_t settle(struct cap *c, uint64_t until)
{
    for (;;) {
        enum gc_tracee_event ev;
        gpucore_status_t st;

        if (interrupted(c))
            return interrupted_fail(c);
        progress_tick(c);
        st = poll_target(c, CAP_WAIT_SLICE_MS, &ev);
        if (st == GPUCORE_E_INTR)
            continue;
        if (st != GPUCORE_OK)
            return st;
        if (ev == GC_TRACEE_EXITED)
            return GPUCORE_E_NOTFOUND;
        if (ev == GC_TRACEE_NOTHING || clock_ns(CLOCK_MONOTONIC) >= until)
            return GPUCORE_OK;
    }
}

static gpucore_status_t open_kfd(struct cap *c)
{
    int retry = c->o->mode == GC_CAPTURE_RUN && c->o->kfd.backend == GC_KFD_BACKEND_SIM;
    uint64_t until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)CAP_OPEN_RETRY_MS * 1000000ull;
    gpucore_status_t st;

    for (;;) {
        if (retry)
            GC_TRY(settle(c, until));
        st = gc_kfd_open(c->pid, &c->o->kfd, &c->k, c->diag);
        /* RUN with the simulated driver: its socket appears once the command is up (NODEV
         * until then), and a driver thread that was still being born may not have answered
         * (IO: the request timed out). */
        if (!retry || (st != GPUCORE_E_NODEV && st != GPUCORE_E_IO) ||
            clock_ns(CLOCK_MONOTONIC) >= until)
            return st;
    }
}

/*
 * The kernel's memory exception record (kfd_hsa_memory_exception_data) begins with four u32
 * failure flags: NotPresent, ReadOnly, NoExecute, imprecise. As GPUCORE_FAULT_* bits (the
 * runtime's fault-reason bits, which the runtime derives from these the same way).
 */
static uint32_t fault_reasons_of(const struct gc_kfd_memory_fault *f)
{
    return (f->not_present ? GPUCORE_FAULT_PAGE_NOT_PRESENT : 0) |
           (f->read_only ? GPUCORE_FAULT_READ_ONLY : 0) |
           (f->no_execute ? GPUCORE_FAULT_NO_EXECUTE : 0) |
           (f->imprecise ? GPUCORE_FAULT_IMPRECISE : 0);
}

/* Drain the raised events into c->exc (QUERY_DEBUG_EVENT until none), with the fault address
 * of a memory violation (QUERY_EXCEPTION_INFO). */
static void collect_events(struct cap *c)
{
    for (int guard = 0; guard < 256; guard++) {
        uint64_t raised = 0;
        uint32_t gpu = 0, queue = 0;
        gpucore_diag_t d = { 0 };
        gpucore_status_t st = gc_kfd_query_debug_event(c->k, 0, &raised, &gpu, &queue, &d);

        if (st == GPUCORE_E_NOTFOUND)
            break; /* none left */
        if (st != GPUCORE_OK) {
            warn(c, "the raised GPU exceptions could not be read (%s): the core does not say "
                    "which exception stopped the process",
                 d.message[0] ? d.message : gpucore_strerror(st));
            break;
        }
        for (uint32_t code = 1; code < EC_MAX && raised; code++) {
            struct gc_plan_exception *e;

            if (!(raised & KFD_EC_MASK(code)))
                continue;
            raised &= ~KFD_EC_MASK(code);
            if (code == EC_PROCESS_RUNTIME) {
                c->runtime_started = 1; /* not an error: the runtime's start, to answer */
                continue;
            }
            if (c->nexc == CAP_MAX_EXCEPTIONS)
                break;
            e = &c->exc[c->nexc++];
            e->code = code;
            e->gpu_id = gpu;
            e->queue_id = queue;
            e->fault_va = 0;
            e->fault_reasons = 0;
            if (code == EC_DEVICE_MEMORY_VIOLATION) {
                uint8_t rec[GC_KFD_MEMORY_FAULT_SIZE];
                uint32_t sz = sizeof(rec);
                struct gc_kfd_memory_fault f;

                st = gc_kfd_query_exception_info(c->k, gpu, code, 0, rec, &sz, &d);
                if (st == GPUCORE_OK &&
                    gc_kfd_memory_fault_decode(rec, sz < sizeof(rec) ? sz : sizeof(rec), &f) ==
                            GPUCORE_OK) {
                    e->fault_va = f.va;
                    e->fault_reasons = fault_reasons_of(&f);
                } else {
                    warn(c, "the fault address of the memory violation on GPU 0x%x could not "
                            "be read (%s)",
                         gpu, st != GPUCORE_OK ? (d.message[0] ? d.message : gpucore_strerror(st))
                                               : "short exception record");
                }
            }
            if (!c->res->exception_code)
                c->res->exception_code = code;
        }
    }
    c->res->trigger = GPUCORE_TRIGGER_QUEUE_ERROR;
    for (uint32_t i = 0; i < c->nexc; i++)
        if (c->exc[i].code == EC_QUEUE_WAVE_MEMORY_VIOLATION ||
            c->exc[i].code == EC_DEVICE_MEMORY_VIOLATION ||
            c->exc[i].code == EC_QUEUE_WAVE_APERTURE_VIOLATION)
            c->res->trigger = GPUCORE_TRIGGER_MEMORY_VIOLATION;
}

/*
 * WATCH/RUN: wait for a raised exception (the event fd), the target's exit, or a signal.
 * Returns OK with an exception collected, OK with res->exited (no GPU error), or a failure.
 */
static void answer_runtime(struct cap *c);
static void refresh_runtime_info(struct cap *c);

static gpucore_status_t wait_for_exception(struct cap *c)
{
    int efd = gc_kfd_event_fd(c->k);

    progress_tier(c, NULL, "waiting for a GPU exception");
    for (;;) {
        enum gc_tracee_event ev = GC_TRACEE_NOTHING;
        gpucore_diag_t d = { 0 };
        struct pollfd pfd = { .fd = efd, .events = POLLIN };
        gpucore_status_t st;
        int rc;

        if (interrupted(c))
            return interrupted_fail(c);
        progress_tick(c);
        rc = efd >= 0 ? poll(&pfd, 1, CAP_WAIT_SLICE_MS) : 0;
        if (rc > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP))) {
            (void)gc_kfd_wait_event(c->k, 0, &d); /* drains the fd */
            collect_events(c);
            if (c->runtime_started) { /* watched from before the runtime's start */
                answer_runtime(c);
                refresh_runtime_info(c);
            }
            if (c->nexc)
                return GPUCORE_OK;
        }
        st = poll_target(c, efd >= 0 ? 0 : CAP_WAIT_SLICE_MS, &ev);
        if (st == GPUCORE_E_INTR)
            continue;
        if (st != GPUCORE_OK)
            return st;
        if (ev == GC_TRACEE_EXITED)
            return GPUCORE_OK;
    }
}

/* ---- the capture proper ------------------------------------------------------------------ */

struct gpu_state {
    struct kfd_runtime_info rinfo;
    struct kfd_dbg_device_info_entry *devs;
    uint32_t ndevs, dev_esize;
    struct kfd_queue_snapshot_entry *queues;
    uint32_t nqueues, q_esize;
    struct gc_kfd_mapping *maps;
    uint32_t nmaps;
    struct gc_plan *plan;
    uint32_t kmaj, kmin;
};

static void gpu_state_free(struct gpu_state *g)
{
    gc_free(g->devs);
    gc_free(g->queues);
    gc_free(g->maps);
    gc_plan_free(g->plan);
    memset(g, 0, sizeof(*g));
}

/* Suspend the @p n queues of a snapshot; per-queue failures are warnings. */
static gpucore_status_t suspend_all(struct cap *c, const struct kfd_queue_snapshot_entry *queues,
                                    uint32_t n)
{
    uint32_t *ids, done = 0, bad = 0;
    gpucore_status_t st;

    if (n == 0)
        return GPUCORE_OK;
    ids = gc_calloc_array(n, sizeof(*ids));
    c->resume_ids = gc_calloc_array(n, sizeof(*ids));
    if (!ids || !c->resume_ids) {
        gc_free(ids);
        return gc_diag_set(c->diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        ids[i] = queues[i].queue_id & GC_KFD_QUEUE_ID_MASK;
    progress_tier(c, NULL, "suspending %u queue%s", n, n == 1 ? "" : "s");
    st = gc_kfd_suspend_queues(c->k, ids, n, 0, 0, &done, c->diag);
    if (st != GPUCORE_OK) {
        gc_free(ids);
        gc_diag_prefix(c->diag, "suspending the queues");
        return st;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ids[i] & (GC_KFD_QUEUE_ERROR_MASK | GC_KFD_QUEUE_INVALID_MASK)) {
            if (bad++ == 0)
                warn(c, "queue %u could not be suspended (%s): its state may be inconsistent",
                     ids[i] & GC_KFD_QUEUE_ID_MASK,
                     (ids[i] & GC_KFD_QUEUE_INVALID_MASK) ? "no such queue" : "driver error");
            else
                c->res->nwarnings++;
        } else {
            c->resume_ids[c->nresume++] = ids[i] & GC_KFD_QUEUE_ID_MASK;
        }
    }
    if (!bad)
        c->flags |= GPUCORE_META_QUEUES_SUSPENDED;
    gc_free(ids);
    return GPUCORE_OK;
}

/* A queue that the snapshot after SUSPEND lists but the one before did not: it was created
   meanwhile (host threads are stopped, so only by a thread the driver keeps running) and was
   not suspended. Its save area may be stale; say so. */
static void warn_new_queues(struct cap *c, const struct kfd_queue_snapshot_entry *before,
                            uint32_t nbefore, const struct gpu_state *g)
{
    for (uint32_t i = 0; i < g->nqueues; i++) {
        uint32_t id = g->queues[i].queue_id & GC_KFD_QUEUE_ID_MASK;
        uint32_t j = 0;

        while (j < nbefore && (before[j].queue_id & GC_KFD_QUEUE_ID_MASK) != id)
            j++;
        if (j == nbefore)
            warn(c, "queue %u appeared while the queues were being suspended: it was not "
                    "suspended and its waves may be missing", id);
    }
}

/*
 * Everything about the GPU: snapshots, suspension, mappings, the plan. In the order of
 * docs/kfd-debug-interface.md §12: a queue snapshot to learn the queue ids, SUSPEND, then the
 * device and queue snapshots the note records, taken while the queues are suspended (the
 * driver has just written their save-area headers; nothing is cleared).
 */
static gpucore_status_t gpu_prepare(struct cap *c, struct gpu_state *g)
{
    struct gc_plan_input in;
    struct kfd_queue_snapshot_entry *before = NULL;
    uint32_t nbefore = 0, esize = 0;
    gpucore_status_t st;

    progress_tier(c, NULL, "reading the queue list");
    GC_TRY(gc_kfd_queue_snapshot(c->k, 0, &before, &nbefore, &esize, c->diag));
    st = suspend_all(c, before, nbefore);
    if (st == GPUCORE_OK) {
        progress_tier(c, NULL, "reading device and queue snapshots");
        st = gc_kfd_device_snapshot(c->k, 0, &g->devs, &g->ndevs, &g->dev_esize, c->diag);
    }
    if (st == GPUCORE_OK)
        st = gc_kfd_queue_snapshot(c->k, 0, &g->queues, &g->nqueues, &g->q_esize, c->diag);
    if (st == GPUCORE_OK)
        warn_new_queues(c, before, nbefore, g);
    gc_free(before);
    if (st != GPUCORE_OK)
        return st;
    GC_TRY(gc_kfd_gpu_mappings(c->k, &g->maps, &g->nmaps, c->diag));
    if (interrupted(c))
        return interrupted_fail(c);
    progress_tier(c, NULL, "planning: %u queue%s on %u agent%s", g->nqueues,
                  g->nqueues == 1 ? "" : "s", g->ndevs, g->ndevs == 1 ? "" : "s");
    memset(&in, 0, sizeof(in));
    in.pid = (uint32_t)c->pid;
    in.kfd_major = g->kmaj;
    in.kfd_minor = g->kmin;
    in.rinfo = g->rinfo;
    in.devices = g->devs;
    in.ndevices = g->ndevs;
    in.device_entry_size = g->dev_esize;
    in.queues = g->queues;
    in.nqueues = g->nqueues;
    in.queue_entry_size = g->q_esize;
    in.maps = g->maps;
    in.nmaps = g->nmaps;
    in.exceptions = c->exc;
    in.nexceptions = c->nexc;
    in.mem = c->mem;
    in.read_file = plan_read_file;
    in.read_file_user = c;
    if (gc_plan_build(&in, &g->plan, c->diag) != GPUCORE_OK) {
        if (c->read_fail == GPUCORE_E_NOTFOUND)
            return gc_diag_set(c->diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                               "process %ld exited during the capture: no core written",
                               (long)c->pid);
        if (interrupted(c))
            return interrupted_fail(c);
        return c->diag->status;
    }
    for (uint32_t i = 0; i < g->plan->nwarnings; i++)
        warn(c, "%s", g->plan->warnings[i]);
    c->res->agents = g->plan->agents;
    c->res->queues = g->plan->queues;
    c->res->waves = g->plan->waves;
    c->res->faulting_waves = g->plan->faulting_waves;
    return GPUCORE_OK;
}

/*
 * What the head of the core (program headers and notes, written at the start of the file)
 * will take beyond what the writer knows when the memory is written: the notes come after it.
 * Generous, since an unused reservation is a hole, but only without a budget: there it would
 * count, and the writer moves the data instead when the head outgrows a small reservation.
 */
static uint64_t head_estimate(const struct cap *c, const struct gpu_state *g,
                              const struct gc_procmaps *pm)
{
    uint64_t est = CAP_HEAD_FIXED;

    if (c->o->max_size)
        return 0;
    est += (uint64_t)gc_tracee_thread_count(c->t) * CAP_HEAD_PER_THREAD;
    est += (uint64_t)pm->count * CAP_HEAD_PER_RANGE + 2 * (uint64_t)pm->strings_size;
    est += (uint64_t)g->nmaps * CAP_HEAD_PER_RANGE;
    if (g->plan)
        est += g->plan->amdgpu_note_size;
    return est;
}

static uint64_t gpu_planned(const struct gc_plan *p, uint32_t top);

/*
 * About how many bytes the core will hold, for the writer's choice of zstd frame size (an
 * estimate is enough; gpucore_writer_opts::expected_bytes): the GPU memory planned up to the
 * requested tier and the host memory the target has resident or swapped (every readable
 * mapping's whole size when the maps have no such counts), GPU mappings counted twice.
 */
static uint64_t expected_bytes(const struct cap *c, const struct gpu_state *g,
                               const struct gc_procmaps *pm)
{
    uint32_t top = c->o->tier > GPUCORE_TIER_ALL ? GPUCORE_TIER_ALL : c->o->tier;
    uint64_t n = head_estimate(c, g, pm) + (g->plan ? gpu_planned(g->plan, top) : 0);

    for (uint32_t i = 0; i < pm->count; i++) {
        const struct gc_procmap *m = &pm->maps[i];
        uint64_t kb = m->rss_kb + m->swap_kb;

        if (m->perms & GC_PROCMAP_READ)
            n += kb ? kb * 1024 : m->end - m->start;
    }
    return n;
}

/*
 * The writer's rename_on_exist: the name finishing found taken (another process created it
 * while the core was written) is numbered on from the one taken, never replaced; c->res->path
 * follows.
 */
static int next_free_name(void *user, uint32_t attempt, char *buf, size_t size)
{
    struct cap *c = user;
    uint32_t n = c->name_number + attempt;

    if (n > GC_CAPTURE_NUMBERED_MAX ||
        gc_capture_numbered_name(c->asked_path, n, c->o->compress, buf, size, NULL) != GPUCORE_OK)
        return -1;
    if (!c->renamed_from[0])
        snprintf(c->renamed_from, sizeof(c->renamed_from), "%s", c->res->path);
    snprintf(c->res->path, sizeof(c->res->path), "%s", buf);
    return 0;
}

static gpucore_status_t open_writer(struct cap *c, const struct gpu_state *g,
                                    const struct gc_procmaps *pm)
{
    struct gc_capture_vars *v = &c->vars;
    const struct gpucore_writer_opts *wo;
    char *asked = c->asked_path;
    gpucore_status_t st = GPUCORE_E_EXIST;
    uint32_t threads = c->o->threads;

    if (c->o->compress && threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        threads = n < 1 ? 1u : n > 8 ? 8u : (uint32_t)n;
    }
    gc_capture_vars_fill(v, c->pid, c->vars_storage, sizeof(c->vars_storage));
    v->time_s = (int64_t)(c->start_real_ns / 1000000000ull);
    GC_TRY(gc_capture_expand_path(c->o->output_pattern ? c->o->output_pattern : "gpucore.%p", v,
                                  asked, sizeof(c->asked_path), c->diag));
    /* The directory is made now, when there is a core to put in it (capture.h). */
    GC_TRY(gc_capture_make_dirs(asked, c->diag));
    wo = GPUCORE_OPTS(gpucore_writer_opts, .kind = GPUCORE_CORE_UNIFIED,
                       .max_bytes = c->o->max_size, .compress = c->o->compress ? 1u : 0u,
                       .compress_level = c->o->compress_level, .threads = threads,
                       .head_reserve = head_estimate(c, g, pm),
                       .expected_bytes = c->o->compress ? expected_bytes(c, g, pm) : 0,
                       .manifest_flags =
                               (c->o->redact ? GPUCORE_MANIFEST_REDACTED : 0u) |
                               (c->o->no_host_memory ? GPUCORE_MANIFEST_NO_HOST_MEMORY : 0u),
                       .rename_on_exist = next_free_name, .rename_user = c);
    /* A taken name is numbered, never replaced: the writer refuses an existing file. */
    for (uint32_t n = 0; st == GPUCORE_E_EXIST && n <= GC_CAPTURE_NUMBERED_MAX; n++) {
        GC_TRY(gc_capture_numbered_name(asked, n, c->o->compress, c->res->path,
                                        sizeof(c->res->path), c->diag));
        c->name_number = n;
        st = gpucore_writer_open(c->res->path, wo, &c->w, c->diag);
    }
    if (st == GPUCORE_E_EXIST)
        return gc_diag_set(c->diag, st, GC_NO_OFFSET, "%s and its numbered names up to .%u "
                           "exist: gpucore never overwrites a file", asked,
                           GC_CAPTURE_NUMBERED_MAX);
    if (st != GPUCORE_OK)
        gc_diag_prefix(c->diag, "%s", c->res->path);
    else if (strcmp(asked, c->res->path) != 0)
        warn(c, "%s exists: this core is %s (gpucore never overwrites a file)", asked,
             c->res->path);
    return st;
}

/* Memory: state tier, host, then the other GPU tiers up to the requested one. */
/*
 * Stop the driver's service threads (they run while the GPU state is read) and take their
 * registers, so that every host thread's registers and stack are of one moment: the host part
 * is written with every thread stopped. The registers taken now are the ones the core records
 * (resume_service keeps them). A thread that does not stop keeps running and is fetched last,
 * as before.
 */
static void stop_service(struct cap *c)
{
    gpucore_diag_t d = { 0 };
    int stopped = 0;

    for (uint32_t i = 0; i < c->nservice; i++)
        stopped |= gc_tracee_stop_thread(c->t, c->service[i], CAP_STOP_TIMEOUT_MS, &d) ==
                   GPUCORE_OK;
    if (stopped && gc_tracee_fetch_missing_regs(c->t, &d) != GPUCORE_OK)
        warn(c, "%s", d.message);
}

/* Let the service threads run again (the driver answers the resume and disable requests),
 * keeping the registers stop_service took. */
static void resume_service(struct cap *c)
{
    gpucore_diag_t d = { 0 };

    for (uint32_t i = 0; i < c->nservice; i++) {
        uint32_t n = gc_tracee_thread_count(c->t);

        for (uint32_t j = 0; j < n; j++) {
            const struct gc_tracee_thread *th = gc_tracee_thread(c->t, j);

            if (th->tid == c->service[i] && th->stopped)
                (void)gc_tracee_resume_thread(c->t, th->tid, &d);
        }
    }
}

/* The GPU bytes write_memory writes: the state tier's ranks and the tiers up to @p top. */
static uint64_t gpu_planned(const struct gc_plan *p, uint32_t top)
{
    uint64_t n = 0;

    for (uint32_t r = 0; r < GC_PLAN_STATE_RANKS; r++)
        n += gc_rangeset_bytes(&p->state_rank[r]);
    for (uint32_t t = GPUCORE_TIER_SCRATCH; t <= top && t < GC_PLAN_TIERS; t++)
        n += gc_rangeset_bytes(&p->tier[t]);
    return n;
}

static gpucore_status_t write_memory(struct cap *c, struct gpu_state *g,
                                     const struct gc_procmaps *pm)
{
    struct gc_rangeset written = GC_RANGESET_INIT;
    struct host_sel hs = { .sel = GC_RANGESET_INIT };
    uint32_t top = c->o->tier > GPUCORE_TIER_ALL ? GPUCORE_TIER_ALL : c->o->tier;
    gpucore_status_t st = GPUCORE_OK;
    struct gc_plan *p = g->plan;

    if (p)
        for (uint32_t t = 0; t <= top && st == GPUCORE_OK; t++)
            st = gc_rangeset_union(&written, &p->tier[t]);
    if (st != GPUCORE_OK) {
        gc_rangeset_free(&written);
        return gc_diag_set(c->diag, st, GC_NO_OFFSET, "out of memory");
    }
    st = select_host(c, pm, g->maps, g->nmaps, p ? &written : NULL, &hs);
    c->bytes_planned = gc_rangeset_bytes(&hs.sel) + (p ? gpu_planned(p, top) : 0);
    if (st == GPUCORE_OK && p) {
        /* Most needed first (plan.h: GC_PLAN_STATE_RANKS), so a budget cuts the least needed. */
        progress_tier(c, gpucore_tier_name(GPUCORE_TIER_STATE), "state tier");
        for (uint32_t r = 0; r < GC_PLAN_STATE_RANKS && st == GPUCORE_OK; r++)
            st = write_state_rank(c, p, r, g->maps, g->nmaps);
        if (st == GPUCORE_OK && !c->res->truncated)
            c->res->tiers_written = 1;
    }
    if (st == GPUCORE_OK) {
        progress_tier(c, "host", "host memory");
        stop_service(c);
        st = write_host(c, pm, &hs);
    }
    host_sel_free(&hs);
    for (uint32_t t = GPUCORE_TIER_SCRATCH; p && t < GC_PLAN_TIERS && st == GPUCORE_OK; t++) {
        if (t <= top) {
            progress_tier(c, gpucore_tier_name(t), "%s tier", gpucore_tier_name(t));
            if (c->o->redact && t >= GPUCORE_TIER_REFERENCED)
                st = write_redacted_tier(c, p, t, g->maps, g->nmaps);
            else
                st = write_set(c, &p->tier[t], t, p, g->maps, g->nmaps);
            if (st == GPUCORE_OK && !c->res->truncated && c->res->tiers_written == t)
                c->res->tiers_written = t + 1;
        } else {
            skip_set(c, &p->tier[t], t, GPUCORE_REASON_TIER, p, g->maps, g->nmaps);
        }
    }
    /* Doorbells and MMIO are never read. */
    for (uint32_t i = 0; st == GPUCORE_OK && i < g->nmaps; i++) {
        if (g->maps[i].flags & GC_KFD_MAP_NO_READ) {
            struct gpucore_range_info info = {
                .sz = sizeof(info), .tier = GPUCORE_TIER_ALL,
                .label = g->maps[i].label[0] ? g->maps[i].label : "doorbell or MMIO"
            };

            (void)gpucore_writer_record_skip(c->w, g->maps[i].base, g->maps[i].size, &info,
                                             GPUCORE_REASON_SPECIAL);
        }
    }
    gc_rangeset_free(&written);
    return st;
}

static gpucore_status_t add_notes(struct cap *c, struct gpu_state *g, const struct gc_procmaps *pm)
{
    struct gc_host_note_input hin;
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    memset(&hin, 0, sizeof(hin));
    hin.pid = c->pid;
    hin.tracee = c->t;
    hin.maps = pm;
    hin.proc_root = "/proc";
    hin.default_signal = 0; /* no signal but the target's own: not signalled, as gcore says */
    hin.first_thread = c->res->error_thread;
    hin.psargs_first_only = c->o->redact;
    st = gc_host_add_notes(c->w, &hin, c->diag);
    if (st != GPUCORE_OK) {
        if (st == GPUCORE_E_NOTFOUND)
            return gc_diag_set(c->diag, st, GC_NO_OFFSET,
                               "process %ld exited during the capture: no core written",
                               (long)c->pid);
        gc_diag_prefix(c->diag, "host notes");
        return st;
    }
    if (g->plan) {
        st = gpucore_writer_add_note(c->w, GPUCORE_AMDGPU_NOTE_OWNER,
                                     GPUCORE_NT_AMDGPU_KFD_CORE_STATE, g->plan->amdgpu_note,
                                     g->plan->amdgpu_note_size);
        GC_FAIL_IF(st != GPUCORE_OK, c->diag, st, GC_NO_OFFSET,
                   "cannot add the AMDGPU note: %s", gpucore_strerror(st));
    }
    GC_TRY(add_meta(c, g->plan, g->dev_esize, g->q_esize, g->kmaj, g->kmin));
    if (g->plan) {
        st = gpucore_code_objects_encode(&g->plan->code_objects, &desc, &size, c->diag);
        GC_TRY(add_encoded(c, GPUCORE_NT_CODE_OBJECTS, st, desc, size, "code objects"));
        desc = NULL;
        st = gpucore_alloc_map_encode(&g->plan->alloc_map, &desc, &size, c->diag);
        GC_TRY(add_encoded(c, GPUCORE_NT_ALLOC_MAP, st, desc, size, "allocation map"));
    }
    return GPUCORE_OK;
}

/*
 * NOW: what started the capture. On demand, unless the caller names the error that happened
 * before (opts->trigger, the runtime hook). Such an error was raised while no debugger held the
 * process, so the kernel kept no record of it (kfd_dbg_ev_raise records exceptions only for a
 * debug-enabled process): with no exception from the driver, the caller's is the core's.
 */
static void apply_trigger(struct cap *c)
{
    const struct gc_capture_trigger *t = c->o->trigger;

    c->res->trigger = GPUCORE_TRIGGER_ON_DEMAND;
    c->res->error_thread = 0;
    if (!t)
        return;
    c->res->trigger = t->trigger;
    if (t->error_thread > 0) {
        /* Only a thread of the target is recorded: the tid comes from the command line. */
        uint32_t n = gc_tracee_thread_count(c->t);

        for (uint32_t i = 0; i < n; i++)
            if (gc_tracee_thread(c->t, i)->tid == t->error_thread)
                c->res->error_thread = t->error_thread;
        if (!c->res->error_thread)
            warn(c, "--error-thread %ld is not a thread of process %ld: not recorded",
                 (long)t->error_thread, (long)c->pid);
    }
    if (c->nexc == 0 && t->exception_code) {
        struct gc_plan_exception *e = &c->exc[c->nexc++];

        e->code = t->exception_code;
        e->gpu_id = 0;
        e->queue_id = KFD_INVALID_QUEUEID;
        e->fault_va = t->fault_va;
        e->fault_reasons = t->fault_reasons;
        c->res->exception_code = t->exception_code;
    }
}

/* From "threads seized, driver open" to a published core. */
/*
 * Stop every thread of the target and make sure debugging is enabled (WATCH and RUN enabled
 * it before waiting). *ret_gpu is 0 when the runtime has not enabled debugging: the core is
 * host-only.
 */
static gpucore_status_t stop_target(struct cap *c, struct gpu_state *g, int *ret_gpu)
{
    gpucore_status_t st;

    *ret_gpu = 1;
    progress_tier(c, NULL, "stopping threads");
    GC_TRY(gc_tracee_stop_all(c->t, c->service, c->nservice, CAP_STOP_TIMEOUT_MS, c->diag));
    /* What the target mapped while it ran decides which of its pages are never touched. */
    gc_kfd_forget_mappings(c->k);
    c->flags |= GPUCORE_META_HOST_STOPPED;
    if (interrupted(c))
        return interrupted_fail(c);
    if (!c->enabled) {
        /* With the error exceptions in the mask, a queue error raised during the capture is
         * held for the debugger (and handed to the runtime at DISABLE) instead of reaching
         * the runtime while the target is being read. */
        progress_tier(c, NULL, "enabling debugging");
        st = gc_kfd_enable(c->k, CAP_WATCH_MASK, &g->rinfo, c->diag);
        if (st != GPUCORE_OK)
            return st;
        c->enabled = 1;
        collect_events(c);
        apply_trigger(c);
    } else {
        /* WATCH/RUN enabled before waiting; ENABLE reported the runtime then. */
        g->rinfo = c->rinfo_at_enable;
    }
    if (g->rinfo.runtime_state != GPUCORE_KFD_RUNTIME_ENABLED) {
        const char *name = gpucore_runtime_state_name(g->rinfo.runtime_state);

        warn(c, "GPU state not captured: the ROCm runtime has not enabled debugging "
                "(runtime_state %s); host-only core",
             name ? name : "unknown");
        *ret_gpu = 0;
    }
    return GPUCORE_OK;
}

/*
 * Memory is read: let the GPU go (through the driver's threads, running again), then stop
 * them for good. Their registers are those taken when the host memory was read
 * (stop_service); only threads that have none yet are read now.
 */
static gpucore_status_t release_after_memory(struct cap *c)
{
    gpucore_diag_t d = { 0 };

    progress_tier(c, NULL, "resuming queues");
    resume_service(c);
    cap_release_gpu(c);
    for (uint32_t i = 0; i < c->nservice; i++)
        (void)gc_tracee_stop_thread(c->t, c->service[i], CAP_STOP_TIMEOUT_MS, &d);
    return gc_tracee_fetch_missing_regs(c->t, c->diag);
}

/* Finish and publish the core; the result says what it holds. */
static gpucore_status_t finish_core(struct cap *c)
{
    struct gpucore_writer_stats ws;
    uint64_t skipped_before_finish;
    gpucore_status_t st;

    progress_tier(c, NULL, "finishing the core");
    note_writer_state(c, writer_skipped(c), 0);
    skipped_before_finish = writer_skipped(c);
    st = gpucore_writer_finish(c->w, &ws, c->diag);
    c->w = NULL;
    if (st == GPUCORE_E_LIMIT)
        c->res->over_budget = 1; /* the headers and notes alone exceed --max-size */
    if (st != GPUCORE_OK) {
        gc_diag_prefix(c->diag, "%s", c->res->path);
        return st;
    }
    c->res->written = 1;
    c->res->file_bytes = ws.file_bytes;
    if (c->renamed_from[0])
        warn(c, "%s appeared while the core was written: this core is %s (gpucore never "
                "overwrites a file)",
             c->renamed_from, c->res->path);
    if (ws.truncated) {
        c->res->truncated = 1;
        c->res->truncation_reason = ws.truncation_reason;
    }
    /* Finishing cuts segment data when the notes do not fit the budget. */
    if (ws.skipped_bytes > skipped_before_finish)
        count_skipped(c, ws.truncated ? ws.truncation_reason : GPUCORE_REASON_BUDGET,
                      ws.skipped_bytes - skipped_before_finish);
    /* What the summary calls skipped: memory left out by the tiers, the budgets or failed
     * reads, not the host mappings the kernel's rules leave out too. */
    c->res->skipped_bytes = c->res->skipped_by_reason[GPUCORE_REASON_TIER] +
                            c->res->skipped_by_reason[GPUCORE_REASON_BUDGET] +
                            c->res->skipped_by_reason[GPUCORE_REASON_DEADLINE] +
                            c->res->skipped_by_reason[GPUCORE_REASON_IO_ERROR];
    c->res->duration_ns = clock_ns(CLOCK_MONOTONIC) - c->start_mono_ns;
    return GPUCORE_OK;
}

static gpucore_status_t capture_proper(struct cap *c)
{
    struct gpu_state g;
    struct gc_procmaps pm;
    gpucore_diag_t d = { 0 };
    int gpu = 1;
    gpucore_status_t st;

    memset(&g, 0, sizeof(g));
    memset(&pm, 0, sizeof(pm));
    c->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
    c->start_real_ns = clock_ns(CLOCK_REALTIME);
    if (c->o->deadline_ms)
        c->deadline_ns = c->start_mono_ns + c->o->deadline_ms * 1000000ull;
    gc_kfd_version(c->k, &g.kmaj, &g.kmin);

    st = stop_target(c, &g, &gpu);
    if (st != GPUCORE_OK)
        goto out;
    if (gpu) {
        st = gpu_prepare(c, &g);
        if (st != GPUCORE_OK)
            goto out;
    } else {
        /* Keep GPU memory out of the host part all the same. */
        (void)gc_kfd_gpu_mappings(c->k, &g.maps, &g.nmaps, &d);
    }
    st = gc_procmaps_read(c->pid, NULL, &pm, c->diag);
    if (st != GPUCORE_OK)
        goto out;
    /* The stopped threads' stack pointers order the host memory (write_host); the service
     * threads, still running, are fetched again below with everyone else. */
    st = gc_tracee_fetch_regs(c->t, c->diag);
    if (st == GPUCORE_OK)
        st = open_writer(c, &g, &pm);
    if (st == GPUCORE_OK)
        st = write_memory(c, &g, &pm);
    if (st == GPUCORE_OK)
        st = release_after_memory(c);
    if (st == GPUCORE_OK)
        st = add_notes(c, &g, &pm);
    if (st == GPUCORE_OK && interrupted(c))
        st = interrupted_fail(c);
    if (st == GPUCORE_OK)
        st = finish_core(c);
out:
    gc_procmaps_free(&pm);
    gpu_state_free(&g);
    return st;
}

gpucore_status_t gc_capture_check_driver(pid_t pid, const struct gc_kfd_open_opts *kfd,
                                         int want_state, struct gc_capture_driver_check *ret,
                                         gpucore_diag_t *reterr_diag)
{
    struct gc_capture_driver_check r = { 0 };
    struct gc_kfd *k = NULL;
    gpucore_status_t st;

    GC_FAIL_IF(!kfd || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    GC_TRY(gc_kfd_open(pid, kfd, &k, reterr_diag));
    r.backend = gc_kfd_backend_name(k);
    gc_kfd_version(k, &r.kfd_major, &r.kfd_minor);
    st = want_state ? gc_kfd_driver_state(k, &r.debug_enabled, &r.suspended_queues, reterr_diag)
                    : GPUCORE_E_NOTSUP;
    gc_kfd_close(k);
    if (st != GPUCORE_OK && st != GPUCORE_E_NOTSUP)
        return st;
    r.have_state = st == GPUCORE_OK;
    *ret = r;
    return GPUCORE_OK;
}

gpucore_status_t gc_capture_read_devices(const char *topology_dir, struct gc_kfd_topology *ret,
                                         gpucore_diag_t *reterr_diag)
{
    return gc_kfd_topology_read(topology_dir, ret, reterr_diag);
}

/* ---- the three ways in ------------------------------------------------------------------- */

/*
 * Before stopping anything: would the core have a place to go? The name is expanded as it will
 * be at the end (for RUN the command's pid and name are not known yet, so only what does not
 * depend on them is checked). NOW and WATCH refuse a name that exists, or a directory that
 * does not or cannot be written, instead of stopping and reading the target for nothing. RUN
 * refuses nothing (the job runs whatever gpucore finds): @p ret_notice (RUN only) gets what
 * will happen instead, "" when nothing is to say. At capture time the directory is created and
 * a taken name numbered (open_writer).
 */
static gpucore_status_t precheck_output(struct cap *c, char *ret_notice, size_t notice_cap)
{
    const char *pattern = c->o->output_pattern ? c->o->output_pattern : "gpucore.%p";
    int run = c->o->mode == GC_CAPTURE_RUN;
    struct gc_capture_vars v;
    char storage[GC_CAPTURE_VARS_STORAGE], path[PATH_MAX], dir[PATH_MAX];
    char *slash;
    struct stat sb;
    int e;

    if (run && (strstr(pattern, "%p") || strstr(pattern, "%e")))
        return GPUCORE_OK;
    gc_capture_vars_fill(&v, run ? getpid() : c->o->pid, storage, sizeof(storage));
    GC_TRY(gc_capture_expand_path(pattern, &v, path, sizeof(path), c->diag));
    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(dir, W_OK | X_OK) != 0) {
        e = errno;
        if (run && stat(dir, &sb) != 0 && e == ENOENT) {
            snprintf(ret_notice, notice_cap, "directory %s does not exist: it is created when "
                     "a core is written", dir);
            return GPUCORE_OK;
        }
        if (run) {
            snprintf(ret_notice, notice_cap, "cannot write %s: directory %s: %s: a core would "
                     "not be written there (the capture would say so)", path, dir,
                     stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode) ? "not a directory"
                                                                : strerror(e));
            return GPUCORE_OK;
        }
        return gc_diag_set(c->diag, GPUCORE_E_CANTCREAT, GC_NO_OFFSET,
                           "cannot write %s: directory %s: %s", path, dir,
                           stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode) ? "not a directory"
                                                                       : strerror(e));
    }
    /* %t names a time not yet known: only the directory can be checked. */
    if (!strstr(pattern, "%t") && lstat(path, &sb) == 0) {
        if (run) {
            snprintf(ret_notice, notice_cap, "%s exists: a core takes the first free name of "
                     "%s.1, %s.2, ... (gpucore never overwrites a file)", path, path, path);
            return GPUCORE_OK;
        }
        return gc_diag_set(c->diag, GPUCORE_E_EXIST, GC_NO_OFFSET,
                           "%s already exists: gpucore never overwrites a core (choose another "
                           "-o)", path);
    }
    return GPUCORE_OK;
}

/* Seize o->pid; a refusal (EPERM) is retried for o->seize_retry_ms: the runtime hook's helper
   may come before the target made it its ptracer (PR_SET_PTRACER right after the spawn). */
static gpucore_status_t seize_retrying(struct cap *c)
{
    uint64_t until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)c->o->seize_retry_ms * 1000000ull;

    for (;;) {
        gpucore_status_t st = gc_tracee_seize(c->o->pid, &c->t, c->diag);
        struct timespec ts = { 0, 10 * 1000000L };

        if (st != GPUCORE_E_PERM || clock_ns(CLOCK_MONOTONIC) >= until || interrupted(c))
            return st;
        progress_tick(c);
        nanosleep(&ts, NULL);
    }
}

static gpucore_status_t attach(struct cap *c)
{
    gpucore_status_t st;

    if (c->o->kfd.backend == GC_KFD_BACKEND_LINUX) {
        /* The driver first: without it there is nothing to capture, whatever the target (and
           no point starting a command or stopping a process). */
        struct gc_kfd *probe = NULL;

        GC_TRY(gc_kfd_open(getpid(), &c->o->kfd, &probe, c->diag));
        gc_kfd_close(probe);
    }
    GC_TRY(precheck_output(c, NULL, 0));
    if (c->o->mode == GC_CAPTURE_RUN) {
        GC_FAIL_IF(!c->o->argv || !c->o->argv[0], c->diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "no command to run");
        /* A signal before the command is started: nothing is started. */
        GC_FAIL_IF(interrupted(c), c->diag, GPUCORE_E_INTR, GC_NO_OFFSET,
                   "interrupted: %s was not started", c->o->argv[0]);
        progress_tier(c, NULL, "starting %s", c->o->argv[0]);
        GC_TRY(gc_tracee_spawn(c->o->argv, NULL, &c->t, c->diag));
    } else {
        GC_FAIL_IF(c->o->pid <= 0, c->diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                   "bad process id %ld", (long)c->o->pid);
        progress_tier(c, NULL, "attaching to process %ld", (long)c->o->pid);
        GC_TRY(seize_retrying(c));
    }
    c->pid = gc_tracee_pid(c->t);
    c->res->pid = c->pid;
    st = open_kfd(c);
    if (st != GPUCORE_OK)
        return st;
    st = gc_kfd_service_threads(c->k, c->service, CAP_MAX_SERVICE, &c->nservice, c->diag);
    if (st != GPUCORE_OK)
        return st;
    if (c->nservice > CAP_MAX_SERVICE)
        c->nservice = CAP_MAX_SERVICE;
    return GPUCORE_OK;
}

/* ---- RUN: what the tree supervisor (run_tree.c) uses ------------------------------------ */

gpucore_status_t gc_capture_run_precheck(const struct gc_capture_opts *o, int *ret_no_driver,
                                         char *ret_notice, size_t notice_cap, gpucore_diag_t *diag)
{
    struct gc_capture_result dummy;
    struct cap c;
    gpucore_diag_t d = { 0 };

    memset(&c, 0, sizeof(c));
    memset(&dummy, 0, sizeof(dummy));
    c.mem = (struct gc_mem_reader){ cap_read, &c };
    c.o = o;
    c.res = &dummy;
    c.diag = diag;
    *ret_no_driver = 0;
    ret_notice[0] = '\0';
    if (o->kfd.backend == GC_KFD_BACKEND_LINUX) {
        struct gc_kfd *probe = NULL;

        if (gc_kfd_open(getpid(), &o->kfd, &probe, &d) == GPUCORE_OK) {
            gc_kfd_close(probe);
        } else {
            /* No driver, no GPU process to capture: the command runs all the same. */
            *ret_no_driver = 1;
            snprintf(ret_notice, notice_cap, "%s: %s runs, nothing can be captured",
                     d.message[0] ? d.message : "no GPU driver", o->argv[0]);
            return GPUCORE_OK;
        }
    }
    return precheck_output(&c, ret_notice, notice_cap);
}

gpucore_status_t gc_capture_arm(const struct gc_capture_opts *o, pid_t pid,
                                struct gc_capture_armed *a, gpucore_diag_t *diag)
{
    gpucore_status_t st;

    memset(a, 0, sizeof(*a));
    GC_TRY(gc_kfd_open(pid, &o->kfd, &a->k, diag));
    st = gc_kfd_enable(a->k, CAP_RUN_MASK, &a->rinfo, diag);
    if (st != GPUCORE_OK) {
        gc_kfd_close(a->k);
        memset(a, 0, sizeof(*a));
        a->enable_failed = 1;
        return st;
    }
    a->pid = pid;
    return GPUCORE_OK;
}

void gc_capture_disarm(struct gc_capture_armed *a)
{
    gpucore_diag_t d = { 0 };

    if (!a->k)
        return;
    (void)gc_kfd_disable(a->k, &d);
    gc_kfd_close(a->k);
    memset(a, 0, sizeof(*a));
}

/* The runtime of the armed process enabled itself and waits in RUNTIME_ENABLE until the
   debugger answers: answered at once, as AMD's debugger library does. A failure is only a
   warning: the driver lets the runtime go when the session ends (DISABLE) anyway. */
static void answer_runtime(struct cap *c)
{
    gpucore_diag_t d = { 0 };

    c->runtime_started = 0;
    if (gc_kfd_send_runtime_event(c->k, KFD_EC_MASK(EC_PROCESS_RUNTIME), KFD_INVALID_GPUID,
                                  KFD_INVALID_QUEUEID, &d) != GPUCORE_OK)
        warn(c, "the runtime of process %ld waits for gpucore's answer, which failed (%s): it "
                "goes on when gpucore lets go of it",
             (long)c->pid, d.message[0] ? d.message : "?");
}

/* RUN arms a process before its runtime starts, so what ENABLE said of the runtime is old by
   the time of a capture: the driver's runtime record now (QUERY_EXCEPTION_INFO of
   EC_PROCESS_RUNTIME, which amdkfd keeps from RUNTIME_ENABLE on). Unchanged if it cannot say. */
static void refresh_runtime_info(struct cap *c)
{
    uint8_t buf[sizeof(struct kfd_runtime_info)];
    uint32_t size = sizeof(buf);
    gpucore_diag_t d = { 0 };

    memset(buf, 0, sizeof(buf));
    if (gc_kfd_query_exception_info(c->k, KFD_INVALID_GPUID, EC_PROCESS_RUNTIME, 0, buf, &size,
                                    &d) == GPUCORE_OK &&
        size >= sizeof(buf))
        memcpy(&c->rinfo_at_enable, buf, sizeof(buf));
}

gpucore_status_t gc_capture_armed_event(const struct gc_capture_opts *o, struct gc_capture_armed *a,
                                        struct gc_tracee *t, int capture,
                                        struct gc_capture_result *res, gpucore_diag_t *diag)
{
    gpucore_diag_t d = { 0 }, dummy = { 0 };
    struct cap c;
    gpucore_status_t st;

    memset(res, 0, sizeof(*res));
    memset(&c, 0, sizeof(c));
    c.mem = (struct gc_mem_reader){ cap_read, &c };
    c.o = o;
    c.res = res;
    c.diag = diag ? diag : &dummy;
    c.pid = a->pid;
    c.k = a->k;
    c.enabled = 1;
    c.rinfo_at_enable = a->rinfo;
    res->pid = a->pid;
    res->trigger = GPUCORE_TRIGGER_ON_DEMAND;
    (void)gc_kfd_wait_event(c.k, 0, &d); /* drains the fd */
    collect_events(&c);
    if (c.runtime_started)
        answer_runtime(&c);
    if (!c.nexc)
        return GPUCORE_OK;
    if (!capture) {
        pid_t pid = a->pid;

        gc_capture_disarm(a);
        if (gc_capture_arm(o, pid, a, &d) != GPUCORE_OK)
            a->pid = pid; /* disarmed (k NULL), still named */
        return GPUCORE_OK;
    }
    if (c.rinfo_at_enable.runtime_state != GPUCORE_KFD_RUNTIME_ENABLED)
        refresh_runtime_info(&c);
    c.t = t;
    a->k = NULL; /* the capture's now: closed by cap_release_gpu */
    st = gc_kfd_service_threads(c.k, c.service, CAP_MAX_SERVICE, &c.nservice, c.diag);
    if (c.nservice > CAP_MAX_SERVICE)
        c.nservice = CAP_MAX_SERVICE;
    if (st == GPUCORE_OK) {
        progress_tier(&c, NULL, "GPU exception raised in process %ld: capturing", (long)c.pid);
        st = capture_proper(&c);
    }
    gpucore_writer_abort(c.w);
    c.w = NULL;
    /* Stopped to read the host part (a signal may cut the capture there): the driver must
       answer the release, which it cannot from a stopped thread (the simulated driver's:
       each call waited for its 20 s timeout, 41 s in all before the signal took effect). */
    resume_service(&c);
    cap_release_gpu(&c);
    gc_free(c.resume_ids);
    (void)gc_tracee_resume_all(t, &d);
    if (gc_tracee_exit_status(t) != -1) {
        res->exited = 1;
        res->exit_status = gc_tracee_exit_status(t);
    }
    a->k = NULL; /* disarmed, still named */
    return st;
}

gpucore_status_t gc_capture_run(const struct gc_capture_opts *opts, struct gc_capture_result *ret,
                                gpucore_diag_t *reterr_diag)
{
    gpucore_diag_t dummy = { 0 };
    struct cap c;
    gpucore_status_t st;

    GC_FAIL_IF(!opts || !ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "capture: missing options or result");
    GC_FAIL_IF(opts->mode > GC_CAPTURE_RUN || opts->tier > GPUCORE_TIER_ALL, reterr_diag,
               GPUCORE_E_INVAL, GC_NO_OFFSET, "capture: bad mode %u or tier %u",
               (unsigned)opts->mode, opts->tier);
    memset(ret, 0, sizeof(*ret));
    memset(&c, 0, sizeof(c));
    c.mem = (struct gc_mem_reader){ cap_read, &c };
    c.o = opts;
    c.res = ret;
    c.diag = reterr_diag ? reterr_diag : &dummy;
    ret->trigger = GPUCORE_TRIGGER_ON_DEMAND;

    if (opts->mode == GC_CAPTURE_RUN)
        return gc_capture_run_tree(opts, ret, c.diag); /* its precheck first */
    st = attach(&c);
    if (st == GPUCORE_E_NOTFOUND && ret->exited) {
        /* RUN: the command ended before its driver appeared. */
        st = GPUCORE_OK;
        goto out;
    }
    if (st != GPUCORE_OK)
        goto out;
    if (opts->mode != GC_CAPTURE_NOW) {
        progress_tier(&c, NULL, "enabling debugging");
        /* The runtime's start in the mask too: a process watched before its runtime enabled
           itself is held in RUNTIME_ENABLE until the debugger answers (wait_for_exception). */
        st = gc_kfd_enable(c.k, CAP_RUN_MASK, &c.rinfo_at_enable, c.diag);
        if (st != GPUCORE_OK)
            goto out;
        c.enabled = 1;
        st = wait_for_exception(&c);
        if (st != GPUCORE_OK || ret->exited)
            goto out;
        progress_tier(&c, NULL, "GPU exception raised: capturing");
    }
    st = capture_proper(&c);
out:
    cap_cleanup(&c, st == GPUCORE_OK);
    if (st == GPUCORE_OK && !ret->written && !ret->exited && opts->mode == GC_CAPTURE_RUN)
        st = gc_diag_set(c.diag, GPUCORE_E_IO, GC_NO_OFFSET, "no core written");
    return st;
}

int gc_capture_reap_command(pid_t pid, int *ret_status)
{
    for (;;) {
        int status;
        pid_t w = waitpid(-1, &status, __WALL | WNOHANG);

        if (w == 0)
            return 0;
        if (w < 0)
            return errno == EINTR ? 0 : -1;
        if (w == pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
            *ret_status = status;
            return 1;
        }
        if (WIFSTOPPED(status)) {
            /* A thread that was not stopped, hence not detached (it was exiting), or one it
             * cloned since: still traced, so let it go with the signal it stopped with (none
             * for an event or group stop). */
            int sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;

            (void)ptrace(PTRACE_DETACH, w, NULL, (void *)(long)sig);
        }
        /* Otherwise the end of such a thread, reaped: the leader's status waits for it. */
    }
}
