/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkhostile-image: write a small crafted core that once made the GPU image (`gpucore
 * analyze`, libgpucore-dbgapi) take memory or CPU far beyond its size.
 *
 *     gpucore-mkhostile-image OUTPUT CASE [COUNT]
 *
 * COUNT (optional) replaces the case's count (below): the fuzz corpora keep small versions of
 * these cores as seeds.
 *
 * CASE (COUNT, its default):
 *   cwsr-bomb      (queues, 8) AQL queues of a gfx90a whose save area claims a 1 MiB control
 *                  stack and a 255 MiB wave area; the file holds the 40-byte header, the rest
 *                  is zero fill (p_memsz past p_filesz). Was 2.15 GB of memory for a 9 KB core.
 *   cwsr-bomb-xcc  (queues, 64) the same with 32 XCCs per queue: 512 GiB asked by a core of a
 *                  few KB.
 *   sparse-ring    (queues, 1024) AQL queues of an unknown target sharing one 4 GiB ring of
 *                  zero fill, every slot active (read_dispatch_id 0, write_dispatch_id
 *                  2^26 - 1). Was 0.6 s of CPU per queue (10 minutes).
 *   agents-queues  (agents and queues, 65536) SDMA queues naming the last agents, compressed.
 *                  Was quadratic (51 s).
 *   ring-1m        (packets, 1 Mi) one AQL queue of a gfx90a whose ring holds COUNT identical
 *                  active kernel-dispatch packets (read_dispatch_id 0, write_dispatch_id
 *                  COUNT), their kernel descriptor in the core, no save area; compressed, 8 KB
 *                  for 1 Mi packets. Was 2.86 GB and 10 s through `gpucore analyze`.
 *   ring-symbols   (packets, 1 Mi) ring-1m, and a link map of 4096 nodes each loading the same
 *                  code object of 256 symbols at its own address; the packets' descriptor is
 *                  the last symbol of the last node, so looking a kernel name up symbol by
 *                  symbol walks a million symbols per dispatch.
 *   ring-waves     (waves, 64 Ki) a ring of 16 x COUNT packets as ring-1m's (1 Mi), and a save
 *                  area of COUNT running waves, each its own workgroup, at its own PC and on
 *                  its own dispatch (wave i on packet 16 i): the report's grouping and its
 *                  per-dispatch wave count were quadratic. A save area holds at most about
 *                  110,000 waves (the image reads 256 MiB of one); more are split over queues
 *                  of RING_QUEUE_WAVES waves, each with its own ring of 16 packets a wave.
 *                  `gpucore analyze waves` built every wave's JSON before printing any.
 *   deep-waves     (waves, 64 Ki) a ring of COUNT packets, a link map of one code object of
 *                  DEEP_FUNCS functions of 64 KiB of s_nop each (their code in the core), and
 *                  a save area of COUNT waves stopped by the trap handler, each at its own PC
 *                  near the end of a function (wave i in function i mod DEEP_FUNCS): an
 *                  instruction is found by decoding from its symbol's start, 16 Ki
 *                  instructions a wave.
 *   deep-hang      (waves, 64 Ki) deep-waves whose waves stand at DEEP_FUNCS PCs only, the
 *                  last instruction of each function: a hang's many waves at a few PCs,
 *                  whose instruction is found once per PC.
 *
 * The fuzz corpora of fuzz_image and fuzz_dbgapi hold small versions as seeds, written with
 * this program: hostile-ring-1m.bin (ring-1m 4096) and hostile-ring-waves.bin (ring-waves 16);
 * fuzz_triage_views's, hostile-deep-waves.bin (deep-waves 72) and hostile-deep-hang.bin
 * (deep-hang 72).
 *
 * Built with the public schema and libcore API (and arch/'s save-area encoder for ring-waves);
 * the zero fill is made by raising p_memsz of PT_LOADs in the written file (the writer itself
 * always writes p_memsz == p_filesz).
 * Exit status: 0 written; 64 usage; 70 a codec or the writer refused; 74 patching failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_util.h"
#include "wave.h"

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

/* The ring cases. */
#define PACKET_SIZE   64u
#define AQL_HEADER    0x1402u /* KERNEL_DISPATCH, system-scope acquire and release fences */
#define KD_BASE       0x400000000000ull
#define KD_SIZE       64u
#define KD_ENTRY      0x100u /* kernel_code_entry_byte_offset */
#define KERNARG_BASE  0x500000000000ull
#define RDEBUG_BASE   0x600000000000ull
#define NODE_SIZE     48u
#define URI_SLOT      128u
#define CO_IMAGE      0x610000000000ull /* the code object's ELF bytes (its memory:// range) */
#define CO_LOAD       0x620000000000ull /* node i loads it at CO_LOAD + i * CO_STRIDE */
#define CO_STRIDE     0x100000ull
#define CO_NODES      4096u /* GC_ROCR_LINK_MAP_MAX */
#define CO_FUNCS      128u  /* function symbols of the code object */
#define CO_KDS        128u  /* and kernel descriptors ("kNNNN.kd") */
#define CO_FUNC_BASE  0x100u /* st_value of function 0 */
#define CO_KD_VALUE   0x8000u /* st_value of descriptor k: CO_KD_VALUE + k * KD_SIZE */
#define CO_EXTENT     0x10000u
#define WAVE_AREA     0x700000000000ull
#define WAVE_PC       0x7f0000000000ull /* wave i at WAVE_PC + 4 i */
/* ring-waves: waves per queue (one save area each); queue k's ring, amd_queue_t and save area
   at k times RING_QUEUE_STRIDE above queue 0's */
#define RING_QUEUE_WAVES  (1u << 16)
#define RING_QUEUE_STRIDE 0x1000000000ull
#define RING_MAX_QUEUES   16u

/* deep-waves: the functions waves stop deep inside (GC_TR_DISASM_MAX_BACK, 64 KiB, is as far
   as the analyzer decodes from a symbol's start). */
#define DEEP_FUNCS     64u
#define DEEP_FUNC_SIZE 0x10000u
#define S_NOP          0xbf800000u /* gfx9 SOPP s_nop 0 */

struct patch {
    uint64_t vaddr, memsz;
};

struct out {
    gpucore_writer_t *w;
    struct patch patches[MAX_PATCH];
    int npatches;
};

struct kase;
typedef int (*build_fn)(const struct kase *k, const char *path, uint32_t count);

/* One case: its builder, COUNT's default and largest value, and the builder's parameters. */
struct kase {
    const char *name;
    build_fn build;
    uint32_t count, max_count;
    uint32_t nxcc;  /* queue cases: XCCs per queue */
    uint32_t flags; /* CASE_* */
};

#define CASE_SPARSE_RING  0x1u /* queue cases: the 4 GiB ring of zero fill, unknown target */
#define CASE_MANY_AGENTS  0x2u /* queue cases: as many agents as queues, SDMA, compressed */
#define CASE_SYMBOLS      0x4u /* ring cases: the link map of CO_NODES code objects */
#define CASE_WAVES        0x8u /* ring cases: COUNT is waves, 16 packets each in the ring */
#define CASE_DEEP         0x10u /* ring cases: waves stopped deep in a code object's functions */
#define CASE_FEW_PCS      0x20u /* ring cases: CASE_DEEP's waves at one PC per function */

static int die(const char *what, const char *msg, int code)
{
    fprintf(stderr, "gpucore-mkhostile-image: %s: %s\n", what, msg);
    return code;
}

static void le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
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

/* The note of @p nagents agents and @p nqueues queues, added to the writer. */
static gpucore_status_t add_note(gpucore_writer_t *w, gpucore_kfd_device_entry_t *agents,
                                 uint32_t nagents, gpucore_kfd_queue_entry_t *queues,
                                 uint32_t nqueues, uint64_t r_debug, gpucore_diag_t *d)
{
    gpucore_amdgpu_note_t note = { 0 };
    void *desc = NULL;
    size_t size = 0;
    gpucore_status_t st;

    note.kfd_major = 1;
    note.kfd_minor = 16;
    note.runtime.r_debug = r_debug;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note.runtime.ttmp_setup = 1;
    note.agent_count = nagents;
    note.agents = agents;
    note.queue_count = nqueues;
    note.queues = queues;
    st = gpucore_amdgpu_note_encode(&note, &desc, &size, d);
    if (st != GPUCORE_OK)
        return st;
    st = gpucore_writer_add_note(w, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE,
                                 desc, size);
    gpucore_free(desc);
    return st;
}

/* ---- the queue cases: cwsr-bomb, cwsr-bomb-xcc, sparse-ring, agents-queues ------------------ */

static int build_queues(const struct kase *k, const char *path, uint32_t count)
{
    struct out o = { 0 };
    gpucore_kfd_device_entry_t *agents;
    gpucore_kfd_queue_entry_t *queues;
    gpucore_diag_t d = { 0 };
    const int ring = !!(k->flags & CASE_SPARSE_RING);
    const uint32_t nqueues = count, nxcc = k->nxcc;
    const uint32_t nagents = k->flags & CASE_MANY_AGENTS ? count : 1;
    gpucore_status_t st;

    agents = calloc(nagents, sizeof(*agents));
    queues = calloc(nqueues, sizeof(*queues));
    if (!agents || !queues)
        return die(k->name, "out of memory", EX_SOFTWARE);
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
    st = gpucore_writer_open(path,
                             GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE,
                                          .compress = nagents > 1),
                             &o.w, &d);
    if (st != GPUCORE_OK)
        return die(path, d.message, EX_CANTCREAT);
    st = add_note(o.w, agents, nagents, queues, nqueues, 0, &d);
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
        return die(path, d.message[0] ? d.message : "the writer refused", EX_SOFTWARE);
    return o.npatches ? patch_file(path, &o) : 0;
}

