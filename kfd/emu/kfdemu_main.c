/* SPDX-License-Identifier: MIT */
/*
 * gpucore-kfdemu: run a command with AMD's GPU kernel driver (amdkfd) emulated.
 *
 *   gpucore-kfdemu [--root DIR] [--bind HOST[:INSIDE]]... [--device NAME|FILE]... [--faults FILE]
 *                  [--stats] [-v] -- COMMAND [ARG]...
 *
 * This file is the emulator's side: the options, then the supervisor that answers the
 * seccomp notifications of the command's processes (kfdemu_ns.c makes their namespace and
 * filter): ioctls and stats of the device files from the device model (emu_kfd.c, emu_drm.c,
 * emu_debug.c), the GPU's engines (emu_cp.c) run on a timer, the fault plan applied to each
 * dispatch (emu_faults.c, emu_save.c). docs/kfd-emulator.md has the reasons.
 */
/*
 * gpucore-kfdemu: run a command with AMD's GPU kernel driver (amdkfd) emulated.
 *
 *   gpucore-kfdemu [--root DIR] [--bind HOST[:INSIDE]]... [--device NAME|FILE]... [-v] -- COMMAND [ARG]...
 *
 * How (docs/kfd-emulator.md has the reasons):
 *   - The command runs in a private mount namespace. /dev and /sys there are small tmpfs
 *     trees: /dev/kfd and /dev/dri/renderD<N> are regular files (so the thunk's mmap of them
 *     is shared memory the emulator reads and writes through the same file), and
 *     /sys/devices/virtual/kfd/kfd/topology is written as amdkfd presents it. With --root the
 *     command runs chrooted in an overlay of DIR (a Debian 13 root file system with AMD's
 *     user space), which is never modified.
 *   - A seccomp filter, installed just before exec and inherited by every descendant, sends
 *     each ioctl to this process (SECCOMP_RET_USER_NOTIF). An ioctl on one of the device
 *     files is served here from the device model; any other continues to the real kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/seccomp.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "disasm.h"
#include "emu_codeobj.h"
#include "emu_cp.h"
#include "emu_debug.h"
#include "emu_device.h"
#include "emu_drm.h"
#include "emu_faults.h"
#include "emu_kfd.h"
#include "emu_save.h"
#include "gc_util.h"
#include "kfdemu.h"

#define MAX_PROCS 256
#define MAX_PARKED 1024

static int verbose;
static int stats;

/* ------------------------------------------------------------------------------------------ */
/* Options                                                                                     */
/* ------------------------------------------------------------------------------------------ */


