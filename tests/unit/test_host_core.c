/* SPDX-License-Identifier: MIT */
/*
 * The kernel's host notes and memory rules (capture/host_core.c): the selection rules over
 * fixtures, then a live child with three threads captured into a unified core with the
 * streaming writer (host notes + the selected host memory, read with process_vm_readv), checked
 * with libelf (note types, order, sizes, pr_pid = the tids), gdb (every thread listed and a
 * backtrace through the child's functions) and eu-readelf (no warnings).
 * Exit 77 (skipped) where ptrace is not permitted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "gc_le.h"
#include "host_core.h"
#include "procmaps.h"
#include "rangeset.h"
#include "tracee.h"

/* ---- selection rules over fixtures --------------------------------------------------------- */

static const char select_smaps[] =
    /* 0 ELF header page of an unwritten private file mapping */
    "10000-14000 r--p 00000000 08:01 5 /usr/bin/prog\n"
    "Anonymous: 0 kB\n"
    /* 1 code, not at offset 0: nothing */
    "14000-18000 r-xp 00004000 08:01 5 /usr/bin/prog\n"
    /* 2 written private file mapping (relro/data): whole */
    "18000-1a000 rw-p 00008000 08:01 5 /usr/bin/prog\n"
    "Anonymous: 4 kB\n"
    /* 3 heap: whole */
    "20000-30000 rw-p 00000000 00:00 0 [heap]\n"
    "Anonymous: 8 kB\n"
    /* 4 unwritten anonymous: nothing */
    "30000-40000 rw-p 00000000 00:00 0 \n"
    /* 5 swapped-out anonymous: whole */
    "40000-41000 rw-p 00000000 00:00 0 \n"
    "Anonymous: 0 kB\nSwap: 4 kB\n"
    /* 6 shared anonymous (shmem): whole under bit 1 */
    "50000-52000 rw-s 00000000 00:01 9 /dev/zero (deleted)\n"
    "VmFlags: rd wr sh mr mw me ms\n"
    /* 7 shared file: not by default (bit 3) */
    "60000-62000 rw-s 00000000 08:01 10 /data/file\n"
    "VmFlags: rd wr sh mr mw me ms\n"
    /* 8 MADV_DONTDUMP: never */
    "70000-71000 rw-p 00000000 00:00 0 \n"
    "Anonymous: 4 kB\nVmFlags: rd wr dd\n"
    /* 9 VM_IO: never (special) */
    "80000-81000 rw-s 00000000 00:05 11 /dev/mem\n"
    "VmFlags: rd wr sh io pf\n"
    /* 10 GPU memory: excluded by the caller, not reported */
    "90000-a0000 rw-s 00000000 00:05 12 /dev/dri/renderD128\n"
    "VmFlags: rd wr sh io pf dd\n"
    /* 11 private hugetlb: whole under bit 5 */
    "200000-400000 rw-p 00000000 00:10 13 /anon_hugepage (deleted)\n"
    "VmFlags: rd wr ht\n"
    /* 12 shared hugetlb: not by default (bit 6) */
    "400000-600000 rw-s 00000000 00:10 14 /SYSV00000000 (deleted)\n"
    "VmFlags: rd wr sh ms ht\n"
    /* 13 unwritten private file mapping at offset 0 that is no ELF: nothing */
    "700000-702000 r--p 00000000 08:01 15 /usr/share/data.bin\n"
    /* 14 vdso: whole; 15 vsyscall: never (special) */
    "7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";

/* The fixture's memory: an ELF header at 0x10000, data at 0x700000, nothing else readable. */
static gpucore_status_t fixture_read(void *user, uint64_t addr, void *buf, uint64_t size,
                                     uint64_t *ret_done, int *ret_errno)
{
    (void)user;
    *ret_done = 0;
    *ret_errno = EIO;
    if (size > 4 || (addr != 0x10000 && addr != 0x700000))
        return GPUCORE_E_UNAVAILABLE;
    memcpy(buf, addr == 0x10000 ? "\177ELF" : "DATA", (size_t)size);
    *ret_done = size;
    return GPUCORE_OK;
}

static const struct gc_mem_reader fixture_mem = { fixture_read, NULL };

struct want_range {
    uint64_t start, size;
    uint32_t p_flags;
    const char *label;
    uint32_t reason;
};

static void check_ranges(const struct gc_host_range *r, uint32_t n, const struct want_range *w,
                         uint32_t nw)
{
    assert_int_equal(n, nw);
    for (uint32_t i = 0; i < n; i++) {
        print_message("range %u: %" PRIx64 "+%" PRIx64 "\n", i, r[i].start, r[i].size);
        assert_int_equal(r[i].start, w[i].start);
        assert_int_equal(r[i].size, w[i].size);
        assert_int_equal(r[i].p_flags, w[i].p_flags);
        assert_string_equal(r[i].label, w[i].label);
        assert_int_equal(r[i].reason, w[i].reason);
    }
}