/* ---- the ring cases: ring-1m, ring-symbols, ring-waves ---------------------------------------- */

/* The packet every slot holds: a one-dimensional dispatch of 1 Mi work-items in workgroups of
   256, its descriptor at @p kd. */
static void dispatch_packet(uint8_t *p, uint64_t kd)
{
    memset(p, 0, PACKET_SIZE);
    le16(p, AQL_HEADER);
    le16(p + 2, 1); /* setup: dimensions */
    le16(p + 4, 256);
    le16(p + 6, 1);
    le16(p + 8, 1);
    le32(p + 12, 1u << 20);
    le32(p + 16, 1);
    le32(p + 20, 1);
    le64(p + 32, kd);
    le64(p + 40, KERNARG_BASE);
}

/* The ring's bytes, streamed: every slot the same packet. */
static int64_t ring_read(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                         uint64_t *ret_bad_size)
{
    const uint8_t *pkt = user;

    (void)ret_errno;
    (void)ret_bad_size;
    for (uint64_t i = 0; i < size; i++)
        ((uint8_t *)buf)[i] = pkt[(addr - RING_BASE + i) % PACKET_SIZE];
    return (int64_t)size;
}

/* deep-waves' code, streamed: s_nop everywhere. */
static int64_t nop_read(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                        uint64_t *ret_bad_size)
{
    (void)user;
    (void)ret_errno;
    (void)ret_bad_size;
    for (uint64_t i = 0; i < size; i++)
        ((uint8_t *)buf)[i] = (uint8_t)(S_NOP >> (8 * ((addr + i) % 4)));
    return (int64_t)size;
}