static void usage(FILE *f)
{
    const char *names[8];
    size_t n = gc_emu_device_presets(names, 8);

    fprintf(f,
            "Usage: " PROG " [OPTION]... -- COMMAND [ARG]...\n"
            "Run COMMAND and its descendants with AMD's GPU kernel driver (amdkfd) emulated:\n"
            "/dev/kfd, /dev/dri/renderD128.. and the KFD topology in sysfs.\n"
            "\n"
            "  --device NAME|FILE  an emulated GPU: a built-in target (below), or a scenario\n"
            "                      file whose agents become the devices (repeatable; default:\n"
            "                      one of the first built-in)\n"
            "  --root DIR          run chrooted in DIR (a root file system with AMD's user\n"
            "                      space), seen through a writable overlay that is discarded\n"
            "  --bind HOST[:INSIDE]  make the host's HOST visible at INSIDE (default: the\n"
            "                      same path) in the root (with --root)\n"
            "  --faults FILE       the fault plan: which kernel dispatches fault, and how\n"
            "                      (default: every dispatch completes)\n"
            "  --stats             at the end, one line on stderr: the calls served and passed\n"
            "                      on, the emulator's CPU time, the GPU's packets\n"
            "  -v, --verbose       print each ioctl the emulator serves on stderr\n"
            "  -h, --help          this text\n"
            "\n"
            "Exit status: COMMAND's (128+N when killed by signal N); 64 usage; 69 cannot\n"
            "emulate here (not root, no user notification in seccomp); 71 a system call failed;\n"
            "127 COMMAND not found.\n\nBuilt-in devices:");
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %s", names[i]);
    fputc('\n', f);
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' }, { "root", required_argument, NULL, 'r' },
        { "bind", required_argument, NULL, 'b' },   { "verbose", no_argument, NULL, 'v' },
        { "faults", required_argument, NULL, 'f' },
        { "stats", no_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 } };
    const char *first = NULL;
    char err[256];
    int c;

    while ((c = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (gc_emu_devices_add(optarg, o->devs, GC_EMU_MAX_DEVICES, &o->ndevs, err,
                                   sizeof(err)) != GPUCORE_OK) {
                fprintf(stderr, PROG ": --device %s: %s\n", optarg, err);
                return EXIT_USAGE;
            }
            break;
        case 'r':
            o->root = optarg;
            break;
        case 'f':
            if (gc_emu_plan_load(optarg, &o->plan, err, sizeof(err)) != GPUCORE_OK) {
                fprintf(stderr, PROG ": --faults: %s\n", err);
                return EXIT_USAGE;
            }
            break;
        case 'b':
        {
            char *at = strchr(optarg, ':');

            if (at)
                *at++ = '\0';
            if (o->nbinds >= MAX_BINDS || optarg[0] != '/' || (at && at[0] != '/') ||
                (at && strcmp(at, "/") == 0)) {
                fprintf(stderr, PROG ": --bind %s: an absolute path, optionally :INSIDE (an "
                        "absolute path other than /) (at most %d)\n", optarg, MAX_BINDS);
                return EXIT_USAGE;
            }
            o->bind_at[o->nbinds] = at;
            o->binds[o->nbinds++] = optarg;
        }
            break;
        case 'v':
            verbose++;
            break;
        case 's':
            stats = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, PROG ": no COMMAND (put it after --)\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    o->argv = argv + optind;
    if (!o->ndevs && gc_emu_device_presets(&first, 1) &&
        gc_emu_devices_add(first, o->devs, GC_EMU_MAX_DEVICES, &o->ndevs, err,
                                        sizeof(err)) != GPUCORE_OK) {
        fprintf(stderr, PROG ": %s\n", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The emulator's side                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* What a context save of one XCC area would write now (emu_debug.h's areas). */
struct saved_area {
    uint32_t queue_id, xcc;
    int faulted;                  /* a fault's stopped waves (else recomputed when asked) */
    struct gc_cwsr_header header;
    uint8_t *image;               /* gc_free */
    size_t len;
};

struct emu;

struct proc_slot {
    int tgid;
    int used;
    struct gc_emu_proc kfd;
    struct gc_emu_kernels *kernels; /* names of its kernel descriptors */
    struct gc_emu_debug *debug;     /* its DBG_TRAP side, from the first DBG_TRAP naming it */
    struct saved_area *areas;
    size_t nareas, areas_cap;
    struct emu *e;
    /* Its runtime's RUNTIME_ENABLE, held while a debugger has not answered it (amdkfd holds a
       debugged process there until SEND_RUNTIME_EVENT(EC_PROCESS_RUNTIME), DISABLE, or the
       debugger's end): the notification to answer then. */
    struct held_enable {
        int held;
        uint64_t id;
        int pid;
        unsigned cmd;
        uint64_t argp;
        uint8_t args[GC_EMU_ARGS_MAX];
    } rt;
};

struct parked {
    uint64_t id;
    int pid;
    struct proc_slot *slot;
    unsigned cmd;
    uint64_t argp;
    uint64_t deadline_ms; /* 0: none */
    uint8_t args[64];
};

struct emu {
    struct options *o;
    struct gc_emu_machine machine;
    int listener, kfd_fd;
    dev_t kfd_dev;
    ino_t kfd_ino;
    dev_t render_dev[GC_EMU_MAX_DEVICES];
    ino_t render_ino[GC_EMU_MAX_DEVICES];
    int render_fd[GC_EMU_MAX_DEVICES];
    struct proc_slot procs[MAX_PROCS];
    struct parked parked[MAX_PARKED];
    size_t nparked;
    uint64_t served, continued;
    uint64_t aql_packets, sdma_packets;
};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct io_ctx {
    int pid;
};

static int io_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct io_ctx *c = ctx;
    struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

    if (!len)
        return 0;
    return process_vm_readv(c->pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int io_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct io_ctx *c = ctx;
    struct iovec l = { (void *)(uintptr_t)buf, len }, r = { (void *)(uintptr_t)addr, len };

    if (!len)
        return 0;
    return process_vm_writev(c->pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int tgid_of(int tid)
{
    char path[64], buf[512];
    int fd, tgid = -1;
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%d/status", tid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n > 0) {
        char *t;

        buf[n] = '\0';
        t = strstr(buf, "\nTgid:");
        if (t)
            tgid = atoi(t + 6);
    }
    return tgid;
}

/* Which device file is fd @p fd of thread @p tid: -1 none, 0 kfd, 1+i render node i. */
static int classify_fd(const struct emu *e, int tid, uint64_t fd)
{
    char path[64];
    struct stat st;

    if (fd > INT32_MAX)
        return -1;
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, (int)fd);
    if (stat(path, &st) != 0)
        return -1;
    if (st.st_dev == e->kfd_dev && st.st_ino == e->kfd_ino)
        return 0;
    for (size_t i = 0; i < e->machine.ndevs; i++)
        if (st.st_dev == e->render_dev[i] && st.st_ino == e->render_ino[i])
            return 1 + (int)i;
    return -1;
}

static void slot_release(struct proc_slot *slot)
{
    gc_emu_debug_free(slot->debug);
    gc_emu_proc_fini(&slot->kfd);
    gc_emu_kernels_free(slot->kernels);
    for (size_t i = 0; i < slot->nareas; i++)
        gc_free(slot->areas[i].image);
    free(slot->areas);
    memset(slot, 0, sizeof(*slot));
}

static struct proc_slot *slot_of(struct emu *e, int tgid)
{
    for (size_t i = 0; i < MAX_PROCS; i++)
        if (e->procs[i].used && e->procs[i].tgid == tgid)
            return &e->procs[i];
    return NULL;
}

static struct proc_slot *proc_for(struct emu *e, int tgid)
{
    struct proc_slot *free_slot = NULL;

    for (size_t i = 0; i < MAX_PROCS; i++) {
        if (e->procs[i].used && e->procs[i].tgid == tgid)
            return &e->procs[i];
        if (!e->procs[i].used && !free_slot)
            free_slot = &e->procs[i];
    }
    if (!free_slot) { /* reuse the slot of a process that is gone */
        for (size_t i = 0; i < MAX_PROCS && !free_slot; i++)
            if (kill(e->procs[i].tgid, 0) != 0 && errno == ESRCH) {
                slot_release(&e->procs[i]);
                free_slot = &e->procs[i];
            }
        if (!free_slot)
            return NULL;
    }
    free_slot->used = 1;
    free_slot->tgid = tgid;
    free_slot->e = e;
    gc_emu_proc_init(&free_slot->kfd, &e->machine, tgid);
    free_slot->kernels = gc_emu_kernels_new();
    return free_slot;
}

static void respond(struct emu *e, uint64_t id, long ret)
{
    struct seccomp_notif_resp resp = { 0 };

    resp.id = id;
    if (ret < 0)
        resp.error = (int32_t)ret;
    else
        resp.val = ret;
    if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT && verbose)
        fprintf(stderr, PROG ": cannot answer a call: %s\n", strerror(errno));
}

static void continue_call(struct emu *e, uint64_t id)
{
    struct seccomp_notif_resp resp = { 0 };

    resp.id = id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    e->continued++;
    (void)ioctl(e->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static void finish_kfd(struct emu *e, uint64_t id, int pid, unsigned cmd, uint64_t argp,
                       uint8_t *args, struct gc_emu_result r)
{
    unsigned in, out;
    struct io_ctx c = { pid };

    gc_emu_kfd_arg_copy(cmd, &in, &out);
    if (out && io_write(&c, argp, args, out) != 0)
        r.ret = -EFAULT;
    if (verbose)
        fprintf(stderr, PROG ": [%d] %s = %ld\n", pid,
                gc_emu_kfd_name(cmd) ? gc_emu_kfd_name(cmd) : "?", r.ret);
    respond(e, id, r.ret);
}

static void retry_parked(struct emu *e, struct proc_slot *only, int expire)
{
    uint64_t now = now_ms();

    for (size_t i = 0; i < e->nparked;) {
        struct parked *pk = &e->parked[i];
        struct io_ctx c = { pk->pid };
        struct gc_emu_io io = { &c, io_read, io_write };
        int timed_out = expire && pk->deadline_ms && now >= pk->deadline_ms;
        struct gc_emu_result r;

        if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &pk->id) != 0) {
            /* the waiter is gone (killed, or a signal restarted its call as a new one) */
            e->parked[i] = e->parked[--e->nparked];
            continue;
        }
        if (only && pk->slot != only && !timed_out) {
            i++;
            continue;
        }
        r = gc_emu_kfd_wait_retry(&pk->slot->kfd, pk->args, &io, timed_out);
        if (r.verdict == GC_EMU_BLOCK) {
            i++;
            continue;
        }
        finish_kfd(e, pk->id, pk->pid, pk->cmd, pk->argp, pk->args, r);
        e->parked[i] = e->parked[--e->nparked];
    }
}

static void serve_dbg_trap(struct emu *e, const struct seccomp_notif *req, int debugger);

/* A RUNTIME_ENABLE that amdkfd holds: the process enables its runtime while a debugger has
   debugging enabled. */
static int holds_runtime_enable(const struct proc_slot *slot, unsigned cmd, const uint8_t *args)
{
    const struct kfd_ioctl_runtime_enable_args *a = (const void *)args;

    return GC_IOC_NR(cmd) == 0x25 && slot->debug && gc_emu_debug_owner(slot->debug) != 0 &&
           (a->mode_mask & KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK) && !slot->rt.held;
}

/* The debugger answered (or disabled, or is gone): the held RUNTIME_ENABLE returns, 0. A waiter
   that is gone (killed) is only forgotten. */
static void release_runtime_enable(struct emu *e, struct proc_slot *slot)
{
    struct gc_emu_result r = { 0 };

    if (!slot->rt.held)
        return;
    slot->rt.held = 0;
    if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &slot->rt.id) != 0)
        return;
    finish_kfd(e, slot->rt.id, slot->rt.pid, slot->rt.cmd, slot->rt.argp, slot->rt.args, r);
}

