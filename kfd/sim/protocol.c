/* SPDX-License-Identifier: MIT */
/* Wire protocol of the simulated driver: see protocol.h. */
#include "protocol.h"

#include <string.h>

#include "gc_le.h"
#include "gc_util.h"

void gc_sim_args_encode(const struct kfd_ioctl_dbg_trap_args *a, uint8_t o[GC_SIM_ARGS_SIZE])
{
    memset(o, 0, GC_SIM_ARGS_SIZE);
    gc_le32_put(o + 0, a->pid);
    gc_le32_put(o + 4, a->op);
    uint8_t *u = o + 8;
    switch (a->op) {
    case KFD_IOC_DBG_TRAP_ENABLE:
        gc_le64_put(u + 0, a->enable.exception_mask);
        gc_le64_put(u + 8, a->enable.rinfo_ptr);
        gc_le32_put(u + 16, a->enable.rinfo_size);
        gc_le32_put(u + 20, a->enable.dbg_fd);
        break;
    case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
        gc_le64_put(u + 0, a->send_runtime_event.exception_mask);
        gc_le32_put(u + 8, a->send_runtime_event.gpu_id);
        gc_le32_put(u + 12, a->send_runtime_event.queue_id);
        break;
    case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
        gc_le64_put(u + 0, a->set_exceptions_enabled.exception_mask);
        break;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
        gc_le32_put(u + 0, a->launch_override.override_mode);
        gc_le32_put(u + 4, a->launch_override.enable_mask);
        gc_le32_put(u + 8, a->launch_override.support_request_mask);
        break;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
        gc_le32_put(u + 0, a->launch_mode.launch_mode);
        break;
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        gc_le64_put(u + 0, a->suspend_queues.exception_mask);
        gc_le64_put(u + 8, a->suspend_queues.queue_array_ptr);
        gc_le32_put(u + 16, a->suspend_queues.num_queues);
        gc_le32_put(u + 20, a->suspend_queues.grace_period);
        break;
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        gc_le64_put(u + 0, a->resume_queues.queue_array_ptr);
        gc_le32_put(u + 8, a->resume_queues.num_queues);
        break;
    case KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
        gc_le64_put(u + 0, a->set_node_address_watch.address);
        gc_le32_put(u + 8, a->set_node_address_watch.mode);
        gc_le32_put(u + 12, a->set_node_address_watch.mask);
        gc_le32_put(u + 16, a->set_node_address_watch.gpu_id);
        gc_le32_put(u + 20, a->set_node_address_watch.id);
        break;
    case KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH:
        gc_le32_put(u + 0, a->clear_node_address_watch.gpu_id);
        gc_le32_put(u + 4, a->clear_node_address_watch.id);
        break;
    case KFD_IOC_DBG_TRAP_SET_FLAGS:
        gc_le32_put(u + 0, a->set_flags.flags);
        break;
    case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
        gc_le64_put(u + 0, a->query_debug_event.exception_mask);
        gc_le32_put(u + 8, a->query_debug_event.gpu_id);
        gc_le32_put(u + 12, a->query_debug_event.queue_id);
        break;
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        gc_le64_put(u + 0, a->query_exception_info.info_ptr);
        gc_le32_put(u + 8, a->query_exception_info.info_size);
        gc_le32_put(u + 12, a->query_exception_info.source_id);
        gc_le32_put(u + 16, a->query_exception_info.exception_code);
        gc_le32_put(u + 20, a->query_exception_info.clear_exception);
        break;
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
        gc_le64_put(u + 0, a->queue_snapshot.exception_mask);
        gc_le64_put(u + 8, a->queue_snapshot.snapshot_buf_ptr);
        gc_le32_put(u + 16, a->queue_snapshot.num_queues);
        gc_le32_put(u + 20, a->queue_snapshot.entry_size);
        break;
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
        gc_le64_put(u + 0, a->device_snapshot.exception_mask);
        gc_le64_put(u + 8, a->device_snapshot.snapshot_buf_ptr);
        gc_le32_put(u + 16, a->device_snapshot.num_devices);
        gc_le32_put(u + 20, a->device_snapshot.entry_size);
        break;
    default: /* DISABLE and unknown ops carry no arguments */
        break;
    }
}