static void test_select_default(void **state)
{
    struct gc_procmaps m;
    struct gc_rangeset gpu = GC_RANGESET_INIT;
    struct gc_host_ranges r;
    gpucore_diag_t d = { 0 };
    const uint32_t P = GPUCORE_REASON_POLICY, S = GPUCORE_REASON_SPECIAL;
    static const struct want_range sel[] = {
        { 0x10000, 0x1000, 4, "/usr/bin/prog", 0 },
        { 0x18000, 0x2000, 6, "/usr/bin/prog", 0 },
        { 0x20000, 0x10000, 6, "[heap]", 0 },
        { 0x40000, 0x1000, 6, "[anon]", 0 },
        { 0x50000, 0x2000, 6, "/dev/zero (deleted)", 0 },
        { 0x200000, 0x200000, 6, "/anon_hugepage (deleted)", 0 },
        { 0x7fff0000, 0x2000, 5, "[vdso]", 0 },
    };
    const struct want_range skip[] = {
        { 0x11000, 0x3000, 4, "/usr/bin/prog", P },
        { 0x14000, 0x4000, 5, "/usr/bin/prog", P },
        { 0x30000, 0x10000, 6, "[anon]", P },
        { 0x60000, 0x2000, 6, "/data/file", P },
        { 0x70000, 0x1000, 6, "[anon]", P },
        { 0x80000, 0x1000, 6, "/dev/mem", S },
        { 0x400000, 0x200000, 6, "/SYSV00000000 (deleted)", P },
        { 0x700000, 0x2000, 4, "/usr/share/data.bin", P },
        { 0xffffffffff600000ull, 0x1000, 1, "[vsyscall]", S },
    };

    (void)state;
    assert_int_equal(gc_procmaps_parse(select_smaps, strlen(select_smaps), "fixture", &m, &d),
                     GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&gpu, 0x90000, 0x10000), GPUCORE_OK);
    assert_int_equal(gc_host_select(&m, GC_COREDUMP_FILTER_DEFAULT, &gpu, &fixture_mem, &r, &d),
                     GPUCORE_OK);
    check_ranges(r.r, r.count, sel, sizeof(sel) / sizeof(sel[0]));
    check_ranges(r.skipped, r.nskipped, skip, sizeof(skip) / sizeof(skip[0]));
    gc_host_ranges_free(&r);
    gc_host_ranges_free(&r);
    gc_rangeset_free(&gpu);
    gc_procmaps_free(&m);
}

static void test_select_filters(void **state)
{
    struct gc_procmaps m;
    struct gc_host_ranges r;
    gpucore_diag_t d = { 0 };
    uint64_t bytes;

    (void)state;
    assert_int_equal(gc_procmaps_parse(select_smaps, strlen(select_smaps), "fixture", &m, &d),
                     GPUCORE_OK);
    /* Everything the rules allow: file mappings whole (bits 2, 3), shared hugetlb (bit 6);
     * never dd, io, vsyscall. Without an exclusion set the GPU mapping is io: special. */
    assert_int_equal(gc_host_select(&m, 0x7f, NULL, &fixture_mem, &r, &d), GPUCORE_OK);
    bytes = 0;
    for (uint32_t i = 0; i < r.count; i++)
        bytes += r.r[i].size;
    assert_int_equal(bytes, 0x4000 + 0x4000 + 0x2000 + 0x10000 + 0x1000 + 0x2000 + 0x2000 +
                                0x200000 + 0x200000 + 0x2000 + 0x2000);
    assert_int_equal(r.nskipped, 5); /* 30000 anon, 70000 dd, 80000 io, 90000 dd, vsyscall */
    assert_int_equal(r.skipped[3].start, 0x90000);
    assert_int_equal(r.skipped[3].reason, GPUCORE_REASON_POLICY); /* dd comes before io */
    assert_int_equal(r.skipped[2].reason, GPUCORE_REASON_SPECIAL);
    gc_host_ranges_free(&r);

    /* Nothing but the vdso with filter 0. */
    assert_int_equal(gc_host_select(&m, 0, NULL, &fixture_mem, &r, &d), GPUCORE_OK);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.r[0].label, "[vdso]");
    gc_host_ranges_free(&r);

    /* No header reader: the ELF-header rule selects nothing. */
    assert_int_equal(gc_host_select(&m, GC_COREDUMP_FILTER_DEFAULT, NULL, NULL, &r, &d),
                     GPUCORE_OK);
    assert_int_equal(r.r[0].start, 0x18000);
    gc_host_ranges_free(&r);
    assert_int_equal(gc_host_select(NULL, 0, NULL, NULL, &r, &d), GPUCORE_E_INVAL);
    gc_procmaps_free(&m);

    assert_int_equal(gc_host_coredump_filter(getpid()), GC_COREDUMP_FILTER_DEFAULT);
    assert_int_equal(gc_host_coredump_filter(0x7ffffff0), GC_COREDUMP_FILTER_DEFAULT);
}

/* ---- the live child ------------------------------------------------------------------------ */

enum { T_MAIN, T_PAUSE, T_SPIN, T_SLEEP, NT };

static volatile int child_stop;

static void nap_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };

    nanosleep(&ts, NULL);
}

static int report_fd;

static void report_tid(void)
{
    pid_t tid = gettid();

    if (write(report_fd, &tid, sizeof(tid)) != (ssize_t)sizeof(tid))
        _exit(4);
}

static void on_usr2(int sig)
{
    (void)sig;
}

__attribute__((noinline)) static void *gc_test_pause_thread(void *arg)
{
    (void)arg;
    report_tid();
    while (!child_stop)
        pause();
    return NULL;
}

__attribute__((noinline)) static void *gc_test_spin_thread(void *arg)
{
    volatile uint64_t n = 0;

    (void)arg;
    report_tid();
    while (!child_stop)
        n++;
    return NULL;
}

__attribute__((noinline)) static void *gc_test_sleep_thread(void *arg)
{
    (void)arg;
    report_tid();
    while (!child_stop)
        nap_ms(1);
    return NULL;
}

/* The child: three threads, then waits for 'q' on @p cmd. No shared mappings (their
 * "(deleted)" files would make gdb warn, as it does for the kernel's cores too). */
