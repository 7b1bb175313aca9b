/* SPDX-License-Identifier: MIT */
/*
 * The address ranges of DIEs, with every entry counted (srcline_internal.h): DWARF 2-4
 * .debug_ranges and DWARF 5 .debug_rnglists (DWARF 5 §7.25: DW_RLE_*), read as libdw reads
 * them, a list shared by many DIEs decoded once per lookup; and the abbreviation check.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "srcline_internal.h"

/* A LEB128 number takes at most this many bytes (64 bits; libdw stops there too): an entry is
   a few bytes, so counting entries counts bytes. */
#define LEB_MAX_BYTES 10u

int gc_sl_charge(struct gc_sl_walk *w, uint64_t n)
{
    if (n > w->budget - w->steps)
        return -1;
    w->steps += n;
    return 0;
}

/* ---- reading -------------------------------------------------------------------------------- */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_fixed(struct rd *r, unsigned n)
{
    uint64_t v = 0;

    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | r->p[i];
    r->p += n;
    return v;
}

static uint64_t rd_leb(struct rd *r, int is_signed)
{
    uint64_t v = 0;
    unsigned shift = 0;

    for (unsigned i = 0; i < LEB_MAX_BYTES; i++) {
        uint8_t b;

        if (r->bad || r->p >= r->end)
            break;
        b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (is_signed && shift < 64 && (b & 0x40))
                v |= ~0ull << shift;
            return v;
        }
    }
    r->bad = 1;
    return 0;
}

static uint64_t rd_uleb(struct rd *r)
{
    return rd_leb(r, 0);
}

/* ---- the unit -------------------------------------------------------------------------------- */

/* A DWARF 5 unit without DW_AT_rnglists_base: libdw takes the offset table of the first
   .debug_rnglists header when that header is sound, else 0. The same here. */
static uint64_t default_rnglists_base(const struct gc_sl_data *d)
{
    struct rd r = { d->p, d->p + d->size, 0 };
    uint64_t len = rd_fixed(&r, 4), count;
    unsigned osz = 4;

    if (!d->p)
        return 0;
    if (len == 0xffffffffu) {
        len = rd_fixed(&r, 8);
        osz = 8;
    }
    if (r.bad || (size_t)(r.end - r.p) < 8 || len < 8 || len > (uint64_t)(r.end - r.p))
        return 0;
    if (rd_fixed(&r, 2) != 5)
        return 0;
    {
        uint64_t asz = rd_fixed(&r, 1), seg = rd_fixed(&r, 1);

        if ((asz != 4 && asz != 8) || seg != 0)
            return 0;
    }
    count = rd_fixed(&r, 4);
    if (r.bad || count == 0 || count > (len - 8) / osz)
        return 0;
    return (uint64_t)(r.p - d->p);
}

static uint64_t attr_udata(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
    Dwarf_Attribute a;
    Dwarf_Word v;

    return dwarf_attr(die, name, &a) && dwarf_formudata(&a, &v) == 0 ? v : dflt;
}

int gc_sl_unit_init(const struct gc_srcline *s, Dwarf_Die *cudie, struct gc_sl_unit *u)
{
    Dwarf_Half version;
    uint8_t type, asz, osz;
    Dwarf_Die die;
    Dwarf_Off abbrev;
    Dwarf_Attribute a;
    Dwarf_Addr base;

    memset(u, 0, sizeof(*u));
    if (!cudie->cu ||
        dwarf_cu_info(cudie->cu, &version, &type, NULL, NULL, NULL, NULL, NULL) != 0 ||
        !dwarf_cu_die(cudie->cu, &die, &version, &abbrev, &asz, &osz, NULL, NULL))
        return -1;
    if (version < 2 || version > 5 || (asz != 4 && asz != 8) || (osz != 4 && osz != 8) ||
        (type != DW_UT_compile && type != DW_UT_partial))
        return -1;
    u->version = version;
    u->address_size = asz;
    u->offset_size = osz;
    u->abbrev_offset = abbrev;
    if (dwarf_lowpc(&die, &base) != 0 &&
        dwarf_formaddr(dwarf_attr(&die, DW_AT_entry_pc, &a), &base) != 0)
        base = 0;
    u->base = base;
    if (version >= 5) {
        u->addr_base = attr_udata(&die, DW_AT_addr_base, 0);
        u->rnglists_base = attr_udata(&die, DW_AT_rnglists_base, 0);
        if (!u->rnglists_base)
            u->rnglists_base = default_rnglists_base(&s->sec[GC_SL_RNGLISTS]);
    }
    return 0;
}

/* ---- abbreviations ----------------------------------------------------------------------- */

