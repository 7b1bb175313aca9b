/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-image: write a small crafted core that once made the GPU image (`gpucore
 * analyze`, libgpucore-dbgapi) take memory or CPU far beyond its size.
 *
 *     gpucore-mkhostile-image OUTPUT CASE [COUNT]
 *
 * COUNT (optional) replaces the number of queues (and of agents for agents-queues): the fuzz
 * corpora keep small versions of these cores as seeds.
 *
 * CASE:
 *   cwsr-bomb      8 AQL queues of a gfx90a whose save area claims a 1 MiB control stack and
 *                  a 255 MiB wave area; the file holds the 40-byte header, the rest is zero
 *                  fill (p_memsz past p_filesz). Was 2.15 GB of memory for a 9 KB core.
 *   cwsr-bomb-xcc  the same with 64 queues x 32 XCCs: 512 GiB asked by a core of a few KB.
 *   sparse-ring    1024 AQL queues of an unknown target sharing one 4 GiB ring of zero fill,
 *                  every slot active (read_dispatch_id 0, write_dispatch_id 2^26 - 1). Was
 *                  0.6 s of CPU per queue (10 minutes).
 *   agents-queues  65536 agents and 65536 (SDMA) queues naming the last agents, compressed.
 *                  Was quadratic (51 s).
 *
 * Built with the public schema and libcore API; the zero fill is made by raising p_memsz of
 * PT_LOADs in the written file (the writer itself always writes p_memsz == p_filesz).
 * Exit status: 0 written; 64 usage; 70 a codec or the writer refused; 74 patching failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#define GFX90A        90010u
#define GFX_UNKNOWN   12345u
#define DEBUG_CAPS    (GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT | GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED)
#define AREA_BASE     0x100000000000ull
#define AREA_SIZE     0x10000040u /* 256 MiB + 64: XCC bases stay 64-byte aligned, no page padding */
#define CTL_OFFSET    64u
#define CTL_SIZE      (0x100000u - CTL_OFFSET) /* 1 MiB: the most the image reads */
#define WAVE_SIZE     0xff00000u /* the rest of 256 MiB */
#define RING_BASE     0x200000000000ull
#define RING_SIZE     0xffffffc0u
#define AMDQ_BASE     0x300000000000ull
#define MAX_PATCH     64

struct patch {
    uint64_t vaddr, memsz;
};

struct out {
    gpucore_writer_t *w;
    struct patch patches[MAX_PATCH];
    int npatches;
};

