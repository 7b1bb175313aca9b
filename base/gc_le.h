/* SPDX-License-Identifier: MIT */
/*
 * Explicit little-endian access to byte buffers (G-FMT-1). Never memcpy host structs to or
 * from disk: every on-disk field goes through these helpers, which compile to a single load or
 * store on little-endian hosts and stay correct on big-endian ones.
 *
 * Internal header, shared by all gpucore modules.
 */
#ifndef GC_LE_H
#define GC_LE_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t gc_le16_get(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)(b[0] | (uint16_t)b[1] << 8);
}

static inline uint32_t gc_le32_get(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t gc_le64_get(const void *p)
{
    const uint8_t *b = p;
    return (uint64_t)gc_le32_get(b) | (uint64_t)gc_le32_get(b + 4) << 32;
}

static inline void gc_le16_put(void *p, uint16_t v)
{
    uint8_t *b = p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

static inline void gc_le32_put(void *p, uint32_t v)
{
    uint8_t *b = p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static inline void gc_le64_put(void *p, uint64_t v)
{
    gc_le32_put(p, (uint32_t)v);
    gc_le32_put((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

/* Read an unsigned little-endian field of width 1, 2, 4 or 8 bytes. */
static inline uint64_t gc_le_get(const void *p, unsigned width)
{
    switch (width) {
    case 1:
        return *(const uint8_t *)p;
    case 2:
        return gc_le16_get(p);
    case 4:
        return gc_le32_get(p);
    default:
        return gc_le64_get(p);
    }
}

/* Write an unsigned little-endian field of width 1, 2, 4 or 8 bytes (v is truncated). */
static inline void gc_le_put(void *p, unsigned width, uint64_t v)
{
    switch (width) {
    case 1:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case 2:
        gc_le16_put(p, (uint16_t)v);
        break;
    case 4:
        gc_le32_put(p, (uint32_t)v);
        break;
    default:
        gc_le64_put(p, v);
        break;
    }
}

/*
 * Overflow-safe bounds test (G-FMT-3): true if [off, off + n) does not fit in len bytes.
 * Written so that no addition can wrap, whatever the untrusted values are.
 */
static inline int gc_out_of_bounds(uint64_t off, uint64_t n, uint64_t len)
{
    return off > len || len - off < n;
}

#endif /* GC_LE_H */