/* What a code object holds: its functions, their size, its kernel descriptors, its extent. */
struct co_shape {
    uint32_t funcs, kds;
    uint64_t func_size, extent;
};
/* ring-symbols': CO_FUNCS small functions (0x100 + 16 i) and CO_KDS descriptors */
static const struct co_shape co_symbols = { CO_FUNCS, CO_KDS, 16, CO_EXTENT };
/* deep-waves': DEEP_FUNCS functions of DEEP_FUNC_SIZE, no descriptor */
static const struct co_shape co_deep = { DEEP_FUNCS, 0, DEEP_FUNC_SIZE,
                                         CO_FUNC_BASE + (uint64_t)DEEP_FUNCS * DEEP_FUNC_SIZE };

/* A small AMDGPU ELF64 code object of shape @p c: one PT_LOAD of c->extent bytes, a .symtab
   of c->funcs functions ("fNNNN", function i at 0x100 + i * c->func_size) and c->kds kernel
   descriptors ("kNNNN.kd"), .strtab, .shstrtab. */
static uint8_t *code_object(const struct co_shape *c, uint64_t *ret_size)
{
    enum { EH = 64, PH = 56, SH = 64, SYM = 24 };
    const uint32_t nsyms = 1 + c->funcs + c->kds;
    static const char shstr[] = "\0.symtab\0.strtab\0.shstrtab";
    char strtab[(CO_FUNCS + CO_KDS) * 12 + 1];
    size_t strsz = 1;
    uint64_t symoff = EH + PH, stroff, shstroff, shoff, size;
    uint8_t *e;

    if (c->funcs + c->kds > CO_FUNCS + CO_KDS)
        return NULL;
    strtab[0] = '\0';
    stroff = symoff + (uint64_t)nsyms * SYM;
    for (uint32_t i = 0; i < c->funcs + c->kds; i++)
        strsz += (size_t)snprintf(strtab + strsz, sizeof(strtab) - strsz,
                                  i < c->funcs ? "f%04u" : "k%04u.kd",
                                  i < c->funcs ? i : i - c->funcs) +
                 1;
    shstroff = stroff + strsz;
    shoff = (shstroff + sizeof(shstr) + 7) & ~7ull;
    size = shoff + 4 * SH;
    e = calloc(1, (size_t)size);
    if (!e)
        return NULL;
    memcpy(e, "\177ELF\2\1\1", 7);
    e[7] = 64; /* ELFOSABI_AMDGPU_HSA */
    le16(e + 16, 3); /* ET_DYN */
    le16(e + 18, 224); /* EM_AMDGPU */
    le32(e + 20, 1);
    le64(e + 32, EH); /* e_phoff */
    le64(e + 40, shoff);
    le16(e + 52, EH);
    le16(e + 54, PH);
    le16(e + 56, 1);
    le16(e + 58, SH);
    le16(e + 60, 4);
    le16(e + 62, 3); /* .shstrtab */
    le32(e + EH, 1); /* PT_LOAD, R+X, [0, c->extent) */
    le32(e + EH + 4, 5);
    le64(e + EH + 40, c->extent);
    for (uint32_t i = 1, name = 1; i < nsyms; i++) {
        uint8_t *s = e + symoff + (uint64_t)i * SYM;
        int func = i <= c->funcs;

        le32(s, name);
        name += (uint32_t)strlen(strtab + name) + 1;
        s[4] = func ? 0x12 : 0x11; /* GLOBAL FUNC / GLOBAL OBJECT */
        le16(s + 6, 1);            /* a defined section */
        le64(s + 8, func ? CO_FUNC_BASE + (i - 1) * c->func_size
                         : CO_KD_VALUE + (i - 1 - c->funcs) * KD_SIZE);
        le64(s + 16, func ? c->func_size : KD_SIZE);
    }
    memcpy(e + stroff, strtab, strsz);
    memcpy(e + shstroff, shstr, sizeof(shstr));
    /* section headers: null, .symtab, .strtab, .shstrtab */
    uint8_t *sh = e + shoff + SH;
    le32(sh, 1);
    le32(sh + 4, 2); /* SHT_SYMTAB */
    le64(sh + 24, symoff);
    le64(sh + 32, (uint64_t)nsyms * SYM);
    le32(sh + 40, 2); /* sh_link: .strtab */
    le32(sh + 44, 1); /* sh_info: first global */
    le64(sh + 48, 8);
    le64(sh + 56, SYM);
    sh += SH;
    le32(sh, 9);
    le32(sh + 4, 3); /* SHT_STRTAB */
    le64(sh + 24, stroff);
    le64(sh + 32, strsz);
    le64(sh + 48, 1);
    sh += SH;
    le32(sh, 17);
    le32(sh + 4, 3);
    le64(sh + 24, shstroff);
    le64(sh + 32, sizeof(shstr));
    le64(sh + 48, 1);
    *ret_size = size;
    return e;
}