void gc_sim_args_decode(const uint8_t in[GC_SIM_ARGS_SIZE], struct kfd_ioctl_dbg_trap_args *a)
{
    memset(a, 0, sizeof(*a));
    a->pid = gc_le32_get(in + 0);
    a->op = gc_le32_get(in + 4);
    const uint8_t *u = in + 8;
    switch (a->op) {
    case KFD_IOC_DBG_TRAP_ENABLE:
        a->enable.exception_mask = gc_le64_get(u + 0);
        a->enable.rinfo_ptr = gc_le64_get(u + 8);
        a->enable.rinfo_size = gc_le32_get(u + 16);
        a->enable.dbg_fd = gc_le32_get(u + 20);
        break;
    case KFD_IOC_DBG_TRAP_SEND_RUNTIME_EVENT:
        a->send_runtime_event.exception_mask = gc_le64_get(u + 0);
        a->send_runtime_event.gpu_id = gc_le32_get(u + 8);
        a->send_runtime_event.queue_id = gc_le32_get(u + 12);
        break;
    case KFD_IOC_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
        a->set_exceptions_enabled.exception_mask = gc_le64_get(u + 0);
        break;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
        a->launch_override.override_mode = gc_le32_get(u + 0);
        a->launch_override.enable_mask = gc_le32_get(u + 4);
        a->launch_override.support_request_mask = gc_le32_get(u + 8);
        break;
    case KFD_IOC_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
        a->launch_mode.launch_mode = gc_le32_get(u + 0);
        break;
    case KFD_IOC_DBG_TRAP_SUSPEND_QUEUES:
        a->suspend_queues.exception_mask = gc_le64_get(u + 0);
        a->suspend_queues.queue_array_ptr = gc_le64_get(u + 8);
        a->suspend_queues.num_queues = gc_le32_get(u + 16);
        a->suspend_queues.grace_period = gc_le32_get(u + 20);
        break;
    case KFD_IOC_DBG_TRAP_RESUME_QUEUES:
        a->resume_queues.queue_array_ptr = gc_le64_get(u + 0);
        a->resume_queues.num_queues = gc_le32_get(u + 8);
        break;
    case KFD_IOC_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
        a->set_node_address_watch.address = gc_le64_get(u + 0);
        a->set_node_address_watch.mode = gc_le32_get(u + 8);
        a->set_node_address_watch.mask = gc_le32_get(u + 12);
        a->set_node_address_watch.gpu_id = gc_le32_get(u + 16);
        a->set_node_address_watch.id = gc_le32_get(u + 20);
        break;
    case KFD_IOC_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH:
        a->clear_node_address_watch.gpu_id = gc_le32_get(u + 0);
        a->clear_node_address_watch.id = gc_le32_get(u + 4);
        break;
    case KFD_IOC_DBG_TRAP_SET_FLAGS:
        a->set_flags.flags = gc_le32_get(u + 0);
        break;
    case KFD_IOC_DBG_TRAP_QUERY_DEBUG_EVENT:
        a->query_debug_event.exception_mask = gc_le64_get(u + 0);
        a->query_debug_event.gpu_id = gc_le32_get(u + 8);
        a->query_debug_event.queue_id = gc_le32_get(u + 12);
        break;
    case KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO:
        a->query_exception_info.info_ptr = gc_le64_get(u + 0);
        a->query_exception_info.info_size = gc_le32_get(u + 8);
        a->query_exception_info.source_id = gc_le32_get(u + 12);
        a->query_exception_info.exception_code = gc_le32_get(u + 16);
        a->query_exception_info.clear_exception = gc_le32_get(u + 20);
        break;
    case KFD_IOC_DBG_TRAP_GET_QUEUE_SNAPSHOT:
        a->queue_snapshot.exception_mask = gc_le64_get(u + 0);
        a->queue_snapshot.snapshot_buf_ptr = gc_le64_get(u + 8);
        a->queue_snapshot.num_queues = gc_le32_get(u + 16);
        a->queue_snapshot.entry_size = gc_le32_get(u + 20);
        break;
    case KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT:
        a->device_snapshot.exception_mask = gc_le64_get(u + 0);
        a->device_snapshot.snapshot_buf_ptr = gc_le64_get(u + 8);
        a->device_snapshot.num_devices = gc_le32_get(u + 16);
        a->device_snapshot.entry_size = gc_le32_get(u + 20);
        break;
    default:
        break;
    }
}

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

