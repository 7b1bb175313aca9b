/* SPDX-License-Identifier: MIT */
/*
 * The /proc/PID/smaps parser (kfd/procmaps.c): fixtures with every field the parser keeps,
 * malformed lines with their exact messages, limits, the binary search, a live read of this
 * process's own smaps, and the linux backend's gpu_mappings op over a fixture file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpucore/schema.h>

#include "gc_util.h"
#include "kfd.h"
#include "procmaps.h"

static const char good_smaps[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1311 /usr/bin/prog\n"
    "Size:                  8 kB\n"
    "Rss:                   8 kB\n"
    "Anonymous:             0 kB\n"
    "Swap:                  0 kB\n"
    "THPeligible:    0\n"
    "VmFlags: rd mr mw me sd\n"
    "55d0c0a02000-55d0c0a05000 r-xp 00002000 08:01 1311 /usr/bin/prog\n"
    "Rss:                  12 kB\n"
    "VmFlags: rd ex mr mw me sd\n"
    "55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]\n"
    "Rss:                  16 kB\n"
    "Anonymous:            16 kB\n"
    "Swap:                  4 kB\n"
    "VmFlags: rd wr mr mw me ac sd\n"
    "7f0000000000-7f0000100000 rw-s 100000000 00:05 77 /dev/dri/renderD128\n"
    "VmFlags: rd wr sh mr mw me ms io pf dc de dd sd\n"
    "7f0000200000-7f0000201000 rw-s 00000000 00:05 12 /dev/kfd\n"
    "VmFlags: rd wr sh mr mw me ms io pf de dd sd\n"
    "7f0000300000-7f0000400000 ---p 00000000 00:00 0 \n"
    "VmFlags: mr mw me sd\n"
    "7f0000400000-7f0000500000 rw-s 00000000 00:01 4242 /memfd:a b (deleted)\n"
    "VmFlags: rd wr sh mr mw me ms ht\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static gpucore_status_t parse(const char *text, struct gc_procmaps *m, gpucore_diag_t *d)
{
    return gc_procmaps_parse(text, strlen(text), "fixture", m, d);
}

static void test_good(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(parse(good_smaps, &m, &d), GPUCORE_OK);
    assert_int_equal(m.count, 8);

    assert_int_equal(m.maps[0].start, 0x55d0c0a00000ull);
    assert_int_equal(m.maps[0].end, 0x55d0c0a02000ull);
    assert_int_equal(m.maps[0].perms, GC_PROCMAP_READ);
    assert_int_equal(m.maps[0].offset, 0);
    assert_int_equal(m.maps[0].dev_major, 8);
    assert_int_equal(m.maps[0].dev_minor, 1);
    assert_int_equal(m.maps[0].inode, 1311);
    assert_int_equal(m.maps[0].rss_kb, 8);
    assert_int_equal(m.maps[0].anonymous_kb, 0);
    assert_int_equal(m.maps[0].vmflags, 0);
    assert_string_equal(m.maps[0].path, "/usr/bin/prog");

    assert_int_equal(m.maps[1].perms, GC_PROCMAP_READ | GC_PROCMAP_EXEC);
    assert_int_equal(m.maps[1].offset, 0x2000);
    assert_int_equal(m.maps[1].rss_kb, 12);

    assert_string_equal(m.maps[2].path, "[heap]");
    assert_int_equal(m.maps[2].perms, GC_PROCMAP_READ | GC_PROCMAP_WRITE);
    assert_int_equal(m.maps[2].anonymous_kb, 16);
    assert_int_equal(m.maps[2].swap_kb, 4);

    assert_string_equal(m.maps[3].path, "/dev/dri/renderD128");
    assert_int_equal(m.maps[3].offset, 0x100000000ull);
    assert_int_equal(m.maps[3].perms,
                     GC_PROCMAP_READ | GC_PROCMAP_WRITE | GC_PROCMAP_SHARED);
    assert_int_equal(m.maps[3].vmflags, GC_VMFLAG_IO | GC_VMFLAG_DONTDUMP | GC_VMFLAG_PFNMAP |
                                            GC_VMFLAG_DONTEXPAND | GC_VMFLAG_SHARED |
                                            GC_VMFLAG_MAYSHARE);

    assert_string_equal(m.maps[5].path, ""); /* anonymous: "inode " and the end of line */
    assert_int_equal(m.maps[5].perms, 0);
    assert_string_equal(m.maps[6].path, "/memfd:a b (deleted)");
    assert_int_equal(m.maps[6].vmflags,
                     GC_VMFLAG_SHARED | GC_VMFLAG_MAYSHARE | GC_VMFLAG_HUGETLB);
    assert_string_equal(m.maps[7].path, "[vsyscall]");
    assert_int_equal(m.maps[7].end, 0xffffffffff601000ull);
    gc_procmaps_free(&m);
    gc_procmaps_free(&m); /* idempotent */
    gc_procmaps_free(NULL);
}