/* r_debug (r_version 10, consistent), @p nnodes link-map nodes, each loading the code object
   of @p co_size bytes at CO_IMAGE at its own address (node i at CO_LOAD + i * CO_STRIDE), and
   their URIs. */
static gpucore_status_t add_link_map(gpucore_writer_t *w, uint32_t nnodes, uint64_t co_size)
{
    const uint64_t nodes = RDEBUG_BASE + 64, uris = nodes + (uint64_t)nnodes * NODE_SIZE;
    const uint64_t size = 64 + (uint64_t)nnodes * (NODE_SIZE + URI_SLOT);
    uint8_t *seg = calloc(1, (size_t)size);
    char uri[URI_SLOT];
    gpucore_status_t st;

    if (!seg)
        return GPUCORE_E_NOMEM;
    snprintf(uri, sizeof(uri), "memory://4242#offset=0x%llx&size=%llu",
             (unsigned long long)CO_IMAGE, (unsigned long long)co_size);
    seg[0] = 10;
    le64(seg + 8, nodes);
    for (uint32_t i = 0; i < nnodes; i++) {
        uint8_t *node = seg + 64 + (uint64_t)i * NODE_SIZE;
        uint64_t at = uris + (uint64_t)i * URI_SLOT;

        le64(node, CO_LOAD + (uint64_t)i * CO_STRIDE); /* l_addr */
        le64(node + 8, at);                            /* l_name */
        le64(node + 24, i + 1 < nnodes ? nodes + (uint64_t)(i + 1) * NODE_SIZE : 0);
        le64(node + 32, i ? nodes + (uint64_t)(i - 1) * NODE_SIZE : 0);
        memcpy(seg + (at - RDEBUG_BASE), uri, strlen(uri) + 1);
    }
    st = gpucore_writer_add_segment(w, RDEBUG_BASE, seg, size, NULL);
    free(seg);
    return st;
}