static int op_has_ids(uint32_t op)
{
    return op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES || op == KFD_IOC_DBG_TRAP_RESUME_QUEUES;
}

static uint32_t op_num_ids(const struct kfd_ioctl_dbg_trap_args *a)
{
    if (a->op == KFD_IOC_DBG_TRAP_SUSPEND_QUEUES)
        return a->suspend_queues.num_queues;
    if (a->op == KFD_IOC_DBG_TRAP_RESUME_QUEUES)
        return a->resume_queues.num_queues;
    return 0;
}

gpucore_status_t gc_sim_request_decode(const uint8_t *buf, size_t len, struct gc_sim_request *ret,
                                       gpucore_diag_t *diag)
{
    uint16_t type;
    uint32_t plen;
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
        uint32_t n = op_has_ids(r.args.op) ? op_num_ids(&r.args) : 0;
        GC_FAIL_IF(n > GC_SIM_MAX_IDS, diag, GPUCORE_E_LIMIT, GC_SIM_HEADER_SIZE + 8,
                   "DBG_TRAP request names %u queues, more than %u", n, GC_SIM_MAX_IDS);
        /* n <= GC_SIM_MAX_IDS, so n * 4 cannot overflow. */
        GC_FAIL_IF(plen - GC_SIM_ARGS_SIZE != (uint64_t)n * 4u, diag, GPUCORE_E_CORRUPT,
                   GC_SIM_HEADER_SIZE + GC_SIM_ARGS_SIZE,
                   "DBG_TRAP op %u carries %u input bytes, expected %u", r.args.op,
                   plen - GC_SIM_ARGS_SIZE, n * 4u);
        r.ids = n ? p + GC_SIM_ARGS_SIZE : NULL;
        r.num_ids = n;
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
    } else {
        gc_sim_args_encode(&r->args, p + 4);
        gc_le32_put(p + 4 + GC_SIM_ARGS_SIZE, r->out_len);
        if (r->out_len)
            memcpy(p + 8 + GC_SIM_ARGS_SIZE, r->out, r->out_len);
    }
    return GC_SIM_HEADER_SIZE + plen;
}

gpucore_status_t gc_sim_response_decode(const uint8_t *buf, size_t len, struct gc_sim_response *ret,
                                        gpucore_diag_t *diag)
{
    uint16_t type;
    uint32_t plen;
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
    } else {
        return gc_diag_set(diag, GPUCORE_E_CORRUPT, 6, "unknown sim response type %u", type);
    }
    *ret = r;
    return GPUCORE_OK;
}

void gc_sim_device_entry_encode(const struct kfd_dbg_device_info_entry *e,
                                uint8_t o[GC_SIM_DEVICE_ENTRY_SIZE])
{
    gc_le64_put(o + 0, e->exception_status);
    gc_le64_put(o + 8, e->lds_base);
    gc_le64_put(o + 16, e->lds_limit);
    gc_le64_put(o + 24, e->scratch_base);
    gc_le64_put(o + 32, e->scratch_limit);
    gc_le64_put(o + 40, e->gpuvm_base);
    gc_le64_put(o + 48, e->gpuvm_limit);
    const uint32_t w[16] = { e->gpu_id,
                             e->location_id,
                             e->vendor_id,
                             e->device_id,
                             e->revision_id,
                             e->subsystem_vendor_id,
                             e->subsystem_device_id,
                             e->fw_version,
                             e->gfx_target_version,
                             e->simd_count,
                             e->max_waves_per_simd,
                             e->array_count,
                             e->simd_arrays_per_engine,
                             e->num_xcc,
                             e->capability,
                             e->debug_prop };
    for (unsigned i = 0; i < 16; i++)
        gc_le32_put(o + 56 + 4 * i, w[i]);
}

