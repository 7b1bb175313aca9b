/* SPDX-License-Identifier: MIT */
/*
 * The kernel-driver boundary as a debugger sees it: one ops table, two backends.
 *
 *   linux  the real /dev/kfd debug interface (AMDKFD_IOC_GET_VERSION, AMDKFD_IOC_DBG_TRAP, the
 *          event fd), ptrace'd target memory through process_vm_readv or /proc/PID/mem;
 *   sim    a client of the simulated driver hosted by gpucore-inferior (kfd/sim/), same rules.
 *
 * A struct gc_kfd is one debug session on one target process. Nothing outside kfd/ calls
 * ioctl. Every function returns a gpucore_status_t and fills reterr_diag with one sentence on
 * failure. errno values of the driver map to statuses as documented per function:
 *
 *   EPERM   -> GPUCORE_E_PERM     (not the ptrace parent, or runtime not enabled for a HW op)
 *   EACCES  -> GPUCORE_E_PERM
 *   EINVAL  -> GPUCORE_E_INVAL    (debugging not enabled, another debugger holds the target,
 *                                  or no hardware scheduling)
 *   ENODEV  -> GPUCORE_E_NODEV    (a GPU does not support debugging)
 *   ESRCH   -> GPUCORE_E_NOTFOUND (the target process is gone)
 *   EBUSY   -> GPUCORE_E_LIMIT    (a runtime enable is pending)
 *   EFAULT, EIO, others -> GPUCORE_E_IO
 *
 * Internal (not installed). Thread safety: a session is used by one thread at a time.
 */
#ifndef GC_KFD_H
#define GC_KFD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/status.h>

#include "kfd_uapi.h"

struct gc_kfd;

/* Supported KFD ioctl versions: 1.13 <= v < 2.0 (ROCdbgapi's window). */
#define GC_KFD_MIN_MAJOR 1u
#define GC_KFD_MIN_MINOR 13u

enum gc_kfd_backend {
    GC_KFD_BACKEND_LINUX = 0,
    GC_KFD_BACKEND_SIM = 1,
};

/*
 * The ioctl entry point of the linux backend. Production uses ioctl(2); unit tests pass a
 * fake that plays the driver. Returns 0 or -1 with errno set, like ioctl(2).
 */
typedef int (*gc_kfd_ioctl_fn)(void *user, int fd, unsigned long request, void *arg);

struct gc_kfd_open_opts {
    enum gc_kfd_backend backend;
    const char *device_path;    /* linux: default "/dev/kfd" */
    gc_kfd_ioctl_fn ioctl_fn;   /* linux: default ioctl(2) */
    void *ioctl_user;
    const char *sim_socket;     /* sim: default the abstract socket "@gpucore-kfd-sim.<pid>" */
    const char *smaps_path;     /* linux, test hook: read this file instead of /proc/PID/smaps
                                   for gc_kfd_gpu_mappings(); NULL = the real one */
    uint32_t sim_timeout_ms;    /* sim: how long a request waits for its answer before it fails
                                   (ETIMEDOUT); 0 = the default, 20 s */
};

/* Per-queue status bits written back into SUSPEND/RESUME id arrays (and snapshot queue ids). */
#define GC_KFD_QUEUE_ERROR_MASK (1u << 30)
#define GC_KFD_QUEUE_INVALID_MASK (1u << 31)
#define GC_KFD_QUEUE_ID_MASK 0x3fffffffu

/*
 * Open a session on process @p pid (the caller must already be its ptrace parent for
 * enable to succeed). Opens the device (linux) or connects to the simulated driver (sim) and
 * checks the KFD version window.
 *
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NODEV    no driver: "no AMD GPU kernel driver: /dev/kfd not found", or KFD
 *                            older than 1.13 / major 2+ ("KFD 1.12 is too old: the debug
 *                            interface needs 1.13 (Linux 6.5)"), or no simulated driver for pid.
 *                            A device that does not answer GET_VERSION (ENOTTY) is also NODEV.
 * @retval GPUCORE_E_PERM     the device exists but cannot be opened.
 * @retval GPUCORE_E_NOTSUP   the sim backend was asked for but is not linked in.
 * @retval GPUCORE_E_INVAL    bad arguments.
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_kfd_open(pid_t pid, const struct gc_kfd_open_opts *opts,
                             struct gc_kfd **ret, gpucore_diag_t *reterr_diag);

/* Close the session (disables debugging first if it is still enabled). Accepts NULL. */
void gc_kfd_close(struct gc_kfd *k);

