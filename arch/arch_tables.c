/* SPDX-License-Identifier: MIT */
/*
 * The target table: one row per gfx target AMD's debugger library 0.77 supports.
 *
 * Sources of the facts: docs/cwsr-layout.md (families, parking, flat scratch),
 * docs/dbgapi-on-cores.md §8.1 (ELF machine values), LLVM's llvm/include/llvm/BinaryFormat/ELF.h
 * EF_AMDGPU_MACH_* list (checked against LLVM 16's installed copy and upstream, where 0x40
 * gfx940 and 0x4b gfx941 have since become RESERVED but keep their values in existing code
 * objects), and `llc -march=amdgcn -mcpu=help` of LLVM 16 for llvm_cpu: LLVM 16 knows gfx940
 * but neither gfx941/gfx942 nor any gfx12 processor. llvm_cpu is only the stand-in for an LLVM
 * without the target's own processor: LLVM 19 has all 18, and the disassembler asks for the
 * target's own name first (disasm.h, "Which targets have a disassembler").
 *
 * max_vgprs is the number of *addressable* architectural VGPRs (v0..v255: the instruction
 * encoding has 8 bits), not the allocation: gfx90a's unified 512-entry file holds at most 256
 * arch VGPRs plus 256 AccVGPRs, and gfx11/gfx12's 1.5x register file (KFD's 0x60000 bytes per
 * CU) buys more waves per SIMD, not more VGPRs per wave.
 *
 * Adding a target means adding a row here; nothing else branches on it.
 */
#include "arch.h"

#include <string.h>

#include "cwsr.h"
#include "wave.h"
#include "arch_regs.h"

/* Facts shared by every row of a family; a row only states what differs. */
#define GFX9_COMMON                                                                                \
    .family = GC_FAMILY_GFX9, .wave_sizes = GC_WAVE64, .default_wave_size = 64, .sgprs = 102,     \
    .max_vgprs = 256, .lds_bytes = 65536, .watchpoints = 4

#define GFX10_COMMON                                                                               \
    .family = GC_FAMILY_GFX10, .wave_sizes = GC_WAVE32 | GC_WAVE64, .default_wave_size = 32,      \
    .sgprs = 106, .max_vgprs = 256, .lds_bytes = 65536, .watchpoints = 4,                         \
    .cwsr = &gc_cwsr_gfx10, .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx10,                      \
    .regs = &gc_regset_gfx10

#define GFX11_COMMON                                                                               \
    .family = GC_FAMILY_GFX11, .wave_sizes = GC_WAVE32 | GC_WAVE64, .default_wave_size = 32,       \
    .sgprs = 106, .max_vgprs = 256, .lds_bytes = 65536, .watchpoints = 4,                          \
    .architected_flat_scratch = 1, .parks_stopped_waves = 2, .cwsr = &gc_cwsr_gfx11,               \
    .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx11, .regs = &gc_regset_gfx11

#define GFX12_COMMON                                                                               \
    .family = GC_FAMILY_GFX12, .wave_sizes = GC_WAVE32 | GC_WAVE64, .default_wave_size = 32,       \
    .sgprs = 106, .max_vgprs = 256, .lds_bytes = 65536, .watchpoints = 4,                          \
    .architected_flat_scratch = 1, .parks_stopped_waves = 2, .cwsr = &gc_cwsr_gfx12,               \
    .ttmp = &gc_ttmp_gfx12, .hwreg = &gc_hwreg_gfx12, .regs = &gc_regset_gfx12