int gc_sl_abbrev_sound(struct gc_srcline *s, struct gc_sl_walk *w, const struct gc_sl_unit *u)
{
    const struct gc_sl_data *d = &s->sec[GC_SL_ABBREV];
    struct rd r;

    for (uint32_t i = 0; i < s->nsound && i < GC_SL_ABBREV_SOUND; i++)
        if (s->sound[i] == u->abbrev_offset)
            return 1;
    if (!d->p || u->abbrev_offset >= d->size)
        return 1; /* libdw finds no abbreviation there: every DIE fails, cheaply */
    r = (struct rd){ d->p + u->abbrev_offset, d->p + d->size, 0 };
    /* As libdw reads a table: abbreviations until a code 0 or the section's end. */
    while (rd_uleb(&r) != 0 && !r.bad) {
        unsigned zero = 0;

        (void)rd_uleb(&r);     /* tag */
        (void)rd_fixed(&r, 1); /* has children */
        for (;;) {
            uint64_t name, form;

            if (gc_sl_charge(w, 1) != 0)
                return -1;
            name = rd_uleb(&r);
            form = rd_uleb(&r);
            if (form == DW_FORM_implicit_const)
                (void)rd_leb(&r, 1);
            if (r.bad || (name == 0 && form == 0))
                break;
            if ((form == DW_FORM_flag_present || form == DW_FORM_implicit_const) &&
                ++zero > GC_SRCLINE_MAX_ZERO_SIZE_ATTRS)
                return 0;
        }
    }
    s->sound[s->nsound++ % GC_SL_ABBREV_SOUND] = u->abbrev_offset;
    return 1;
}

/* ---- range lists ----------------------------------------------------------------------------- */

enum entry { E_RANGE, E_BASE, E_END, E_BAD };

/* Address @p idx of .debug_addr (DW_FORM_addrx and the DW_RLE_*x entries). */
static int addrx(const struct gc_srcline *s, const struct gc_sl_unit *u, uint64_t idx,
                 uint64_t *ret)
{
    const struct gc_sl_data *d = &s->sec[GC_SL_ADDR];
    struct rd r;

    if (!d->p || d->size < u->address_size || u->addr_base > d->size - u->address_size ||
        idx > (d->size - u->address_size - u->addr_base) / u->address_size)
        return -1;
    r = (struct rd){ d->p + u->addr_base + idx * u->address_size, d->p + d->size, 0 };
    *ret = rd_fixed(&r, u->address_size);
    return 0;
}

/* One .debug_ranges entry (DWARF 2-4: pairs of addresses; all ones selects a base). */
static enum entry next_range(struct rd *r, const struct gc_sl_unit *u, uint64_t *base,
                             uint64_t *lo, uint64_t *hi)
{
    uint64_t escape = u->address_size == 8 ? ~0ull : 0xffffffffull;
    uint64_t b = rd_fixed(r, u->address_size), e = rd_fixed(r, u->address_size);

    if (r->bad)
        return E_BAD;
    if (b == escape) {
        if (e == escape)
            return E_BAD;
        *base = e;
        return E_BASE;
    }
    if (b == 0 && e == 0)
        return E_END;
    *lo = *base + b;
    *hi = *base + e;
    return E_RANGE;
}

/* One .debug_rnglists entry (DWARF 5 §2.17.3). */
static enum entry next_rnglist(const struct gc_srcline *s, struct rd *r,
                               const struct gc_sl_unit *u, uint64_t *base, uint64_t *lo,
                               uint64_t *hi)
{
    uint64_t kind = rd_fixed(r, 1), a, b;

    switch (kind) {
    case DW_RLE_end_of_list:
        return r->bad ? E_BAD : E_END;
    case DW_RLE_base_addressx:
        a = rd_uleb(r);
        return !r->bad && addrx(s, u, a, base) == 0 ? E_BASE : E_BAD;
    case DW_RLE_base_address:
        *base = rd_fixed(r, u->address_size);
        return r->bad ? E_BAD : E_BASE;
    case DW_RLE_startx_endx:
        a = rd_uleb(r);
        b = rd_uleb(r);
        if (r->bad || addrx(s, u, a, lo) != 0 || addrx(s, u, b, hi) != 0)
            return E_BAD;
        return E_RANGE;
    case DW_RLE_startx_length:
        a = rd_uleb(r);
        b = rd_uleb(r);
        if (r->bad || addrx(s, u, a, lo) != 0)
            return E_BAD;
        *hi = *lo + b;
        return E_RANGE;
    case DW_RLE_offset_pair:
        a = rd_uleb(r);
        b = rd_uleb(r);
        *lo = *base + a;
        *hi = *base + b;
        return r->bad ? E_BAD : E_RANGE;
    case DW_RLE_start_end:
        *lo = rd_fixed(r, u->address_size);
        *hi = rd_fixed(r, u->address_size);
        return r->bad ? E_BAD : E_RANGE;
    case DW_RLE_start_length:
        *lo = rd_fixed(r, u->address_size);
        *hi = *lo + rd_uleb(r);
        return r->bad ? E_BAD : E_RANGE;
    default:
        return E_BAD;
    }
}