static void set_slot(const struct gc_arch *arch, uint32_t *hwreg, const char *name, uint32_t v)
{
    int slot = gc_hwreg_slot(arch->hwreg, name);

    if (slot >= 0)
        hwreg[slot] = v;
}

static void ttmp_put(uint32_t *ttmp, struct gc_ttmp_field f, uint32_t v)
{
    if (gc_bf_present(f.bits) && f.ttmp < 16)
        ttmp[f.ttmp] = gc_bf_put(ttmp[f.ttmp], f.bits, v);
}

static void set_hwev(const struct gc_arch *arch, uint32_t *hwreg, enum gc_hwev ev)
{
    struct gc_hwreg_bit b;

    if (gc_hwev_bit(arch->hwreg, ev, &b) && b.slot < GC_HWREG_SLOTS)
        hwreg[b.slot] |= 1u << b.bit;
}

/* Where image-wide wave @p i stands: ring-waves' WAVE_PC + 4 i, or deep-waves' 4 (1 + i /
   DEEP_FUNCS) bytes before the end of function i mod DEEP_FUNCS (at least 32 KiB into it),
   deep-hang's 4 bytes before it. */
static uint64_t wave_pc(const struct kase *k, uint32_t i)
{
    uint32_t f = i % DEEP_FUNCS, back = 4u * (1u + (i / DEEP_FUNCS) % (DEEP_FUNC_SIZE / 8u));

    if (!(k->flags & CASE_DEEP))
        return WAVE_PC + 4ull * i;
    if (k->flags & CASE_FEW_PCS)
        back = 4;
    return CO_LOAD + CO_FUNC_BASE + (uint64_t)(f + 1) * DEEP_FUNC_SIZE - back;
}

