/* SPDX-License-Identifier: MIT */
/*
 * The simulated KFD driver, server side. gpucore-inferior describes the GPU process it laid out
 * in its own memory (agents, queues and their CWSR areas, runtime info, when exceptions happen,
 * which operations fail) and starts the driver; a thread then serves debuggers (kfd_sim.c, the
 * client backend) on an abstract unix socket with the real driver's rules
 * (docs/kfd-debug-interface.md §10-§11). Because the driver runs inside the inferior, SUSPEND
 * writes each XCC's save-area header straight into the inferior's memory, exactly where the
 * kernel's get_wave_state would have put it; the control stack and the waves are already in the
 * area (the inferior's layout keeps them there), unless a front end hands the driver bytes to
 * copy in (gc_sim_xcc.saved).
 *
 * Only the kernel driver is simulated: everything the debugger reads besides these answers
 * (memory, threads) comes from the real process through ptrace and process_vm_readv.
 *
 * Besides the kernel's ioctls the driver answers DEVICE_INFO (kfd_sim_protocol.h) to anyone who
 * can connect: its service thread, the device's allocation list, the injected read delay and its
 * debug state. It also plays the runtime's side: raised errors no debugger holds are handed to
 * the description's runtime_error callback (gc_sim_driver_flush_runtime()).
 *
 * The description is deep-copied by gc_sim_driver_start(); the caller may free it afterwards.
 * Addresses (xcc base, control stack source) must stay valid while the driver runs: the driver
 * writes to and reads from them.
 */
#ifndef GC_KFD_SIM_DRIVER_H
#define GC_KFD_SIM_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/status.h>

#include "cwsr.h"
#include "kfd_uapi.h"
#include "kfd_sim_protocol.h"

/* Bounds of a description (also what a hostile client can make the driver allocate). */
#define GC_SIM_MAX_AGENTS     64u
#define GC_SIM_MAX_QUEUES     1024u
#define GC_SIM_MAX_XCC        16u
#define GC_SIM_MAX_EXCEPTIONS 1024u
#define GC_SIM_MAX_FAULTS     64u

/* Fault-injection op number for AMDKFD_IOC_GET_VERSION (DBG_TRAP ops use their own values). */
#define GC_SIM_OP_GET_VERSION 100

/* One XCC of a queue's CWSR area. */
struct gc_sim_xcc {
    uint64_t base; /* address of this XCC's area in this (the inferior's) process */
    /* The header SUSPEND writes at base (40 bytes through gc_cwsr_header_encode): the
     * kernel's get_wave_state fills in wave_state, libhsakmt wrote the rest at queue
     * creation. As gc_cwsr_encode() returned it in ret_header. */
    struct gc_cwsr_header header;
    /* What the preemption saves, written on SUSPEND at base + header.control_stack_offset: the
     * used control stack (the CP writes it; on gfx9 into kernel memory, which get_wave_state
     * copies out) followed by the trap handler's wave records, up to
     * header.wave_state_offset. At most that many bytes are written. NULL/0: nothing but the
     * header -- the device keeps the waves in the area itself (gpucore-inferior's layout writes
     * them there once), so a save adds only the header, 40 bytes, in place. A front end whose
     * target memory is not the device's (gpucore-kfdemu) passes the bytes to copy in. Borrowed:
     * it must stay valid while the driver lives. */
    const void *saved;
    uint32_t saved_len;
};

struct gc_sim_queue {
    /* What GET_QUEUE_SNAPSHOT returns (exception_status is the initial value; the driver
     * raises bits into it). entry.queue_id and entry.gpu_id identify the queue. */
    struct kfd_queue_snapshot_entry entry;
    uint32_t num_xcc;             /* 1..GC_SIM_MAX_XCC */
    const struct gc_sim_xcc *xcc; /* num_xcc entries, deep-copied */
    /* Per-queue hardware failure: SUSPEND / RESUME set KFD_DBG_QUEUE_ERROR_MASK on this id and
     * do not count it. */
    int fail_suspend;
    int fail_resume;
};