static void test_plain_maps_and_empty(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };
    const char maps[] = "00400000-00401000 r-xp 00000000 fd:00 123 /bin/x\n"
                        "00600000-00601000 rw-p 00000000 00:00 0";

    (void)state;
    assert_int_equal(parse(maps, &m, &d), GPUCORE_OK); /* the last line may lack '\n' */
    assert_int_equal(m.count, 2);
    assert_int_equal(m.maps[0].dev_major, 0xfd);
    assert_string_equal(m.maps[1].path, "");
    gc_procmaps_free(&m);

    assert_int_equal(gc_procmaps_parse("", 0, "empty", &m, &d), GPUCORE_OK);
    assert_int_equal(m.count, 0);
    assert_null(gc_procmaps_find(&m, 0x1000));
    gc_procmaps_free(&m);
}

struct bad_case {
    const char *text;
    gpucore_status_t status;
    const char *message;
    uint64_t offset;
};

static const struct bad_case bad_cases[] = {
    { "zzzz\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected a mapping header or a \"Key:\" line", 0 },
    { "Rss: 4 kB\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: \"Rss:\" line before the first mapping header", 0 },
    { "1000-2000 r--p 0 00:00 0\n2000-1000 r--p 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: empty or inverted address range 2000-1000", 25 },
    { "1000-3000 r--p 0 00:00 0\n2000-4000 r--p 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: mapping at 2000 overlaps or precedes the previous one", 25 },
    { "1000 r--p 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected an address range START-END", 0 },
    { "1000-2000 rwzp 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected 'x' or '-' in column 3 of the permissions", 0 },
    { "1000-2000 r--q 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected 's' or 'p' in column 4 of the permissions", 0 },
    { "1000-2000 r--p xyz 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected a hexadecimal file offset", 0 },
    { "1000-2000 r--p 0 0000 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected a device MAJOR:MINOR", 0 },
    { "1000-2000 r--p 0 00:00 x\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected a decimal inode number", 0 },
    { "1000-2000 r--p 0 00:00 12/x\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected a space after the inode number", 0 },
    { "1000-2000 r--p 0 00:00 0\nRss: 12 MB\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: expected \"Rss: N kB\"", 25 },
    { "1000-2000 r--p 0 00:00 0\nAnonymous:4 kB\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: expected \"Anonymous: N kB\"", 25 },
    { "1000-2000 r--p 0 00:00 0\nRss: 4 kB\nRss: 4 kB\n", GPUCORE_E_CORRUPT,
      "fixture: line 3: second Rss line for one mapping", 35 },
    { "1000-2000 r--p 0 00:00 0\nVmFlags: rd wrx\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: expected two-character VmFlags codes", 25 },
    { "1000-2000 r--p 0 00:00 0\nVmFlags: rd\nVmFlags: rd\n", GPUCORE_E_CORRUPT,
      "fixture: line 3: second VmFlags line for one mapping", 37 },
    { "1000-2000 r--p 0 00:00 0\nName:\tx\x01y\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: control character in the value of \"Name\"", 25 },
    { "1-2 r--p 0 00:00 0\n: x\n", GPUCORE_E_CORRUPT,
      "fixture: line 2: expected a mapping header or a \"Key:\" line", 19 },
    { "10000000000000000-10000000000000001 r--p 0 00:00 0\n", GPUCORE_E_CORRUPT,
      "fixture: line 1: expected an address range START-END", 0 },
};

