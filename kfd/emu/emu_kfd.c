/* SPDX-License-Identifier: MIT */
/*
 * amdkfd's ioctls on the emulated devices (emu_kfd.h). Each handler follows the function of
 * the same name in Linux 6.12's kfd_chardev.c: the same checks in the same order, the same
 * errnos. docs/kfd-emulator.md lists where the emulator decides what hardware would do.
 */
#include "emu_kfd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"

#define PAGE 4096ull
#define DOORBELL_PAGE 8192ull           /* 1024 doorbells of 8 bytes (gfx9 and later) */
#define TIMEOUT_INFINITE 0xffffffffu
#define MAX_WAIT_EVENTS 4096u           /* the events one WAIT_EVENTS may name */
#define KERNEL_ENOTSUPP 524
#define USER_VA_END 0x00007ffffffff000ull /* x86-64's TASK_SIZE_MAX, what access_ok checks */             /* the kernel's internal ENOTSUPP, as user space sees it */

static int dev_index(const struct gc_emu_proc *p, uint32_t gpu_id)
{
    for (size_t i = 0; i < p->m->ndevs; i++)
        if (p->m->devs[i].agent.gpu_id == gpu_id)
            return (int)i;
    return -1;
}

void gc_emu_proc_init(struct gc_emu_proc *p, struct gc_emu_machine *m, int pid)
{
    memset(p, 0, sizeof(*p));
    p->m = m;
    p->pid = pid;
    p->next_handle = 1;
    p->next_signal_event = 0; /* idr_alloc(..., 0, KFD_SIGNAL_EVENT_LIMIT) */
    p->next_other_event = KFD_SIGNAL_EVENT_LIMIT;
}

void gc_emu_proc_fini(struct gc_emu_proc *p)
{
    free(p->mems);
    free(p->events);
    memset(p, 0, sizeof(*p));
}

const struct gc_emu_mem *gc_emu_kfd_find_mem(const struct gc_emu_proc *p, uint64_t va)
{
    for (size_t i = 0; i < p->nmems; i++)
        if (va >= p->mems[i].va && va - p->mems[i].va < p->mems[i].size)
            return &p->mems[i];
    return NULL;
}

static struct gc_emu_mem *mem_by_handle(struct gc_emu_proc *p, uint64_t handle)
{
    for (size_t i = 0; i < p->nmems; i++)
        if (p->mems[i].handle == handle)
            return &p->mems[i];
    return NULL;
}

static struct gc_emu_event *event_by_id(struct gc_emu_proc *p, uint32_t id)
{
    for (size_t i = 0; i < p->nevents; i++)
        if (p->events[i].id == id)
            return &p->events[i];
    return NULL;
}

