/* SPDX-License-Identifier: MIT */
/*
 * Wire protocol between the sim backend (kfd/kfd_sim.c, the debugger side) and the simulated
 * driver (kfd/sim/driver.c, inside gpucore-inferior). One request, one response, each a single
 * SOCK_SEQPACKET message on an abstract unix socket, so message boundaries come from the kernel
 * and a frame is never split. Everything is explicit little-endian (never a host struct on the
 * wire), so a debugger and an inferior built differently still agree.
 *
 * Frame (both directions): 16-byte header
 *     u32 magic GC_SIM_MAGIC, u16 version GC_SIM_VERSION, u16 type, u32 payload_len, u32 0
 * then payload_len bytes, which must be exactly the rest of the message.
 *
 * GET_VERSION request: empty. Response: i32 ret, u32 major, u32 minor.
 * DBG_TRAP request: 32 bytes of kfd_ioctl_dbg_trap_args, encoded field by field for the op
 *     (pointers travel as values: the driver only tests them for zero, as a stand-in for the
 *     kernel's EFAULT), then the op's input: SUSPEND/RESUME the u32 queue id array
 *     (num_queues entries). The eventfd of ENABLE travels as SCM_RIGHTS.
 * DBG_TRAP response: i32 ret (>= 0 or -errno), the 32 args bytes as the driver left them
 *     (entry_size, num_*, rinfo_size, info_size, query_debug_event outputs), u32 out_len, then
 *     the op's output bytes, in the kernel ABI's little-endian layout (one row per op in
 *     gc_sim_op_output(); nothing for the ops not listed):
 *       ENABLE               kfd_runtime_info prefix (min(rinfo_size, 16) bytes)
 *       SUSPEND/RESUME       the id array with status bits (num_queues u32)
 *       GET_*_SNAPSHOT       min(num, count) entries, each entry_size (populated) bytes,
 *                            packed (the client strides by its own entry size)
 *       QUERY_EXCEPTION_INFO min(info_size, record size) bytes of the record the code names:
 *                            EC_PROCESS_RUNTIME kfd_runtime_info, EC_DEVICE_MEMORY_VIOLATION
 *                            the memory-exception record (GC_SIM_MEMORY_EXCEPTION_SIZE)
 * A frame (header, ret, args, out_len) is written by gc_sim_response_encode, or around outputs
 * already in place by gc_sim_dbg_trap_frame.
 * DEVICE_INFO request: u32 first (index of the first allocation wanted). Needs no session and no
 *     ptrace relation: it is what the device knows, asked by anyone who can connect.
 * DEVICE_INFO response: i32 ret, u32 service_tid (the driver's thread), u32 read_delay_us_per_mib
 *     (injected slowness of target-memory reads), u32 debug_enabled (0/1), u32 suspended_queues,
 *     u32 total (allocations the device has), u32 first (echo), u32 count, then count
 *     GC_SIM_ALLOC_ENTRY_SIZE-byte entries (allocations first .. first + count - 1):
 *       u64 base, u64 size, u32 kind (enum gc_kfd_mem_kind), u32 gpu_id, u32 flags (GC_KFD_MAP_*),
 *       u32 0, char label[48] (NUL-terminated, NUL-padded)
 *     count <= GC_SIM_MAX_ALLOCS_PER_MSG: longer lists are fetched page by page.
 *
 * Every length is checked against GC_SIM_MAX_* before use: the driver must survive a hostile
 * client.
 *
 * The protocol lives in kfd/ because it is the contract of kfd's sim backend: the transport that
 * stands in for the ioctl, built on kfd's copy of the uapi structs. The simulated driver
 * (kfd/sim/) implements the other end and so depends on kfd/, never the reverse
 * (docs/design.md).
 */
#ifndef GC_KFD_SIM_PROTOCOL_H
#define GC_KFD_SIM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "kfd_uapi.h"

#define GC_SIM_MAGIC       0x534b4347u /* "GCKS" */
#define GC_SIM_VERSION     2u
#define GC_SIM_HEADER_SIZE 16u
#define GC_SIM_ARGS_SIZE   32u

enum gc_sim_msg_type {
    GC_SIM_MSG_GET_VERSION = 1,
    GC_SIM_MSG_DBG_TRAP = 2,
    GC_SIM_MSG_DEVICE_INFO = 3,
};

