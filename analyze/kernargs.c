/* SPDX-License-Identifier: MIT */
/*
 * Kernel arguments from NT_AMDGPU_METADATA (kernargs.h): the framing check, the msgpack-c
 * decode into struct gc_ka_metadata, the note lookup with libelf, and argument values.
 */
#include "kernargs.h"

#include <inttypes.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include "gc_util.h"

/* ---- Framing: what msgpack-c would allocate is bounded by the bytes ------------------------ */

static uint64_t be_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The MessagePack type byte's layout: bytes of a length field after it, fixed payload bytes,
   and whether the length counts payload bytes (str, bin, ext) or elements (array, map: x1, x2). */
struct mp_format {
    uint8_t lo, hi;
    uint8_t len_bytes; /* 0: none */
    uint8_t fixed;     /* payload bytes besides a length-counted payload (ext's type byte) */
    uint8_t elements;  /* 0: the length counts bytes; 1 array; 2 map */
    uint8_t low_bits;  /* the count is in the type byte's low bits (fixmap, fixarray, fixstr) */
};

static const struct mp_format mp_formats[] = {
    { 0x00, 0x7f, 0, 0, 0, 0 }, { 0x80, 0x8f, 0, 0, 2, 4 }, { 0x90, 0x9f, 0, 0, 1, 4 },
    { 0xa0, 0xbf, 0, 0, 0, 5 }, { 0xc0, 0xc0, 0, 0, 0, 0 }, { 0xc2, 0xc3, 0, 0, 0, 0 },
    { 0xc4, 0xc4, 1, 0, 0, 0 }, { 0xc5, 0xc5, 2, 0, 0, 0 }, { 0xc6, 0xc6, 4, 0, 0, 0 },
    { 0xc7, 0xc7, 1, 1, 0, 0 }, { 0xc8, 0xc8, 2, 1, 0, 0 }, { 0xc9, 0xc9, 4, 1, 0, 0 },
    { 0xca, 0xca, 0, 4, 0, 0 }, { 0xcb, 0xcb, 0, 8, 0, 0 }, { 0xcc, 0xcc, 0, 1, 0, 0 },
    { 0xcd, 0xcd, 0, 2, 0, 0 }, { 0xce, 0xce, 0, 4, 0, 0 }, { 0xcf, 0xcf, 0, 8, 0, 0 },
    { 0xd0, 0xd0, 0, 1, 0, 0 }, { 0xd1, 0xd1, 0, 2, 0, 0 }, { 0xd2, 0xd2, 0, 4, 0, 0 },
    { 0xd3, 0xd3, 0, 8, 0, 0 }, { 0xd4, 0xd4, 0, 2, 0, 0 }, { 0xd5, 0xd5, 0, 3, 0, 0 },
    { 0xd6, 0xd6, 0, 5, 0, 0 }, { 0xd7, 0xd7, 0, 9, 0, 0 }, { 0xd8, 0xd8, 0, 17, 0, 0 },
    { 0xd9, 0xd9, 1, 0, 0, 0 }, { 0xda, 0xda, 2, 0, 0, 0 }, { 0xdb, 0xdb, 4, 0, 0, 0 },
    { 0xdc, 0xdc, 2, 0, 1, 0 }, { 0xdd, 0xdd, 4, 0, 1, 0 }, { 0xde, 0xde, 2, 0, 2, 0 },
    { 0xdf, 0xdf, 4, 0, 2, 0 }, { 0xe0, 0xff, 0, 0, 0, 0 },
};

/*
 * Check that @p buf starts with one whole MessagePack object whose containers each declare
 * no more elements than bytes remain, nested at most GC_KA_MAX_DEPTH deep. This is not a
 * decoder (msgpack-c decodes): it only makes sure msgpack-c's up-front allocation of a
 * container's declared count is bounded by the input's size.
 */