/*
 * An exception the driver raises at a given time after ENABLE (counted from the latest ENABLE;
 * an exception raised once stays raised across DISABLE/ENABLE). It is signalled on the
 * debugger's eventfd only if its bits are in the debugger's exception mask.
 */
struct gc_sim_exception {
    uint32_t code;     /* enum kfd_dbg_trap_exception_code */
    uint32_t gpu_id;   /* device (device exceptions, and the queue's device) */
    uint32_t queue_id; /* KFD_INVALID_QUEUEID for a device or process exception */
    uint32_t delay_ms; /* after ENABLE */
    /* Bits ORed into the queue's (or device's) exception_status; 0 means KFD_EC_MASK(code). */
    uint64_t status_bits;
    /* EC_DEVICE_MEMORY_VIOLATION: the record QUERY_EXCEPTION_INFO returns (the kernel's
     * kfd_hsa_memory_exception_data: failure flags, va, gpu_id, error type). */
    uint64_t fault_va;
    uint32_t fault_flags; /* bit0 NotPresent, bit1 ReadOnly, bit2 NoExecute, bit3 imprecise */
    uint32_t error_type;
    /* A queue exception with a fault address (fault_va != 0) also raises
     * EC_DEVICE_MEMORY_VIOLATION on its device, as the kernel's VM-fault path does, so
     * QUERY_EXCEPTION_INFO has the record to return. */
};

/*
 * What "the runtime" (ROCr inside the inferior) learns of a raised exception: handed to the
 * gc_sim_process::runtime_error callback once, when the exception is raised while no debugger
 * holds it (debugging disabled, or its bits outside the debugger's exception mask), or when the
 * debugger that held it lets go (DISABLE, disconnect, or a mask that no longer has it).
 */
struct gc_sim_runtime_error {
    uint32_t code;     /* enum kfd_dbg_trap_exception_code */
    uint32_t gpu_id;
    uint32_t queue_id; /* KFD_INVALID_QUEUEID for a device or process exception */
    uint64_t fault_va; /* 0 if none */
    uint32_t fault_flags;
};
typedef void (*gc_sim_runtime_fn)(void *user, const struct gc_sim_runtime_error *e);

/* Write @p len bytes at @p addr of the target process: 0 or -1. */
typedef int (*gc_sim_write_fn)(void *user, uint64_t addr, const void *buf, size_t len);

/*
 * An injected failure. Checked before any of the driver's rules, so an injected errno is what
 * the op returns even when the op would otherwise have been refused.
 */
struct gc_sim_fault {
    int op;            /* DBG_TRAP op (enum kfd_dbg_trap_operations) or GC_SIM_OP_GET_VERSION */
    int err;           /* errno the op fails with; 0 = do not fail */
    uint32_t nth;      /* fail only the Nth call of this op (1-based); 0 = every call */
    int exit_during;   /* nonzero: the process _exit()s while serving this op (before replying) */
    int exit_status;   /* status for _exit */
    uint32_t delay_ms; /* delay every call of this op by this much before answering */
};

struct gc_sim_process {
    uint32_t kfd_major, kfd_minor; /* GET_VERSION answer; 0/0 means 1.18 */
    int no_hws;                    /* sched_policy NO_HWS: every op fails EINVAL */
    struct kfd_runtime_info rinfo; /* r_debug, runtime_state, ttmp_setup */

    uint32_t num_agents; /* <= GC_SIM_MAX_AGENTS */
    const struct kfd_dbg_device_info_entry *agents;

    uint32_t num_queues; /* <= GC_SIM_MAX_QUEUES */
    const struct gc_sim_queue *queues;

    uint32_t num_exceptions; /* <= GC_SIM_MAX_EXCEPTIONS */
    const struct gc_sim_exception *exceptions;

    uint32_t num_faults; /* <= GC_SIM_MAX_FAULTS */
    const struct gc_sim_fault *faults;

    /* The device's allocations (DEVICE_INFO), in any order; <= GC_SIM_MAX_ALLOCS. */
    uint32_t num_allocs;
    const struct gc_sim_alloc *allocs;
    /* Injected slowness of target-memory reads, reported by DEVICE_INFO; the client sleeps. */
    uint32_t read_delay_us_per_mib;

