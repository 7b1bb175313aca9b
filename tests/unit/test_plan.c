/* SPDX-License-Identifier: MIT */
/*
 * The GPU plan (capture/plan.c) over every scenario's process image, built in this process by
 * the simulated layout. The snapshot entries are made from the layout exactly as
 * gpucore-inferior hands them to the simulated driver (kfd/sim/inferior.c start_driver), the
 * GPU mapping list is derived from the layout's mappings, and target memory is this process's
 * own, read with process_vm_readv (so wild pointers fault instead of crashing) with chosen
 * ranges made unreadable.
 *
 * Checked for every scenario: the AMDGPU note passes the reader's checks and round-trips; wave,
 * stopped and faulting counts equal the scenario's; rings, amd_queue_t and the used CWSR parts
 * are in the state tier; the tiers are disjoint and together cover every readable mapping;
 * embedded code objects equal their files. Then vadd-fault's referenced windows, big-memory's
 * budget, and hostile memory (unreadable CWSR header, bad r_debug, link-map cycle, bad packets).
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "layout.h"
#include "plan.h"
#include "scenario.h"
#include "target_file.h"

struct fixture {
    struct gc_scenario *s;
    struct gc_sim_layout *l;
    struct kfd_dbg_device_info_entry *dev;
    struct kfd_queue_snapshot_entry *q;
    struct gc_kfd_mapping *maps;
    uint32_t nmaps;
    struct gc_rangeset unreadable;
    struct gc_rangeset read_set; /* every byte the planner read (fuzz seeds) */
    uint64_t reads, read_bytes;
    struct gc_plan_input in;
};

/* ---- target memory: this process ------------------------------------------------------------ */

static gpucore_status_t self_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                  uint64_t *ret_done, int *ret_errno)
{
    struct fixture *f = user;
    uint64_t done = 0;

    f->reads++;
    while (done < size) {
        uint64_t a = addr + done;
        uint64_t n = 4096 - (a & 4095);

        if (n > size - done)
            n = size - done;
        if (gc_rangeset_overlaps(&f->unreadable, a, n)) {
            /* readable prefix up to the first unreadable byte */
            uint64_t k = 0;

            while (k < n && !gc_rangeset_overlaps(&f->unreadable, a + k, 1))
                k++;
            memcpy((uint8_t *)buf + done, (const void *)(uintptr_t)a, k);
            assert_int_equal(gc_rangeset_add(&f->read_set, addr, done + k), GPUCORE_OK);
            done += k;
            *ret_done = done;
            *ret_errno = EIO;
            return GPUCORE_E_UNAVAILABLE;
        }
        struct iovec local = { (uint8_t *)buf + done, n };
        struct iovec remote = { (void *)(uintptr_t)a, n };
        ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

        if (r != (ssize_t)n) {
            assert_int_equal(gc_rangeset_add(&f->read_set, addr, done), GPUCORE_OK);
            *ret_done = done;
            *ret_errno = r < 0 ? errno : EFAULT;
            return GPUCORE_E_UNAVAILABLE;
        }
        done += n;
    }
    f->read_bytes += size;
    assert_int_equal(gc_rangeset_add(&f->read_set, addr, size), GPUCORE_OK);
    *ret_done = size;
    return GPUCORE_OK;
}

/* ---- the fixture ---------------------------------------------------------------------------- */

static int map_cmp(const void *a, const void *b)
{
    const struct gc_kfd_mapping *x = a, *y = b;

    return x->base < y->base ? -1 : x->base > y->base;
}

/* Lay out @p s (owned by the fixture from here) and describe it as the driver would. */
/* file:// code objects: read as this process (the target), as the capture does. */
static int self_read_file(void *user, const char *path, uint64_t offset, uint64_t size,
                          uint8_t **ret, uint64_t *ret_size, char *why, size_t why_size)
{
    (void)user;
    return gc_target_file_read((uint32_t)getpid(), path, offset, size, GC_PLAN_MAX_CODE_OBJECT,
                               5000, ret, ret_size, why, why_size);
}

static struct fixture *setup_from(struct gc_scenario *s_in)
{
    const char *objs = getenv("GPUCORE_SCENARIO_OBJECTS");
    struct fixture *f = calloc(1, sizeof(*f));
    gpucore_diag_t d = { 0 };

    assert_non_null(objs);
    assert_non_null(f);
    f->s = s_in;
    if (gc_sim_layout_build(f->s, objs, &f->l, &d) < 0)
        fail_msg("%s: layout: %s", f->s->name, d.message);

    const struct gc_scenario *s = f->s;
    const struct gc_sim_layout *l = f->l;

    /* device entries as the inferior hands them to its driver */
    f->dev = calloc(s->nagents, sizeof(*f->dev));
    assert_non_null(f->dev);
    for (uint32_t i = 0; i < s->nagents; i++)
        assert_int_equal(gc_sim_layout_device_entry(&s->agents[i], &f->dev[i]), GPUCORE_OK);
    /* queue entries likewise */
    f->q = calloc(s->nqueues + 1u, sizeof(*f->q));
    assert_non_null(f->q);
    for (uint32_t i = 0; i < s->nqueues; i++) {
        const struct gc_sim_layout_queue *q = &l->queues[i];
        struct kfd_queue_snapshot_entry *e = &f->q[i];

        e->ring_base_address = q->ring;
        e->write_pointer_address = q->amd_queue + GC_ROCR_AMDQ_WRITE_DISPATCH_ID;
        e->read_pointer_address = q->amd_queue + GC_ROCR_AMDQ_READ_DISPATCH_ID;
        e->ctx_save_restore_address = q->cwsr;
        e->queue_id = q->queue_id;
        e->gpu_id = q->gpu_id;
        e->ring_size = (uint32_t)q->ring_size;
        e->queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
        e->ctx_save_restore_area_size = q->sizes.cwsr_size;
        /* SUSPEND: the waves, the control stack and the header land in each XCC's area */
        for (uint32_t x = 0; x < q->num_xcc; x++)
            gc_sim_layout_context_save(q, x);
    }
    /* GPU mappings: the layout's device allocations, as the simulated driver lists them */
    f->maps = calloc(l->nallocs + 1u, sizeof(*f->maps));
    assert_non_null(f->maps);
    for (uint32_t i = 0; i < l->nallocs; i++) {
        struct gc_kfd_mapping *m = &f->maps[f->nmaps++];

        m->base = l->allocs[i].base;
        m->size = l->allocs[i].size;
        m->kind = l->allocs[i].kind;
        m->gpu_id = l->allocs[i].gpu_id;
        snprintf(m->label, sizeof(m->label), "%s", l->allocs[i].label);
    }
    qsort(f->maps, f->nmaps, sizeof(*f->maps), map_cmp);

