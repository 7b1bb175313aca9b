/* SPDX-License-Identifier: MIT */
/*
 * Modules the disassembler's loader must refuse (tests/disasm_module.cmake,
 * test_arch_disasm_module.c), built from this file twice:
 *  - STUB_STALE: a module of the next interface number, as one of another gpucore would be
 *    (its table must not be read beyond abi);
 *  - STUB_NO_ENTRY: a shared object without the entry symbol.
 * No LLVM.
 */
#include "disasm_module.h"

#ifdef STUB_STALE
/* Only abi is meant to be read: the rest poisons a loader that reads further. */
static const struct gc_disasm_module stale = {
    .abi = GC_DISASM_MODULE_ABI + 1,
    .size = 1,
};

__attribute__((visibility("default"))) const struct gc_disasm_module *
gpucore_disasm_module_get(void);

const struct gc_disasm_module *gpucore_disasm_module_get(void)
{
    return &stale;
}
#endif

#ifdef STUB_NO_ENTRY
__attribute__((visibility("default"))) int gpucore_disasm_module_other(void);

int gpucore_disasm_module_other(void)
{
    return 0;
}
#endif