    /*
     * Late arming: 0 = exceptions are raised delay_ms after ENABLE (never without a
     * debugger); 1 = delay_ms after gc_sim_driver_create, debugger or not. An error raised
     * while no debugger has debugging enabled is handled as the kernel does (kfd_debug.c
     * kfd_set_dbg_ev_from_interrupt): nothing is recorded in any exception_status (so a
     * debugger that enables later sees none in the snapshots or QUERY_DEBUG_EVENT); a memory
     * violation (a fault address, or EC_DEVICE_MEMORY_VIOLATION) evicts every queue of the
     * process (kfd_dqm_evict_pasid), any other queue error leaves its queue inactive (ROCr's
     * AqlQueue::Suspend before its error callback); either way the waves are saved into the
     * CWSR areas then, without the header. A later SUSPEND of such a queue succeeds without
     * a new save and writes the header (get_wave_state, run by the kernel's SUSPEND for every
     * queue of the process).
     */
    int runtime_clock;

    /* The runtime's error handler (NULL: exceptions are never delivered). Called on the driver's
     * thread from gc_sim_driver_flush_runtime(); it may exit or abort the process. */
    gc_sim_runtime_fn runtime_error;
    void *runtime_user;
    /*
     * The target, when the driver does not run inside it (gpucore-kfdemu): its pid (the
     * ptrace-parent rule reads its TracerPid; 0: this process) and how to write its memory
     * (the save areas' headers and waves; NULL: the driver's own memory).
     */
    pid_t target_pid;
    gc_sim_write_fn write_mem;
    void *mem_user;
};

struct gc_sim_driver;

/*
 * Validate and copy @p desc, bind the abstract unix socket @p socket_name (with or without the
 * leading '@'; NULL = "@gpucore-kfd-sim.<getpid()>") and start the server thread. Clients are
 * served one request at a time (at most 16 connections; a client that does not read its answers
 * is dropped); a client that disconnects while it holds the debug session gets an implicit
 * DISABLE (queues resumed), like the kernel on close of /dev/kfd.
 *
 * The server is a thread of the calling process: a debugger that stops every thread of the
 * process (PTRACE_ATTACH's SIGSTOP, PTRACE_INTERRUPT on all tasks) stops the driver too and its
 * requests time out. Debuggers must leave the thread named "gpucore-kfd-sim"
 * (gc_sim_driver_thread_tid()) running, e.g. PTRACE_SEIZE + PTRACE_INTERRUPT of the other tasks.
 *
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  bad description (counts over the bounds, num_xcc 0, NULL arrays)
 * @retval GPUCORE_E_EXIST  the socket name is taken (another driver for this pid)
 * @retval GPUCORE_E_IO     socket or thread creation failed
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_sim_driver_start(const struct gc_sim_process *desc, const char *socket_name,
                                     struct gc_sim_driver **ret, gpucore_diag_t *reterr_diag);

/* Stop the server thread, close every connection (implicit DISABLE) and free. Accepts NULL. */
void gc_sim_driver_stop(struct gc_sim_driver *d);

/* The socket name in use, with the leading '@'. */
const char *gc_sim_driver_socket_name(const struct gc_sim_driver *d);

/* Thread id of the server thread (set before gc_sim_driver_start returns), so a capturer can leave
 * it running. The thread is also named "gpucore-kfd-sim". */
pid_t gc_sim_driver_thread_tid(const struct gc_sim_driver *d);

/* Default socket name for @p pid into buf ("@gpucore-kfd-sim.<pid>"). */
void gc_sim_default_socket_name(pid_t pid, char *buf, size_t size);

/* ---- Without a thread: for unit tests and the fuzz target ---- */

/* Validate and copy @p desc into a driver that serves nothing until asked (no socket). */
gpucore_status_t gc_sim_driver_create(const struct gc_sim_process *desc, struct gc_sim_driver **ret,
                                      gpucore_diag_t *reterr_diag);
/* Free a driver made by gc_sim_driver_create (never one that was started: use stop). */
void gc_sim_driver_destroy(struct gc_sim_driver *d);

