/* SPDX-License-Identifier: MIT */
/*
 * gpucore-mkexample: write a deterministic example core of a faulting GPU process.
 *
 *     gpucore-mkexample [--compress[=LEVEL]] [--split] OUTPUT
 *
 * Until real capture exists, this is what the README demo and the interop tests feed to
 * `gpucore info`, readelf, gdb and zstd. It uses only the public schema and libcore API, so it
 * also shows how a producer drives the writer.
 *
 * The process it describes: `vadd --size 1024` (pid 4242) on one MI210 (gfx90a), one AQL queue,
 * one kernel dispatch in flight whose third argument points at freed memory. The contents
 * follow docs/core-format.md (AMDGPU note §2-§6, memory §8) and docs/cwsr-layout.md (§2-§3):
 * every pointer in the note and in the captured structures leads to bytes that are in the core,
 * with the layouts AMD's debugger library reads. The CWSR control stack is empty (no wave records
 * yet; wave encoding comes with arch/), with header offsets consistent with that.
 *
 * Output is byte-identical across runs and hosts: no clock, no environment, no host-dependent
 * field (the unified core's e_machine is pinned to x86-64 because the host notes are x86-64
 * ones). The interop tests check this by writing twice and comparing.
 *
 * Exit status: 0 written; 64 usage; 73 the output cannot be created or written; 70 internal
 * error (a codec or the writer refused what this program built).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

static const char prog[] = "gpucore-mkexample";

/* ============================================================================================ */
/* The example process                                                                          */
/* ============================================================================================ */

#define EX_PID  4242u
#define EX_PPID 4200u /* the login shell */
#define EX_UID  1000u
/* 2026-01-01T00:00:00Z: a fixed capture time keeps the output reproducible. */
#define EX_TIME_NS (1767225600ull * 1000000000ull)

#define KFD_MAJOR 1u
#define KFD_MINOR 16u /* what ROCdbgapi 0.77 records (docs/core-format.md §3.1) */

/* ELF constants this file needs; <elf.h> would do, but EM_AMDGPU is missing from older glibc. */
#define EM_X86_64_ 62u
#define EM_AMDGPU_ 224u
#define PF_X_      1u
#define PF_W_      2u
#define PF_R_      4u

/* --- the agent: an MI210 as KFD reports it ------------------------------------------------- */

#define GPU_ID                 0xc4f1u /* KFD gpu_id: a hash of the device, stable per boot */
#define GFX_TARGET             90010u  /* gfx90a */
#define SIMD_COUNT             416u    /* 104 CUs x 4 SIMDs */
#define SIMD_PER_CU            4u      /* gfx9; a node property, not in the note */
#define MAX_WAVES_PER_SIMD     8u
#define ARRAY_COUNT            8u /* shader arrays, per XCC */
#define SIMD_ARRAYS_PER_ENGINE 1u
#define NUM_XCC                1u
#define LDS_APERTURE           0x1000000000000ull /* KFD's gfx9 LDS aperture: bits 63:48 = 1 */
#define SCRATCH_APERTURE       0x2000000000000ull /* and scratch: bits 63:48 = 2 */
/* KFD's aperture limit: the base's upper half with the low 32 bits all ones. */
#define APERTURE_LIMIT(base) (((base)&0xffffffff00000000ull) | 0xffffffffull)
/* SVM_USER_BASE: the low 16 MiB stay reserved for the kernel (trap handler, IBs). */
#define GPUVM_BASE  0x1000000ull
#define GPUVM_LIMIT 0x7fffffffffffull /* 48-bit GPU VA on gfx9 */
/* kfd_topology_set_capabilities for GC 9.x: watch address mask low bit 6, high bit 29. */
#define DEBUG_PROP_GFX9 (6u | (29u << 4))

/* --- the address map ------------------------------------------------------------------------ *
 * GPU allocations (ROCr places them in its SVM reservation just below the libraries) come
 * first, host memory after. All page aligned except objects inside an allocation.           */

#define SCRATCH_BASE      0x7f39e0000000ull
#define CWSR_BASE         0x7f39f0000000ull
#define DEVBUF_BASE       0x7f39f4a00000ull /* the vadd inputs a and b, 4 KiB each */
#define DEVBUF_SIZE       0x2000u
#define CODE_BASE         0x7f39f4c00000ull /* the loaded code object (l_addr) */
#define CODE_ALLOC_SIZE   0x1000u
#define FREED_BUFFER      0x7f39f5000000ull      /* `c`: hipFree'd before the launch -> the fault */
#define HEAP_LINK_MAP     0x7f3a180012a0ull      /* ROCr's link_map node, in a malloc arena */
#define HEAP_URI          (HEAP_LINK_MAP + 0x30) /* its URI string: the next malloc chunk */
#define CO_BLOB           0x7f3a18022000ull      /* the code object image the URI names */
#define RDEBUG            0x7f3a1c6f3a60ull      /* _amdgpu_r_debug in libhsa-runtime64.so .data */
#define LOADER_BRK        0x7f3a1c2a5b10ull      /* _loader_debug_state, ROCr's r_brk */
#define RING_BASE         0x7f3a1d600000ull
#define RING_SIZE         4096u /* 64 AQL packets */
#define AMD_QUEUE         0x7f3a1d700000ull
#define KERNARG_POOL      0x7f3a1d800000ull
#define KERNARG_POOL_SIZE 0x10000u
#define SIGNALS           0x7f3a1d900000ull /* amd_signal_t objects (not captured) */
#define DOORBELLS         0x7f3a1e000000ull /* the /dev/kfd doorbell mapping: never readable */
#define DOORBELLS_SIZE    0x2000u

#define QUEUE_ID               0u
#define AMD_QUEUE_SIZE         256u
#define AMD_QUEUE_WRITE_ID_OFF 56u /* docs/core-format.md §8.5 */
#define AMD_QUEUE_READ_ID_OFF  128u

/* The dispatch: vadd<<<4, 256>>>(a, b, c, 1024). */
#define WG_SIZE              256u
#define GRID_SIZE            1024u
#define PRIVATE_SEGMENT_SIZE 64u  /* bytes per work-item (spills) */
#define KERNARG_SIZE         288u /* 32 bytes of explicit arguments + 256 of hidden ones (v5) */

