/* SPDX-License-Identifier: MIT */
/* Wire protocol of the simulated driver: see kfd_sim_protocol.h. */
#include "kfd_sim_protocol.h"

#include <stddef.h>
#include <string.h>

#include "gc_le.h"
#include "gc_util.h"

/* ---- struct codecs: one field table per struct ----------------------------------------- */

/* One scalar field: where it is on the wire, how wide (4 or 8 bytes), where it is in the host
 * struct (a uint32_t or uint64_t member). */
struct field {
    uint16_t wire;
    uint8_t width;
    uint16_t member;
};

#define F32(wire, type, m) { (wire), 4, (uint16_t)offsetof(type, m) }
#define F64(wire, type, m) { (wire), 8, (uint16_t)offsetof(type, m) }

struct field_table {
    const struct field *f;
    size_t n;
};

#define TABLE(t) { (t), GC_ARRAY_SIZE(t) }

static void put_fields(const struct field_table *t, const void *host, uint8_t *wire)
{
    const uint8_t *h = host;
    for (size_t i = 0; i < t->n; i++) {
        const struct field *f = &t->f[i];
        if (f->width == 8) {
            uint64_t v;
            memcpy(&v, h + f->member, 8);
            gc_le64_put(wire + f->wire, v);
        } else {
            uint32_t v;
            memcpy(&v, h + f->member, 4);
            gc_le32_put(wire + f->wire, v);
        }
    }
}

static void get_fields(const struct field_table *t, const uint8_t *wire, void *host)
{
    uint8_t *h = host;
    for (size_t i = 0; i < t->n; i++) {
        const struct field *f = &t->f[i];
        if (f->width == 8) {
            uint64_t v = gc_le64_get(wire + f->wire);
            memcpy(h + f->member, &v, 8);
        } else {
            uint32_t v = gc_le32_get(wire + f->wire);
            memcpy(h + f->member, &v, 4);
        }
    }
}

/* DBG_TRAP args: pid and op, then the op's union member from byte 8. */
typedef struct kfd_ioctl_dbg_trap_args args_t;

static const struct field args_head[] = { F32(0, args_t, pid), F32(4, args_t, op) };
static const struct field args_enable[] = {
    F64(8, args_t, enable.exception_mask), F64(16, args_t, enable.rinfo_ptr),
    F32(24, args_t, enable.rinfo_size), F32(28, args_t, enable.dbg_fd)
};
static const struct field args_send_runtime_event[] = {
    F64(8, args_t, send_runtime_event.exception_mask), F32(16, args_t, send_runtime_event.gpu_id),
    F32(20, args_t, send_runtime_event.queue_id)
};
static const struct field args_set_exceptions[] = {
    F64(8, args_t, set_exceptions_enabled.exception_mask)
};
static const struct field args_launch_override[] = {
    F32(8, args_t, launch_override.override_mode), F32(12, args_t, launch_override.enable_mask),
    F32(16, args_t, launch_override.support_request_mask)
};
static const struct field args_launch_mode[] = { F32(8, args_t, launch_mode.launch_mode) };
static const struct field args_suspend[] = {
    F64(8, args_t, suspend_queues.exception_mask), F64(16, args_t, suspend_queues.queue_array_ptr),
    F32(24, args_t, suspend_queues.num_queues), F32(28, args_t, suspend_queues.grace_period)
};
static const struct field args_resume[] = {
    F64(8, args_t, resume_queues.queue_array_ptr), F32(16, args_t, resume_queues.num_queues)
};
static const struct field args_set_watch[] = {
    F64(8, args_t, set_node_address_watch.address), F32(16, args_t, set_node_address_watch.mode),
    F32(20, args_t, set_node_address_watch.mask), F32(24, args_t, set_node_address_watch.gpu_id),
    F32(28, args_t, set_node_address_watch.id)
};
static const struct field args_clear_watch[] = {
    F32(8, args_t, clear_node_address_watch.gpu_id), F32(12, args_t, clear_node_address_watch.id)
};
static const struct field args_set_flags[] = { F32(8, args_t, set_flags.flags) };
static const struct field args_query_event[] = {
    F64(8, args_t, query_debug_event.exception_mask), F32(16, args_t, query_debug_event.gpu_id),
    F32(20, args_t, query_debug_event.queue_id)
};
static const struct field args_exception_info[] = {
    F64(8, args_t, query_exception_info.info_ptr),
    F32(16, args_t, query_exception_info.info_size),
    F32(20, args_t, query_exception_info.source_id),
    F32(24, args_t, query_exception_info.exception_code),
    F32(28, args_t, query_exception_info.clear_exception)
};
static const struct field args_queue_snapshot[] = {
    F64(8, args_t, queue_snapshot.exception_mask), F64(16, args_t, queue_snapshot.snapshot_buf_ptr),
    F32(24, args_t, queue_snapshot.num_queues), F32(28, args_t, queue_snapshot.entry_size)
};
static const struct field args_device_snapshot[] = {
    F64(8, args_t, device_snapshot.exception_mask),
    F64(16, args_t, device_snapshot.snapshot_buf_ptr),
    F32(24, args_t, device_snapshot.num_devices), F32(28, args_t, device_snapshot.entry_size)
};

