/* SPDX-License-Identifier: MIT */
/*
 * The host threads' backtraces (analyze/host_stack.c) on cores made here byte by byte: threads
 * and registers from NT_PRSTATUS, the signal, the system call, a frame-pointer chain through
 * the core's memory, modules from NT_FILE with their build-id from the core, what --sysroot
 * may and may not open (a file with another build-id, a FIFO, a link leaving the directory),
 * and malformed notes (wrong sizes, counts past the note, names without NUL, too many
 * threads), each with its exact outcome.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <gpucore/core.h>

#include "gc_le.h"
#include "host_stack.h"

#define MOD_BASE 0x400000ull  /* the fake library's first page */
#define MOD_END  0x402000ull
#define STACK    0x7ff000ull  /* one page of stack */
#define PC0      0x400100ull  /* thread 1's PC, in the library */
#define RET1     0x400230ull  /* the return address its frame pointer leads to */
#define KFD_WAIT 0xC0184B0Cull

static const uint8_t build_id[8] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };

/* ---- a core, byte by byte ------------------------------------------------------------------ */

struct blob {
    uint8_t *p;
    size_t n;
};

static void put(struct blob *b, const void *d, size_t n)
{
    b->p = realloc(b->p, b->n + n + 8);
    assert_non_null(b->p);
    memcpy(b->p + b->n, d, n);
    b->n += n;
    while (b->n % 4)
        b->p[b->n++] = 0;
}

static void note(struct blob *b, const char *owner, uint32_t type, const void *desc, size_t n)
{
    uint8_t h[12];

    gc_le32_put(h, (uint32_t)strlen(owner) + 1);
    gc_le32_put(h + 4, (uint32_t)n);
    gc_le32_put(h + 8, type);
    put(b, h, sizeof(h));
    put(b, owner, strlen(owner) + 1);
    if (n)
        put(b, desc, n);
}

struct thread_spec {
    int32_t tid;
    uint64_t rip, rbp, rsp, orig_rax, rsi;
};

static void prstatus(struct blob *b, const struct thread_spec *t, size_t size)
{
    uint8_t d[336] = { 0 };
    /* struct user_regs_struct indices: rbp 4, rsi 13, orig_rax 15, rip 16, rsp 19 */
    gc_le16_put(d + 12, 19); /* pr_cursig SIGSTOP */
    gc_le32_put(d + 32, (uint32_t)t->tid);
    gc_le64_put(d + 112 + 8 * 4, t->rbp);
    gc_le64_put(d + 112 + 8 * 13, t->rsi);
    gc_le64_put(d + 112 + 8 * 15, t->orig_rax);
    gc_le64_put(d + 112 + 8 * 16, t->rip);
    gc_le64_put(d + 112 + 8 * 19, t->rsp);
    note(b, "CORE", 1, d, size);
}

/* NT_FILE: @p count entries claimed, @p real written; names NUL-terminated unless !nul. */
static void nt_file(struct blob *b, uint64_t count, const char *name, int nul)
{
    uint8_t d[16 + 24 + 64] = { 0 };
    size_t n = 16 + 24;

    gc_le64_put(d, count);
    gc_le64_put(d + 8, 4096);
    gc_le64_put(d + 16, MOD_BASE);
    gc_le64_put(d + 24, MOD_END);
    gc_le64_put(d + 32, 0);
    memcpy(d + n, name, strlen(name) + (nul ? 1 : 0));
    n += strlen(name) + (nul ? 1 : 0);
    note(b, "CORE", 0x46494c45u, d, n);
}

