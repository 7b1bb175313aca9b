// SPDX-License-Identifier: MIT
//
// hostile_rocr CODE_OBJECT MODE[+MODE...]...: a process on AMD's real ROCr whose runtime structures lie,
// for the kfdemu tests of gpucore capture (tests/kfdemu/gpucore/hostile-rocr.case). It starts
// what every GPU process has (hsa_init, an AQL queue, the code object CODE_OBJECT loaded by
// ROCr's loader, so _amdgpu_r_debug's link map names it), then for each argument in turn:
// corrupts what gpucore reads from a target (capture/plan.c, capture/plan_co.c,
// schema/gc_rocr.h) as its MODEs say (several joined by '+' apply together: a looping list and
// a lying queue are captured at once), prints "hostile_rocr: ready ARGUMENT", waits for a line
// on stdin (the test has captured it), and puts back what it changed. MODE:
//
//   none       nothing corrupted (the control run)
//   loop       the link map's last node points back to its first (a cycle)
//   long       LONG_NODES extra nodes in front of the real ones, each naming no URI
//   uris       nodes in front of the real ones whose URIs lie: a pointer to nothing, no NUL
//              within 4 KiB, a memory:// object of 255 MiB in a 4 KiB buffer, memory:// at
//              offset 0, a file:// offset far past the file's end, a missing file, an
//              unknown scheme, bad numbers
//   elf        nodes in front whose memory:// objects are copies of CODE_OBJECT with lying
//              ELF headers: program headers past the end, 65535 program headers, a PT_LOAD
//              that wraps the address space, an x86-64 machine, a header cut in half
//   rdebug     _amdgpu_r_debug.r_map points to unmapped memory, r_state is RT_ADD
//   version    _amdgpu_r_debug.r_version is 0x7fffffff
//   queue      the amd_queue_t lies: write_dispatch_id 2^62 with read_dispatch_id 0, its ring
//              pointer, size, scratch location and tmpring are nonsense
//   inverted   the amd_queue_t's read_dispatch_id is above its write_dispatch_id
//
// One process for all modes: ROCr starts once (seconds on the emulator), each capture costs a
// fraction of that. The runtime never runs on the corrupted structures (no dispatch, no
// hsa_shut_down: the process ends with _exit). At most LIFETIME_SECONDS, then SIGALRM ends it.
// Exit status: 0 all modes done (or stdin closed); 1 a call failed (its name printed); 2 usage.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUEUE_PACKETS 64u  // ring size: a power of two, above every agent's minimum
#define LIFETIME_SECONDS 120 // long enough for the captures; a test that forgets us is not hung
#define SAVED_NODES 64       // real link map nodes put back after a mode (ROCr has 1-3)
#define LONG_NODES 100000u // far above gpucore's GC_ROCR_LINK_MAP_MAX (4096)
#define URI_SIZE 160       // one lying URI
#define MAX_CO_SIZE (16u << 20) // CODE_OBJECT is a few KiB; anything bigger is not ours

// glibc's <link.h> layouts, as ROCr writes them (gc_rocr.h).
struct rdebug {
    int32_t r_version;
    int32_t pad;
    struct lmap *r_map;
    uint64_t r_brk;
    int32_t r_state;
    int32_t pad2;
    uint64_t r_ldbase;
};
struct lmap {
    uint64_t l_addr;
    char *l_name;
    uint64_t l_ld;
    struct lmap *l_next, *l_prev;
};

// amd_queue_t offsets (ROCr's amd_hsa_queue.h): hsa_queue_t's base_address at 8, size at 24;
// write_dispatch_id at 56, read_dispatch_id at 128, compute_tmpring_size at 140,
// scratch_backing_memory_location at 160.
#define AQ_BASE_ADDRESS 8
#define AQ_SIZE 24
#define AQ_WRITE_ID 56
#define AQ_READ_ID 128
#define AQ_TMPRING 140
#define AQ_SCRATCH_LOC 160