static int die(const char *what, const char *msg, int code)
{
    fprintf(stderr, "gpucore-mkhostile-image: %s: %s\n", what, msg);
    return code;
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A segment of @p size bytes at @p vaddr whose p_memsz becomes @p memsz (zero fill). */
static gpucore_status_t sparse(struct out *o, uint64_t vaddr, const void *data, uint64_t size,
                               uint64_t memsz)
{
    if (o->npatches == MAX_PATCH)
        return GPUCORE_E_LIMIT;
    o->patches[o->npatches++] = (struct patch){ vaddr, memsz };
    return gpucore_writer_add_segment(o->w, vaddr, data, size, NULL);
}

/* Raise p_memsz of the PT_LOADs at the patched addresses, in the published file. */
static int patch_file(const char *path, const struct out *o)
{
    FILE *f = fopen(path, "r+b");
    uint8_t eh[64], ph[56];
    int found = 0;

    if (!f || fread(eh, 1, sizeof(eh), f) != sizeof(eh))
        return die(path, "cannot read the ELF header", EX_IOERR);
    uint64_t phoff = 0;
    for (int i = 0; i < 8; i++)
        phoff |= (uint64_t)eh[32 + i] << (8 * i);
    uint32_t phnum = eh[56] | eh[57] << 8, phent = eh[54] | eh[55] << 8;
    for (uint32_t i = 0; i < phnum; i++) {
        uint64_t vaddr = 0;

        if (fseek(f, (long)(phoff + (uint64_t)i * phent), SEEK_SET) ||
            fread(ph, 1, sizeof(ph), f) != sizeof(ph))
            return die(path, "cannot read a program header", EX_IOERR);
        for (int k = 0; k < 8; k++)
            vaddr |= (uint64_t)ph[16 + k] << (8 * k);
        for (int p = 0; p < o->npatches; p++) {
            if (ph[0] != 1 || o->patches[p].vaddr != vaddr)
                continue;
            le64(ph + 40, o->patches[p].memsz);
            if (fseek(f, (long)(phoff + (uint64_t)i * phent), SEEK_SET) ||
                fwrite(ph, 1, sizeof(ph), f) != sizeof(ph))
                return die(path, "cannot write a program header", EX_IOERR);
            found++;
        }
    }
    if (fclose(f) != 0 || found != o->npatches)
        return die(path, "not every sparse segment was found", EX_IOERR);
    return 0;
}

static void agent(gpucore_kfd_device_entry_t *a, uint32_t gpu_id, uint32_t gfx, uint32_t nxcc)
{
    memset(a, 0, sizeof(*a));
    a->gpu_id = gpu_id;
    a->vendor_id = 0x1002;
    a->device_id = 0x740f;
    a->gfx_target_version = gfx;
    a->simd_count = 416 * nxcc;
    a->max_waves_per_simd = 8;
    a->array_count = 8;
    a->simd_arrays_per_engine = 1;
    a->num_xcc = nxcc;
    a->capability = DEBUG_CAPS;
}

int main(int argc, char **argv)
{
    struct out o = { 0 };
    gpucore_amdgpu_note_t note = { 0 };
    gpucore_kfd_device_entry_t *agents;
    gpucore_kfd_queue_entry_t *queues;
    gpucore_diag_t d = { 0 };
    uint32_t nagents = 1, nqueues = 0, nxcc = 1;
    int compress = 0, ring = 0;
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: gpucore-mkhostile-image OUTPUT "
                        "cwsr-bomb|cwsr-bomb-xcc|sparse-ring|agents-queues [COUNT]\n");
        return EX_USAGE;
    }
    if (strcmp(argv[2], "cwsr-bomb") == 0) {
        nqueues = 8;
    } else if (strcmp(argv[2], "cwsr-bomb-xcc") == 0) {
        nqueues = 64;
        nxcc = 32;
    } else if (strcmp(argv[2], "sparse-ring") == 0) {
        nqueues = 1024;
        ring = 1;
    } else if (strcmp(argv[2], "agents-queues") == 0) {
        nagents = nqueues = 65536;
        compress = 1;
    } else {
        fprintf(stderr, "gpucore-mkhostile-image: unknown case '%s'\n", argv[2]);
        return EX_USAGE;
    }
    if (argc == 4) {
        char *end;
        unsigned long n = strtoul(argv[3], &end, 10);

        if (*end || n == 0 || n > 65536) {
            fprintf(stderr, "gpucore-mkhostile-image: COUNT must be 1..65536\n");
            return EX_USAGE;
        }
        nqueues = (uint32_t)n;
        if (nagents > 1)
            nagents = (uint32_t)n;
    }
    agents = calloc(nagents, sizeof(*agents));
    queues = calloc(nqueues, sizeof(*queues));
    if (!agents || !queues)
        return die(argv[2], "out of memory", EX_SOFTWARE);
    for (uint32_t i = 0; i < nagents; i++)
        agent(&agents[i], i + 1, ring ? GFX_UNKNOWN : GFX90A, nxcc);
    for (uint32_t i = 0; i < nqueues; i++) {
        gpucore_kfd_queue_entry_t *q = &queues[i];

        q->queue_id = i;
        q->gpu_id = nagents - (i % (nagents < 16 ? nagents : 16)); /* the last agents */
        q->queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
        q->ring_base_address = RING_BASE;
        q->ring_size = ring ? RING_SIZE : 4096;
        q->read_pointer_address = AMDQ_BASE + 128;
        q->write_pointer_address = AMDQ_BASE + 56;
        if (nagents > 1) {
            q->queue_type = GPUCORE_KFD_QUEUE_TYPE_SDMA;
            continue;
        }
        if (!ring) {
            q->ctx_save_restore_address = AREA_BASE;
            q->ctx_save_restore_area_size = AREA_SIZE;
        }
    }
    note.kfd_major = 1;
    note.kfd_minor = 16;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note.runtime.ttmp_setup = 1;
    note.agent_count = nagents;
    note.agents = agents;
    note.queue_count = nqueues;
    note.queues = queues;
    st = gpucore_amdgpu_note_encode(&note, &desc, &size, &d);
    if (st != GPUCORE_OK)
        return die("AMDGPU note", d.message, EX_SOFTWARE);
    st = gpucore_writer_open(argv[1],
                             GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE,
                                          .compress = (uint32_t)compress),
                             &o.w, &d);
    if (st != GPUCORE_OK)
        return die(argv[1], d.message, EX_CANTCREAT);
    st = gpucore_writer_add_note(o.w, GPUCORE_AMDGPU_NOTE_OWNER,
                                 GPUCORE_NT_AMDGPU_KFD_CORE_STATE, desc, size);
    gpucore_free(desc);
    if (st == GPUCORE_OK && nagents == 1 && !ring) {
        /* one header per XCC: control stack and wave area in zero fill */
        uint8_t h[40] = { 0 }; /* kfd_context_save_area_header */

        le32(h + 0, CTL_OFFSET);
        le32(h + 4, CTL_SIZE);
        le32(h + 8, CTL_OFFSET + CTL_SIZE + WAVE_SIZE);
        le32(h + 12, WAVE_SIZE);
        for (uint32_t x = 0; x < nxcc && st == GPUCORE_OK; x++)
            st = sparse(&o, AREA_BASE + (uint64_t)x * AREA_SIZE, h, sizeof(h), AREA_SIZE);
    }
    if (st == GPUCORE_OK && ring) {
        uint8_t aq[256] = { 0 }, pkt[64] = { 0 };

        le64(aq + 56, RING_SIZE / 64);
        st = gpucore_writer_add_segment(o.w, AMDQ_BASE, aq, sizeof(aq), NULL);
        if (st == GPUCORE_OK)
            st = sparse(&o, RING_BASE, pkt, sizeof(pkt), RING_SIZE);
    }
    if (st == GPUCORE_OK)
        st = gpucore_writer_finish(o.w, NULL, &d);
    else
        gpucore_writer_abort(o.w);
    free(agents);
    free(queues);
    if (st != GPUCORE_OK)
        return die(argv[1], d.message[0] ? d.message : "the writer refused", EX_SOFTWARE);
    return o.npatches ? patch_file(argv[1], &o) : 0;
}
