/* SPDX-License-Identifier: MIT */
/* A fault's waves in the queue's save area (emu_save.h). */
#include "emu_save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cwsr.h"
#include "disasm.h"
#include "gc_rocr.h"
#include "gc_util.h"
#include "layout.h"

/* AQL kernel dispatch packet fields (HSA PSA 1.2 §2.8). */
#define PKT_WORKGROUP_X 4u
#define PKT_GRID_X 12u
#define PKT_PRIVATE 24u
#define PKT_GROUP 28u
#define PKT_KERNEL_OBJECT 32u
#define PKT_KERNARG 40u
/* amd_kernel_code_t / kernel descriptor: kernel_code_properties, bit 10 = wave32 */
#define KD_CODE_PROPERTIES 56u
#define KD_WAVE32_BIT 10u

static int starts(const char *s, const char *const *prefixes);

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

int gc_emu_save_dispatch(const struct gc_emu_vm *vm, const struct gc_emu_queue *q,
                         const uint8_t packet[64], struct gc_emu_save *how, char *err,
                         size_t errlen)
{
    const struct gc_emu_device *dev = &vm->p->m->devs[q->dev];
    struct gc_scenario s;
    struct gc_scen_agent agent = dev->agent;
    struct gc_scen_queue sq;
    struct gc_scen_dispatch sd;
    struct gc_scen_waves sw;
    struct gc_sim_layout_dispatch ld;
    struct gc_sim_layout_queue *lq = NULL;
    struct gc_cwsr_header tmpl, hdr;
    uint8_t raw[GC_CWSR_HEADER_SIZE], kd[64], *img = NULL;
    uint32_t groups_x, wpg, lanes, nwaves = 0;
    size_t len = 0;
    gpucore_diag_t diag;
    gpucore_status_t st;
    int ret = -1;

    memset(&s, 0, sizeof(s));
    memset(&sq, 0, sizeof(sq));
    memset(&sd, 0, sizeof(sd));
    memset(&sw, 0, sizeof(sw));
    memset(&ld, 0, sizeof(ld));
    memset(&diag, 0, sizeof(diag));
    if (!q->cwsr || !q->cwsr_size) {
        snprintf(err, errlen, "queue %u has no save area", q->id);
        return -1;
    }
    if (gc_emu_vm_read(vm, q->cwsr, raw, sizeof(raw)) ||
        gc_cwsr_header_decode(raw, sizeof(raw), &tmpl) != GPUCORE_OK) {
        snprintf(err, errlen, "queue %u: the save area header at 0x%llx cannot be read", q->id,
                 (unsigned long long)q->cwsr);
        return -1;
    }
    if (how->desc)
        memcpy(kd, how->desc, sizeof(kd));
    else if (gc_emu_vm_read(vm, rd64(packet + PKT_KERNEL_OBJECT), kd, sizeof(kd))) {
        snprintf(err, errlen, "the kernel descriptor at 0x%llx cannot be read",
                 (unsigned long long)rd64(packet + PKT_KERNEL_OBJECT));
        return -1;
    }

    /* the scenario of one agent, one queue, one dispatch and its first workgroups */
    agent.ttmp_setup = vm->p->ttmp_setup;
    sq.agent = 0;
    sq.queue_id = q->id;
    sq.ring_packets = (uint32_t)(q->ring_size / 64);
    snprintf(sd.kernel, sizeof(sd.kernel), "%s", how->kernel ? how->kernel : "kernel");
    for (int i = 0; i < 3; i++) {
        sd.workgroup[i] = rd16(packet + PKT_WORKGROUP_X + 2 * i);
        sd.grid[i] = rd32(packet + PKT_GRID_X + 4 * i);
        if (!sd.workgroup[i] || !sd.grid[i]) {
            snprintf(err, errlen, "the dispatch has a zero size in dimension %d", i);
            return -1;
        }
    }
    sd.packet_id = q->read_index;
    sd.private_segment_size = rd32(packet + PKT_PRIVATE);
    if (sd.private_segment_size) { /* scratch slots: one per wave, up to the hardware's 16 ids */
        sq.scratch_per_wave = (sd.private_segment_size * 64 + 1023) & ~1023u;
        sq.scratch_waves = 16;
    }
    sd.group_segment_size = rd32(packet + PKT_GROUP);
    sd.wave32 = (dev->arch->wave_sizes & GC_WAVE32) &&
                (rd16(kd + KD_CODE_PROPERTIES) >> KD_WAVE32_BIT & 1);
    lanes = sd.wave32 ? 32 : 64;
    wpg = (sd.workgroup[0] * sd.workgroup[1] * sd.workgroup[2] + lanes - 1) / lanes;
    groups_x = (sd.grid[0] + sd.workgroup[0] - 1) / sd.workgroup[0];
    sw.dispatch = 0;
    sw.xcc = 0;
    sw.workgroup_count = groups_x;
    if ((uint64_t)sw.workgroup_count * wpg > dev->cwsr.wave_num)
        sw.workgroup_count = dev->cwsr.wave_num / wpg;
    if ((uint64_t)sw.workgroup_count * wpg > GC_EMU_SAVE_MAX_WAVES)
        sw.workgroup_count = GC_EMU_SAVE_MAX_WAVES / wpg;
    if (!sw.workgroup_count) {
        snprintf(err, errlen, "a workgroup of %u waves does not fit the device", wpg);
        return -1;
    }
    sw.stop = how->cause;
    sw.stop_causes = how->cause ? 1u << how->cause : 0;
    sw.stopped = how->cause && gc_scen_causes[how->cause].state == GC_SCEN_STATE_STOPPED;
    sw.pc_is_kernel = 0;
    sw.pc_address = how->pc;
    sw.exec = lanes == 64 ? ~0ull : 0xffffffffull;
    sw.fill_seed = (uint32_t)q->read_index;
    if (how->address_vgpr >= 0) { /* the address the faulting instruction used, per lane */
        uint32_t lane_count = lanes;

        sw.overrides = calloc(2 * (size_t)lane_count, sizeof(*sw.overrides));
        if (sw.overrides) {
            for (uint32_t l = 0; l < lane_count; l++) {
                uint64_t a = how->fault_va + 4ull * l;

                sw.overrides[2 * l] = (struct gc_scen_reg_override){
                    GC_SCEN_KIND_VGPR, (uint32_t)how->address_vgpr, (int32_t)l, (uint32_t)a };
                sw.overrides[2 * l + 1] = (struct gc_scen_reg_override){
                    GC_SCEN_KIND_VGPR, (uint32_t)how->address_vgpr + 1, (int32_t)l,
                    (uint32_t)(a >> 32) };
            }
            sw.noverrides = 2 * lane_count;
        }
    }
    sw.first_wave = 0;
    sw.total_waves = sw.workgroup_count * wpg;
    s.r_version = how->r_version;
    s.ttmp_setup = agent.ttmp_setup;
    s.agents = &agent;
    s.nagents = 1;
    s.queues = &sq;
    s.nqueues = 1;
    s.dispatches = &sd;
    s.ndispatches = 1;
    s.waves = &sw;
    s.nwaves = 1;
    s.total_waves = sw.total_waves;

    ld.packet = how->packet;
    ld.kernel_object = rd64(packet + PKT_KERNEL_OBJECT);
    ld.entry = how->entry;
    ld.code_size = how->code_size;
    ld.kernarg = rd64(packet + PKT_KERNARG);
    lq = calloc(1, sizeof(*lq));
    if (!lq) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    lq->gpu_id = agent.gpu_id;
    lq->queue_id = q->id;
    lq->num_xcc = agent.num_xcc;
    lq->ring = q->ring;
    lq->ring_size = q->ring_size;
    lq->cwsr = q->cwsr;
    lq->sizes = dev->cwsr;
    /* the queue's scratch, as the runtime set it in its amd_queue_t (which the read pointer
       locates); the flat-scratch addresses of the waves follow */
    if (gc_rocr_amd_queue_at(q->rptr_addr, &lq->amd_queue)) {
        uint8_t aq_raw[GC_ROCR_AMDQ_SIZE];
        struct gc_rocr_amd_queue aq;

        if (!gc_emu_vm_read(vm, lq->amd_queue, aq_raw, sizeof(aq_raw)) &&
            gc_rocr_amd_queue_decode(aq_raw, sizeof(aq_raw), &aq) == GPUCORE_OK) {
            lq->scratch = aq.scratch_location;
            lq->scratch_size = aq.scratch_byte_size;
        }
    }

    st = gc_sim_layout_save_waves(&s, &ld, lq, 0, 0, &tmpl, &img, &len, &hdr, &nwaves, &diag);
    if (st != GPUCORE_OK) {
        snprintf(err, errlen, "%s", diag.message[0] ? diag.message : gpucore_strerror(st));
        goto out;
    }
    if (len > q->cwsr_size) {
        snprintf(err, errlen, "%u waves take %zu bytes, the save area has %llu", nwaves, len,
                 (unsigned long long)q->cwsr_size);
        goto out;
    }
    /* an eviction: everything the save writes but the header, which SUSPEND completes */
    if (!how->no_write && len > GC_CWSR_HEADER_SIZE &&
        gc_emu_vm_write(vm, q->cwsr + GC_CWSR_HEADER_SIZE, img + GC_CWSR_HEADER_SIZE,
                        len - GC_CWSR_HEADER_SIZE)) {
        snprintf(err, errlen, "the save area at 0x%llx cannot be written",
                 (unsigned long long)q->cwsr);
        goto out;
    }
    how->saved_header = hdr;
    if (how->keep_image) {
        how->image = img;
        how->image_len = len;
        img = NULL;
    }
    ret = (int)nwaves;
out:
    gc_free(img);
    free(lq);
    free(sw.overrides);
    return ret;
}