/* Indexed by op; DISABLE and unknown ops carry no arguments. */
static const struct field_table args_by_op[] = {
    [KFD_IOC_DBG_TRAP_ENABLE] = TABLE(args_enable),
    [KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT] = TABLE(args_send_runtime_event),
    [KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED] = TABLE(args_set_exceptions),
    [KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE] = TABLE(args_launch_override),
    [KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE] = TABLE(args_launch_mode),
    [KFD_IOC_DBG_TRAP_SUSPEND_QUEUES] = TABLE(args_suspend),
    [KFD_IOC_DBG_TRAP_RESUME_QUEUES] = TABLE(args_resume),
    [KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH] = TABLE(args_set_watch),
    [KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH] = TABLE(args_clear_watch),
    [KFD_IOC_DBG_TRAP_SET_FLAGS] = TABLE(args_set_flags),
    [KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT] = TABLE(args_query_event),
    [KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO] = TABLE(args_exception_info),
    [KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT] = TABLE(args_queue_snapshot),
    [KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT] = TABLE(args_device_snapshot),
};

static const struct field_table *args_table(uint32_t op)
{
    return op < GC_ARRAY_SIZE(args_by_op) && args_by_op[op].f ? &args_by_op[op] : NULL;
}

void gc_sim_args_encode(const struct kfd_ioctl_dbg_trap_args *a, uint8_t o[GC_SIM_ARGS_SIZE])
{
    static const struct field_table head = TABLE(args_head);
    const struct field_table *t = args_table(a->op);
    memset(o, 0, GC_SIM_ARGS_SIZE);
    put_fields(&head, a, o);
    if (t)
        put_fields(t, a, o);
}

void gc_sim_args_decode(const uint8_t in[GC_SIM_ARGS_SIZE], struct kfd_ioctl_dbg_trap_args *a)
{
    static const struct field_table head = TABLE(args_head);
    memset(a, 0, sizeof(*a));
    get_fields(&head, in, a);
    const struct field_table *t = args_table(a->op);
    if (t)
        get_fields(t, in, a);
}

/* The kernel structs, little-endian at the kernel ABI's offsets. The device and queue entries
   are the AMDGPU note's too (schema/kfd_note.def), a table kfd may not include (docs/design.md):
   tests/unit/test_kfd_device_entry.c keeps the device entry's two tables equal. */
typedef struct kfd_dbg_device_info_entry dev_t_;
typedef struct kfd_queue_snapshot_entry queue_t_;
typedef struct kfd_runtime_info rinfo_t_;

