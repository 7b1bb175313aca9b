/* SPDX-License-Identifier: MIT */
/*
 * gen_format_tables: prints the generated parts of schema/FORMAT.md -- every field table, value
 * table, the limits and the annotated hex examples -- from the same tables and codecs the
 * library uses (conventions G-FMT-6), so the spec cannot drift from the code.
 *
 *   gc_gen_format_tables                 print every section, with markers, to stdout
 *   gc_gen_format_tables --check FILE    exit 1 if FILE's generated sections differ
 *   gc_gen_format_tables --update FILE   rewrite FILE's generated sections in place
 *
 * A generated section in FORMAT.md sits between
 *   <!-- BEGIN GENERATED TABLE name -->
 *   <!-- END GENERATED TABLE -->
 * and every section the generator knows must appear exactly once.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "gc_le.h"
#include "schema_internal.h"

#define BEGIN_MARK     "<!-- BEGIN GENERATED TABLE "
#define BEGIN_MARK_END " -->"
#define END_MARK       "<!-- END GENERATED TABLE -->"

/* ------------------------------------------------------------------------------------------ */
/* Output buffer                                                                              */
/* ------------------------------------------------------------------------------------------ */

static void out(struct gc_buf *b, const char *fmt, ...) GC_PRINTF(2, 3);

static void out(struct gc_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->err = GPUCORE_E_INVAL;
        return;
    }
    p = (char *)gc_buf_grow(b, (size_t)n + 1);
    if (!p)
        return;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len--; /* drop the NUL; the next write or the final terminator replaces it */
}

/* ------------------------------------------------------------------------------------------ */
/* Section generators                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const char *type_name(const struct gc_field *f)
{
    static const char *const unsigned_names[] = {
        "?", "u8", "u16", "?", "u32", "?", "?", "?", "u64"
    };

    switch (f->kind) {
    case GC_KIND_UNSIGNED:
    case GC_KIND_BLOB_SIZE:
    case GC_KIND_RESERVED:
        return unsigned_names[f->width];
    case GC_KIND_SIGNED:
        return f->width == 4 ? "i32" : "i64";
    case GC_KIND_STRING:
        return "str";
    case GC_KIND_BLOB_OFFSET:
        return "u64";
    }
    return "?";
}

static void gen_fields(struct gc_buf *b, const void *arg)
{
    const struct gc_layout *L = arg;

    out(b, "| Offset | Size | Type | Field | Meaning |\n");
    out(b, "|---:|---:|---|---|---|\n");
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];

        out(b, "| %" PRIu32 " | %" PRIu32 " | %s | `%s` | %s |\n", f->offset, f->width,
            type_name(f), f->name, f->doc);
    }
    if (L->min_size == L->known_size)
        out(b, "\nSize: %" PRIu32 " bytes.\n", L->known_size);
    else
        out(b,
            "\nSize: %" PRIu32 " bytes with every field above; readers accept %" PRIu32
            " or more.\n",
            L->known_size, L->min_size);
}

static void gen_values(struct gc_buf *b, const void *arg)
{
    const struct gc_enum_group_desc *g = arg;
    enum gc_enum_group group = (enum gc_enum_group)(g - gc_enum_groups);
    int any = 0;

    for (size_t i = 0; i < gc_enum_row_count; i++) {
        const struct gc_enum_row *row = &gc_enum_rows[i];

        if (row->group != group)
            continue;
        if (!any)
            out(b, "| %s | Name | Meaning |\n|---:|---|---|\n", g->is_bits ? "Bits" : "Value");
        any = 1;
        if (g->is_bits)
            out(b, "| 0x%" PRIx32 " | `%s` | %s |\n", row->value, row->name, row->doc);
        else
            /* Large values (note types) read better in hex, as readelf prints them. */
            if (row->value > 0xffffu)
                out(b, "| 0x%08" PRIx32 " | `%s` | %s |\n", row->value, row->name, row->doc);
            else
                out(b, "| %" PRIu32 " | `%s` | %s |\n", row->value, row->name, row->doc);
    }
    if (!any)
        out(b, "No %s are defined.\n", g->is_bits ? "bits" : "values");
}