static void serve_kfd(struct emu *e, const struct seccomp_notif *req, struct proc_slot *slot)
{
    unsigned cmd = (unsigned)req->data.args[1], in, out;
    uint64_t argp = req->data.args[2];
    uint8_t args[GC_EMU_ARGS_MAX];
    struct io_ctx c = { (int)req->pid };
    struct gc_emu_io io = { &c, io_read, io_write };
    struct gc_emu_result r;

    if (GC_IOC_NR(cmd) == 0x26) { /* AMDKFD_IOC_DBG_TRAP */
        serve_dbg_trap(e, req, slot->tgid);
        return;
    }
    memset(args, 0, sizeof(args));
    if (gc_emu_kfd_arg_copy(cmd, &in, &out) && in && io_read(&c, argp, args, in) != 0) {
        respond(e, req->id, -EFAULT);
        return;
    }
    r = gc_emu_kfd_ioctl(&slot->kfd, cmd, args, &io);
    if (r.verdict == GC_EMU_BLOCK) {
        struct parked *pk;

        if (e->nparked >= MAX_PARKED) {
            respond(e, req->id, -ENOMEM);
            return;
        }
        pk = &e->parked[e->nparked++];
        pk->id = req->id;
        pk->pid = (int)req->pid;
        pk->slot = slot;
        pk->cmd = cmd;
        pk->argp = argp;
        pk->deadline_ms = r.wait_ms == 0xffffffffu ? 0 : now_ms() + r.wait_ms;
        memcpy(pk->args, args, sizeof(pk->args));
        return;
    }
    if (r.ret == 0 && holds_runtime_enable(slot, cmd, args)) {
        /* Held until the debugger answers EC_PROCESS_RUNTIME, which it is told now. */
        slot->rt.held = 1;
        slot->rt.id = req->id;
        slot->rt.pid = (int)req->pid;
        slot->rt.cmd = cmd;
        slot->rt.argp = argp;
        memcpy(slot->rt.args, args, sizeof(slot->rt.args));
        gc_emu_debug_runtime(slot->debug, &slot->kfd);
        return;
    }
    finish_kfd(e, req->id, (int)req->pid, cmd, argp, args, r);
    if (GC_IOC_NR(cmd) == 0x0A && r.ret == 0) /* SET_EVENT may end a wait */
        retry_parked(e, slot, 0);
    if (GC_IOC_NR(cmd) == 0x25 && r.ret == 0 && slot->debug) /* RUNTIME_ENABLE */
        gc_emu_debug_runtime(slot->debug, &slot->kfd);
    if (GC_IOC_NR(cmd) == 0x02 && r.ret == 0 && slot->debug) { /* CREATE_QUEUE */
        const struct kfd_ioctl_create_queue_args *a = (const void *)args;

        for (uint32_t i = 0; i < slot->kfd.nqueues; i++)
            if (slot->kfd.queues[i].id == a->queue_id)
                gc_emu_debug_add_queue(slot->debug, &slot->kfd.queues[i]);
    }
}

static int file_rw(void *ctx, int file, uint64_t off, void *buf, size_t len, int write)
{
    const struct emu *e = ctx;
    int fd;
    ssize_t k;

    if (file == GC_EMU_FILE_KFD)
        fd = e->kfd_fd;
    else if (file >= 0 && (size_t)file < e->machine.ndevs)
        fd = e->render_fd[file];
    else
        return -1;
    if (off > FILE_LIMIT || len > FILE_LIMIT - off)
        return -1;
    k = write ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
    return k == (ssize_t)len ? 0 : -1;
}

/*
 * A file the process names, inside its own root: the bytes read, or -1. Resolved with
 * RESOLVE_IN_ROOT from the process's root, so no link (absolute or "..") leads outside it, and
 * only a regular file is read: never a FIFO or a device the process points at.
 */