    f->unreadable = (struct gc_rangeset)GC_RANGESET_INIT;
    f->in.pid = (uint32_t)getpid();
    f->in.kfd_major = 1;
    f->in.kfd_minor = 18;
    f->in.rinfo.r_debug = l->r_debug;
    f->in.rinfo.runtime_state = 1;
    f->in.rinfo.ttmp_setup = s->ttmp_setup;
    f->in.devices = f->dev;
    f->in.ndevices = s->nagents;
    f->in.device_entry_size = sizeof(*f->dev);
    f->in.queues = f->q;
    f->in.nqueues = s->nqueues;
    f->in.queue_entry_size = sizeof(*f->q);
    f->in.maps = f->maps;
    f->in.nmaps = f->nmaps;
    f->in.mem.read = self_read;
    f->in.mem.user = f;
    f->in.read_file = self_read_file;
    f->read_set = (struct gc_rangeset)GC_RANGESET_INIT;
    return f;
}

static struct fixture *setup_scenario(const char *name)
{
    const char *dir = getenv("GPUCORE_SCENARIO_DIR");
    struct gc_scenario *s = NULL;
    char path[4096];
    gpucore_diag_t d = { 0 };

    assert_non_null(dir);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (gc_scenario_load(path, &s, &d) < 0)
        fail_msg("%s: %s", name, d.message);
    return setup_from(s);
}

static void teardown_scenario(struct fixture *f)
{
    gc_rangeset_free(&f->unreadable);
    gc_rangeset_free(&f->read_set);
    gc_sim_layout_free(f->l);
    gc_scenario_free(f->s);
    free(f->dev);
    free(f->q);
    free(f->maps);
    free(f);
}

static struct gc_plan *plan_ok(struct fixture *f)
{
    struct gc_plan *p = NULL;
    gpucore_diag_t d = { 0 };
    gpucore_status_t st = gc_plan_build(&f->in, &p, &d);

    if (st != GPUCORE_OK)
        fail_msg("%s: gc_plan_build: %d %s", f->s->name, st, d.message);
    assert_non_null(p);
    return p;
}

static int has_warning(const struct gc_plan *p, const char *needle)
{
    for (uint32_t i = 0; i < p->nwarnings; i++)
        if (strstr(p->warnings[i], needle))
            return 1;
    return 0;
}

static void print_warnings(const struct gc_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->nwarnings; i++)
        printf("  %s: warning: %s\n", name, p->warnings[i]);
}

/* ---- the common checks ---------------------------------------------------------------------- */

static void check_note(const struct fixture *f, const struct gc_plan *p)
{
    gpucore_amdgpu_note_t *n = NULL;
    gpucore_diag_t d = { 0 };
    void *again = NULL;
    size_t size = 0;

    assert_int_equal(gpucore_amdgpu_note_decode(p->amdgpu_note, p->amdgpu_note_size, &n, &d),
                     GPUCORE_OK);
    if (gpucore_amdgpu_note_check(n, &d) != GPUCORE_OK)
        fail_msg("%s: note check: %s", f->s->name, d.message);
    assert_int_equal(n->kfd_major, 1);
    assert_int_equal(n->kfd_minor, 18);
    assert_int_equal(n->agent_entry_size, 120);
    assert_int_equal(n->queue_entry_size, 64);
    assert_int_equal(n->runtime_info_size, 16);
    assert_int_equal(n->agent_count, f->s->nagents);
    assert_int_equal(n->queue_count, f->s->nqueues);
    assert_int_equal(n->runtime.r_debug, f->l->r_debug);
    for (uint32_t i = 0; i < n->agent_count; i++) {
        assert_int_equal(n->agents[i].gpu_id, f->dev[i].gpu_id);
        assert_int_equal(n->agents[i].gfx_target_version, f->dev[i].gfx_target_version);
        assert_int_equal(n->agents[i].num_xcc, f->dev[i].num_xcc);
    }
    for (uint32_t i = 0; i < n->queue_count; i++) {
        assert_int_equal(n->queues[i].ring_base_address, f->q[i].ring_base_address);
        assert_int_equal(n->queues[i].ctx_save_restore_area_size,
                         f->q[i].ctx_save_restore_area_size);
    }
    /* round trip: re-encoding the decoded note gives the same bytes */
    assert_int_equal(gpucore_amdgpu_note_encode(n, &again, &size, &d), GPUCORE_OK);
    assert_int_equal(size, p->amdgpu_note_size);
    assert_memory_equal(again, p->amdgpu_note, size);
    gpucore_free(again);
    gpucore_amdgpu_note_free(n);
}

static void check_tiers(const struct fixture *f, const struct gc_plan *p)
{
    struct gc_rangeset all = GC_RANGESET_INIT;

    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++) {
        const struct gc_rangeset *a = &p->tier[t];

        for (uint32_t u = t + 1; u < GC_PLAN_TIERS; u++)
            for (uint32_t k = 0; k < a->count; k++)
                assert_false(gc_rangeset_overlaps(&p->tier[u], a->r[k].start,
                                                  a->r[k].end - a->r[k].start));
        assert_int_equal(gc_rangeset_union(&all, a), GPUCORE_OK);
    }
    for (uint32_t i = 0; i < f->nmaps; i++)
        if (!(f->maps[i].flags & GC_KFD_MAP_NO_READ))
            assert_true(gc_rangeset_contains(&all, f->maps[i].base, f->maps[i].size));
    gc_rangeset_free(&all);
    /* items sorted; each lies where its tier (or an earlier one) holds it */
    for (uint32_t i = 0; i < p->nitems; i++) {
        if (i)
            assert_true(p->items[i - 1].addr <= p->items[i].addr);
        assert_true(p->items[i].tier < GC_PLAN_TIERS);
        assert_ptr_equal(gc_plan_item_at(p, p->items[i].addr) != NULL, 1);
    }
}