static const struct field device_fields[] = {
    F64(0, dev_t_, exception_status), F64(8, dev_t_, lds_base), F64(16, dev_t_, lds_limit),
    F64(24, dev_t_, scratch_base), F64(32, dev_t_, scratch_limit), F64(40, dev_t_, gpuvm_base),
    F64(48, dev_t_, gpuvm_limit), F32(56, dev_t_, gpu_id), F32(60, dev_t_, location_id),
    F32(64, dev_t_, vendor_id), F32(68, dev_t_, device_id), F32(72, dev_t_, revision_id),
    F32(76, dev_t_, subsystem_vendor_id), F32(80, dev_t_, subsystem_device_id),
    F32(84, dev_t_, fw_version), F32(88, dev_t_, gfx_target_version),
    F32(92, dev_t_, simd_count), F32(96, dev_t_, max_waves_per_simd),
    F32(100, dev_t_, array_count), F32(104, dev_t_, simd_arrays_per_engine),
    F32(108, dev_t_, num_xcc), F32(112, dev_t_, capability), F32(116, dev_t_, debug_prop),
};
static const struct field queue_fields[] = {
    F64(0, queue_t_, exception_status), F64(8, queue_t_, ring_base_address),
    F64(16, queue_t_, write_pointer_address), F64(24, queue_t_, read_pointer_address),
    F64(32, queue_t_, ctx_save_restore_address), F32(40, queue_t_, queue_id),
    F32(44, queue_t_, gpu_id), F32(48, queue_t_, ring_size), F32(52, queue_t_, queue_type),
    F32(56, queue_t_, ctx_save_restore_area_size), F32(60, queue_t_, reserved),
};
static const struct field rinfo_fields[] = {
    F64(0, rinfo_t_, r_debug), F32(8, rinfo_t_, runtime_state), F32(12, rinfo_t_, ttmp_setup),
};
static const struct field alloc_fields[] = {
    F64(0, struct gc_sim_alloc, base), F64(8, struct gc_sim_alloc, size),
    F32(16, struct gc_sim_alloc, kind), F32(20, struct gc_sim_alloc, gpu_id),
    F32(24, struct gc_sim_alloc, flags), /* u32 0 at 28, label at 32 */
};
typedef struct gc_sim_memory_exception memx_t_;
static const struct field memx_fields[] = {
    F32(0, memx_t_, failure[0]),  F32(4, memx_t_, failure[1]), F32(8, memx_t_, failure[2]),
    F32(12, memx_t_, failure[3]), F64(16, memx_t_, va),        F32(24, memx_t_, gpu_id),
    F32(28, memx_t_, error_type),
};
static const struct field_table device_table = TABLE(device_fields);
static const struct field_table queue_table = TABLE(queue_fields);
static const struct field_table rinfo_table = TABLE(rinfo_fields);
static const struct field_table alloc_table = TABLE(alloc_fields);
static const struct field_table memx_table = TABLE(memx_fields);

/* The client copies a prefix of the host struct, as the kernel copies its own: the host layout
 * must be the wire's. */
#define MEMX_SAME(a, b)                             \
    (offsetof(struct gc_sim_memory_exception, a) == \
     offsetof(struct kfd_hsa_memory_exception_data, b))
_Static_assert(sizeof(struct gc_sim_memory_exception) == GC_SIM_MEMORY_EXCEPTION_SIZE &&
                       GC_SIM_MEMORY_EXCEPTION_SIZE ==
                               sizeof(struct kfd_hsa_memory_exception_data) &&
                       MEMX_SAME(failure[3], failure.imprecise) && MEMX_SAME(va, va) &&
                       MEMX_SAME(gpu_id, gpu_id) && MEMX_SAME(error_type, ErrorType),
               "gc_sim_memory_exception is laid out as kfd_hsa_memory_exception_data");
#undef MEMX_SAME

static void put_header(uint8_t *b, uint16_t type, uint32_t payload_len)
{
    gc_le32_put(b + 0, GC_SIM_MAGIC);
    gc_le16_put(b + 4, GC_SIM_VERSION);
    gc_le16_put(b + 6, type);
    gc_le32_put(b + 8, payload_len);
    gc_le32_put(b + 12, 0);
}