static long co_read_file(void *ctx, const char *path, uint64_t off, void *buf, size_t len)
{
    const struct io_ctx *c = ctx;
    struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
    char rootpath[64];
    struct stat st;
    size_t got = 0;
    int rootfd, fd;

    if (path[0] != '/')
        return -1;
    snprintf(rootpath, sizeof(rootpath), "/proc/%d/root", c->pid);
    rootfd = open(rootpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return -1;
    fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
    close(rootfd);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    while (got < len) {
        ssize_t k = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return (long)got;
}

/* The area of (queue, XCC) in the slot's store, made when @p create. */
static struct saved_area *area_slot(struct proc_slot *slot, uint32_t queue_id, uint32_t xcc,
                                    int create)
{
    for (size_t i = 0; i < slot->nareas; i++)
        if (slot->areas[i].queue_id == queue_id && slot->areas[i].xcc == xcc)
            return &slot->areas[i];
    if (!create)
        return NULL;
    if (slot->nareas == slot->areas_cap) {
        size_t ncap = slot->areas_cap ? 2 * slot->areas_cap : 8;
        struct saved_area *n = realloc(slot->areas, ncap * sizeof(*n));

        if (!n)
            return NULL;
        slot->areas = n;
        slot->areas_cap = ncap;
    }
    memset(&slot->areas[slot->nareas], 0, sizeof(slot->areas[0]));
    slot->areas[slot->nareas].queue_id = queue_id;
    slot->areas[slot->nareas].xcc = xcc;
    return &slot->areas[slot->nareas++];
}

static void area_store(struct saved_area *a, uint8_t *image, size_t len,
                       const struct gc_cwsr_header *h, int faulted)
{
    gc_free(a->image);
    a->image = image;
    a->len = len;
    a->header = *h;
    a->faulted = faulted;
}

/*
 * The waves of the dispatch at the head of @p q, stopped by @p cause (GC_SCEN_STOP_NONE:
 * running, at the kernel's entry), as a context save would write them into XCC 0's area:
 * written there now unless @p no_write (an eviction), and kept in the slot's store for a
 * debugger's SUSPEND. Returns the waves, or -1.
 */
static int save_waves(struct proc_slot *slot, const struct gc_emu_vm *vm, struct gc_emu_queue *q,
                      const uint8_t pkt[64], enum gc_scen_stop cause, int write,
                      uint64_t fault_va, int no_write)
{
    const struct gc_emu_device *dev = &slot->e->machine.devs[q->dev];
    struct gc_emu_kernel_info ki;
    struct gc_emu_save how;
    struct saved_area *a;
    uint64_t kd, slots = q->ring_size / 64;
    uint32_t r_version = 0;
    char text[GC_DISASM_TEXT_MAX], err[256];
    int n;

    memset(&how, 0, sizeof(how));
    memcpy(&kd, pkt + 32, 8);
    if (gc_emu_kernels_info(slot->kernels, kd, &ki) || !ki.have_desc) {
        if (verbose)
            fprintf(stderr, PROG ": [%d] no code object describes the kernel at 0x%llx: its "
                    "waves are not saved\n", slot->tgid, (unsigned long long)kd);
        return -1;
    }
    how.packet = q->ring + (slots ? q->read_index % slots : 0) * 64;
    how.entry = ki.entry;
    how.code_size = ki.code_size;
    how.desc = ki.desc;
    how.cause = cause;
    how.kernel = ki.name;
    if (slot->kfd.r_debug)
        (void)gc_emu_vm_read(vm, slot->kfd.r_debug, &r_version, sizeof(r_version));
    how.r_version = r_version;
    how.pc = cause == GC_SCEN_STOP_NONE
                 ? ki.entry
                 : gc_emu_fault_pc(dev->arch, ki.entry, ki.code, ki.code_len, cause, write,
                                   text, sizeof(text));
    if (cause == GC_SCEN_STOP_NONE)
        text[0] = '\0';
    how.address_vgpr = cause == GC_SCEN_STOP_MEMORY_VIOLATION ? gc_emu_address_vgpr(text) : -1;
    how.fault_va = fault_va;
    how.no_write = no_write;
    how.keep_image = 1;
    n = gc_emu_save_dispatch(vm, q, pkt, &how, err, sizeof(err));
    if (n >= 0 && (a = area_slot(slot, q->id, 0, 1)) != NULL)
        area_store(a, how.image, how.image_len, &how.saved_header, cause != GC_SCEN_STOP_NONE);
    else if (n >= 0)
        gc_free(how.image);
    if (!verbose)
        return n;
    if (n < 0)
        fprintf(stderr, PROG ": [%d] the waves of %s were not saved: %s\n", slot->tgid, ki.name,
                err);
    else if (!no_write)
        fprintf(stderr, PROG ": [%d] %d waves saved in queue %u's save area at 0x%llx, "
                "stopped at 0x%llx%s%s\n", slot->tgid, n, q->id, (unsigned long long)q->cwsr,
                (unsigned long long)how.pc, text[0] ? ": " : "", text);
    return n;
}

/* The GPU's view of a slot's process (io and vm must outlive the use of the result). */
static void slot_vm(struct proc_slot *slot, struct io_ctx *c, struct gc_emu_io *io,
                    struct gc_emu_vm *vm)
{
    c->pid = slot->tgid;
    io->ctx = c;
    io->read = io_read;
    io->write = io_write;
    memset(vm, 0, sizeof(*vm));
    vm->p = &slot->kfd;
    vm->cpu = io;
    vm->file_ctx = slot->e;
    vm->file_rw = file_rw;
}

/* emu_debug.h's area provider: the stored fault, the running dispatch at the queue's head, or
   an area without waves. */
static int area_of(void *user, const struct gc_emu_queue *q, uint32_t xcc,
                   struct gc_emu_area *ret)
{
    struct proc_slot *slot = user;
    const struct gc_emu_device *dev = &slot->e->machine.devs[q->dev];
    struct saved_area *a = area_slot(slot, q->id, xcc, 1);
    struct io_ctx c;
    struct gc_emu_io io;
    struct gc_emu_vm vm;
    uint8_t raw[GC_CWSR_HEADER_SIZE], pkt[64];
    uint64_t wptr = 0, slots = q->ring_size / 64;
    struct gc_cwsr_header tmpl, h;
    uint8_t *img = NULL;
    size_t len = 0;

    if (!a)
        return -1;
    slot_vm(slot, &c, &io, &vm);
    if (!a->faulted) {
        if (xcc == 0 && q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL && slots &&
            gc_emu_vm_read(&vm, q->wptr_addr, &wptr, sizeof(wptr)) == 0 && q->read_index < wptr &&
            gc_emu_vm_read(&vm, q->ring + (q->read_index % slots) * 64, pkt, sizeof(pkt)) == 0 &&
            (pkt[0] & 0xffu) == 2 /* KERNEL_DISPATCH */ &&
            save_waves(slot, &vm, (struct gc_emu_queue *)(uintptr_t)q, pkt, GC_SCEN_STOP_NONE, 0,
                       0, 1) >= 0) {
            a = area_slot(slot, q->id, xcc, 0); /* save_waves stored it */
        } else {
            /* no waves: what get_wave_state writes for an idle queue */
            if (gc_emu_vm_read(&vm, q->cwsr + (uint64_t)xcc * q->cwsr_size, raw, sizeof(raw)) ||
                gc_cwsr_header_decode(raw, sizeof(raw), &tmpl) != GPUCORE_OK ||
                gc_cwsr_encode(dev->arch, NULL, 0, dev->cwsr.ctl_stack_size, &tmpl, &img, &len,
                               &h, NULL) != GPUCORE_OK)
                return -1;
            area_store(a, img, len, &h, 0);
        }
    }
    if (!a)
        return -1;
    ret->header = a->header;
    ret->image = a->image;
    ret->image_len = a->len;
    return 0;
}

/* An error the debugger does not hold, handed back to the runtime as amdkfd does. */
static void to_runtime(void *user, const struct gc_sim_runtime_error *r)
{
    struct proc_slot *slot = user;
    struct gc_emu_proc *p = &slot->kfd;
    struct io_ctx c = { slot->tgid };
    struct gc_emu_io io = { &c, io_read, io_write };

    for (size_t d = 0; d < p->m->ndevs; d++) {
        if (p->m->devs[d].agent.gpu_id != r->gpu_id)
            continue;
        if (r->code == EC_DEVICE_MEMORY_VIOLATION || r->fault_va) {
            gc_emu_kfd_vm_fault(p, (uint32_t)d, r->fault_va, (r->fault_flags & 2) != 0);
        } else {
            for (uint32_t i = 0; i < p->nqueues; i++)
                if (p->queues[i].id == r->queue_id && r->code >= 1 && r->code <= 64)
                    gc_emu_kfd_queue_exception(p, &p->queues[i], KFD_EC_MASK(r->code), &io);
        }
    }
    retry_parked(slot->e, slot, 0);
}

/* A fault of queue @p q: to the debugger when one holds the process, else to the runtime. */
static void raise_fault(struct proc_slot *slot, struct gc_emu_queue *q, uint32_t code,
                        uint64_t fault_va, int write)
{
    struct gc_sim_exception x;
    struct gc_sim_runtime_error r;

    memset(&x, 0, sizeof(x));
    x.code = code;
    x.gpu_id = slot->kfd.m->devs[q->dev].agent.gpu_id;
    x.queue_id = code == EC_DEVICE_MEMORY_VIOLATION ? KFD_INVALID_QUEUEID : q->id;
    x.fault_va = fault_va & ~0xfffull;
    x.fault_flags = fault_va ? (1u | (write ? 2u : 0u)) : 0; /* NotPresent, ReadOnly */
    if (slot->debug) {
        gc_emu_debug_update(slot->debug, q);
        gc_emu_debug_raise(slot->debug, &x); /* hands it back if no debugger holds it */
        return;
    }
    r.code = x.code;
    r.gpu_id = x.gpu_id;
    r.queue_id = x.queue_id;
    r.fault_va = x.fault_va;
    r.fault_flags = x.fault_flags;
    to_runtime(slot, &r);
}

struct dispatch_ctx {
    struct proc_slot *slot;
    const struct gc_emu_vm *vm;
};

/* The fault plan's decision for one kernel dispatch (emu_cp.h's dispatch callback). */
static int on_dispatch(void *ctx, struct gc_emu_queue *q, const uint8_t pkt[64])
{
    struct dispatch_ctx *dc = ctx;
    struct proc_slot *slot = dc->slot;
    struct io_ctx c = { slot->tgid };
    struct gc_emu_co_source src = { &c, io_read, co_read_file };
    uint64_t kd, kernarg, va = 0;
    const struct gc_emu_rule *r;
    const char *name;
    int abort_trap;

    memcpy(&kd, pkt + 32, 8);
    memcpy(&kernarg, pkt + 40, 8);
    name = gc_emu_kernels_name(slot->kernels, &src, slot->kfd.r_debug, kd);
    r = gc_emu_plan_decide(&slot->e->o->plan, name);
    if (verbose)
        fprintf(stderr, PROG ": [%d] dispatch of %s (descriptor 0x%llx): %s\n", c.pid,
                name ? name : "an unknown kernel", (unsigned long long)kd,
                gc_emu_action_name(r ? r->action : GC_EMU_COMPLETE));
    if (!r || r->action == GC_EMU_COMPLETE)
        return 0;
    switch (r->action) {
    case GC_EMU_HANG:
        q->stopped = GC_EMU_QUEUE_HUNG;
        return 1;
    case GC_EMU_MEMORY_VIOLATION:
        if (r->use_absolute)
            va = r->absolute;
        else if (io_read(&c, kernarg + r->argument_offset, &va, sizeof(va)) == 0)
            va += r->add;
        else
            va = r->add; /* no readable argument: the offset alone */
        q->stopped = GC_EMU_QUEUE_EVICTED;
        save_waves(slot, dc->vm, q, pkt, GC_SCEN_STOP_MEMORY_VIOLATION, r->write, va, 0);
        raise_fault(slot, q, EC_DEVICE_MEMORY_VIOLATION, va, r->write);
        return 1;
    case GC_EMU_ILLEGAL_INSTRUCTION:
        q->stopped = GC_EMU_QUEUE_EXCEPTION;
        save_waves(slot, dc->vm, q, pkt, GC_SCEN_STOP_ILLEGAL_INSTRUCTION, 0, 0, 0);
        raise_fault(slot, q, EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION, 0, 0);
        return 1;
    case GC_EMU_TRAP:
        /* the runtime's trap handler: s_trap 2 is an abort, any other id a trap */
        abort_trap = r->trap_id == 2;
        q->stopped = GC_EMU_QUEUE_EXCEPTION;
        save_waves(slot, dc->vm, q, pkt,
                   abort_trap ? GC_SCEN_STOP_ASSERT_TRAP : GC_SCEN_STOP_TRAP, 0, 0, 0);
        raise_fault(slot, q, abort_trap ? EC_QUEUE_WAVE_ABORT : EC_QUEUE_WAVE_TRAP, 0, 0);
        return 1;
    case GC_EMU_COMPLETE:
        break;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The debugger's side                                                                         */
/* ------------------------------------------------------------------------------------------ */

static int write_target(void *user, uint64_t addr, const void *buf, size_t len)
{
    struct io_ctx c = { ((struct proc_slot *)user)->tgid };

    return io_write(&c, addr, buf, len);
}

/* The tgid of @p pid's tracer (TracerPid), 0 when none or unknown. */
static int tracer_of(int pid)
{
    char path[64], buf[1024];
    const char *t;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    t = strstr(buf, "\nTracerPid:");
    return t ? atoi(t + 11) : 0;
}

/* The debugger's eventfd @p fd, as a descriptor of this process (pidfd_getfd), or -1. */
static int take_fd(int pid, uint32_t fd)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), got;

    if (pidfd < 0)
        return -1;
    got = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
    close(pidfd);
    return got;
}

/* AMDKFD_IOC_DBG_TRAP from the debugger @p debugger (its thread req->pid). */
static void serve_dbg_trap(struct emu *e, const struct seccomp_notif *req, int debugger)
{
    unsigned cmd = (unsigned)req->data.args[1], usize = GC_IOC_SIZE(cmd);
    uint64_t argp = req->data.args[2];
    struct kfd_ioctl_dbg_trap_args args;
    struct io_ctx c = { (int)req->pid };
    struct gc_emu_io io = { &c, io_read, io_write };
    struct proc_slot *target;
    int event_fd = -1, answered;
    uint32_t op;
    char err[256];
    long ret;

    if (usize > sizeof(args))
        usize = sizeof(args);
    memset(&args, 0, sizeof(args));
    if (io_read(&c, argp, &args, usize) != 0) {
        respond(e, req->id, -EFAULT);
        return;
    }
    target = slot_of(e, (int)args.pid);
    /* kfd_ioctl_set_debug_trap: a debugger that is the target's ptrace parent creates the
       target's KFD process before the target opens /dev/kfd itself; anyone else: ESRCH */
    if (!target && args.pid <= INT32_MAX && tracer_of((int)args.pid) == debugger)
        target = proc_for(e, (int)args.pid);
    if (!target) {
        respond(e, req->id, -ESRCH);
        return;
    }
    if (!target->debug) {
        struct gc_emu_debug_target t = { &target->kfd, target->tgid, write_target, target,
                                         to_runtime, target, area_of, target };

        if (gc_emu_debug_new(&t, &target->debug, err, sizeof(err)) != GPUCORE_OK) {
            if (verbose)
                fprintf(stderr, PROG ": [%d] DBG_TRAP of %d: %s\n", debugger, target->tgid, err);
            respond(e, req->id, -ENOMEM);
            return;
        }
    }
    if (args.op == KFD_IOC_DBG_TRAP_ENABLE)
        event_fd = take_fd((int)req->pid, args.enable.dbg_fd);
    if (args.op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES) /* what is on the hardware now */
        for (uint32_t i = 0; i < target->kfd.nqueues; i++)
            gc_emu_debug_update(target->debug, &target->kfd.queues[i]);
    op = args.op;
    answered = op == KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT &&
               (args.send_runtime_event.exception_mask & KFD_EC_MASK(EC_PROCESS_RUNTIME));
    ret = gc_emu_debug_ioctl(target->debug, debugger, &args, event_fd, &io);
    gc_emu_debug_sync_queues(target->debug, &target->kfd);
    if (io_write(&c, argp, &args, usize) != 0)
        ret = -EFAULT;
    if (verbose)
        fprintf(stderr, PROG ": [%d] DBG_TRAP op %u of %d = %ld\n", debugger, op,
                target->tgid, ret);
    respond(e, req->id, ret);
    /* The runtime held in its enable goes on once the debugger answered it or let go. */
    if (ret == 0 && (answered || op == KFD_IOC_DBG_TRAP_DISABLE))
        release_runtime_enable(e, target);
}

/* Whether a process waits in a held RUNTIME_ENABLE. */
static int any_held(const struct emu *e)
{
    for (size_t i = 0; i < MAX_PROCS; i++)
        if (e->procs[i].used && e->procs[i].rt.held)
            return 1;
    return 0;
}

/* Debuggers that are gone lose their sessions (the kernel's release of /dev/kfd). */
static void reap_debuggers(struct emu *e)
{
    for (size_t i = 0; i < MAX_PROCS; i++) {
        struct proc_slot *slot = &e->procs[i];
        int owner = slot->used && slot->debug ? gc_emu_debug_owner(slot->debug) : 0;

        if (owner && kill(owner, 0) != 0 && errno == ESRCH) {
            gc_emu_debug_disconnect(slot->debug, owner);
            gc_emu_debug_sync_queues(slot->debug, &slot->kfd);
            release_runtime_enable(e, slot);
        }
    }
}

/* Let the GPU run: every process's queues as far as they go. Returns the packets retired. */
static uint32_t run_engines(struct emu *e)
{
    uint32_t done = 0;

    for (size_t i = 0; i < MAX_PROCS; i++) {
        struct proc_slot *slot = &e->procs[i];
        struct io_ctx c = { slot->tgid };
        struct gc_emu_io io = { &c, io_read, io_write };
        struct dispatch_ctx dc = { slot, NULL };
        struct gc_emu_vm vm = { &slot->kfd, &io, e, file_rw, on_dispatch, &dc };
        struct gc_emu_cp_stats st;

        if (!slot->used || !slot->kfd.nqueues)
            continue;
        dc.vm = &vm;
        gc_emu_cp_run(&vm, &st);
        done += st.packets + st.sdma_packets;
        e->aql_packets += st.packets;
        e->sdma_packets += st.sdma_packets;
        if (verbose > 1 && (st.packets || st.sdma_packets))
            fprintf(stderr, PROG ": [%d] %u AQL and %u SDMA packets, %u events\n", slot->tgid,
                    st.packets, st.sdma_packets, st.events);
        if (verbose && (st.blits || st.blits_refused))
            fprintf(stderr, PROG ": [%d] %u blit kernels copied or filled, %u not performed\n",
                    slot->tgid, st.blits, st.blits_refused);
        if (st.events)
            retry_parked(e, slot, 0);
    }
    return done;
}

static void serve_render(struct emu *e, const struct seccomp_notif *req, int dev)
{
    unsigned cmd = (unsigned)req->data.args[1];
    uint64_t argp = req->data.args[2];
    uint8_t args[GC_EMU_ARGS_MAX];
    struct io_ctx c = { (int)req->pid };
    struct gc_emu_io io = { &c, io_read, io_write };
    unsigned size = GC_IOC_SIZE(cmd);
    long ret;

    memset(args, 0, sizeof(args));
    if ((GC_IOC_DIR(cmd) & GC_IOC_WRITE) && io_read(&c, argp, args, size) != 0) {
        respond(e, req->id, -EFAULT);
        return;
    }
    ret = gc_emu_drm_ioctl(&e->machine.devs[dev], cmd, args, &io);
    if (ret == 0 && (GC_IOC_DIR(cmd) & GC_IOC_READ) && io_write(&c, argp, args, size) != 0)
        ret = -EFAULT;
    if (verbose)
        fprintf(stderr, PROG ": [%d] drm %s (0x%08x) = %ld\n", (int)req->pid,
                gc_emu_drm_name(cmd), cmd, ret);
    respond(e, req->id, ret);
}

/*
 * stat of a device file. The device files are regular files; a real /dev/kfd and render node
 * are character devices, and libdrm tells devices apart by their numbers (two render nodes
 * that are not character devices are "the same device" to amdgpu_device_initialize). So
 * fstat, newfstatat and statx of a device file answer what the kernel's devtmpfs node would:
 * a character device 0666 of the DRM major 226 and the render minor, or of kfd's major. Any
 * other stat continues to the kernel.
 */
#define DRM_MAJOR 226u
#define KFD_MAJOR 235u /* amdkfd's is dynamic (register_chrdev(0, ...)); any free one */

/* Read a NUL-terminated string of the process at @p addr into @p buf (cap bytes). */
static int read_string(int pid, uint64_t addr, char *buf, size_t cap)
{
    struct io_ctx c = { pid };
    size_t got = 0;

    while (got < cap) {
        size_t chunk = 4096 - ((addr + got) & 4095);

        if (chunk > cap - got)
            chunk = cap - got;
        if (io_read(&c, addr + got, buf + got, chunk) != 0)
            return -1;
        if (memchr(buf + got, '\0', chunk))
            return 0;
        got += chunk;
    }
    return -1;
}

/* Which device file a stat call names: -1 none, 0 kfd, 1+i render node i. */
static int classify_stat(const struct emu *e, const struct seccomp_notif *req)
{
    char path[4096], full[4200];
    struct stat st;
    int pid = (int)req->pid, dirfd, flags;

    if (req->data.nr == __NR_fstat)
        return classify_fd(e, pid, req->data.args[0]);
    dirfd = (int)req->data.args[0];
    flags = (int)req->data.args[req->data.nr == __NR_statx ? 2 : 3];
    if (read_string(pid, req->data.args[1], path, sizeof(path)) != 0)
        return -1;
    if (!path[0]) {
        if (!(flags & AT_EMPTY_PATH))
            return -1;
        return dirfd == AT_FDCWD ? -1 : classify_fd(e, pid, (uint64_t)(unsigned)dirfd);
    }
    if (path[0] == '/')
        snprintf(full, sizeof(full), "/proc/%d/root%s", pid, path);
    else if (dirfd == AT_FDCWD)
        snprintf(full, sizeof(full), "/proc/%d/cwd/%s", pid, path);
    else
        snprintf(full, sizeof(full), "/proc/%d/fd/%d/%s", pid, dirfd, path);
    if ((flags & AT_SYMLINK_NOFOLLOW ? lstat(full, &st) : stat(full, &st)) != 0)
        return -1;
    if (st.st_dev == e->kfd_dev && st.st_ino == e->kfd_ino)
        return 0;
    for (size_t i = 0; i < e->machine.ndevs; i++)
        if (st.st_dev == e->render_dev[i] && st.st_ino == e->render_ino[i])
            return 1 + (int)i;
    return -1;
}

static void serve_stat(struct emu *e, const struct seccomp_notif *req)
{
    int which = classify_stat(e, req);
    struct io_ctx c = { (int)req->pid };
    unsigned major, minor;
    struct stat st;
    int fd;

    if (which < 0 || ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0) {
        continue_call(e, req->id);
        return;
    }
    fd = which == 0 ? e->kfd_fd : e->render_fd[which - 1];
    major = which == 0 ? KFD_MAJOR : DRM_MAJOR;
    minor = which == 0 ? 0 : e->machine.devs[which - 1].render_minor;
    if (fstat(fd, &st) != 0) {
        continue_call(e, req->id);
        return;
    }
    e->served++;
    if (req->data.nr == __NR_statx) {
        struct statx sx;

        memset(&sx, 0, sizeof(sx));
        sx.stx_mask = STATX_BASIC_STATS;
        sx.stx_blksize = 4096;
        sx.stx_nlink = 1;
        sx.stx_mode = (uint16_t)(S_IFCHR | 0666);
        sx.stx_ino = st.st_ino;
        sx.stx_atime.tv_sec = st.st_atim.tv_sec;
        sx.stx_mtime.tv_sec = st.st_mtim.tv_sec;
        sx.stx_ctime.tv_sec = st.st_ctim.tv_sec;
        sx.stx_rdev_major = major;
        sx.stx_rdev_minor = minor;
        sx.stx_dev_major = 0;
        sx.stx_dev_minor = 5; /* devtmpfs */
        respond(e, req->id, io_write(&c, req->data.args[4], &sx, sizeof(sx)) ? -EFAULT : 0);
        return;
    }
    st.st_mode = S_IFCHR | 0666;
    st.st_rdev = makedev(major, minor);
    st.st_dev = makedev(0, 5);
    st.st_size = 0;
    st.st_blocks = 0;
    st.st_nlink = 1;
    respond(e, req->id,
            io_write(&c, req->data.args[req->data.nr == __NR_fstat ? 1 : 2], &st, sizeof(st))
                ? -EFAULT : 0);
}

static void serve_one(struct emu *e)
{
    struct seccomp_notif req;
    struct proc_slot *slot;
    int which, tgid;

    memset(&req, 0, sizeof(req));
    if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        return; /* the caller went away (ENOENT) or a signal came: nothing to answer */
    if (req.data.nr != __NR_ioctl) {
        serve_stat(e, &req);
        return;
    }
    which = classify_fd(e, (int)req.pid, req.data.args[0]);
    if (which < 0) {
        continue_call(e, req.id);
        return;
    }
    /* the fd was looked up in /proc after the call was made: check the call still waits, so
       the answer cannot go to a reused thread id */
    if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) != 0)
        return;
    e->served++;
    if (which > 0) {
        serve_render(e, &req, which - 1);
        return;
    }
    tgid = tgid_of((int)req.pid);
    slot = tgid > 0 ? proc_for(e, tgid) : NULL;
    if (!slot) {
        respond(e, req.id, -ENOMEM);
        return;
    }
    serve_kfd(e, &req, slot);
}

