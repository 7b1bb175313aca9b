/* SPDX-License-Identifier: MIT */
/*
 * gc_kfd_topology_read (kfd/kfd_topology.h): amdkfd's sysfs topology from a tree the test
 * writes. A real node (the properties of an MI210 as amdkfd 6.x has them) and a CPU node are
 * read; every hostile file (a bad line, a number too large, a name with control characters, an
 * oversized file, a missing file, a NUL byte) is refused with its path and what was expected.
 */
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

#include "kfd_topology.h"

static char root[4096];
static struct gc_kfd_topology topo;

/* mkdir -p of the directories above @p path (not @p path itself). */
static void make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        (void)mkdir(path, 0755);
        *p = '/';
    }
}

/* Write @p text (@p len bytes) to root/REL, creating its directories. */
static void put(const char *rel, const char *text, size_t len)
{
    char path[8192];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    make_parents(path);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}
#define PUT(rel, text) put((rel), (text), strlen(text))

static const char gpu_props[] =
        "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\ngfx_target_version 90010\n"
        "vendor_id 4098\ndevice_id 29711\ncapability 537371264\ndebug_prop 470\n"
        "unique_id 1152921505468187392\nnum_xcc 1\nmax_engine_clk_ccompute 3000\n";

/* A topology of a CPU (node 0) and an MI210 (node 1). */
static int setup(void **state)
{
    const char *tmp = getenv("GPUCORE_TEST_TMPDIR");
    char cmd[4200];

    (void)state;
    assert_non_null(tmp);
    snprintf(root, sizeof(root), "%s/kfd-topology-%d", tmp, (int)getpid());
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    PUT("nodes/0/gpu_id", "0\n");
    PUT("nodes/0/name", "\n");
    PUT("nodes/0/properties", "cpu_cores_count 2\nsimd_count 0\ngfx_target_version 0\n");
    PUT("nodes/1/gpu_id", "13143\n");
    PUT("nodes/1/name", "aldebaran\n");
    PUT("nodes/1/properties", gpu_props);
    PUT("generation_id", "1\n");
    return 0;
}

static int teardown(void **state)
{
    char cmd[4200];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd);
}

static void test_reads_cpu_and_gpu(void **state)
{
    gpucore_diag_t d = { 0 };

    (void)state;
    PUT("nodes/README", "not a node\n"); /* skipped: not a number */
    assert_int_equal(gc_kfd_topology_read(root, &topo, &d), GPUCORE_OK);
    assert_int_equal(topo.count, 2);
    assert_int_equal(topo.nodes[0].node, 0);
    assert_int_equal(topo.nodes[0].gpu_id, 0);
    assert_string_equal(topo.nodes[0].name, "");
    assert_int_equal(topo.nodes[1].node, 1);
    assert_int_equal(topo.nodes[1].gpu_id, 13143);
    assert_string_equal(topo.nodes[1].name, "aldebaran");
    assert_int_equal(topo.nodes[1].gfx_target_version, 90010);
    assert_int_equal(topo.nodes[1].capability, 537371264u);
    assert_int_equal(topo.nodes[1].simd_count, 416);
    assert_int_equal(topo.nodes[1].num_xcc, 1);
    assert_true(gc_kfd_topology_debuggable(&topo.nodes[1]));
    assert_false(gc_kfd_topology_debuggable(&topo.nodes[0]));
}

/* Nodes come in numeric order, not the directory's (10 after 2). */
static void test_numeric_order(void **state)
{
    gpucore_diag_t d = { 0 };

    (void)state;
    PUT("nodes/10/gpu_id", "7\n");
    PUT("nodes/10/name", "x\n");
    PUT("nodes/10/properties", "");
    PUT("nodes/2/gpu_id", "5\n");
    PUT("nodes/2/name", "y\n");
    PUT("nodes/2/properties", "");
    assert_int_equal(gc_kfd_topology_read(root, &topo, &d), GPUCORE_OK);
    assert_int_equal(topo.count, 4);
    assert_int_equal(topo.nodes[2].node, 2);
    assert_int_equal(topo.nodes[3].node, 10);
    assert_int_equal(topo.nodes[3].gpu_id, 7);
}

