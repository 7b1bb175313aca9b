/* SPDX-License-Identifier: MIT */
/*
 * gpucore-inferior: a real Linux process that looks, to a debugger, like a ROCm process whose
 * GPU state a scenario describes.
 *
 *     gpucore-inferior SCENARIO.json [--objects DIR] [--describe FILE] [--socket NAME]
 *
 * It parses the scenario, lays the process image out in its own memory (layout.h), starts the
 * simulated driver thread (driver.h) when built with it, starts the scenario's extra host
 * threads, prints "gpucore-inferior: pid N ready" and waits for SIGTERM/SIGINT (exit 0).
 * The objects directory defaults to $GPUCORE_SCENARIO_OBJECTS, else the current directory.
 * --describe writes every address of the layout as "key value" lines, for tests that read the
 * memory without going through the driver.
 *
 * GPUCORE_SIM_FAULTS may hold a JSON array of fault_injection entries, appended to the
 * scenario's (tests/scenarios/README.md).
 *
 * When the simulated driver hands a queue or device error to "the runtime" (no debugger holds
 * it), the inferior does what the scenario's on_queue_error says, like ROCr: one line on stderr,
 * then abort() (with RLIMIT_CORE 0: no host core litter), exit(exit_status), or carry on.
 *
 * HSA_TOOLS_LIB: the runtime's tools libraries are loaded and its errors reported as ROCr
 * does (runtime.h); unset, nothing of it runs.
 *
 * The runtime-enable handshake: like ROCr at init, the inferior makes the real system call
 * ioctl(fd, AMDKFD_IOC_RUNTIME_ENABLE, {r_debug, ENABLE}) once its simulated driver is up,
 * right after it says "ready" (runtime_enable_handshake; after, so that a capture started by
 * `gpucore run` at the handshake cannot stop the process before the line is out). There is
 * no /dev/kfd: the call is made on the file GPUCORE_SIM_KFD names (`gpucore run --kfd sim`
 * makes one and watches it for opens, as it watches /dev/kfd), opened as ROCr opens /dev/kfd
 * and kept open while the process lives; without the variable, on a dup of stdin. The kernel
 * answers ENOTTY, which is ignored.
 *
 * Exit status: 0 terminated by SIGTERM/SIGINT; 64 usage; 65 scenario error (also a bad
 * GPUCORE_SIM_FAULTS); 70 layout or driver failure; the scenario's exit_status or SIGABRT after
 * a queue error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sysexits.h>
#include <unistd.h>

#include "arch.h"
#include "gc_util.h"
#include "layout.h"
#include "scenario.h"

#ifdef GC_INFERIOR_HAVE_DRIVER
#include "driver.h"
#include "runtime.h"
#endif

static const char prog[] = "gpucore-inferior";

/* ---- extra host threads: recognisable frames in a host backtrace --------------------------- */

static volatile int spin_stop;
/* Host threads that have entered their function: "ready" waits for all of them, so that a
   capture never stops one still inside clone3, whose child side has no unwind information
   (gdb's backtrace of it is "clone3 () ... ?? ()"). */
static atomic_uint host_threads_started;

/* Not static: the names are what a host backtrace of the core shows. */
void *gc_inferior_spin_thread(void *arg);
void *gc_inferior_blocked_thread(void *arg);

__attribute__((noinline)) void *gc_inferior_spin_thread(void *arg)
{
    (void)arg;
    atomic_fetch_add(&host_threads_started, 1);
    while (!spin_stop)
        __asm__ volatile("pause" ::: "memory");
    return NULL;
}

__attribute__((noinline)) void *gc_inferior_blocked_thread(void *arg)
{
    (void)arg;
    atomic_fetch_add(&host_threads_started, 1);
    /* Blocked in a system call, as a real waiting thread is. Not sigwait: a thread waiting for
       SIGTERM would take the process-directed SIGTERM meant for main's sigwait. pause() with
       every signal blocked (the inherited mask) never returns and never takes one. */
    for (;;)
        pause();
    return NULL;
}

