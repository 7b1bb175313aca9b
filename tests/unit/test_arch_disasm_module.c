/* SPDX-License-Identifier: MIT */
/*
 * test_arch_disasm_module: the loader of the disassembler module (arch/disasm_loader.c,
 * arch/disasm_module.h), on this test's own copy of arch/ built with GC_DISASM_TEST_HOOKS so
 * the module's path can be pointed elsewhere (tests/disasm_module.cmake). Nothing here links
 * LLVM: libLLVM appears in this process only when the real module is loaded, which the last
 * case does.
 *
 *  - a missing module, a file that is not a shared object, one without the entry, a module of
 *    another interface number, a module others may write: each refused with its one sentence,
 *    "disassembler not available: ..."; classification of the table's instructions, branch
 *    targets and breakpoints still work; libLLVM is not mapped;
 *  - gc_disasm_disable(): the module is never loaded;
 *  - the real module: loaded once by several threads at the same time, and it disassembles.
 */
#include <pthread.h>
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

#include <gpucore/status.h>

#include "arch.h"
#include "disasm.h"
#include "disasm_module.h"

#if !defined(GC_DISASM_TEST_HOOKS) || !defined(GC_TEST_MODULE) || !defined(GC_TEST_STUB_STALE) || \
        !defined(GC_TEST_STUB_NOENTRY)
#error "tests/disasm_module.cmake defines GC_DISASM_TEST_HOOKS and the modules' paths"
#endif

#define PC 0x1000u

static const uint8_t s_endpgm[4] = { 0x00, 0x00, 0x81, 0xbf }; /* gfx10 */
static const uint8_t s_nop[4] = { 0x00, 0x00, 0x80, 0xbf };    /* not in the tables */
static const uint8_t s_branch[4] = { 0x05, 0x00, 0x82, 0xbf }; /* s_branch 5 */

static const struct gc_arch *gfx1030(void)
{
    const struct gc_arch *a = gc_arch_by_name("gfx1030");

    assert_non_null(a);
    return a;
}

/* 1 when libLLVM is mapped into this process. */
static int llvm_mapped(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");

    assert_non_null(f);
    while (fgets(line, sizeof(line), f))
        if (strstr(line, "libLLVM"))
            found = 1;
    fclose(f);
    return found;
}

/* A file in the test's scratch directory. */
static void tmp_path(char *buf, size_t size, const char *name)
{
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");

    snprintf(buf, size, "%s/test_arch_disasm_module.%ld.%s", dir ? dir : "/tmp", (long)getpid(),
             name);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    char buf[8192];
    size_t n;
    FILE *in = fopen(from, "rb"), *out;

    assert_non_null(in);
    unlink(to);
    out = fopen(to, "wb");
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(chmod(to, mode), 0); /* chmod: the umask does not decide */
}

/*
 * With the module at path refused: every text function says `expect` (after "disassembler not
 * available: "), the tables still answer, and LLVM is not in the process.
 */
static void expect_refused(const char *path, const char *expect)
{
    const struct gc_arch *a = gfx1030();
    char text[GC_DISASM_TEXT_MAX] = "untouched", want[GPUCORE_DIAG_MESSAGE_SIZE];
    gpucore_diag_t d = { 0 };
    uint32_t size = 77;
    struct gc_disasm_class cls;
    struct gc_disasm_insn insns[2];
    size_t n = 99;
    uint64_t target = 0;
    uint8_t bp[4];

    gc_disasm_module_test_reset(path);
    snprintf(want, sizeof(want), "disassembler not available: %s", expect);

    assert_int_equal(gc_disasm_insn(a, s_endpgm, 4, PC, NULL, text, sizeof(text), &size, &d),
                     GPUCORE_E_NOTSUP);
    assert_string_equal(d.message, want);
    assert_string_equal(text, "untouched"); /* outputs untouched on error */
    assert_int_equal(size, 77);

    memset(&d, 0, sizeof(d));
    assert_int_equal(gc_disasm_range_array(a, s_endpgm, 4, PC, NULL, insns, 2, &n, &d),
                     GPUCORE_E_NOTSUP);
    assert_string_equal(d.message, want);
    memset(&d, 0, sizeof(d));
    assert_int_equal(gc_disasm_load(&d), GPUCORE_E_NOTSUP);
    assert_string_equal(d.message, want);
    assert_false(gc_disasm_available(a));

    /* The tables need no LLVM: control flow is still classified, its size from the format. */
    assert_int_equal(gc_disasm_classify(a, s_endpgm, 4, PC, &cls, NULL), GPUCORE_OK);
    assert_int_equal(cls.kind, GC_INSN_TERMINATE);
    assert_int_equal(cls.size, 4);
    memset(&d, 0, sizeof(d));
    assert_int_equal(gc_disasm_classify(a, s_nop, 4, PC, &cls, &d), GPUCORE_E_NOTSUP);
    assert_string_equal(d.message, want);
    assert_int_equal(gc_disasm_branch_target(a, s_branch, 4, PC, &target), 1);
    assert_int_equal(target, PC + 4 + 5 * 4);
    assert_int_equal(gc_disasm_breakpoint(a, bp), GPUCORE_OK);
    assert_string_equal(gc_disasm_llvm_version(), GC_TEST_LLVM_VERSION);

    gc_disasm_fini(); /* nothing loaded: nothing to do */
    assert_false(llvm_mapped());
}

static void test_missing(void **state)
{
    (void)state;
    expect_refused("/nonexistent/gpucore-disasm.so",
                   "cannot open /nonexistent/gpucore-disasm.so: No such file or directory");
}