/* The library's first page: an ELF header, PT_LOAD and PT_NOTE, a GNU build-id note. */
static void module_page(uint8_t *pg)
{
    uint8_t *ph = pg + 64, *nt = pg + 0x200;

    memset(pg, 0, 4096);
    memcpy(pg, "\x7f" "ELF\x02\x01\x01", 7);
    gc_le16_put(pg + 16, 3);  /* ET_DYN */
    gc_le16_put(pg + 18, 62); /* EM_X86_64 */
    gc_le64_put(pg + 32, 64); /* e_phoff */
    gc_le16_put(pg + 54, 56);
    gc_le16_put(pg + 56, 2);
    gc_le32_put(ph, 1); /* PT_LOAD at 0 */
    gc_le64_put(ph + 32, MOD_END - MOD_BASE);
    gc_le32_put(ph + 56, 4); /* PT_NOTE */
    gc_le64_put(ph + 56 + 16, 0x200);
    gc_le64_put(ph + 56 + 32, 16 + sizeof(build_id));
    gc_le32_put(nt, 4);
    gc_le32_put(nt + 4, sizeof(build_id));
    gc_le32_put(nt + 8, 3); /* NT_GNU_BUILD_ID */
    memcpy(nt + 12, "GNU", 4);
    memcpy(nt + 16, build_id, sizeof(build_id));
}

/* An ELF core: the notes, the library's first page, one page of stack with a frame-pointer
   record at its start ([saved rbp = 0, return address RET1]). */
static uint8_t *make_core(const struct blob *notes, size_t *ret_size)
{
    size_t off_notes = 64 + 3 * 56, off_mod = (off_notes + notes->n + 4095) & ~(size_t)4095;
    size_t size = off_mod + 2 * 4096;
    uint8_t *c = calloc(1, size), *ph = c + 64;

    assert_non_null(c);
    memcpy(c, "\x7f" "ELF\x02\x01\x01", 7);
    gc_le16_put(c + 16, 4); /* ET_CORE */
    gc_le16_put(c + 18, 62);
    gc_le32_put(c + 20, 1);
    gc_le64_put(c + 32, 64);
    gc_le16_put(c + 52, 64);
    gc_le16_put(c + 54, 56);
    gc_le16_put(c + 56, 3);
    gc_le32_put(ph, 4); /* PT_NOTE */
    gc_le64_put(ph + 8, off_notes);
    gc_le64_put(ph + 32, notes->n);
    memcpy(c + off_notes, notes->p, notes->n);
    for (int i = 0; i < 2; i++) {
        uint8_t *p = ph + 56 * (1 + i);

        gc_le32_put(p, 1);
        gc_le32_put(p + 4, i ? 6 : 5);
        gc_le64_put(p + 8, off_mod + 4096u * (unsigned)i);
        gc_le64_put(p + 16, i ? STACK : MOD_BASE);
        gc_le64_put(p + 32, 4096);
        gc_le64_put(p + 40, 4096);
        gc_le64_put(p + 48, 4096);
    }
    module_page(c + off_mod);
    gc_le64_put(c + off_mod + 4096 + 8, RET1);
    *ret_size = size;
    return c;
}

/* With GC_HOST_STACK_SEEDS=DIR, every core made here is also written to DIR (the fuzz corpus
   of fuzz_host_stack). */