static int write_describe(const char *path, const struct gc_scenario *s,
                          const struct gc_sim_layout *l, const uint64_t *fault_va)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fprintf(f, "pid %ld\nr_debug 0x%" PRIx64 "\nr_brk 0x%" PRIx64 "\n", (long)getpid(),
            l->r_debug, l->r_brk);
    for (uint32_t i = 0; i < s->ncode_objects; i++)
        fprintf(f, "code_object %u load 0x%" PRIx64 " image 0x%" PRIx64 " size %" PRIu64
                " link_map 0x%" PRIx64 "\n", i, l->code_objects[i].load_base,
                l->code_objects[i].image, l->code_objects[i].image_size,
                l->code_objects[i].link_map);
    for (uint32_t i = 0; i < s->ndispatches; i++)
        fprintf(f, "dispatch %u packet 0x%" PRIx64 " kernel_object 0x%" PRIx64 " entry 0x%" PRIx64
                " kernarg 0x%" PRIx64 "\n", i, l->dispatches[i].packet,
                l->dispatches[i].kernel_object, l->dispatches[i].entry, l->dispatches[i].kernarg);
    for (uint32_t i = 0; i < s->nbuffers; i++)
        fprintf(f, "buffer %u 0x%" PRIx64 " %" PRIu64 "\n", i, l->buffers[i].address,
                l->buffers[i].size);
    for (uint32_t i = 0; i < l->nallocs; i++)
        fprintf(f, "alloc 0x%" PRIx64 " %" PRIu64 " kind %u gpu 0x%x %s\n", l->allocs[i].base,
                l->allocs[i].size, l->allocs[i].kind, l->allocs[i].gpu_id, l->allocs[i].label);
    for (uint32_t i = 0; i < s->nexceptions; i++)
        if (fault_va[i])
            fprintf(f, "exception %u address 0x%" PRIx64 "\n", i, fault_va[i]);
    for (uint32_t i = 0; i < s->nqueues; i++) {
        const struct gc_sim_layout_queue *q = &l->queues[i];

        fprintf(f, "queue %u ring 0x%" PRIx64 " ring_size %" PRIu64 " amd_queue 0x%" PRIx64
                " cwsr 0x%" PRIx64 " cwsr_size %u num_xcc %u scratch 0x%" PRIx64 "\n", i,
                q->ring, q->ring_size, q->amd_queue, q->cwsr, q->sizes.cwsr_size, q->num_xcc,
                q->scratch);
    }
    return fclose(f);
}

#ifdef GC_INFERIOR_HAVE_DRIVER
/* The exception code KFD raises for a scenario's exception kind. */
static uint32_t exception_code(const char *what)
{
    static const struct {
        const char *name;
        uint32_t code;
    } map[] = {
        { "queue_error", EC_QUEUE_WAVE_ABORT },
        { "memory_violation", EC_QUEUE_WAVE_MEMORY_VIOLATION },
        { "illegal_instruction", EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION },
        { "assert_trap", EC_QUEUE_WAVE_TRAP },
        { "queue_new", EC_QUEUE_NEW },
        { "device_error", EC_DEVICE_MEMORY_VIOLATION },
    };

    for (size_t i = 0; i < GC_ARRAY_SIZE(map); i++)
        if (strcmp(map[i].name, what) == 0)
            return map[i].code;
    return EC_QUEUE_WAVE_ABORT;
}

/* ---- the runtime's error handling ---------------------------------------------------------- */

struct runtime {
    enum gc_scen_on_error action;
    int exit_status;
    struct gc_sim_runtime *tools; /* HSA_TOOLS_LIB loaded: the runtime of runtime.h reports */
};

/* The scenario's action is the runtime's, value for value. */
_Static_assert((int)GC_SCEN_ON_ERROR_CONTINUE == (int)GC_SIM_RUNTIME_CONTINUE &&
                       (int)GC_SCEN_ON_ERROR_ABORT == (int)GC_SIM_RUNTIME_ABORT &&
                       (int)GC_SCEN_ON_ERROR_EXIT == (int)GC_SIM_RUNTIME_EXIT,
               "on_queue_error values");