static void gen_limits(struct gc_buf *b, const void *arg)
{
    (void)arg;
    out(b, "| Limit | Value | A reader that meets more returns |\n|---|---:|---|\n");
    out(b,
        "| AMDGPU `runtime_info_size`, `agent_entry_size`, `queue_entry_size` | %u bytes | "
        "`GPUCORE_E_LIMIT` |\n",
        GC_KFD_MAX_ENTRY_SIZE);
    out(b, "| AMDGPU `agent_entry_count`, `queue_entry_count` | %u | `GPUCORE_E_LIMIT` |\n",
        GC_KFD_MAX_COUNT);
    out(b, "| GPUCORE `record_count` | %u | `GPUCORE_E_LIMIT` |\n", GC_NOTE_MAX_RECORDS);
    out(b, "| GPUCORE string length | %u bytes | `GPUCORE_E_LIMIT` |\n", GC_NOTE_MAX_STRING);
    out(b, "| GPUCORE referenced heap items, summed | the heap size | `GPUCORE_E_LIMIT` |\n");
    out(b, "| Any descriptor (`n_descsz` is a u32) | %" PRIu32 " bytes | (cannot occur) |\n",
        (uint32_t)GC_NOTE_MAX_DESC);
}

/* --- annotated hex examples --------------------------------------------------------------- */

static void hex_line(struct gc_buf *b, uint64_t off, const uint8_t *p, uint32_t n,
                     const char *label)
{
    char hex[3 * 16 + 1] = "";
    uint32_t shown = n > 8 ? 8 : n;

    for (uint32_t i = 0; i < shown; i++)
        snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", p[i]);
    out(b, "%04" PRIx64 "  %-25s%s%s\n", off, hex, n > shown ? "... " : "", label);
}

static void hex_layout(struct gc_buf *b, const uint8_t *desc, uint64_t base,
                       const struct gc_layout *L, uint32_t stored)
{
    for (size_t i = 0; i < L->nfields; i++) {
        const struct gc_field *f = &L->fields[i];
        char label[128];
        uint64_t v;

        if (f->offset + f->width > stored)
            continue;
        v = gc_le_get(desc + base + f->offset, f->width);
        if (f->kind == GC_KIND_STRING && v == GPUCORE_REF_NONE)
            snprintf(label, sizeof(label), "%s = none", f->name);
        else if (f->kind == GC_KIND_STRING || f->kind == GC_KIND_BLOB_OFFSET)
            snprintf(label, sizeof(label), "%s = heap offset 0x%" PRIx64, f->name, v);
        else if (v > UINT32_MAX)
            snprintf(label, sizeof(label), "%s = 0x%" PRIx64, f->name, v);
        else if (v > 9)
            snprintf(label, sizeof(label), "%s = %" PRIu64 " (0x%" PRIx64 ")", f->name, v, v);
        else
            snprintf(label, sizeof(label), "%s = %" PRIu64, f->name, v);
        hex_line(b, base + f->offset, desc + base + f->offset, f->width, label);
    }
}

