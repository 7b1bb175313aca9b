/* SPDX-License-Identifier: MIT */
/*
 * The model of `gpucore info` (analyze/info_model.h), built directly: on the example core of a
 * faulting GPU process (gpucore-mkexample, unified and split), on a plain host core without GPU
 * state (test_core_util's standard image with a [vsyscall]-like execute-only segment, as the
 * kernel writes it), and on a core whose memory budget cannot hold the model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <elf.h>

#include <gpucore/core.h>

#include "gc_json.h"
#include "info_model.h"
#include "test_core_util.h"

/* Write gpucore-mkexample's core (with @p flags: "" or "--split") into a new directory. */
static gpucore_core_t *example_core(const char *flags, char **ret_dir)
{
    const char *tool = getenv("GPUCORE_MKEXAMPLE");
    char *dir = tc_mkdtemp("info-model");
    char path[4096], cmd[8192];
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;

    if (!tool || !*tool)
        fail_msg("GPUCORE_MKEXAMPLE is not set");
    snprintf(path, sizeof(path), "%s/example.core", dir);
    snprintf(cmd, sizeof(cmd), "'%s' %s '%s'", tool, flags, path);
    assert_int_equal(system(cmd), 0);
    if (gpucore_core_open(path, NULL, &core, &d) != GPUCORE_OK)
        fail_msg("open %s: %s", path, d.message);
    *ret_dir = dir;
    return core;
}

static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!v)
        fail_msg("no member \"%s\"", key);
    return v;
}

/* Whether any string of the array @p arr contains @p text. */
static int any_contains(const json_t *arr, const char *text)
{
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
        if (json_is_string(v) && strstr(json_string_value(v), text))
            return 1;
    return 0;
}

static void test_unified_example(void **state)
{
    char *dir;
    gpucore_core_t *core = example_core("", &dir);
    struct gc_info info;
    gpucore_diag_t d;
    const json_t *file, *g, *agents, *queues, *cap;

    (void)state;
    assert_int_equal(gc_info_build(core, "example.core", &info, &d), GPUCORE_OK);
    assert_non_null(info.doc);
    assert_string_equal(info.unusable, "");
    assert_string_equal(gc_json_get_str(info.doc, "schema"), GC_INFO_SCHEMA);
    file = member(info.doc, "file");
    assert_string_equal(gc_json_get_str(file, "path"), "example.core");
    assert_string_equal(gc_json_get_str(file, "kind"), GC_INFO_KIND_UNIFIED);
    assert_int_equal(gc_json_get_u64(file, "e_machine"), EM_X86_64);
    assert_string_equal(gc_json_get_str(file, "machine"), "x86-64");
    assert_int_equal(json_array_size(member(file, "quirks")), 0);

    /* The AMDGPU note: one MI210 (gfx90a), one queue, accepted by AMD's reader rules. */
    g = member(info.doc, "amdgpu");
    assert_true(json_is_object(g));
    agents = member(g, "agents");
    queues = member(g, "queues");
    assert_int_equal(json_array_size(agents), 1);
    assert_int_equal(json_array_size(queues), 1);
    assert_string_equal(gc_json_get_str(json_array_get(agents, 0), "target"), "gfx90a");
    assert_true(gc_json_get_bool(json_array_get(agents, 0), "debuggable"));
    assert_true(gc_json_get_bool(member(g, GC_IK_AMD_READER_CHECK), GC_IK_OK));
    /* The members the text reads that the KFD field tables write (their names are the
       structures' members, not GC_IK_ constants): each is in the document. */
    {
        static const char *const agent_keys[] = {
            GC_IK_VENDOR_ID,
            GC_IK_DEVICE_ID,
            GC_IK_REVISION_ID,
            GC_IK_LOCATION_ID,
            GC_IK_FW_VERSION,
            GC_IK_SIMD_COUNT,
            GC_IK_MAX_WAVES_PER_SIMD,
            GC_IK_ARRAY_COUNT,
            GC_IK_SIMD_ARRAYS_PER_ENGINE,
            GC_IK_NUM_XCC,
            GC_IK_CAPABILITY,
            GC_IK_DEBUG_PROP,
            GC_IK_LDS_BASE,
            GC_IK_LDS_LIMIT,
            GC_IK_SCRATCH_BASE,
            GC_IK_SCRATCH_LIMIT,
        };
        static const char *const queue_keys[] = {
            GC_IK_RING_BASE_ADDRESS,          GC_IK_RING_SIZE,
            GC_IK_EXCEPTION_STATUS,           GC_IK_READ_POINTER_ADDRESS,
            GC_IK_WRITE_POINTER_ADDRESS,      GC_IK_CTX_SAVE_RESTORE_ADDRESS,
            GC_IK_CTX_SAVE_RESTORE_AREA_SIZE,
        };

        for (size_t k = 0; k < sizeof(agent_keys) / sizeof(agent_keys[0]); k++)
            member(json_array_get(agents, 0), agent_keys[k]);
        for (size_t k = 0; k < sizeof(queue_keys) / sizeof(queue_keys[0]); k++)
            member(json_array_get(queues, 0), queue_keys[k]);
    }

    /* The gpucore notes: `vadd` (pid 4242), a manifest, a code object. */
    cap = member(info.doc, "capture");
    assert_int_equal(gc_json_get_u64(cap, "pid"), 4242);
    assert_true(json_is_object(member(info.doc, "manifest")));
    assert_true(json_array_size(member(info.doc, "code_objects")) >= 1);
    assert_true(gc_json_get_u64(member(info.doc, "segments"), "count") > 0);
    assert_false(any_contains(member(info.doc, "problems"), "no AMDGPU core-state note"));
    gc_info_free(&info);
    assert_null(info.doc);
    gpucore_core_close(core);
    tc_rmdir(dir);
    free(dir);
}