static gpucore_status_t mp_frame_check(const uint8_t *buf, size_t size, gpucore_diag_t *diag)
{
    uint64_t pending[GC_KA_MAX_DEPTH + 1]; /* elements still expected at each open level */
    unsigned depth = 0;
    size_t pos = 0;

    pending[0] = 1;
    while (depth > 0 || pending[0] > 0) {
        const struct mp_format *f = NULL;
        uint64_t len = 0, need;
        uint8_t t;

        if (pending[depth] == 0) {
            depth--;
            continue;
        }
        pending[depth]--;
        GC_FAIL_IF(pos >= size, diag, GPUCORE_E_CORRUPT, pos,
                   "the MessagePack metadata ends at byte %zu inside a map or array", pos);
        t = buf[pos];
        for (size_t i = 0; i < GC_ARRAY_SIZE(mp_formats); i++)
            if (t >= mp_formats[i].lo && t <= mp_formats[i].hi)
                f = &mp_formats[i];
        GC_FAIL_IF(!f, diag, GPUCORE_E_CORRUPT, pos,
                   "byte %zu of the MessagePack metadata is 0x%02x, not a type", pos, t);
        pos++;
        if (f->low_bits)
            len = t & ((1u << f->low_bits) - 1u);
        if (f->len_bytes) {
            GC_FAIL_IF(size - pos < f->len_bytes, diag, GPUCORE_E_CORRUPT, pos,
                       "the MessagePack metadata ends at byte %zu inside a length", size);
            len = be_get(buf + pos, f->len_bytes);
            pos += f->len_bytes;
        }
        if (f->elements) {
            need = len * f->elements; /* len < 2^32: no overflow */
            GC_FAIL_IF(need > size - pos, diag, GPUCORE_E_CORRUPT, pos - 1,
                       "a MessagePack %s at byte %zu declares %" PRIu64
                       " entries, more than the %zu bytes left",
                       f->elements == 2 ? "map" : "array", pos - 1 - f->len_bytes, len, size - pos);
            if (need == 0)
                continue;
            GC_FAIL_IF(depth == GC_KA_MAX_DEPTH, diag, GPUCORE_E_LIMIT, pos,
                       "the MessagePack metadata nests more than %u maps and arrays",
                       GC_KA_MAX_DEPTH);
            pending[++depth] = need;
            continue;
        }
        need = (f->low_bits || f->len_bytes ? len : 0) + f->fixed;
        GC_FAIL_IF(need > size - pos, diag, GPUCORE_E_CORRUPT, pos,
                   "the MessagePack metadata ends at byte %zu inside a %" PRIu64
                   "-byte value that starts at byte %zu",
                   size, need, pos);
        pos += (size_t)need;
    }
    return GPUCORE_OK;
}

/* ---- Decoding with msgpack-c ----------------------------------------------------------------- */

static const char *const mp_type_names[] = {
    [MSGPACK_OBJECT_NIL] = "nil",
    [MSGPACK_OBJECT_BOOLEAN] = "a boolean",
    [MSGPACK_OBJECT_POSITIVE_INTEGER] = "an unsigned integer",
    [MSGPACK_OBJECT_NEGATIVE_INTEGER] = "a negative integer",
    [MSGPACK_OBJECT_FLOAT32] = "a float",
    [MSGPACK_OBJECT_FLOAT64] = "a float",
    [MSGPACK_OBJECT_STR] = "a string",
    [MSGPACK_OBJECT_ARRAY] = "an array",
    [MSGPACK_OBJECT_MAP] = "a map",
    [MSGPACK_OBJECT_BIN] = "binary data",
    [MSGPACK_OBJECT_EXT] = "an extension",
};

static const char *mp_type_name(msgpack_object_type t)
{
    return (size_t)t < GC_ARRAY_SIZE(mp_type_names) && mp_type_names[t] ? mp_type_names[t]
                                                                        : "an unknown type";
}

/* The member @p key of map @p m, or NULL. */
static const msgpack_object *mp_get(const msgpack_object *m, const char *key)
{
    size_t klen = strlen(key);

    for (uint32_t i = 0; i < m->via.map.size; i++) {
        const msgpack_object *k = &m->via.map.ptr[i].key;

        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0)
            return &m->via.map.ptr[i].val;
    }
    return NULL;
}

/* Where a member is, for messages: "amdhsa.kernels[3].args[1]". */
struct mp_path {
    char text[96];
};

static gpucore_status_t wrong_type(gpucore_diag_t *diag, const struct mp_path *p, const char *key,
                                   const char *want, const msgpack_object *o)
{
    return gc_diag_set(diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET, "%s%s: expected %s, found %s",
                       p->text, key, want, mp_type_name(o->type));
}