/* A failure is remembered: the second call answers the same without trying again. */
static void test_failure_is_kept(void **state)
{
    char text[GC_DISASM_TEXT_MAX];
    gpucore_diag_t d = { 0 };
    uint32_t size;

    (void)state;
    gc_disasm_module_test_reset("/nonexistent/a.so");
    assert_int_equal(gc_disasm_load(NULL), GPUCORE_E_NOTSUP);
    assert_int_equal(
            gc_disasm_insn(gfx1030(), s_endpgm, 4, PC, NULL, text, sizeof(text), &size, &d),
            GPUCORE_E_NOTSUP);
    assert_string_equal(d.message, "disassembler not available: cannot open /nonexistent/a.so: "
                                   "No such file or directory");
}

static void test_not_a_shared_object(void **state)
{
    char path[512], want[700];
    FILE *f;

    (void)state;
    tmp_path(path, sizeof(path), "text.so");
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    assert_int_equal(chmod(path, 0644), 0);
    /* dlerror()'s words follow; the sentence starts with ours. */
    snprintf(want, sizeof(want), "cannot load %s: ", path);
    {
        gpucore_diag_t d = { 0 };

        gc_disasm_module_test_reset(path);
        assert_int_equal(gc_disasm_load(&d), GPUCORE_E_NOTSUP);
        assert_non_null(strstr(d.message, want));
        assert_ptr_equal(strstr(d.message, "disassembler not available: "), d.message);
    }
    assert_false(llvm_mapped());
    unlink(path);
}

static void test_no_entry(void **state)
{
    char want[700];

    (void)state;
    snprintf(want, sizeof(want),
             "%s is not a gpucore disassembler module (it has no gpucore_disasm_module_get)",
             GC_TEST_STUB_NOENTRY);
    expect_refused(GC_TEST_STUB_NOENTRY, want);
}

static void test_stale(void **state)
{
    char want[700];

    (void)state;
    snprintf(want, sizeof(want),
             "%s is the module of another gpucore (interface %u, this program needs %u): install "
             "the gpucore-disasm.so built with this program",
             GC_TEST_STUB_STALE, GC_DISASM_MODULE_ABI + 1, GC_DISASM_MODULE_ABI);
    expect_refused(GC_TEST_STUB_STALE, want);
}

/* A module others may write is refused before it is loaded (the real one, so it would load). */
static void test_writable_by_others(void **state)
{
    char path[512], want[700];

    (void)state;
    tmp_path(path, sizeof(path), "writable.so");
    copy_file(GC_TEST_MODULE, path, 0646);
    snprintf(want, sizeof(want), "%s may be written by others than its owner", path);
    expect_refused(path, want);
    unlink(path);
}

static void test_directory(void **state)
{
    char want[700];
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");

    (void)state;
    if (!dir)
        dir = "/tmp";
    snprintf(want, sizeof(want), "%s is not a regular file", dir);
    expect_refused(dir, want);
}

/* gc_disasm_disable(): the real module is there, and still not loaded. */
static void test_disabled(void **state)
{
    char text[GC_DISASM_TEXT_MAX];
    gpucore_diag_t d = { 0 };
    uint32_t size;

    (void)state;
    gc_disasm_module_test_reset(GC_TEST_MODULE);
    gc_disasm_disable("a capture does not load the disassembler");
    assert_int_equal(
            gc_disasm_insn(gfx1030(), s_endpgm, 4, PC, NULL, text, sizeof(text), &size, &d),
            GPUCORE_E_NOTSUP);
    assert_string_equal(d.message,
                        "disassembler not available: a capture does not load the disassembler");
    assert_false(gc_disasm_available(gfx1030()));
    assert_false(llvm_mapped());
}

/* Several threads ask at once; the module is loaded once and every one gets the text. */
#define NTHREADS 4

static void *disasm_thread(void *arg)
{
    char *text = arg;
    uint32_t size = 0;

    if (gc_disasm_insn(gc_arch_by_name("gfx1030"), s_endpgm, 4, PC, NULL, text, GC_DISASM_TEXT_MAX,
                       &size, NULL) != GPUCORE_OK ||
        size != 4)
        snprintf(text, GC_DISASM_TEXT_MAX, "failed");
    return NULL;
}

static void test_real_module(void **state)
{
    pthread_t th[NTHREADS];
    char texts[NTHREADS][GC_DISASM_TEXT_MAX];
    struct gc_disasm_class cls;
    gpucore_diag_t d = { 0 };

    (void)state;
    gc_disasm_module_test_reset(GC_TEST_MODULE);
    assert_false(llvm_mapped());
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, disasm_thread, texts[i]), 0);
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_string_equal(texts[i], "s_endpgm");
    }
    assert_true(llvm_mapped());
    assert_int_equal(gc_disasm_load(&d), GPUCORE_OK);
    assert_true(gc_disasm_available(gfx1030()));
    /* With LLVM, an instruction outside the tables has a size. */
    assert_int_equal(gc_disasm_classify(gfx1030(), s_nop, 4, PC, &cls, NULL), GPUCORE_OK);
    assert_int_equal(cls.kind, GC_INSN_SEQUENTIAL);
    assert_int_equal(cls.size, 4);
    gc_disasm_fini(); /* so LeakSanitizer sees no LLVM context */
}

int main(void)
{
    /* In this order: the real module, once loaded, stays mapped. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_failure_is_kept),
        cmocka_unit_test(test_not_a_shared_object),
        cmocka_unit_test(test_no_entry),
        cmocka_unit_test(test_stale),
        cmocka_unit_test(test_writable_by_others),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_disabled),
        cmocka_unit_test(test_real_module),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