static void test_split_example(void **state)
{
    char *dir;
    gpucore_core_t *core = example_core("--split", &dir);
    struct gc_info info;

    (void)state;
    assert_int_equal(gc_info_build(core, "gpucore.4242", &info, NULL), GPUCORE_OK);
    assert_string_equal(gc_json_get_str(member(info.doc, "file"), "kind"), GC_INFO_KIND_SPLIT);
    assert_string_equal(gc_json_get_str(member(info.doc, "file"), "machine"), "AMDGPU");
    assert_true(json_is_object(member(info.doc, "amdgpu")));
    gc_info_free(&info);
    gpucore_core_close(core);
    tc_rmdir(dir);
    free(dir);
}

/*
 * A plain host core (the kernel's, gcore's): no AMDGPU note, a [vsyscall] page written as the
 * kernel writes it (PF_X alone, no data). It is a host core, not a unified one, and nothing in
 * it is put down to the ROCm runtime.
 */
static void test_host_core(void **state)
{
    struct tc_std s;
    gpucore_core_t *core;
    gpucore_diag_t d;
    struct gc_info info;
    const json_t *file, *segs, *problems;

    (void)state;
    tc_std_build(&s);
    tc_std_phdr(&s, 2,
                &(struct tc_phdr){ .type = PT_LOAD,
                                   .flags = PF_X,
                                   .offset = s.load1_off,
                                   .vaddr = 0xffffffffff600000ull,
                                   .filesz = 0,
                                   .memsz = 0x1000,
                                   .align = 1 });
    if (gpucore_core_open_memory(s.im.buf, s.im.len, NULL, &core, &d) != GPUCORE_OK)
        fail_msg("open: %s", d.message);
    assert_int_equal(gc_info_build(core, "core", &info, &d), GPUCORE_OK);
    file = member(info.doc, "file");
    assert_string_equal(gc_json_get_str(file, "kind"), GC_INFO_KIND_HOST);
    assert_int_equal(json_array_size(member(file, "quirks")), 0);
    assert_true(json_is_null(member(info.doc, "amdgpu")));
    assert_true(json_is_null(member(info.doc, "capture")));
    assert_true(json_is_null(member(info.doc, "manifest")));
    segs = member(info.doc, "segments");
    assert_int_equal(gc_json_get_u64(segs, "count"), 2);
    assert_int_equal(gc_json_get_u64(segs, "not_dumped"), 1);
    assert_string_equal(gc_json_get_str(json_array_get(member(segs, "list"), 1), "flags"), "--x");
    problems = member(info.doc, "problems");
    assert_true(any_contains(problems, "no AMDGPU core-state note"));
    assert_false(any_contains(problems, "ROCm"));
    /* The notes are labelled: the standard image's "CORE" note 1 is NT_PRSTATUS. */
    assert_string_equal(gc_json_get_str(json_array_get(member(info.doc, "notes"), 0), "name"),
                        "NT_PRSTATUS");
    assert_string_equal(info.unusable, "");
    gc_info_free(&info);
    gpucore_core_close(core);
    tc_std_free(&s);
}

/* The model's records are charged to the core's budget: with almost nothing left, the build
   fails with the budget's status and message and leaves no document. */
static void test_over_budget(void **state)
{
    char *dir;
    gpucore_core_t *core = example_core("", &dir);
    struct gpucore_core_mem mem;
    struct gc_info info;
    gpucore_diag_t d;

    (void)state;
    assert_int_equal(gpucore_core_mem_get(core, &mem), GPUCORE_OK);
    assert_true(mem.budget != GPUCORE_MEM_BUDGET_UNLIMITED && mem.budget > mem.used + 512);
    assert_int_equal(gpucore_core_mem_reserve(core, mem.budget - mem.used - 512, "the test", &d),
                     GPUCORE_OK);
    memset(&d, 0, sizeof(d));
    assert_int_equal(gc_info_build(core, "example.core", &info, &d), GPUCORE_E_LIMIT);
    assert_int_equal(d.status, GPUCORE_E_LIMIT);
    assert_non_null(strstr(d.message, "the list of notes"));
    assert_null(info.doc);
    gc_info_free(&info); /* an empty result is fine too */
    gpucore_core_close(core);
    tc_rmdir(dir);
    free(dir);
}

static void test_null_arguments(void **state)
{
    struct gc_info info;
    gpucore_diag_t d;

    (void)state;
    assert_int_equal(gc_info_build(NULL, "x", &info, &d), GPUCORE_E_INVAL);
    assert_int_equal(d.status, GPUCORE_E_INVAL);
    gc_info_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unified_example), cmocka_unit_test(test_split_example),
        cmocka_unit_test(test_host_core),       cmocka_unit_test(test_over_budget),
        cmocka_unit_test(test_null_arguments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