/*
 * The save area of @p nwaves waves, image-wide waves @p first.., each its own workgroup, at
 * wave_pc(), running the dispatch in ring slot i * (@p packets / nwaves) of its queue; stopped
 * by the trap handler for deep-waves (as it leaves a wave it halts, with ROCr's debug ABI 10:
 * ttmp6's stopped bit, status.halt and skip_export, the PC parked in the TTMPs), else running.
 * *ret_size: its bytes, which the queue's ctx_save_restore_area_size covers.
 */
static gpucore_status_t save_area(const struct kase *k, uint32_t first, uint32_t nwaves,
                                  uint32_t packets, uint8_t **ret, size_t *ret_size,
                                  gpucore_diag_t *d)
{
    const struct gc_arch *arch = gc_arch_by_gfx_version(GFX90A);
    struct gc_wave_spec *specs = calloc(nwaves, sizeof(*specs));
    const uint32_t ctl = ((64u + 8u * nwaves + 64u) + 4095u) & ~4095u;
    gpucore_status_t st;

    if (!arch || !specs) {
        free(specs);
        return GPUCORE_E_NOMEM;
    }
    for (uint32_t i = 0; i < nwaves; i++) {
        struct gc_wave_spec *s = &specs[i];
        uint64_t pc = wave_pc(k, first + i);

        s->vgprs = 4;
        s->accvgprs = 4;
        s->first_wave = s->last_wave = 1;
        set_slot(arch, s->hwreg, "pc_lo", (uint32_t)pc);
        set_slot(arch, s->hwreg, "pc_hi", (uint32_t)(pc >> 32));
        set_slot(arch, s->hwreg, "exec_lo", UINT32_MAX);
        set_slot(arch, s->hwreg, "exec_hi", UINT32_MAX);
        s->ttmp[arch->ttmp->dispatch_index.ttmp] =
                gc_bf_put(0, arch->ttmp->dispatch_index.bits,
                          (uint32_t)((uint64_t)i * (packets / nwaves)));
        if (k->flags & CASE_DEEP) {
            ttmp_put(s->ttmp, arch->ttmp->stopped, 1);
            set_hwev(arch, s->hwreg, GC_HWEV_HALT);
            set_hwev(arch, s->hwreg, GC_HWEV_SKIP_EXPORT);
            ttmp_put(s->ttmp, arch->ttmp->parked_pc_lo, (uint32_t)pc);
            ttmp_put(s->ttmp, arch->ttmp->parked_pc_hi, (uint32_t)(pc >> 32));
        }
    }
    st = gc_cwsr_encode(arch, specs, nwaves, ctl, NULL, ret, ret_size, NULL, d);
    free(specs);
    return st;
}

/* One queue of a ring case: its place (queue q at q * RING_QUEUE_STRIDE above queue 0's), its
   waves (image-wide first..first + nwaves) and its packets. */
struct ring_queue {
    uint64_t shift;
    uint32_t first, nwaves, packets;
};

/* The queues of a ring case of @p count (packets, or waves with CASE_WAVES) into @p rq (at most
   RING_MAX_QUEUES); how many. */
static uint32_t ring_queues(const struct kase *k, uint32_t count, struct ring_queue *rq)
{
    uint32_t n = 0;

    if (!(k->flags & CASE_WAVES)) {
        rq[0] = (struct ring_queue){ 0, 0, 0, count };
        return 1;
    }
    for (uint32_t first = 0; first < count && n < RING_MAX_QUEUES; n++) {
        uint32_t w = count - first < RING_QUEUE_WAVES ? count - first : RING_QUEUE_WAVES;

        rq[n] = (struct ring_queue){ n * RING_QUEUE_STRIDE, first, w,
                                     k->flags & CASE_DEEP ? w : 16u * w };
        first += w;
    }
    return n;
}