static void check_state(const struct fixture *f, const struct gc_plan *p)
{
    const struct gc_rangeset *st = &p->tier[GPUCORE_TIER_STATE];

    for (uint32_t i = 0; i < f->s->nqueues; i++) {
        const struct gc_sim_layout_queue *q = &f->l->queues[i];

        assert_true(gc_rangeset_contains(st, q->ring, q->ring_size));
        assert_true(gc_rangeset_contains(st, q->amd_queue, 256));
        for (uint32_t x = 0; x < q->num_xcc; x++) {
            const struct gc_cwsr_header *h = &q->header[x];
            uint64_t base = q->cwsr + (uint64_t)x * q->sizes.cwsr_size;

            assert_true(gc_rangeset_contains(st, base, 40));
            assert_true(gc_rangeset_contains(st, base + h->control_stack_offset,
                                             h->control_stack_size));
            assert_true(gc_rangeset_contains(st, base + h->wave_state_offset - h->wave_state_size,
                                             h->wave_state_size));
        }
        /* the debugger area after the XCC areas */
        assert_true(gc_rangeset_contains(st, q->cwsr + (uint64_t)q->num_xcc * q->sizes.cwsr_size,
                                         (uint64_t)q->sizes.debug_memory_size * q->num_xcc));
        /* whole 64-byte lines */
        for (uint32_t k = 0; k < st->count; k++)
            assert_int_equal((st->r[k].start | st->r[k].end) & 63, 0);
    }
    assert_true(gc_rangeset_contains(st, f->l->r_debug, 40));
    for (uint32_t i = 0; i < f->s->ndispatches; i++) {
        const struct gc_sim_layout_dispatch *d = &f->l->dispatches[i];

        assert_true(gc_rangeset_contains(st, d->kernel_object, 64));
        if (d->kernarg_size)
            assert_true(gc_rangeset_contains(st, d->kernarg, d->kernarg_size));
    }
    for (uint32_t i = 0; i < f->s->ncode_objects; i++) {
        const struct gc_sim_layout_code_object *co = &f->l->code_objects[i];

        assert_true(gc_rangeset_contains(st, co->link_map, 40));
        assert_true(gc_rangeset_contains(st, co->load_base, co->load_size));
        if (!f->s->code_objects[i].uri_file)
            assert_true(gc_rangeset_contains(st, co->image, co->image_size));
    }
}

/* The state tier's ranks partition it, and hold what plan.h says, most needed first. */
static void check_state_ranks(const struct fixture *f, const struct gc_plan *p)
{
    const struct gc_rangeset *r0 = &p->state_rank[0], *r1 = &p->state_rank[1];
    const struct gc_rangeset *r2 = &p->state_rank[2];
    uint64_t sum = 0;

    for (uint32_t r = 0; r < GC_PLAN_STATE_RANKS; r++) {
        const struct gc_rangeset *s = &p->state_rank[r];

        sum += gc_rangeset_bytes(s);
        for (uint32_t k = 0; k < s->count; k++) {
            assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], s->r[k].start,
                                             s->r[k].end - s->r[k].start));
            for (uint32_t o = r + 1; o < GC_PLAN_STATE_RANKS; o++)
                assert_false(gc_rangeset_overlaps(&p->state_rank[o], s->r[k].start,
                                                  s->r[k].end - s->r[k].start));
        }
    }
    assert_int_equal(sum, gc_rangeset_bytes(&p->tier[GPUCORE_TIER_STATE]));
    /* rank 0: what AMD's reader cannot open the core without */
    assert_true(gc_rangeset_contains(r0, f->l->r_debug, 40));
    for (uint32_t i = 0; i < f->s->ncode_objects; i++)
        assert_true(gc_rangeset_contains(r0, f->l->code_objects[i].link_map, 40));
    for (uint32_t i = 0; i < f->s->nqueues; i++) {
        const struct gc_sim_layout_queue *q = &f->l->queues[i];

        assert_true(gc_rangeset_contains(r0, q->amd_queue, 256));
        assert_true(gc_rangeset_contains(r0, q->ring, q->ring_size));
        for (uint32_t x = 0; x < q->num_xcc; x++) {
            const struct gc_cwsr_header *h = &q->header[x];
            uint64_t base = q->cwsr + (uint64_t)x * q->sizes.cwsr_size;

            assert_true(gc_rangeset_contains(r0, base, 40));
            assert_true(gc_rangeset_contains(r0, base + h->control_stack_offset,
                                             h->control_stack_size));
            /* rank 1: the saved waves (the line shared with the control stack is rank 0) */
            if (h->wave_state_size > 64)
                assert_true(gc_rangeset_contains(r1, base + h->wave_state_offset - 64, 64));
        }
    }
    for (uint32_t i = 0; i < f->s->ndispatches; i++) {
        const struct gc_sim_layout_dispatch *d = &f->l->dispatches[i];

        assert_true(gc_rangeset_contains(r0, d->kernel_object, 64));
        /* rank 2: kernel arguments and code-object bytes */
        if (d->kernarg_size)
            assert_true(gc_rangeset_overlaps(r2, d->kernarg, d->kernarg_size));
    }
}

static void check_waves(const struct fixture *f, const struct gc_plan *p)
{
    /* The causes whose stop reasons are errors (tests/scenarios/README.md "Stop causes"):
       not the debugger's events (breakpoint, debug trap, watchpoints, single steps), host
       traps, or a stop without a cause. */
    const uint32_t fault_causes =
            1u << GC_SCEN_STOP_MEMORY_VIOLATION | 1u << GC_SCEN_STOP_XNACK_ERROR |
            1u << GC_SCEN_STOP_ADDRESS_ERROR | 1u << GC_SCEN_STOP_ILLEGAL_INSTRUCTION |
            1u << GC_SCEN_STOP_ASSERT_TRAP | 1u << GC_SCEN_STOP_TRAP |
            1u << GC_SCEN_STOP_FP_INVALID_OPERATION | 1u << GC_SCEN_STOP_FP_INPUT_DENORMAL |
            1u << GC_SCEN_STOP_FP_DIVIDE_BY_0 | 1u << GC_SCEN_STOP_FP_OVERFLOW |
            1u << GC_SCEN_STOP_FP_UNDERFLOW | 1u << GC_SCEN_STOP_FP_INEXACT |
            1u << GC_SCEN_STOP_INT_DIVIDE_BY_0;
    uint32_t stopped = 0, faulting = 0;

    for (uint32_t i = 0; i < f->s->nwaves; i++) {
        const struct gc_scen_waves *w = &f->s->waves[i];

        if (w->stopped)
            stopped += w->total_waves;
        if (w->stopped && (w->stop_causes & fault_causes))
            faulting += w->total_waves;
    }
    assert_int_equal(p->agents, f->s->nagents);
    assert_int_equal(p->queues, f->s->nqueues);
    assert_int_equal(p->dispatches, f->s->ndispatches);
    assert_int_equal(p->waves, f->s->total_waves);
    assert_int_equal(p->stopped_waves, stopped);
    assert_int_equal(p->faulting_waves, faulting);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *b;
    long n;

    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    n = ftell(fp);
    assert_true(n > 0);
    rewind(fp);
    b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return b;
}

