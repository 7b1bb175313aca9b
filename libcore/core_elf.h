/* SPDX-License-Identifier: MIT */
/*
 * ELF64 little-endian codec for the structures a core file holds: the file header, program
 * headers, section header 0 (PN_XNUM) and the note envelope. Field-by-field explicit LE
 * encoding (G-FMT-1); no validation here beyond what encoding needs: the reader decides what
 * is acceptable.
 */
#ifndef GC_CORE_ELF_H
#define GC_CORE_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "gc_util.h"

#define GC_ELF_EHDR_SIZE 64u
#define GC_ELF_PHDR_SIZE 56u
#define GC_ELF_SHDR_SIZE 64u
#define GC_ELF_NHDR_SIZE 12u

/* Not in glibc's <elf.h>: LLVM's ELF.h values, docs/core-format.md 1.1. */
#define GC_ELFOSABI_AMDGPU_HSA         64u
#define GC_ELFABIVERSION_AMDGPU_HSA_V5 3u

struct gc_elf_ehdr {
    uint8_t ident[16];
    uint16_t type;
    uint16_t machine;
    uint32_t version;
    uint64_t entry;
    uint64_t phoff;
    uint64_t shoff;
    uint32_t flags;
    uint16_t ehsize;
    uint16_t phentsize;
    uint16_t phnum;
    uint16_t shentsize;
    uint16_t shnum;
    uint16_t shstrndx;
};

struct gc_elf_phdr {
    uint32_t type;
    uint32_t flags;
    uint64_t offset;
    uint64_t vaddr;
    uint64_t paddr;
    uint64_t filesz;
    uint64_t memsz;
    uint64_t align;
};

struct gc_elf_shdr {
    uint32_t name;
    uint32_t type;
    uint64_t flags;
    uint64_t addr;
    uint64_t offset;
    uint64_t size;
    uint32_t link;
    uint32_t info;
    uint64_t addralign;
    uint64_t entsize;
};

/*
 * Fill ident[] for an ELF64 LSB EV_CURRENT file with the given OS ABI, and the fixed-size fields
 * (ehsize, phentsize, version, type ET_CORE).
 */
void gc_elf_ehdr_init_core(struct gc_elf_ehdr *h, uint16_t machine, uint8_t osabi,
                           uint8_t abiversion);

void gc_elf_ehdr_encode(uint8_t *out, const struct gc_elf_ehdr *h); /* 64 bytes */
void gc_elf_ehdr_decode(const uint8_t *in, struct gc_elf_ehdr *h);
void gc_elf_phdr_encode(uint8_t *out, const struct gc_elf_phdr *p); /* 56 bytes */
void gc_elf_phdr_decode(const uint8_t *in, struct gc_elf_phdr *p);
void gc_elf_shdr_encode(uint8_t *out, const struct gc_elf_shdr *s); /* 64 bytes */
void gc_elf_shdr_decode(const uint8_t *in, struct gc_elf_shdr *s);

/* The ELF machine of the host this library was compiled for (what Linux puts in its cores). */
uint16_t gc_elf_host_machine(void);

/*
 * p_align of a PT_LOAD written by gpucore: the largest power of two dividing @p vaddr, capped at
 * 4096 (4096 for address 0).
 */
uint64_t gc_elf_load_align(uint64_t vaddr);

/* Bytes one note occupies in a 4-byte aligned PT_NOTE (header, padded name, padded desc). */
uint64_t gc_elf_note_size(size_t owner_len, uint64_t desc_size);

/*
 * Append one note (owner written NUL-terminated, name and desc padded to 4 with zeros) to @p b.
 * The caller has checked that the sizes fit in 32 bits.
 */
void gc_elf_note_append(struct gc_buf *b, const char *owner, uint32_t type, const void *desc,
                        size_t size);

#endif /* GC_CORE_ELF_H */