/* Code object layout (the fake ELF and its loaded copy are the same bytes). */
#define CO_SIZE     768u
#define CO_KD_OFF   0x100u /* kernel descriptor `vadd.kd` */
#define CO_TEXT_OFF 0x200u /* kernel entry */

/* Scratch: 64 bytes per lane x 64 lanes = one 4 KiB slot per wave; room for 8 waves per CU. */
#define SCRATCH_WAVE_SLOT (PRIVATE_SEGMENT_SIZE * 64u)
#define SCRATCH_WAVES     (SIMD_COUNT / SIMD_PER_CU * 8u)
#define SCRATCH_SIZE      ((uint64_t)SCRATCH_WAVE_SLOT * SCRATCH_WAVES)

/* ============================================================================================ */
/* Little-endian byte buffers                                                                   */
/* ============================================================================================ */

/*
 * A buffer being filled field by field. Writes past the end set `bad` instead of corrupting
 * memory; main() checks it once, so a layout mistake becomes exit 70, not a silent bad core.
 */
struct buf {
    uint8_t *p;
    size_t size;
    int bad;
};

static void put(struct buf *b, size_t off, uint64_t v, unsigned n)
{
    if (off > b->size || b->size - off < n) {
        b->bad = 1;
        return;
    }
    for (unsigned i = 0; i < n; i++)
        b->p[off + i] = (uint8_t)(v >> (8 * i));
}

static void put8(struct buf *b, size_t off, uint8_t v)
{
    put(b, off, v, 1);
}

static void put16(struct buf *b, size_t off, uint16_t v)
{
    put(b, off, v, 2);
}

static void put32(struct buf *b, size_t off, uint32_t v)
{
    put(b, off, v, 4);
}

static void put64(struct buf *b, size_t off, uint64_t v)
{
    put(b, off, v, 8);
}

static void put_bytes(struct buf *b, size_t off, const void *src, size_t n)
{
    if (off > b->size || b->size - off < n) {
        b->bad = 1;
        return;
    }
    memcpy(b->p + off, src, n);
}