static void check_code_objects(const struct fixture *f, const struct gc_plan *p)
{
    void *desc = NULL;
    size_t size = 0;
    gpucore_diag_t d = { 0 };

    assert_int_equal(p->code_objects.count, f->s->ncode_objects);
    for (uint32_t i = 0; i < p->code_objects.count; i++) {
        const gpucore_code_object_t *co = &p->code_objects.objects[i];
        const struct gc_sim_layout_code_object *lc = &f->l->code_objects[i];
        size_t len;
        uint8_t *file = slurp(lc->path, &len);

        assert_int_equal(co->uri.len, strlen(lc->uri));
        assert_memory_equal(co->uri.ptr, lc->uri, co->uri.len);
        assert_int_equal(co->load_address, lc->load_base - 0); /* l_addr: vaddrs start at 0 */
        assert_int_equal(co->flags, GPUCORE_CODE_OBJECT_EMBEDDED);
        assert_int_equal(co->size, len);
        assert_int_equal(co->bytes_size, len);
        assert_memory_equal(co->bytes, file, len);
        free(file);
    }
    /* the note data encodes */
    assert_int_equal(gpucore_code_objects_encode(&p->code_objects, &desc, &size, &d), GPUCORE_OK);
    gpucore_free(desc);
    assert_int_equal(gpucore_alloc_map_encode(&p->alloc_map, &desc, &size, &d), GPUCORE_OK);
    gpucore_free(desc);
    assert_int_equal(p->alloc_map.count, f->nmaps);
}

static void run_common(const char *name)
{
    struct fixture *f = setup_scenario(name);
    struct gc_plan *p = plan_ok(f);

    print_warnings(p, name);
    check_note(f, p);
    check_tiers(f, p);
    check_state(f, p);
    check_state_ranks(f, p);
    check_waves(f, p);
    check_code_objects(f, p);
    assert_int_equal(p->nwarnings, 0);
    gc_plan_free(p);
    teardown_scenario(f);
}

static void test_vadd_fault(void **state)
{
    (void)state;
    run_common("vadd-fault.json");
}
static void test_mi300_xcc(void **state)
{
    (void)state;
    run_common("mi300-xcc.json");
}
static void test_rdna2_illegal(void **state)
{
    (void)state;
    run_common("rdna2-illegal.json");
}
static void test_rdna3_assert(void **state)
{
    (void)state;
    run_common("rdna3-assert.json");
}
static void test_multi_gpu_hang(void **state)
{
    (void)state;
    run_common("multi-gpu-hang.json");
}
static void test_big_memory(void **state)
{
    (void)state;
    run_common("big-memory.json");
}

/* ---- specific expectations ------------------------------------------------------------------ */

static uint64_t buffer_addr(const struct fixture *f, const char *name, uint64_t *size)
{
    for (uint32_t i = 0; i < f->s->nbuffers; i++)
        if (strcmp(f->s->buffers[i].name, name) == 0) {
            *size = f->l->buffers[i].size;
            return f->l->buffers[i].address;
        }
    fail_msg("no buffer %s", name);
    return 0;
}

static void test_vadd_referenced(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    struct gc_plan *p;
    uint64_t a, b, asize = 0, bsize = 0;

    (void)state;
    a = buffer_addr(f, "a", &asize);
    b = buffer_addr(f, "b", &bsize);
    p = plan_ok(f);
    /* the kernargs point at a and b: 64 KiB windows each side cover both 64 KiB buffers */
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], a, asize));
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], b, bsize));
    const struct gc_plan_item *it = gc_plan_item_at(p, a);
    assert_non_null(it);
    assert_int_equal(it->tier, GPUCORE_TIER_REFERENCED);
    assert_non_null(strstr(it->label, "near 0x"));
    /* scratch: the stopped waves have scratch enabled (private_segment_size 64) */
    assert_true(gc_rangeset_bytes(&p->tier[GPUCORE_TIER_SCRATCH]) > 0);
    assert_true(gc_rangeset_bytes(&p->tier[GPUCORE_TIER_SCRATCH]) <= f->l->queues[0].scratch_size);
    gc_plan_free(p);

    /* a smaller window covers less; a fault address gets its own window */
    struct gc_plan_exception ex = { EC_QUEUE_WAVE_MEMORY_VIOLATION, f->q[0].gpu_id, 0,
                                    b + bsize - 8, 0 };
    f->in.window = 4096;
    f->in.exceptions = &ex;
    f->in.nexceptions = 1;
    p = plan_ok(f);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], a, 4096));
    assert_false(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], a, asize));
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], b + bsize - 4096, 4096));
    gc_plan_free(p);
    teardown_scenario(f);
}

/* What --redact withholds of the state tier: the kernel-argument bytes that are not pointers
 * (c, n and the rest of the segment's 64-byte line), never a and b, which point into buffers. */
static void test_kernarg_values(void **state)
{
    struct fixture *f = setup_scenario("privacy-secret.json");
    uint64_t ka = f->l->dispatches[0].kernarg;
    struct gc_rangeset outside = GC_RANGESET_INIT;
    struct gc_plan *p;

    (void)state;
    assert_int_equal(ka % 64, 0);
    p = plan_ok(f);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], ka, 64));
    assert_false(gc_rangeset_overlaps(&p->kernarg_values, ka, 16));
    assert_true(gc_rangeset_contains(&p->kernarg_values, ka + 16, 48));
    /* a subset of the state tier, and nothing but kernarg segments */
    assert_int_equal(gc_rangeset_union(&outside, &p->kernarg_values), GPUCORE_OK);
    assert_int_equal(gc_rangeset_subtract(&outside, &p->tier[GPUCORE_TIER_STATE]), GPUCORE_OK);
    assert_int_equal(outside.count, 0);
    for (uint32_t i = 0; i < p->kernarg_values.count; i++) {
        const struct gc_plan_item *it = gc_plan_item_at(p, p->kernarg_values.r[i].start);

        assert_non_null(it);
        assert_int_equal(it->kind, GPUCORE_ALLOC_KERNARG);
    }
    gc_plan_free(p);
    gc_rangeset_free(&outside);
    teardown_scenario(f);
}