/* Largest queue-id array in SUSPEND/RESUME (the kernel has no cap, but a process never has
 * this many queues; larger arrays get EINVAL from the client before they are sent). */
#define GC_SIM_MAX_IDS 8192u
/* Largest output payload: the id array, or 1024 queue entries of 64 bytes. */
#define GC_SIM_MAX_OUT 65536u
/* Largest message either way. */
#define GC_SIM_MAX_MESSAGE (GC_SIM_HEADER_SIZE + 4u + GC_SIM_ARGS_SIZE + 4u + GC_SIM_MAX_OUT)

/* Sizes of the kernel structs as the driver populates them. */
#define GC_SIM_DEVICE_ENTRY_SIZE 120u
#define GC_SIM_QUEUE_ENTRY_SIZE  64u
#define GC_SIM_RINFO_SIZE        16u

/*
 * QUERY_EXCEPTION_INFO's record for EC_DEVICE_MEMORY_VIOLATION, the kernel's
 * kfd_hsa_memory_exception_data: u32 failure flags x4 (0 NotPresent, 4 ReadOnly, 8 NoExecute,
 * 12 imprecise; 0 or 1 each), 16 u64 va, 24 u32 gpu_id, 28 u32 ErrorType.
 */
#define GC_SIM_MEMORY_EXCEPTION_SIZE  32u
#define GC_SIM_MEMORY_EXCEPTION_FLAGS 4u
/* Largest record QUERY_EXCEPTION_INFO answers with, whatever the code (a client refuses more). */
#define GC_SIM_EXCEPTION_INFO_MAX GC_SIM_MEMORY_EXCEPTION_SIZE

struct gc_sim_memory_exception {
    /* NotPresent, ReadOnly, NoExecute, imprecise: 0 or 1 each */
    uint32_t failure[GC_SIM_MEMORY_EXCEPTION_FLAGS];
    uint64_t va;
    uint32_t gpu_id;
    uint32_t error_type;
};

/* DEVICE_INFO: one allocation on the wire, and how many fit one response. */
#define GC_SIM_ALLOC_ENTRY_SIZE   80u
#define GC_SIM_ALLOC_LABEL_MAX    48u
#define GC_SIM_INFO_FIXED_SIZE    32u /* ret .. count */
#define GC_SIM_MAX_ALLOCS_PER_MSG (GC_SIM_MAX_OUT / GC_SIM_ALLOC_ENTRY_SIZE)
/* Largest allocation list a driver holds (a scenario has far fewer). */
#define GC_SIM_MAX_ALLOCS 8192u

/* One allocation of the simulated device (what DEVICE_INFO lists). */
struct gc_sim_alloc {
    uint64_t base, size;
    uint32_t kind;   /* enum gc_kfd_mem_kind */
    uint32_t gpu_id;
    uint32_t flags;  /* GC_KFD_MAP_* */
    char label[GC_SIM_ALLOC_LABEL_MAX]; /* NUL-terminated */
};

/* DEVICE_INFO answer header. */
struct gc_sim_info {
    uint32_t service_tid;
    uint32_t read_delay_us_per_mib;
    uint32_t debug_enabled;
    uint32_t suspended_queues;
    uint32_t total; /* allocations in all */
    uint32_t first; /* index of the first entry in this message */
    uint32_t count; /* entries in this message */
};

struct gc_sim_request {
    uint16_t type;
    struct kfd_ioctl_dbg_trap_args args; /* DBG_TRAP */
    const uint8_t *ids;                  /* SUSPEND/RESUME: num_queues LE u32, borrowed */
    uint32_t num_ids;
    uint32_t first;                      /* DEVICE_INFO */
};

struct gc_sim_response {
    uint16_t type;
    int32_t ret;
    uint32_t major, minor;               /* GET_VERSION */
    struct kfd_ioctl_dbg_trap_args args; /* DBG_TRAP */
    struct gc_sim_info info;             /* DEVICE_INFO (entries in out, info.count of them) */
    const uint8_t *out;                  /* borrowed from the message */
    uint32_t out_len;
};

/* Encode/decode the 32-byte args, field by field according to args->op (unknown ops: pid and
 * op only, the rest zero). */
void gc_sim_args_encode(const struct kfd_ioctl_dbg_trap_args *a, uint8_t out[GC_SIM_ARGS_SIZE]);
void gc_sim_args_decode(const uint8_t in[GC_SIM_ARGS_SIZE], struct kfd_ioctl_dbg_trap_args *a);