/* Runs on the driver's thread: with tools loaded, the runtime's events thread reports (a tool
   may capture meanwhile, which needs the driver); without, one line, then what the scenario
   says. */
static void runtime_error(void *user, const struct gc_sim_runtime_error *e)
{
    const struct runtime *rt = user;

    if (rt->tools)
        gc_sim_runtime_deliver(rt->tools, e);
    else
        gc_sim_runtime_report((enum gc_sim_runtime_action)rt->action, rt->exit_status, e);
}

/*
 * read_memory errno faults: the range becomes genuinely unreadable. An empty memfd mapped
 * shared over it has no pages: process_vm_readv gets EFAULT, /proc/PID/mem EIO.
 */
static int make_unreadable(const struct gc_sim_layout *l, const struct gc_scen_fault *f)
{
    uint64_t addr = l->buffers[f->buffer].address + f->offset;
    int fd = memfd_create("gpucore-sim-eio", MFD_CLOEXEC);
    void *p;

    if (fd < 0)
        return -1;
    p = mmap((void *)(uintptr_t)addr, (size_t)f->size, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    /* Still device memory: out of host cores like the rest of the buffer. */
    return madvise(p, (size_t)f->size, MADV_DONTDUMP);
}

/* HSA_TOOLS_LIB set: the runtime of runtime.h loads the tools and creates the queues through
   their table (runtime_error then hands errors to it). Unset: nothing changes. */
static gpucore_status_t start_tools(const struct gc_scenario *s, const struct gc_sim_layout *l,
                                    struct runtime *rt, gpucore_diag_t *diag)
{
    const char *tools = getenv("HSA_TOOLS_LIB");
    uint32_t *qgpu = gc_calloc_array(s->nqueues + 1u, sizeof(uint32_t));
    uint32_t *qid = gc_calloc_array(s->nqueues + 1u, sizeof(uint32_t));
    uint32_t *agpu = gc_calloc_array(s->nagents + 1u, sizeof(uint32_t));
    struct gc_sim_runtime_desc d = { .action = (enum gc_sim_runtime_action)s->on_queue_error,
                                     .exit_status = (int)s->exit_status,
                                     .num_queues = s->nqueues, .num_agents = s->nagents,
                                     .queue_gpu_ids = qgpu, .queue_ids = qid,
                                     .agent_gpu_ids = agpu };
    gpucore_status_t st = GPUCORE_E_NOMEM;

    if (!tools || !*tools) {
        st = GPUCORE_OK;
        goto out;
    }
    if (!qgpu || !qid || !agpu) {
        gc_diag_set(diag, st, GC_NO_OFFSET, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < s->nqueues; i++) {
        qgpu[i] = l->queues[i].gpu_id;
        qid[i] = l->queues[i].queue_id;
    }
    for (uint32_t i = 0; i < s->nagents; i++)
        agpu[i] = s->agents[i].gpu_id;
    st = gc_sim_runtime_start(&d, tools, &rt->tools, diag);
out:
    gc_free(qgpu);
    gc_free(qid);
    gc_free(agpu);
    return st;
}

/* The driver's queues (@p queues) and their XCCs' save areas (@p xccs, GC_LAYOUT_MAX_XCC per
   queue) from the layout. */
static void describe_queues(const struct gc_scenario *s, const struct gc_sim_layout *l,
                            struct gc_sim_queue *queues, struct gc_sim_xcc *xccs)
{
    for (uint32_t i = 0; i < s->nqueues; i++) {
        const struct gc_sim_layout_queue *q = &l->queues[i];
        struct gc_sim_queue *sq = &queues[i];
        struct gc_sim_xcc *x = &xccs[(size_t)i * GC_LAYOUT_MAX_XCC];

        sq->entry.ring_base_address = q->ring;
        sq->entry.write_pointer_address = q->amd_queue + GC_ROCR_AMDQ_WRITE_DISPATCH_ID;
        sq->entry.read_pointer_address = q->amd_queue + GC_ROCR_AMDQ_READ_DISPATCH_ID;
        sq->entry.ctx_save_restore_address = q->cwsr;
        sq->entry.queue_id = q->queue_id;
        sq->entry.gpu_id = q->gpu_id;
        sq->entry.ring_size = (uint32_t)q->ring_size;
        sq->entry.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
        sq->entry.ctx_save_restore_area_size = q->sizes.cwsr_size;
        sq->num_xcc = q->num_xcc;
        for (uint32_t k = 0; k < q->num_xcc; k++) {
            x[k].base = q->cwsr + (uint64_t)k * q->sizes.cwsr_size;
            x[k].header = q->header[k];
            /* The layout wrote the control stack and the waves into the area: SUSPEND writes
               the header only (saved stays NULL: nothing to copy in). */
        }
        sq->xcc = x;
    }
}

/* The driver's exceptions: the scenario's, at the fault addresses @p fault_va. */
static void describe_exceptions(const struct gc_scenario *s, const struct gc_sim_layout *l,
                                const uint64_t *fault_va, struct gc_sim_exception *ex)
{
    for (uint32_t i = 0; i < s->nexceptions; i++) {
        const struct gc_scen_exception *e = &s->exceptions[i];

        ex[i].code = exception_code(e->what);
        ex[i].delay_ms = e->at_ms;
        ex[i].fault_va = fault_va[i];
        ex[i].fault_flags = e->fault_flags;
        if (e->queue != UINT32_MAX) {
            ex[i].gpu_id = l->queues[e->queue].gpu_id;
            ex[i].queue_id = l->queues[e->queue].queue_id;
        } else {
            ex[i].gpu_id = s->agents[0].gpu_id;
            ex[i].queue_id = KFD_INVALID_QUEUEID;
        }
    }
}

/*
 * The scenario's fault injection: driver operations that fail, exit or wait go to @p fa
 * (*ret_nfa of them); a read delay to p->read_delay_us_per_mib (the slowest wins); unreadable
 * buffer ranges are made so now.
 */
static gpucore_status_t describe_faults(const struct gc_scenario *s, const struct gc_sim_layout *l,
                                        struct gc_sim_fault *fa, uint32_t *ret_nfa,
                                        struct gc_sim_process *p, gpucore_diag_t *diag)
{
    uint32_t nfa = 0;

    for (uint32_t i = 0; i < s->nfaults; i++) {
        const struct gc_scen_fault *f = &s->faults[i];

        switch (f->action) {
        case GC_SCEN_FAULT_READ_DELAY:
            if (f->delay_us_per_mib > p->read_delay_us_per_mib)
                p->read_delay_us_per_mib = f->delay_us_per_mib;
            continue;
        case GC_SCEN_FAULT_READ_EIO:
            if (make_unreadable(l, f) != 0)
                return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "fault_injection[%u]: "
                                   "cannot make buffer range 0x%" PRIx64 "+0x%" PRIx64
                                   " unreadable: %s",
                                   i, f->offset, f->size, strerror(errno));
            continue;
        case GC_SCEN_FAULT_ERRNO:
            fa[nfa].err = f->err;
            fa[nfa].nth = f->nth;
            break;
        case GC_SCEN_FAULT_EXIT:
            fa[nfa].exit_during = 1;
            fa[nfa].exit_status = f->exit_status;
            fa[nfa].nth = f->nth;
            break;
        case GC_SCEN_FAULT_DELAY:
            fa[nfa].delay_ms = f->delay_ms;
            break;
        }
        fa[nfa++].op = f->driver_op;
    }
    *ret_nfa = nfa;
    return GPUCORE_OK;
}

/* Convert the layout into the driver's description and start it. */
static gpucore_status_t start_driver(const struct gc_scenario *s, const struct gc_sim_layout *l,
                                     const uint64_t *fault_va, const char *socket,
                                     struct runtime *rt, struct gc_sim_driver **ret,
                                     gpucore_diag_t *diag)
{
    struct kfd_dbg_device_info_entry *agents = gc_calloc_array(s->nagents, sizeof(*agents));
    struct gc_sim_queue *queues = gc_calloc_array(s->nqueues + 1u, sizeof(*queues));
    struct gc_sim_xcc *xccs = gc_calloc_array((size_t)s->nqueues * GC_LAYOUT_MAX_XCC + 1,
                                              sizeof(*xccs));
    struct gc_sim_exception *ex = gc_calloc_array(s->nexceptions + 1u, sizeof(*ex));
    struct gc_sim_fault *fa = gc_calloc_array(s->nfaults + 1u, sizeof(*fa));
    struct gc_sim_alloc *al = gc_calloc_array(l->nallocs + 1u, sizeof(*al));
    struct gc_sim_process p = { 0 };
    gpucore_status_t st = GPUCORE_E_NOMEM;
    uint32_t nfa = 0;

    if (!agents || !queues || !xccs || !ex || !fa || !al)
        goto out;
    for (uint32_t i = 0; i < s->nagents; i++) {
        if (gc_sim_layout_device_entry(&s->agents[i], &agents[i]) != GPUCORE_OK) {
            /* the parser accepts known targets only: a hand-made description */
            st = gc_diag_set(diag, GPUCORE_E_ARCH, GC_NO_OFFSET,
                             "agents[%u]: target '%s' is unknown", i, s->agents[i].target);
            goto out;
        }
    }
    describe_queues(s, l, queues, xccs);
    describe_exceptions(s, l, fault_va, ex);
    st = describe_faults(s, l, fa, &nfa, &p, diag);
    if (st != GPUCORE_OK)
        goto out;
    for (uint32_t i = 0; i < l->nallocs; i++) {
        al[i].base = l->allocs[i].base;
        al[i].size = l->allocs[i].size;
        al[i].kind = l->allocs[i].kind;
        al[i].gpu_id = l->allocs[i].gpu_id;
        snprintf(al[i].label, sizeof(al[i].label), "%s", l->allocs[i].label);
    }
    p.rinfo.r_debug = l->r_debug;
    p.rinfo.runtime_state = 1; /* DEBUG_RUNTIME_STATE_ENABLED */
    p.rinfo.ttmp_setup = s->ttmp_setup;
    p.num_agents = s->nagents;
    p.agents = agents;
    p.num_queues = s->nqueues;
    p.queues = queues;
    p.num_exceptions = s->nexceptions;
    p.exceptions = ex;
    p.num_faults = nfa;
    p.faults = fa;
    p.num_allocs = l->nallocs;
    p.allocs = al;
    p.kfd_major = 1;
    p.kfd_minor = s->kfd_minor;
    p.no_hws = s->no_hws;
    p.runtime_clock = s->runtime_clock;
    p.runtime_error = runtime_error;
    p.runtime_user = rt;
    st = gc_sim_driver_start(&p, socket, ret, diag);
out:
    gc_free(agents);
    gc_free(queues);
    gc_free(xccs);
    gc_free(ex);
    gc_free(fa);
    gc_free(al);
    return st;
}
#endif

/* ---- the runtime-enable handshake (see the header comment) ---------------------------------- */

#include "kfd_uapi.h"

/* The call ROCr makes at init on /dev/kfd (KFD >= 1.13), here on a stand-in fd: the real
   system call, whose answer (ENOTTY) the simulated runtime ignores. */
static void runtime_enable_handshake(void)
{
    static char r_debug_standin[64];
    struct kfd_ioctl_runtime_enable_args args;
    const char *device = getenv("GPUCORE_SIM_KFD");
    int fd = device && device[0] ? open(device, O_RDWR | O_CLOEXEC) : dup(STDIN_FILENO);

    memset(&args, 0, sizeof(args));
    args.r_debug = (uint64_t)(uintptr_t)r_debug_standin;
    args.mode_mask = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK;
    (void)ioctl(fd, AMDKFD_IOC_RUNTIME_ENABLE, &args);
    /* The device stays open, as ROCr keeps /dev/kfd: it says this is a GPU process. */
    if (fd >= 0 && !(device && device[0]))
        close(fd);
}

/* ---- main ----------------------------------------------------------------------------------- */

/* The command line. */
struct inferior_args {
    const char *scen, *objects, *describe, *socket;
};

/* Parse the command line into @p a: 0, or EX_USAGE after the usage line. */
static int parse_args(int argc, char **argv, struct inferior_args *a)
{
    int bad = 0;

    a->objects = getenv("GPUCORE_SCENARIO_OBJECTS");
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "--objects") == 0 && i + 1 < argc)
            a->objects = argv[++i];
        else if (strcmp(argv[i], "--describe") == 0 && i + 1 < argc)
            a->describe = argv[++i];
        else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
            a->socket = argv[++i];
        else if (argv[i][0] != '-' && !a->scen)
            a->scen = argv[i];
        else
            bad = 1;
    }
    if (bad || !a->scen) {
        fprintf(stderr, "usage: %s SCENARIO.json [--objects DIR] [--describe FILE] "
                "[--socket NAME]\n", prog);
        return EX_USAGE;
    }
    if (!a->objects)
        a->objects = ".";
    return 0;
}

