/* SPDX-License-Identifier: MIT */
/*
 * The kernels a process has loaded, as the emulated GPU needs them: the name of the kernel
 * whose descriptor a dispatch packet points at. The runtime publishes its code objects in
 * _amdgpu_r_debug (whose address it gave RUNTIME_ENABLE): a link map of (load bias, URI);
 * each code object's symbol table names its kernel descriptors ("NAME.kd").
 */
#ifndef GC_EMU_CODEOBJ_H
#define GC_EMU_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>

/* Where the bytes come from. */
struct gc_emu_co_source {
    void *ctx;
    /* process memory: 0, or -1 when not all of it can be read */
    int (*read_mem)(void *ctx, uint64_t addr, void *buf, size_t len);
    /* a file as the process names it (inside its root file system): the bytes read (fewer
       than @p len at its end), or -1 */
    long (*read_file)(void *ctx, const char *path, uint64_t off, void *buf, size_t len);
};

/* Bounds on what a process can make the emulator read. */
#define GC_EMU_CO_MAX_BYTES (256u << 20)  /* one code object */
#define GC_EMU_CO_MAX_OBJECTS 1024u       /* code objects remembered per process */
#define GC_EMU_CO_MAX_KERNELS 65536u      /* kernel names remembered per process */

struct gc_emu_kernels;

/* An empty cache, or NULL (no memory). Free with gc_emu_kernels_free (NULL is fine). */
struct gc_emu_kernels *gc_emu_kernels_new(void);
void gc_emu_kernels_free(struct gc_emu_kernels *k);

/*
 * The name of the kernel whose descriptor is at @p kd ("_Z4vaddPfPKfi"), reading the code
 * objects the process has loaded since the last call when it is not known yet. NULL when no
 * loaded code object has it (or @p r_debug is 0). The string lives as long as @p k.
 */
const char *gc_emu_kernels_name(struct gc_emu_kernels *k, const struct gc_emu_co_source *src,
                                uint64_t r_debug, uint64_t kd);

#define GC_EMU_KD_SIZE 64u           /* an AMDHSA kernel descriptor */
#define GC_EMU_CODE_MAX (64u << 10)  /* bytes of a kernel's code kept */

/* A kernel as its code object describes it (the bytes the runtime loaded, read from the code
   object itself: the GPU copies of them are made by kernels the emulator does not compute). */
struct gc_emu_kernel_info {
    const char *name;
    uint8_t desc[GC_EMU_KD_SIZE]; /* its kernel descriptor */
    int have_desc;
    uint64_t entry;               /* its code's address */
    const uint8_t *code;          /* the first code_len bytes of that code (NULL: none) */
    size_t code_len;
    uint64_t code_size;           /* its function symbol's size (0: not given) */
};

/* What is known of the kernel whose descriptor is at @p kd (after gc_emu_kernels_name found
   it). Pointers live as long as @p k. Returns 0, or -1 (unknown descriptor). */
int gc_emu_kernels_info(const struct gc_emu_kernels *k, uint64_t kd,
                        struct gc_emu_kernel_info *ret);

#endif
