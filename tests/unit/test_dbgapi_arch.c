/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi's architecture-level answers against AMD's, through the public interface:
 *
 *   - every architecture's answers and whole register list -- order, names, sizes, DWARF
 *     numbers, properties, classes, type strings byte for byte -- against the checked-in
 *     answers of AMD's amd-dbgapi 0.77 (tests/data/dbgapi-registers, format in its README.md);
 *     every architecture the library serves has a file there;
 *   - the handles of architecture-level objects, numbered as AMD's library numbers them
 *     (architectures 1..18 in its order; registers architecture << 32 | AMD's register number;
 *     register classes, address spaces and address classes counted from 1 (address spaces from
 *     2) across architectures in creation order), and listed in its order;
 *   - those handles survive amd_dbgapi_finalize and a new amd_dbgapi_initialize, as a debugger
 *     that caches them per architecture needs (a second core opened in one GDB session);
 *   - the branch-target comment of amd_dbgapi_disassemble_instruction, with and without a
 *     symbolizer.
 *
 * GPUCORE_DBGAPI_ARCH_DATA names the data folder; GPUCORE_DBGAPI_FIXTURE a captured gfx1030 core
 * (the fixture of test_dbgapi_api) for the finalize/initialize test.
 */
#include <amd-dbgapi/amd-dbgapi.h>
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dbgapi_client.h"