/*
 * Load the scenario (with $GPUCORE_SIM_FAULTS), lay it out, and resolve each exception's fault
 * address (@p host_stack: an address on main's frame, for { "host": "stack" }). 0, or the exit
 * code after the message; on failure nothing is left allocated.
 */
static int prepare(const struct inferior_args *a, uint64_t host_stack, struct gc_scenario **ret_s,
                   struct gc_sim_layout **ret_l, uint64_t **ret_fault_va)
{
    const char *env_faults = getenv("GPUCORE_SIM_FAULTS");
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    gpucore_diag_t diag = { 0 };
    uint64_t *fault_va;

    if (gc_scenario_load(a->scen, &s, &diag) < 0) {
        fprintf(stderr, "%s: %s\n", prog, diag.message);
        return EX_DATAERR;
    }
    if (env_faults && gc_scenario_add_faults(s, env_faults, "GPUCORE_SIM_FAULTS", &diag) < 0) {
        fprintf(stderr, "%s: %s\n", prog, diag.message);
        gc_scenario_free(s);
        return EX_DATAERR;
    }
    if (gc_sim_layout_build(s, a->objects, &l, &diag) < 0) {
        fprintf(stderr, "%s: %s\n", prog, diag.message);
        gc_scenario_free(s);
        return diag.status == GPUCORE_E_INVAL ? EX_DATAERR : EX_SOFTWARE;
    }
    fault_va = gc_calloc_array(s->nexceptions + 1u, sizeof(*fault_va));
    if (!fault_va) {
        fprintf(stderr, "%s: out of memory\n", prog);
        gc_sim_layout_free(l);
        gc_scenario_free(s);
        return EX_SOFTWARE;
    }
    for (uint32_t i = 0; i < s->nexceptions; i++) {
        if (gc_sim_layout_exception_address(l, i, host_stack, &fault_va[i], &diag) < 0) {
            fprintf(stderr, "%s: %s\n", prog, diag.message);
            gc_free(fault_va);
            gc_sim_layout_free(l);
            gc_scenario_free(s);
            return EX_DATAERR;
        }
    }
    *ret_s = s;
    *ret_l = l;
    *ret_fault_va = fault_va;
    return 0;
}

