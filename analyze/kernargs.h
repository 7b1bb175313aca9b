/* SPDX-License-Identifier: MIT */
/*
 * Kernel arguments from a code object's metadata: the NT_AMDGPU_METADATA note ("AMDGPU", type
 * 32) of an AMDGPU code object is a MessagePack map whose "amdhsa.kernels" array describes each
 * kernel (".name", ".symbol", ".kernarg_segment_size") and its arguments (".args": ".name",
 * ".type_name", ".offset", ".size", ".value_kind", ".address_space"). The map is decoded with
 * msgpack-c; each argument's value is then read from a dispatch's kernarg segment bytes.
 *
 * The bytes come from a core and are hostile. Before msgpack-c sees them, their framing is
 * checked (every container's declared count fits in the bytes left, nesting at most
 * GC_KA_MAX_DEPTH, nothing truncated), because msgpack-c allocates a container's declared
 * count before it reads the elements; then the counts and strings below are bounded. Every
 * failure is one sentence in the diag naming the member ("amdhsa.kernels[0].args[2].offset:
 * expected an unsigned integer, found a string") and, where known, the byte offset in the
 * metadata. Nothing here prints; the metadata is owned by the caller (gc_ka_free()).
 */
#ifndef GC_ANALYZE_KERNARGS_H
#define GC_ANALYZE_KERNARGS_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

/* Limits, enforced by the parser (GPUCORE_E_LIMIT past them). */
#define GC_KA_MAX_METADATA_SIZE (4u << 20) /* bytes of one NT_AMDGPU_METADATA descriptor */
#define GC_KA_MAX_DEPTH         16u        /* nesting of MessagePack containers */
#define GC_KA_MAX_KERNELS       4096u      /* entries of amdhsa.kernels */
#define GC_KA_MAX_ARGS          1024u      /* entries of one kernel's .args */
#define GC_KA_MAX_STRING        1024u      /* bytes of one name, type name or kind */
#define GC_KA_MAX_SEGMENT                                      \
    (64u << 10) /* .kernarg_segment_size, .offset + .size (the \
                   bytes a capture keeps of a kernarg segment) */

/* amdhsa.printf: one "ID:N:S1:...:SN:FORMAT" string per printf call site of the code object
   (analyze/devprintf.h decodes them); a format is a program's string literal, so these bound
   what a hostile note makes the parser copy, not what a program may print. */
#define GC_KA_MAX_PRINTF        4096u /* entries of amdhsa.printf */
#define GC_KA_MAX_PRINTF_STRING 4096u /* bytes of one entry */

#define GC_NT_AMDGPU_METADATA 32u /* note type, owner "AMDGPU" */

struct gc_ka_arg {
    char *name;          /* ".name", or NULL (hidden arguments have none) */
    char *type_name;     /* ".type_name", or NULL */
    char *value_kind;    /* ".value_kind" ("global_buffer", "by_value", "hidden_...") */
    char *address_space; /* ".address_space" ("global", "constant", ...), or NULL */
    uint32_t offset, size;
};

struct gc_ka_kernel {
    char *name;   /* ".name" */
    char *symbol; /* ".symbol" ("vadd.kd"), or NULL */
    uint32_t kernarg_segment_size;
    uint32_t nargs;
    struct gc_ka_arg *args;
};

struct gc_ka_metadata {
    uint32_t nkernels;
    struct gc_ka_kernel *kernels;
    /* "amdhsa.printf", undecoded (devprintf.h): nprintf strings, NUL-free; none when the
       member is absent or malformed, printf_error then says which ("" when absent) */
    uint32_t nprintf;
    char **printf;
    char printf_error[GPUCORE_DIAG_MESSAGE_SIZE];
};

/*
 * Decode the MessagePack metadata @p buf (@p size bytes, borrowed) into *ret.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_CORRUPT  malformed MessagePack, a member of the wrong type, a required
 *                            member missing (.offset, .size, .value_kind, .name), an argument
 *                            past GC_KA_MAX_SEGMENT (a malformed "amdhsa.printf" fails
 *                            nothing: md->printf_error says what is wrong with it)
 * @retval GPUCORE_E_NOTFOUND no "amdhsa.kernels" member
 * @retval GPUCORE_E_LIMIT    past one of the limits above
 * @retval GPUCORE_E_INVAL    NULL buf with size > 0, or NULL ret
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_ka_parse(const void *buf, size_t size, struct gc_ka_metadata **ret,
                             gpucore_diag_t *reterr_diag);

/*
 * Find the NT_AMDGPU_METADATA note of the ELF image @p elf (@p size bytes, borrowed; copied
 * for libelf) and decode it with gc_ka_parse().
 * @retval as gc_ka_parse(), and GPUCORE_E_NOTFOUND when the image has no such note,
 *         GPUCORE_E_CORRUPT when it is not an ELF64 little-endian image, GPUCORE_E_LIMIT for a
 *         note larger than GC_KA_MAX_METADATA_SIZE
 */
gpucore_status_t gc_ka_from_elf(const uint8_t *elf, size_t size, struct gc_ka_metadata **ret,
                                gpucore_diag_t *reterr_diag);

void gc_ka_free(struct gc_ka_metadata *md); /* accepts NULL */

/* The kernel named @p name (its .name, or its .symbol with or without ".kd"); NULL if none. */
const struct gc_ka_kernel *gc_ka_find(const struct gc_ka_metadata *md, const char *name);

/* Whether the argument is hidden (value_kind "hidden_*"). */
int gc_ka_is_hidden(const struct gc_ka_arg *a);
/* Whether its value is an address (a buffer, a pointer type, or an address space given). */
int gc_ka_is_pointer(const struct gc_ka_arg *a);

/*
 * The argument's value from the kernarg segment @p seg (@p seg_size bytes available) as text
 * into @p buf: pointers as "0x...", float/double as "%g", signed and unsigned integer types by
 * their type name, hidden arguments that are not addresses (block counts, group sizes, grid
 * dims...) as unsigned decimal, anything else of at most 8 bytes as little-endian "0x...", wider values as
 * their bytes in memory order ("01 02 ...", at most 32 shown, then " ... (N bytes)"). *ret_u64
 * (optional) gets the first 8 bytes (fewer for a smaller argument), little-endian.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_UNAVAILABLE the argument lies past the bytes available (buf says which)
 */
gpucore_status_t gc_ka_format_value(const struct gc_ka_arg *a, const uint8_t *seg,
                                    uint64_t seg_size, char *buf, size_t size, uint64_t *ret_u64);

#endif /* GC_ANALYZE_KERNARGS_H */