/* The string @p o (named p->text + @p key in messages) as a new NUL-terminated copy in *ret:
   at most @p max bytes, no NUL inside. */
static gpucore_status_t mp_str_dup(const msgpack_object *o, const struct mp_path *p,
                                   const char *key, uint32_t max, char **ret, gpucore_diag_t *diag)
{
    char *s;

    *ret = NULL;
    if (o->type != MSGPACK_OBJECT_STR)
        return wrong_type(diag, p, key, "a string", o);
    GC_FAIL_IF(o->via.str.size > max, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "%s%s: a string of %" PRIu32 " bytes, more than the %" PRIu32 " allowed", p->text,
               key, o->via.str.size, max);
    GC_FAIL_IF(memchr(o->via.str.ptr, '\0', o->via.str.size), diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "%s%s: the string holds a NUL byte", p->text, key);
    s = gc_malloc((size_t)o->via.str.size + 1u);
    if (!s)
        return GPUCORE_E_NOMEM;
    memcpy(s, o->via.str.ptr, o->via.str.size);
    s[o->via.str.size] = '\0';
    *ret = s;
    return GPUCORE_OK;
}

/* A string member: *ret a new NUL-terminated copy, NULL when absent and not @p required. */
static gpucore_status_t mp_string(const msgpack_object *m, const char *key, int required,
                                  const struct mp_path *p, char **ret, gpucore_diag_t *diag)
{
    const msgpack_object *o = mp_get(m, key);

    *ret = NULL;
    if (!o) {
        GC_FAIL_IF(required, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET, "%s: no %s member", p->text,
                   key);
        return GPUCORE_OK;
    }
    return mp_str_dup(o, p, key, GC_KA_MAX_STRING, ret, diag);
}

/* A required unsigned member at most @p max. */
static gpucore_status_t mp_uint(const msgpack_object *m, const char *key, uint64_t max,
                                const struct mp_path *p, uint32_t *ret, gpucore_diag_t *diag)
{
    const msgpack_object *o = mp_get(m, key);

    GC_FAIL_IF(!o, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET, "%s: no %s member", p->text, key);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return wrong_type(diag, p, key, "an unsigned integer", o);
    GC_FAIL_IF(o->via.u64 > max, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "%s%s: %" PRIu64 " is more than %" PRIu64, p->text, key, o->via.u64, max);
    *ret = (uint32_t)o->via.u64;
    return GPUCORE_OK;
}

static gpucore_status_t parse_arg(const msgpack_object *o, const struct mp_path *p,
                                  struct gc_ka_arg *a, gpucore_diag_t *diag)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        return wrong_type(diag, p, "", "a map", o);
    GC_TRY(mp_string(o, ".name", 0, p, &a->name, diag));
    GC_TRY(mp_string(o, ".type_name", 0, p, &a->type_name, diag));
    GC_TRY(mp_string(o, ".value_kind", 1, p, &a->value_kind, diag));
    GC_TRY(mp_string(o, ".address_space", 0, p, &a->address_space, diag));
    GC_TRY(mp_uint(o, ".offset", GC_KA_MAX_SEGMENT, p, &a->offset, diag));
    GC_TRY(mp_uint(o, ".size", GC_KA_MAX_SEGMENT, p, &a->size, diag));
    GC_FAIL_IF(a->offset + a->size > GC_KA_MAX_SEGMENT, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "%s: offset %" PRIu32 " and size %" PRIu32 " end past %u bytes", p->text, a->offset,
               a->size, GC_KA_MAX_SEGMENT);
    return GPUCORE_OK;
}

static gpucore_status_t parse_kernel(const msgpack_object *o, uint32_t index,
                                     struct gc_ka_kernel *k, gpucore_diag_t *diag)
{
    struct mp_path p;
    const msgpack_object *args;