/* Check the frame header; on success *ret_payload_len is exactly what follows it. */
static gpucore_status_t check_header(const uint8_t *buf, size_t len, uint16_t *ret_type,
                                     uint32_t *ret_payload_len, gpucore_diag_t *diag)
{
    GC_FAIL_IF(buf == NULL || len < GC_SIM_HEADER_SIZE, diag, GPUCORE_E_TRUNCATED, 0,
               "sim message of %zu bytes is shorter than its 16-byte header", len);
    GC_FAIL_IF(len > GC_SIM_MAX_MESSAGE, diag, GPUCORE_E_LIMIT, 0,
               "sim message of %zu bytes exceeds the %u-byte limit", len, GC_SIM_MAX_MESSAGE);
    GC_FAIL_IF(gc_le32_get(buf) != GC_SIM_MAGIC, diag, GPUCORE_E_CORRUPT, 0,
               "sim message has bad magic 0x%08x", gc_le32_get(buf));
    GC_FAIL_IF(gc_le16_get(buf + 4) != GC_SIM_VERSION, diag, GPUCORE_E_VERSION, 4,
               "sim protocol version %u is not %u", gc_le16_get(buf + 4), GC_SIM_VERSION);
    uint32_t plen = gc_le32_get(buf + 8);
    GC_FAIL_IF(plen != len - GC_SIM_HEADER_SIZE, diag, GPUCORE_E_CORRUPT, 8,
               "sim message announces %u payload bytes but carries %zu", plen,
               len - GC_SIM_HEADER_SIZE);
    *ret_type = gc_le16_get(buf + 6);
    *ret_payload_len = plen;
    return GPUCORE_OK;
}

size_t gc_sim_request_encode(uint16_t type, const struct kfd_ioctl_dbg_trap_args *args,
                             const uint32_t *ids, uint32_t num_ids, uint8_t *buf, size_t cap)
{
    if (num_ids > GC_SIM_MAX_IDS || (num_ids && ids == NULL))
        return 0;
    size_t plen = 0;
    if (type == GC_SIM_MSG_DBG_TRAP) {
        if (args == NULL)
            return 0;
        plen = GC_SIM_ARGS_SIZE + (size_t)num_ids * 4u;
    } else if (type != GC_SIM_MSG_GET_VERSION) {
        return 0;
    }
    if (cap < GC_SIM_HEADER_SIZE || cap - GC_SIM_HEADER_SIZE < plen)
        return 0;
    put_header(buf, type, (uint32_t)plen);
    if (type == GC_SIM_MSG_DBG_TRAP) {
        gc_sim_args_encode(args, buf + GC_SIM_HEADER_SIZE);
        for (uint32_t i = 0; i < num_ids; i++)
            gc_le32_put(buf + GC_SIM_HEADER_SIZE + GC_SIM_ARGS_SIZE + 4u * i, ids[i]);
    }
    return GC_SIM_HEADER_SIZE + plen;
}

size_t gc_sim_info_request_encode(uint32_t first, uint8_t *buf, size_t cap)
{
    if (buf == NULL || cap < GC_SIM_HEADER_SIZE + 4u)
        return 0;
    put_header(buf, GC_SIM_MSG_DEVICE_INFO, 4u);
    gc_le32_put(buf + GC_SIM_HEADER_SIZE, first);
    return GC_SIM_HEADER_SIZE + 4u;
}

/* SUSPEND/RESUME carry their id array both ways: its length is the op's output capacity. */
static uint32_t op_num_ids(const struct kfd_ioctl_dbg_trap_args *a)
{
    const struct gc_sim_op_output *def = gc_sim_op_output(a->op);

    return def->shape == GC_SIM_OUT_IDS ? gc_sim_args_u32(a, def->cap) : 0;
}

gpucore_status_t gc_sim_request_decode(const uint8_t *buf, size_t len, struct gc_sim_request *ret,
                                       gpucore_diag_t *diag)
{
    uint16_t type = 0;
    uint32_t plen = 0;
    GC_FAIL_IF(ret == NULL, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no request to decode into");
    GC_TRY(check_header(buf, len, &type, &plen, diag));
    const uint8_t *p = buf + GC_SIM_HEADER_SIZE;
    struct gc_sim_request r;
    memset(&r, 0, sizeof(r));
    r.type = type;
    if (type == GC_SIM_MSG_GET_VERSION) {
        GC_FAIL_IF(plen != 0, diag, GPUCORE_E_CORRUPT, 8,
                   "GET_VERSION request carries %u payload bytes", plen);
    } else if (type == GC_SIM_MSG_DBG_TRAP) {
        GC_FAIL_IF(plen < GC_SIM_ARGS_SIZE, diag, GPUCORE_E_TRUNCATED, GC_SIM_HEADER_SIZE,
                   "DBG_TRAP request has %u payload bytes, fewer than its 32-byte args", plen);
        gc_sim_args_decode(p, &r.args);
        uint32_t n = op_num_ids(&r.args);
        GC_FAIL_IF(n > GC_SIM_MAX_IDS, diag, GPUCORE_E_LIMIT, GC_SIM_HEADER_SIZE + 8,
                   "DBG_TRAP request names %u queues, more than %u", n, GC_SIM_MAX_IDS);
        /* n <= GC_SIM_MAX_IDS, so n * 4 cannot overflow. */
        GC_FAIL_IF(plen - GC_SIM_ARGS_SIZE != (uint64_t)n * 4u, diag, GPUCORE_E_CORRUPT,
                   GC_SIM_HEADER_SIZE + GC_SIM_ARGS_SIZE,
                   "DBG_TRAP op %u carries %u input bytes, expected %u", r.args.op,
                   plen - GC_SIM_ARGS_SIZE, n * 4u);
        r.ids = n ? p + GC_SIM_ARGS_SIZE : NULL;
        r.num_ids = n;
    } else if (type == GC_SIM_MSG_DEVICE_INFO) {
        GC_FAIL_IF(plen != 4, diag, GPUCORE_E_CORRUPT, 8,
                   "DEVICE_INFO request carries %u payload bytes, not 4", plen);
        r.first = gc_le32_get(p);
    } else {
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, 6, "unknown sim request type %u", type);
    }
    *ret = r;
    return GPUCORE_OK;
}

