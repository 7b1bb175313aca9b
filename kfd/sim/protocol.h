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
 *     the op's output bytes, in the kernel ABI's little-endian layout:
 *       ENABLE               kfd_runtime_info prefix (min(rinfo_size, 16) bytes)
 *       SUSPEND/RESUME       the id array with status bits (num_queues u32)
 *       GET_*_SNAPSHOT       min(num, count) entries, each entry_size (populated) bytes,
 *                            packed (the client strides by its own entry size)
 *       QUERY_EXCEPTION_INFO min(info_size, record size) bytes
 *
 * Every length is checked against GC_SIM_MAX_* before use: the driver must survive a hostile
 * client.
 */
#ifndef GC_KFD_SIM_PROTOCOL_H
#define GC_KFD_SIM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#include "kfd_uapi.h"

#define GC_SIM_MAGIC       0x534b4347u /* "GCKS" */
#define GC_SIM_VERSION     1u
#define GC_SIM_HEADER_SIZE 16u
#define GC_SIM_ARGS_SIZE   32u

enum gc_sim_msg_type {
    GC_SIM_MSG_GET_VERSION = 1,
    GC_SIM_MSG_DBG_TRAP = 2,
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

struct gc_sim_request {
    uint16_t type;
    struct kfd_ioctl_dbg_trap_args args; /* DBG_TRAP */
    const uint8_t *ids;                  /* SUSPEND/RESUME: num_queues LE u32, borrowed */
    uint32_t num_ids;
};

struct gc_sim_response {
    uint16_t type;
    int32_t ret;
    uint32_t major, minor;               /* GET_VERSION */
    struct kfd_ioctl_dbg_trap_args args; /* DBG_TRAP */
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
 */
size_t gc_sim_request_encode(uint16_t type, const struct kfd_ioctl_dbg_trap_args *args,
                             const uint32_t *ids, uint32_t num_ids, uint8_t *buf, size_t cap);
/* Decode a request message (hostile input). GPUCORE_E_CORRUPT/E_TRUNCATED/E_VERSION with a
 * diag; *ret borrows from buf. */
gpucore_status_t gc_sim_request_decode(const uint8_t *buf, size_t len, struct gc_sim_request *ret,
                                       gpucore_diag_t *reterr_diag);

/* Responses. @return the message length, or 0 if out_len > GC_SIM_MAX_OUT or it does not fit. */
size_t gc_sim_response_encode(const struct gc_sim_response *r, uint8_t *buf, size_t cap);
gpucore_status_t gc_sim_response_decode(const uint8_t *buf, size_t len, struct gc_sim_response *ret,
                                        gpucore_diag_t *reterr_diag);

/* The kernel structs in their little-endian ABI layout (tests and both sides). */
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

#endif /* GC_KFD_SIM_PROTOCOL_H */