/* What FORMAT.md's AMDGPU example describes: one gfx90a (MI210-like) agent, one AQL queue. */
static void example_amdgpu_note(gpucore_amdgpu_note_t *note, gpucore_kfd_device_entry_t *dev,
                                gpucore_kfd_queue_entry_t *queue)
{
    memset(note, 0, sizeof(*note));
    memset(dev, 0, sizeof(*dev));
    memset(queue, 0, sizeof(*queue));
    note->kfd_major = 1;
    note->kfd_minor = 16;
    note->runtime.r_debug = 0x7f3a5c02e0a0;
    note->runtime.runtime_state = GPUCORE_KFD_RUNTIME_ENABLED;
    note->runtime.ttmp_setup = 1;
    dev->lds_base = 0x0001000000000000;
    dev->lds_limit = 0x00010000ffffffff;
    dev->scratch_base = 0x0002000000000000;
    dev->scratch_limit = 0x00020000ffffffff;
    dev->gpuvm_base = 0x0000000001000000;
    dev->gpuvm_limit = 0x00007fffffffffff;
    dev->gpu_id = 0x4a2b;
    dev->location_id = 0xc300;
    dev->vendor_id = 0x1002;
    dev->device_id = 0x740f;
    dev->revision_id = 0x02;
    dev->subsystem_vendor_id = 0x1002;
    dev->subsystem_device_id = 0x0c34;
    dev->fw_version = 79;
    dev->gfx_target_version = 90010;
    dev->simd_count = 416;
    dev->max_waves_per_simd = 8;
    dev->array_count = 8;
    dev->simd_arrays_per_engine = 1;
    dev->num_xcc = 1;
    dev->capability = 0x20048280;
    dev->debug_prop = 0x5e6;
    queue->ring_base_address = 0x7f3a40000000;
    queue->write_pointer_address = 0x7f3a5c600038;
    queue->read_pointer_address = 0x7f3a5c600080;
    queue->ctx_save_restore_address = 0x7f3a3c000000;
    queue->queue_id = 0;
    queue->gpu_id = 0x4a2b;
    queue->ring_size = 0x100000;
    queue->queue_type = GPUCORE_KFD_QUEUE_TYPE_COMPUTE_AQL;
    queue->ctx_save_restore_area_size = 0x5d5000;
    note->agent_count = 1;
    note->agents = dev;
    note->queue_count = 1;
    note->queues = queue;
}

static void gen_example_amdgpu(struct gc_buf *b, const void *arg)
{
    gpucore_amdgpu_note_t note;
    gpucore_kfd_device_entry_t dev;
    gpucore_kfd_queue_entry_t queue;
    void *desc;
    size_t size;
    uint64_t off;

    (void)arg;
    example_amdgpu_note(&note, &dev, &queue);
    if (gpucore_amdgpu_note_encode(&note, &desc, &size, NULL) != GPUCORE_OK) {
        b->err = GPUCORE_E_INVAL;
        return;
    }
    out(b, "```\n");
    out(b, "desc  %-25sfield = value\n", "bytes (little-endian)");
    hex_layout(b, desc, 0, &gc_layout_amdgpu_header, GPUCORE_AMDGPU_NOTE_HEADER_SIZE);
    off = GPUCORE_AMDGPU_NOTE_HEADER_SIZE;
    out(b, "      -- runtime info\n");
    hex_layout(b, desc, off, &gc_layout_kfd_runtime_info, GPUCORE_KFD_RUNTIME_INFO_SIZE);
    off += GPUCORE_KFD_RUNTIME_INFO_SIZE;
    out(b, "      -- device entry 0\n");
    hex_layout(b, desc, off, &gc_layout_kfd_device_entry, GPUCORE_KFD_DEVICE_ENTRY_SIZE);
    off += GPUCORE_KFD_DEVICE_ENTRY_SIZE;
    out(b, "      -- queue entry 0\n");
    hex_layout(b, desc, off, &gc_layout_kfd_queue_entry, GPUCORE_KFD_QUEUE_ENTRY_SIZE);
    off += GPUCORE_KFD_QUEUE_ENTRY_SIZE;
    out(b, "%04" PRIx64 "  end of descriptor: n_descsz = %zu (0x%zx)\n", off, size, size);
    out(b, "```\n");
    gpucore_free(desc);
}