/* The bytes of queue @p r's save area (encoded and freed: only the size is kept). */
static gpucore_status_t area_size(const struct kase *k, const struct ring_queue *r, uint32_t *ret,
                                  gpucore_diag_t *d)
{
    uint8_t *area = NULL;
    size_t size = 0;
    gpucore_status_t st = save_area(k, r->first, r->nwaves, r->packets, &area, &size, d);

    gc_free(area);
    *ret = (uint32_t)((size + 4095) & ~(size_t)4095);
    return st;
}

/* The segments of ring case @p k's queues and code, in the writer: each queue's amd_queue_t
   and ring, the kernel descriptor, the link map and its code object, deep-waves' code, then
   each queue's save area, encoded one at a time. */
static gpucore_status_t ring_segments(const struct kase *k, gpucore_writer_t *w,
                                      const struct ring_queue *rq, uint32_t nq, uint64_t kd,
                                      const uint8_t *co, uint64_t co_size, gpucore_diag_t *d)
{
    uint8_t aq[256] = { 0 }, pkt[PACKET_SIZE], desc[KD_SIZE] = { 0 };
    gpucore_status_t st = GPUCORE_OK;

    dispatch_packet(pkt, kd);
    le64(desc + 16, KD_ENTRY);
    for (uint32_t q = 0; q < nq && st == GPUCORE_OK; q++) {
        le64(aq + 56, rq[q].packets); /* write_dispatch_id; read_dispatch_id 0 */
        st = gpucore_writer_add_segment(w, AMDQ_BASE + rq[q].shift, aq, sizeof(aq), NULL);
        if (st == GPUCORE_OK)
            st = gpucore_writer_add_segment_fn(w, RING_BASE + rq[q].shift,
                                               (uint64_t)rq[q].packets * PACKET_SIZE, NULL,
                                               ring_read, pkt);
    }
    if (st == GPUCORE_OK)
        st = gpucore_writer_add_segment(w, kd, desc, sizeof(desc), NULL);
    if (st == GPUCORE_OK && co)
        st = add_link_map(w, k->flags & CASE_DEEP ? 1 : CO_NODES, co_size);
    if (st == GPUCORE_OK && co)
        st = gpucore_writer_add_segment(w, CO_IMAGE, co, co_size, NULL);
    if (st == GPUCORE_OK && (k->flags & CASE_DEEP))
        st = gpucore_writer_add_segment_fn(w, CO_LOAD, co_deep.extent, NULL, nop_read, NULL);
    for (uint32_t q = 0; q < nq && st == GPUCORE_OK && rq[q].nwaves; q++) {
        uint8_t *area = NULL;
        size_t size = 0;

        st = save_area(k, rq[q].first, rq[q].nwaves, rq[q].packets, &area, &size, d);
        if (st == GPUCORE_OK)
            st = gpucore_writer_add_segment(w, WAVE_AREA + rq[q].shift, area, size, NULL);
        gc_free(area);
    }
    return st;
}

