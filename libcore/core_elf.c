/* SPDX-License-Identifier: MIT */
#include "core_elf.h"

#include <elf.h>
#include <string.h>

#include "core_internal.h"
#include "gc_le.h"

void gc_elf_ehdr_init_core(struct gc_elf_ehdr *h, uint16_t machine, uint8_t osabi,
                           uint8_t abiversion)
{
    memset(h, 0, sizeof(*h));
    h->ident[EI_MAG0] = ELFMAG0;
    h->ident[EI_MAG1] = ELFMAG1;
    h->ident[EI_MAG2] = ELFMAG2;
    h->ident[EI_MAG3] = ELFMAG3;
    h->ident[EI_CLASS] = ELFCLASS64;
    h->ident[EI_DATA] = ELFDATA2LSB;
    h->ident[EI_VERSION] = EV_CURRENT;
    h->ident[EI_OSABI] = osabi;
    h->ident[EI_ABIVERSION] = abiversion;
    h->type = ET_CORE;
    h->machine = machine;
    h->version = EV_CURRENT;
    h->ehsize = GC_ELF_EHDR_SIZE;
    h->phentsize = GC_ELF_PHDR_SIZE;
}

void gc_elf_ehdr_encode(uint8_t *out, const struct gc_elf_ehdr *h)
{
    memcpy(out, h->ident, 16);
    gc_le16_put(out + 16, h->type);
    gc_le16_put(out + 18, h->machine);
    gc_le32_put(out + 20, h->version);
    gc_le64_put(out + 24, h->entry);
    gc_le64_put(out + 32, h->phoff);
    gc_le64_put(out + 40, h->shoff);
    gc_le32_put(out + 48, h->flags);
    gc_le16_put(out + 52, h->ehsize);
    gc_le16_put(out + 54, h->phentsize);
    gc_le16_put(out + 56, h->phnum);
    gc_le16_put(out + 58, h->shentsize);
    gc_le16_put(out + 60, h->shnum);
    gc_le16_put(out + 62, h->shstrndx);
}

void gc_elf_ehdr_decode(const uint8_t *in, struct gc_elf_ehdr *h)
{
    memcpy(h->ident, in, 16);
    h->type = gc_le16_get(in + 16);
    h->machine = gc_le16_get(in + 18);
    h->version = gc_le32_get(in + 20);
    h->entry = gc_le64_get(in + 24);
    h->phoff = gc_le64_get(in + 32);
    h->shoff = gc_le64_get(in + 40);
    h->flags = gc_le32_get(in + 48);
    h->ehsize = gc_le16_get(in + 52);
    h->phentsize = gc_le16_get(in + 54);
    h->phnum = gc_le16_get(in + 56);
    h->shentsize = gc_le16_get(in + 58);
    h->shnum = gc_le16_get(in + 60);
    h->shstrndx = gc_le16_get(in + 62);
}

void gc_elf_phdr_encode(uint8_t *out, const struct gc_elf_phdr *p)
{
    gc_le32_put(out + 0, p->type);
    gc_le32_put(out + 4, p->flags);
    gc_le64_put(out + 8, p->offset);
    gc_le64_put(out + 16, p->vaddr);
    gc_le64_put(out + 24, p->paddr);
    gc_le64_put(out + 32, p->filesz);
    gc_le64_put(out + 40, p->memsz);
    gc_le64_put(out + 48, p->align);
}

void gc_elf_phdr_decode(const uint8_t *in, struct gc_elf_phdr *p)
{
    p->type = gc_le32_get(in + 0);
    p->flags = gc_le32_get(in + 4);
    p->offset = gc_le64_get(in + 8);
    p->vaddr = gc_le64_get(in + 16);
    p->paddr = gc_le64_get(in + 24);
    p->filesz = gc_le64_get(in + 32);
    p->memsz = gc_le64_get(in + 40);
    p->align = gc_le64_get(in + 48);
}

void gc_elf_shdr_encode(uint8_t *out, const struct gc_elf_shdr *s)
{
    gc_le32_put(out + 0, s->name);
    gc_le32_put(out + 4, s->type);
    gc_le64_put(out + 8, s->flags);
    gc_le64_put(out + 16, s->addr);
    gc_le64_put(out + 24, s->offset);
    gc_le64_put(out + 32, s->size);
    gc_le32_put(out + 40, s->link);
    gc_le32_put(out + 44, s->info);
    gc_le64_put(out + 48, s->addralign);
    gc_le64_put(out + 56, s->entsize);
}

void gc_elf_shdr_decode(const uint8_t *in, struct gc_elf_shdr *s)
{
    s->name = gc_le32_get(in + 0);
    s->type = gc_le32_get(in + 4);
    s->flags = gc_le64_get(in + 8);
    s->addr = gc_le64_get(in + 16);
    s->offset = gc_le64_get(in + 24);
    s->size = gc_le64_get(in + 32);
    s->link = gc_le32_get(in + 40);
    s->info = gc_le32_get(in + 44);
    s->addralign = gc_le64_get(in + 48);
    s->entsize = gc_le64_get(in + 56);
}

uint16_t gc_elf_host_machine(void)
{
    /* Cores describe the host process, so the compile-time target is the right answer. */
#if defined(__x86_64__)
    return EM_X86_64;
#elif defined(__aarch64__)
    return EM_AARCH64;
#elif defined(__powerpc64__)
    return EM_PPC64;
#elif defined(__riscv)
    return EM_RISCV;
#elif defined(__s390x__)
    return EM_S390;
#else
#error "gc_elf_host_machine: add this host's EM_* value"
#endif
}

uint64_t gc_elf_load_align(uint64_t vaddr)
{
    /* vaddr & -vaddr isolates the lowest set bit: the largest power of two dividing vaddr. */
    uint64_t low = vaddr & (~vaddr + 1);

    return low == 0 || low > 4096 ? 4096 : low;
}

uint64_t gc_elf_note_size(size_t owner_len, uint64_t desc_size)
{
    return GC_ELF_NHDR_SIZE + gc_core_align_up((uint64_t)owner_len + 1, 4) +
           gc_core_align_up(desc_size, 4);
}

void gc_elf_note_append(struct gc_buf *b, const char *owner, uint32_t type, const void *desc,
                        size_t size)
{
    size_t namesz = strlen(owner) + 1;

    gc_buf_put32(b, (uint32_t)namesz);
    gc_buf_put32(b, (uint32_t)size);
    gc_buf_put32(b, type);
    gc_buf_append(b, owner, namesz);
    gc_buf_pad(b, 4);
    gc_buf_append(b, desc, size);
    gc_buf_pad(b, 4);
}