#define OK(call)                                        \
    do {                                                \
        amd_dbgapi_status_t st_ = (call);               \
        if (st_ != AMD_DBGAPI_STATUS_SUCCESS)           \
            fail_msg("%s: status %d", #call, (int)st_); \
    } while (0)

/* AMD's architectures in the order its library creates them, which numbers them from 1. */
static const char *const amd_order[] = {
    "gfx900",  "gfx906",  "gfx908",  "gfx90a",  "gfx940",  "gfx941",
    "gfx942",  "gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1031",
    "gfx1032", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201",
};
#define NARCHS (sizeof(amd_order) / sizeof(amd_order[0]))

/* ---- helpers ------------------------------------------------------------------------------- */

static void init_library(void)
{
    tdc_reset_books();
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
    OK(amd_dbgapi_initialize(&tdc_callbacks));
}

static void fini_library(void)
{
    OK(amd_dbgapi_finalize());
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(tdc_fatal_logs, 0);
}

/* Every test starts with the library initialized and leaves it finalized, even on failure. */
static int setup(void **state)
{
    (void)state;
    init_library();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    (void)amd_dbgapi_finalize();
    return 0;
}

/* At the end of a test: everything the library handed over was freed, and it logged no bug. */
static void books_balance(void)
{
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(tdc_fatal_logs, 0);
}

static amd_dbgapi_architecture_id_t arch_named(const char *name)
{
    for (uint32_t mach = 0; mach < 0x200; mach++) {
        amd_dbgapi_architecture_id_t a;
        char *n = NULL;
        int same;

        if (amd_dbgapi_get_architecture(mach, &a) != AMD_DBGAPI_STATUS_SUCCESS)
            continue;
        OK(amd_dbgapi_architecture_get_info(a, AMD_DBGAPI_ARCHITECTURE_INFO_NAME, sizeof(n), &n));
        same = strcmp(n, name) == 0;
        tdc_free(n);
        if (same)
            return a;
    }
    fail_msg("the library serves no architecture named %s", name);
    return (amd_dbgapi_architecture_id_t){ 0 };
}

static char *reg_string(amd_dbgapi_register_id_t r, amd_dbgapi_register_info_t q)
{
    char *s = NULL;

    OK(amd_dbgapi_register_get_info(r, q, sizeof(s), &s));
    return s;
}

static char *class_name(amd_dbgapi_register_class_id_t c)
{
    char *s = NULL;

    OK(amd_dbgapi_architecture_register_class_get_info(c, AMD_DBGAPI_REGISTER_CLASS_INFO_NAME,
                                                       sizeof(s), &s));
    return s;
}

/* The whole file, NUL-terminated (malloc'ed). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0 && n < (1 << 20));
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- one data file against the library ------------------------------------------------------ */

struct reader {
    const char *path;
    char *next;    /* start of the next line */
    unsigned line; /* number of the line last returned */
};

/* The next line that is not a comment (NUL-terminated in place), or NULL at the end. */
static char *next_line(struct reader *r)
{
    while (r->next && *r->next) {
        char *s = r->next, *nl = strchr(s, '\n');

        if (nl) {
            *nl = '\0';
            r->next = nl + 1;
        } else {
            r->next = NULL;
        }
        r->line++;
        if (*s && *s != '#')
            return s;
    }
    return NULL;
}

static void fail_at(const struct reader *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void fail_at(const struct reader *r, const char *fmt, ...)
{
    char msg[8192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fail_msg("%s:%u: %s", r->path, r->line, msg);
}

/* The value after "key " on the next line. */
static char *expect_key(struct reader *r, const char *key)
{
    char *s = next_line(r);
    size_t n = strlen(key);

    if (!s || strncmp(s, key, n) != 0 || s[n] != ' ')
        fail_at(r, "expected a line \"%s ...\"", key);
    return s + n + 1;
}

static uint64_t expect_number(struct reader *r, const char *key)
{
    char *v = expect_key(r, key), *end;
    unsigned long long n = strtoull(v, &end, 0);

    if (end == v || *end)
        fail_at(r, "\"%s\": not a number", key);
    return n;
}

static void check_size_query(struct reader *r, amd_dbgapi_architecture_id_t a,
                             amd_dbgapi_architecture_info_t q, const char *key)
{
    uint64_t want = expect_number(r, key);
    amd_dbgapi_size_t got = 0;

    OK(amd_dbgapi_architecture_get_info(a, q, sizeof(got), &got));
    if (got != want)
        fail_at(r, "%s: the library answers %" PRIu64 ", AMD's %" PRIu64, key, (uint64_t)got, want);
}

/* "a..b" or "a": first and last (strtoul base 10), or -1 for "-". */
static int parse_range(const char *s, long *first, long *last)
{
    char *end;

    if (strcmp(s, "-") == 0) {
        *first = *last = -1;
        return 1;
    }
    *first = strtol(s, &end, 10);
    if (end == s)
        return 0;
    if (*end == '\0') {
        *last = *first;
        return 1;
    }
    if (strncmp(end, "..", 2) != 0)
        return 0;
    s = end + 2;
    *last = strtol(s, &end, 10);
    return end != s && *end == '\0' && *last >= *first;
}

/* "s0..s63" into prefix "s", 0, 63; "pc" into "pc", -1, -1. */
static int parse_names(const char *s, char *prefix, size_t psize, long *first, long *last)
{
    const char *dots = strstr(s, "..");
    size_t plen;

    if (!dots) {
        if (strlen(s) >= psize)
            return 0;
        memcpy(prefix, s, strlen(s) + 1);
        *first = *last = -1;
        return 1;
    }
    for (plen = 0; s + plen < dots && (s[plen] < '0' || s[plen] > '9'); plen++)
        ;
    if (plen == 0 || plen >= psize || strncmp(dots + 2, s, plen) != 0)
        return 0;
    memcpy(prefix, s, plen);
    prefix[plen] = '\0';
    *first = strtol(s + plen, NULL, 10);
    *last = strtol(dots + 2 + plen, NULL, 10);
    return *last >= *first;
}

static void props_text(uint32_t p, char *buf, size_t size)
{
    static const char *const names[] = { "READONLY_BITS", "VOLATILE", "INVALIDATE_VOLATILE" };
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t b = 0; b < 32; b++) {
        if (!(p & (1u << b)))
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
                                b < 3 ? names[b] : "?");
    }
    if (!len)
        snprintf(buf, size, "NONE");
}

/* The classes holding @p reg, in the class list's order. */
static void classes_text(amd_dbgapi_register_id_t reg, const amd_dbgapi_register_class_id_t *cls,
                         char *const *names, size_t ncls, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < ncls; i++) {
        amd_dbgapi_register_class_state_t in;

        OK(amd_dbgapi_register_is_in_register_class(cls[i], reg, &in));
        if (in == AMD_DBGAPI_REGISTER_CLASS_STATE_MEMBER)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i]);
    }
}