    snprintf(p.text, sizeof(p.text), "amdhsa.kernels[%" PRIu32 "]", index);
    if (o->type != MSGPACK_OBJECT_MAP)
        return wrong_type(diag, &p, "", "a map", o);
    GC_TRY(mp_string(o, ".name", 1, &p, &k->name, diag));
    /* A kernel is found by its name (gc_ka_find): an empty one names nothing. */
    GC_FAIL_IF(!k->name[0], diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET, "%s.name: an empty string",
               p.text);
    GC_TRY(mp_string(o, ".symbol", 0, &p, &k->symbol, diag));
    GC_TRY(mp_uint(o, ".kernarg_segment_size", GC_KA_MAX_SEGMENT, &p, &k->kernarg_segment_size,
                   diag));
    args = mp_get(o, ".args");
    if (!args)
        return GPUCORE_OK; /* a kernel without arguments */
    if (args->type != MSGPACK_OBJECT_ARRAY)
        return wrong_type(diag, &p, ".args", "an array", args);
    GC_FAIL_IF(args->via.array.size > GC_KA_MAX_ARGS, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "%s.args: %" PRIu32 " arguments, more than the %u allowed", p.text,
               args->via.array.size, GC_KA_MAX_ARGS);
    if (args->via.array.size == 0)
        return GPUCORE_OK;
    k->args = gc_calloc_array(args->via.array.size, sizeof(*k->args));
    if (!k->args)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < args->via.array.size; i++) {
        struct mp_path ap;

        snprintf(ap.text, sizeof(ap.text), "amdhsa.kernels[%" PRIu32 "].args[%" PRIu32 "]", index,
                 i);
        k->nargs = i + 1;
        GC_TRY(parse_arg(&args->via.array.ptr[i], &ap, &k->args[i], diag));
    }
    return GPUCORE_OK;
}

/* amdhsa.printf (an array of strings, one per printf call of the code object) into
   md->printf. Its own failures go to @p diag; the caller keeps the kernels regardless. */
static gpucore_status_t parse_printf(const msgpack_object *a, struct gc_ka_metadata *md,
                                     gpucore_diag_t *diag)
{
    const struct mp_path top = { "" };

    if (a->type != MSGPACK_OBJECT_ARRAY)
        return wrong_type(diag, &top, "amdhsa.printf", "an array", a);
    GC_FAIL_IF(a->via.array.size > GC_KA_MAX_PRINTF, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "amdhsa.printf: %" PRIu32 " formats, more than the %u allowed",
               a->via.array.size, GC_KA_MAX_PRINTF);
    md->printf = gc_calloc_array((size_t)a->via.array.size + 1u, sizeof(*md->printf));
    if (!md->printf)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        struct mp_path p;

        snprintf(p.text, sizeof(p.text), "amdhsa.printf[%" PRIu32 "]", i);
        GC_TRY(mp_str_dup(&a->via.array.ptr[i], &p, "", GC_KA_MAX_PRINTF_STRING, &md->printf[i],
                          diag));
        md->nprintf = i + 1;
    }
    return GPUCORE_OK;
}

/* The printf formats, when the metadata has them: a failure is kept in md->printf_error (the
   kernels' arguments do not depend on them); only running out of memory fails the parse. */
static gpucore_status_t parse_root_printf(const msgpack_object *root, struct gc_ka_metadata *md)
{
    const msgpack_object *pf = mp_get(root, "amdhsa.printf");
    gpucore_diag_t d;
    gpucore_status_t st;

    if (!pf)
        return GPUCORE_OK;
    st = parse_printf(pf, md, &d);
    if (st == GPUCORE_E_NOMEM)
        return st;
    if (st != GPUCORE_OK) {
        for (uint32_t i = 0; i < md->nprintf; i++)
            gc_free(md->printf[i]);
        gc_free(md->printf);
        md->printf = NULL;
        md->nprintf = 0;
        snprintf(md->printf_error, sizeof(md->printf_error), "%s", d.message);
    }
    return GPUCORE_OK;
}