__attribute__((noinline)) static void gc_test_child_main(int cmd, int report)
{
    void *(*fn[NT])(void *) = { NULL, gc_test_pause_thread, gc_test_spin_thread,
                                gc_test_sleep_thread };
    pthread_t th[NT];
    struct sigaction sa;
    char c;

    memset(&sa, 0, sizeof(sa));
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    report_fd = report;
    report_tid();
    for (int i = 1; i < NT; i++)
        if (pthread_create(&th[i], NULL, fn[i], NULL) != 0)
            _exit(3);
    while (read(cmd, &c, 1) == 1 && c != 'q')
        ;
    child_stop = 1;
    pthread_kill(th[T_PAUSE], SIGUSR2);
    for (int i = 1; i < NT; i++)
        pthread_join(th[i], NULL);
    _exit(0);
}

struct live {
    pid_t pid;
    pid_t tids[NT];
    int cmd;
};

static void start_child(struct live *c)
{
    int a[2], b[2];

    assert_int_equal(pipe2(a, O_CLOEXEC), 0);
    assert_int_equal(pipe2(b, O_CLOEXEC), 0);
    c->pid = fork();
    assert_true(c->pid >= 0);
    if (c->pid == 0) {
        close(a[1]);
        close(b[0]);
        gc_test_child_main(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    c->cmd = a[1];
    for (int i = 0; i < NT; i++)
        assert_int_equal(read(b[0], &c->tids[i], sizeof(pid_t)), (ssize_t)sizeof(pid_t));
    close(b[0]);
}

/* Target memory: process_vm_readv, then /proc/PID/mem (which reads PROT_NONE pages too). */
struct reader {
    pid_t pid;
    int mem_fd;
};

static int64_t read_target(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                           uint64_t *ret_bad_size)
{
    struct reader *r = user;
    struct iovec local = { buf, size }, remote = { (void *)(uintptr_t)addr, size };
    ssize_t n = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);

    if (n > 0)
        return n;
    n = pread(r->mem_fd, buf, size, (off_t)addr);
    if (n > 0)
        return n;
    *ret_errno = n < 0 ? errno : EIO;
    *ret_bad_size = 4096 - (addr & 4095);
    return 0;
}

/* read_target as capture's reader: all of it, or the readable prefix. */
static gpucore_status_t read_target_mem(void *user, uint64_t addr, void *buf, uint64_t size,
                                        uint64_t *ret_done, int *ret_errno)
{
    uint64_t bad;
    int64_t n = read_target(user, addr, buf, size, ret_errno, &bad);

    *ret_done = n > 0 ? (uint64_t)n : 0;
    return *ret_done == size ? GPUCORE_OK : GPUCORE_E_UNAVAILABLE;
}

/* Capture the stopped child into @p path, @p first_thread first (0 = the kernel's rule). */
static void capture(const struct live *c, struct gc_tracee *t, const char *path,
                    pid_t first_thread)
{
    struct gc_procmaps maps;
    struct gc_host_ranges r;
    struct reader rd = { c->pid, -1 };
    const struct gc_mem_reader reader = { read_target_mem, &rd };
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d = { 0 };
    char mem[64];
    struct gc_host_note_input in = {
        .pid = c->pid, .tracee = t, .proc_root = "/proc", .default_signal = 0,
        .first_thread = first_thread,
    };

    snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)c->pid);
    rd.mem_fd = open(mem, O_RDONLY | O_CLOEXEC);
    assert_true(rd.mem_fd >= 0);
    assert_int_equal(gc_procmaps_read(c->pid, NULL, &maps, &d), GPUCORE_OK);
    in.maps = &maps;
    assert_int_equal(gc_host_select(&maps, gc_host_coredump_filter(c->pid), NULL, &reader, &r, &d),
                     GPUCORE_OK);
    assert_true(r.count > 3);
    assert_int_equal(gpucore_writer_open(path,
                                         GPUCORE_OPTS(gpucore_writer_opts,
                                                      .flags = GPUCORE_WRITE_OVERWRITE),
                                         &w, &d),
                     GPUCORE_OK);
    assert_int_equal(gc_host_add_notes(w, &in, &d), GPUCORE_OK);
    for (uint32_t i = 0; i < r.count; i++) {
        struct gpucore_range_info info = {
            .sz = sizeof(info), .tier = GPUCORE_TIER_HOST, .p_flags = r.r[i].p_flags,
            .label = r.r[i].label,
        };

        assert_int_equal(gpucore_writer_add_segment_fn(w, r.r[i].start, r.r[i].size, &info,
                                                       read_target, &rd),
                         GPUCORE_OK);
    }
    for (uint32_t i = 0; i < r.nskipped; i++) {
        struct gpucore_range_info info = {
            .sz = sizeof(info), .tier = GPUCORE_TIER_HOST, .p_flags = r.skipped[i].p_flags,
            .label = r.skipped[i].label,
        };

        assert_int_equal(gpucore_writer_record_skip(w, r.skipped[i].start, r.skipped[i].size,
                                                    &info, r.skipped[i].reason),
                         GPUCORE_OK);
    }
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_OK);
    gc_host_ranges_free(&r);
    gc_procmaps_free(&maps);
    close(rd.mem_fd);
}

struct note {
    char owner[16];
    uint32_t type;
    size_t size;
    uint8_t desc[1024]; /* the first bytes */
};

static size_t read_notes(const char *path, struct note *out, size_t cap)
{
    int fd = open(path, O_RDONLY);
    Elf *e;
    GElf_Ehdr eh;
    size_t phnum, n = 0;

    assert_true(fd >= 0);
    elf_version(EV_CURRENT);
    e = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(e);
    assert_non_null(gelf_getehdr(e, &eh));
    assert_int_equal(eh.e_type, ET_CORE);
    assert_int_equal(eh.e_machine, EM_X86_64);
    assert_int_equal(elf_getphdrnum(e, &phnum), 0);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        Elf_Data *data;
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off;

        assert_non_null(gelf_getphdr(e, (int)i, &ph));
        if (ph.p_type != PT_NOTE)
            continue;
        data = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
        assert_non_null(data);
        while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0 && n < cap) {
            snprintf(out[n].owner, sizeof(out[n].owner), "%s",
                     (const char *)data->d_buf + name_off);
            out[n].type = nh.n_type;
            out[n].size = nh.n_descsz;
            memcpy(out[n].desc, (const char *)data->d_buf + desc_off,
                   nh.n_descsz < sizeof(out[n].desc) ? nh.n_descsz : sizeof(out[n].desc));
            n++;
        }
    }
    elf_end(e);
    close(fd);
    return n;
}