size_t gc_sim_response_encode(const struct gc_sim_response *r, uint8_t *buf, size_t cap)
{
    size_t plen;
    if (r->type == GC_SIM_MSG_GET_VERSION) {
        plen = 12;
    } else if (r->type == GC_SIM_MSG_DBG_TRAP) {
        if (r->out_len > GC_SIM_MAX_OUT || (r->out_len && r->out == NULL))
            return 0;
        plen = 4u + GC_SIM_ARGS_SIZE + 4u + r->out_len;
    } else if (r->type == GC_SIM_MSG_DEVICE_INFO) {
        if (r->info.count > GC_SIM_MAX_ALLOCS_PER_MSG ||
            r->out_len != r->info.count * GC_SIM_ALLOC_ENTRY_SIZE || (r->out_len && r->out == NULL))
            return 0;
        plen = GC_SIM_INFO_FIXED_SIZE + r->out_len;
    } else {
        return 0;
    }
    if (cap < GC_SIM_HEADER_SIZE || cap - GC_SIM_HEADER_SIZE < plen)
        return 0;
    put_header(buf, r->type, (uint32_t)plen);
    uint8_t *p = buf + GC_SIM_HEADER_SIZE;
    gc_le32_put(p, (uint32_t)r->ret);
    if (r->type == GC_SIM_MSG_GET_VERSION) {
        gc_le32_put(p + 4, r->major);
        gc_le32_put(p + 8, r->minor);
    } else if (r->type == GC_SIM_MSG_DEVICE_INFO) {
        const uint32_t w[7] = { r->info.service_tid,      r->info.read_delay_us_per_mib,
                                r->info.debug_enabled,    r->info.suspended_queues,
                                r->info.total,            r->info.first,
                                r->info.count };
        for (unsigned i = 0; i < 7; i++)
            gc_le32_put(p + 4 + 4 * i, w[i]);
        if (r->out_len)
            memcpy(p + GC_SIM_INFO_FIXED_SIZE, r->out, r->out_len);
    } else {
        if (r->out_len)
            memmove(buf + GC_SIM_DBG_TRAP_OUT_OFFSET, r->out, r->out_len);
        return gc_sim_dbg_trap_frame(r->ret, &r->args, r->out_len, buf);
    }
    return GC_SIM_HEADER_SIZE + plen;
}

size_t gc_sim_dbg_trap_frame(int32_t ret, const struct kfd_ioctl_dbg_trap_args *args,
                             uint32_t out_len, uint8_t *buf)
{
    uint8_t *p = buf + GC_SIM_HEADER_SIZE;
    uint32_t plen = 8u + GC_SIM_ARGS_SIZE + out_len;

    put_header(buf, GC_SIM_MSG_DBG_TRAP, plen);
    gc_le32_put(p, (uint32_t)ret);
    gc_sim_args_encode(args, p + 4);
    gc_le32_put(p + 4 + GC_SIM_ARGS_SIZE, out_len);
    return GC_SIM_HEADER_SIZE + plen;
}