int gc_emu_address_vgpr(const char *text)
{
    static const char *const mem[] = { "global_", "flat_", NULL };
    const char *v;
    unsigned lo, hi;

    if (!starts(text, mem) || !strstr(text, ", off") || !(v = strstr(text, " v[")))
        return -1;
    if (sscanf(v, " v[%u:%u]", &lo, &hi) != 2 || hi != lo + 1 || lo > 510)
        return -1;
    return (int)lo;
}

/* ------------------------------------------------------------------------------------------ */
/* Where the waves stop                                                                        */
/* ------------------------------------------------------------------------------------------ */

struct pick {
    enum gc_scen_stop cause;
    int write;
    uint64_t pc;
    int rank; /* how well the instruction fits the fault: higher wins; 0 none yet */
    char text[GC_DISASM_TEXT_MAX];
};

static int starts(const char *s, const char *const *prefixes)
{
    for (size_t i = 0; prefixes[i]; i++)
        if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

static int consider(void *user, const struct gc_disasm_insn *insn)
{
    static const char *const stores[] = { "global_store", "flat_store", "buffer_store",
                                          "global_atomic", "flat_atomic", NULL };
    static const char *const loads[] = { "global_load", "flat_load", "buffer_load", NULL };
    struct pick *p = user;
    int rank = 0;

    switch (p->cause) {
    case GC_SCEN_STOP_MEMORY_VIOLATION:
        if (starts(insn->text, p->write ? stores : loads))
            rank = 2;
        else if (starts(insn->text, p->write ? loads : stores))
            rank = 1;
        break;
    case GC_SCEN_STOP_ASSERT_TRAP:
    case GC_SCEN_STOP_TRAP:
        if (!strncmp(insn->text, "s_trap", 6))
            rank = 2;
        break;
    default:
        break;
    }
    if (rank > p->rank) {
        p->rank = rank;
        p->pc = insn->pc;
        snprintf(p->text, sizeof(p->text), "%s", insn->text);
    }
    return p->rank == 2; /* the best kind found: stop */
}

uint64_t gc_emu_fault_pc(const struct gc_arch *arch, uint64_t entry, const uint8_t *code,
                         size_t len, enum gc_scen_stop cause, int write, char *text, size_t cap)
{
    struct pick p;

    memset(&p, 0, sizeof(p));
    p.cause = cause;
    p.write = write;
    p.pc = entry;
    if (code && len >= 4 && gc_disasm_load(NULL) == GPUCORE_OK) {
        gpucore_diag_t diag;
        gpucore_status_t st;

        memset(&diag, 0, sizeof(diag));
        st = gc_disasm_range(arch, code, len, entry, NULL, consider, &p, NULL, &diag);
        /* an illegal instruction stops where the bytes are no instruction of the target */
        if (cause == GC_SCEN_STOP_ILLEGAL_INSTRUCTION && st == GPUCORE_E_CORRUPT &&
            (diag.flags & GPUCORE_DIAG_HAS_OFFSET) && diag.offset + 4 <= len) {
            uint32_t word;

            memcpy(&word, code + diag.offset, 4);
            p.pc = entry + diag.offset;
            p.rank = 2;
            snprintf(p.text, sizeof(p.text), "not an instruction: 0x%08x", word);
        }
        if (!p.rank) { /* the first instruction's text, for the message */
            uint32_t sz;

            (void)gc_disasm_insn(arch, code, len, entry, NULL, p.text, sizeof(p.text), &sz, NULL);
        }
    }
    if (cap)
        snprintf(text, cap, "%s", p.text);
    return p.pc;
}