static gpucore_status_t parse_root(const msgpack_object *root, struct gc_ka_metadata *md,
                                   gpucore_diag_t *diag)
{
    const struct mp_path top = { "" };
    const msgpack_object *ks;

    if (root->type != MSGPACK_OBJECT_MAP)
        return wrong_type(diag, &top, "the metadata", "a map", root);
    GC_TRY(parse_root_printf(root, md));
    ks = mp_get(root, "amdhsa.kernels");
    GC_FAIL_IF(!ks, diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
               "the metadata has no amdhsa.kernels member");
    if (ks->type != MSGPACK_OBJECT_ARRAY)
        return wrong_type(diag, &top, "amdhsa.kernels", "an array", ks);
    GC_FAIL_IF(ks->via.array.size > GC_KA_MAX_KERNELS, diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "amdhsa.kernels: %" PRIu32 " kernels, more than the %u allowed", ks->via.array.size,
               GC_KA_MAX_KERNELS);
    if (ks->via.array.size == 0)
        return GPUCORE_OK;
    md->kernels = gc_calloc_array(ks->via.array.size, sizeof(*md->kernels));
    if (!md->kernels)
        return GPUCORE_E_NOMEM;
    for (uint32_t i = 0; i < ks->via.array.size; i++) {
        md->nkernels = i + 1;
        GC_TRY(parse_kernel(&ks->via.array.ptr[i], i, &md->kernels[i], diag));
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_ka_parse(const void *buf, size_t size, struct gc_ka_metadata **ret,
                             gpucore_diag_t *reterr_diag)
{
    struct gc_ka_metadata *md;
    msgpack_unpacked u;
    size_t off = 0;
    gpucore_status_t st;
    msgpack_unpack_return r;

    GC_FAIL_IF(!ret || (!buf && size), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_ka_parse: NULL argument");
    *ret = NULL;
    GC_FAIL_IF(size > GC_KA_MAX_METADATA_SIZE, reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
               "the metadata is %zu bytes, more than the %u allowed", size,
               GC_KA_MAX_METADATA_SIZE);
    GC_FAIL_IF(size == 0, reterr_diag, GPUCORE_E_CORRUPT, 0, "the metadata is empty");
    GC_TRY(mp_frame_check(buf, size, reterr_diag));
    md = gc_calloc_array(1, sizeof(*md));
    if (!md)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    msgpack_unpacked_init(&u);
    r = msgpack_unpack_next(&u, buf, size, &off);
    if (r == MSGPACK_UNPACK_NOMEM_ERROR)
        st = gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    else if (r != MSGPACK_UNPACK_SUCCESS && r != MSGPACK_UNPACK_EXTRA_BYTES)
        st = gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, off,
                         "the metadata is not MessagePack (msgpack-c: %d at byte %zu)", (int)r,
                         off);
    else
        st = parse_root(&u.data, md, reterr_diag);
    msgpack_unpacked_destroy(&u);
    if (st == GPUCORE_E_NOMEM)
        gc_diag_set(reterr_diag, st, GC_NO_OFFSET, "out of memory");
    if (st != GPUCORE_OK) {
        gc_ka_free(md);
        return st;
    }
    *ret = md;
    return GPUCORE_OK;
}

void gc_ka_free(struct gc_ka_metadata *md)
{
    if (!md)
        return;
    for (uint32_t i = 0; i < md->nkernels; i++) {
        struct gc_ka_kernel *k = &md->kernels[i];

        for (uint32_t j = 0; j < k->nargs; j++) {
            gc_free(k->args[j].name);
            gc_free(k->args[j].type_name);
            gc_free(k->args[j].value_kind);
            gc_free(k->args[j].address_space);
        }
        gc_free(k->args);
        gc_free(k->name);
        gc_free(k->symbol);
    }
    for (uint32_t i = 0; i < md->nprintf; i++)
        gc_free(md->printf[i]);
    gc_free(md->printf);
    gc_free(md->kernels);
    gc_free(md);
}

/* ---- The note in the ELF image ------------------------------------------------------------- */

/* Look through the notes of one data block; 1 found (*desc, *desc_size), 0 not. */
static int find_note(Elf_Data *data, const uint8_t **desc, size_t *desc_size)
{
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off, next;

    while (data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
        if (nh.n_type == GC_NT_AMDGPU_METADATA && nh.n_namesz == 7 &&
            memcmp((const char *)data->d_buf + name_off, "AMDGPU", 7) == 0) {
            *desc = (const uint8_t *)data->d_buf + desc_off;
            *desc_size = nh.n_descsz;
            return 1;
        }
        off = next;
    }
    return 0;
}

gpucore_status_t gc_ka_from_elf(const uint8_t *elf, size_t size, struct gc_ka_metadata **ret,
                                gpucore_diag_t *reterr_diag)
{
    const uint8_t *desc = NULL;
    size_t desc_size = 0, nph = 0;
    uint8_t *copy;
    Elf *e;
    Elf_Scn *scn = NULL;
    int found = 0;
    gpucore_status_t st;

    GC_FAIL_IF(!ret || !elf, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "gc_ka_from_elf: NULL argument");
    *ret = NULL;
    /* libelf converts foreign byte orders in place: only ELF64 LSB images go to it */
    GC_FAIL_IF(size < EI_NIDENT || memcmp(elf, ELFMAG, SELFMAG) || elf[EI_CLASS] != ELFCLASS64 ||
                       elf[EI_DATA] != ELFDATA2LSB,
               reterr_diag, GPUCORE_E_CORRUPT, 0, "not an ELF64 little-endian image");
    GC_FAIL_IF(elf_version(EV_CURRENT) == EV_NONE, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "libelf cannot be initialised");
    copy = gc_malloc(size); /* elf_memory may write to the buffer it is given */
    if (!copy)
        return gc_diag_set(reterr_diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    memcpy(copy, elf, size);
    e = elf_memory((char *)copy, size);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e)
            elf_end(e);
        gc_free(copy);
        return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0,
                           "the image does not open as an ELF file (%s)", elf_errmsg(-1));
    }
    while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
            found = find_note(elf_getdata(scn, NULL), &desc, &desc_size);
    }
    if (!found && elf_getphdrnum(e, &nph) == 0) {
        for (size_t i = 0; !found && i < nph; i++) {
            GElf_Phdr ph;

            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE)
                found = find_note(elf_getdata_rawchunk(e, (int64_t)ph.p_offset, (size_t)ph.p_filesz,
                                                       ELF_T_NHDR),
                                  &desc, &desc_size);
        }
    }
    if (!found)
        st = gc_diag_set(reterr_diag, GPUCORE_E_NOTFOUND, GC_NO_OFFSET,
                         "the code object has no NT_AMDGPU_METADATA note");
    else
        st = gc_ka_parse(desc, desc_size, ret, reterr_diag);
    elf_end(e);
    gc_free(copy);
    return st;
}