static void gen_example_alloc_map(struct gc_buf *b, const void *arg)
{
    static const char label[] = "AQL ring, queue 0";
    gpucore_alloc_t alloc = {
        .base = 0x7f3a40000000,
        .size = 0x100000,
        .kind = GPUCORE_ALLOC_RING,
        .gpu_id = 0x4a2b,
        .label = { label, sizeof(label) - 1 },
    };
    gpucore_alloc_map_t map = { .count = 1, .allocs = &alloc };
    uint8_t *desc;
    void *p;
    size_t size;
    uint64_t heap;
    uint32_t len;
    char text[64];

    (void)arg;
    if (gpucore_alloc_map_encode(&map, &p, &size, NULL) != GPUCORE_OK) {
        b->err = GPUCORE_E_INVAL;
        return;
    }
    desc = p;
    heap = GPUCORE_NOTE_HEADER_SIZE + gc_layout_alloc.known_size;
    len = gc_le32_get(desc + heap);
    out(b, "```\n");
    out(b, "desc  %-25sfield = value\n", "bytes (little-endian)");
    hex_layout(b, desc, 0, &gc_layout_note_header, GPUCORE_NOTE_HEADER_SIZE);
    out(b, "      -- record 0\n");
    hex_layout(b, desc, GPUCORE_NOTE_HEADER_SIZE, &gc_layout_alloc, gc_layout_alloc.known_size);
    out(b, "      -- heap (heap offset 0 = descriptor offset 0x%" PRIx64 ")\n", heap);
    snprintf(text, sizeof(text), "string length = %" PRIu32, len);
    hex_line(b, heap, desc + heap, 4, text);
    snprintf(text, sizeof(text), "\"%.*s\"", (int)len, (const char *)desc + heap + 4);
    hex_line(b, heap + 4, desc + heap + 4, len, text);
    hex_line(b, heap + 4 + len, desc + heap + 4 + len, (uint32_t)(size - heap - 4 - len),
             "zero padding to a multiple of 4");
    out(b, "%04zx  end of descriptor: n_descsz = %zu (0x%zx)\n", size, size, size);
    out(b, "```\n");
    gpucore_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Section registry                                                                           */
/* ------------------------------------------------------------------------------------------ */

struct section {
    char name[64];
    void (*gen)(struct gc_buf *b, const void *arg);
    const void *arg;
};

static size_t collect_sections(struct section *v, size_t cap)
{
    size_t n = 0;

#define ADD(gen_, arg_, ...)                                     \
    do {                                                         \
        if (n < cap) {                                           \
            snprintf(v[n].name, sizeof(v[n].name), __VA_ARGS__); \
            v[n].gen = (gen_);                                   \
            v[n].arg = (arg_);                                   \
        }                                                        \
        n++;                                                     \
    } while (0)

    for (size_t i = 0; i < gc_layout_count; i++)
        ADD(gen_fields, gc_layouts[i], "fields:%s", gc_layouts[i]->id);
    for (size_t i = 0; i < GC_ARRAY_SIZE(gc_enum_groups); i++)
        ADD(gen_values, &gc_enum_groups[i], "values:%s", gc_enum_groups[i].id);
    ADD(gen_limits, NULL, "limits");
    ADD(gen_example_amdgpu, NULL, "example:amdgpu-note");
    ADD(gen_example_alloc_map, NULL, "example:alloc-map");
#undef ADD
    return n;
}

static char *render(const struct section *s)
{
    struct gc_buf b;
    size_t len;
    char *text;

    gc_buf_init(&b);
    s->gen(&b, s->arg);
    gc_buf_put8(&b, 0);
    if (gc_buf_status(&b)) {
        fprintf(stderr, "gen_format_tables: cannot generate section %s\n", s->name);
        exit(2);
    }
    text = (char *)gc_buf_steal(&b, &len);
    return text;
}

/* ------------------------------------------------------------------------------------------ */
/* FORMAT.md handling                                                                         */
/* ------------------------------------------------------------------------------------------ */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct gc_buf b;
    char chunk[4096];
    size_t n;
    size_t len;

    if (!f) {
        perror(path);
        exit(2);
    }
    gc_buf_init(&b);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gc_buf_append(&b, chunk, n);
    gc_buf_put8(&b, 0);
    if (ferror(f) || gc_buf_status(&b)) {
        fprintf(stderr, "%s: read error\n", path);
        exit(2);
    }
    fclose(f);
    return (char *)gc_buf_steal(&b, &len);
}

/*
 * Walk FILE, comparing (check) or replacing (update) every generated section. Returns the
 * number of problems; with update, *ret_text receives the new document.
 */
/* The next occurrence of `mark` at the start of a line, or NULL; prose may quote markers. */
static const char *find_line(const char *doc, const char *from, const char *mark)
{
    const char *p = from;

    while ((p = strstr(p, mark)) != NULL) {
        if (p == doc || p[-1] == '\n')
            return p;
        p++;
    }
    return NULL;
}