static int recv_fds(int sock, int *fds, size_t n)
{
    char byte;
    struct iovec iov = { &byte, 1 };
    char cbuf[CMSG_SPACE(sizeof(int) * (GC_EMU_MAX_DEVICES + 2))];
    struct msghdr msg = { 0 };
    struct cmsghdr *cm;

    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
        return -1;
    cm = CMSG_FIRSTHDR(&msg);
    if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int) * n))
        return -1;
    memcpy(fds, CMSG_DATA(cm), sizeof(int) * n);
    return 0;
}

static int exit_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return EXIT_OSERR;
}

static int any_queue(const struct emu *e)
{
    for (size_t i = 0; i < MAX_PROCS; i++)
        if (e->procs[i].used && e->procs[i].kfd.nqueues)
            return 1;
    return 0;
}

static void print_stats(const struct emu *e)
{
    struct rusage ru;
    double user = 0, sys = 0;

    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        user = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
        sys = (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
    }
    fprintf(stderr, PROG ": %llu calls served, %llu passed on; CPU %.1f ms user + %.1f ms "
            "system (%.1f us per call seen); GPU: %llu AQL packets, %llu SDMA packets\n",
            (unsigned long long)e->served, (unsigned long long)e->continued, user, sys,
            e->served + e->continued
                ? (user + sys) * 1e3 / (double)(e->served + e->continued) : 0.0,
            (unsigned long long)e->aql_packets, (unsigned long long)e->sdma_packets);
}