/* ---- Lookups and values -------------------------------------------------------------------- */

const struct gc_ka_kernel *gc_ka_find(const struct gc_ka_metadata *md, const char *name)
{
    size_t len = name ? strlen(name) : 0;

    for (uint32_t i = 0; md && len && i < md->nkernels; i++) {
        const struct gc_ka_kernel *k = &md->kernels[i];

        if (k->name && strcmp(k->name, name) == 0)
            return k;
        if (k->symbol && (strcmp(k->symbol, name) == 0 || (strncmp(k->symbol, name, len) == 0 &&
                                                           strcmp(k->symbol + len, ".kd") == 0)))
            return k;
    }
    return NULL;
}

int gc_ka_is_hidden(const struct gc_ka_arg *a)
{
    return a->value_kind && strncmp(a->value_kind, "hidden_", 7) == 0;
}

/* Value kinds whose value is an address. */
static const char *const pointer_kinds[] = {
    "global_buffer",
    "dynamic_shared_pointer",
    "image",
    "sampler",
    "pipe",
    "queue",
    "hidden_default_queue",
    "hidden_completion_action",
    "hidden_printf_buffer",
    "hidden_hostcall_buffer",
    "hidden_multigrid_sync_arg",
    "hidden_heap_v1",
    "hidden_private_base",
    "hidden_shared_base",
    "hidden_queue_ptr",
};

int gc_ka_is_pointer(const struct gc_ka_arg *a)
{
    size_t tl = a->type_name ? strlen(a->type_name) : 0;

    if (a->size != 8)
        return 0;
    for (size_t i = 0; i < GC_ARRAY_SIZE(pointer_kinds); i++)
        if (a->value_kind && strcmp(a->value_kind, pointer_kinds[i]) == 0)
            return 1;
    return a->address_space != NULL || (tl && a->type_name[tl - 1] == '*');
}