/* The scenario's "secret" heap buffer (README "secret"): live for the process's life, in the
   program's own heap (malloc of at most 16 MiB from the main thread: the brk heap for the
   sizes the tests use), what a capture must withhold with --redact. */
static uint8_t *volatile secret_heap;

static int fill_secret_heap(const struct gc_scenario *s)
{
    uint8_t *p;

    if (!s->has_secret || !s->secret_heap)
        return 0;
    p = malloc(s->secret_heap);
    if (!p)
        return -1;
    for (uint32_t o = 0; o < s->secret_heap; o += 16)
        memcpy(p + o, s->secret, s->secret_heap - o < 16 ? s->secret_heap - o : 16);
    secret_heap = p;
    return 0;
}

int main(int argc, char **argv)
{
    struct inferior_args args = { 0 };
    struct gc_scenario *s = NULL;
    struct gc_sim_layout *l = NULL;
    pthread_t threads[GC_SCEN_MAX_HOST_THREADS];
    sigset_t set;
    int sig = 0, rc;
    uint32_t nthreads = 0;
#ifdef GC_INFERIOR_HAVE_DRIVER
    gpucore_diag_t diag = { 0 };
    struct gc_sim_driver *drv = NULL;
    static struct runtime rt; /* the driver's thread reads it until exit */
#endif
    uint64_t *fault_va = NULL; /* each exception's fault address, resolved in the layout */

    rc = parse_args(argc, argv, &args);
    if (rc)
        return rc;
    /* Block the signals before any thread exists, so every thread inherits the mask and only
       sigwait below takes them: a clean exit on SIGTERM whatever thread it was sent to. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    /* { "host": "stack" }: main's frame, on the main thread's stack for the process's life. */
    rc = prepare(&args, (uint64_t)(uintptr_t)__builtin_frame_address(0), &s, &l, &fault_va);
    if (rc)
        return rc;
    if (fill_secret_heap(s) < 0) {
        fprintf(stderr, "%s: out of memory for the secret heap buffer\n", prog);
        gc_free(fault_va);
        gc_sim_layout_free(l);
        gc_scenario_free(s);
        return EX_SOFTWARE;
    }
#ifdef GC_INFERIOR_HAVE_DRIVER
    rt.action = s->on_queue_error;
    rt.exit_status = (int)s->exit_status;
    if (start_tools(s, l, &rt, &diag) < 0) {
        fprintf(stderr, "%s: %s\n", prog, diag.message);
        gc_free(fault_va);
        gc_sim_layout_free(l);
        gc_scenario_free(s);
        return EX_SOFTWARE;
    }
    if (start_driver(s, l, fault_va, args.socket, &rt, &drv, &diag) < 0) {
        fprintf(stderr, "%s: simulated driver: %s\n", prog, diag.message);
        gc_free(fault_va);
        gc_sim_layout_free(l);
        gc_scenario_free(s);
        return EX_SOFTWARE;
    }
#endif
    for (; nthreads < s->host_threads; nthreads++) {
        if (pthread_create(&threads[nthreads], NULL,
                           s->host_threads_block ? gc_inferior_blocked_thread :
                                                   gc_inferior_spin_thread, NULL)) {
            fprintf(stderr, "%s: cannot start host thread %u\n", prog, nthreads);
            rc = EX_SOFTWARE;
            break;
        }
    }
    while (!rc && atomic_load(&host_threads_started) < nthreads)
        sched_yield();
    if (!rc && args.describe && write_describe(args.describe, s, l, fault_va)) {
        fprintf(stderr, "%s: %s: %s\n", prog, args.describe, strerror(errno));
        rc = EX_SOFTWARE;
    }
    if (!rc) {
        printf("%s: pid %ld ready\n", prog, (long)getpid());
        fflush(stdout);
        /* After "ready" is out: a capture that arming starts must not overtake the line. */
        runtime_enable_handshake();
        while (sigwait(&set, &sig) != 0)
            ;
    }
    /* Exit without joining: blocked threads never return, and exit() ends them all. */
    spin_stop = 1;
#ifdef GC_INFERIOR_HAVE_DRIVER
    gc_sim_driver_stop(drv);
    gc_sim_runtime_stop(rt.tools);
#endif
    gc_sim_layout_free(l);
    gc_scenario_free(s);
    gc_free(fault_va);
    free(secret_heap);
    fflush(stdout);
    _exit(rc);
}