gpucore_status_t gc_sim_response_decode(const uint8_t *buf, size_t len, struct gc_sim_response *ret,
                                        gpucore_diag_t *diag)
{
    uint16_t type = 0;
    uint32_t plen = 0;
    GC_FAIL_IF(ret == NULL, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "no response to decode into");
    GC_TRY(check_header(buf, len, &type, &plen, diag));
    const uint8_t *p = buf + GC_SIM_HEADER_SIZE;
    struct gc_sim_response r;
    memset(&r, 0, sizeof(r));
    r.type = type;
    if (type == GC_SIM_MSG_GET_VERSION) {
        GC_FAIL_IF(plen != 12, diag, GPUCORE_E_CORRUPT, 8,
                   "GET_VERSION response has %u payload bytes, not 12", plen);
        r.ret = (int32_t)gc_le32_get(p);
        r.major = gc_le32_get(p + 4);
        r.minor = gc_le32_get(p + 8);
    } else if (type == GC_SIM_MSG_DBG_TRAP) {
        GC_FAIL_IF(plen < 8u + GC_SIM_ARGS_SIZE, diag, GPUCORE_E_TRUNCATED, 8,
                   "DBG_TRAP response has %u payload bytes, fewer than 40", plen);
        r.ret = (int32_t)gc_le32_get(p);
        gc_sim_args_decode(p + 4, &r.args);
        r.out_len = gc_le32_get(p + 4 + GC_SIM_ARGS_SIZE);
        GC_FAIL_IF(r.out_len != plen - 8u - GC_SIM_ARGS_SIZE, diag, GPUCORE_E_CORRUPT,
                   GC_SIM_HEADER_SIZE + 4 + GC_SIM_ARGS_SIZE,
                   "DBG_TRAP response announces %u output bytes but carries %u", r.out_len,
                   plen - 8u - GC_SIM_ARGS_SIZE);
        r.out = r.out_len ? p + 8 + GC_SIM_ARGS_SIZE : NULL;
    } else if (type == GC_SIM_MSG_DEVICE_INFO) {
        GC_FAIL_IF(plen < GC_SIM_INFO_FIXED_SIZE, diag, GPUCORE_E_TRUNCATED, 8,
                   "DEVICE_INFO response has %u payload bytes, fewer than %u", plen,
                   GC_SIM_INFO_FIXED_SIZE);
        r.ret = (int32_t)gc_le32_get(p);
        uint32_t *w[7] = { &r.info.service_tid, &r.info.read_delay_us_per_mib,
                           &r.info.debug_enabled, &r.info.suspended_queues,
                           &r.info.total, &r.info.first, &r.info.count };
        for (unsigned i = 0; i < 7; i++)
            *w[i] = gc_le32_get(p + 4 + 4 * i);
        GC_FAIL_IF(r.info.count > GC_SIM_MAX_ALLOCS_PER_MSG, diag, GPUCORE_E_CORRUPT,
                   GC_SIM_HEADER_SIZE + 28, "DEVICE_INFO response lists %u allocations, more than %u",
                   r.info.count, GC_SIM_MAX_ALLOCS_PER_MSG);
        GC_FAIL_IF(plen - GC_SIM_INFO_FIXED_SIZE != r.info.count * GC_SIM_ALLOC_ENTRY_SIZE, diag,
                   GPUCORE_E_CORRUPT, 8,
                   "DEVICE_INFO response lists %u allocations but carries %u entry bytes",
                   r.info.count, plen - GC_SIM_INFO_FIXED_SIZE);
        GC_FAIL_IF(r.info.first > r.info.total || r.info.count > r.info.total - r.info.first,
                   diag, GPUCORE_E_CORRUPT, GC_SIM_HEADER_SIZE + 20,
                   "DEVICE_INFO response entries %u+%u exceed its total %u", r.info.first,
                   r.info.count, r.info.total);
        r.out_len = plen - GC_SIM_INFO_FIXED_SIZE;
        r.out = r.out_len ? p + GC_SIM_INFO_FIXED_SIZE : NULL;
    } else {
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, 6, "unknown sim response type %u", type);
    }
    *ret = r;
    return GPUCORE_OK;
}

