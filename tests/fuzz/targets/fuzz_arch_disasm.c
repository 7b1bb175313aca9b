/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the disassembler and the instruction classifier: they will read code bytes
 * out of cores, which are untrusted input. The first byte selects the target row (modulo the
 * table), the rest is code at pc 0x1000. Invariants: sizes stay within the input, text is
 * NUL-terminated within its buffer, a range never reports more instructions than bytes / 4.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "disasm.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct gc_arch *arch;
    struct gc_disasm_class cls;
    struct gc_disasm_insn insns[16];
    char text[GC_DISASM_TEXT_MAX];
    uint32_t isize = 0;
    size_t count = 0;
    gpucore_diag_t diag;

    if (size < 1)
        return 0;
    arch = &gc_arch_table[data[0] % gc_arch_count()];
    data++;
    size--;

    if (gc_disasm_classify(arch, data, size, 0x1000, &cls, &diag) == GPUCORE_OK)
        CHECK(cls.size > 0 && cls.size <= size);
    memset(text, 0x55, sizeof(text));
    if (gc_disasm_insn(arch, data, size, 0x1000, NULL, text, sizeof(text), &isize, &diag) ==
        GPUCORE_OK) {
        CHECK(isize > 0 && isize <= size);
        CHECK(memchr(text, '\0', sizeof(text)) != NULL);
    }
    (void)gc_disasm_range_array(arch, data, size, 0x1000, NULL, insns, 16, &count, &diag);
    CHECK(count <= 16 && count <= size / 4);
    for (size_t i = 0; i < count; i++)
        CHECK(insns[i].size > 0 && memchr(insns[i].text, '\0', sizeof(insns[i].text)));
    return 0;
}