/*
 * Requests. ids/num_ids only for SUSPEND/RESUME (num_ids must equal args num_queues).
 * @return the message length, or 0 if it does not fit @p cap or num_ids > GC_SIM_MAX_IDS.
 * DEVICE_INFO requests use gc_sim_info_request_encode.
 */
size_t gc_sim_request_encode(uint16_t type, const struct kfd_ioctl_dbg_trap_args *args,
                             const uint32_t *ids, uint32_t num_ids, uint8_t *buf, size_t cap);
/* DEVICE_INFO request for allocations from @p first. @return the length, or 0 if cap is short. */
size_t gc_sim_info_request_encode(uint32_t first, uint8_t *buf, size_t cap);
/* Decode a request message (hostile input). GPUCORE_E_CORRUPT/E_TRUNCATED/E_VERSION with a
 * diag; *ret borrows from buf. */
gpucore_status_t gc_sim_request_decode(const uint8_t *buf, size_t len, struct gc_sim_request *ret,
                                       gpucore_diag_t *reterr_diag);

/*
 * Responses. @return the message length, or 0 if out_len > GC_SIM_MAX_OUT or it does not fit.
 * DEVICE_INFO: out_len must be info.count * GC_SIM_ALLOC_ENTRY_SIZE with count <=
 * GC_SIM_MAX_ALLOCS_PER_MSG; decoding checks the same, and first + count <= total.
 */
size_t gc_sim_response_encode(const struct gc_sim_response *r, uint8_t *buf, size_t cap);
gpucore_status_t gc_sim_response_decode(const uint8_t *buf, size_t len, struct gc_sim_response *ret,
                                        gpucore_diag_t *reterr_diag);

/* The kernel structs in their little-endian ABI layout (tests and both sides; the capture reads
   a device entry so encoded with schema's note decoder, gc_kfd_entry.h). */
void gc_sim_device_entry_encode(const struct kfd_dbg_device_info_entry *e,
                                uint8_t out[GC_SIM_DEVICE_ENTRY_SIZE]);
void gc_sim_device_entry_decode(const uint8_t in[GC_SIM_DEVICE_ENTRY_SIZE],
                                struct kfd_dbg_device_info_entry *e);
void gc_sim_queue_entry_encode(const struct kfd_queue_snapshot_entry *e,
                               uint8_t out[GC_SIM_QUEUE_ENTRY_SIZE]);
void gc_sim_queue_entry_decode(const uint8_t in[GC_SIM_QUEUE_ENTRY_SIZE],
                               struct kfd_queue_snapshot_entry *e);
void gc_sim_rinfo_encode(const struct kfd_runtime_info *r, uint8_t out[GC_SIM_RINFO_SIZE]);
void gc_sim_rinfo_decode(const uint8_t in[GC_SIM_RINFO_SIZE], struct kfd_runtime_info *r);
/* One DEVICE_INFO entry. Decoding forces the label's NUL termination. */
void gc_sim_alloc_encode(const struct gc_sim_alloc *a, uint8_t out[GC_SIM_ALLOC_ENTRY_SIZE]);
void gc_sim_alloc_decode(const uint8_t in[GC_SIM_ALLOC_ENTRY_SIZE], struct gc_sim_alloc *a);
void gc_sim_memory_exception_encode(const struct gc_sim_memory_exception *x,
                                    uint8_t out[GC_SIM_MEMORY_EXCEPTION_SIZE]);
void gc_sim_memory_exception_decode(const uint8_t in[GC_SIM_MEMORY_EXCEPTION_SIZE],
                                    struct gc_sim_memory_exception *x);

/* ---- the DBG_TRAP ops' outputs, one table row per op --------------------------------------- */

/* One output record's layout: which kernel struct, encoded by its codec above. */
enum gc_sim_record {
    GC_SIM_REC_NONE = 0,
    GC_SIM_REC_RINFO,            /* struct kfd_runtime_info, GC_SIM_RINFO_SIZE */
    GC_SIM_REC_QUEUE_ID,         /* u32 queue id with status bits, 4 bytes */
    GC_SIM_REC_QUEUE_ENTRY,      /* struct kfd_queue_snapshot_entry, GC_SIM_QUEUE_ENTRY_SIZE */
    GC_SIM_REC_DEVICE_ENTRY,     /* struct kfd_dbg_device_info_entry, GC_SIM_DEVICE_ENTRY_SIZE */
    GC_SIM_REC_MEMORY_EXCEPTION, /* struct gc_sim_memory_exception, GC_SIM_MEMORY_EXCEPTION_SIZE */
    GC_SIM_REC_BY_CODE,          /* QUERY_EXCEPTION_INFO: gc_sim_exception_record(code) */
};
/* Largest record on the wire (a device entry): a buffer that holds any one record. */
#define GC_SIM_RECORD_MAX GC_SIM_DEVICE_ENTRY_SIZE