static void check_file(const char *dir, const char *file)
{
    char path[4096], *text, *v, *line;
    struct reader r = { .path = path };
    amd_dbgapi_architecture_id_t a;
    amd_dbgapi_register_class_id_t *cls = NULL;
    amd_dbgapi_register_id_t *regs = NULL;
    char *cls_names[16];
    size_t ncls = 0, nregs = 0, at = 0;
    uint64_t count;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    text = slurp(path);
    r.next = text;

    /* architecture NAME 0xMM */
    {
        char name[64], *end;
        unsigned long mach;
        char *n = NULL;

        v = expect_key(&r, "architecture");
        if (sscanf(v, "%63s", name) != 1 || !strchr(v, ' '))
            fail_at(&r, "expected \"architecture NAME 0xMM\"");
        mach = strtoul(strchr(v, ' ') + 1, &end, 16);
        if (*end)
            fail_at(&r, "bad EF_AMDGPU_MACH value");
        if (amd_dbgapi_get_architecture((uint32_t)mach, &a) != AMD_DBGAPI_STATUS_SUCCESS)
            fail_at(&r, "amd_dbgapi_get_architecture(0x%lx) fails", mach);
        OK(amd_dbgapi_architecture_get_info(a, AMD_DBGAPI_ARCHITECTURE_INFO_NAME, sizeof(n), &n));
        if (strcmp(n, name) != 0)
            fail_at(&r, "the library names 0x%lx \"%s\", AMD's \"%s\"", mach, n, name);
        tdc_free(n);
    }
    /* breakpoint-instruction B0 B1 ... */
    {
        uint8_t want[16];
        size_t nwant = 0;
        amd_dbgapi_size_t bsize = 0;
        void *got = NULL;
        char *p, *end;

        p = expect_key(&r, "breakpoint-instruction");
        while (*p && nwant < sizeof(want)) {
            want[nwant++] = (uint8_t)strtoul(p, &end, 16);
            if (end == p)
                fail_at(&r, "bad byte");
            p = end + (*end == ' ');
        }
        OK(amd_dbgapi_architecture_get_info(
                a, AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE, sizeof(bsize),
                &bsize));
        OK(amd_dbgapi_architecture_get_info(a, AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION,
                                            sizeof(got), &got));
        if (bsize != nwant || memcmp(got, want, nwant) != 0)
            fail_at(&r, "the library's breakpoint is %" PRIu64 " bytes %02x %02x %02x %02x",
                    (uint64_t)bsize, ((uint8_t *)got)[0], ((uint8_t *)got)[1],
                    bsize > 2 ? ((uint8_t *)got)[2] : 0, bsize > 3 ? ((uint8_t *)got)[3] : 0);
        tdc_free(got);
    }
    check_size_query(&r, a, AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE,
                     "breakpoint-instruction-size");
    check_size_query(&r, a, AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST,
                     "breakpoint-pc-adjust");
    check_size_query(&r, a, AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE,
                     "largest-instruction-size");
    check_size_query(&r, a, AMD_DBGAPI_ARCHITECTURE_INFO_MINIMUM_INSTRUCTION_ALIGNMENT,
                     "minimum-instruction-alignment");
    /* register-classes C1 C2 ... */
    {
        char got[256] = "";
        size_t len = 0;

        v = expect_key(&r, "register-classes");
        OK(amd_dbgapi_architecture_register_class_list(a, &ncls, &cls));
        assert_true(ncls <= sizeof(cls_names) / sizeof(cls_names[0]));
        for (size_t i = 0; i < ncls; i++) {
            amd_dbgapi_architecture_id_t of = { 0 };

            OK(amd_dbgapi_architecture_register_class_get_info(
                    cls[i], AMD_DBGAPI_REGISTER_CLASS_INFO_ARCHITECTURE, sizeof(of), &of));
            if (of.handle != a.handle)
                fail_at(&r, "register class %zu belongs to architecture %" PRIu64, i, of.handle);
            cls_names[i] = class_name(cls[i]);
            len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", i ? " " : "",
                                    cls_names[i]);
        }
        if (strcmp(got, v) != 0)
            fail_at(&r, "the library lists the register classes \"%s\"", got);
    }
    /* registers N, then the list */
    count = expect_number(&r, "registers");
    OK(amd_dbgapi_architecture_register_list(a, &nregs, &regs));
    while ((line = next_line(&r)) != NULL) {
        char f_index[32], f_names[64], f_dwarf[32], f_props[64], f_classes[64], prefix[32];
        unsigned size;
        int type_at = 0;
        long i0 = 0, i1 = 0, n0 = -1, n1 = -1, d0 = -1, d1 = -1;

        if (sscanf(line, "%31s %63s %u %31s %63s %63s %n", f_index, f_names, &size, f_dwarf,
                   f_props, f_classes, &type_at) != 6 ||
            type_at == 0)
            fail_at(&r, "expected INDEX NAME SIZE DWARF PROPERTIES CLASSES TYPE");
        if (!parse_range(f_index, &i0, &i1) || i0 < 0 ||
            !parse_names(f_names, prefix, sizeof(prefix), &n0, &n1) ||
            !parse_range(f_dwarf, &d0, &d1))
            fail_at(&r, "malformed index, name or DWARF range");
        if ((size_t)i0 != at || (n0 >= 0 && n1 - n0 != i1 - i0) || (n0 < 0 && i1 != i0) ||
            (d0 >= 0 && d1 - d0 != i1 - i0))
            fail_at(&r, "the run does not continue the list at %zu or its ranges disagree", at);
        for (long k = 0; k <= i1 - i0; k++, at++) {
            char want_name[64], got_props[128], got_classes[128];
            char *name, *type;
            amd_dbgapi_size_t got_size = 0;
            amd_dbgapi_register_properties_t props = 0;
            uint64_t dwarf = 0;
            amd_dbgapi_status_t dst;

            if (at >= nregs)
                fail_at(&r, "the library lists only %zu registers", nregs);
            if (n0 >= 0)
                snprintf(want_name, sizeof(want_name), "%s%ld", prefix, n0 + k);
            else
                snprintf(want_name, sizeof(want_name), "%s", prefix);
            {
                amd_dbgapi_architecture_id_t of = { 0 };

                OK(amd_dbgapi_register_get_info(regs[at], AMD_DBGAPI_REGISTER_INFO_ARCHITECTURE,
                                                sizeof(of), &of));
                if (of.handle != a.handle)
                    fail_at(&r, "register %zu belongs to architecture %" PRIu64, at, of.handle);
            }
            name = reg_string(regs[at], AMD_DBGAPI_REGISTER_INFO_NAME);
            if (strcmp(name, want_name) != 0)
                fail_at(&r, "register %zu: the library names it \"%s\", AMD \"%s\"", at, name,
                        want_name);
            OK(amd_dbgapi_register_get_info(regs[at], AMD_DBGAPI_REGISTER_INFO_SIZE,
                                            sizeof(got_size), &got_size));
            if (got_size != size)
                fail_at(&r, "%s (register %zu): size %" PRIu64 ", AMD's %u", name, at,
                        (uint64_t)got_size, size);
            dst = amd_dbgapi_register_get_info(regs[at], AMD_DBGAPI_REGISTER_INFO_DWARF,
                                               sizeof(dwarf), &dwarf);
            if (d0 < 0 && dst != AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE)
                fail_at(&r,
                        "%s (register %zu): DWARF status %d value %" PRIu64 ", AMD's NOT_AVAILABLE",
                        name, at, (int)dst, dwarf);
            if (d0 >= 0 && (dst != AMD_DBGAPI_STATUS_SUCCESS || dwarf != (uint64_t)(d0 + k)))
                fail_at(&r, "%s (register %zu): DWARF status %d value %" PRIu64 ", AMD's %ld", name,
                        at, (int)dst, dwarf, d0 + k);
            OK(amd_dbgapi_register_get_info(regs[at], AMD_DBGAPI_REGISTER_INFO_PROPERTIES,
                                            sizeof(props), &props));
            props_text(props, got_props, sizeof(got_props));
            if (strcmp(got_props, f_props) != 0)
                fail_at(&r, "%s (register %zu): properties %s, AMD's %s", name, at, got_props,
                        f_props);
            classes_text(regs[at], cls, cls_names, ncls, got_classes, sizeof(got_classes));
            if (strcmp(got_classes, f_classes) != 0)
                fail_at(&r, "%s (register %zu): classes %s, AMD's %s", name, at, got_classes,
                        f_classes);
            type = reg_string(regs[at], AMD_DBGAPI_REGISTER_INFO_TYPE);
            if (strcmp(type, line + type_at) != 0)
                fail_at(&r,
                        "%s (register %zu): the library's type string\n  \"%s\"\nAMD's\n  \"%s\"",
                        name, at, type, line + type_at);
            tdc_free(type);
            tdc_free(name);
        }
    }
    if (at != count || nregs != count)
        fail_msg("%s: %zu registers in the file, \"registers %" PRIu64 "\", %zu in the library",
                 path, at, count, nregs);
    for (size_t i = 0; i < ncls; i++)
        tdc_free(cls_names[i]);
    tdc_free(cls);
    tdc_free(regs);
    free(text);
}