static void test_bad_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        struct gc_procmaps m = { .count = 12345 };
        gpucore_diag_t d = { 0 };

        print_message("case %zu\n", i);
        assert_int_equal(parse(bad_cases[i].text, &m, &d), bad_cases[i].status);
        assert_int_equal(d.status, bad_cases[i].status);
        assert_string_equal(d.message, bad_cases[i].message);
        assert_true(d.flags & GPUCORE_DIAG_HAS_OFFSET);
        assert_int_equal(d.offset, bad_cases[i].offset);
        assert_int_equal(m.count, 12345); /* untouched on failure */
    }
}

static void test_nul_and_limits(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };
    const char nul[] = "1000-2000 r--p 0 00:00 0 /a\0b\n";
    size_t big = 64u * 1024u + 2;
    char *text = malloc(big + 64);
    int n;

    (void)state;
    assert_int_equal(gc_procmaps_parse(nul, sizeof(nul) - 1, "fixture", &m, &d),
                     GPUCORE_E_CORRUPT);
    assert_string_equal(d.message, "fixture: line 1: unexpected NUL byte");

    /* A line above 64 KiB. */
    assert_non_null(text);
    n = snprintf(text, 64, "1000-2000 r--p 0 00:00 0 /");
    memset(text + n, 'a', big - (size_t)n);
    text[big] = '\n';
    assert_int_equal(gc_procmaps_parse(text, big + 1, "fixture", &m, &d), GPUCORE_E_LIMIT);
    assert_string_equal(d.message, "fixture: line 1: line longer than 65536 bytes");
    /* Exactly 64 KiB is fine. */
    text[65536] = '\n';
    assert_int_equal(gc_procmaps_parse(text, 65537, "fixture", &m, &d), GPUCORE_OK);
    assert_int_equal(m.count, 1);
    assert_int_equal(strlen(m.maps[0].path), 65536 - (size_t)n + 1);
    gc_procmaps_free(&m);
    free(text);

    assert_int_equal(gc_procmaps_parse(NULL, 1, "x", &m, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_procmaps_parse("", 0, "x", NULL, &d), GPUCORE_E_INVAL);
}

/* More than 1M mappings: the limit, named with its line. */
static void test_map_limit(void **state)
{
    const size_t per = 33; /* "%08zx-%08zx r--p 0 00:00 0\n" */
    size_t n = (1u << 20) + 1, len = n * per;
    char *text = malloc(len + 1), *p;
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_non_null(text);
    p = text;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(p, per + 1, "%08zx-%08zx r--p 0 00:00 0\n", (i + 1) * 16, (i + 1) * 16 + 8);

        assert_int_equal(w, (int)per);
        p += w;
    }
    assert_int_equal(gc_procmaps_parse(text, len, "fixture", &m, &d), GPUCORE_E_LIMIT);
    assert_string_equal(d.message, "fixture: line 1048577: more than 1048576 mappings");
    /* One fewer is accepted. */
    assert_int_equal(gc_procmaps_parse(text, len - per, "fixture", &m, &d), GPUCORE_OK);
    assert_int_equal(m.count, 1u << 20);
    assert_ptr_equal(gc_procmaps_find(&m, 0x100000 * 16 + 4), &m.maps[(1u << 20) - 1]);
    gc_procmaps_free(&m);
    free(text);
}

static void test_find(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(parse(good_smaps, &m, &d), GPUCORE_OK);
    for (uint32_t i = 0; i < m.count; i++) {
        assert_ptr_equal(gc_procmaps_find(&m, m.maps[i].start), &m.maps[i]);
        assert_ptr_equal(gc_procmaps_find(&m, m.maps[i].end - 1), &m.maps[i]);
        if (i + 1 < m.count && m.maps[i].end != m.maps[i + 1].start)
            assert_null(gc_procmaps_find(&m, m.maps[i].end)); /* a gap */
    }
    /* Adjacent: the end of the first is the start of the second. */
    assert_ptr_equal(gc_procmaps_find(&m, 0x55d0c0a02000ull), &m.maps[1]);
    assert_null(gc_procmaps_find(&m, 0));
    assert_null(gc_procmaps_find(&m, 0x55d0c0a00000ull - 1));
    assert_null(gc_procmaps_find(&m, UINT64_MAX));
    assert_null(gc_procmaps_find(NULL, 0x1000));
    gc_procmaps_free(&m);
}

