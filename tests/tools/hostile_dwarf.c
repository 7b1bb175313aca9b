/* SPDX-License-Identifier: MIT */
/* Code objects with hostile DWARF (hostile_dwarf.h). */
#include "hostile_dwarf.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The minimal image's function, when there is no base code object. */
#define HD_FN_LO   0x1000u
#define HD_FN_SIZE 0x1000u
/* Range entries start here, above the function: offsets_pair operands of 3 ULEB bytes each
   (2^14 .. 2^21), so every entry of a list has the same size and entry i sits at a known
   offset. */
#define HD_ENTRY_LO  0x4000u
#define HD_MAX_N     (1u << 19)
#define HD_MAX_UNITS 4000u
/* DWARF 5 .debug_rnglists header with one offset: the list starts 16 bytes in. */
#define HD_RNGLISTS_HDR 12u
#define HD_RNGLIST_AT   16u
#define HD_OFFSET_PAIR_SIZE 7u
#define HD_BASE_ADDR_SIZE   9u
#define EM_AMDGPU_ 224u

struct buf {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void put(struct buf *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *q;

        while (cap < b->n + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void le(struct buf *b, uint64_t v, unsigned n)
{
    uint8_t t[8];

    for (unsigned i = 0; i < n; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put(b, t, n);
}

static void uleb(struct buf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;

        v >>= 7;
        if (v)
            c |= 0x80;
        put(b, &c, 1);
    } while (v);
}

static void str(struct buf *b, const char *s)
{
    put(b, s, strlen(s) + 1);
}

static void patch32(struct buf *b, size_t at, uint32_t v)
{
    if (!b->oom)
        for (unsigned i = 0; i < 4; i++)
            b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* ---- abbreviations: one table at offset 0 for every unit -------------------------------- */

enum {
    AB_CU = 1,       /* compile_unit: name, low_pc, high_pc (length), rnglists_base */
    AB_FN,           /* subprogram: name, low_pc, high_pc (length); children */
    AB_BLOCK_X,      /* lexical_block: ranges rnglistx */
    AB_BLOCK_OFF,    /* lexical_block: ranges sec_offset */
    AB_CU_RANGES,    /* compile_unit: ranges sec_offset; no children */
    AB_BOX,          /* lexical_block: low_pc, high_pc; children */
    AB_WIDE,         /* variable: N x flag_present */
    AB_FN_ALT,       /* subprogram: name GNU_strp_alt, low_pc, high_pc; children */
    AB_CU4,          /* compile_unit (DWARF 4): name, low_pc, high_pc */
};

static void abbrev(struct buf *b, unsigned code, unsigned tag, int children, const unsigned *af)
{
    uleb(b, code);
    uleb(b, tag);
    le(b, children ? DW_CHILDREN_yes : DW_CHILDREN_no, 1);
    for (; af[0]; af += 2) {
        uleb(b, af[0]);
        uleb(b, af[1]);
    }
    uleb(b, 0);
    uleb(b, 0);
}

static void abbrevs(struct buf *b, uint32_t wide)
{
    static const unsigned cu[] = { DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
                                   DW_AT_high_pc, DW_FORM_data8, DW_AT_rnglists_base,
                                   DW_FORM_sec_offset, 0, 0 };
    static const unsigned fn[] = { DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
                                   DW_AT_high_pc, DW_FORM_data8, 0, 0 };
    static const unsigned bx[] = { DW_AT_ranges, DW_FORM_rnglistx, 0, 0 };
    static const unsigned bo[] = { DW_AT_ranges, DW_FORM_sec_offset, 0, 0 };
    static const unsigned box[] = { DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data8,
                                    0, 0 };
    static const unsigned alt[] = { DW_AT_name, DW_FORM_GNU_strp_alt, DW_AT_low_pc,
                                    DW_FORM_addr, DW_AT_high_pc, DW_FORM_data8, 0, 0 };
    static const unsigned cu4[] = { DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
                                    DW_AT_high_pc, DW_FORM_data8, 0, 0 };
    abbrev(b, AB_CU, DW_TAG_compile_unit, 1, cu);
    abbrev(b, AB_FN, DW_TAG_subprogram, 1, fn);
    abbrev(b, AB_BLOCK_X, DW_TAG_lexical_block, 0, bx);
    abbrev(b, AB_BLOCK_OFF, DW_TAG_lexical_block, 0, bo);
    abbrev(b, AB_CU_RANGES, DW_TAG_compile_unit, 0, bo);
    abbrev(b, AB_BOX, DW_TAG_lexical_block, 1, box);
    /* AB_WIDE: its attributes are user-range names, each DW_FORM_flag_present. */
    uleb(b, AB_WIDE);
    uleb(b, DW_TAG_variable);
    le(b, DW_CHILDREN_no, 1);
    for (uint32_t i = 0; i < wide; i++) {
        uleb(b, DW_AT_lo_user + (i % 0x1000));
        uleb(b, DW_FORM_flag_present);
    }
    uleb(b, 0);
    uleb(b, 0);
    abbrev(b, AB_FN_ALT, DW_TAG_subprogram, 1, alt);
    abbrev(b, AB_CU4, DW_TAG_compile_unit, 1, cu4);
    uleb(b, 0); /* the table's end */
}

/* ---- units --------------------------------------------------------------------------------- */

/* A DWARF 5 (or 4) compile-unit header; returns where its length goes. */
static size_t unit_begin(struct buf *b, unsigned version)
{
    size_t at = b->n;

    le(b, 0, 4);
    le(b, version, 2);
    if (version >= 5) {
        le(b, DW_UT_compile, 1);
        le(b, 8, 1);
        le(b, 0, 4); /* abbrev offset */
    } else {
        le(b, 0, 4);
        le(b, 8, 1);
    }
    return at;
}

static void unit_end(struct buf *b, size_t at)
{
    patch32(b, at, (uint32_t)(b->n - at - 4));
}

static void cu_die(struct buf *b, unsigned version)
{
    uleb(b, version >= 5 ? AB_CU : AB_CU4);
    str(b, "hostile.cl");
    le(b, 0, 8);           /* low_pc 0: the base of offset pairs */
    le(b, 1ull << 32, 8);  /* high_pc: a length, covering every PC the tests use */
    if (version >= 5)
        le(b, HD_RNGLISTS_HDR, 4); /* rnglists_base: after the header */
}

static void fn_die(struct buf *b, unsigned code, uint64_t lo, uint64_t size)
{
    uleb(b, code);
    if (code == AB_FN)
        str(b, "vadd");
    else
        le(b, 0, 4); /* GNU_strp_alt: offset 0 of the alternate .debug_str */
    le(b, lo, 8);
    le(b, size, 8);
}

/* A DWARF 5 .debug_rnglists of one list: N offset pairs (base_entries 0) or N base_address
   entries, then end_of_list. */
static void rnglists(struct buf *b, uint32_t n, int base_entries)
{
    size_t at = b->n;

    le(b, 0, 4);
    le(b, 5, 2);
    le(b, 8, 1);
    le(b, 0, 1);
    le(b, 1, 4);                                 /* offset_entry_count */
    le(b, HD_RNGLIST_AT - HD_RNGLISTS_HDR, 4);  /* offsets[0] */
    for (uint32_t i = 0; i < n; i++) {
        if (base_entries) {
            le(b, DW_RLE_base_address, 1);
            le(b, 0x100000ull + i, 8);
        } else {
            le(b, DW_RLE_offset_pair, 1);
            uleb(b, HD_ENTRY_LO + 2ull * i);
            uleb(b, HD_ENTRY_LO + 2ull * i + 1);
        }
    }
    le(b, DW_RLE_end_of_list, 1);
    patch32(b, at, (uint32_t)(b->n - at - 4));
}

/* ---- the image ----------------------------------------------------------------------------- */

struct sec {
    const char *name;
    struct buf b;
    uint64_t flags;
};

enum { S_ABBREV, S_INFO, S_RNGLISTS, S_RANGES, S_ALTLINK, S_STR, NSEC };

static const char *const case_names[HD_NCASES] = {
    [HD_SHARED_RNGLISTX] = "shared-rnglistx", [HD_SHARED_RNGLISTS] = "shared-rnglists",
    [HD_SHARED_RANGES] = "shared-ranges",     [HD_SUFFIX_RNGLISTS] = "suffix-rnglists",
    [HD_BASE_SUFFIX] = "base-suffix",         [HD_SHARED_UNITS] = "shared-units",
    [HD_WIDE_ABBREV] = "wide-abbrev",         [HD_ALTLINK] = "altlink",
    [HD_ZLIB_BOMB] = "zlib-bomb",
};

int hd_case_by_name(const char *name)
{
    for (int i = 0; i < HD_NCASES; i++)
        if (strcmp(name, case_names[i]) == 0)
            return i;
    return -1;
}

const char *hd_case_name(enum hd_case c)
{
    return c < HD_NCASES ? case_names[c] : "?";
}

/* The DWARF of case @p c for a function at [lo, lo + size). */
static void build_dwarf(enum hd_case c, const struct hd_opts *o, uint64_t lo, uint64_t size,
                        struct sec *s)
{
    uint32_t n = o->n;
    unsigned version = c == HD_SHARED_RANGES ? 4 : 5;
    size_t u;

    abbrevs(&s[S_ABBREV].b, c == HD_WIDE_ABBREV ? n : 1);
    if (c == HD_SHARED_UNITS) {
        uint32_t units = n < HD_MAX_UNITS ? n : HD_MAX_UNITS;

        for (uint32_t i = 0; i < units; i++) {
            u = unit_begin(&s[S_INFO].b, 5);
            uleb(&s[S_INFO].b, AB_CU_RANGES);
            le(&s[S_INFO].b, HD_RNGLIST_AT, 4);
            unit_end(&s[S_INFO].b, u);
        }
    }
    u = unit_begin(&s[S_INFO].b, version);
    cu_die(&s[S_INFO].b, version);
    if (c == HD_WIDE_ABBREV) {
        uleb(&s[S_INFO].b, AB_BOX);
        le(&s[S_INFO].b, 0x100000, 8);
        le(&s[S_INFO].b, 1, 8);
        for (uint32_t i = 0; i < n; i++)
            uleb(&s[S_INFO].b, AB_WIDE);
        le(&s[S_INFO].b, 0, 1);
    }
    fn_die(&s[S_INFO].b, c == HD_ALTLINK ? AB_FN_ALT : AB_FN, lo, size);
    for (uint32_t i = 0; i < n; i++) {
        switch (c) {
        case HD_SHARED_RNGLISTX:
            uleb(&s[S_INFO].b, AB_BLOCK_X);
            uleb(&s[S_INFO].b, 0);
            break;
        case HD_SHARED_RNGLISTS:
            uleb(&s[S_INFO].b, AB_BLOCK_OFF);
            le(&s[S_INFO].b, HD_RNGLIST_AT, 4);
            break;
        case HD_SHARED_RANGES:
            uleb(&s[S_INFO].b, AB_BLOCK_OFF);
            le(&s[S_INFO].b, 0, 4);
            break;
        case HD_SUFFIX_RNGLISTS:
            uleb(&s[S_INFO].b, AB_BLOCK_OFF);
            le(&s[S_INFO].b, HD_RNGLIST_AT + (uint64_t)i * HD_OFFSET_PAIR_SIZE, 4);
            break;
        case HD_BASE_SUFFIX:
            uleb(&s[S_INFO].b, AB_BLOCK_OFF);
            le(&s[S_INFO].b, HD_RNGLIST_AT + (uint64_t)i * HD_BASE_ADDR_SIZE, 4);
            break;
        default:
            i = n; /* no blocks in the function */
            break;
        }
    }
    le(&s[S_INFO].b, 0, 1); /* the function's children end */
    le(&s[S_INFO].b, 0, 1); /* the unit's children end */
    unit_end(&s[S_INFO].b, u);

    switch (c) {
    case HD_SHARED_RNGLISTX:
    case HD_SHARED_RNGLISTS:
    case HD_SUFFIX_RNGLISTS:
    case HD_SHARED_UNITS:
        rnglists(&s[S_RNGLISTS].b, n, 0);
        break;
    case HD_BASE_SUFFIX:
        rnglists(&s[S_RNGLISTS].b, n, 1);
        break;
    case HD_SHARED_RANGES:
        for (uint32_t i = 0; i < n; i++) {
            le(&s[S_RANGES].b, HD_ENTRY_LO + 2ull * i, 8);
            le(&s[S_RANGES].b, HD_ENTRY_LO + 2ull * i + 1, 8);
        }
        le(&s[S_RANGES].b, 0, 8);
        le(&s[S_RANGES].b, 0, 8);
        break;
    case HD_ALTLINK:
        str(&s[S_ALTLINK].b, o->alt_path ? o->alt_path : "/nonexistent/gpucore-alt.debug");
        for (int i = 0; i < 20; i++)
            le(&s[S_ALTLINK].b, 0xa0u + (unsigned)i, 1); /* a build-id nobody has */
        str(&s[S_STR].b, o->str0 ? o->str0 : "vadd");
        break;
    default:
        break;
    }
}

/* .debug_info compressed as ELF does it (Elf64_Chdr, zlib): N MiB of zeros. */
static int zlib_bomb(uint32_t mib, struct buf *out, char *why, size_t why_size)
{
    z_stream z;
    static uint8_t zeros[1 << 16], chunk[1 << 16];
    uint64_t left = (uint64_t)mib << 20;
    int rc = Z_OK;

    memset(&z, 0, sizeof(z));
    if (deflateInit(&z, 9) != Z_OK) {
        snprintf(why, why_size, "deflateInit failed");
        return -1;
    }
    le(out, 1 /* ELFCOMPRESS_ZLIB */, 4);
    le(out, 0, 4);
    le(out, left, 8);
    le(out, 1, 8);
    while (rc != Z_STREAM_END) {
        size_t now = left < sizeof(zeros) ? (size_t)left : sizeof(zeros);

        z.next_in = zeros;
        z.avail_in = (uInt)now;
        left -= now;
        do {
            z.next_out = chunk;
            z.avail_out = sizeof(chunk);
            rc = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
            put(out, chunk, sizeof(chunk) - z.avail_out);
        } while (z.avail_out == 0 || (!left && rc != Z_STREAM_END));
    }
    deflateEnd(&z);
    return 0;
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static void wr(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The minimal base: an ELF64 AMDGPU ET_DYN header, a null section and .shstrtab. */
static int minimal_base(struct buf *b)
{
    uint8_t h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 }, sh[3 * 64];
    static const char names[] = "\0.shstrtab";

    wr(h + 16, 3, 2);
    wr(h + 18, EM_AMDGPU_, 2);
    wr(h + 20, 1, 4);
    wr(h + 40, 64 + 16, 8); /* e_shoff */
    wr(h + 52, 64, 2);
    wr(h + 58, 64, 2);
    wr(h + 60, 2, 2);
    wr(h + 62, 1, 2);
    put(b, h, 64);
    put(b, names, sizeof(names));
    while (b->n % 16)
        le(b, 0, 1);
    memset(sh, 0, sizeof(sh));
    wr(sh + 64 + 0, 1, 4);
    wr(sh + 64 + 4, 3 /* SHT_STRTAB */, 4);
    wr(sh + 64 + 24, 64, 8);
    wr(sh + 64 + 32, sizeof(names), 8);
    wr(sh + 64 + 48, 1, 8);
    put(b, sh, 2 * 64);
    return b->oom ? -1 : 0;
}

/* The function symbol @p name of @p elf: its value and size. */
static int find_symbol(const uint8_t *e, size_t size, uint64_t shoff, unsigned shnum,
                       const char *name, uint64_t *value, uint64_t *sz)
{
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *sh = e + shoff + 64ull * i;
        uint64_t off = rd(sh + 24, 8), len = rd(sh + 32, 8), ent = rd(sh + 56, 8);
        uint32_t link = (uint32_t)rd(sh + 40, 4);
        const uint8_t *ssh;
        uint64_t soff, slen;

        if (rd(sh + 4, 4) != 2 /* SHT_SYMTAB */ || ent != 24 || off > size ||
            len > size - off || link >= shnum)
            continue;
        ssh = e + shoff + 64ull * link;
        soff = rd(ssh + 24, 8);
        slen = rd(ssh + 32, 8);
        if (soff > size || slen > size - soff)
            continue;
        for (uint64_t k = 0; k < len / 24; k++) {
            const uint8_t *sym = e + off + 24 * k;
            uint32_t nm = (uint32_t)rd(sym, 4);

            if ((sym[4] & 0xf) == 2 /* STT_FUNC */ && nm < slen &&
                strnlen((const char *)e + soff + nm, slen - nm) == strlen(name) &&
                memcmp(e + soff + nm, name, strlen(name)) == 0) {
                *value = rd(sym + 8, 8);
                *sz = rd(sym + 16, 8);
                return 0;
            }
        }
    }
    return -1;
}

static int fail(char *why, size_t why_size, const char *msg)
{
    snprintf(why, why_size, "%s", msg);
    return -1;
}

int hd_build(enum hd_case c, const struct hd_opts *o, uint8_t **out, size_t *out_size,
             uint64_t *pc, char *why, size_t why_size)
{
    struct sec s[NSEC] = {
        [S_ABBREV] = { .name = ".debug_abbrev" },   [S_INFO] = { .name = ".debug_info" },
        [S_RNGLISTS] = { .name = ".debug_rnglists" }, [S_RANGES] = { .name = ".debug_ranges" },
        [S_ALTLINK] = { .name = ".gnu_debugaltlink" }, [S_STR] = { .name = ".debug_str" },
    };
    struct buf img = { 0 }, shstr = { 0 }, shdrs = { 0 }, mini = { 0 };
    const uint8_t *base = o->base;
    size_t base_size = o->base_size;
    uint64_t shoff, lo = HD_FN_LO, size = HD_FN_SIZE;
    unsigned shnum, shstrndx, added = 0;
    int rc = -1;

    if (c >= HD_NCASES || o->n == 0 || o->n > HD_MAX_N)
        return fail(why, why_size, "unknown case, or N not in 1 .. 2^19");
    if (!base) {
        if (minimal_base(&mini) != 0)
            return fail(why, why_size, "out of memory");
        base = mini.p;
        base_size = mini.n;
    }
    if (base_size < 64 || memcmp(base, "\x7f" "ELF\x02\x01", 6) != 0) {
        fail(why, why_size, "the base is not a little-endian ELF64 file");
        goto out;
    }
    shoff = rd(base + 40, 8);
    shnum = (unsigned)rd(base + 60, 2);
    shstrndx = (unsigned)rd(base + 62, 2);
    if (rd(base + 58, 2) != 64 || shnum == 0 || shstrndx >= shnum || shoff > base_size ||
        (base_size - shoff) / 64 < shnum) {
        fail(why, why_size, "the base has no usable section headers");
        goto out;
    }
    if (o->base && find_symbol(base, base_size, shoff, shnum, o->kernel ? o->kernel : "vadd",
                               &lo, &size) != 0) {
        fail(why, why_size, "the base has no such function symbol");
        goto out;
    }
    if (size < 8)
        size = 0x100;
    *pc = lo + (size > 0xb8 ? 0xb4 : (size / 2) & ~3ull);

    build_dwarf(c, o, lo, size, s);
    if (c == HD_ZLIB_BOMB) {
        free(s[S_INFO].b.p);
        memset(&s[S_INFO].b, 0, sizeof(s[S_INFO].b));
        s[S_INFO].flags = 0x800; /* SHF_COMPRESSED */
        if (zlib_bomb(o->n, &s[S_INFO].b, why, why_size) != 0)
            goto out;
    }

    /* The base, then the new sections' bytes, .shstrtab (the old names and the new ones), and
       the section headers: the old ones (their DWARF made SHT_NOBITS) and the new ones. */
    put(&img, base, base_size);
    {
        const uint8_t *osh = base + shoff + 64ull * shstrndx;
        uint64_t soff = rd(osh + 24, 8), slen = rd(osh + 32, 8);

        if (soff > base_size || slen > base_size - soff) {
            fail(why, why_size, "the base's .shstrtab is outside the file");
            goto out;
        }
        put(&shstr, base + soff, (size_t)slen);
    }
    for (unsigned i = 0; i < shnum; i++) {
        uint8_t sh[64];
        uint32_t nm;

        memcpy(sh, base + shoff + 64ull * i, 64);
        nm = (uint32_t)rd(sh, 4);
        if (i && nm < shstr.n &&
            (strncmp((const char *)shstr.p + nm, ".debug_", 7) == 0 ||
             strncmp((const char *)shstr.p + nm, ".gnu_debugaltlink", 17) == 0))
            wr(sh + 4, 8 /* SHT_NOBITS */, 4);
        put(&shdrs, sh, 64);
    }
    for (int k = 0; k < NSEC; k++) {
        uint8_t sh[64] = { 0 };

        if (!s[k].b.n)
            continue;
        while (img.n % 8)
            le(&img, 0, 1);
        wr(sh, shstr.n, 4);
        str(&shstr, s[k].name);
        wr(sh + 4, 1 /* SHT_PROGBITS */, 4);
        wr(sh + 8, s[k].flags, 8);
        wr(sh + 24, img.n, 8);
        wr(sh + 32, s[k].b.n, 8);
        wr(sh + 48, 1, 8);
        put(&img, s[k].b.p, s[k].b.n);
        put(&shdrs, sh, 64);
        added++;
    }
    {
        uint8_t *sh;
        size_t at = img.n;

        put(&img, shstr.p, shstr.n);
        while (img.n % 8)
            le(&img, 0, 1);
        if (shdrs.oom || img.oom)
            goto oom;
        sh = shdrs.p + 64ull * shstrndx;
        wr(sh + 24, at, 8);
        wr(sh + 32, shstr.n, 8);
        wr(img.p + 40, img.n, 8);
        wr(img.p + 60, shnum + added, 2);
        put(&img, shdrs.p, shdrs.n);
    }
    for (int k = 0; k < NSEC; k++)
        if (s[k].b.oom)
            goto oom;
    if (img.oom || shstr.oom)
        goto oom;
    *out = img.p;
    *out_size = img.n;
    img.p = NULL;
    rc = 0;
    goto out;
oom:
    fail(why, why_size, "out of memory");
out:
    for (int k = 0; k < NSEC; k++)
        free(s[k].b.p);
    free(img.p);
    free(shstr.p);
    free(shdrs.p);
    free(mini.p);
    return rc;
}