/* IEEE-754 binary32 bits of a small integer-valued float, without relying on host floats. */
static uint32_t f32_bits(uint32_t v)
{
    if (v == 0)
        return 0;
    unsigned exp = 31;
    while (!(v & (1u << exp)))
        exp--;
    /* Values here are < 2^24, so the mantissa is exact. */
    uint32_t mant = (v << (23 - exp)) & 0x7fffffu;
    return ((127u + exp) << 23) | mant;
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
    return v & ~(a - 1);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* ============================================================================================ */
/* CWSR sizes (docs/cwsr-layout.md §2, gfx9 branch; inputs are this agent's node properties)      */
/* ============================================================================================ */

struct cwsr_sizes {
    uint64_t ctl_stack_size;
    uint64_t wg_data_size;
    uint64_t cwsr_size; /* ctx_save_restore_area_size, per XCC */
    uint64_t debug_memory_size;
    uint64_t total; /* the whole allocation, all XCCs plus the debugger area */
};

static struct cwsr_sizes cwsr_sizes_gfx90a(void)
{
    /* Per-CU save sizes; VGPR is 0x80000 on gfx90a because AccVGPRs are saved too. */
    const uint64_t sgpr = 0x4000, lds = 0x10000, hwreg = 0x1000, vgpr = 0x80000;
    const uint64_t page = 4096;
    uint64_t cu_num = SIMD_COUNT / SIMD_PER_CU / NUM_XCC;
    uint64_t wave_num = cu_num * 40;
    uint64_t wave_cap = (uint64_t)ARRAY_COUNT / SIMD_ARRAYS_PER_ENGINE * 512;
    struct cwsr_sizes s;

    if (wave_num > wave_cap) /* gfx < 10.1: limited by the shader arrays */
        wave_num = wave_cap;
    s.wg_data_size = align_up(cu_num * (sgpr + lds + hwreg + vgpr), page);
    s.ctl_stack_size = align_up(40 + wave_num * 8 + 8, page); /* 8 bytes per wave on gfx9 */
    s.cwsr_size = s.ctl_stack_size + s.wg_data_size;
    s.debug_memory_size = align_up(wave_num * 32, 64);
    s.total = align_up((s.cwsr_size + s.debug_memory_size) * NUM_XCC, page);
    return s;
}

/* ============================================================================================ */
/* Memory contents                                                                              */
/* ============================================================================================ */

#define URI_MAX 96

struct image {
    struct cwsr_sizes cwsr;
    char uri[URI_MAX];
    uint8_t rdebug[128]; /* two cache lines around _amdgpu_r_debug */
    uint8_t heap[192];   /* three lines: link_map node and URI string */
    uint8_t co[CO_SIZE]; /* the code object, both the host image and the loaded copy */
    uint8_t ring[RING_SIZE];
    uint8_t amd_queue[AMD_QUEUE_SIZE];
    uint8_t kernarg[(KERNARG_SIZE + 63) & ~63u];
    uint8_t cwsr_header[64]; /* the header's cache line */
    uint8_t scratch[SCRATCH_WAVE_SLOT];
    uint8_t devbuf[DEVBUF_SIZE];
    int bad;
};

static uint64_t rdebug_line(void)
{
    return align_down(RDEBUG, 64);
}

static uint64_t heap_line(void)
{
    return align_down(HEAP_LINK_MAP - 16, 64); /* include the malloc chunk header */
}

#define BUF(arr)              \
    {                         \
        (arr), sizeof(arr), 0 \
    }

static void fill_r_debug(struct image *im)
{
    struct buf b = BUF(im->rdebug);
    size_t o = (size_t)(RDEBUG - rdebug_line());

    /* glibc x86-64 struct r_debug (docs/core-format.md §8.3). */
    put32(&b, o + 0, 10);            /* r_version: ROCr's, accepted by ROCdbgapi 0.77 (8-10) */
    put64(&b, o + 8, HEAP_LINK_MAP); /* r_map */
    put64(&b, o + 16, LOADER_BRK);   /* r_brk */
    put32(&b, o + 24, 0);            /* r_state: RT_CONSISTENT, else the list is ignored */
    put64(&b, o + 32, 0);            /* r_ldbase: ROCr leaves it 0 */
    im->bad |= b.bad;
}

static void fill_heap(struct image *im)
{
    struct buf b = BUF(im->heap);
    size_t node = (size_t)(HEAP_LINK_MAP - heap_line());
    size_t uri = (size_t)(HEAP_URI - heap_line());
    size_t uri_len = strlen(im->uri);

    /* glibc malloc chunk sizes (| PREV_INUSE) in front of each object, as in a real arena:
     * 40 bytes of link_map make a 0x30 chunk, so the URI's chunk follows 0x30 further on. */
    put64(&b, node - 8, 0x30 | 1);
    put64(&b, uri - 8, align_up(uri_len + 1 + 8, 16) | 1);

    /* link_map node (docs/core-format.md §8.3). */
    put64(&b, node + 0, CODE_BASE); /* l_addr: where the loader placed the code object */
    put64(&b, node + 8, HEAP_URI);  /* l_name */
    put64(&b, node + 16, 0);        /* l_ld: the fake code object has no dynamic section */
    put64(&b, node + 24, 0);        /* l_next: the only code object */
    put64(&b, node + 32, 0);        /* l_prev */
    put_bytes(&b, uri, im->uri, uri_len + 1);
    im->bad |= b.bad;
}

/*
 * The kernel's machine code, gfx90a encodings (as llvm-mc -mcpu=gfx90a assembles them). User
 * SGPRs follow the descriptor: s[0:3] private segment buffer, s[4:5] kernarg pointer, s[6:7]
 * flat scratch init, then s8 workgroup id x. The store through `c` is the faulting instruction.
 */
static const uint32_t vadd_text[] = {
    0xc00a0302, 0x00000000, /* s_load_dwordx4 s[12:15], s[4:5], 0x0   ; a, b */
    0xc0060402, 0x00000010, /* s_load_dwordx2 s[16:17], s[4:5], 0x10  ; c */
    0x8e088808,             /* s_lshl_b32 s8, s8, 8                   ; group * 256 */
    0x68000008,             /* v_add_u32_e32 v0, s8, v0               ; global id */
    0x24020082,             /* v_lshlrev_b32_e32 v1, 2, v0            ; byte offset */
    0xbf8cc07f,             /* s_waitcnt lgkmcnt(0) */
    0xdc508000, 0x020c0001, /* global_load_dword v2, v1, s[12:13] */
    0xdc508000, 0x030e0001, /* global_load_dword v3, v1, s[14:15] */
    0xbf8c0f70,             /* s_waitcnt vmcnt(0) */
    0x02040702,             /* v_add_f32_e32 v2, v2, v3 */
    0xdc708000, 0x00100201, /* global_store_dword v1, v2, s[16:17]   ; faults */
    0xbf810000,             /* s_endpgm */
};

static void fill_kernel_descriptor(struct buf *b, size_t kd)
{
    /* AMDGPUUsage kernel descriptor (64 bytes; docs/core-format.md §8.4 uses offset 16). */
    put32(b, kd + 0, 0);                        /* group_segment_fixed_size */
    put32(b, kd + 4, PRIVATE_SEGMENT_SIZE);     /* private_segment_fixed_size */
    put32(b, kd + 8, KERNARG_SIZE);             /* kernarg_size */
    put64(b, kd + 16, CO_TEXT_OFF - CO_KD_OFF); /* kernel_code_entry_byte_offset (signed) */
    put32(b, kd + 44, 0); /* compute_pgm_rsrc3: accum_offset 0 -> 4 arch VGPRs */
    /*
     * compute_pgm_rsrc1: VGPR granule 0 (8 VGPRs), SGPR granule 2, denormals kept for
     * f16/f64, DX10 clamp and IEEE mode on: what the compiler emits for such a kernel.
     */
    put32(b, kd + 48, (2u << 6) | (3u << 18) | (1u << 21) | (1u << 23));
    /* compute_pgm_rsrc2: private segment on, 8 user SGPRs, workgroup id x on. */
    put32(b, kd + 52, 1u | (8u << 1) | (1u << 7));
    /* kernel_code_properties: private segment buffer, kernarg pointer, flat scratch init. */
    put16(b, kd + 56, 0x1u | 0x8u | 0x20u);
}

static void fill_code_object(struct image *im)
{
    struct buf b = BUF(im->co);

    /* ELF64 header of an HSA code object, ABI version 3 (code object v5). */
    put_bytes(&b, 0,
              "\x7f"
              "ELF",
              4);
    put8(&b, 4, 2);   /* ELFCLASS64 */
    put8(&b, 5, 1);   /* ELFDATA2LSB */
    put8(&b, 6, 1);   /* EV_CURRENT */
    put8(&b, 7, 64);  /* ELFOSABI_AMDGPU_HSA */
    put8(&b, 8, 3);   /* ELFABIVERSION_AMDGPU_HSA_V5 */
    put16(&b, 16, 3); /* ET_DYN */
    put16(&b, 18, EM_AMDGPU_);
    put32(&b, 20, 1);  /* e_version */
    put64(&b, 24, 0);  /* e_entry */
    put64(&b, 32, 64); /* e_phoff */
    put64(&b, 40, 0);  /* e_shoff: no sections in this fake */
    /* e_flags: EF_AMDGPU_MACH_AMDGCN_GFX90A (0x3f), xnack "any" (0x100), sramecc "any" (0x400). */
    put32(&b, 48, 0x3fu | 0x100u | 0x400u);
    put16(&b, 52, 64); /* e_ehsize */
    put16(&b, 54, 56); /* e_phentsize */
    put16(&b, 56, 1);  /* e_phnum */
    put16(&b, 58, 64); /* e_shentsize */

    /* One PT_LOAD covering the file: descriptor and text load at l_addr + their offsets. */
    put32(&b, 64 + 0, 1);             /* PT_LOAD */
    put32(&b, 64 + 4, PF_R_ | PF_X_); /* p_flags */
    put64(&b, 64 + 8, 0);             /* p_offset */
    put64(&b, 64 + 16, 0);            /* p_vaddr */
    put64(&b, 64 + 24, 0);            /* p_paddr */
    put64(&b, 64 + 32, CO_SIZE);      /* p_filesz */
    put64(&b, 64 + 40, CO_SIZE);      /* p_memsz */
    put64(&b, 64 + 48, 0x1000);       /* p_align */

    fill_kernel_descriptor(&b, CO_KD_OFF);
    for (size_t i = 0; i < sizeof(vadd_text) / sizeof(vadd_text[0]); i++)
        put32(&b, CO_TEXT_OFF + 4 * i, vadd_text[i]);
    im->bad |= b.bad;
}

static void fill_ring(struct image *im)
{
    struct buf b = BUF(im->ring);
    /* Header: KERNEL_DISPATCH (2), barrier, acquire and release fences at system scope (2). */
    const uint16_t header = 2u | (1u << 8) | (2u << 9) | (2u << 11);

    /* ROCr initialises every slot's header to HSA_PACKET_TYPE_INVALID (1). */
    for (size_t off = 0; off < RING_SIZE; off += 64)
        put16(&b, off, 1);

    /* Packet id 0 (slot 0): hsa_kernel_dispatch_packet_t, docs/core-format.md §8.4. */
    put16(&b, 0, header);
    put16(&b, 2, 1); /* setup: 1 dimension */
    put16(&b, 4, WG_SIZE);
    put16(&b, 6, 1);
    put16(&b, 8, 1);
    put32(&b, 12, GRID_SIZE);
    put32(&b, 16, 1);
    put32(&b, 20, 1);
    put32(&b, 24, PRIVATE_SEGMENT_SIZE);
    put32(&b, 28, 0);                     /* group_segment_size */
    put64(&b, 32, CODE_BASE + CO_KD_OFF); /* kernel_object */
    put64(&b, 40, KERNARG_POOL);          /* kernarg_address */
    put64(&b, 56, SIGNALS + 0x40);        /* completion_signal */
    im->bad |= b.bad;
}

static void fill_amd_queue(struct image *im)
{
    struct buf b = BUF(im->amd_queue);
    /* gfx9 scratch buffer descriptor word 3: DST_SEL xyzw, 32-bit float format, element size
     * 4, index stride 64, ADD_TID: the swizzled per-lane layout of docs/cwsr-layout.md §14. */
    const uint32_t srd3 = 0x00ea7facu;

    /* hsa_queue_t */
    put32(&b, 0, 0);               /* type: HSA_QUEUE_TYPE_MULTIPLE */
    put32(&b, 4, 1);               /* features: KERNEL_DISPATCH */
    put64(&b, 8, RING_BASE);       /* base_address */
    put64(&b, 16, SIGNALS);        /* doorbell_signal */
    put32(&b, 24, RING_SIZE / 64); /* size, in packets */
    put64(&b, 32, 0);              /* id */

    /* amd_queue_t, offsets from <hsa/amd_hsa_queue.h> (docs/core-format.md §8.5). */
    put64(&b, AMD_QUEUE_WRITE_ID_OFF, 1);                /* write_dispatch_id */
    put32(&b, 64, (uint32_t)(LDS_APERTURE >> 32));       /* group_segment_aperture_base_hi */
    put32(&b, 68, (uint32_t)(SCRATCH_APERTURE >> 32));   /* private_segment_aperture_base_hi */
    put32(&b, 72, SIMD_COUNT / SIMD_PER_CU - 1);         /* max_cu_id */
    put32(&b, 76, MAX_WAVES_PER_SIMD * SIMD_PER_CU - 1); /* max_wave_id */
    put64(&b, AMD_QUEUE_READ_ID_OFF, 0);                 /* read_dispatch_id */
    put32(&b, 136, AMD_QUEUE_READ_ID_OFF); /* read_dispatch_id_field_base_byte_offset */
    /* compute_tmpring_size: WAVES [11:0], WAVESIZE [24:12] in 1 KiB units. */
    put32(&b, 140, SCRATCH_WAVES | ((SCRATCH_WAVE_SLOT / 1024u) << 12));
    put32(&b, 144, (uint32_t)SCRATCH_BASE);                      /* scratch SRD word 0 */
    put32(&b, 148, (uint32_t)(SCRATCH_BASE >> 32) | (1u << 31)); /* base hi, swizzle */
    put32(&b, 152, (uint32_t)SCRATCH_SIZE);                      /* num_records */
    put32(&b, 156, srd3);
    put64(&b, 160, SCRATCH_BASE);         /* scratch_backing_memory_location */
    put64(&b, 168, SCRATCH_SIZE);         /* scratch_backing_memory_byte_size (r_version 10) */
    put32(&b, 176, PRIVATE_SEGMENT_SIZE); /* scratch_workitem_byte_size */
    put32(&b, 180, 0x1u | 0x2u);          /* queue_properties: trap handler, 64-bit pointers */
    put64(&b, 192, SIGNALS + 0x80);       /* queue_inactive_signal */
    im->bad |= b.bad;
}

static void fill_kernarg(struct image *im)
{
    struct buf b = BUF(im->kernarg);
    const size_t hidden = 32; /* explicit arguments end at 28; hidden ones start 8-aligned */

    put64(&b, 0, DEVBUF_BASE);          /* const float *a */
    put64(&b, 8, DEVBUF_BASE + 0x1000); /* const float *b */
    put64(&b, 16, FREED_BUFFER);        /* float *c: freed memory, the bug */
    put32(&b, 24, GRID_SIZE);           /* int n */
    /* Code object v5 implicit arguments: block counts, group sizes, remainders, grid dims. */
    put32(&b, hidden + 0, GRID_SIZE / WG_SIZE);
    put32(&b, hidden + 4, 1);
    put32(&b, hidden + 8, 1);
    put16(&b, hidden + 12, WG_SIZE);
    put16(&b, hidden + 14, 1);
    put16(&b, hidden + 16, 1);
    put16(&b, hidden + 64, 1); /* hidden_grid_dims */
    im->bad |= b.bad;
}

static void fill_cwsr_header(struct image *im)
{
    struct buf b = BUF(im->cwsr_header);
    uint32_t ctl = (uint32_t)im->cwsr.ctl_stack_size;

    /*
     * kfd_context_save_area_header of XCC 0 after a suspend with no waves resident: the used
     * control stack [offset, offset + size) is empty and ends at ctl_stack_size, where the
     * (empty) wave save area begins -- the invariant ROCdbgapi checks (docs/cwsr-layout.md §4).
     */
    put32(&b, 0, ctl);                                               /* control_stack_offset */
    put32(&b, 4, 0);                                                 /* control_stack_size */
    put32(&b, 8, ctl);                                               /* wave_state_offset */
    put32(&b, 12, 0);                                                /* wave_state_size */
    put32(&b, 16, (uint32_t)(NUM_XCC * im->cwsr.cwsr_size));         /* debug_offset */
    put32(&b, 20, (uint32_t)(NUM_XCC * im->cwsr.debug_memory_size)); /* debug_size */
    put64(&b, 24, SIGNALS + 0x100); /* err_payload_addr (libhsakmt's ErrorReason) */
    put32(&b, 32, 17);              /* err_event_id */
    im->bad |= b.bad;
}

static void fill_scratch(struct image *im)
{
    struct buf b = BUF(im->scratch);

    /* Wave slot 0, swizzled: dword k of lane l at (k * 64 + l) * 4. */
    for (uint32_t k = 0; k < PRIVATE_SEGMENT_SIZE / 4; k++)
        for (uint32_t l = 0; l < 64; l++)
            put32(&b, (k * 64 + l) * 4, (l << 16) | k);
    im->bad |= b.bad;
}

static void fill_devbuf(struct image *im)
{
    struct buf b = BUF(im->devbuf);

    for (uint32_t i = 0; i < GRID_SIZE; i++) {
        put32(&b, 4 * i, f32_bits(i));              /* a[i] = i */
        put32(&b, 0x1000 + 4 * i, f32_bits(2 * i)); /* b[i] = 2i */
    }
    im->bad |= b.bad;
}

static int build_image(struct image *im)
{
    memset(im, 0, sizeof(*im));
    im->cwsr = cwsr_sizes_gfx90a();
    /* The URI exactly as the ROCr loader writes it for a code object in host memory. */
    snprintf(im->uri, sizeof(im->uri), "memory://%u#offset=0x%" PRIx64 "&size=%u", EX_PID,
             (uint64_t)CO_BLOB, CO_SIZE);
    fill_r_debug(im);
    fill_heap(im);
    fill_code_object(im);
    fill_ring(im);
    fill_amd_queue(im);
    fill_kernarg(im);
    fill_cwsr_header(im);
    fill_scratch(im);
    fill_devbuf(im);
    return im->bad ? -1 : 0;
}

/* ============================================================================================ */
/* Ranges: what is captured, what is recorded as skipped                                        */
/* ============================================================================================ */

struct range {
    uint64_t addr;
    uint64_t size;
    uint32_t tier;
    uint32_t pflags;      /* PF_* as /proc/PID/maps shows the VMA */
    uint32_t skip_reason; /* GPUCORE_REASON_NONE: captured from `data` */
    const uint8_t *data;
    const char *label;
};

#define MAX_RANGES 16

/* Every mapping here is rw- in /proc/PID/maps (GPU memory is mapped read-write for the CPU). */
static struct range captured(uint64_t addr, const void *data, uint64_t size, uint32_t tier,
                             const char *label)
{
    return (struct range){ .addr = addr,
                           .size = size,
                           .tier = tier,
                           .pflags = PF_R_ | PF_W_,
                           .skip_reason = GPUCORE_REASON_NONE,
                           .data = data,
                           .label = label };
}

static struct range skipped(uint64_t addr, uint64_t size, uint32_t tier, uint32_t reason,
                            const char *label)
{
    return (struct range){
        .addr = addr, .size = size, .tier = tier, .skip_reason = reason, .label = label
    };
}

/* In address order, which add_ranges() checks. */
static size_t list_ranges(const struct image *im, struct range *r)
{
    const uint64_t cwsr_hdr = sizeof(im->cwsr_header), slot = sizeof(im->scratch);
    size_t n = 0;

    /* GPU memory. Only the first scratch slot and the CWSR header line are in use; the rest
     * of those reservations belongs to tier "all", which this capture did not ask for. */
    r[n++] = captured(SCRATCH_BASE, im->scratch, slot, GPUCORE_TIER_SCRATCH,
                      "scratch, queue 0, wave slot 0");
    r[n++] = skipped(SCRATCH_BASE + slot, SCRATCH_SIZE - slot, GPUCORE_TIER_ALL,
                     GPUCORE_REASON_TIER, "scratch, queue 0, unused slots");
    r[n++] = captured(CWSR_BASE, im->cwsr_header, cwsr_hdr, GPUCORE_TIER_STATE,
                      "CWSR header, queue 0, XCC 0");
    r[n++] = skipped(CWSR_BASE + cwsr_hdr, im->cwsr.total - cwsr_hdr, GPUCORE_TIER_ALL,
                     GPUCORE_REASON_TIER, "CWSR area, queue 0, unused part and debugger area");
    r[n++] = captured(DEVBUF_BASE, im->devbuf, sizeof(im->devbuf), GPUCORE_TIER_REFERENCED,
                      "vadd inputs a, b");
    r[n++] = captured(CODE_BASE, im->co, sizeof(im->co), GPUCORE_TIER_STATE,
                      "loaded code object (kernel descriptor, text)");
    /* Host memory. */
    r[n++] = captured(heap_line(), im->heap, sizeof(im->heap), GPUCORE_TIER_STATE,
                      "link_map node and URI");
    r[n++] = captured(CO_BLOB, im->co, sizeof(im->co), GPUCORE_TIER_STATE,
                      "code object image (memory:// URI)");
    r[n++] = captured(rdebug_line(), im->rdebug, sizeof(im->rdebug), GPUCORE_TIER_STATE,
                      "_amdgpu_r_debug");
    r[n++] = captured(RING_BASE, im->ring, sizeof(im->ring), GPUCORE_TIER_STATE,
                      "AQL ring, queue 0");
    r[n++] = captured(AMD_QUEUE, im->amd_queue, sizeof(im->amd_queue), GPUCORE_TIER_STATE,
                      "amd_queue_t, queue 0");
    r[n++] = captured(KERNARG_POOL, im->kernarg, sizeof(im->kernarg), GPUCORE_TIER_REFERENCED,
                      "kernarg segment, dispatch 0");
    r[n++] = skipped(DOORBELLS, DOORBELLS_SIZE, GPUCORE_TIER_STATE, GPUCORE_REASON_SPECIAL,
                     "doorbells (/dev/kfd)");
    return n;
}

/* ============================================================================================ */
/* Notes                                                                                        */
/* ============================================================================================ */

static void fill_agent(gpucore_kfd_device_entry_t *a)
{
    memset(a, 0, sizeof(*a));
    a->lds_base = LDS_APERTURE;
    a->lds_limit = APERTURE_LIMIT(LDS_APERTURE);
    a->scratch_base = SCRATCH_APERTURE;
    a->scratch_limit = APERTURE_LIMIT(SCRATCH_APERTURE);
    a->gpuvm_base = GPUVM_BASE;
    a->gpuvm_limit = GPUVM_LIMIT;
    a->gpu_id = GPU_ID;
    a->location_id = 0x2f00; /* PCI 2f:00.0 as bus << 8 | devfn */
    a->vendor_id = 0x1002;
    a->device_id = 0x740f; /* Instinct MI210 */
    a->revision_id = 0x02;
    a->subsystem_vendor_id = 0x1002;
    a->subsystem_device_id = 0x0c34;
    a->fw_version = 78; /* MEC firmware */
    a->gfx_target_version = GFX_TARGET;
    a->simd_count = SIMD_COUNT;
    a->max_waves_per_simd = MAX_WAVES_PER_SIMD;
    a->array_count = ARRAY_COUNT;
    a->simd_arrays_per_engine = SIMD_ARRAYS_PER_ENGINE;
    a->num_xcc = NUM_XCC;
    a->capability = GPUCORE_HSA_CAP_TRAP_DEBUG_SUPPORT |
                    GPUCORE_HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED |
                    GPUCORE_HSA_CAP_WATCH_POINTS_SUPPORTED |
                    (2u << GPUCORE_HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT);
    /* No DISPATCH_INFO_ALWAYS_VALID: KFD leaves it off for GC 9.4.2, hence ttmp_setup = 1. */
    a->debug_prop = DEBUG_PROP_GFX9;
}

static void fill_queue(gpucore_kfd_queue_entry_t *q, const struct image *im)
{
    memset(q, 0, sizeof(*q));
    q->exception_status = 1ull << (5 - 1); /* KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION) */
    q->ring_base_address = RING_BASE;
    q->write_pointer_address = AMD_QUEUE + AMD_QUEUE_WRITE_ID_OFF;
    q->read_pointer_address = AMD_QUEUE + AMD_QUEUE_READ_ID_OFF;
    q->ctx_save_restore_address = CWSR_BASE;
    q->queue_id = QUEUE_ID;
    q->gpu_id = GPU_ID;
    q->ring_size = RING_SIZE;
    q->queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    q->ctx_save_restore_area_size = (uint32_t)im->cwsr.cwsr_size;
}

static gpucore_str_t str_of(const char *s)
{
    return (gpucore_str_t){ s, (uint32_t)strlen(s) };
}

/*
 * x86-64 NT_PRSTATUS (336 bytes) and NT_PRPSINFO (136 bytes) for the main thread, so GDB finds
 * a thread (no "Couldn't find general-purpose registers") and the pid that the memory:// URI
 * names (docs/core-format.md §8.3: GDB loads memory:// code objects only when the pids match).
 * The thread is where a HIP program waits for its kernel: ioctl(AMDKFD_IOC_WAIT_EVENTS).
 */
#define PRSTATUS_SIZE 336u
#define PRPSINFO_SIZE 136u

static void fill_prstatus(struct buf *b)
{
    enum {
        R15,
        R14,
        R13,
        R12,
        RBP,
        RBX,
        R11,
        R10,
        R9,
        R8,
        RAX,
        RCX,
        RDX,
        RSI,
        RDI,
        ORIG_RAX,
        RIP,
        CS,
        EFLAGS,
        RSP,
        SS,
        FS_BASE,
        GS_BASE,
        DS,
        ES,
        FS,
        GS,
        NREGS
    };
    uint64_t reg[NREGS] = { 0 };

    put32(b, 32, EX_PID);    /* pr_pid (the main thread's tid) */
    put32(b, 36, EX_PPID);   /* pr_ppid */
    put32(b, 40, EX_PID);    /* pr_pgrp */
    put32(b, 44, EX_PPID);   /* pr_sid */
    reg[RAX] = (uint64_t)-4; /* -EINTR: the debugger interrupted the wait */
    reg[ORIG_RAX] = 16;      /* ioctl */
    reg[RDI] = 3;            /* /dev/kfd */
    reg[RSI] = 0xc0184b0cu;  /* AMDKFD_IOC_WAIT_EVENTS */
    reg[RDX] = 0x7ffd5c3a1e40u;
    reg[RIP] = 0x7f3a1b91a8efu; /* in libc's ioctl() */
    reg[RSP] = 0x7ffd5c3a1e28u;
    reg[RBP] = 0x7ffd5c3a1f10u;
    reg[CS] = 0x33;
    reg[SS] = 0x2b;
    reg[EFLAGS] = 0x246;
    reg[FS_BASE] = 0x7f3a1b6c6740u;
    for (unsigned i = 0; i < NREGS; i++)
        put64(b, 112 + 8 * i, reg[i]);
    put32(b, 328, 0); /* pr_fpvalid: no NT_FPREGSET in this core */
}

static void fill_prpsinfo(struct buf *b)
{
    static const char psargs[] = "vadd --size 1024";

    put8(b, 0, 1);         /* pr_state: sleeping */
    put8(b, 1, 'S');       /* pr_sname */
    put64(b, 8, 0x400600); /* pr_flag: PF_RANDOMIZE | PF_SIGNALED | PF_DUMPCORE */
    put32(b, 16, EX_UID);
    put32(b, 20, EX_UID); /* gid */
    put32(b, 24, EX_PID);
    put32(b, 28, EX_PPID);
    put32(b, 32, EX_PID);
    put32(b, 36, EX_PPID);
    put_bytes(b, 40, "vadd", 4);                  /* pr_fname[16] */
    put_bytes(b, 56, psargs, sizeof(psargs) - 1); /* pr_psargs[80] */
}

/* ============================================================================================ */
/* Writing                                                                                      */
/* ============================================================================================ */

struct options {
    const char *output;
    int split;
    int compress;
    int level; /* 0 = the writer's default (3) */
};

struct failure {
    int code;
    char msg[GPUCORE_DIAG_MESSAGE_SIZE + 64];
};

static int fail(struct failure *f, int code, const char *what, gpucore_status_t st,
                const char *detail)
{
    f->code = code;
    snprintf(f->msg, sizeof(f->msg), "%s: %s%s%s", what, gpucore_strerror(st),
             detail && *detail ? ": " : "", detail ? detail : "");
    return -1;
}

/* An I/O-ish status from the writer means the output could not be made (73), else it is a bug. */
static int writer_exit_code(gpucore_status_t st)
{
    switch (st) {
    case GPUCORE_E_IO:
    case GPUCORE_E_PERM:
    case GPUCORE_E_CANTCREAT:
    case GPUCORE_E_EXIST:
        return EX_CANTCREAT;
    default:
        return EX_SOFTWARE;
    }
}

static int add_encoded_note(gpucore_writer_t *w, const char *owner, uint32_t type,
                            gpucore_status_t st, void *desc, size_t size, const char *what,
                            const gpucore_diag_t *diag, struct failure *f)
{
    if (st != GPUCORE_OK)
        return fail(f, EX_SOFTWARE, what, st, diag->message);
    st = gpucore_writer_add_note(w, owner, type, desc, size);
    gpucore_free(desc);
    if (st != GPUCORE_OK)
        return fail(f, writer_exit_code(st), what, st, gpucore_writer_errmsg(w));
    return 0;
}

static int add_host_notes(gpucore_writer_t *w, struct failure *f)
{
    uint8_t prstatus[PRSTATUS_SIZE] = { 0 }, prpsinfo[PRPSINFO_SIZE] = { 0 };
    struct buf s = BUF(prstatus), p = BUF(prpsinfo);
    gpucore_status_t st;

    fill_prstatus(&s);
    fill_prpsinfo(&p);
    if (s.bad || p.bad)
        return fail(f, EX_SOFTWARE, "host notes", GPUCORE_E_INVAL, "layout overflow");
    st = gpucore_writer_add_note(w, "CORE", 1 /* NT_PRSTATUS */, prstatus, sizeof(prstatus));
    if (st == GPUCORE_OK)
        st = gpucore_writer_add_note(w, "CORE", 3 /* NT_PRPSINFO */, prpsinfo, sizeof(prpsinfo));
    if (st != GPUCORE_OK)
        return fail(f, writer_exit_code(st), "host notes", st, gpucore_writer_errmsg(w));
    return 0;
}

static int add_amdgpu_note(gpucore_writer_t *w, const struct image *im, struct failure *f)
{
    gpucore_kfd_device_entry_t agent;
    gpucore_kfd_queue_entry_t queue;
    gpucore_amdgpu_note_t note;
    gpucore_diag_t diag = { 0 };
    gpucore_status_t st;
    void *desc = NULL;
    size_t size = 0;

    fill_agent(&agent);
    fill_queue(&queue, im);
    memset(&note, 0, sizeof(note));
    note.kfd_major = KFD_MAJOR;
    note.kfd_minor = KFD_MINOR;
    note.runtime.r_debug = RDEBUG;
    note.runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note.runtime.ttmp_setup = 1;
    note.agent_count = 1;
    note.agents = &agent;
    note.queue_count = 1;
    note.queues = &queue;

    /* Refuse to write what AMD's library would reject: this is a reference example. */
    st = gpucore_amdgpu_note_check(&note, &diag);
    if (st != GPUCORE_OK)
        return fail(f, EX_SOFTWARE, "AMDGPU note check", st, diag.message);
    st = gpucore_amdgpu_note_encode(&note, &desc, &size, &diag);
    return add_encoded_note(w, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE, st,
                            desc, size, "AMDGPU note", &diag, f);
}

static int add_gpucore_notes(gpucore_writer_t *w, const struct image *im, struct failure *f)
{
    /* /proc/PID/cmdline style: arguments separated by NUL bytes. */
    static const char cmdline[] = "vadd\0--size\0"
                                  "1024";
    gpucore_diag_t diag = { 0 };
    gpucore_status_t st;
    void *desc = NULL;
    size_t size = 0;

    gpucore_capture_meta_t meta = {
        .time_ns = EX_TIME_NS,
        .duration_ns = 184000000, /* a plausible 184 ms, fixed for reproducibility */
        .pid = EX_PID,
        .trigger = GPUCORE_TRIGGER_SYNTHETIC,
        .tier = GPUCORE_TIER_REFERENCED,
        .flags = GPUCORE_META_HOST_STOPPED | GPUCORE_META_QUEUES_SUSPENDED,
        .kfd_major = KFD_MAJOR,
        .kfd_minor = KFD_MINOR,
        .kfd_device_entry_size = GPUCORE_KFD_DEVICE_ENTRY_SIZE,
        .kfd_queue_entry_size = GPUCORE_KFD_QUEUE_ENTRY_SIZE,
        /*
         * Left 0 in every variant, on purpose: the notes must be identical so that `zstd -d`
         * of the compressed example equals the plain one byte for byte (an interop test checks
         * exactly that). Whether the file is compressed is the container's business.
         */
        .compress_level = 0,
        .producer = str_of("gpucore"),
        .producer_version = str_of(GPUCORE_VERSION_STRING),
        .hostname = str_of("example-host"),
        .kernel = str_of("6.8.0-example"),
        .exe = str_of("/opt/example/vadd"),
        .cmdline = { cmdline, (uint32_t)(sizeof(cmdline) - 1) },
        .options = str_of("tier=referenced (written by gpucore-mkexample)"),
        /* the store through the freed `c` (lane 1 of the faulting wave) */
        .exception_code = 5, /* EC_QUEUE_WAVE_MEMORY_VIOLATION */
        .exception_gpu_id = GPU_ID,
        .exception_queue_id = QUEUE_ID,
        .fault_address = FREED_BUFFER + 4,
    };
    st = gpucore_capture_meta_encode(&meta, &desc, &size, &diag);
    if (add_encoded_note(w, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, st, desc, size,
                         "CAPTURE_META note", &diag, f) < 0)
        return -1;

    gpucore_code_object_t co = {
        .load_address = CODE_BASE,
        .size = CO_SIZE,
        .flags = GPUCORE_CODE_OBJECT_EMBEDDED,
        .uri = str_of(im->uri),
        .bytes = im->co,
        .bytes_size = CO_SIZE,
    };
    gpucore_code_objects_t cos = { .count = 1, .objects = &co };
    st = gpucore_code_objects_encode(&cos, &desc, &size, &diag);
    if (add_encoded_note(w, GPUCORE_NOTE_OWNER, GPUCORE_NT_CODE_OBJECTS, st, desc, size,
                         "CODE_OBJECTS note", &diag, f) < 0)
        return -1;

    gpucore_alloc_t allocs[] = {
        { SCRATCH_BASE, SCRATCH_SIZE, GPUCORE_ALLOC_SCRATCH, GPU_ID, 0,
          str_of("scratch, queue 0") },
        { CWSR_BASE, im->cwsr.total, GPUCORE_ALLOC_CWSR, GPU_ID, 0, str_of("CWSR area, queue 0") },
        { DEVBUF_BASE, DEVBUF_SIZE, GPUCORE_ALLOC_VRAM, GPU_ID, 0, str_of("vadd inputs a, b") },
        { CODE_BASE, CODE_ALLOC_SIZE, GPUCORE_ALLOC_CODE, GPU_ID, 0, str_of("code object") },
        { RING_BASE, RING_SIZE, GPUCORE_ALLOC_RING, GPU_ID, 0, str_of("AQL ring, queue 0") },
        { KERNARG_POOL, KERNARG_POOL_SIZE, GPUCORE_ALLOC_KERNARG, GPU_ID, 0,
          str_of("kernarg pool") },
        { DOORBELLS, DOORBELLS_SIZE, GPUCORE_ALLOC_DOORBELL, GPU_ID, 0, str_of("doorbells") },
    };
    gpucore_alloc_map_t map = { .count = sizeof(allocs) / sizeof(allocs[0]), .allocs = allocs };
    st = gpucore_alloc_map_encode(&map, &desc, &size, &diag);
    return add_encoded_note(w, GPUCORE_NOTE_OWNER, GPUCORE_NT_ALLOC_MAP, st, desc, size,
                            "ALLOC_MAP note", &diag, f);
}

static int add_ranges(gpucore_writer_t *w, const struct image *im, struct failure *f)
{
    struct range r[MAX_RANGES];
    size_t n = list_ranges(im, r);

    for (size_t i = 0; i < n; i++) {
        const struct gpucore_range_info *info = GPUCORE_OPTS(
                gpucore_range_info, .tier = r[i].tier, .p_flags = r[i].pflags, .label = r[i].label);
        gpucore_status_t st;

        if (i > 0 && r[i - 1].addr + r[i - 1].size > r[i].addr)
            return fail(f, EX_SOFTWARE, r[i].label, GPUCORE_E_INVAL, "ranges out of order");
        if (r[i].skip_reason != GPUCORE_REASON_NONE)
            st = gpucore_writer_record_skip(w, r[i].addr, r[i].size, info, r[i].skip_reason);
        else
            st = gpucore_writer_add_segment(w, r[i].addr, r[i].data, r[i].size, info);
        if (st != GPUCORE_OK)
            return fail(f, writer_exit_code(st), r[i].label, st, gpucore_writer_errmsg(w));
    }
    return 0;
}

static int write_core(const struct options *o, const struct image *im, struct failure *f)
{
    struct gpucore_writer_opts wo = {
        .sz = sizeof(wo),
        .kind = o->split ? GPUCORE_CORE_SPLIT : GPUCORE_CORE_UNIFIED,
        /* Pinned, not the build host's: the host notes below are x86-64 ones. */
        .e_machine = o->split ? 0 : EM_X86_64_,
        .flags = GPUCORE_WRITE_OVERWRITE,
        .compress = o->compress ? 1u : 0u,
        .compress_level = o->level,
    };
    gpucore_diag_t diag = { 0 };
    gpucore_writer_t *w = NULL;
    gpucore_status_t st;

    st = gpucore_writer_open(o->output, &wo, &w, &diag);
    if (st != GPUCORE_OK)
        return fail(f, writer_exit_code(st), "cannot create", st, diag.message);

    /* Host notes belong to the unified form only; the split file is the GPU part alone. */
    if ((!o->split && add_host_notes(w, f) < 0) || add_amdgpu_note(w, im, f) < 0 ||
        add_gpucore_notes(w, im, f) < 0 || add_ranges(w, im, f) < 0) {
        gpucore_writer_abort(w);
        return -1;
    }
    st = gpucore_writer_finish(w, NULL, &diag);
    if (st != GPUCORE_OK)
        return fail(f, writer_exit_code(st), "cannot finish", st, diag.message);
    return 0;
}

/* ============================================================================================ */
/* Command line                                                                                 */
/* ============================================================================================ */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [--compress[=LEVEL]] [--split] OUTPUT\n"
            "Write a deterministic example core of a faulting GPU process to OUTPUT.\n"
            "  --compress[=LEVEL]  zstd seekable compression (LEVEL 1..22 or -1..-7; default 3)\n"
            "  --split             AMDGPU core file (EM_AMDGPU, GPU part only), not unified\n",
            prog);
}