static void test_big_memory_budget(void **state)
{
    struct fixture *f = setup_scenario("big-memory.json");
    struct gc_plan *p = plan_ok(f);
    uint64_t small = 0, all;

    (void)state;
    for (uint32_t t = 0; t < GPUCORE_TIER_ALL; t++)
        small += gc_rangeset_bytes(&p->tier[t]);
    all = gc_rangeset_bytes(&p->tier[GPUCORE_TIER_ALL]);
    printf("  big-memory: state+scratch+referenced 0x%" PRIx64 " bytes, all 0x%" PRIx64 "\n", small,
           all);
    assert_true(small < (16ull << 20));
    assert_true(all >= (16ull << 30) - small);
    /* the w3 pointer at offset 0xfffffff0 gets a window clipped to the buffer's end */
    uint64_t w3size = 0, w3 = buffer_addr(f, "w3", &w3size);
    assert_true(
            gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], w3 + w3size - 65536, 65536));
    assert_false(gc_rangeset_overlaps(&p->tier[GPUCORE_TIER_REFERENCED], w3 + w3size, 1));
    /* the planner never read the sparse buffers */
    assert_true(f->read_bytes < (16ull << 20));
    gc_plan_free(p);
    teardown_scenario(f);
}

/* ---- hostile target memory ------------------------------------------------------------------ */

static void test_unreadable_cwsr_header(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    const struct gc_sim_layout_queue *q = &f->l->queues[0];
    struct gc_plan *p;

    (void)state;
    assert_int_equal(gc_rangeset_add(&f->unreadable, q->cwsr, 40), GPUCORE_OK);
    p = plan_ok(f);
    print_warnings(p, "unreadable header");
    assert_true(has_warning(p, "CWSR header"));
    assert_true(has_warning(p, "whole save area"));
    assert_int_equal(p->waves, 0);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], q->cwsr, q->sizes.cwsr_size));
    check_note(f, p);
    check_tiers(f, p);
    gc_plan_free(p);

    /* a corrupt header: the control stack does not end where the wave area begins */
    gc_rangeset_clear(&f->unreadable);
    uint8_t *hdr = (uint8_t *)(uintptr_t)q->cwsr;
    uint8_t saved[40];
    memcpy(saved, hdr, sizeof(saved));
    gc_le32_put(hdr + 4, gc_le32_get(hdr + 4) + 64);
    p = plan_ok(f);
    assert_true(has_warning(p, "inconsistent"));
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], q->cwsr, q->sizes.cwsr_size));
    gc_plan_free(p);
    /* a header with absurd sizes */
    gc_le32_put(hdr + 0, 0xfffffff0u);
    gc_le32_put(hdr + 4, 0x7fffffffu);
    gc_le32_put(hdr + 8, 0xffffffffu);
    gc_le32_put(hdr + 12, 0xffffffffu);
    gc_le32_put(hdr + 16, 0xffffffffu);
    gc_le32_put(hdr + 20, 0xffffffffu);
    p = plan_ok(f);
    assert_true(has_warning(p, "inconsistent"));
    gc_plan_free(p);
    memcpy(hdr, saved, sizeof(saved));
    /* an unreadable wave area: the waves are not decoded, the plan goes on */
    assert_int_equal(
            gc_rangeset_add(&f->unreadable, q->cwsr + q->header[0].wave_state_offset - 64, 64),
            GPUCORE_OK);
    p = plan_ok(f);
    assert_true(has_warning(p, "CWSR wave area"));
    assert_int_equal(p->waves, 0);
    gc_plan_free(p);
    teardown_scenario(f);
}

static void test_bad_r_debug(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    uint8_t *rd = (uint8_t *)(uintptr_t)f->l->r_debug;
    uint8_t saved[40];
    struct gc_plan *p;

    (void)state;
    memcpy(saved, rd, sizeof(saved));
    gc_le32_put(rd, 99); /* r_version */
    p = plan_ok(f);
    assert_true(has_warning(p, "r_version 99"));
    assert_int_equal(p->code_objects.count, 0);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], f->l->r_debug, 40));
    gc_plan_free(p);
    memcpy(rd, saved, sizeof(saved));

    gc_le32_put(rd + 24, 1); /* r_state RT_ADD */
    p = plan_ok(f);
    assert_true(has_warning(p, "RT_CONSISTENT"));
    assert_int_equal(p->code_objects.count, 1);
    gc_plan_free(p);
    memcpy(rd, saved, sizeof(saved));

    gc_le64_put(rd + 8, 0x10); /* r_map: unmapped */
    p = plan_ok(f);
    assert_true(has_warning(p, "link_map node"));
    assert_int_equal(p->code_objects.count, 0);
    gc_plan_free(p);
    memcpy(rd, saved, sizeof(saved));

    assert_int_equal(gc_rangeset_add(&f->unreadable, f->l->r_debug, 1), GPUCORE_OK);
    p = plan_ok(f);
    assert_true(has_warning(p, "r_debug"));
    gc_plan_free(p);
    gc_rangeset_clear(&f->unreadable);

    f->in.rinfo.r_debug = 0;
    p = plan_ok(f);
    assert_true(has_warning(p, "did not report r_debug"));
    gc_plan_free(p);
    teardown_scenario(f);
}

static void test_link_map_cycle(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    const struct gc_sim_layout_code_object *co = &f->l->code_objects[0];
    uint8_t *node = (uint8_t *)(uintptr_t)co->link_map;
    uint8_t *uri = (uint8_t *)(uintptr_t)gc_le64_get(node + 8);
    uint8_t saved_node[40], saved_uri[8];
    struct gc_plan *p;

    (void)state;
    memcpy(saved_node, node, sizeof(saved_node));
    memcpy(saved_uri, uri, sizeof(saved_uri));
    gc_le64_put(node + 24, co->link_map); /* l_next: itself */
    p = plan_ok(f);
    assert_true(has_warning(p, "cycle"));
    assert_int_equal(p->code_objects.count, 1);
    gc_plan_free(p);
    memcpy(node, saved_node, sizeof(saved_node));

    /* a URI that is not understood: recorded, bytes not embedded */
    memcpy(uri, "bogus://", 8);
    p = plan_ok(f);
    assert_true(has_warning(p, "not a memory:// or file://"));
    assert_int_equal(p->code_objects.count, 1);
    assert_int_equal(p->code_objects.objects[0].flags, 0);
    gc_plan_free(p);
    memcpy(uri, saved_uri, sizeof(saved_uri));

    /* a URI without a NUL before an unreadable byte */
    assert_int_equal(gc_rangeset_add(&f->unreadable, (uint64_t)(uintptr_t)uri + 5, 1), GPUCORE_OK);
    p = plan_ok(f);
    assert_true(has_warning(p, "URI"));
    assert_int_equal(p->code_objects.count, 0);
    gc_plan_free(p);
    gc_rangeset_clear(&f->unreadable);

    /* a memory URI naming another pid: kept as written, with a warning */
    f->in.pid = 1;
    p = plan_ok(f);
    assert_true(has_warning(p, "names pid"));
    assert_int_equal(p->code_objects.objects[0].flags, GPUCORE_CODE_OBJECT_EMBEDDED);
    gc_plan_free(p);
    f->in.pid = (uint32_t)getpid();

    /* the embedding limit: a prefix */
    f->in.embed_limit = 100;
    p = plan_ok(f);
    assert_int_equal(p->code_objects.objects[0].flags, GPUCORE_CODE_OBJECT_TRUNCATED);
    assert_int_equal(p->code_objects.objects[0].bytes_size, 100);
    assert_true(has_warning(p, "embedding limit"));
    gc_plan_free(p);
    teardown_scenario(f);
}