/* Run a command; its stdout and stderr go to files of the test's temporary directory. */
static int run(const char *cmd, const char *out, const char *err)
{
    char *full;
    int rc;

    assert_true(asprintf(&full, "%s >%s 2>%s", cmd, out, err) > 0);
    rc = system(full);
    free(full);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 1 << 20);
    size_t n;

    assert_non_null(f);
    assert_non_null(buf);
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/*
 * gdb 13 sizes the NT_X86_XSTATE section from the XCR0 value stored in the area (bytes
 * 464..471) using Intel's fixed XSAVE offsets, and ignores NT_X86_XSAVE_LAYOUT (gdb 14 reads
 * it). Where this CPU's real layout differs -- AMD Zen 4 has AVX-512 without MPX: 2432 bytes
 * where gdb expects 2688; AMX hosts have 11008 -- it warns for every core, the kernel's own
 * included: "too small" below its size, "Unexpected size" above. Only the warning its rule
 * predicts for this size is allowed; any other warning fails.
 */
static size_t gdb13_xstate_size(uint64_t xcr0)
{
    static const struct {
        uint64_t bits;
        size_t size;
    } rule[] = {
        { 1u << 9, 2696 },               /* PKRU */
        { 7u << 5, 2688 },               /* AVX-512: opmask, ZMM_Hi256, Hi16_ZMM */
        { 3u << 3, 1088 },               /* MPX */
        { 1u << 2, 832 },                /* AVX */
    };

    for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
        if (xcr0 & rule[i].bits)
            return rule[i].size;
    return 576;
}

static int gdb_warnings_expected(const char *err, const uint8_t *xstate, size_t xstate_size)
{
    size_t want = xstate_size >= 472 ? gdb13_xstate_size(gc_le64_get(xstate + 464)) : 0;
    const char *known = xstate_size < want   ? "warning: Section `.reg-xstate/"
                        : xstate_size > want ? "warning: Unexpected size of section `.reg-xstate/"
                                             : NULL;

    for (const char *p = strstr(err, "warning:"); p; p = strstr(p + 1, "warning:")) {
        if (!known || strncmp(p, known, strlen(known)) != 0) {
            print_message("unexpected gdb warning (XSAVE area %zu bytes, gdb 13 expects %zu): "
                          "%.200s\n",
                          xstate_size, want, p);
            return 0;
        }
    }
    return 1;
}

