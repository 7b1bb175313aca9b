/* SPDX-License-Identifier: MIT */
/*
 * The LLVM half of the disassembler, and how arch/disasm.c gets it.
 *
 * Internal to arch/ (disasm.c, disasm_loader.c, disasm_llvm.c, disasm_module.c); callers use
 * disasm.h only.
 *
 * Why two halves
 * --------------
 * libLLVM is most of a gpucore process: about 53 MiB of RSS and 20-50 ms of relocation before
 * main() when it is linked into the program, in a process that runs while a job is crashing
 * (bench/README.md, "Start-up and the LLVM"). Only the commands that disassemble need it. So the
 * code that calls LLVM (disasm_llvm.c: the processor list, one LLVM context per processor, the
 * decoding call) is built as a private module, gpucore-disasm.so, that the `gpucore` program
 * opens on first use; everything that is GPU knowledge (the classification tables, the decode
 * hazards, the text rules, symbolization) stays in disasm.c, in every binary.
 *
 * How a binary gets the ops table (disasm_loader.c, gc_disasm_module_get())
 * -------------------------------------------------------------------------
 *  1. Linked in: a binary that links disasm_llvm.c's objects (the fuzz targets, and everything
 *     when configured with -DGPUCORE_DISASM_MODULE=OFF) uses its gc_disasm_llvm_module
 *     directly; the loader refers to it by a hidden weak reference, so only a link decides,
 *     never the run-time environment.
 *  2. Otherwise (the `gpucore` program, the amd-dbgapi library) the module is opened once, on
 *     the first call that needs it, from one of two paths fixed by the build (docs/building.md,
 *     "The disassembler module"): the build tree's module when the file that holds the loader
 *     lies in the build tree, else ${CMAKE_INSTALL_FULL_LIBDIR}/gpucore/gpucore-disasm.so. That
 *     file is the running executable (/proc/self/exe) for a program, and the shared object's
 *     own file (dladdr's link map, then realpath) for a library: a library runs inside a
 *     debugger whose executable says nothing about where gpucore lies. Where that file lies
 *     only chooses between the two fixed paths; never a path from the environment, the client
 *     or the current directory: gpucore runs as root on crash paths. The file must be a
 *     regular file owned by root or by the effective user, not writable by others (nor by its
 *     group when the process is root); it is opened, checked on the descriptor and loaded
 *     from that descriptor (RTLD_NOW | RTLD_LOCAL), so what was checked is what is loaded. Its
 *     one exported function, GC_DISASM_MODULE_ENTRY, returns the ops table; a table whose abi
 *     is not GC_DISASM_MODULE_ABI (a module of another gpucore) is refused.
 * A failure is remembered: the module is tried once per process, and every text function then
 * returns GPUCORE_E_NOTSUP "disassembler not available: <why>".
 */
#ifndef GC_DISASM_MODULE_H
#define GC_DISASM_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/*
 * The interface number of struct gc_disasm_module. Bump it on any change of the struct or of
 * the meaning of a member: a module of another number is refused. abi and size stay the first
 * two members, as they are, for ever.
 */
#define GC_DISASM_MODULE_ABI 1u

/* The module's only exported symbol: a gc_disasm_module_entry_fn. */
#define GC_DISASM_MODULE_ENTRY "gpucore_disasm_module_get"

/* What the module does: LLVM's AMDGPU disassembler, one context per processor. */
struct gc_disasm_module {
    uint32_t abi;                /* GC_DISASM_MODULE_ABI of the module's build */
    uint32_t size;               /* sizeof(struct gc_disasm_module) of the module's build */
    const char *gpucore_version; /* "0.1.0": the gpucore the module was built with */
    const char *llvm_version;    /* "19.1.7": the LLVM it links */
    /* 1 when this LLVM lists the processor (`llc -mcpu=help` at configure time), else 0:
       LLVM aborts the process for a processor it does not know, so nothing else is asked
       for one. */
    int (*has_cpu)(const char *cpu);
    /*
     * The context for a processor has_cpu() accepted, created on first use and kept until
     * fini(). GPUCORE_OK and *ret_ctx; GPUCORE_E_NOTSUP (LLVM refused to create one),
     * GPUCORE_E_NOMEM, GPUCORE_E_LIMIT (more than 64 processors). Thread-safe.
     */
    gpucore_status_t (*context)(const char *cpu, void **ret_ctx);
    /*
     * Decode the instruction at bytes[0..len) (address pc) into text[0..text_size) as LLVM's
     * printer writes it; the size in bytes, 0 when the bytes are not an instruction.
     * Thread-safe (one lock per context).
     */
    size_t (*decode)(void *ctx, const uint8_t *bytes, size_t len, uint64_t pc, char *text,
                     size_t text_size);
    /* Dispose of every context; no thread may be in context() or decode(). */
    void (*fini)(void);
};

typedef const struct gc_disasm_module *(*gc_disasm_module_entry_fn)(void);

/* disasm_llvm.c: the table, in binaries that link it (and in the module). */
extern const struct gc_disasm_module gc_disasm_llvm_module;

/*
 * The ops table, loading the module on first use (see above). GPUCORE_OK and *ret, or
 * GPUCORE_E_NOTSUP with "disassembler not available: <why>" (every call, once it failed).
 * Thread-safe.
 */
gpucore_status_t gc_disasm_module_get(const struct gc_disasm_module **ret, gpucore_diag_t *diag);

/* The table if it is already at hand (linked in, or loaded), else NULL; never loads. */
const struct gc_disasm_module *gc_disasm_module_peek(void);

#ifdef GC_DISASM_TEST_HOOKS
/*
 * Tests only (compiled into tests/unit/test_arch_disasm_module.c's own copy of arch/, never into
 * a program): forget the table or the failure, and take the module from @p path (NULL: the
 * path of the build) on the next use. A linked-in table still wins.
 */
void gc_disasm_module_test_reset(const char *path);
#endif

#endif /* GC_DISASM_MODULE_H */