const struct gc_arch gc_arch_table[] = {
    /* gfx9: always park stopped waves before gfx940 (they cannot halt at s_endpgm). */
    { .name = "gfx900", .llvm_cpu = "gfx900", .gfx_target_version = 90000, .elf_mach = 0x2c,
      GFX9_COMMON, .parks_stopped_waves = 1, .cwsr = &gc_cwsr_gfx9,
      .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx9, .regs = &gc_regset_gfx9 },
    { .name = "gfx906", .llvm_cpu = "gfx906", .gfx_target_version = 90006, .elf_mach = 0x2f,
      GFX9_COMMON, .parks_stopped_waves = 1, .cwsr = &gc_cwsr_gfx9,
      .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx9, .regs = &gc_regset_gfx9 },
    { .name = "gfx908", .llvm_cpu = "gfx908", .gfx_target_version = 90008, .elf_mach = 0x30,
      GFX9_COMMON, .max_accvgprs = 256, .parks_stopped_waves = 1,
      .cwsr = &gc_cwsr_gfx908, .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx9,
      .regs = &gc_regset_gfx908 },
    { .name = "gfx90a", .llvm_cpu = "gfx90a", .gfx_target_version = 90010, .elf_mach = 0x3f,
      GFX9_COMMON, .max_accvgprs = 256, .parks_stopped_waves = 1,
      .cwsr = &gc_cwsr_gfx90a, .ttmp = &gc_ttmp_gfx9, .hwreg = &gc_hwreg_gfx9,
      .regs = &gc_regset_gfx90a },
    /* gfx940 line: architected flat scratch, never parks, its own TTMP layout. */
    { .name = "gfx940", .llvm_cpu = "gfx940", .gfx_target_version = 90400, .elf_mach = 0x40,
      GFX9_COMMON, .max_accvgprs = 256, .architected_flat_scratch = 1,
      .cwsr = &gc_cwsr_gfx940, .ttmp = &gc_ttmp_gfx940, .hwreg = &gc_hwreg_gfx940,
      .regs = &gc_regset_gfx940 },
    { .name = "gfx941", .llvm_cpu = "gfx940", .gfx_target_version = 90401, .elf_mach = 0x4b,
      GFX9_COMMON, .max_accvgprs = 256, .architected_flat_scratch = 1,
      .cwsr = &gc_cwsr_gfx940, .ttmp = &gc_ttmp_gfx940, .hwreg = &gc_hwreg_gfx940,
      .regs = &gc_regset_gfx940 },
    { .name = "gfx942", .llvm_cpu = "gfx940", .gfx_target_version = 90402, .elf_mach = 0x4c,
      GFX9_COMMON, .max_accvgprs = 256, .architected_flat_scratch = 1,
      .cwsr = &gc_cwsr_gfx940, .ttmp = &gc_ttmp_gfx940, .hwreg = &gc_hwreg_gfx940,
      .regs = &gc_regset_gfx940 },
    /* gfx10.1 always parks; gfx10.3 never does. */
    { .name = "gfx1010", .llvm_cpu = "gfx1010", .gfx_target_version = 100100, .elf_mach = 0x33,
      GFX10_COMMON, .parks_stopped_waves = 1 },
    { .name = "gfx1011", .llvm_cpu = "gfx1011", .gfx_target_version = 100101, .elf_mach = 0x34,
      GFX10_COMMON, .parks_stopped_waves = 1 },
    { .name = "gfx1012", .llvm_cpu = "gfx1012", .gfx_target_version = 100102, .elf_mach = 0x35,
      GFX10_COMMON, .parks_stopped_waves = 1 },
    { .name = "gfx1030", .llvm_cpu = "gfx1030", .gfx_target_version = 100300, .elf_mach = 0x36,
      GFX10_COMMON },
    { .name = "gfx1031", .llvm_cpu = "gfx1031", .gfx_target_version = 100301, .elf_mach = 0x37,
      GFX10_COMMON },
    { .name = "gfx1032", .llvm_cpu = "gfx1032", .gfx_target_version = 100302, .elf_mach = 0x38,
      GFX10_COMMON },
    /* gfx11: park stopped waves from ROCr ABI 9 on (r_version > 8). */
    { .name = "gfx1100", .llvm_cpu = "gfx1100", .gfx_target_version = 110000, .elf_mach = 0x41,
      GFX11_COMMON },
    { .name = "gfx1101", .llvm_cpu = "gfx1101", .gfx_target_version = 110001, .elf_mach = 0x46,
      GFX11_COMMON },
    { .name = "gfx1102", .llvm_cpu = "gfx1102", .gfx_target_version = 110002, .elf_mach = 0x47,
      GFX11_COMMON },
    /* gfx12: its own processor in LLVM 19; none in LLVM 16, where the disassembler says so
       instead of guessing. */
    { .name = "gfx1200", .llvm_cpu = NULL, .gfx_target_version = 120000, .elf_mach = 0x48,
      GFX12_COMMON },
    { .name = "gfx1201", .llvm_cpu = NULL, .gfx_target_version = 120001, .elf_mach = 0x4e,
      GFX12_COMMON },
    { .name = NULL },
};

size_t gc_arch_count(void)
{
    return sizeof(gc_arch_table) / sizeof(gc_arch_table[0]) - 1;
}

/* One-entry cache per thread (ROCdbgapi's last_found_architecture idea, made thread-safe). */
static _Thread_local const struct gc_arch *last_hit;

typedef int (*arch_match_fn)(const struct gc_arch *a, const void *key);

static const struct gc_arch *lookup(arch_match_fn match, const void *key)
{
    const struct gc_arch *a = last_hit;

    if (a && match(a, key))
        return a;
    for (a = gc_arch_table; a->name; a++) {
        if (match(a, key)) {
            last_hit = a;
            return a;
        }
    }
    return NULL;
}

static int match_name(const struct gc_arch *a, const void *key)
{
    return strcmp(a->name, key) == 0;
}

static int match_gfx_version(const struct gc_arch *a, const void *key)
{
    return a->gfx_target_version == *(const uint32_t *)key;
}

static int match_elf_mach(const struct gc_arch *a, const void *key)
{
    return a->elf_mach == *(const uint32_t *)key;
}

const struct gc_arch *gc_arch_by_name(const char *name)
{
    return name ? lookup(match_name, name) : NULL;
}

const struct gc_arch *gc_arch_by_gfx_version(uint32_t gfx_target_version)
{
    return lookup(match_gfx_version, &gfx_target_version);
}

const struct gc_arch *gc_arch_by_elf_mach(uint32_t elf_mach)
{
    return lookup(match_elf_mach, &elf_mach);
}