static void test_live_core(void **state)
{
    struct live c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char path[512], out[600], err[600], cmd[8192], exe[4096];
    struct note *notes = calloc(64, sizeof(*notes));
    size_t n;
    ssize_t el;
    int status, seen[NT] = { 0 };
    char *text;

    (void)state;
    assert_non_null(notes);
    if (!dir)
        dir = "/tmp";
    snprintf(path, sizeof(path), "%s/host_core.%d.core", dir, (int)getpid());
    snprintf(out, sizeof(out), "%s.out", path);
    snprintf(err, sizeof(err), "%s.err", path);
    el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    assert_true(el > 0);
    exe[el] = '\0';

    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    capture(&c, t, path, 0);
    gc_tracee_detach(t);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    close(c.cmd);
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    /* Notes: the kernel's order, sizes and owners; pr_pid of each NT_PRSTATUS is a tid. */
    n = read_notes(path, notes, 64);
    {
        static const struct {
            const char *owner;
            uint32_t type;
            size_t size; /* 0: any */
        } first[] = {
            { "CORE", GC_NT_PRSTATUS, 336 }, { "CORE", GC_NT_PRPSINFO, 136 },
            { "CORE", GC_NT_SIGINFO, 128 },  { "CORE", GC_NT_AUXV, 0 },
            { "CORE", GC_NT_FILE, 0 },       { "CORE", GC_NT_FPREGSET, 512 },
            { "LINUX", GC_NT_X86_XSTATE, 0 },
        };
        size_t k = 0;

        assert_true(n >= 7 + 3 * (NT - 1));
        for (; k < 7; k++) {
            assert_string_equal(notes[k].owner, first[k].owner);
            assert_int_equal(notes[k].type, first[k].type);
            if (first[k].size)
                assert_int_equal(notes[k].size, first[k].size);
        }
        for (int i = 1; i < NT; i++, k += 3) {
            assert_string_equal(notes[k].owner, "CORE");
            assert_int_equal(notes[k].type, GC_NT_PRSTATUS);
            assert_int_equal(notes[k].size, 336);
            assert_int_equal(notes[k + 1].type, GC_NT_FPREGSET);
            assert_int_equal(notes[k + 2].type, GC_NT_X86_XSTATE);
            assert_string_equal(notes[k + 2].owner, "LINUX");
            assert_int_equal(notes[k + 2].size, notes[6].size);
        }
        /* The XSAVE layout, once: components inside the XSAVE area. */
        assert_string_equal(notes[k].owner, "LINUX");
        assert_int_equal(notes[k].type, GC_NT_X86_XSAVE_LAYOUT);
        assert_true(notes[k].size > 0 && notes[k].size % 16 == 0);
        for (size_t j = 0; j < notes[k].size / 16; j++) {
            const uint8_t *rec = notes[k].desc + 16 * j;

            assert_true(gc_le32_get(rec) >= 2);
            assert_true(gc_le32_get(rec + 8) >= 576);
            assert_true(gc_le32_get(rec + 8) + gc_le32_get(rec + 4) <= notes[6].size);
            assert_int_equal(gc_le32_get(rec + 12), 0);
        }
        k++;
        /* Then only the writer's own notes. */
        for (; k < n; k++)
            assert_string_equal(notes[k].owner, "GPUCORE");
    }
    /* The first thread is the leader (nothing was signalled); no signal is reported in any
     * NT_PRSTATUS (pr_info.si_signo, pr_cursig), as gcore writes a process it stopped. */
    assert_int_equal(gc_le32_get(notes[0].desc + 32), c.pid);
    for (size_t k = 0; k < n; k++) {
        if (notes[k].type != GC_NT_PRSTATUS)
            continue;
        assert_int_equal(gc_le32_get(notes[k].desc + 0), 0);
        assert_int_equal(gc_le16_get(notes[k].desc + 12), 0);
    }
    assert_int_equal(gc_le32_get(notes[0].desc + 328), 1); /* pr_fpvalid */
    assert_int_equal(gc_le32_get(notes[0].desc + 36), getpid()); /* pr_ppid */
    for (size_t k = 0; k < n; k++) {
        if (notes[k].type != GC_NT_PRSTATUS)
            continue;
        for (int i = 0; i < NT; i++)
            if (gc_le32_get(notes[k].desc + 32) == (uint32_t)c.tids[i])
                seen[i]++;
    }
    for (int i = 0; i < NT; i++)
        assert_int_equal(seen[i], 1);
    /* psinfo: pid, comm, arguments. */
    assert_int_equal(gc_le32_get(notes[1].desc + 24), c.pid);
    assert_int_equal(gc_le32_get(notes[1].desc + 28), getpid());
    assert_string_equal((const char *)notes[1].desc + 40, "test_host_core");
    {
        /* The child is a fork of this process: the same command line, NULs as spaces. */
        char *args = slurp("/proc/self/cmdline");
        size_t alen = strlen(args) + 1; /* argv[0] and its NUL, shown as a space */

        if (alen > 79)
            alen = 79;
        assert_memory_equal(notes[1].desc + 56, args, alen - 1);
        assert_int_equal(notes[1].desc[56 + alen - 1], alen < 79 ? ' ' : '\0');
        free(args);
    }
    /* siginfo: gcore's for a stopped process: SIGSTOP from the kernel, no sender. */
    assert_int_equal(gc_le32_get(notes[2].desc), SIGSTOP);
    assert_int_equal(gc_le32_get(notes[2].desc + 8), SI_KERNEL);
    assert_int_equal(gc_le32_get(notes[2].desc + 16), 0);
    assert_int_equal(gc_le32_get(notes[2].desc + 20), 0);
    /* auxv ends with AT_NULL; NT_FILE names the test binary. */
    assert_int_equal(notes[3].size % 16, 0);
    assert_true(gc_le64_get(notes[4].desc + 8) == 4096);

    /* gdb: every thread, backtraces through the child's functions, no warnings. */
    if (GC_TEST_GDB[0]) {
        char *o, *e;

        snprintf(cmd, sizeof(cmd),
                 "%s -nx -batch -ex 'info threads' -ex 'thread apply all bt' %s %s",
                 GC_TEST_GDB, exe, path);
        assert_int_equal(run(cmd, out, err), 0);
        o = slurp(out);
        e = slurp(err);
        print_message("gdb stdout:\n%s\ngdb stderr:\n%s\n", o, e);
        for (int i = 0; i < NT; i++) {
            char lwp[32];

            snprintf(lwp, sizeof(lwp), "LWP %d", (int)c.tids[i]);
            assert_non_null(strstr(o, lwp));
        }
        assert_non_null(strstr(o, "gc_test_child_main"));
        assert_non_null(strstr(o, "gc_test_pause_thread"));
        assert_non_null(strstr(o, "gc_test_spin_thread"));
        assert_non_null(strstr(o, "gc_test_sleep_thread"));
        assert_non_null(strstr(o, " main ("));
        assert_null(strstr(o, "warning:"));
        /* Not signalled: GDB names no signal (it did "Program terminated with signal
         * SIGSTOP" when pr_cursig said SIGSTOP). */
        assert_null(strstr(o, "Program terminated with signal"));
        assert_null(strstr(e, "Program terminated with signal"));
        assert_true(gdb_warnings_expected(e, notes[6].desc, notes[6].size));
        free(o);
        free(e);
    }

    /* eu-readelf reads every note and header without a complaint. */
    snprintf(cmd, sizeof(cmd), "%s -n -l %s", GC_TEST_EU_READELF, path);
    assert_int_equal(run(cmd, out, err), 0);
    text = slurp(err);
    assert_string_equal(text, "");
    free(text);
    text = slurp(out);
    assert_non_null(strstr(text, "CORE"));
    assert_non_null(strstr(text, "PRSTATUS"));
    assert_non_null(strstr(text, "X86_XSTATE"));
    free(text);

    unlink(out);
    unlink(err);
    if (!getenv("GPUCORE_TEST_KEEP"))
        unlink(path);
    free(notes);
}

/* first_thread (the thread the runtime reported a GPU error on) is written first, each thread
 * once, the signal still the capture's; a tid that is not the tracee's leaves the kernel's
 * rule (the leader first). */