/* How an op's output is shaped. */
enum gc_sim_out_shape {
    GC_SIM_OUT_NONE = 0, /* no output bytes */
    GC_SIM_OUT_PREFIX,   /* one record, its first min(cap bytes, record size) bytes */
    GC_SIM_OUT_IDS,      /* exactly cap records (the id array, rewritten in place) */
    GC_SIM_OUT_ENTRIES,  /* min(cap, available) records, entry_size populated bytes each, packed;
                            the caller's buffer strided by its own entry_size */
};

/* One row per DBG_TRAP op, as the kernel's AMDKFD_IOCTL_DEF: where its output goes. Offsets
 * are into struct kfd_ioctl_dbg_trap_args (0 = no such field). */
struct gc_sim_op_output {
    enum gc_sim_out_shape shape;
    enum gc_sim_record record;
    uint16_t ptr;        /* u64 user pointer the output is copied to */
    uint16_t cap;        /* u32 capacity: bytes (PREFIX) or records (IDS, ENTRIES) */
    uint16_t entry_size; /* ENTRIES: u32 entry size (the caller's in, the populated size out) */
    uint16_t code;       /* GC_SIM_REC_BY_CODE: u32 exception code naming the record */
};

/* The row of @p op; an op without output (and an unknown op) has shape GC_SIM_OUT_NONE. Never
 * NULL. */
const struct gc_sim_op_output *gc_sim_op_output(uint32_t op);
/* The u32 / u64 field at @p off of @p a (a gc_sim_op_output offset). */
uint32_t gc_sim_args_u32(const struct kfd_ioctl_dbg_trap_args *a, uint16_t off);
uint64_t gc_sim_args_u64(const struct kfd_ioctl_dbg_trap_args *a, uint16_t off);

/* The record QUERY_EXCEPTION_INFO answers for exception @p code: the runtime info for
 * EC_PROCESS_RUNTIME, the memory-exception record for any other. */
enum gc_sim_record gc_sim_exception_record(uint32_t code);
/* Full wire size of one @p rec record; for GC_SIM_REC_BY_CODE the largest a code names
 * (GC_SIM_EXCEPTION_INFO_MAX); 0 for GC_SIM_REC_NONE. */
uint32_t gc_sim_record_size(enum gc_sim_record rec);
/* Encode one host record of @p rec (not GC_SIM_REC_BY_CODE: resolve it first) to its
 * GC_SIM_RECORD_MAX-byte wire image (zero past gc_sim_record_size). */
void gc_sim_record_encode(enum gc_sim_record rec, const void *host, uint8_t out[GC_SIM_RECORD_MAX]);
/* Decode the first @p n wire bytes of one @p rec record (n <= GC_SIM_RECORD_MAX; the bytes past
 * n read as 0) and write the first @p n bytes of its host layout to @p host_out, as the kernel
 * copies a prefix of its struct. */
void gc_sim_record_decode(enum gc_sim_record rec, const uint8_t *in, uint32_t n, void *host_out);

/*
 * Frame a DBG_TRAP response around @p out_len output bytes already in place at
 * buf + GC_SIM_DBG_TRAP_OUT_OFFSET (the driver writes its outputs there directly): header, ret,
 * args, out_len. @return the message length (out_len <= GC_SIM_MAX_OUT; the caller's buffer
 * holds GC_SIM_MAX_MESSAGE bytes).
 */
#define GC_SIM_DBG_TRAP_OUT_OFFSET (GC_SIM_HEADER_SIZE + 8u + GC_SIM_ARGS_SIZE)
size_t gc_sim_dbg_trap_frame(int32_t ret, const struct kfd_ioctl_dbg_trap_args *args,
                             uint32_t out_len, uint8_t *buf);

#endif /* GC_KFD_SIM_PROTOCOL_H */