static struct gc_emu_queue *queue_by_id(struct gc_emu_proc *p, uint32_t id)
{
    for (uint32_t i = 0; i < p->nqueues; i++)
        if (p->queues[i].id == id)
            return &p->queues[i];
    return NULL;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem, size_t max)
{
    size_t ncap;
    void *n;

    if (need <= *cap)
        return 0;
    if (need > max)
        return -1;
    ncap = *cap ? *cap * 2 : 16;
    if (ncap > max)
        ncap = max;
    n = realloc(*arr, ncap * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Handlers                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef long handler_fn(struct gc_emu_proc *p, void *args, const struct gc_emu_io *io);

/* The process's doorbell page of device @p d in /dev/kfd's file, aligned to its size as amdkfd's
   doorbell offsets are (the thunk masks the in-page part with DOORBELL_PAGE - 1). 0 or -ENOMEM. */
static long doorbell_page(struct gc_emu_proc *p, int d)
{
    uint64_t at;

    if (p->doorbell_page[d])
        return 0;
    at = (p->m->kfd_file_next + DOORBELL_PAGE - 1) & ~(DOORBELL_PAGE - 1);
    if (at + DOORBELL_PAGE > p->m->file_limit)
        return -ENOMEM;
    p->doorbell_page[d] = at + 1;
    p->m->kfd_file_next = at + DOORBELL_PAGE;
    return 0;
}

static long get_version(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_version_args *a = data;

    (void)p, (void)io;
    a->major_version = GC_KFD_EMU_MAJOR;
    a->minor_version = GC_KFD_EMU_MINOR;
    return 0;
}

/* The apertures of a 64-bit process on gfx9 and later (kfd_init_apertures_v9): one model with
   the simulated driver's device snapshot (gc_sim_layout_device_entry). */
static void apertures(const struct gc_emu_device *d, struct kfd_process_device_apertures *pa)
{
    struct kfd_dbg_device_info_entry e;

    memset(pa, 0, sizeof(*pa));
    if (gc_sim_layout_device_entry(&d->agent, &e) != GPUCORE_OK)
        return;
    pa->gpu_id = d->agent.gpu_id;
    pa->lds_base = e.lds_base;
    pa->lds_limit = e.lds_limit;
    pa->scratch_base = e.scratch_base;
    pa->scratch_limit = e.scratch_limit;
    pa->gpuvm_base = e.gpuvm_base;
    pa->gpuvm_limit = e.gpuvm_limit;
}

static long get_process_apertures(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_process_apertures_args *a = data;
    size_t n = p->m->ndevs < NUM_OF_SUPPORTED_GPUS ? p->m->ndevs : NUM_OF_SUPPORTED_GPUS;

    (void)io;
    for (size_t i = 0; i < n; i++)
        apertures(&p->m->devs[i], &a->process_apertures[i]);
    a->num_of_nodes = (uint32_t)n;
    return 0;
}

static long get_process_apertures_new(struct gc_emu_proc *p, void *data,
                                      const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_process_apertures_new_args *a = data;
    struct kfd_process_device_apertures pa;
    uint32_t n;

    if (a->num_of_nodes == 0) {
        a->num_of_nodes = (uint32_t)p->m->ndevs;
        return 0;
    }
    /* amdkfd bounds it by every topology node, the CPU's included */
    if (a->num_of_nodes > p->m->ndevs + 1)
        return -EINVAL;
    n = a->num_of_nodes < p->m->ndevs ? a->num_of_nodes : (uint32_t)p->m->ndevs;
    for (uint32_t i = 0; i < n; i++) {
        apertures(&p->m->devs[i], &pa);
        if (io->write(io->ctx, a->kfd_process_device_apertures_ptr + (uint64_t)i * sizeof(pa),
                      &pa, sizeof(pa)))
            return -EFAULT;
    }
    a->num_of_nodes = n;
    return 0;
}

static long acquire_vm(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_acquire_vm_args *a = data;
    int d = dev_index(p, a->gpu_id);

    (void)io;
    if (d < 0)
        return -EINVAL;
    /* amdkfd checks the fd is a DRM file of that device (fget + drm_priv): the front end
       checked it against the device's render node before calling. */
    p->vm_acquired |= 1u << d;
    return 0;
}

static long set_memory_policy(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_set_memory_policy_args *a = data;

    (void)io;
    if (a->default_policy > 1 || a->alternate_policy > 1)
        return -EINVAL;
    return dev_index(p, a->gpu_id) < 0 ? -EINVAL : 0;
}

static uint64_t now_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long get_clock_counters(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_clock_counters_args *a = data;

    (void)io;
    if (dev_index(p, a->gpu_id) < 0)
        return -EINVAL;
    /* amdkfd: the GPU counter at 100 MHz (amdgpu_amdkfd_get_gpu_clock_counter), the CPU and
       system counters from CLOCK_MONOTONIC_RAW / BOOTTIME in ns */
    a->gpu_clock_counter = now_ns(CLOCK_MONOTONIC_RAW) / 10;
    a->cpu_clock_counter = now_ns(CLOCK_MONOTONIC_RAW);
    a->system_clock_counter = now_ns(CLOCK_BOOTTIME);
    a->system_clock_freq = 1000000000ull;
    return 0;
}

static long get_tile_config(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_tile_config_args *a = data;

    (void)io;
    if (dev_index(p, a->gpu_id) < 0)
        return -EINVAL;
    /* gfx9 and later have no tile mode tables: amdgpu reports none */
    a->gb_addr_config = 0x26010042u;
    a->num_banks = 0;
    a->num_ranks = 0;
    a->num_tile_configs = 0;
    a->num_macro_tile_configs = 0;
    return 0;
}

static long set_scratch_backing_va(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_set_scratch_backing_va_args *a = data;
    int d = dev_index(p, a->gpu_id);

    (void)io;
    if (d < 0)
        return -EINVAL;
    p->scratch_va[d] = a->va_addr;
    return 0;
}

static long set_trap_handler(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_set_trap_handler_args *a = data;
    int d = dev_index(p, a->gpu_id);

    (void)io;
    if (d < 0)
        return -ESRCH;
    p->tba[d] = a->tba_addr;
    p->tma[d] = a->tma_addr;
    return 0;
}

static long set_xnack_mode(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_set_xnack_mode_args *a = data;

    (void)io;
    if (a->xnack_enabled >= 0) {
        if (p->nqueues)
            return -EBUSY; /* amdkfd: not while queues exist */
        /* none of the emulated devices can retry faults: XNACK stays off */
        if (a->xnack_enabled)
            return -EPERM;
        p->xnack = 0;
    } else {
        a->xnack_enabled = p->xnack;
    }
    return 0;
}

static long available_memory(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_get_available_memory_args *a = data;
    int d = dev_index(p, a->gpu_id);
    uint64_t used = 0;

    (void)io;
    if (d < 0)
        return -EINVAL;
    for (size_t i = 0; i < p->nmems; i++)
        if (p->mems[i].dev == (uint32_t)d && (p->mems[i].flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM))
            used += p->mems[i].size;
    a->available = used < p->m->devs[d].vram_bytes ? p->m->devs[d].vram_bytes - used : 0;
    return 0;
}

static long alloc_memory_of_gpu(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_alloc_memory_of_gpu_args *a = data;
    const uint32_t kinds = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
                           KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |
                           KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
    int d = dev_index(p, a->gpu_id);
    struct gc_emu_mem *m;
    uint64_t size;

    (void)io;
    if (a->size == 0)
        return -EINVAL;
    if (d < 0)
        return -EINVAL;
    if (__builtin_popcount(a->flags & kinds) != 1)
        return -EINVAL;
    if (!(p->vm_acquired & (1u << d)))
        return -EINVAL; /* amdkfd: no VM for the device yet (kfd_bind_process_to_device) */
    for (size_t i = 0; i < p->nmems; i++) /* amdkfd: an SVM range there gives EADDRINUSE; an
                                              overlapping buffer fails in amdgpu_vm */
        if (a->va_addr < p->mems[i].va + p->mems[i].size &&
            p->mems[i].va < a->va_addr + a->size && p->mems[i].dev == (uint32_t)d)
            return -EADDRINUSE;
    if (a->size > (1ull << 40))
        return -ENOMEM;
    if (grow((void **)&p->mems, &p->mems_cap, p->nmems + 1, sizeof(*p->mems), GC_EMU_MAX_MEMS))
        return -ENOMEM;
    size = (a->size + PAGE - 1) & ~(PAGE - 1);
    m = &p->mems[p->nmems];
    memset(m, 0, sizeof(*m));
    m->va = a->va_addr;
    m->size = a->size;
    m->dev = (uint32_t)d;
    m->flags = a->flags;
    if (a->flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
        /* the process's doorbell page of this device, in /dev/kfd's file */
        if (a->size != DOORBELL_PAGE)
            return -EINVAL;
        if (doorbell_page(p, d))
            return -ENOMEM;
        m->offset = p->doorbell_page[d] - 1;
    } else if (a->flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) {
        if (a->size != PAGE)
            return -EINVAL;
        if (p->m->kfd_file_next + PAGE > p->m->file_limit)
            return -ENOMEM;
        m->offset = p->m->kfd_file_next;
        p->m->kfd_file_next += PAGE;
    } else if (!(a->flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR)) {
        if (p->m->render_file_next[d] + size > p->m->file_limit)
            return -ENOMEM;
        m->offset = p->m->render_file_next[d];
        p->m->render_file_next[d] += size;
    } else {
        m->offset = a->mmap_offset; /* the user address */
    }
    m->handle = ((uint64_t)a->gpu_id << 32) | (p->next_handle++ & 0xffffffffu);
    a->handle = m->handle;
    if (!(a->flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR))
        a->mmap_offset = m->offset;
    p->nmems++;
    return 0;
}

static long free_memory_of_gpu(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_free_memory_of_gpu_args *a = data;
    struct gc_emu_mem *m = mem_by_handle(p, a->handle);

    (void)io;
    if (!m)
        return -EINVAL;
    *m = p->mems[--p->nmems];
    return 0;
}

static long map_common(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io, int map)
{
    struct kfd_ioctl_map_memory_to_gpu_args *a = data;
    uint32_t *ids;
    struct gc_emu_mem *m;
    long ret = 0;

    /* kfd_ioctl_map_memory_to_gpu, in its order */
    if (!a->n_devices)
        return -EINVAL;
    if (a->n_success > a->n_devices)
        return -EINVAL;
    if (a->n_devices > GC_EMU_MAX_DEVICES * 64)
        return -ENOMEM;
    ids = calloc(a->n_devices, sizeof(*ids));
    if (!ids)
        return -ENOMEM;
    if (io->read(io->ctx, a->device_ids_array_ptr, ids, 4ull * a->n_devices)) {
        free(ids);
        return -EFAULT;
    }
    if (dev_index(p, (uint32_t)(a->handle >> 32)) < 0) { /* GET_GPU_ID(handle): no such pdd */
        free(ids);
        return -EINVAL;
    }
    m = mem_by_handle(p, a->handle);
    if (!m) { /* kfd_process_device_translate_handle */
        free(ids);
        return -ENOMEM;
    }
    for (uint32_t i = a->n_success; i < a->n_devices; i++) {
        int d = dev_index(p, ids[i]);

        if (d < 0) {
            ret = -EINVAL;
            break;
        }
        if (map)
            m->mapped |= 1u << d;
        else
            m->mapped &= ~(1u << d);
        a->n_success = i + 1;
    }
    free(ids);
    return ret;
}

static long map_memory_to_gpu(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    return map_common(p, data, io, 1);
}

static long unmap_memory_from_gpu(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    return map_common(p, data, io, 0);
}

/* --- events ------------------------------------------------------------------------------- */

static long create_event(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_create_event_args *a = data;
    struct gc_emu_event *e;
    int signal = a->event_type == KFD_IOC_EVENT_SIGNAL || a->event_type == KFD_IOC_EVENT_DEBUG_EVENT;

    (void)io;
    if (a->event_page_offset) { /* a GTT buffer's handle: the event page (kfd_kmap_event_page) */
        const struct gc_emu_mem *m = mem_by_handle(p, a->event_page_offset);

        if (p->event_page_va)
            return -EINVAL;
        if (!m || m->size < KFD_SIGNAL_EVENT_LIMIT * 8ull)
            return -EINVAL;
        p->event_page_va = m->va;
    }
    if (a->event_type > KFD_IOC_EVENT_MEMORY)
        return -EINVAL;
    if (signal && p->next_signal_event >= KFD_SIGNAL_EVENT_LIMIT)
        return -ENOSPC;
    if (grow((void **)&p->events, &p->events_cap, p->nevents + 1, sizeof(*p->events),
             2 * KFD_SIGNAL_EVENT_LIMIT))
        return -ENOMEM;
    e = &p->events[p->nevents++];
    memset(e, 0, sizeof(*e));
    e->type = a->event_type;
    e->auto_reset = a->auto_reset != 0;
    e->id = signal ? p->next_signal_event++ : p->next_other_event++;
    e->age = 1;
    a->event_id = e->id;
    a->event_trigger_data = e->id;
    a->event_slot_index = signal ? e->id : 0;
    a->event_page_offset = signal ? (uint64_t)KFD_MMAP_TYPE_EVENTS : 0;
    return 0;
}

static long destroy_event(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_event_id_args *a = data;
    struct gc_emu_event *e = event_by_id(p, a->event_id);

    (void)io;
    if (!e)
        return -EINVAL;
    *e = p->events[--p->nevents];
    return 0;
}

int gc_emu_kfd_signal(struct gc_emu_proc *p, uint32_t id)
{
    struct gc_emu_event *e = event_by_id(p, id);

    if (!e)
        return -1;
    e->signaled = 1;
    e->age++;
    return 0;
}

uint32_t gc_emu_kfd_vm_fault(struct gc_emu_proc *p, uint32_t dev, uint64_t va, int write)
{
    uint32_t n = 0;

    if (dev >= p->m->ndevs)
        return 0;
    for (uint32_t i = 0; i < p->nqueues; i++) /* kfd_dqm_evict_pasid */
        if (p->queues[i].dev == dev)
            p->queues[i].stopped = GC_EMU_QUEUE_EVICTED;
    for (size_t i = 0; i < p->nevents; i++) {
        struct gc_emu_event *e = &p->events[i];

        if (e->type != KFD_IOC_EVENT_MEMORY)
            continue;
        memset(&e->memory, 0, sizeof(e->memory));
        e->memory.gpu_id = p->m->devs[dev].agent.gpu_id;
        e->memory.va = va & ~(PAGE - 1);
        e->memory.failure.NotPresent = 1;
        e->memory.failure.ReadOnly = write ? 1 : 0;
        e->signaled = 1;
        e->age++;
        n++;
    }
    return n;
}

/* kfd_context_save_area_header: err_payload_addr and err_event_id */
#define CSA_ERR_PAYLOAD_ADDR 24u
#define CSA_ERR_EVENT_ID 32u

int gc_emu_kfd_queue_exception(struct gc_emu_proc *p, struct gc_emu_queue *q, uint64_t ec_mask,
                               const struct gc_emu_io *io)
{
    uint64_t payload, cur;
    uint32_t ev;

    q->stopped = GC_EMU_QUEUE_EXCEPTION;
    if (p->runtime_state != DEBUG_RUNTIME_STATE_ENABLED || !q->cwsr)
        return 0;
    if (io->read(io->ctx, q->cwsr + CSA_ERR_PAYLOAD_ADDR, &payload, sizeof(payload)) ||
        io->read(io->ctx, q->cwsr + CSA_ERR_EVENT_ID, &ev, sizeof(ev)) ||
        io->read(io->ctx, payload, &cur, sizeof(cur)))
        return -1;
    cur |= ec_mask;
    if (io->write(io->ctx, payload, &cur, sizeof(cur)))
        return -1;
    return gc_emu_kfd_signal(p, ev) == 0 ? 1 : 0;
}

static long set_event(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_event_id_args *a = data;
    struct gc_emu_event *e = event_by_id(p, a->event_id);

    (void)io;
    if (!e || e->type != KFD_IOC_EVENT_SIGNAL)
        return -EINVAL; /* amdkfd: only signal events can be set from user mode */
    return gc_emu_kfd_signal(p, a->event_id) ? -EINVAL : 0;
}

static long reset_event(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_event_id_args *a = data;
    struct gc_emu_event *e = event_by_id(p, a->event_id);

    (void)io;
    if (!e)
        return -EINVAL;
    e->signaled = 0;
    return 0;
}

/* A waiter of kfd_wait_on_events (init_event_waiter): the event fired, or its age differs from
   the age the program passed (0: age tracking off). */
static int activated(const struct gc_emu_event *e, const struct kfd_event_data *ed)
{
    return e->signaled || (e->type == KFD_IOC_EVENT_SIGNAL && ed->signal_event_data.last_event_age &&
                           ed->signal_event_data.last_event_age != e->age);
}

/* One pass of kfd_wait_on_events: 1 when the wait is over (result set), 0 to keep waiting,
   < 0 an errno. */
static long wait_pass(struct gc_emu_proc *p, struct kfd_ioctl_wait_events_args *a,
                      const struct gc_emu_io *io)
{
    uint32_t fired = 0;

    if (a->num_events > MAX_WAIT_EVENTS)
        return -ENOMEM;
    for (uint32_t i = 0; i < a->num_events; i++) {
        struct kfd_event_data ed;
        struct gc_emu_event *e;

        if (io->read(io->ctx, a->events_ptr + (uint64_t)i * sizeof(ed), &ed, sizeof(ed)))
            return -EFAULT;
        e = event_by_id(p, ed.event_id);
        if (!e)
            return -EINVAL;
        fired += (uint32_t)activated(e, &ed);
    }
    /* test_event_condition: no events is a complete wait, all or any */
    if (a->num_events && !(a->wait_for_all ? fired == a->num_events : fired > 0))
        return 0;
    for (uint32_t i = 0; i < a->num_events; i++) {
        struct kfd_event_data ed;
        struct gc_emu_event *e;
        int write = 0;

        if (io->read(io->ctx, a->events_ptr + (uint64_t)i * sizeof(ed), &ed, sizeof(ed)))
            return -EFAULT;
        e = event_by_id(p, ed.event_id);
        if (!e)
            return -EINVAL;
        if (!activated(e, &ed))
            continue;
        /* copy_signaled_event_data: a memory event's fault; a signal event's age when the
           program tracks ages */
        if (e->type == KFD_IOC_EVENT_MEMORY) {
            ed.memory_exception_data = e->memory;
            write = 1;
        } else if (e->type == KFD_IOC_EVENT_SIGNAL && ed.signal_event_data.last_event_age) {
            ed.signal_event_data.last_event_age = e->age;
            write = 1;
        }
        if (write && io->write(io->ctx, a->events_ptr + (uint64_t)i * sizeof(ed), &ed, sizeof(ed)))
            return -EFAULT;
        if (e->signaled && e->auto_reset)
            e->signaled = 0;
    }
    a->wait_result = KFD_IOC_WAIT_RESULT_COMPLETE;
    return 1;
}

static struct gc_emu_result wait_events(struct gc_emu_proc *p, uint8_t *data,
                                        const struct gc_emu_io *io, int timed_out)
{
    struct kfd_ioctl_wait_events_args *a = (void *)data;
    struct gc_emu_result r = { GC_EMU_DONE, 0, 0 };
    long k = wait_pass(p, a, io);

    if (k < 0) {
        r.ret = k;
        return r;
    }
    if (k == 0) {
        if (a->timeout == 0 || timed_out) {
            a->wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
            return r;
        }
        r.verdict = GC_EMU_BLOCK;
        r.wait_ms = a->timeout;
    }
    return r;
}

/* --- queues ------------------------------------------------------------------------------- */

static long create_queue(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_create_queue_args *a = data;
    int d = dev_index(p, a->gpu_id);
    struct gc_emu_queue *q;
    uint32_t id = 0;

    (void)io;
    if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE)
        return -EINVAL;
    if (a->queue_priority > KFD_MAX_QUEUE_PRIORITY)
        return -EINVAL;
    if (a->ring_size && (a->ring_size & (a->ring_size - 1)))
        return -EINVAL;
    if (a->ring_size < KFD_MIN_QUEUE_RING_SIZE)
        a->ring_size = KFD_MIN_QUEUE_RING_SIZE;
    /* access_ok: the pointers lie in the user address space (they are not read here) */
    if (a->read_pointer_address > USER_VA_END - sizeof(uint64_t) ||
        a->write_pointer_address > USER_VA_END - sizeof(uint64_t))
        return -EFAULT;
    if (a->queue_type > KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID)
        return -KERNEL_ENOTSUPP;
    if (d < 0)
        return -EINVAL;
    if (!(p->vm_acquired & (1u << d)))
        return -EINVAL;
    if (a->queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
        const struct gc_emu_device *dev = &p->m->devs[d];

        /* kfd_queue_acquire_buffers: the save area must be the node's size per XCC */
        if (a->ctx_save_restore_size != dev->cwsr.cwsr_size ||
            a->ctl_stack_size != dev->cwsr.ctl_stack_size)
            return -EINVAL;
    }
    if (p->nqueues >= GC_EMU_MAX_QUEUES)
        return -ENOMEM;
    if (doorbell_page(p, d))
        return -ENOMEM;
    while (queue_by_id(p, id))
        id++;
    q = &p->queues[p->nqueues++];
    memset(q, 0, sizeof(*q));
    q->id = id;
    q->dev = (uint32_t)d;
    q->type = a->queue_type;
    q->ring = a->ring_base_address;
    q->ring_size = a->ring_size;
    q->wptr_addr = a->write_pointer_address;
    q->rptr_addr = a->read_pointer_address;
    q->eop = a->eop_buffer_address;
    q->eop_size = a->eop_buffer_size;
    q->cwsr = a->ctx_save_restore_address;
    q->cwsr_size = a->ctx_save_restore_size;
    q->ctl_stack_size = a->ctl_stack_size;
    q->doorbell_file_offset = p->doorbell_page[d] - 1 + 8ull * id;
    a->queue_id = id;
    /* the doorbell: the page's mmap offset plus the queue's index (thunk: offset & mask) */
    a->doorbell_offset = q->doorbell_file_offset;
    return 0;
}

static long destroy_queue(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_destroy_queue_args *a = data;
    struct gc_emu_queue *q = queue_by_id(p, a->queue_id);

    (void)io;
    if (!q)
        return -EINVAL;
    *q = p->queues[--p->nqueues];
    return 0;
}

static long update_queue(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_update_queue_args *a = data;
    struct gc_emu_queue *q;

    (void)io;
    if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE ||
        a->queue_priority > KFD_MAX_QUEUE_PRIORITY)
        return -EINVAL;
    if (a->ring_size && (a->ring_size & (a->ring_size - 1)))
        return -EINVAL;
    q = queue_by_id(p, a->queue_id);
    if (!q)
        return -EINVAL;
    q->ring = a->ring_base_address;
    q->ring_size = a->ring_size;
    return 0;
}