/* The bytes the plan holds for "code-object image" items (memory:// objects), in total. */
static uint64_t image_item_size(const struct gc_plan *p)
{
    uint64_t total = 0;

    for (uint32_t i = 0; i < p->nitems; i++)
        if (strncmp(p->items[i].label, "code-object image", 17) == 0)
            total += p->items[i].size;
    return total;
}

/* A memory:// URI whose size lies (255 MiB said, one page there, as tests/kfdemu's
 * hostile_rocr writes into ROCr's link map): the plan holds the readable page and nothing past
 * it, so the core writer does not spend seconds trying to read 255 MiB the target does not
 * have (it took 11 s per such node on the emulator); a warning says how much was readable. */
static void test_memory_uri_size_lies(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    const struct gc_sim_layout_code_object *co = &f->l->code_objects[0];
    uint8_t *node = (uint8_t *)(uintptr_t)co->link_map;
    uint64_t saved_name = gc_le64_get(node + 8);
    const uint64_t lie = 255ull << 20;
    char uri[128];
    uint8_t *page;
    uint64_t at;
    struct gc_plan *p;

    (void)state;
    /* two pages, the second unmapped: nothing readable after the first */
    page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(page != MAP_FAILED);
    assert_int_equal(munmap(page + 4096, 4096), 0);
    memset(page, 0x5a, 4096);
    at = (uint64_t)(uintptr_t)page;
    snprintf(uri, sizeof(uri), "memory://%d#offset=0x%" PRIx64 "&size=%" PRIu64, (int)getpid(),
             at, lie);
    gc_le64_put(node + 8, (uint64_t)(uintptr_t)uri);
    p = plan_ok(f);
    assert_int_equal(image_item_size(p), 4096);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], at, 4096));
    assert_true(has_warning(p, "0x1000 of the 0xff00000 bytes its URI names are readable"));
    assert_int_equal(p->code_objects.count, 1);
    assert_int_equal(p->code_objects.objects[0].flags, 0); /* not embedded */
    gc_plan_free(p);

    /* nothing readable at all: nothing planned, gc_plan_read's warning */
    assert_int_equal(munmap(page, 4096), 0);
    p = plan_ok(f);
    assert_true(has_warning(p, "memory image"));
    assert_int_equal(image_item_size(p), 0);
    gc_plan_free(p);
    gc_le64_put(node + 8, saved_name);
    teardown_scenario(f);
}

static void test_bad_queue(void **state)
{
    struct fixture *f = setup_scenario("vadd-fault.json");
    const struct gc_sim_layout_queue *q = &f->l->queues[0];
    uint8_t *aq = (uint8_t *)(uintptr_t)q->amd_queue;
    uint8_t saved[256];
    struct gc_plan *p;
    gpucore_diag_t d = { 0 };

    (void)state;
    memcpy(saved, aq, sizeof(saved));
    /* write id far ahead of read id: capped at the ring size */
    gc_le64_put(aq + GC_ROCR_AMDQ_WRITE_DISPATCH_ID, 1ull << 40);
    p = plan_ok(f);
    assert_true(has_warning(p, "active packets"));
    gc_plan_free(p);
    /* write below read */
    gc_le64_put(aq + GC_ROCR_AMDQ_WRITE_DISPATCH_ID, 0);
    gc_le64_put(aq + GC_ROCR_AMDQ_READ_DISPATCH_ID, 5);
    p = plan_ok(f);
    assert_true(has_warning(p, "below"));
    assert_int_equal(p->dispatches, 0);
    gc_plan_free(p);
    memcpy(aq, saved, sizeof(saved));

    /* a packet whose kernel descriptor is unmapped */
    uint8_t *pkt = (uint8_t *)(uintptr_t)f->l->dispatches[0].packet;
    uint8_t spkt[64];
    memcpy(spkt, pkt, sizeof(spkt));
    gc_le64_put(pkt + 32, 0x8);
    p = plan_ok(f);
    assert_true(has_warning(p, "kernel descriptor"));
    gc_plan_free(p);
    memcpy(pkt, spkt, sizeof(spkt));

    /* an unknown gfx target: note still written, waves not decoded */
    f->dev[0].gfx_target_version = 10;
    p = plan_ok(f);
    assert_true(has_warning(p, "not a known target"));
    assert_int_equal(p->waves, 0);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_STATE], q->cwsr, q->sizes.cwsr_size));
    gc_plan_free(p);
    f->dev[0].gfx_target_version = 90010;

    /* the amd_queue_t in a mapping that must not be read (doorbell/MMIO): never read, never
       planned */
    uint32_t mi = 0;
    while (mi < f->nmaps && !(q->amd_queue >= f->maps[mi].base &&
                              q->amd_queue - f->maps[mi].base < f->maps[mi].size))
        mi++;
    assert_true(mi < f->nmaps);
    f->maps[mi].flags |= GC_KFD_MAP_NO_READ;
    p = plan_ok(f);
    assert_true(has_warning(p, "must not be read"));
    for (uint32_t t = 0; t < GC_PLAN_TIERS; t++)
        assert_false(gc_rangeset_overlaps(&p->tier[t], f->maps[mi].base, f->maps[mi].size));
    assert_int_equal(p->dispatches, 0);
    gc_plan_free(p);
    f->maps[mi].flags = 0;

    /* a queue naming an unknown gpu_id is an inconsistent snapshot */
    f->q[0].gpu_id = 0x1;
    assert_int_equal(gc_plan_build(&f->in, &p, &d), GPUCORE_E_INVAL);
    assert_non_null(strstr(d.message, "gpu_id"));
    f->q[0].gpu_id = f->dev[0].gpu_id;

    /* a read function that fails hard stops the plan */
    f->in.mem.read = NULL;
    assert_int_equal(gc_plan_build(&f->in, &p, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_plan_build(NULL, &p, &d), GPUCORE_E_INVAL);
    teardown_scenario(f);
}

static gpucore_status_t gone_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                  uint64_t *ret_done, int *ret_errno)
{
    (void)user, (void)addr, (void)buf, (void)size;
    *ret_done = 0;
    *ret_errno = ESRCH;
    return GPUCORE_E_NOTFOUND;
}