static int build_ring(const struct kase *k, const char *path, uint32_t count)
{
    const uint64_t kd = k->flags & CASE_SYMBOLS ? CO_LOAD + (uint64_t)(CO_NODES - 1) * CO_STRIDE +
                                                          CO_KD_VALUE + (CO_KDS - 1) * KD_SIZE
                                                : KD_BASE;
    const struct co_shape *shape = k->flags & CASE_SYMBOLS ? &co_symbols
                                   : k->flags & CASE_DEEP  ? &co_deep
                                                           : NULL;
    struct ring_queue rq[RING_MAX_QUEUES];
    const uint32_t nq = ring_queues(k, count, rq);
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t q[RING_MAX_QUEUES] = { 0 };
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d = { 0 };
    uint8_t *co = NULL;
    uint64_t co_size = 0;
    gpucore_status_t st = GPUCORE_OK;

    agent(&dev, 1, GFX90A, 1);
    for (uint32_t i = 0; i < nq && st == GPUCORE_OK; i++) {
        q[i].queue_id = i;
        q[i].gpu_id = 1;
        q[i].queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
        q[i].ring_base_address = RING_BASE + rq[i].shift;
        q[i].ring_size = rq[i].packets * PACKET_SIZE;
        q[i].read_pointer_address = AMDQ_BASE + rq[i].shift + 128;
        q[i].write_pointer_address = AMDQ_BASE + rq[i].shift + 56;
        if (rq[i].nwaves) {
            q[i].ctx_save_restore_address = WAVE_AREA + rq[i].shift;
            st = area_size(k, &rq[i], &q[i].ctx_save_restore_area_size, &d);
        }
    }
    if (st != GPUCORE_OK)
        return die("save area", d.message[0] ? d.message : "out of memory", EX_SOFTWARE);
    if (shape) {
        co = code_object(shape, &co_size);
        if (!co)
            return die("code object", "out of memory", EX_SOFTWARE);
    }
    st = gpucore_writer_open(path,
                             GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE,
                                          .compress = 1),
                             &w, &d);
    if (st != GPUCORE_OK) {
        free(co);
        return die(path, d.message, EX_CANTCREAT);
    }
    st = add_note(w, &dev, 1, q, nq, co ? RDEBUG_BASE : 0, &d);
    if (st == GPUCORE_OK)
        st = ring_segments(k, w, rq, nq, kd, co, co_size, &d);
    if (st == GPUCORE_OK)
        st = gpucore_writer_finish(w, NULL, &d);
    else
        gpucore_writer_abort(w);
    free(co);
    if (st != GPUCORE_OK)
        return die(path, d.message[0] ? d.message : "the writer refused", EX_SOFTWARE);
    return 0;
}

static const struct kase cases[] = {
    { "cwsr-bomb", build_queues, 8, 65536, 1, 0 },
    { "cwsr-bomb-xcc", build_queues, 64, 65536, 32, 0 },
    { "sparse-ring", build_queues, 1024, 65536, 1, CASE_SPARSE_RING },
    { "agents-queues", build_queues, 65536, 65536, 1, CASE_MANY_AGENTS },
    /* at most GC_IMAGE_MAX_RING_SLOTS packets (all queues); 2^18 waves: 4 queues of 2^16, 144
       MiB of save area each, 2^20 packets each */
    { "ring-1m", build_ring, 1u << 20, 1u << 22, 1, 0 },
    { "ring-symbols", build_ring, 1u << 20, 1u << 22, 1, CASE_SYMBOLS },
    { "ring-waves", build_ring, 1u << 16, 1u << 18, 1, CASE_WAVES },
    /* one save area */
    { "deep-waves", build_ring, 1u << 16, 1u << 16, 1, CASE_WAVES | CASE_DEEP },
    { "deep-hang", build_ring, 1u << 16, 1u << 16, 1, CASE_WAVES | CASE_DEEP | CASE_FEW_PCS },
};

int main(int argc, char **argv)
{
    const struct kase *k = NULL;
    uint32_t count;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: gpucore-mkhostile-image OUTPUT CASE [COUNT]; CASE:");
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            fprintf(stderr, " %s", cases[i].name);
        fputc('\n', stderr);
        return EX_USAGE;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !k; i++)
        if (strcmp(argv[2], cases[i].name) == 0)
            k = &cases[i];
    if (!k) {
        fprintf(stderr, "gpucore-mkhostile-image: unknown case '%s'\n", argv[2]);
        return EX_USAGE;
    }
    count = k->count;
    if (argc == 4) {
        char *end;
        unsigned long n = strtoul(argv[3], &end, 10);

        if (*end || n == 0 || n > k->max_count) {
            fprintf(stderr, "gpucore-mkhostile-image: %s: COUNT must be 1..%u\n", k->name,
                    k->max_count);
            return EX_USAGE;
        }
        count = (uint32_t)n;
    }
    return k->build(k, argv[1], count);
}