static const char *data_dir(void)
{
    const char *dir = getenv("GPUCORE_DBGAPI_ARCH_DATA");

    if (!dir)
        fail_msg("GPUCORE_DBGAPI_ARCH_DATA is not set");
    return dir;
}

/* Every architecture: its file's answers; and every architecture the library serves has one. */
static void test_answers_match_amd(void **state)
{
    const char *dir = data_dir();
    uint32_t served = 0;

    (void)state;
    for (size_t i = 0; i < NARCHS; i++) {
        char file[64];

        snprintf(file, sizeof(file), "%s.txt", amd_order[i]);
        check_file(dir, file);
    }
    for (uint32_t mach = 0; mach < 0x200; mach++) {
        amd_dbgapi_architecture_id_t a;

        if (amd_dbgapi_get_architecture(mach, &a) == AMD_DBGAPI_STATUS_SUCCESS)
            served++;
    }
    assert_int_equal(served, NARCHS);
    books_balance();
}

/* The data folder holds a file for each of AMD's architectures and nothing else. */
static void test_data_files(void **state)
{
    DIR *d = opendir(data_dir());
    struct dirent *e;
    size_t files = 0;

    (void)state;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name), i;

        if (len < 5 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        for (i = 0; i < NARCHS; i++)
            if (strncmp(e->d_name, amd_order[i], len - 4) == 0 && strlen(amd_order[i]) == len - 4)
                break;
        if (i == NARCHS)
            fail_msg("%s: not an architecture of AMD's library", e->d_name);
        files++;
    }
    closedir(d);
    assert_int_equal(files, NARCHS);
}