/* Backend name ("linux", "sim") and the KFD version found at open. */
const char *gc_kfd_backend_name(const struct gc_kfd *k);
void gc_kfd_version(const struct gc_kfd *k, uint32_t *ret_major, uint32_t *ret_minor);

/*
 * DBG_TRAP ENABLE: start debugging. @p ret_rinfo receives the runtime info (r_debug,
 * runtime_state, ttmp_setup). The session owns the event pipe the driver signals (one byte)
 * when an exception in @p exception_mask is raised; see gc_kfd_event_fd().
 */
gpucore_status_t gc_kfd_enable(struct gc_kfd *k, uint64_t exception_mask,
                               struct kfd_runtime_info *ret_rinfo, gpucore_diag_t *reterr_diag);

/* DBG_TRAP DISABLE. Idempotent: OK if not enabled. */
gpucore_status_t gc_kfd_disable(struct gc_kfd *k, gpucore_diag_t *reterr_diag);

/* The pollable fd (the event pipe's read end) readable on raised exceptions (-1 before
   enable). Owned by the session. */
int gc_kfd_event_fd(const struct gc_kfd *k);

/*
 * Wait until the event fd is readable or @p timeout_ms passes (-1 = forever) and drain it.
 * @retval GPUCORE_OK an event arrived; GPUCORE_E_NOTFOUND timeout; GPUCORE_E_IO poll failed.
 */
gpucore_status_t gc_kfd_wait_event(struct gc_kfd *k, int timeout_ms, gpucore_diag_t *reterr_diag);

gpucore_status_t gc_kfd_set_exceptions_enabled(struct gc_kfd *k, uint64_t exception_mask,
                                               gpucore_diag_t *reterr_diag);

/*
 * SEND_RUNTIME_EVENT: hand @p exception_mask back to the process's runtime (for a queue
 * @p queue_id of GPU @p gpu_id, or the process: KFD_INVALID_GPUID / KFD_INVALID_QUEUEID).
 * With KFD_EC_MASK(EC_PROCESS_RUNTIME) it is the debugger's answer to the runtime's enable:
 * amdkfd holds a debugged process in its RUNTIME_ENABLE ioctl (raising EC_PROCESS_RUNTIME to
 * the debugger) until this call, as AMD's debugger library answers it at once.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL debugging not enabled (no driver call is made), or the driver's EINVAL
 * @retval the statuses of the errno table above for the driver's refusal
 */
gpucore_status_t gc_kfd_send_runtime_event(struct gc_kfd *k, uint64_t exception_mask,
                                           uint32_t gpu_id, uint32_t queue_id,
                                           gpucore_diag_t *reterr_diag);

/*
 * QUERY_DEBUG_EVENT: one raised event. @p clear_mask clears those exceptions.
 * @retval GPUCORE_OK an event is returned; GPUCORE_E_NOTFOUND none pending (EAGAIN).
 */
gpucore_status_t gc_kfd_query_debug_event(struct gc_kfd *k, uint64_t clear_mask,
                                          uint64_t *ret_raised, uint32_t *ret_gpu_id,
                                          uint32_t *ret_queue_id, gpucore_diag_t *reterr_diag);

/* QUERY_EXCEPTION_INFO into buf; *inout_size in: capacity, out: size the driver has. */
gpucore_status_t gc_kfd_query_exception_info(struct gc_kfd *k, uint32_t source_id,
                                             uint32_t exception_code, int clear, void *buf,
                                             uint32_t *inout_size, gpucore_diag_t *reterr_diag);

/* A memory violation's record (QUERY_EXCEPTION_INFO of EC_DEVICE_MEMORY_VIOLATION, the uapi's
   kfd_hsa_memory_exception_data), decoded. */
struct gc_kfd_memory_fault {
    uint64_t va;         /* the faulting address */
    uint32_t gpu_id;     /* 0 when the record ends before it */
    uint32_t error_type; /* the driver's ErrorType; 0 when the record ends before it */
    /* the failure flags, each 0 or 1: NotPresent, ReadOnly, NoExecute, imprecise */
    uint8_t not_present, read_only, no_execute, imprecise;
};

/* Fewest bytes of the record that hold the address (the flags, then va). */
#define GC_KFD_MEMORY_FAULT_MIN_SIZE 24u
/* The whole record (sizeof struct kfd_hsa_memory_exception_data). */
#define GC_KFD_MEMORY_FAULT_SIZE 32u