static int supervise(struct emu *e, pid_t child, int sigfd)
{
    int idle_ms = 1; /* how often the engines look at the queues: 1 ms after work, up to 16 */

    for (;;) {
        struct pollfd pf[2] = { { e->listener, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
        /* Parked waits and held runtime enables are looked at again (a timeout, a debugger
           gone) at least every 50 ms. */
        int timeout = any_queue(e) ? idle_ms : e->nparked || any_held(e) ? 50 : -1;
        int k = poll(pf, 2, timeout);

        if (any_queue(e)) {
            if (run_engines(e))
                idle_ms = 1;
            else if (k == 0 && idle_ms < 16)
                idle_ms *= 2;
        }
        if (k < 0 && errno != EINTR)
            return EXIT_OSERR;
        if (pf[0].revents & POLLIN)
            serve_one(e);
        if (pf[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            int status;

            if (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
                si.ssi_signo != SIGCHLD)
                kill(child, (int)si.ssi_signo);
            if (waitpid(child, &status, WNOHANG) == child) {
                if (verbose || stats)
                    print_stats(e);
                return exit_status(status);
            }
        }
        if (e->nparked)
            retry_parked(e, NULL, 1);
        reap_debuggers(e);
    }
}

int main(int argc, char **argv)
{
    static struct options o;
    static struct emu e;
    int sv[2], fds[GC_EMU_MAX_DEVICES + 2], sigfd, rc;
    sigset_t mask;
    pid_t child;
    struct stat st;

    rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    if (geteuid() != 0) {
        fprintf(stderr, PROG ": needs root (a private mount namespace for /dev and /sys)\n");
        return EXIT_UNAVAILABLE;
    }
    e.o = &o;
    e.machine.devs = o.devs;
    e.machine.ndevs = o.ndevs;
    e.machine.file_limit = FILE_LIMIT;
    e.machine.kfd_file_next = 1ull << 20; /* below: nothing, so a zero offset is never valid */
    for (size_t i = 0; i < o.ndevs; i++)
        e.machine.render_file_next[i] = 1ull << 20;

    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        perror(PROG);
        return EXIT_OSERR;
    }
    child = fork();
    if (child < 0) {
        perror(PROG ": fork");
        return EXIT_OSERR;
    }
    if (child == 0) {
        sigprocmask(SIG_UNBLOCK, &mask, NULL);
        close(sv[0]);
        gc_kfdemu_run_command(&o, sv[1]);
    }
    close(sv[1]);
    sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (sigfd < 0 || recv_fds(sv[0], fds, o.ndevs + 2) != 0) {
        int status;

        close(sv[0]);
        waitpid(child, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : EXIT_OSERR;
    }
    if (fstat(fds[0], &st) != 0)
        return EXIT_OSERR;
    e.kfd_dev = st.st_dev;
    e.kfd_fd = fds[0];
    e.kfd_ino = st.st_ino;
    for (size_t i = 0; i < o.ndevs; i++) {
        if (fstat(fds[1 + i], &st) != 0)
            return EXIT_OSERR;
        e.render_dev[i] = st.st_dev;
        e.render_ino[i] = st.st_ino;
        e.render_fd[i] = fds[1 + i];
    }
    e.listener = fds[1 + o.ndevs];
    if (write(sv[0], "g", 1) != 1)
        return EXIT_OSERR;
    close(sv[0]);
    return supervise(&e, child, sigfd);
}