/* ---- handles --------------------------------------------------------------------------------- */

/* Every architecture-level handle of one architecture, in list order. */
struct arch_handles {
    uint64_t arch, pc;
    uint64_t classes[8], spaces[8], aclasses[8];
    size_t nclasses, nspaces, naclasses;
    uint64_t *regs;
    size_t nregs;
};

static void handles_of(uint64_t arch, struct arch_handles *h)
{
    amd_dbgapi_architecture_id_t a = { arch };
    amd_dbgapi_register_class_id_t *c = NULL;
    amd_dbgapi_address_space_id_t *s = NULL;
    amd_dbgapi_address_class_id_t *ac = NULL;
    amd_dbgapi_register_id_t *r = NULL, pc;

    memset(h, 0, sizeof(*h));
    h->arch = arch;
    OK(amd_dbgapi_architecture_get_info(a, AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER, sizeof(pc),
                                        &pc));
    h->pc = pc.handle;
    OK(amd_dbgapi_architecture_register_class_list(a, &h->nclasses, &c));
    OK(amd_dbgapi_architecture_address_space_list(a, &h->nspaces, &s));
    OK(amd_dbgapi_architecture_address_class_list(a, &h->naclasses, &ac));
    assert_true(h->nclasses <= 8 && h->nspaces <= 8 && h->naclasses <= 8);
    for (size_t i = 0; i < h->nclasses; i++)
        h->classes[i] = c[i].handle;
    for (size_t i = 0; i < h->nspaces; i++)
        h->spaces[i] = s[i].handle;
    for (size_t i = 0; i < h->naclasses; i++)
        h->aclasses[i] = ac[i].handle;
    OK(amd_dbgapi_architecture_register_list(a, &h->nregs, &r));
    h->regs = malloc(h->nregs * sizeof(uint64_t));
    assert_non_null(h->regs);
    for (size_t i = 0; i < h->nregs; i++)
        h->regs[i] = r[i].handle;
    tdc_free(c);
    tdc_free(s);
    tdc_free(ac);
    tdc_free(r);
}

static char *space_name(uint64_t h)
{
    char *s = NULL;

    OK(amd_dbgapi_address_space_get_info((amd_dbgapi_address_space_id_t){ h },
                                         AMD_DBGAPI_ADDRESS_SPACE_INFO_NAME, sizeof(s), &s));
    return s;
}

static char *aclass_name(uint64_t h)
{
    char *s = NULL;

    OK(amd_dbgapi_address_class_get_info((amd_dbgapi_address_class_id_t){ h },
                                         AMD_DBGAPI_ADDRESS_CLASS_INFO_NAME, sizeof(s), &s));
    return s;
}

