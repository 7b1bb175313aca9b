/* SPDX-License-Identifier: MIT */
/*
 * The entry of gpucore-disasm.so, the disassembler module (disasm_module.h): its one exported
 * symbol. Built into the module only; binaries that link disasm_llvm.c directly do not need it.
 */
#include "disasm_module.h"

/* Exported despite the hidden default; declared here, as nothing of ours links to it. */
__attribute__((visibility("default"))) const struct gc_disasm_module *
gpucore_disasm_module_get(void);

const struct gc_disasm_module *gpucore_disasm_module_get(void)
{
    return &gc_disasm_llvm_module;
}