static int process(const char *path, const char *doc, const struct section *secs, size_t nsecs,
                   int update, char **ret_text)
{
    struct gc_buf res;
    const char *p = doc;
    int problems = 0;
    int *seen = calloc(nsecs ? nsecs : 1, sizeof(*seen));
    size_t len;
    unsigned line = 1;

    if (!seen)
        exit(2);
    gc_buf_init(&res);
    for (;;) {
        const char *begin = find_line(doc, p, BEGIN_MARK);
        const char *name, *name_end, *body, *end;
        size_t k;

        if (!begin) {
            gc_buf_append(&res, p, strlen(p));
            break;
        }
        for (const char *q = p; q < begin; q++)
            line += *q == '\n';
        name = begin + strlen(BEGIN_MARK);
        name_end = strstr(name, BEGIN_MARK_END);
        body = name_end ? strchr(name_end, '\n') : NULL;
        end = body ? find_line(doc, body, END_MARK) : NULL;
        if (!name_end || !body || !end) {
            fprintf(stderr, "%s:%u: unterminated generated section\n", path, line);
            problems++;
            gc_buf_append(&res, p, strlen(p));
            break;
        }
        body++;
        for (k = 0; k < nsecs; k++)
            if (strlen(secs[k].name) == (size_t)(name_end - name) &&
                !strncmp(secs[k].name, name, (size_t)(name_end - name)))
                break;
        gc_buf_append(&res, p, (size_t)(body - p));
        if (k == nsecs) {
            fprintf(stderr, "%s:%u: unknown generated section '%.*s'\n", path, line,
                    (int)(name_end - name), name);
            problems++;
            gc_buf_append(&res, body, (size_t)(end - body));
        } else {
            char *want = render(&secs[k]);

            if (seen[k]++) {
                fprintf(stderr, "%s:%u: section %s appears twice\n", path, line, secs[k].name);
                problems++;
            }
            if (strlen(want) != (size_t)(end - body) || strncmp(want, body, strlen(want))) {
                if (!update) {
                    fprintf(stderr, "%s:%u: section %s differs from the generator output\n", path,
                            line, secs[k].name);
                    problems++;
                }
            }
            gc_buf_append(&res, want, strlen(want));
            free(want);
        }
        gc_buf_append(&res, END_MARK, strlen(END_MARK));
        for (const char *q = begin; q < end; q++)
            line += *q == '\n';
        p = end + strlen(END_MARK);
    }
    for (size_t k = 0; k < nsecs; k++) {
        if (!seen[k]) {
            fprintf(stderr, "%s: section %s is missing; add\n  %s%s%s\n  %s\n", path, secs[k].name,
                    BEGIN_MARK, secs[k].name, BEGIN_MARK_END, END_MARK);
            problems++;
        }
    }
    free(seen);
    gc_buf_put8(&res, 0);
    if (gc_buf_status(&res))
        exit(2);
    *ret_text = (char *)gc_buf_steal(&res, &len);
    return problems;
}

static int usage(void)
{
    fprintf(stderr, "usage: gc_gen_format_tables [--check FILE | --update FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct section secs[128];
    size_t nsecs = collect_sections(secs, GC_ARRAY_SIZE(secs));
    char *doc, *text;
    int problems;

    if (nsecs > GC_ARRAY_SIZE(secs)) {
        fprintf(stderr, "gen_format_tables: too many sections\n");
        return 2;
    }
    if (argc == 1) {
        for (size_t k = 0; k < nsecs; k++) {
            char *t = render(&secs[k]);

            printf("%s%s%s\n%s%s\n\n", BEGIN_MARK, secs[k].name, BEGIN_MARK_END, t, END_MARK);
            free(t);
        }
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--update")))
        return usage();

    doc = read_file(argv[2]);
    problems = process(argv[2], doc, secs, nsecs, !strcmp(argv[1], "--update"), &text);
    if (!strcmp(argv[1], "--update") && strcmp(doc, text)) {
        FILE *f = fopen(argv[2], "wb");

        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
            perror(argv[2]);
            return 2;
        }
        fprintf(stderr, "%s: generated sections updated\n", argv[2]);
    }
    if (problems && !strcmp(argv[1], "--check"))
        fprintf(stderr,
                "%s is out of sync with the schema tables; run\n"
                "  gc_gen_format_tables --update %s\n",
                argv[2], argv[2]);
    free(doc);
    free(text);
    return problems ? 1 : 0;
}