static void check(hsa_status_t st, const char *what)
{
    const char *why = NULL;

    if (st == HSA_STATUS_SUCCESS)
        return;
    if (hsa_status_string(st, &why) != HSA_STATUS_SUCCESS || !why)
        why = "(no status string)";
    fprintf(stderr, "hostile_rocr: %s: status 0x%x: %s\n", what, (unsigned)st, why);
    exit(1);
}

static void *must_alloc(size_t n)
{
    void *p = calloc(1, n);

    if (!p) {
        fprintf(stderr, "hostile_rocr: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static hsa_status_t on_agent(hsa_agent_t agent, void *data)
{
    hsa_device_type_t type;
    hsa_status_t st = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);

    if (st == HSA_STATUS_SUCCESS && type == HSA_DEVICE_TYPE_GPU) {
        *(hsa_agent_t *)data = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return st;
}

static const char *co_path;
static uint8_t *co_bytes;
static size_t co_size;

static void read_code_object(void)
{
    struct stat s;
    int fd = open(co_path, O_RDONLY | O_CLOEXEC);

    if (fd < 0 || fstat(fd, &s) < 0 || s.st_size < 64 || (uint64_t)s.st_size > MAX_CO_SIZE) {
        fprintf(stderr, "hostile_rocr: %s: not a readable code object\n", co_path);
        exit(1);
    }
    co_size = (size_t)s.st_size;
    co_bytes = must_alloc(co_size);
    if (read(fd, co_bytes, co_size) != (ssize_t)co_size) {
        fprintf(stderr, "hostile_rocr: %s: short read\n", co_path);
        exit(1);
    }
    close(fd);
}

// A URI string of the process's own memory (never freed: the capture reads it).
static char *uri(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *uri(const char *fmt, ...)
{
    char *s = must_alloc(URI_SIZE);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(s, URI_SIZE, fmt, ap);
    va_end(ap);
    return s;
}

static char *memory_uri(const void *p, uint64_t size)
{
    return uri("memory://%d#offset=0x%" PRIxPTR "&size=%" PRIu64, (int)getpid(), (uintptr_t)p,
               size);
}

// Puts n new nodes naming names[i] in front of the real list.
static void prepend(struct rdebug *rd, char *const *names, size_t n)
{
    struct lmap *nodes = must_alloc(n * sizeof(*nodes));

    for (size_t i = 0; i < n; i++) {
        nodes[i].l_name = names ? names[i] : NULL;
        nodes[i].l_next = i + 1 < n ? &nodes[i + 1] : rd->r_map;
        nodes[i].l_prev = i ? &nodes[i - 1] : NULL;
    }
    rd->r_map = nodes;
}

static void mode_loop(struct rdebug *rd)
{
    struct lmap *m = rd->r_map;

    while (m->l_next)
        m = m->l_next;
    m->l_next = rd->r_map;
}

static void mode_long(struct rdebug *rd)
{
    prepend(rd, NULL, LONG_NODES);
}

static void mode_uris(struct rdebug *rd)
{
    char *no_nul = must_alloc(8192);
    uint8_t *small = must_alloc(4096);
    char *names[8];

    memset(no_nul, 'A', 8192);
    memcpy(no_nul, "memory://", 9); // and then 8183 'A's: no NUL within 4 KiB
    memcpy(small, co_bytes, co_size < 4096 ? co_size : 4096);
    names[0] = (char *)(uintptr_t)0xdead0000; // unmapped
    names[1] = no_nul;
    names[2] = memory_uri(small, 255u << 20); // 255 MiB said, 4 KiB there
    names[3] = uri("memory://%d#offset=0&size=4096", (int)getpid());
    names[4] = uri("file://%s#offset=0xffffffffffff0000&size=4096", co_path);
    names[5] = uri("file:///nonexistent/hostile_rocr.co");
    names[6] = uri("gopher://%d#offset=1&size=1", (int)getpid());
    names[7] = uri("memory://%d#offset=0x99999999999999999999&size=1&size=2", (int)getpid());
    prepend(rd, names, sizeof(names) / sizeof(names[0]));
}

// A copy of the code object with one header lie; the URI naming it (size said: @size).
static char *lying_copy(void (*lie)(uint8_t *), uint64_t size)
{
    uint8_t *b = must_alloc(co_size);

    memcpy(b, co_bytes, co_size);
    lie(b);
    return memory_uri(b, size);
}

// ELF64 header offsets: e_machine 18, e_phoff 32, e_phentsize 54, e_phnum 56.
static void lie_phoff(uint8_t *b)
{
    uint64_t v = 0xfffffff0u;
    memcpy(b + 32, &v, 8);
}
static void lie_phnum(uint8_t *b)
{
    uint16_t v = 0xffff;
    memcpy(b + 56, &v, 2);
}
static void lie_machine(uint8_t *b)
{
    uint16_t v = 62; // EM_X86_64
    memcpy(b + 18, &v, 2);
}
// The first PT_LOAD's p_vaddr (16) and p_memsz (40) make it end past 2^64.
static void lie_wrap(uint8_t *b)
{
    uint64_t phoff, v;
    uint16_t phnum, phentsize;

    memcpy(&phoff, b + 32, 8);
    memcpy(&phentsize, b + 54, 2);
    memcpy(&phnum, b + 56, 2);
    for (uint16_t i = 0; i < phnum && phoff + (uint64_t)(i + 1) * phentsize <= co_size; i++) {
        uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        uint32_t type;

        memcpy(&type, ph, 4);
        if (type != 1) // PT_LOAD
            continue;
        v = 0xffffffffffff0000ull;
        memcpy(ph + 16, &v, 8);
        memcpy(ph + 40, &v, 8);
        return;
    }
}
static void lie_none(uint8_t *b)
{
    (void)b;
}

static void mode_elf(struct rdebug *rd)
{
    char *names[5];

    names[0] = lying_copy(lie_phoff, co_size);
    names[1] = lying_copy(lie_phnum, co_size);
    names[2] = lying_copy(lie_wrap, co_size);
    names[3] = lying_copy(lie_machine, co_size);
    names[4] = lying_copy(lie_none, 32); // half an ELF header
    prepend(rd, names, sizeof(names) / sizeof(names[0]));
}

static void mode_rdebug(struct rdebug *rd)
{
    rd->r_map = (struct lmap *)(uintptr_t)0xdead0000;
    rd->r_state = 1; // RT_ADD
}

static void mode_version(struct rdebug *rd)
{
    rd->r_version = 0x7fffffff;
}

static uint8_t *aq_of(hsa_queue_t *q)
{
    return (uint8_t *)q;
}

static void put64(uint8_t *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
}

static hsa_queue_t *queue;

static void mode_queue(struct rdebug *rd)
{
    uint8_t *aq = aq_of(queue);
    uint32_t v = 0xffffffffu;

    (void)rd;
    put64(aq + AQ_WRITE_ID, 1ull << 62);
    put64(aq + AQ_READ_ID, 0);
    put64(aq + AQ_BASE_ADDRESS, 0xdead0000u);
    memcpy(aq + AQ_SIZE, &v, 4);
    memcpy(aq + AQ_TMPRING, &v, 4);
    put64(aq + AQ_SCRATCH_LOC, 0xffffffffffff0000ull);
}

static void mode_inverted(struct rdebug *rd)
{
    uint8_t *aq = aq_of(queue);

    (void)rd;
    put64(aq + AQ_READ_ID, 1000);
    put64(aq + AQ_WRITE_ID, 5);
}

static void mode_none(struct rdebug *rd)
{
    (void)rd;
}

static const struct {
    const char *name;
    void (*apply)(struct rdebug *);
} modes[] = {
    { "none", mode_none },     { "loop", mode_loop },       { "long", mode_long },
    { "uris", mode_uris },     { "elf", mode_elf },         { "rdebug", mode_rdebug },
    { "version", mode_version }, { "queue", mode_queue },   { "inverted", mode_inverted },
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

// What the modes change, as it was: r_debug, the real nodes, the amd_queue_t's first 256 bytes
// (only what the modes write is put back: the rest belongs to the packet processor).
static struct {
    struct rdebug rd;
    struct lmap *node[SAVED_NODES];
    struct lmap copy[SAVED_NODES];
    size_t nnodes;
    uint8_t aq[256];
} saved;

static void save(const struct rdebug *rd)
{
    saved.rd = *rd;
    saved.nnodes = 0;
    for (struct lmap *m = rd->r_map; m && saved.nnodes < SAVED_NODES; m = m->l_next) {
        saved.node[saved.nnodes] = m;
        saved.copy[saved.nnodes++] = *m;
    }
    memcpy(saved.aq, aq_of(queue), sizeof(saved.aq));
}

static void restore(struct rdebug *rd)
{
    static const size_t aq_fields[][2] = {
        { AQ_BASE_ADDRESS, 8 }, { AQ_SIZE, 4 }, { AQ_WRITE_ID, 8 },
        { AQ_READ_ID, 8 },      { AQ_TMPRING, 4 }, { AQ_SCRATCH_LOC, 8 },
    };

    *rd = saved.rd;
    for (size_t i = 0; i < saved.nnodes; i++)
        *saved.node[i] = saved.copy[i];
    for (size_t i = 0; i < sizeof(aq_fields) / sizeof(aq_fields[0]); i++)
        memcpy(aq_of(queue) + aq_fields[i][0], saved.aq + aq_fields[i][0], aq_fields[i][1]);
}

static size_t mode_of(const char *name, size_t len)
{
    size_t m;

    for (m = 0; m < NMODES; m++)
        if (strlen(modes[m].name) == len && strncmp(name, modes[m].name, len) == 0)
            break;
    return m;
}

// Applies each mode of a '+'-separated list (NULL rd: only checks them). 0, -1 for a name
// that is no mode.
static int apply_modes(const char *list, struct rdebug *rd)
{
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, "+"), m = mode_of(p, len);

        if (m == NMODES)
            return -1;
        if (rd)
            modes[m].apply(rd);
        p += len;
        if (!*p)
            return 0;
    }
}

int main(int argc, char **argv)
{
    hsa_agent_t gpu = { 0 };
    hsa_profile_t profile;
    hsa_code_object_reader_t reader;
    hsa_executable_t exe;
    struct rdebug *rd;
    char line[64];
    int fd, bad = argc < 3;

    for (int i = 2; i < argc; i++)
        bad |= apply_modes(argv[i], NULL) < 0;
    if (bad) {
        fprintf(stderr, "usage: hostile_rocr CODE_OBJECT MODE[+MODE...]...  MODE: none|loop|"
                        "long|uris|elf|rdebug|version|queue|inverted\n");
        return 2;
    }
    alarm(LIFETIME_SECONDS);
    co_path = argv[1];
    read_code_object();
    check(hsa_init(), "hsa_init");
    if (hsa_iterate_agents(on_agent, &gpu) != HSA_STATUS_INFO_BREAK) {
        fprintf(stderr, "hostile_rocr: no GPU agent\n");
        return 1;
    }
    check(hsa_agent_get_info(gpu, HSA_AGENT_INFO_PROFILE, &profile), "HSA_AGENT_INFO_PROFILE");
    check(hsa_queue_create(gpu, QUEUE_PACKETS, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX,
                           UINT32_MAX, &queue),
          "hsa_queue_create");
    fd = open(co_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        perror(co_path);
        return 1;
    }
    check(hsa_code_object_reader_create_from_file(fd, &reader),
          "hsa_code_object_reader_create_from_file");
    check(hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe),
          "hsa_executable_create_alt");
    check(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL),
          "hsa_executable_load_agent_code_object");
    check(hsa_executable_freeze(exe, NULL), "hsa_executable_freeze");
    // The debugger interface of ROCr's loader, exported for debuggers (amdkfd's runtime info
    // names it too).
    rd = dlsym(RTLD_DEFAULT, "_amdgpu_r_debug");
    if (!rd || !rd->r_map) {
        fprintf(stderr, "hostile_rocr: no _amdgpu_r_debug with a link map in ROCr\n");
        return 1;
    }
    save(rd);
    for (int i = 2; i < argc; i++) {
        apply_modes(argv[i], rd);
        printf("hostile_rocr: ready %s\n", argv[i]);
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
            break;
        restore(rd);
    }
    _exit(0);
}