static void test_live_first_thread(void **state)
{
    struct live c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char path[512];
    struct note *notes = calloc(64, sizeof(*notes));
    int status;

    (void)state;
    assert_non_null(notes);
    snprintf(path, sizeof(path), "%s/host_core_first.%d.core", dir ? dir : "/tmp", (int)getpid());
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    for (int round = 0; round < 2; round++) {
        /* round 0: a non-leader thread; round 1: a tid that is no thread of the child. */
        pid_t want = round == 0 ? c.tids[NT - 1] : c.pid;
        size_t n, prstatus = 0, found = 0;

        assert_true(c.tids[NT - 1] != c.pid);
        capture(&c, t, path, round == 0 ? c.tids[NT - 1] : getpid());
        n = read_notes(path, notes, 64);
        assert_int_equal(notes[0].type, GC_NT_PRSTATUS);
        assert_int_equal(gc_le32_get(notes[0].desc + 32), (uint32_t)want);
        assert_int_equal(gc_le16_get(notes[0].desc + 12), 0);
        assert_int_equal(notes[2].type, GC_NT_SIGINFO);
        assert_int_equal(gc_le32_get(notes[2].desc), SIGSTOP);
        for (size_t k = 0; k < n; k++) {
            if (notes[k].type != GC_NT_PRSTATUS || strcmp(notes[k].owner, "CORE") != 0)
                continue;
            prstatus++;
            found += gc_le32_get(notes[k].desc + 32) == (uint32_t)want;
        }
        assert_int_equal(prstatus, NT);
        assert_int_equal(found, 1);
        unlink(path);
    }
    gc_tracee_detach(t);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    close(c.cmd);
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    assert_true(WIFEXITED(status));
    free(notes);
}

/* 't' (tracing stop) in /proc/PID/task/TID/stat: 1, else 0. */
static int in_tracing_stop(pid_t pid, pid_t tid)
{
    char path[96], *text, *p;
    int r;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    text = slurp(path);
    p = text ? strrchr(text, ')') : NULL;
    r = p && p[1] == ' ' && p[2] == 't';
    free(text);
    return r;
}

/* A signal a thread is caught delivering when the capture stops it came after the capture
 * began (issue 23: the runtime's abort() after the GPU error racing with the capture): it is
 * not the capture's signal. pr_cursig stays 0 in every NT_PRSTATUS, NT_SIGINFO says "not
 * signalled" as gcore does (SIGSTOP, SI_KERNEL), the leader comes first, the signal is pending
 * in that thread's pr_sigpend only, and GDB does not say the program was terminated by it. */
static void test_live_caught_signal(void **state)
{
    struct live c;
    struct gc_tracee *t = NULL;
    gpucore_diag_t d = { 0 };
    const char *dir = getenv("GPUCORE_TEST_TMPDIR");
    char path[512];
    struct note *notes = calloc(64, sizeof(*notes));
    pid_t victim;
    size_t n, prstatus = 0;
    int status;

    (void)state;
    assert_non_null(notes);
    snprintf(path, sizeof(path), "%s/host_core_sig.%d.core", dir ? dir : "/tmp", (int)getpid());
    start_child(&c);
    victim = c.tids[T_PAUSE];
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    /* The thread in pause() takes SIGUSR2 (the child handles it) into a signal-delivery stop,
     * which the stop below keeps as the thread's signal. */
    assert_int_equal(syscall(SYS_tgkill, c.pid, victim, SIGUSR2), 0);
    while (!in_tracing_stop(c.pid, victim))
        usleep(1000);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_non_null(gc_tracee_signalled_thread(t));
    assert_int_equal(gc_tracee_signalled_thread(t)->tid, victim);
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    capture(&c, t, path, 0);
    n = read_notes(path, notes, 64);
    /* pr_pid (offset 32 of the x86-64 elf_prstatus) of the first note: the leader. */
    assert_int_equal(gc_le32_get(notes[0].desc + 32), (uint32_t)c.pid);
    for (size_t k = 0; k < n; k++) {
        uint64_t pend;

        if (notes[k].type != GC_NT_PRSTATUS || strcmp(notes[k].owner, "CORE") != 0)
            continue;
        prstatus++;
        /* pr_info.si_signo (offset 0), pr_cursig (12), pr_sigpend (16): <linux/elfcore.h> */
        assert_int_equal(gc_le32_get(notes[k].desc + 0), 0);
        assert_int_equal(gc_le16_get(notes[k].desc + 12), 0);
        pend = gc_le64_get(notes[k].desc + 16);
        if (gc_le32_get(notes[k].desc + 32) == (uint32_t)victim)
            assert_true(pend & (UINT64_C(1) << (SIGUSR2 - 1)));
        else
            assert_false(pend & (UINT64_C(1) << (SIGUSR2 - 1)));
    }
    assert_int_equal(prstatus, NT);
    assert_int_equal(notes[2].type, GC_NT_SIGINFO);
    assert_int_equal(gc_le32_get(notes[2].desc), SIGSTOP);
    assert_int_equal(gc_le32_get(notes[2].desc + 8), (uint32_t)SI_KERNEL);
    assert_int_equal(gc_le32_get(notes[2].desc + 16), 0); /* no sender */
    if (GC_TEST_GDB[0]) {
        char cmd[2048], out[600], err[600], *o;

        snprintf(out, sizeof(out), "%s.gdb.out", path);
        snprintf(err, sizeof(err), "%s.gdb.err", path);
        snprintf(cmd, sizeof(cmd), "%s -nx -batch -ex 'info threads' /proc/%d/exe %s",
                 GC_TEST_GDB, (int)getpid(), path);
        assert_int_equal(run(cmd, out, err), 0);
        o = slurp(out);
        assert_null(strstr(o, "Program terminated with signal"));
        assert_non_null(strstr(o, "LWP"));
        free(o);
        unlink(out);
        unlink(err);
    }
    unlink(path);
    gc_tracee_detach(t);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    close(c.cmd);
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    assert_true(WIFEXITED(status));
    free(notes);
}