static long set_cu_mask(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_set_cu_mask_args *a = data;

    (void)io;
    if (a->num_cu_mask == 0 || a->num_cu_mask % 32)
        return -EINVAL;
    return queue_by_id(p, a->queue_id) ? 0 : -EINVAL;
}

static long alloc_queue_gws(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_alloc_queue_gws_args *a = data;
    struct gc_emu_queue *q = queue_by_id(p, a->queue_id);

    (void)io;
    if (!q)
        return -EINVAL;
    a->first_gws = 0;
    return 0;
}

static long runtime_enable(struct gc_emu_proc *p, void *data, const struct gc_emu_io *io)
{
    struct kfd_ioctl_runtime_enable_args *a = data;

    (void)io;
    if (a->mode_mask & KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK) {
        if (p->runtime_state != DEBUG_RUNTIME_STATE_DISABLED)
            return -EBUSY;
        if (p->nqueues) /* amdkfd: not once the process has queues */
            return -EEXIST;
        p->r_debug = a->r_debug;
        p->runtime_state = DEBUG_RUNTIME_STATE_ENABLED;
        p->ttmp_setup = (a->mode_mask & KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK) != 0;
        a->capabilities_mask = KFD_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK;
    } else {
        p->runtime_state = DEBUG_RUNTIME_STATE_DISABLED;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                   */
/* ------------------------------------------------------------------------------------------ */

struct ioctl_desc {
    const char *name;
    unsigned size;  /* the driver's argument size */
    unsigned dir;   /* GC_IOC_READ | GC_IOC_WRITE of the driver's definition */
    handler_fn *fn; /* NULL: amdkfd has no function (deprecated): EINVAL */
};

#define RW (GC_IOC_READ | GC_IOC_WRITE)
#define R GC_IOC_READ
#define W GC_IOC_WRITE
static const struct ioctl_desc table[] = {
    [0x01] = { "GET_VERSION", sizeof(struct kfd_ioctl_get_version_args), R, get_version },
    [0x02] = { "CREATE_QUEUE", sizeof(struct kfd_ioctl_create_queue_args), RW, create_queue },
    [0x03] = { "DESTROY_QUEUE", sizeof(struct kfd_ioctl_destroy_queue_args), RW, destroy_queue },
    [0x04] = { "SET_MEMORY_POLICY", sizeof(struct kfd_ioctl_set_memory_policy_args), W,
               set_memory_policy },
    [0x05] = { "GET_CLOCK_COUNTERS", sizeof(struct kfd_ioctl_get_clock_counters_args), RW,
               get_clock_counters },
    [0x06] = { "GET_PROCESS_APERTURES", sizeof(struct kfd_ioctl_get_process_apertures_args), R,
               get_process_apertures },
    [0x07] = { "UPDATE_QUEUE", sizeof(struct kfd_ioctl_update_queue_args), W, update_queue },
    [0x08] = { "CREATE_EVENT", sizeof(struct kfd_ioctl_create_event_args), RW, create_event },
    [0x09] = { "DESTROY_EVENT", sizeof(struct kfd_ioctl_event_id_args), W, destroy_event },
    [0x0A] = { "SET_EVENT", sizeof(struct kfd_ioctl_event_id_args), W, set_event },
    [0x0B] = { "RESET_EVENT", sizeof(struct kfd_ioctl_event_id_args), W, reset_event },
    [0x0C] = { "WAIT_EVENTS", sizeof(struct kfd_ioctl_wait_events_args), RW, NULL },
    [0x0D] = { "DBG_REGISTER_DEPRECATED", 8, W, NULL },
    [0x0E] = { "DBG_UNREGISTER_DEPRECATED", 8, W, NULL },
    [0x0F] = { "DBG_ADDRESS_WATCH_DEPRECATED", 16, W, NULL },
    [0x10] = { "DBG_WAVE_CONTROL_DEPRECATED", 16, W, NULL },
    [0x11] = { "SET_SCRATCH_BACKING_VA", sizeof(struct kfd_ioctl_set_scratch_backing_va_args), RW,
               set_scratch_backing_va },
    [0x12] = { "GET_TILE_CONFIG", sizeof(struct kfd_ioctl_get_tile_config_args), RW,
               get_tile_config },
    [0x13] = { "SET_TRAP_HANDLER", sizeof(struct kfd_ioctl_set_trap_handler_args), W,
               set_trap_handler },
    [0x14] = { "GET_PROCESS_APERTURES_NEW",
               sizeof(struct kfd_ioctl_get_process_apertures_new_args), RW,
               get_process_apertures_new },
    [0x15] = { "ACQUIRE_VM", sizeof(struct kfd_ioctl_acquire_vm_args), W, acquire_vm },
    [0x16] = { "ALLOC_MEMORY_OF_GPU", sizeof(struct kfd_ioctl_alloc_memory_of_gpu_args), RW,
               alloc_memory_of_gpu },
    [0x17] = { "FREE_MEMORY_OF_GPU", sizeof(struct kfd_ioctl_free_memory_of_gpu_args), W,
               free_memory_of_gpu },
    [0x18] = { "MAP_MEMORY_TO_GPU", sizeof(struct kfd_ioctl_map_memory_to_gpu_args), RW,
               map_memory_to_gpu },
    [0x19] = { "UNMAP_MEMORY_FROM_GPU", sizeof(struct kfd_ioctl_map_memory_to_gpu_args), RW,
               unmap_memory_from_gpu },
    [0x1A] = { "SET_CU_MASK", sizeof(struct kfd_ioctl_set_cu_mask_args), W, set_cu_mask },
    [0x1E] = { "ALLOC_QUEUE_GWS", sizeof(struct kfd_ioctl_alloc_queue_gws_args), RW,
               alloc_queue_gws },
    [0x21] = { "SET_XNACK_MODE", sizeof(struct kfd_ioctl_set_xnack_mode_args), RW,
               set_xnack_mode },
    [0x23] = { "AVAILABLE_MEMORY", sizeof(struct kfd_ioctl_get_available_memory_args), RW,
               available_memory },
    [0x25] = { "RUNTIME_ENABLE", sizeof(struct kfd_ioctl_runtime_enable_args), RW,
               runtime_enable },
};
#undef RW
#undef R
#undef W

/* amdkfd's AMDKFD_COMMAND_END: numbers at or past it are ENOTTY */
#define COMMAND_END 0x27u

const char *gc_emu_kfd_name(unsigned cmd)
{
    unsigned nr = GC_IOC_NR(cmd);

    if (GC_IOC_TYPE(cmd) != 'K' || nr >= sizeof(table) / sizeof(table[0]))
        return NULL;
    return table[nr].name;
}

int gc_emu_kfd_arg_copy(unsigned cmd, unsigned *in, unsigned *out)
{
    unsigned nr = GC_IOC_NR(cmd);

    *in = *out = 0;
    if (nr == 0 || nr >= sizeof(table) / sizeof(table[0]) || !table[nr].name)
        return 0;
    if (table[nr].dir & GC_IOC_WRITE)
        *in = GC_IOC_SIZE(cmd);
    if (table[nr].dir & GC_IOC_READ)
        *out = GC_IOC_SIZE(cmd);
    return 1;
}

struct gc_emu_result gc_emu_kfd_ioctl(struct gc_emu_proc *p, unsigned cmd, uint8_t *args,
                                      const struct gc_emu_io *io)
{
    struct gc_emu_result r = { GC_EMU_DONE, -ENOTTY, 0 };
    unsigned nr = GC_IOC_NR(cmd), usize = GC_IOC_SIZE(cmd);
    const struct ioctl_desc *d;

    /* kfd_ioctl: the number alone selects the call (the type byte is not checked); the
       driver's own size wins, zero-extended past what the program passed */
    if (nr == 0 || nr >= COMMAND_END)
        return r;
    if (nr >= sizeof(table) / sizeof(table[0]) || !table[nr].name) {
        /* a number amdkfd has but the emulator does not serve (SVM, CRIU, dma-buf, SMI) */
        r.ret = -EINVAL;
        return r;
    }
    d = &table[nr];
    if (usize < d->size)
        memset(args + usize, 0, d->size - usize);
    if (nr == 0x0C) /* WAIT_EVENTS may block */
        return wait_events(p, args, io, 0);
    r.ret = d->fn ? d->fn(p, args, io) : -EINVAL;
    return r;
}

struct gc_emu_result gc_emu_kfd_wait_retry(struct gc_emu_proc *p, uint8_t *args,
                                           const struct gc_emu_io *io, int timed_out)
{
    return wait_events(p, args, io, timed_out);
}