void gc_sim_device_entry_encode(const struct kfd_dbg_device_info_entry *e,
                                uint8_t o[GC_SIM_DEVICE_ENTRY_SIZE])
{
    memset(o, 0, GC_SIM_DEVICE_ENTRY_SIZE);
    put_fields(&device_table, e, o);
}

void gc_sim_device_entry_decode(const uint8_t in[GC_SIM_DEVICE_ENTRY_SIZE],
                                struct kfd_dbg_device_info_entry *e)
{
    get_fields(&device_table, in, e);
}

void gc_sim_queue_entry_encode(const struct kfd_queue_snapshot_entry *e,
                               uint8_t o[GC_SIM_QUEUE_ENTRY_SIZE])
{
    memset(o, 0, GC_SIM_QUEUE_ENTRY_SIZE);
    put_fields(&queue_table, e, o);
}

void gc_sim_queue_entry_decode(const uint8_t in[GC_SIM_QUEUE_ENTRY_SIZE],
                               struct kfd_queue_snapshot_entry *e)
{
    get_fields(&queue_table, in, e);
}

void gc_sim_rinfo_encode(const struct kfd_runtime_info *r, uint8_t o[GC_SIM_RINFO_SIZE])
{
    memset(o, 0, GC_SIM_RINFO_SIZE);
    put_fields(&rinfo_table, r, o);
}

void gc_sim_rinfo_decode(const uint8_t in[GC_SIM_RINFO_SIZE], struct kfd_runtime_info *r)
{
    get_fields(&rinfo_table, in, r);
}

void gc_sim_alloc_encode(const struct gc_sim_alloc *a, uint8_t o[GC_SIM_ALLOC_ENTRY_SIZE])
{
    memset(o, 0, GC_SIM_ALLOC_ENTRY_SIZE);
    put_fields(&alloc_table, a, o);
    size_t n = strnlen(a->label, GC_SIM_ALLOC_LABEL_MAX - 1);
    memcpy(o + 32, a->label, n);
}

void gc_sim_alloc_decode(const uint8_t in[GC_SIM_ALLOC_ENTRY_SIZE], struct gc_sim_alloc *a)
{
    memset(a, 0, sizeof(*a));
    get_fields(&alloc_table, in, a);
    memcpy(a->label, in + 32, GC_SIM_ALLOC_LABEL_MAX - 1);
    a->label[GC_SIM_ALLOC_LABEL_MAX - 1] = 0;
}

void gc_sim_memory_exception_encode(const struct gc_sim_memory_exception *x,
                                    uint8_t o[GC_SIM_MEMORY_EXCEPTION_SIZE])
{
    memset(o, 0, GC_SIM_MEMORY_EXCEPTION_SIZE);
    put_fields(&memx_table, x, o);
}

void gc_sim_memory_exception_decode(const uint8_t in[GC_SIM_MEMORY_EXCEPTION_SIZE],
                                    struct gc_sim_memory_exception *x)
{
    get_fields(&memx_table, in, x);
}

/* ---- the DBG_TRAP ops' outputs ------------------------------------------------------------ */

#define ARG(m) ((uint16_t)offsetof(args_t, m))

static const struct gc_sim_op_output op_outputs[] = {
    [KFD_IOC_DBG_TRAP_ENABLE] = { GC_SIM_OUT_PREFIX, GC_SIM_REC_RINFO, ARG(enable.rinfo_ptr),
                                  ARG(enable.rinfo_size), 0, 0 },
    [KFD_IOC_DBG_TRAP_SUSPEND_QUEUES] = { GC_SIM_OUT_IDS, GC_SIM_REC_QUEUE_ID,
                                          ARG(suspend_queues.queue_array_ptr),
                                          ARG(suspend_queues.num_queues), 0, 0 },
    [KFD_IOC_DBG_TRAP_RESUME_QUEUES] = { GC_SIM_OUT_IDS, GC_SIM_REC_QUEUE_ID,
                                         ARG(resume_queues.queue_array_ptr),
                                         ARG(resume_queues.num_queues), 0, 0 },
    [KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO] = { GC_SIM_OUT_PREFIX, GC_SIM_REC_BY_CODE,
                                                ARG(query_exception_info.info_ptr),
                                                ARG(query_exception_info.info_size), 0,
                                                ARG(query_exception_info.exception_code) },
    [KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT] = { GC_SIM_OUT_ENTRIES, GC_SIM_REC_QUEUE_ENTRY,
                                              ARG(queue_snapshot.snapshot_buf_ptr),
                                              ARG(queue_snapshot.num_queues),
                                              ARG(queue_snapshot.entry_size), 0 },
    [KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT] = { GC_SIM_OUT_ENTRIES, GC_SIM_REC_DEVICE_ENTRY,
                                               ARG(device_snapshot.snapshot_buf_ptr),
                                               ARG(device_snapshot.num_devices),
                                               ARG(device_snapshot.entry_size), 0 },
};