/*
 * The order host memory is written in (gc_host_prioritize), on a live stopped child: the sets
 * split what was selected exactly, each thread's stack at SP is in the first one, and the first
 * one stays small (a budget spends little on it).
 */
static void test_live_prioritize(void **state)
{
    struct live c;
    struct gc_tracee *t = NULL;
    struct gc_procmaps m;
    struct gc_host_ranges hr;
    struct gc_rangeset sel = GC_RANGESET_INIT, all = GC_RANGESET_INIT;
    struct gc_rangeset p[GC_HOST_PRIORITIES];
    gpucore_diag_t d = { 0 };
    uint64_t bytes = 0;
    int status;

    (void)state;
    for (uint32_t i = 0; i < GC_HOST_PRIORITIES; i++)
        p[i] = (struct gc_rangeset)GC_RANGESET_INIT;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_fetch_regs(t, &d), GPUCORE_OK);
    assert_int_equal(gc_procmaps_read(c.pid, NULL, &m, &d), GPUCORE_OK);
    assert_int_equal(gc_host_select(&m, GC_COREDUMP_FILTER_DEFAULT, NULL, &fixture_mem, &hr, &d),
                     GPUCORE_OK);
    for (uint32_t i = 0; i < hr.count; i++)
        assert_int_equal(gc_rangeset_add(&sel, hr.r[i].start, hr.r[i].size), GPUCORE_OK);
    assert_int_equal(gc_host_prioritize(&sel, &m, t, NULL, p, &d), GPUCORE_OK);

    /* Disjoint, and together exactly the selection. */
    for (uint32_t i = 0; i < GC_HOST_PRIORITIES; i++) {
        for (uint32_t j = 0; j < p[i].count; j++) {
            const struct gc_range *r = &p[i].r[j];

            assert_true(gc_rangeset_contains(&sel, r->start, r->end - r->start));
            for (uint32_t k = i + 1; k < GC_HOST_PRIORITIES; k++)
                assert_false(gc_rangeset_overlaps(&p[k], r->start, r->end - r->start));
        }
        bytes += gc_rangeset_bytes(&p[i]);
        assert_int_equal(gc_rangeset_union(&all, &p[i]), GPUCORE_OK);
    }
    assert_int_equal(bytes, gc_rangeset_bytes(&sel));
    assert_int_equal(gc_rangeset_bytes(&all), gc_rangeset_bytes(&sel));
    /* Every thread's stack at SP first; at most a page below SP and 16 KiB above it each. */
    for (uint32_t i = 0; i < gc_tracee_thread_count(t); i++) {
        const struct gc_tracee_thread *th = gc_tracee_thread(t, i);
        uint64_t sp = gc_le64_get(th->gregs + 152);

        assert_true(th->regs_valid);
        assert_true(gc_rangeset_contains(&sel, sp, 64));
        assert_true(gc_rangeset_contains(&p[0], sp, 64));
    }
    assert_true(gc_rangeset_bytes(&p[0]) <=
                gc_tracee_thread_count(t) * (uint64_t)(GC_HOST_STACK_NEAR + 2 * 4096));
    assert_true(gc_rangeset_bytes(&p[3]) > 0);

    /* No threads: everything in address order. */
    for (uint32_t i = 0; i < GC_HOST_PRIORITIES; i++)
        gc_rangeset_free(&p[i]);
    assert_int_equal(gc_host_prioritize(&sel, &m, NULL, NULL, p, &d), GPUCORE_OK);
    for (uint32_t i = 0; i + 1 < GC_HOST_PRIORITIES; i++)
        assert_int_equal(p[i].count, 0);
    assert_int_equal(gc_rangeset_bytes(&p[3]), gc_rangeset_bytes(&sel));

    gc_tracee_detach(t);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    close(c.cmd);
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    for (uint32_t i = 0; i < GC_HOST_PRIORITIES; i++)
        gc_rangeset_free(&p[i]);
    gc_rangeset_free(&sel);
    gc_rangeset_free(&all);
    gc_host_ranges_free(&hr);
    gc_procmaps_free(&m);
}

/* The child's memory for gc_host_link_map, through /proc/PID/mem. */
static gpucore_status_t read_child(void *user, uint64_t addr, void *buf, uint64_t size,
                                   uint64_t *ret_done, int *ret_errno)
{
    char path[64];
    int fd;
    ssize_t n;

    *ret_done = 0;
    *ret_errno = EIO;
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)*(const pid_t *)user);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return GPUCORE_E_NOTFOUND;
    n = addr <= (uint64_t)INT64_MAX ? pread(fd, buf, (size_t)size, (off_t)addr) : -1;
    close(fd);
    *ret_done = n > 0 ? (uint64_t)n : 0;
    return n == (ssize_t)size ? GPUCORE_OK : GPUCORE_E_UNAVAILABLE;
}

/*
 * gc_host_link_map on a live child: a fork of this process, so its dynamic linker's list is
 * at the same addresses as ours: r_debug and every link_map node and name are kept.
 */