/* Where @p die's DW_AT_ranges list starts, and in which section: 0, or -1 (malformed). */
static int list_start(const struct gc_srcline *s, const struct gc_sl_unit *u, Dwarf_Attribute *a,
                      int *sec, uint64_t *start)
{
    const struct gc_sl_data *d;
    Dwarf_Word v;

    *sec = u->version < 5 ? GC_SL_RANGES : GC_SL_RNGLISTS;
    d = &s->sec[*sec];
    if (!d->p || dwarf_formudata(a, &v) != 0)
        return -1;
    if (u->version >= 5 && dwarf_whatform(a) == DW_FORM_rnglistx) {
        /* v is an index into the offset table at rnglists_base; offsets are from there. */
        struct rd r;

        if (d->size < u->offset_size || u->rnglists_base > d->size - u->offset_size ||
            v > (d->size - u->offset_size - u->rnglists_base) / u->offset_size)
            return -1;
        r = (struct rd){ d->p + u->rnglists_base + v * u->offset_size, d->p + d->size, 0 };
        v = rd_fixed(&r, u->offset_size) + u->rnglists_base;
    }
    if (v >= d->size)
        return -1;
    *start = v;
    return 0;
}

static uint32_t memo_slot(uint8_t kind, uint64_t start, uint64_t base, uint64_t addr_base)
{
    uint64_t h = (start * 0x9e3779b97f4a7c15ull) ^ (base * 0xc2b2ae3d27d4eb4full) ^
                 (addr_base * 0x165667b19e3779f9ull) ^ kind;

    return (uint32_t)((h ^ (h >> 29)) % GC_SL_MEMO_SLOTS);
}

/* Decode the list at @p start until it holds the PC or ends: 1, 0, or -1 (budget). */
static int list_has_pc(const struct gc_srcline *s, struct gc_sl_walk *w,
                       const struct gc_sl_unit *u, int sec, uint64_t start)
{
    const struct gc_sl_data *d = &s->sec[sec];
    struct rd r = { d->p + start, d->p + d->size, 0 };
    uint64_t base = u->base;

    for (;;) {
        uint64_t lo = 0, hi = 0;
        enum entry e;

        if (gc_sl_charge(w, 1) != 0)
            return -1;
        w->entries++;
        e = sec == GC_SL_RANGES ? next_range(&r, u, &base, &lo, &hi)
                                : next_rnglist(s, &r, u, &base, &lo, &hi);
        if (e == E_END || e == E_BAD)
            return 0;
        if (e == E_RANGE && w->pc >= lo && w->pc < hi)
            return 1;
    }
}

int gc_sl_die_has_pc(struct gc_srcline *s, struct gc_sl_walk *w, const struct gc_sl_unit *u,
                     Dwarf_Die *die)
{
    Dwarf_Addr lo, hi;
    Dwarf_Attribute a;
    struct gc_sl_memo *m;
    uint64_t start;
    uint8_t kind;
    int sec, has;

    /* As libdw: DW_AT_low_pc with DW_AT_high_pc first, else DW_AT_ranges of the DIE itself. */
    if (dwarf_highpc(die, &hi) == 0 && dwarf_lowpc(die, &lo) == 0)
        return w->pc >= lo && w->pc < hi;
    if (!dwarf_attr(die, DW_AT_ranges, &a) || list_start(s, u, &a, &sec, &start) != 0)
        return 0;
    if (!s->memo) {
        s->memo = calloc(GC_SL_MEMO_SLOTS, sizeof(*s->memo));
        if (!s->memo)
            return -2;
    }
    kind = (uint8_t)(sec | u->address_size << 4);
    m = &s->memo[memo_slot(kind, start, u->base, u->addr_base)];
    if (m->gen == s->gen && m->kind == kind && m->start == start && m->base == u->base &&
        m->addr_base == u->addr_base) {
        w->shared++;
        return m->has_pc;
    }
    has = list_has_pc(s, w, u, sec, start);
    if (has < 0)
        return -1;
    *m = (struct gc_sl_memo){ .start = start, .base = u->base, .addr_base = u->addr_base,
                              .gen = s->gen, .kind = kind, .has_pc = (uint8_t)has };
    return has;
}