static void expect_names(const uint64_t *h, size_t n, char *(*name)(uint64_t),
                         const char *const *want, const char *what, const char *arch)
{
    for (size_t i = 0; i < n; i++) {
        char *got = name(h[i]);

        if (strcmp(got, want[i]) != 0)
            fail_msg("%s: %s %zu is \"%s\", AMD lists \"%s\"", arch, what, i, got, want[i]);
        tdc_free(got);
    }
}

static char *class_name_u64(uint64_t h)
{
    return class_name((amd_dbgapi_register_class_id_t){ h });
}

/*
 * AMD's numbering: all 18 architectures exist from the library's start, numbered in its order;
 * each creates 4 address spaces (local, private_lane, private_wave, generic: one counter from 2,
 * 1 being the global space), 5 address classes (none, global, constant, group, private) and 5
 * register classes (scalar, vector, trap, system, general), each kind counted from 1 over all
 * architectures; its lists give the newest first (its hash map's order). A register's handle is
 * the architecture's in the high 32 bits and AMD's register number in the low (pc is 1314).
 */
static void test_handles_numbered_as_amd(void **state)
{
    static const char *const classes[] = { "general", "system", "trap", "vector", "scalar" };
    static const char *const spaces[] = { "global", "generic", "private_wave", "private_lane",
                                          "local" };
    static const char *const aclasses[] = { "private", "group", "constant", "global", "none" };

    (void)state;
    for (uint64_t k = 1; k <= NARCHS; k++) {
        struct arch_handles h;
        amd_dbgapi_architecture_id_t a = arch_named(amd_order[k - 1]);

        assert_int_equal(a.handle, k);
        handles_of(k, &h);
        assert_int_equal(h.nclasses, 5);
        assert_int_equal(h.nspaces, 5);
        assert_int_equal(h.naclasses, 5);
        for (uint64_t i = 0; i < 5; i++) {
            assert_int_equal(h.classes[i], 5 * (k - 1) + 5 - i);
            assert_int_equal(h.aclasses[i], 5 * (k - 1) + 5 - i);
        }
        assert_int_equal(h.spaces[0], 1);
        for (uint64_t i = 1; i < 5; i++)
            assert_int_equal(h.spaces[i], 4 * (k - 1) + 2 + 4 - i);
        expect_names(h.classes, 5, class_name_u64, classes, "register class", amd_order[k - 1]);
        expect_names(h.spaces, 5, space_name, spaces, "address space", amd_order[k - 1]);
        expect_names(h.aclasses, 5, aclass_name, aclasses, "address class", amd_order[k - 1]);
        assert_int_equal(h.pc, k << 32 | 1314);
        assert_int_equal(h.regs[0], k << 32); /* v0 of wave64, AMD's register 0 */
        for (size_t i = 1; i < h.nregs; i++) {
            assert_int_equal(h.regs[i] >> 32, k);
            assert_true(h.regs[i] > h.regs[i - 1]);
        }
        free(h.regs);
    }
    books_balance();
}

/*
 * What GDB does when it opens a second core in one session: it finalizes the library when the
 * last process goes, initializes it again, and goes on using the architecture, register and
 * class handles it cached. Every one must still name the same object.
 */