/* How a by-value scalar prints, by its OpenCL/C type name. */
enum scalar { SC_HEX, SC_SIGNED, SC_UNSIGNED, SC_FLOAT };
static const struct {
    const char *type;
    enum scalar how;
} scalar_types[] = {
    { "char", SC_SIGNED },
    { "signed char", SC_SIGNED },
    { "short", SC_SIGNED },
    { "int", SC_SIGNED },
    { "long", SC_SIGNED },
    { "long long", SC_SIGNED },
    { "int8_t", SC_SIGNED },
    { "int16_t", SC_SIGNED },
    { "int32_t", SC_SIGNED },
    { "int64_t", SC_SIGNED },
    { "uchar", SC_UNSIGNED },
    { "ushort", SC_UNSIGNED },
    { "uint", SC_UNSIGNED },
    { "ulong", SC_UNSIGNED },
    { "unsigned char", SC_UNSIGNED },
    { "unsigned short", SC_UNSIGNED },
    { "unsigned int", SC_UNSIGNED },
    { "unsigned long", SC_UNSIGNED },
    { "unsigned", SC_UNSIGNED },
    { "size_t", SC_UNSIGNED },
    { "uint8_t", SC_UNSIGNED },
    { "uint16_t", SC_UNSIGNED },
    { "uint32_t", SC_UNSIGNED },
    { "uint64_t", SC_UNSIGNED },
    { "bool", SC_UNSIGNED },
    { "float", SC_FLOAT },
    { "double", SC_FLOAT },
    { "half", SC_HEX },
};

#define GC_KA_HEX_SHOWN 32u /* bytes of a wide value shown */

gpucore_status_t gc_ka_format_value(const struct gc_ka_arg *a, const uint8_t *seg,
                                    uint64_t seg_size, char *buf, size_t size, uint64_t *ret_u64)
{
    enum scalar how = SC_HEX;
    uint64_t v = 0;
    size_t len = 0;

    if (size)
        buf[0] = '\0';
    if ((uint64_t)a->offset + a->size > seg_size) {
        snprintf(buf, size,
                 "bytes %" PRIu32 "..%" PRIu64 " are past the %" PRIu64
                 " bytes of kernel arguments available",
                 a->offset, (uint64_t)a->offset + a->size - (a->size ? 1 : 0), seg_size);
        return GPUCORE_E_UNAVAILABLE;
    }
    for (uint32_t i = 0; i < a->size && i < 8; i++)
        v |= (uint64_t)seg[a->offset + i] << (8 * i);
    if (ret_u64)
        *ret_u64 = v;
    for (size_t i = 0; a->type_name && !gc_ka_is_hidden(a) && i < GC_ARRAY_SIZE(scalar_types); i++)
        if (strcmp(a->type_name, scalar_types[i].type) == 0)
            how = scalar_types[i].how;
    if (gc_ka_is_hidden(a))
        how = SC_UNSIGNED; /* counts and sizes the runtime writes; no type name */
    if (gc_ka_is_pointer(a) || a->size == 0)
        how = SC_HEX;
    if (how == SC_FLOAT && a->size == 4) {
        float f;
        uint32_t w = (uint32_t)v;

        memcpy(&f, &w, sizeof(f));
        snprintf(buf, size, "%g", (double)f);
    } else if (how == SC_FLOAT && a->size == 8) {
        double d;

        memcpy(&d, &v, sizeof(d));
        snprintf(buf, size, "%g", d);
    } else if (how == SC_SIGNED && (a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8)) {
        unsigned sh = 64u - 8u * a->size;

        snprintf(buf, size, "%" PRId64, (int64_t)(v << sh) >> sh);
    } else if (how == SC_UNSIGNED && a->size <= 8 && a->size) {
        snprintf(buf, size, "%" PRIu64, v);
    } else if (a->size <= 8) {
        snprintf(buf, size, "0x%" PRIx64, v);
    } else {
        for (uint32_t i = 0; i < a->size && i < GC_KA_HEX_SHOWN; i++)
            gc_str_appendf(buf, size, &len, "%s%02x", i ? " " : "", seg[a->offset + i]);
        if (a->size > GC_KA_HEX_SHOWN)
            gc_str_appendf(buf, size, &len, " ... (%" PRIu32 " bytes)", a->size);
    }
    return GPUCORE_OK;
}