/*
 * Decode the first @p size bytes of a memory violation's record, as QUERY_EXCEPTION_INFO wrote
 * it into the caller's buffer (host layout). A flag is set when its word is not zero.
 * @retval GPUCORE_OK *ret filled (what the record does not reach is 0)
 * @retval GPUCORE_E_TRUNCATED @p size < GC_KFD_MEMORY_FAULT_MIN_SIZE; *ret zeroed
 * @retval GPUCORE_E_INVAL @p rec or @p ret is NULL
 */
gpucore_status_t gc_kfd_memory_fault_decode(const void *rec, uint32_t size,
                                            struct gc_kfd_memory_fault *ret);

/*
 * Snapshots with entry-size negotiation, the way ROCdbgapi does it: first ask with room for
 * one entry to learn the count, then fetch all. Entries are returned decoded into host
 * structs, zero-extended when the driver's entry is smaller than ours; the entry size the
 * driver populated is reported (it goes into the core's metadata). @p clear_mask is 0 for a
 * capture (nothing is cleared).
 * Arrays are allocated with gc_malloc; free with gc_free.
 */
gpucore_status_t gc_kfd_device_snapshot(struct gc_kfd *k, uint64_t clear_mask,
                                        struct kfd_dbg_device_info_entry **ret_entries,
                                        uint32_t *ret_count, uint32_t *ret_entry_size,
                                        gpucore_diag_t *reterr_diag);
gpucore_status_t gc_kfd_queue_snapshot(struct gc_kfd *k, uint64_t clear_mask,
                                       struct kfd_queue_snapshot_entry **ret_entries,
                                       uint32_t *ret_count, uint32_t *ret_entry_size,
                                       gpucore_diag_t *reterr_diag);

/*
 * SUSPEND_QUEUES / RESUME_QUEUES. @p ids is rewritten with the driver's per-queue status bits
 * (GC_KFD_QUEUE_ERROR_MASK, GC_KFD_QUEUE_INVALID_MASK); *ret_done is how many succeeded.
 * @retval GPUCORE_OK  the driver took the request: a queue that failed or does not exist says
 *                     so in its id, not in the status
 * @retval GPUCORE_E_INVAL (debugging not enabled, NULL ids), or the statuses of the errno
 *                     table above when the driver refuses the whole request
 */
gpucore_status_t gc_kfd_suspend_queues(struct gc_kfd *k, uint32_t *ids, uint32_t n,
                                       uint32_t grace_period, uint64_t clear_mask,
                                       uint32_t *ret_done, gpucore_diag_t *reterr_diag);
gpucore_status_t gc_kfd_resume_queues(struct gc_kfd *k, uint32_t *ids, uint32_t n,
                                      uint32_t *ret_done, gpucore_diag_t *reterr_diag);

/* SET_WAVE_LAUNCH_MODE (KFD_DBG_TRAP_WAVE_LAUNCH_MODE_*). */
gpucore_status_t gc_kfd_set_wave_launch_mode(struct gc_kfd *k, uint32_t mode,
                                             gpucore_diag_t *reterr_diag);

/*
 * Read target memory. Reads as much as possible: on a fault, *ret_done is the readable prefix,
 * *ret_errno the error, and the status GPUCORE_E_UNAVAILABLE (the caller skips the unreadable
 * page and continues). The read does not change the target: never-touched pages of private
 * anonymous mappings (/proc/PID/pagemap: neither present nor swapped) read as zeros without
 * being touched, as the kernel's core dumper skips them; everything else (present or swapped
 * pages, shared and file-backed mappings, device memory) is read with pread of /proc/PID/mem,
 * which does not pin pages (swapped pages and holes of shared memory are brought in, as the
 * kernel's dumper brings them in: a page there may hold data). Mappings are classified by /proc/PID/maps as it was at the
 * session's first read (captures read a stopped target). process_vm_readv only where
 * /proc/PID/mem cannot be opened, and never for memory that may be untouched.
 * GPUCORE_E_NOTFOUND (ESRCH) means the target is gone, GPUCORE_E_PERM (EPERM, EACCES) that
 * reading it is refused: stop, there is nothing to step over.
 */
gpucore_status_t gc_kfd_read_memory(struct gc_kfd *k, uint64_t addr, void *buf, uint64_t size,
                                    uint64_t *ret_done, int *ret_errno,
                                    gpucore_diag_t *reterr_diag);

/*
 * Forget the target's mappings: the next gc_kfd_read_memory classifies them again from
 * /proc/PID/maps. Call it once the target is stopped for a capture, so mappings made while it
 * ran (a watch waits for minutes) are classified as they are now. NULL is a no-op.
 */