static void test_handles_survive_finalize(void **state)
{
    const char *fixture = getenv("GPUCORE_DBGAPI_FIXTURE");
    struct arch_handles before[NARCHS], after[NARCHS];
    struct tdc client;
    amd_dbgapi_process_id_t p;
    amd_dbgapi_agent_id_t *agents = NULL;
    amd_dbgapi_architecture_id_t agent_arch[2];
    size_t n = 0;
    uint32_t runtime, rstate, stops;
    char names[NARCHS][4][64];

    (void)state;
    if (!fixture)
        fail_msg("GPUCORE_DBGAPI_FIXTURE is not set");
    tdc_open(&client, fixture);
    for (int round = 0; round < 2; round++) {
        struct arch_handles *h = round ? after : before;

        if (round) {
            init_library();
            /* before anything else of the new session names an architecture */
            for (size_t k = 0; k < NARCHS; k++) {
                char *pc = reg_string((amd_dbgapi_register_id_t){ before[k].pc },
                                      AMD_DBGAPI_REGISTER_INFO_NAME);

                assert_string_equal(pc, "pc");
                tdc_free(pc);
            }
        }
        p = tdc_attach(&client);
        tdc_drain(p, &runtime, &rstate, &stops);
        OK(amd_dbgapi_process_agent_list(p, &n, &agents, NULL));
        assert_true(n > 0);
        OK(amd_dbgapi_agent_get_info(agents[0], AMD_DBGAPI_AGENT_INFO_ARCHITECTURE,
                                     sizeof(agent_arch[round]), &agent_arch[round]));
        tdc_free(agents);
        for (size_t k = 0; k < NARCHS; k++) {
            handles_of(arch_named(amd_order[k]).handle, &h[k]);
            if (round == 0) {
                char *now[4];

                now[0] = reg_string((amd_dbgapi_register_id_t){ h[k].pc },
                                    AMD_DBGAPI_REGISTER_INFO_NAME);
                now[1] = reg_string((amd_dbgapi_register_id_t){ h[k].regs[h[k].nregs - 1] },
                                    AMD_DBGAPI_REGISTER_INFO_NAME);
                now[2] = class_name_u64(h[k].classes[0]);
                now[3] = space_name(h[k].spaces[1]);
                for (int i = 0; i < 4; i++) {
                    snprintf(names[k][i], sizeof(names[k][i]), "%s", now[i]);
                    tdc_free(now[i]);
                }
            }
        }
        if (round == 1) {
            /* the old handles answer, with the same answers */
            for (size_t k = 0; k < NARCHS; k++) {
                char *now[4];

                now[0] = reg_string((amd_dbgapi_register_id_t){ before[k].pc },
                                    AMD_DBGAPI_REGISTER_INFO_NAME);
                now[1] = reg_string(
                        (amd_dbgapi_register_id_t){ before[k].regs[before[k].nregs - 1] },
                        AMD_DBGAPI_REGISTER_INFO_NAME);
                now[2] = class_name_u64(before[k].classes[0]);
                now[3] = space_name(before[k].spaces[1]);
                for (int i = 0; i < 4; i++) {
                    assert_string_equal(now[i], names[k][i]);
                    tdc_free(now[i]);
                }
            }
            /* and a wave's register reads through a handle taken before the finalize */
            {
                struct tdc_list waves = tdc_waves(p);
                uint64_t pc_by_reg = 0, pc_by_info = 0;
                size_t k;

                assert_true(waves.n > 0);
                for (k = 0; k < NARCHS && before[k].arch != agent_arch[0].handle; k++)
                    ;
                assert_true(k < NARCHS);
                OK(amd_dbgapi_read_register((amd_dbgapi_wave_id_t){ waves.ids[0] },
                                            (amd_dbgapi_register_id_t){ before[k].pc }, 0, 8,
                                            &pc_by_reg));
                pc_by_info = tdc_wave_u64(waves.ids[0], AMD_DBGAPI_WAVE_INFO_PC, 8);
                assert_int_equal(pc_by_reg, pc_by_info);
                tdc_free(waves.ids);
            }
        }
        OK(amd_dbgapi_process_detach(p));
        if (!round)
            fini_library();
    }
    assert_int_equal(agent_arch[0].handle, agent_arch[1].handle);
    for (size_t k = 0; k < NARCHS; k++) {
        assert_int_equal(before[k].arch, after[k].arch);
        assert_int_equal(before[k].pc, after[k].pc);
        assert_int_equal(before[k].nregs, after[k].nregs);
        assert_memory_equal(before[k].regs, after[k].regs, before[k].nregs * sizeof(uint64_t));
        assert_int_equal(before[k].nclasses, after[k].nclasses);
        assert_memory_equal(before[k].classes, after[k].classes, sizeof(before[k].classes));
        assert_int_equal(before[k].nspaces, after[k].nspaces);
        assert_memory_equal(before[k].spaces, after[k].spaces, sizeof(before[k].spaces));
        assert_int_equal(before[k].naclasses, after[k].naclasses);
        assert_memory_equal(before[k].aclasses, after[k].aclasses, sizeof(before[k].aclasses));
        free(before[k].regs);
        free(after[k].regs);
    }
    tdc_close(&client);
    books_balance();
}

/* ---- disassembly text ---------------------------------------------------------------------- */

static const char *sym_answer;
static amd_dbgapi_status_t sym_status;
static uint64_t sym_asked;

static amd_dbgapi_status_t symbolizer(amd_dbgapi_symbolizer_id_t id,
                                      amd_dbgapi_global_address_t address, char **symbol_text)
{
    assert_int_equal((uintptr_t)id, 42);
    sym_asked = address;
    if (sym_status == AMD_DBGAPI_STATUS_SUCCESS) {
        *symbol_text = tdc_callbacks.allocate_memory(strlen(sym_answer) + 1);
        strcpy(*symbol_text, sym_answer);
    }
    return sym_status;
}