static void test_target_gone(void **state)
{
    struct fixture *f = setup_scenario("rdna3-assert.json");
    struct gc_plan *p = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    f->in.mem.read = gone_read;
    assert_int_equal(gc_plan_build(&f->in, &p, &d), GPUCORE_E_NOTFOUND);
    assert_null(p);
    assert_true(d.message[0] != '\0');
    teardown_scenario(f);
}

/* Thousands of distinct referenced addresses: the windows are capped, with a warning. */
static void test_windows_cap(void **state)
{
    struct fixture *f = setup_scenario("rdna3-assert.json");
    const uint32_t n = 5000;
    const uint64_t far = 0x100000000000ull; /* never handed out by mmap here */
    struct gc_kfd_mapping *maps = calloc(f->nmaps + n, sizeof(*maps));
    struct gc_plan_exception *ex = calloc(n, sizeof(*ex));
    struct gc_plan *p;

    (void)state;
    assert_non_null(maps);
    assert_non_null(ex);
    memcpy(maps, f->maps, f->nmaps * sizeof(*maps));
    for (uint32_t i = 0; i < n; i++) {
        struct gc_kfd_mapping *m = &maps[f->nmaps + i];

        m->base = far + (uint64_t)i * 8192; /* one page, one hole */
        m->size = 4096;
        m->kind = GC_KFD_MEM_VRAM;
        ex[i].code = EC_DEVICE_MEMORY_VIOLATION;
        ex[i].queue_id = KFD_INVALID_QUEUEID;
        ex[i].fault_va = m->base + 8;
    }
    qsort(maps, f->nmaps + n, sizeof(*maps), map_cmp);
    f->in.maps = maps;
    f->in.nmaps = f->nmaps + n;
    f->in.exceptions = ex;
    f->in.nexceptions = n;
    f->in.window = 4096;
    p = plan_ok(f);
    assert_true(has_warning(p, "referenced windows"));
    assert_int_equal(gc_rangeset_bytes(&p->tier[GPUCORE_TIER_REFERENCED]), 4096ull * 4096);
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_REFERENCED], far, 4096));
    assert_false(gc_rangeset_overlaps(&p->tier[GPUCORE_TIER_REFERENCED],
                                      far + (uint64_t)(n - 1) * 8192, 4096));
    /* the all tier still has every mapping */
    assert_true(gc_rangeset_contains(&p->tier[GPUCORE_TIER_ALL], far + (uint64_t)(n - 1) * 8192,
                                     4096));
    /* an address outside every mapping, or in a NO_READ one, gets no window */
    gc_plan_free(p);
    maps[0].flags |= GC_KFD_MAP_NO_READ;
    ex[0].fault_va = maps[0].base;
    ex[1].fault_va = far - 4096;
    f->in.nexceptions = 2;
    p = plan_ok(f);
    assert_false(gc_rangeset_overlaps(&p->tier[GPUCORE_TIER_REFERENCED], maps[0].base,
                                      maps[0].size));
    assert_false(gc_rangeset_overlaps(&p->tier[GPUCORE_TIER_ALL], maps[0].base, maps[0].size));
    assert_false(gc_rangeset_overlaps(&p->tier[GPUCORE_TIER_REFERENCED], far - 4096, 4096));
    gc_plan_free(p);
    free(maps);
    free(ex);
    teardown_scenario(f);
}

/* ---- every scenario file, and fuzz seeds ---------------------------------------------------- */

/* Every *.json of the scenario directory, including ones added after this test was written. */
static void test_every_scenario(void **state)
{
    const char *dir = getenv("GPUCORE_SCENARIO_DIR");
    struct dirent *e;
    DIR *d;
    uint32_t n = 0;

    (void)state;
    assert_non_null(dir);
    d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);

        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        printf("  scenario %s\n", e->d_name);
        run_common(e->d_name);
        n++;
    }
    closedir(d);
    assert_true(n >= 6);
}

/* Small process images for the fuzz target's seeds: one stopped wave each. */
static const char *const seed_scenarios[][2] = {
    { "seed-gfx90a",
      "{ \"name\": \"seed-gfx90a\", \"r_version\": 10,"
      "  \"agents\": [ { \"target\": \"gfx90a\", \"gpu_id\": \"0xc4f1\", \"simd_count\": 416 } ],"
      "  \"queues\": [ { \"agent\": 0, \"queue_id\": 3, \"ring_packets\": 16,"
      "                \"scratch_per_wave\": 1024, \"scratch_waves\": 8 } ],"
      "  \"code_objects\": [ { \"name\": \"vadd\", \"source\": \"vadd.cl\", \"target\": \"gfx90a\" "
      "} ],"
      "  \"buffers\": [ { \"name\": \"a\", \"size\": 4096, \"pattern\": \"sequence\" } ],"
      "  \"dispatches\": [ { \"queue\": 0, \"code_object\": \"vadd\", \"kernel\": \"vadd\","
      "      \"grid\": [64], \"workgroup\": [64], \"packet_id\": 2, \"private_segment_size\": 16,"
      "      \"kernargs\": [ { \"type\": \"buffer\", \"value\": \"a\" },"
      "                    { \"type\": \"u32\", \"value\": 64 } ] } ],"
      "  \"waves\": [ { \"dispatch\": 0, \"workgroup\": [0], \"state\": \"stopped\","
      "      \"stop\": \"memory_violation\", \"pc\": { \"kernel_offset\": \"0x10\" },"
      "      \"registers\": { \"fill\": 5 } } ] }" },
    { "seed-gfx1100",
      "{ \"name\": \"seed-gfx1100\", \"r_version\": 11,"
      "  \"agents\": [ { \"target\": \"gfx1100\", \"gpu_id\": \"0x2b5c\", \"simd_count\": 192,"
      "                \"array_count\": 12, \"simd_arrays_per_engine\": 2 } ],"
      "  \"queues\": [ { \"agent\": 0, \"queue_id\": 0, \"ring_packets\": 16,"
      "                \"scratch_per_wave\": 2048, \"scratch_waves\": 4 } ],"
      "  \"code_objects\": [ { \"name\": \"trap\", \"source\": \"trap.cl\", \"target\": "
      "\"gfx1100\" } ],"
      "  \"buffers\": [ { \"name\": \"in\", \"size\": 4096, \"pattern\": \"random\", \"seed\": 9 } "
      "],"
      "  \"dispatches\": [ { \"queue\": 0, \"code_object\": \"trap\", \"kernel\": \"check\","
      "      \"grid\": [32], \"workgroup\": [32], \"packet_id\": 1, \"wave32\": true,"
      "      \"private_segment_size\": 32,"
      "      \"kernargs\": [ { \"type\": \"buffer\", \"value\": \"in\" },"
      "                    { \"type\": \"buffer\", \"value\": \"in\" } ] } ],"
      "  \"waves\": [ { \"dispatch\": 0, \"workgroup\": [0], \"state\": \"stopped\","
      "      \"stop\": \"assert_trap\", \"pc\": { \"kernel_offset\": \"0x10\" },"
      "      \"registers\": { \"fill\": 6 } } ] }" },
    { "seed-gfx942-xcc",
      "{ \"name\": \"seed-gfx942-xcc\", \"r_version\": 9,"
      "  \"agents\": [ { \"target\": \"gfx942\", \"gpu_id\": \"0x7a10\", \"simd_count\": 304,"
      "                \"num_xcc\": 2 } ],"
      "  \"queues\": [ { \"agent\": 0, \"queue_id\": 3, \"ring_packets\": 16,"
      "                \"scratch_per_wave\": 1024, \"scratch_waves\": 8 } ],"
      "  \"code_objects\": [ { \"name\": \"vadd\", \"source\": \"vadd.cl\", \"target\": \"gfx940\","
      "                      \"uri\": \"file\" } ],"
      "  \"buffers\": [ { \"name\": \"a\", \"size\": 4096 } ],"
      "  \"dispatches\": [ { \"queue\": 0, \"code_object\": \"vadd\", \"kernel\": \"vadd\","
      "      \"grid\": [64], \"workgroup\": [64], \"packet_id\": 20, \"private_segment_size\": 16,"
      "      \"kernargs\": [ { \"type\": \"buffer\", \"value\": \"a\" } ] } ],"
      "  \"waves\": [ { \"dispatch\": 0, \"xcc\": 1, \"workgroup\": [0], \"state\": \"stopped\","
      "      \"stop\": \"memory_violation\", \"pc\": { \"kernel_offset\": \"0x10\" },"
      "      \"registers\": { \"fill\": 7 } } ] }" },
};