/*
 * Serve one encoded request (kfd_sim_protocol.h) from connection @p conn_id of process
 * @p peer_pid, with @p fd the descriptor that came with it (-1 if none; the driver takes
 * ownership). Writes the encoded response into @p resp (capacity @p resp_cap, at least
 * GC_SIM_MAX_MESSAGE from kfd_sim_protocol.h) and returns its length, or 0 if the request is
 * malformed (the server then drops the connection). Raises due exceptions first.
 */
size_t gc_sim_driver_handle(struct gc_sim_driver *d, uint64_t conn_id, pid_t peer_pid,
                            const uint8_t *req, size_t req_len, int fd, uint8_t *resp,
                            size_t resp_cap);

/*
 * Raise @p x now (its delay_ms is ignored), as hardware raises an error when it happens:
 * recorded for the debugger that has debugging enabled, else handled as runtime_clock's
 * undebugged errors are (queues evicted or made inactive, waves saved). Call
 * gc_sim_driver_flush_runtime() after it to hand what no debugger holds to the runtime.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL), GPUCORE_E_LIMIT (GC_SIM_MAX_EXCEPTIONS raised),
 *         GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_sim_driver_raise(struct gc_sim_driver *d, const struct gc_sim_exception *x);

/*
 * Replace what XCC @p xcc of queue @p queue_id saves (its header and saved bytes, borrowed as
 * in the description), when the waves on the hardware changed (a new fault).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (no such queue or XCC, no base, NULL saved bytes).
 */
gpucore_status_t gc_sim_driver_set_saved(struct gc_sim_driver *d, uint32_t queue_id, uint32_t xcc,
                                        const struct gc_sim_xcc *x);

/*
 * A queue the process created after the description (the emulated driver's CREATE_QUEUE): added
 * as a description queue (its xcc array copied, saved bytes borrowed), and EC_QUEUE_NEW raised
 * for the debugger that has debugging enabled.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (a bad queue or a queue id already there),
 *         GPUCORE_E_LIMIT (GC_SIM_MAX_QUEUES), GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_sim_driver_add_queue(struct gc_sim_driver *d, const struct gc_sim_queue *s);

/*
 * The target's runtime enabled (or disabled) itself after the description: its runtime info
 * becomes @p ri, and a debugger with debugging enabled gets EC_PROCESS_RUNTIME when the runtime
 * starts. (amdkfd also holds the runtime's RUNTIME_ENABLE until the debugger answers with
 * SEND_RUNTIME_EVENT; the driver does not.)
 */
void gc_sim_driver_set_runtime(struct gc_sim_driver *d, const struct kfd_runtime_info *ri);

/* 1 if queue @p queue_id is suspended by the debugger (SUSPEND_QUEUES), else 0. */
int gc_sim_driver_queue_suspended(const struct gc_sim_driver *d, uint32_t queue_id);

/* The connection went away: implicit DISABLE if it held the session. */
void gc_sim_driver_disconnect(struct gc_sim_driver *d, uint64_t conn_id);

/* Raise every scheduled exception that is due at @p now_ms after ENABLE (with runtime_clock:
   after the driver's creation) (tests). */
void gc_sim_driver_tick(struct gc_sim_driver *d, uint64_t now_ms);

/*
 * Hand every raised exception no debugger holds to the runtime callback (once each). The server
 * calls it after each answer is sent (so a DISABLE is answered before the runtime aborts), after
 * a disconnect and after raising due exceptions; tests call it after gc_sim_driver_handle().
 */
void gc_sim_driver_flush_runtime(struct gc_sim_driver *d);

/* What the driver state looks like now (tests; clients ask DEVICE_INFO). */
void gc_sim_driver_state(const struct gc_sim_driver *d, int *ret_debug_enabled,
                         uint32_t *ret_suspended_queues);

/*
 * Treat @p pid as the target's ptrace parent instead of reading TracerPid from
 * /proc/self/status (unit tests, where no ptrace is involved). 0 restores the real check.
 */
void gc_sim_driver_set_tracer_override(struct gc_sim_driver *d, pid_t pid);

#endif /* GC_KFD_SIM_DRIVER_H */