/* expect_refused(STATUS, WORDS): reading fails with STATUS and a message holding WORDS. */
static void expect_refused(gpucore_status_t want, const char *words)
{
    gpucore_diag_t d = { 0 };

    assert_int_equal(gc_kfd_topology_read(root, &topo, &d), want);
    if (!strstr(d.message, words))
        fail_msg("message '%s' lacks '%s'", d.message, words);
}

static void test_bad_property_lines(void **state)
{
    (void)state;
    PUT("nodes/1/properties", "simd_count 4\nnot-a-key 3\n");
    expect_refused(GPUCORE_E_CORRUPT, "nodes/1/properties: line 2: expected a key of a-z");
    PUT("nodes/1/properties", "simd_count\n");
    expect_refused(GPUCORE_E_CORRUPT, "line 1: expected \"KEY VALUE\"");
    PUT("nodes/1/properties", "simd_count -4\n");
    expect_refused(GPUCORE_E_CORRUPT, "line 1: expected a decimal number");
    PUT("nodes/1/properties", "capability 18446744073709551616\n"); /* 2^64 */
    expect_refused(GPUCORE_E_CORRUPT, "expected a decimal number up to 2^64-1");
    PUT("nodes/1/properties", "gfx_target_version 4294967296\n"); /* 2^32 */
    expect_refused(GPUCORE_E_CORRUPT, "gfx_target_version 4294967296: expected at most 2^32-1");
    put("nodes/1/properties", "simd_count 4\n\0x", 15);
    expect_refused(GPUCORE_E_CORRUPT, "a NUL byte at offset 13");
    PUT("nodes/1/properties", "unknown_key 18446744073709551615\n\nsimd_count 1"); /* fine */
    assert_int_equal(gc_kfd_topology_read(root, &topo, NULL), GPUCORE_OK);
    assert_int_equal(topo.nodes[1].simd_count, 1);
}

static void test_bad_small_files(void **state)
{
    (void)state;
    PUT("nodes/1/gpu_id", "12a\n");
    expect_refused(GPUCORE_E_CORRUPT, "nodes/1/gpu_id: expected a decimal number");
    PUT("nodes/1/gpu_id", "4294967296\n");
    expect_refused(GPUCORE_E_CORRUPT, "nodes/1/gpu_id: expected a decimal number up to 2^32-1");
    PUT("nodes/1/gpu_id", "13143\n");
    PUT("nodes/1/name", "alde\033[2Jbaran\n");
    expect_refused(GPUCORE_E_CORRUPT, "nodes/1/name: expected a name of at most 63 printable");
    PUT("nodes/1/name", "a-name-that-is-far-longer-than-any-asic-name-amdkfd-would-ever-write\n");
    expect_refused(GPUCORE_E_CORRUPT, "nodes/1/name: expected a name of at most 63");
}

static void test_limits(void **state)
{
    static char big[GC_KFD_TOPOLOGY_FILE_MAX + 2];
    char rel[4200];

    (void)state;
    memset(big, '\n', sizeof(big));
    put("nodes/1/properties", big, sizeof(big));
    expect_refused(GPUCORE_E_LIMIT, "nodes/1/properties: larger than 16384 bytes");
    PUT("nodes/1/properties", gpu_props);
    for (unsigned i = 2; i <= GC_KFD_TOPOLOGY_MAX_NODES; i++) {
        snprintf(rel, sizeof(rel), "%s/nodes/%u", root, i);
        assert_int_equal(mkdir(rel, 0755), 0); /* an entry is enough to be counted */
    }
    expect_refused(GPUCORE_E_LIMIT, "more than 256 nodes");
}

static void test_missing(void **state)
{
    gpucore_diag_t d = { 0 };
    char dir[4200];

    (void)state;
    snprintf(dir, sizeof(dir), "%s/none", root);
    assert_int_equal(gc_kfd_topology_read(dir, &topo, &d), GPUCORE_E_NOTFOUND);
    assert_non_null(strstr(d.message, "none/nodes"));
    snprintf(dir, sizeof(dir), "%s/nodes/1/name", root);
    assert_int_equal(unlink(dir), 0);
    expect_refused(GPUCORE_E_IO, "nodes/1/name: No such file or directory");
    assert_int_equal(gc_kfd_topology_read(root, NULL, &d), GPUCORE_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reads_cpu_and_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numeric_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_property_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_small_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