static int parse_level(const char *s, int *ret)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v == 0 || v < -7 || v > 22)
        return -1;
    *ret = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    int only_operands = 0;

    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!only_operands && strcmp(a, "--") == 0) {
            only_operands = 1;
        } else if (!only_operands && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            usage(stdout);
            exit(0);
        } else if (!only_operands && strcmp(a, "--split") == 0) {
            o->split = 1;
        } else if (!only_operands && strcmp(a, "--compress") == 0) {
            o->compress = 1;
        } else if (!only_operands && strncmp(a, "--compress=", 11) == 0) {
            o->compress = 1;
            if (parse_level(a + 11, &o->level) < 0) {
                fprintf(stderr, "%s: invalid compression level '%s' (1..22 or -1..-7)\n", prog,
                        a + 11);
                return -1;
            }
        } else if (!only_operands && a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
            return -1;
        } else if (o->output) {
            fprintf(stderr, "%s: more than one OUTPUT ('%s', '%s')\n", prog, o->output, a);
            return -1;
        } else {
            o->output = a;
        }
    }
    if (!o->output) {
        fprintf(stderr, "%s: missing OUTPUT\n", prog);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    struct failure f = { 0 };
    struct image *im;
    int rc = 0;

    if (parse_args(argc, argv, &o) < 0) {
        usage(stderr);
        return EX_USAGE;
    }
    im = calloc(1, sizeof(*im));
    if (!im) {
        fprintf(stderr, "%s: %s: out of memory\n", prog, o.output);
        return EX_SOFTWARE;
    }
    if (build_image(im) < 0) {
        fprintf(stderr, "%s: %s: internal error: example layout overflows a buffer\n", prog,
                o.output);
        rc = EX_SOFTWARE;
    } else if (write_core(&o, im, &f) < 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, o.output, f.msg);
        rc = f.code;
    }
    free(im);
    return rc;
}