static void code_marker(void)
{
}

static void test_live_self(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };
    const struct gc_procmap *stack, *code;
    char exe[4096];
    ssize_t n;
    /* The real stack (under ASan's detect_stack_use_after_return locals live elsewhere). */
    uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);

    (void)state;
    assert_int_equal(gc_procmaps_read(getpid(), NULL, &m, &d), GPUCORE_OK);
    assert_true(m.count > 5);
    stack = gc_procmaps_find(&m, sp);
    assert_non_null(stack);
    assert_string_equal(stack->path, "[stack]");
    assert_true(stack->perms & GC_PROCMAP_WRITE);
    assert_true(stack->anonymous_kb > 0);
    assert_true(stack->rss_kb > 0);

    code = gc_procmaps_find(&m, (uint64_t)(uintptr_t)&code_marker);
    assert_non_null(code);
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    assert_string_equal(code->path, exe);
    assert_true(code->perms & GC_PROCMAP_EXEC);
    assert_false(code->perms & GC_PROCMAP_SHARED);
    assert_true(code->inode != 0);
    gc_procmaps_free(&m);

    /* The path override reads the same format. */
    assert_int_equal(gc_procmaps_read(0, "/proc/self/smaps", &m, &d), GPUCORE_OK);
    assert_non_null(gc_procmaps_find(&m, sp));
    gc_procmaps_free(&m);
    /* /proc/self/maps has no Key: lines: still accepted. */
    assert_int_equal(gc_procmaps_read(0, "/proc/self/maps", &m, &d), GPUCORE_OK);
    assert_string_equal(gc_procmaps_find(&m, sp)->path, "[stack]");
    gc_procmaps_free(&m);
}

static void test_read_errors(void **state)
{
    struct gc_procmaps m;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(gc_procmaps_read(0, "/nonexistent/smaps", &m, &d), GPUCORE_E_NOTFOUND);
    assert_string_equal(d.message, "cannot open /nonexistent/smaps: No such file or directory");
    /* A pid that cannot exist (above pid_max). */
    assert_int_equal(gc_procmaps_read(0x7ffffff0, NULL, &m, &d), GPUCORE_E_NOTFOUND);
    assert_int_equal(gc_procmaps_read(-1, NULL, &m, &d), GPUCORE_E_INVAL);
    assert_int_equal(gc_procmaps_read(getpid(), NULL, NULL, &d), GPUCORE_E_INVAL);
    /* A directory cannot be read. */
    assert_int_equal(gc_procmaps_read(0, "/proc/self", &m, &d), GPUCORE_E_IO);
    assert_non_null(strstr(d.message, "cannot read /proc/self: Is a directory"));
}

/* ---- the linux backend's gpu_mappings op ------------------------------------------------- */