static void put_bytes(uint8_t **buf, size_t *len, const void *p, size_t n)
{
    *buf = realloc(*buf, *len + n);
    assert_non_null(*buf);
    memcpy(*buf + *len, p, n);
    *len += n;
}

/* The fuzz_plan input (tests/fuzz/targets/fuzz_plan.c) describing this fixture: its snapshot
 * entries, GPU mappings and every byte the planner read. */
static uint8_t *fuzz_seed(const struct fixture *f, size_t *ret_len)
{
    uint8_t *b = NULL;
    size_t len = 0;
    uint32_t minor = 18, embed = 0;
    uint8_t counts[4] = { (uint8_t)f->in.ndevices, (uint8_t)f->in.nqueues, (uint8_t)f->nmaps, 0 };

    assert_true(f->in.ndevices < 5 && f->in.nqueues < 9 && f->nmaps < 17);
    put_bytes(&b, &len, &minor, 4);
    put_bytes(&b, &len, &embed, 4);
    put_bytes(&b, &len, &f->in.rinfo, 16);
    put_bytes(&b, &len, counts, 4);
    put_bytes(&b, &len, f->dev, f->in.ndevices * sizeof(*f->dev));
    put_bytes(&b, &len, f->q, f->in.nqueues * sizeof(*f->q));
    for (uint32_t i = 0; i < f->nmaps; i++) {
        put_bytes(&b, &len, &f->maps[i].base, 8);
        put_bytes(&b, &len, &f->maps[i].size, 8);
        put_bytes(&b, &len, &f->maps[i].kind, 4);
        put_bytes(&b, &len, &f->maps[i].flags, 4);
    }
    for (uint32_t i = 0; i < f->read_set.count; i++) {
        uint64_t a = f->read_set.r[i].start;
        uint32_t n = (uint32_t)(f->read_set.r[i].end - a);

        put_bytes(&b, &len, &a, 8);
        put_bytes(&b, &len, &n, 4);
        put_bytes(&b, &len, (const void *)(uintptr_t)a, n);
    }
    *ret_len = len;
    return b;
}

/* Build the seeds (and write them to $GPUCORE_PLAN_SEED_DIR when set). Each must be a few KiB
 * and its plan must match the scenario. */
static void test_fuzz_seeds(void **state)
{
    const char *out = getenv("GPUCORE_PLAN_SEED_DIR");

    (void)state;
    for (size_t i = 0; i < sizeof(seed_scenarios) / sizeof(seed_scenarios[0]); i++) {
        struct gc_scenario *s = NULL;
        gpucore_diag_t d = { 0 };
        const char *json = seed_scenarios[i][1];

        if (gc_scenario_parse(json, strlen(json), seed_scenarios[i][0], &s, &d) < 0)
            fail_msg("%s: %s", seed_scenarios[i][0], d.message);
        struct fixture *f = setup_from(s);
        struct gc_plan *p = plan_ok(f);
        size_t len;
        uint8_t *seed;

        print_warnings(p, seed_scenarios[i][0]);
        assert_int_equal(p->nwarnings, 0);
        check_waves(f, p);
        check_state(f, p);
        assert_int_equal(p->faulting_waves, 1);
        seed = fuzz_seed(f, &len);
        printf("  %s: fuzz seed of %zu bytes\n", seed_scenarios[i][0], len);
        assert_true(len < 32768);
        if (out) {
            char path[4096];
            FILE *fp;

            snprintf(path, sizeof(path), "%s/%s", out, seed_scenarios[i][0]);
            fp = fopen(path, "wb");
            assert_non_null(fp);
            assert_int_equal(fwrite(seed, 1, len, fp), len);
            assert_int_equal(fclose(fp), 0);
        }
        free(seed);
        gc_plan_free(p);
        teardown_scenario(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vadd_fault),
        cmocka_unit_test(test_mi300_xcc),
        cmocka_unit_test(test_rdna2_illegal),
        cmocka_unit_test(test_rdna3_assert),
        cmocka_unit_test(test_multi_gpu_hang),
        cmocka_unit_test(test_big_memory),
        cmocka_unit_test(test_vadd_referenced),
        cmocka_unit_test(test_kernarg_values),
        cmocka_unit_test(test_big_memory_budget),
        cmocka_unit_test(test_unreadable_cwsr_header),
        cmocka_unit_test(test_bad_r_debug),
        cmocka_unit_test(test_link_map_cycle),
        cmocka_unit_test(test_memory_uri_size_lies),
        cmocka_unit_test(test_bad_queue),
        cmocka_unit_test(test_target_gone),
        cmocka_unit_test(test_windows_cap),
        cmocka_unit_test(test_every_scenario),
        cmocka_unit_test(test_fuzz_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