void gc_sim_device_entry_decode(const uint8_t in[GC_SIM_DEVICE_ENTRY_SIZE],
                                struct kfd_dbg_device_info_entry *e)
{
    e->exception_status = gc_le64_get(in + 0);
    e->lds_base = gc_le64_get(in + 8);
    e->lds_limit = gc_le64_get(in + 16);
    e->scratch_base = gc_le64_get(in + 24);
    e->scratch_limit = gc_le64_get(in + 32);
    e->gpuvm_base = gc_le64_get(in + 40);
    e->gpuvm_limit = gc_le64_get(in + 48);
    uint32_t *w[16] = { &e->gpu_id,
                        &e->location_id,
                        &e->vendor_id,
                        &e->device_id,
                        &e->revision_id,
                        &e->subsystem_vendor_id,
                        &e->subsystem_device_id,
                        &e->fw_version,
                        &e->gfx_target_version,
                        &e->simd_count,
                        &e->max_waves_per_simd,
                        &e->array_count,
                        &e->simd_arrays_per_engine,
                        &e->num_xcc,
                        &e->capability,
                        &e->debug_prop };
    for (unsigned i = 0; i < 16; i++)
        *w[i] = gc_le32_get(in + 56 + 4 * i);
}

void gc_sim_queue_entry_encode(const struct kfd_queue_snapshot_entry *e,
                               uint8_t o[GC_SIM_QUEUE_ENTRY_SIZE])
{
    gc_le64_put(o + 0, e->exception_status);
    gc_le64_put(o + 8, e->ring_base_address);
    gc_le64_put(o + 16, e->write_pointer_address);
    gc_le64_put(o + 24, e->read_pointer_address);
    gc_le64_put(o + 32, e->ctx_save_restore_address);
    gc_le32_put(o + 40, e->queue_id);
    gc_le32_put(o + 44, e->gpu_id);
    gc_le32_put(o + 48, e->ring_size);
    gc_le32_put(o + 52, e->queue_type);
    gc_le32_put(o + 56, e->ctx_save_restore_area_size);
    gc_le32_put(o + 60, e->reserved);
}

void gc_sim_queue_entry_decode(const uint8_t in[GC_SIM_QUEUE_ENTRY_SIZE],
                               struct kfd_queue_snapshot_entry *e)
{
    e->exception_status = gc_le64_get(in + 0);
    e->ring_base_address = gc_le64_get(in + 8);
    e->write_pointer_address = gc_le64_get(in + 16);
    e->read_pointer_address = gc_le64_get(in + 24);
    e->ctx_save_restore_address = gc_le64_get(in + 32);
    e->queue_id = gc_le32_get(in + 40);
    e->gpu_id = gc_le32_get(in + 44);
    e->ring_size = gc_le32_get(in + 48);
    e->queue_type = gc_le32_get(in + 52);
    e->ctx_save_restore_area_size = gc_le32_get(in + 56);
    e->reserved = gc_le32_get(in + 60);
}

void gc_sim_rinfo_encode(const struct kfd_runtime_info *r, uint8_t o[GC_SIM_RINFO_SIZE])
{
    gc_le64_put(o + 0, r->r_debug);
    gc_le32_put(o + 8, r->runtime_state);
    gc_le32_put(o + 12, r->ttmp_setup);
}

void gc_sim_rinfo_decode(const uint8_t in[GC_SIM_RINFO_SIZE], struct kfd_runtime_info *r)
{
    r->r_debug = gc_le64_get(in + 0);
    r->runtime_state = gc_le32_get(in + 8);
    r->ttmp_setup = gc_le32_get(in + 12);
}