static int fake_ioctl(void *user, int fd, unsigned long request, void *arg)
{
    (void)user;
    (void)fd;
    if (request == AMDKFD_IOC_GET_VERSION) {
        struct kfd_ioctl_get_version_args *v = arg;

        v->major_version = 1;
        v->minor_version = 16;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

static char *write_fixture(const char *name, const char *text)
{
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char *path = malloc(4096);
    FILE *f;

    assert_non_null(path);
    snprintf(path, 4096, "%s/%s.%d", dir ? dir : "/tmp", name, (int)getpid());
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    return path;
}

static gpucore_status_t open_linux(const char *smaps, struct gc_kfd **k, gpucore_diag_t *d)
{
    struct gc_kfd_open_opts o = {
        .backend = GC_KFD_BACKEND_LINUX,
        .device_path = "/dev/null",
        .ioctl_fn = fake_ioctl,
        .smaps_path = smaps,
    };

    return gc_kfd_open(getpid(), &o, k, d);
}

static void test_gpu_mappings(void **state)
{
    static const char text[] =
        "1000-2000 r--p 00000000 08:01 1 /usr/lib/libdrm.so\n"
        "7f0000000000-7f0000100000 rw-s 100000000 00:05 77 /dev/dri/renderD128\n"
        "VmFlags: rd wr sh mr mw me ms io pf dc de dd sd\n"
        "7f0000100000-7f0000180000 rw-s 200000000 00:05 78 /dev/dri/renderD129\n"
        "7f0000200000-7f0000202000 rw-s 00000000 00:05 12 /dev/kfd\n"
        "7f0000300000-7f0000301000 rw-s 00000000 00:05 13 /dev/kfdx\n"
        "7f0000400000-7f0000401000 rw-s 00000000 00:05 14 /dev/dri/card0\n"
        "7f0000500000-7f0000501000 rw-s 00000000 00:05 15 /dev/dri/renderDx\n"
        "7fff00000000-7fff00021000 rw-p 00000000 00:00 0 [stack]\n";
    char *path = write_fixture("smaps-gpu", text);
    struct gc_kfd *k = NULL;
    struct gc_kfd_mapping *maps = NULL;
    uint32_t n = 0;
    gpucore_diag_t d = { 0 };

    (void)state;
    assert_int_equal(open_linux(path, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_gpu_mappings(k, &maps, &n, &d), GPUCORE_OK);
    assert_int_equal(n, 3);
    assert_int_equal(maps[0].base, 0x7f0000000000ull);
    assert_int_equal(maps[0].size, 0x100000);
    assert_int_equal(maps[0].kind, GC_KFD_MEM_UNKNOWN);
    assert_int_equal(maps[0].flags, 0);
    assert_int_equal(maps[0].gpu_id, 0);
    assert_string_equal(maps[0].label, "/dev/dri/renderD128");
    assert_int_equal(maps[1].base, 0x7f0000100000ull);
    assert_string_equal(maps[1].label, "/dev/dri/renderD129");
    assert_int_equal(maps[2].base, 0x7f0000200000ull);
    assert_int_equal(maps[2].size, 0x2000);
    assert_int_equal(maps[2].kind, GC_KFD_MEM_DOORBELL);
    assert_int_equal(maps[2].flags, GC_KFD_MAP_NO_READ);
    assert_string_equal(maps[2].label, "/dev/kfd");
    for (uint32_t i = 1; i < n; i++)
        assert_true(maps[i].base >= maps[i - 1].base + maps[i - 1].size);
    gc_free(maps);
    gc_kfd_close(k);
    unlink(path);
    free(path);
}

static void test_gpu_mappings_none_and_errors(void **state)
{
    char *path = write_fixture("smaps-none", "1000-2000 r--p 0 00:00 0 /bin/x\n");
    char *bad = write_fixture("smaps-bad", "1000-2000 r--p 0 00:00 0 /bin/x\nRss: x\n");
    struct gc_kfd *k = NULL;
    struct gc_kfd_mapping *maps = (void *)1;
    uint32_t n = 7;
    gpucore_diag_t d = { 0 };
    char want[4200];

    (void)state;
    assert_int_equal(open_linux(path, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_gpu_mappings(k, &maps, &n, &d), GPUCORE_OK);
    assert_int_equal(n, 0);
    assert_null(maps);
    gc_kfd_close(k);

    /* A malformed file: an I/O failure of this op, with the parser's message. */
    assert_int_equal(open_linux(bad, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_gpu_mappings(k, &maps, &n, &d), GPUCORE_E_IO);
    assert_int_equal(d.status, GPUCORE_E_IO);
    snprintf(want, sizeof(want), "%s: line 2: expected \"Rss: N kB\"", bad);
    assert_string_equal(d.message, want);
    gc_kfd_close(k);

    /* The file is gone: the target is gone. */
    unlink(path);
    assert_int_equal(open_linux(path, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_gpu_mappings(k, &maps, &n, &d), GPUCORE_E_NOTFOUND);
    gc_kfd_close(k);

    /* The real file of this process: no GPU here, and no failure. */
    assert_int_equal(open_linux(NULL, &k, &d), GPUCORE_OK);
    assert_int_equal(gc_kfd_gpu_mappings(k, &maps, &n, &d), GPUCORE_OK);
    gc_free(maps);
    gc_kfd_close(k);
    unlink(bad);
    free(path);
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_plain_maps_and_empty),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_nul_and_limits),
        cmocka_unit_test(test_map_limit),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_live_self),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_gpu_mappings),
        cmocka_unit_test(test_gpu_mappings_none_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