static void write_seed(const uint8_t *bytes, size_t size)
{
    static unsigned n;
    const char *dir = getenv("GC_HOST_STACK_SEEDS");
    char path[512];
    FILE *f;

    if (!dir)
        return;
    snprintf(path, sizeof(path), "%s/core-%02u", dir, n++);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

struct fixture {
    uint8_t *bytes;
    gpucore_core_t *core;
};

/* The "host" member of a core of @p notes, @p error_thread named as the one that met the GPU
   error (0 = none). */
static json_t *host_of_error(struct fixture *f, const struct blob *notes, const char *sysroot,
                             uint32_t error_thread)
{
    size_t size;
    gpucore_diag_t d;
    json_t *j;

    f->bytes = make_core(notes, &size);
    write_seed(f->bytes, size);
    assert_int_equal(gpucore_core_open_memory(f->bytes, size, NULL, &f->core, &d), GPUCORE_OK);
    j = gc_host_stacks_json(f->core, sysroot, error_thread);
    assert_non_null(j);
    return j;
}

static json_t *host_of(struct fixture *f, const struct blob *notes, const char *sysroot)
{
    return host_of_error(f, notes, sysroot, 0);
}

static void fixture_free(struct fixture *f, struct blob *notes, json_t *j)
{
    json_decref(j);
    gpucore_core_close(f->core);
    free(f->bytes);
    free(notes->p);
}

static const json_t *thread_at(const json_t *h, size_t i)
{
    return json_array_get(json_object_get(h, "threads"), i);
}

static const char *str_of(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Two threads: the first in the library with a frame-pointer chain on the stack, the second
   blocked in the KFD event wait. */
static void standard_notes(struct blob *b, const char *file)
{
    struct thread_spec t1 = { .tid = 100, .rip = PC0, .rbp = STACK, .rsp = STACK,
                              .orig_rax = (uint64_t)-1 };
    struct thread_spec t2 = { .tid = 101, .rip = PC0 + 4, .rbp = 0, .rsp = STACK + 64,
                              .orig_rax = 16, .rsi = KFD_WAIT };
    uint8_t sig[128] = { 0 }, psinfo[136] = { 0 };

    prstatus(b, &t1, 336);
    gc_le32_put(psinfo + 24, 100);
    note(b, "CORE", 3, psinfo, sizeof(psinfo));
    gc_le32_put(sig, 6); /* SIGABRT */
    note(b, "CORE", 0x53494749u, sig, sizeof(sig));
    nt_file(b, 1, file, 1);
    prstatus(b, &t2, 336);
}

static void test_threads_frames_modules(void **state)
{
    struct fixture f = { 0 };
    struct blob b = { 0 };
    json_t *h, *fr, *m;

    (void)state;
    standard_notes(&b, "/usr/lib/libfake.so.1");
    h = host_of(&f, &b, NULL);
    assert_int_equal(json_integer_value(json_object_get(h, "pid")), 100);
    assert_int_equal(json_array_size(json_object_get(h, "threads")), 2);
    assert_true(json_is_null(json_object_get(h, "problem")));

    /* the first thread: the signal of NT_SIGINFO, not in a system call, two frames */
    assert_int_equal(json_integer_value(json_object_get(thread_at(h, 0), "tid")), 100);
    assert_true(json_is_true(json_object_get(thread_at(h, 0), "first")));
    assert_string_equal(str_of(thread_at(h, 0), "signal"), "SIGABRT");
    assert_true(json_is_null(json_object_get(thread_at(h, 0), "syscall")));
    fr = json_object_get(thread_at(h, 0), "frames");
    assert_int_equal(json_array_size(fr), 2);
    assert_string_equal(str_of(json_array_get(fr, 0), "pc"), "0x400100");
    assert_string_equal(str_of(json_array_get(fr, 0), "module"), "libfake.so.1");
    assert_string_equal(str_of(json_array_get(fr, 0), "module_offset"), "0x100");
    assert_true(json_is_null(json_object_get(json_array_get(fr, 0), "symbol")));
    assert_string_equal(str_of(json_array_get(fr, 1), "pc"), "0x400230");
    assert_string_equal(str_of(json_array_get(fr, 1), "module_offset"), "0x230");
    /* where the unwinding stopped, in words: the module's file is missing, not libdwfl's
       "Callback returned failure" (issue 23) */
    assert_string_equal(str_of(thread_at(h, 0), "unwind_end"),
                        "no unwind tables for libfake.so.1: its file is not at hand");

    /* the second: no signal of its own, waiting for KFD events */
    assert_true(json_is_false(json_object_get(thread_at(h, 1), "first")));
    /* no error thread given: no thread met the error */
    assert_true(json_is_false(json_object_get(thread_at(h, 0), "met_error")));
    assert_true(json_is_false(json_object_get(thread_at(h, 1), "met_error")));
    assert_true(json_is_null(json_object_get(thread_at(h, 1), "signal")));
    assert_string_equal(str_of(thread_at(h, 1), "syscall"), "ioctl(AMDKFD_IOC_WAIT_EVENTS)");

    /* the module: its build-id read from the core, no file opened */
    assert_int_equal(json_array_size(json_object_get(h, "modules_without_symbols")), 1);
    m = json_array_get(json_object_get(h, "modules_without_symbols"), 0);
    assert_string_equal(str_of(m, "name"), "libfake.so.1");
    assert_string_equal(str_of(m, "path"), "/usr/lib/libfake.so.1");
    assert_string_equal(str_of(m, "build_id"), "deadbeef01020304");
    assert_true(json_is_true(json_object_get(m, "in_frames")));
    assert_string_equal(str_of(m, "why"), "its file is not in the core (--sysroot DIR reads it "
                                          "below DIR, checked by build-id)");
    fixture_free(&f, &b, h);
}

/* --sysroot: what is found below it and is not the core's file is refused, each with why. */
/* @p expect_before and @p expect_after around the sysroot's path: the expected "why". */
static void sysroot_case(const char *setup, const char *expect_before, const char *expect_after)
{
    char dir[] = "/tmp/gc-sysroot-XXXXXX", path[256], cmd[768];
    struct fixture f = { 0 };
    struct blob b = { 0 };
    json_t *h, *m;

    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "set -e; cd %s; mkdir -p usr/lib; %s", dir, setup);
    assert_int_equal(system(cmd), 0);
    standard_notes(&b, "/usr/lib/libfake.so.1");
    h = host_of(&f, &b, dir);
    m = json_array_get(json_object_get(h, "modules_without_symbols"), 0);
    snprintf(path, sizeof(path), "%s%s%s", expect_before, dir, expect_after);
    assert_string_equal(str_of(m, "why"), path);
    /* unwinding went on from the core alone */
    assert_int_equal(json_array_size(json_object_get(thread_at(h, 0), "frames")), 2);
    fixture_free(&f, &b, h);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* "met_error" is true on the thread the capture metadata names, whichever its place, and on
   none when the tid is not a thread of the core. */
static void test_met_error(void **state)
{
    static const struct {
        uint32_t error_thread;
        int met0, met1;
    } cases[] = { { 101, 0, 1 }, { 100, 1, 0 }, { 999, 0, 0 }, { 0, 0, 0 } };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f = { 0 };
        struct blob b = { 0 };
        json_t *h;

        standard_notes(&b, "/usr/lib/libfake.so.1");
        h = host_of_error(&f, &b, NULL, cases[i].error_thread);
        assert_int_equal(json_array_size(json_object_get(h, "threads")), 2);
        assert_true(json_is_boolean(json_object_get(thread_at(h, 0), "met_error")));
        assert_int_equal(json_is_true(json_object_get(thread_at(h, 0), "met_error")),
                         cases[i].met0);
        assert_int_equal(json_is_true(json_object_get(thread_at(h, 1), "met_error")),
                         cases[i].met1);
        /* "first" stays the core's order */
        assert_true(json_is_true(json_object_get(thread_at(h, 0), "first")));
        assert_true(json_is_false(json_object_get(thread_at(h, 1), "first")));
        fixture_free(&f, &b, h);
    }
}

static void test_sysroot_refuses(void **state)
{
    (void)state;
    /* not an ELF file at all */
    sysroot_case("echo 'not an ELF file' >usr/lib/libfake.so.1",
                 "below --sysroot ", ", not the x86-64 ELF file the core had mapped");
    /* a shared object with another build-id */
    sysroot_case("for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6; "
                 "do [ -f $f ] && cp $f usr/lib/libfake.so.1 && break; done",
                 "below --sysroot ", ", a file with another build-id than the core's");
    /* a FIFO is never opened (it would block) */
    sysroot_case("mkfifo usr/lib/libfake.so.1", "below --sysroot ", ", not a regular file");
    /* an absolute link resolves inside the sysroot, where nothing is */
    sysroot_case("ln -s /etc/passwd usr/lib/libfake.so.1",
                 "not found below --sysroot ", " (No such file or directory)");
    /* a relative one cannot climb out either */
    sysroot_case("ln -s ../../../../../../etc/passwd usr/lib/libfake.so.1",
                 "not found below --sysroot ", " (No such file or directory)");
}

/* Malformed notes: each gives a bounded, stated outcome. */
static void test_hostile_notes(void **state)
{
    struct thread_spec t = { .tid = 7, .rip = PC0, .orig_rax = (uint64_t)-1 };
    struct fixture f = { 0 };
    struct blob b = { 0 };
    json_t *h;

    (void)state;
    /* an NT_PRSTATUS that is not x86-64's */
    prstatus(&b, &t, 200);
    h = host_of(&f, &b, NULL);
    assert_string_equal(str_of(h, "problem"),
                        "NT_PRSTATUS at file offset 0xe8 has 200 bytes, not the 336 of x86-64: "
                        "only x86-64 host threads are unwound");
    assert_int_equal(json_array_size(json_object_get(h, "threads")), 0);
    fixture_free(&f, &b, h);

    /* NT_FILE claiming more entries than it holds: no module, the frame says so */
    memset(&b, 0, sizeof(b));
    memset(&f, 0, sizeof(f));
    prstatus(&b, &t, 336);
    nt_file(&b, UINT64_C(1) << 60, "/usr/lib/libfake.so.1", 1);
    h = host_of(&f, &b, NULL);
    assert_true(json_is_null(json_object_get(
        json_array_get(json_object_get(thread_at(h, 0), "frames"), 0), "module")));
    assert_int_equal(json_array_size(json_object_get(h, "modules_without_symbols")), 0);
    fixture_free(&f, &b, h);

    /* a file name without its NUL: not used */
    memset(&b, 0, sizeof(b));
    memset(&f, 0, sizeof(f));
    prstatus(&b, &t, 336);
    nt_file(&b, 1, "/usr/lib/libfake.so.1", 0);
    h = host_of(&f, &b, NULL);
    assert_int_equal(json_array_size(json_object_get(h, "modules_without_symbols")), 0);
    fixture_free(&f, &b, h);

    /* a name with control characters reaches no terminal as such */
    memset(&b, 0, sizeof(b));
    memset(&f, 0, sizeof(f));
    prstatus(&b, &t, 336);
    nt_file(&b, 1, "/usr/lib/\x1b[31mevil", 1);
    h = host_of(&f, &b, NULL);
    assert_string_equal(str_of(json_array_get(json_object_get(h, "modules_without_symbols"), 0),
                               "name"),
                        "?[31mevil");
    fixture_free(&f, &b, h);
}

/* More threads than are unwound are counted, not shown; no thread at all is json null. */
static void test_thread_bounds(void **state)
{
    struct fixture f = { 0 };
    struct blob b = { 0 };
    json_t *h;

    (void)state;
    for (int i = 0; i < (int)GC_HS_MAX_THREADS + 5; i++) {
        struct thread_spec t = { .tid = 1000 + i, .rip = 0x10, .orig_rax = 202 };

        prstatus(&b, &t, 336);
    }
    h = host_of(&f, &b, NULL);
    assert_int_equal(json_array_size(json_object_get(h, "threads")), GC_HS_MAX_THREADS);
    assert_int_equal(json_integer_value(json_object_get(h, "more_threads")), 5);
    assert_string_equal(str_of(thread_at(h, 3), "syscall"), "futex");
    fixture_free(&f, &b, h);

    memset(&b, 0, sizeof(b));
    memset(&f, 0, sizeof(f));
    note(&b, "CORE", 6, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    h = host_of(&f, &b, NULL);
    assert_true(json_is_null(h));
    fixture_free(&f, &b, h);
}

/* A thread's system call is named from the whole x86-64 table (the kernel's syscall_64.tbl),
   not a short list (issue 23: "in system call #44" for sendto); a number past the table or in
   its gap stays a number. */
static void test_syscall_names(void **state)
{
    static const struct {
        uint64_t nr;
        const char *name;
    } want[] = {
        { 0, "read" },           { 44, "sendto" },    { 202, "futex" },
        { 232, "epoll_wait" },   { 334, "rseq" },     { 335, "#335" },
        { 424, "pidfd_send_signal" }, { 435, "clone3" }, { 462, "mseal" },
        { 100000, "#100000" },
    };
    struct fixture f = { 0 };
    struct blob b = { 0 };
    json_t *h;

    (void)state;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct thread_spec t = { .tid = 200 + (int32_t)i, .rip = 0x10, .orig_rax = want[i].nr };

        prstatus(&b, &t, 336);
    }
    h = host_of(&f, &b, NULL);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_string_equal(str_of(thread_at(h, i), "syscall"), want[i].name);
    fixture_free(&f, &b, h);
}

/* NT_FILE with GC_HS_MAX_FILES entries, the library's own among them after an empty entry of
   the same name and mappings of other files interleaved: the library is still one module from
   its lowest to its highest mapping (before, an empty first entry hid the file), and the
   entries past the bound are not considered. */
static void test_many_files(void **state)
{
    enum { N = GC_HS_MAX_FILES + 8 };
    struct thread_spec t1 = { .tid = 100, .rip = PC0, .rbp = STACK, .rsp = STACK,
                              .orig_rax = (uint64_t)-1 };
    const char *lib = "/usr/lib/libfake.so.1";
    size_t names = 0, n;
    struct fixture f = { 0 };
    struct blob b = { 0 };
    uint8_t *d;
    json_t *h, *fr;

    (void)state;
    for (unsigned k = 0; k < N; k++)
        names += k < 2 ? strlen(lib) + 1 : 16;
    n = 16 + 24 * (size_t)N + names;
    d = calloc(1, n);
    assert_non_null(d);
    gc_le64_put(d, N);
    gc_le64_put(d + 8, 4096);
    for (unsigned k = 0, at = 16 + 24 * N; k < N; k++) {
        uint8_t *e = d + 16 + 24 * k;

        if (k == 0) { /* the library, an empty range */
            gc_le64_put(e, 0x900000);
            gc_le64_put(e + 8, 0x900000);
        } else if (k == 1) { /* the library, its mapping of file offset 0 */
            gc_le64_put(e, MOD_BASE);
            gc_le64_put(e + 8, MOD_END);
        } else { /* other files, each once, none of them in the core */
            gc_le64_put(e, 0x10000000ull + 0x2000ull * k);
            gc_le64_put(e + 8, 0x10001000ull + 0x2000ull * k);
        }
        if (k < 2) {
            memcpy(d + at, lib, strlen(lib) + 1);
            at += (unsigned)strlen(lib) + 1;
        } else {
            snprintf((char *)d + at, 16, "/x/%011u", k);
            at += 16;
        }
    }
    prstatus(&b, &t1, 336);
    note(&b, "CORE", 0x46494c45u, d, n);
    free(d);
    h = host_of(&f, &b, NULL);
    fr = json_object_get(thread_at(h, 0), "frames");
    assert_int_equal(json_array_size(fr), 2);
    assert_string_equal(str_of(json_array_get(fr, 0), "module"), "libfake.so.1");
    assert_string_equal(str_of(json_array_get(fr, 0), "module_offset"), "0x100");
    assert_string_equal(str_of(json_array_get(fr, 1), "module_offset"), "0x230");
    fixture_free(&f, &b, h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_frames_modules),
        cmocka_unit_test(test_met_error),
        cmocka_unit_test(test_sysroot_refuses),
        cmocka_unit_test(test_hostile_notes),
        cmocka_unit_test(test_thread_bounds),
        cmocka_unit_test(test_syscall_names),
        cmocka_unit_test(test_many_files),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