/* The text of @p bytes at @p pc on @p arch, or NULL when this LLVM has no disassembler for it. */
static char *disassemble(const char *arch, uint64_t pc, const uint8_t *bytes, size_t len,
                         int with_symbolizer)
{
    amd_dbgapi_size_t size = len;
    char *text = NULL;
    amd_dbgapi_status_t st = amd_dbgapi_disassemble_instruction(
            arch_named(arch), pc, &size, bytes, &text, (amd_dbgapi_symbolizer_id_t)42,
            with_symbolizer ? symbolizer : NULL);

    if (st == AMD_DBGAPI_STATUS_ERROR)
        return NULL; /* no disassembler for the target in this build's LLVM */
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        fail_msg("disassembling on %s: status %d", arch, (int)st);
    return text;
}

/*
 * AMD's library appends every address operand of a branch (what LLVM's evaluateBranch gives
 * for an instruction whose first operand is PC-relative) after "  # ": the symbolizer's text
 * if it knows the address, else the address in "%#" PRIx64. Other instructions get nothing.
 */
static void test_disassembly_branch_comment(void **state)
{
    static const struct {
        const char *arch;
        uint8_t execz[4]; /* s_cbranch_execz 9 */
        uint8_t call[4];  /* s_call_b64 s[30:31], 3: its first operand is a register */
    } cases[] = {
        { "gfx900", { 0x09, 0x00, 0x88, 0xbf }, { 0x03, 0x00, 0x9e, 0xba } },
        { "gfx1030", { 0x09, 0x00, 0x88, 0xbf }, { 0x03, 0x00, 0x1e, 0xbb } },
        { "gfx1100", { 0x09, 0x00, 0xa5, 0xbf }, { 0x03, 0x00, 0x1e, 0xba } },
        { "gfx1201", { 0x09, 0x00, 0xa5, 0xbf }, { 0x03, 0x00, 0x1e, 0xba } }, /* LLVM 19+ */
    };
    static const uint8_t endpgm9[4] = { 0x00, 0x00, 0x81, 0xbf };
    const uint64_t pc = 0x7f5824801820ull, target = pc + 4 + 9 * 4;
    unsigned tested = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char want[128], *t;

        t = disassemble(cases[i].arch, pc, cases[i].execz, 4, 0);
        if (!t)
            continue;
        tested++;
        snprintf(want, sizeof(want), "s_cbranch_execz 9  # %#" PRIx64, target);
        assert_string_equal(t, want);
        tdc_free(t);
        /* a symbolizer that knows the address: its text replaces the address */
        sym_status = AMD_DBGAPI_STATUS_SUCCESS;
        sym_answer = "0x7f5824801848 <vadd+92>";
        sym_asked = 0;
        t = disassemble(cases[i].arch, pc, cases[i].execz, 4, 1);
        assert_int_equal(sym_asked, target);
        assert_string_equal(t, "s_cbranch_execz 9  # 0x7f5824801848 <vadd+92>");
        tdc_free(t);
        /* one that does not: the address */
        sym_status = AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND;
        t = disassemble(cases[i].arch, pc, cases[i].execz, 4, 1);
        assert_string_equal(t, want);
        tdc_free(t);
        /* no address operand: no comment, and the symbolizer is not asked */
        sym_asked = 0;
        sym_status = AMD_DBGAPI_STATUS_SUCCESS;
        t = disassemble(cases[i].arch, pc, cases[i].call, 4, 1);
        assert_null(strchr(t, '#'));
        assert_non_null(strstr(t, "s_call_b64"));
        tdc_free(t);
        if (strncmp(cases[i].arch, "gfx11", 5) != 0 && strncmp(cases[i].arch, "gfx12", 5) != 0) {
            t = disassemble(cases[i].arch, pc, endpgm9, 4, 1);
            assert_string_equal(t, "s_endpgm");
            tdc_free(t);
        }
        assert_int_equal(sym_asked, 0);
    }
    assert_true(tested >= 2); /* LLVM 16 has gfx900 and gfx1030 at least */
    books_balance();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_files),
        cmocka_unit_test_setup_teardown(test_answers_match_amd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handles_numbered_as_amd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handles_survive_finalize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disassembly_branch_comment, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