static void test_live_link_map(void **state)
{
    struct live c;
    struct gc_tracee *t = NULL;
    struct gc_rangeset r = GC_RANGESET_INIT;
    const struct r_debug *rd = NULL;
    gpucore_diag_t d = { 0 };
    uint32_t nodes = 0;
    int status;
    const struct gc_mem_reader mem = { read_child, &c.pid };

    (void)state;
    start_child(&c);
    assert_int_equal(gc_tracee_seize(c.pid, &t, &d), GPUCORE_OK);
    assert_int_equal(gc_tracee_stop_all(t, NULL, 0, 10000, &d), GPUCORE_OK);
    assert_int_equal(gc_host_link_map(c.pid, "/proc", &mem, &r, &d), GPUCORE_OK);
    /* Our r_debug, where our DT_DEBUG says (not the _r_debug symbol: a copy relocation). */
    for (const ElfW(Dyn) *e = _DYNAMIC; e->d_tag != DT_NULL; e++)
        if (e->d_tag == DT_DEBUG)
            rd = (const struct r_debug *)(uintptr_t)e->d_un.d_ptr;
    if (!rd) {
        fail_msg("this test program has no DT_DEBUG");
        return;
    }
    assert_true(gc_rangeset_contains(&r, (uintptr_t)rd, sizeof(*rd)));
    for (const struct link_map *lm = rd->r_map; lm; lm = lm->l_next, nodes++) {
        assert_true(gc_rangeset_contains(&r, (uintptr_t)lm, 40));
        assert_true(gc_rangeset_contains(&r, (uintptr_t)lm->l_name, 1));
    }
    assert_true(nodes >= 3); /* the program, the dynamic linker, libc at least */
    /* Pages, a few per node: nothing like the whole process. */
    assert_true(gc_rangeset_bytes(&r) <= (uint64_t)(3 * nodes + 8) * 4096);

    /* Exactly (--redact): the structures' own bytes, not their pages. */
    {
        struct gc_rangeset x = GC_RANGESET_INIT;
        uint64_t want = sizeof(*rd);

        assert_int_equal(gc_host_link_map_exact(c.pid, "/proc", &mem, &x, &d), GPUCORE_OK);
        assert_true(gc_rangeset_contains(&x, (uintptr_t)rd, sizeof(*rd)));
        for (const struct link_map *lm = rd->r_map; lm; lm = lm->l_next) {
            assert_true(gc_rangeset_contains(&x, (uintptr_t)lm, 40));
            assert_true(gc_rangeset_contains(&x, (uintptr_t)lm->l_name, strlen(lm->l_name) + 1));
            want += 40 + strlen(lm->l_name) + 1 + 16;
        }
        /* the structures, the executable's dynamic section (at most 4096 entries) */
        assert_true(gc_rangeset_bytes(&x) <= want + 4096 * 16);
        assert_true(gc_rangeset_bytes(&x) < gc_rangeset_bytes(&r));
        gc_rangeset_free(&x);
    }

    /* Not a process: nothing, and no failure (it only orders memory). */
    gc_rangeset_clear(&r);
    assert_int_equal(gc_host_link_map(c.pid, "/nonexistent", &mem, &r, &d), GPUCORE_OK);
    assert_int_equal(r.count, 0);

    gc_tracee_detach(t);
    assert_int_equal(write(c.cmd, "q", 1), 1);
    close(c.cmd);
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    gc_rangeset_free(&r);
}

extern char **environ;

/* Where the argument and environment strings are: from a /proc/PID/stat whose fields may be
 * negative (tpgid -1, a real-time priority) or beyond int64 (rsslim RLIM_INFINITY). */
static void test_arg_env(void **state)
{
    const char *base = getenv("GPUCORE_TEST_TMPDIR");
    char dir[4096], path[4200];
    uint64_t lo = 0, hi = 0;
    FILE *f;

    (void)state;
    if (!base || !*base)
        base = P_tmpdir;
    mkdir(base, 0755);
    snprintf(dir, sizeof(dir), "%s/argenv.XXXXXX", base);
    /* this process: the environment strings lie in the range */
    assert_int_equal(gc_host_arg_env(getpid(), "/proc", &lo, &hi), GPUCORE_OK);
    assert_true(lo < hi);
    assert_non_null(environ[0]);
    assert_true((uintptr_t)environ[0] >= lo && (uintptr_t)environ[0] < hi);

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/42", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/42/stat", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "42 (a) b) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 -2 0 1 0 5 6 7 "
               "18446744073709551615 1 2 3 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 4 5 6 "
               "1000 1010 1010 1100 0\n");
    fclose(f);
    assert_int_equal(gc_host_arg_env(42, dir, &lo, &hi), GPUCORE_OK);
    assert_int_equal(lo, 1000);
    assert_int_equal(hi, 1100);
    /* too few fields (a kernel before 3.5), and no range: not known */
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "42 (a) S 1 42 42 0 -1 4194560\n");
    fclose(f);
    assert_int_equal(gc_host_arg_env(42, dir, &lo, &hi), GPUCORE_E_IO);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "42 (a) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 5 6 7 8 1 2 3 0 0 0 0 0 "
               "0 0 0 0 17 1 0 0 0 0 0 4 5 6 0 0 0 0 0\n");
    fclose(f);
    assert_int_equal(gc_host_arg_env(42, dir, &lo, &hi), GPUCORE_E_IO);
    assert_int_equal(gc_host_arg_env(43, dir, &lo, &hi), GPUCORE_E_IO);
    unlink(path);
    snprintf(path, sizeof(path), "%s/42", dir);
    rmdir(path);
    rmdir(dir);
}

int main(void)
{
    pid_t probe = fork();
    int can;

    if (probe == 0) {
        pause();
        _exit(0);
    }
    can = ptrace(PTRACE_SEIZE, probe, NULL, NULL) == 0;
    kill(probe, SIGKILL);
    waitpid(probe, NULL, 0);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_default), cmocka_unit_test(test_select_filters),
        cmocka_unit_test(test_live_core),      cmocka_unit_test(test_live_first_thread),
        cmocka_unit_test(test_live_caught_signal), cmocka_unit_test(test_live_prioritize),
        cmocka_unit_test(test_live_link_map),  cmocka_unit_test(test_arg_env),
    };
    if (!can) {
        printf("skipped: ptrace not permitted here\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