const struct gc_sim_op_output *gc_sim_op_output(uint32_t op)
{
    static const struct gc_sim_op_output none = { GC_SIM_OUT_NONE, GC_SIM_REC_NONE, 0, 0, 0, 0 };

    return op < GC_ARRAY_SIZE(op_outputs) && op_outputs[op].shape != GC_SIM_OUT_NONE
                   ? &op_outputs[op]
                   : &none;
}

uint32_t gc_sim_args_u32(const struct kfd_ioctl_dbg_trap_args *a, uint16_t off)
{
    uint32_t v;

    memcpy(&v, (const uint8_t *)a + off, sizeof(v));
    return v;
}

uint64_t gc_sim_args_u64(const struct kfd_ioctl_dbg_trap_args *a, uint16_t off)
{
    uint64_t v;

    memcpy(&v, (const uint8_t *)a + off, sizeof(v));
    return v;
}

enum gc_sim_record gc_sim_exception_record(uint32_t code)
{
    return code == EC_PROCESS_RUNTIME ? GC_SIM_REC_RINFO : GC_SIM_REC_MEMORY_EXCEPTION;
}

/* Each record's size and field table (the queue id: one u32 at 0). */
static const struct field queue_id_fields[] = { { 0, 4, 0 } };
static const struct field_table queue_id_table = TABLE(queue_id_fields);

static const struct {
    uint32_t size;
    const struct field_table *t;
} records[] = {
    [GC_SIM_REC_RINFO] = { GC_SIM_RINFO_SIZE, &rinfo_table },
    [GC_SIM_REC_QUEUE_ID] = { 4u, &queue_id_table },
    [GC_SIM_REC_QUEUE_ENTRY] = { GC_SIM_QUEUE_ENTRY_SIZE, &queue_table },
    [GC_SIM_REC_DEVICE_ENTRY] = { GC_SIM_DEVICE_ENTRY_SIZE, &device_table },
    [GC_SIM_REC_MEMORY_EXCEPTION] = { GC_SIM_MEMORY_EXCEPTION_SIZE, &memx_table },
};

static const struct field_table *record_table(enum gc_sim_record rec)
{
    return (size_t)rec < GC_ARRAY_SIZE(records) ? records[rec].t : NULL;
}

uint32_t gc_sim_record_size(enum gc_sim_record rec)
{
    if (rec == GC_SIM_REC_BY_CODE)
        return GC_SIM_EXCEPTION_INFO_MAX;
    return record_table(rec) ? records[rec].size : 0;
}

void gc_sim_record_encode(enum gc_sim_record rec, const void *host, uint8_t o[GC_SIM_RECORD_MAX])
{
    memset(o, 0, GC_SIM_RECORD_MAX);
    if (record_table(rec))
        put_fields(record_table(rec), host, o);
}

void gc_sim_record_decode(enum gc_sim_record rec, const uint8_t *in, uint32_t n, void *host_out)
{
    /* The host struct of any record: the largest is a device entry. */
    union {
        struct kfd_dbg_device_info_entry dev;
        struct kfd_queue_snapshot_entry queue;
        struct kfd_runtime_info rinfo;
        struct gc_sim_memory_exception memx;
        uint32_t id;
    } host;
    uint8_t img[GC_SIM_RECORD_MAX];

    if (n > GC_SIM_RECORD_MAX)
        n = GC_SIM_RECORD_MAX;
    memset(img, 0, sizeof(img));
    memset(&host, 0, sizeof(host));
    memcpy(img, in, n);
    if (record_table(rec))
        get_fields(record_table(rec), img, &host);
    memcpy(host_out, &host, n);
}