void gc_kfd_forget_mappings(struct gc_kfd *k);

/* ---- What the device knows about the process's memory and threads ---------------------- */

/* What a GPU mapping holds, as far as the driver knows (gc_kfd_mapping::kind). The values
   are kfd's own and travel on the simulated driver's wire; capture translates them into the
   core format's allocation kinds. Append only. */
enum gc_kfd_mem_kind {
    GC_KFD_MEM_UNKNOWN = 0,  /* a GPU buffer of unknown use (all the linux backend can tell) */
    GC_KFD_MEM_VRAM = 1,     /* device memory */
    GC_KFD_MEM_GTT = 2,      /* system memory mapped for the GPU */
    GC_KFD_MEM_USERPTR = 3,  /* host memory registered with the GPU */
    GC_KFD_MEM_SCRATCH = 4,  /* scratch backing memory */
    GC_KFD_MEM_CWSR = 5,     /* context save/restore areas */
    GC_KFD_MEM_RING = 6,     /* AQL rings */
    GC_KFD_MEM_CODE = 7,     /* loaded code objects */
    GC_KFD_MEM_KERNARG = 8,  /* kernel argument segments */
    GC_KFD_MEM_DOORBELL = 9, /* doorbells (never read) */
    GC_KFD_MEM_MMIO = 10,    /* MMIO remaps (never read) */
    _GC_KFD_MEM_COUNT
};

/* gc_kfd_mapping::flags */
#define GC_KFD_MAP_NO_READ 0x1u /* doorbell or MMIO: reading it has side effects; never read */

#define GC_KFD_MAP_LABEL_MAX 48u

/* One GPU mapping of the target: device memory (VRAM, GTT), rings, CWSR, scratch, code... */
struct gc_kfd_mapping {
    uint64_t base, size;
    uint32_t kind;   /* enum gc_kfd_mem_kind; GC_KFD_MEM_UNKNOWN when not known */
    uint32_t gpu_id; /* owning agent, 0 = unknown */
    uint32_t flags;  /* GC_KFD_MAP_* */
    char label[GC_KFD_MAP_LABEL_MAX]; /* NUL-terminated, "" if none */
};

/*
 * The target's GPU mappings, sorted by base, non-overlapping. linux: the /proc/PID/smaps
 * entries of /dev/dri/renderD* (GPU memory, kind UNKNOWN) and /dev/kfd (doorbells and MMIO,
 * GC_KFD_MAP_NO_READ); an unreadable or malformed smaps is GPUCORE_E_IO. sim: the simulated device's allocation list, with kinds and labels.
 * Allocated with gc_malloc; free with gc_free. Does not need debugging enabled.
 * @retval GPUCORE_OK, GPUCORE_E_NOTFOUND (the target is gone), GPUCORE_E_IO, GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_kfd_gpu_mappings(struct gc_kfd *k, struct gc_kfd_mapping **ret_maps,
                                     uint32_t *ret_count, gpucore_diag_t *reterr_diag);

/*
 * Threads of the target that serve the driver and must keep running while the debugger talks
 * to it: the simulated driver's thread ("gpucore-kfd-sim") for sim; none for linux (the real
 * driver is in the kernel). A capturer stops every other thread. At most @p cap tids are
 * stored; *ret_count is the total.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL), GPUCORE_E_IO (no answer).
 */
gpucore_status_t gc_kfd_service_threads(struct gc_kfd *k, pid_t *ret_tids, uint32_t cap,
                                        uint32_t *ret_count, gpucore_diag_t *reterr_diag);

/*
 * The driver's own view of the debug state of the target: whether any debugger has debugging
 * enabled, and how many queues are suspended. Needs no session: a second client that is not the
 * ptrace parent may ask while no one holds the target (tests prove that a capture resumed the
 * queues and disabled debugging, even after a failure). sim only.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_NOTSUP   linux: the kernel does not expose this.
 * @retval GPUCORE_E_NOTFOUND the target (its simulated driver) is gone.
 * @retval GPUCORE_E_INVAL    NULL session.
 * @retval GPUCORE_E_IO       no or a malformed answer.
 */
gpucore_status_t gc_kfd_driver_state(struct gc_kfd *k, int *ret_debug_enabled,
                                     uint32_t *ret_suspended_queues, gpucore_diag_t *reterr_diag);

/* Map an errno from the driver to a status (the table above). */
gpucore_status_t gc_kfd_status_from_errno(int err);

#endif /* GC_KFD_H */
