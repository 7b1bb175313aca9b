/* SPDX-License-Identifier: MIT */
/*
 * gpucore-bench-core: how fast does libcore write and read a large core, and how big is it?
 *
 *     gpucore-bench-core [--size BYTES] [--dir DIR] [--cold]
 *     gpucore-bench-core --frames [--size BYTES] [--dir DIR] [--repeat N]
 *
 * Builds a synthetic process image (default 1 GiB) as a few hundred segments whose pages are a
 * realistic mix -- about 40 % all-zero, 30 % patterned, 30 % random -- and, in one run, writes
 * it as: a plain write()+fsync of the same bytes (the baseline any dumper pays), a plain
 * gpucore core (sparse), and zstd-compressed cores at levels 1, 3 and 9 plus level 3 with two
 * worker threads. Then it reads the plain and the level-3 core back, sequentially and with
 * 10 000 random 4 KiB reads, and checks a sample of what it read. With --frames it measures
 * instead, for zstd frames of 64 KiB to 16 MiB, the compression time and ratio and the latency
 * of random 4 KiB and 64 KiB reads (frames_mode()). See bench/README.md.
 *
 * Everything is deterministic except the clock: the image comes from a fixed-seed PRNG, so
 * sizes and ratios repeat exactly from run to run. Nothing is asserted about time.
 *
 * The image is never held in memory: segment bytes are generated on demand, from a 32 MiB pool
 * of random pages and per-page formulas, and handed to the writer through its pull callback
 * (the way capture will feed it from process_vm_readv). The baseline generates the same bytes
 * into the same 1 MiB buffer, so generation costs every variant the same; its cost alone is
 * shown in the first row.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpucore/core.h>

static const char prog[] = "gpucore-bench-core";

#define PAGE          4096u
#define CHUNK         (1u << 20) /* write()/read unit; the writer pulls at most this per call */
#define POOL_PAGES    8192u      /* 32 MiB of random pages, a power of two */
#define SEED          0x6770756372650001ull
#define RANDOM_READS  10000u
#define VERIFY_READS  500u
#define MIN_SEG_PAGES 4u    /* 16 KiB */
#define MAX_SEG_PAGES 4096u /* 16 MiB */
#define BASE_VADDR    0x7f0000000000ull

enum page_class { PAGE_ZERO, PAGE_PATTERN, PAGE_RANDOM, PAGE_CLASSES };

/* ============================================================================================ */
/* Deterministic image                                                                          */
/* ============================================================================================ */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct segment {
    uint64_t vaddr;
    uint64_t size;
    uint64_t image_off; /* offset of its first byte in the concatenated image */
};

struct image {
    uint64_t size; /* bytes of segment data */
    uint64_t pages;
    uint8_t *cls;  /* enum page_class per page */
    uint8_t *pool; /* POOL_PAGES random pages */
    struct segment *segs;
    uint32_t nsegs;
    uint64_t class_pages[PAGE_CLASSES];
};

static int build_image(struct image *im, uint64_t size)
{
    uint64_t rng = SEED;

    memset(im, 0, sizeof(*im));
    im->size = size;
    im->pages = size / PAGE;
    im->cls = malloc(im->pages);
    im->pool = malloc((size_t)POOL_PAGES * PAGE);
    /* Segments are at least MIN_SEG_PAGES long, so this many always suffice. */
    im->segs = calloc(im->pages / MIN_SEG_PAGES + 1, sizeof(*im->segs));
    if (!im->cls || !im->pool || !im->segs)
        return -1;

    for (size_t i = 0; i < (size_t)POOL_PAGES * PAGE; i += 8) {
        uint64_t v = splitmix64(&rng);
        memcpy(im->pool + i, &v, 8);
    }

    /* Memory comes in runs of like pages (a zeroed heap, an array, a compressed blob): runs of
     * 1-32 pages whose class is drawn 40/30/30. */
    for (uint64_t p = 0; p < im->pages;) {
        uint64_t r = splitmix64(&rng);
        unsigned pct = (unsigned)(r % 100);
        enum page_class c = pct < 40 ? PAGE_ZERO : pct < 70 ? PAGE_PATTERN : PAGE_RANDOM;
        uint64_t run = 1 + (r >> 32) % 32;

        for (; run > 0 && p < im->pages; run--, p++) {
            im->cls[p] = (uint8_t)c;
            im->class_pages[c]++;
        }
    }

    /* Segment sizes log-uniform between 16 KiB and 16 MiB, separated by unmapped gaps. */
    uint64_t vaddr = BASE_VADDR, page = 0;
    while (page < im->pages) {
        uint64_t r = splitmix64(&rng);
        unsigned shift = (unsigned)(r % 11); /* 4 << 0 .. 4 << 10 pages */
        uint64_t lo = (uint64_t)MIN_SEG_PAGES << shift;
        uint64_t n = lo + (r >> 16) % lo;

        if (n > MAX_SEG_PAGES)
            n = MAX_SEG_PAGES;
        if (n > im->pages - page)
            n = im->pages - page;
        im->segs[im->nsegs++] = (struct segment){ vaddr, n * PAGE, page * PAGE };
        vaddr += n * PAGE + (1 + (r >> 40) % 16) * PAGE;
        page += n;
    }
    return 0;
}

static void free_image(struct image *im)
{
    free(im->cls);
    free(im->pool);
    free(im->segs);
}

/* Lower-case hex digits of v, most significant first, into dst[0..digits). */
static void put_hex(char *dst, uint64_t v, unsigned digits)
{
    while (digits-- > 0) {
        dst[digits] = "0123456789abcdef"[v & 0xf];
        v >>= 4;
    }
}

/* One page of patterned data, three kinds that compress differently, into an aligned page. */
static void pattern_page(uint64_t page, uint32_t *w)
{
    switch (page % 3) {
    case 0: /* an index array: slowly counting 32-bit integers */
        for (uint32_t i = 0; i < PAGE / 4; i++)
            w[i] = (uint32_t)(page * (PAGE / 4) + i);
        break;
    case 1: /* an array of 32-byte records: id, flags, a float-like field, zero padding */
        for (uint32_t i = 0; i < PAGE / 32; i++) {
            w[i * 8 + 0] = (uint32_t)(page * 128 + i);
            w[i * 8 + 1] = 0x11;
            w[i * 8 + 2] = 0x3f800000u + (i << 12);
            w[i * 8 + 3] = 0;
            w[i * 8 + 4] = 0xdeadbeef;
            w[i * 8 + 5] = 0;
            w[i * 8 + 6] = 0;
            w[i * 8 + 7] = 0;
        }
        break;
    default: { /* text: 64-byte log lines that differ in a counter */
        static const char line[65] =
                "[pppppppp] queue 3: dispatch nnnn retired, no exception raised.\n";
        char *t = (char *)w;
        for (uint32_t i = 0; i < PAGE / 64; i++) {
            memcpy(t + i * 64, line, 64);
            put_hex(t + i * 64 + 1, page, 8);
            put_hex(t + i * 64 + 29, i, 4);
        }
        break;
    }
    }
}

/* Bytes [off, off + n) of the concatenated image; pages are generated whole. */
static void fill(const struct image *im, uint64_t off, uint8_t *dst, uint64_t n)
{
    /* Generated in an aligned page first: the destination has no alignment guarantee. */
    _Alignas(64) uint32_t tmp[PAGE / 4];

    while (n > 0) {
        uint64_t page = off / PAGE, in = off % PAGE;
        uint64_t take = PAGE - in < n ? PAGE - in : n;

        switch (im->cls[page]) {
        case PAGE_ZERO:
            memset(dst, 0, (size_t)take);
            break;
        case PAGE_PATTERN:
            pattern_page(page, tmp);
            memcpy(dst, (const uint8_t *)tmp + in, (size_t)take);
            break;
        default:
            /* An odd multiplier is a bijection modulo 2^k: no page repeats within 32 MiB. */
            memcpy(dst, im->pool + ((page * 0x9e3779b1ull) & (POOL_PAGES - 1)) * PAGE + in,
                   (size_t)take);
            break;
        }
        dst += take;
        off += take;
        n -= take;
    }
}

/* ============================================================================================ */
/* Measurement helpers                                                                          */
/* ============================================================================================ */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double mb(uint64_t bytes)
{
    return (double)bytes / 1e6;
}

/* Files this run created, removed on every exit path (including ^C). */
#define MAX_FILES 8
static char created[MAX_FILES][4096];
static volatile sig_atomic_t ncreated;

static int nfiles(void)
{
    int n = ncreated;
    return n < MAX_FILES ? n : MAX_FILES;
}

static const char *track(const char *dir, const char *name)
{
    int i = nfiles();

    if (i == MAX_FILES) {
        fprintf(stderr, "%s: internal error: too many files\n", prog);
        exit(70);
    }
    snprintf(created[i], sizeof(created[i]), "%s/gpucore-bench-%ld-%s", dir, (long)getpid(), name);
    ncreated = i + 1;
    return created[i];
}

/* Also called from the signal handler: only unlink(), which is async-signal-safe. */
static void remove_all(void)
{
    for (int i = 0; i < nfiles(); i++)
        unlink(created[i]);
}

static void on_signal(int sig)
{
    remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", prog, what, detail && *detail ? ": " : "",
            detail ? detail : "");
    remove_all();
    exit(1);
}

static void die_status(const char *what, gpucore_status_t st, const char *detail)
{
    char msg[512];

    snprintf(msg, sizeof(msg), "%s%s%s", gpucore_strerror(st), detail && *detail ? ": " : "",
             detail ? detail : "");
    die(what, msg);
}

#define MAX_REPEAT 9

/* Median of n timings (n <= MAX_REPEAT): robust against one run hit by writeback or a
 * neighbour on the machine. */
static double median(const double *t, int n)
{
    double v[MAX_REPEAT];

    memcpy(v, t, (size_t)n * sizeof(*v));
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One way of writing the image. `level` 0 with `core` set is the plain gpucore writer. */
struct row {
    const char *name;
    const char *file; /* file name suffix; NULL: nothing written (the generator alone) */
    int core;         /* written through libcore (else write()) */
    int level;
    uint32_t threads;
    const char *read_name; /* non-NULL: the last round's file is kept and read back */
    const char *path;
    double seconds; /* of the current run */
    double t[MAX_REPEAT];
    uint64_t disk;     /* st_blocks * 512 */
    uint64_t apparent; /* st_size */
    int has_file;
};

static void stat_file(const char *path, struct row *r)
{
    struct stat st;

    if (stat(path, &st) != 0)
        die(path, strerror(errno));
    r->disk = (uint64_t)st.st_blocks * 512;
    r->apparent = (uint64_t)st.st_size;
    r->has_file = 1;
}

/* ============================================================================================ */
/* Writers                                                                                      */
/* ============================================================================================ */

static void measure_generator(const struct image *im, uint8_t *buf, struct row *r)
{
    double t0 = now();
    volatile uint8_t sink = 0;

    for (uint64_t off = 0; off < im->size; off += CHUNK) {
        uint64_t n = im->size - off < CHUNK ? im->size - off : CHUNK;
        fill(im, off, buf, n);
        sink ^= buf[n - 1]; /* keep the work observable */
    }
    (void)sink;
    r->seconds = now() - t0;
}

static void write_baseline(const struct image *im, const char *path, uint8_t *buf, struct row *r)
{
    double t0 = now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    if (fd < 0)
        die(path, strerror(errno));
    for (uint64_t off = 0; off < im->size; off += CHUNK) {
        uint64_t n = im->size - off < CHUNK ? im->size - off : CHUNK;

        fill(im, off, buf, n);
        for (uint64_t done = 0; done < n;) {
            ssize_t w = write(fd, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                die(path, w < 0 ? strerror(errno) : "short write");
            done += (uint64_t)w;
        }
    }
    if (fsync(fd) != 0 || close(fd) != 0)
        die(path, strerror(errno));
    r->seconds = now() - t0;
    stat_file(path, r);
}

struct pull {
    const struct image *im;
    const struct segment *seg;
};

static int64_t pull_segment(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                            uint64_t *ret_bad_size)
{
    const struct pull *p = user;

    (void)ret_errno;
    (void)ret_bad_size;
    fill(p->im, p->seg->image_off + (addr - p->seg->vaddr), buf, size);
    return (int64_t)size;
}

static void write_core(const struct image *im, const char *path, int level, uint32_t threads,
                       uint32_t frame_size, struct row *r)
{
    struct gpucore_writer_opts o = {
        .sz = sizeof(o),
        .flags = GPUCORE_WRITE_OVERWRITE,
        .compress = level != 0,
        .compress_level = level,
        .threads = threads,
        .frame_size = frame_size,
    };
    struct gpucore_range_info info = { .sz = sizeof(info), .tier = GPUCORE_TIER_ALL };
    gpucore_diag_t diag = { 0 };
    gpucore_writer_t *w = NULL;
    gpucore_status_t st;
    double t0 = now();

    st = gpucore_writer_open(path, &o, &w, &diag);
    if (st != GPUCORE_OK)
        die_status(path, st, diag.message);
    for (uint32_t i = 0; i < im->nsegs; i++) {
        struct pull p = { im, &im->segs[i] };

        st = gpucore_writer_add_segment_fn(w, im->segs[i].vaddr, im->segs[i].size, &info,
                                           pull_segment, &p);
        if (st != GPUCORE_OK) {
            char msg[512];
            snprintf(msg, sizeof(msg), "%s", gpucore_writer_errmsg(w));
            gpucore_writer_abort(w);
            die_status(path, st, msg);
        }
    }
    st = gpucore_writer_finish(w, NULL, &diag);
    if (st != GPUCORE_OK)
        die_status(path, st, diag.message);
    r->seconds = now() - t0;
    stat_file(path, r);
}

/* ============================================================================================ */
/* Readers                                                                                      */
/* ============================================================================================ */

struct read_result {
    const char *name;
    const char *path;
    double seq_seconds;
    double rnd_seconds;
    double seq_t[MAX_REPEAT];
    double rnd_t[MAX_REPEAT];
    uint32_t verified;
};

static void evict(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    /* Best effort: clean pages of a file just fsynced can be dropped from the page cache. */
    if (fd >= 0) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* A page of the image chosen uniformly, as (segment, offset in it). */
static void pick_page(const struct image *im, uint64_t *rng, uint32_t *ret_seg, uint64_t *ret_off)
{
    uint64_t off = (splitmix64(rng) % im->pages) * PAGE;
    uint32_t lo = 0, hi = im->nsegs - 1;

    while (lo < hi) { /* last segment whose image_off <= off */
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (im->segs[mid].image_off <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    *ret_seg = lo;
    *ret_off = off - im->segs[lo].image_off;
}

static void read_core(const struct image *im, const char *path, int cold, int verify, uint8_t *buf,
                      uint8_t *want, struct read_result *res)
{
    gpucore_diag_t diag = { 0 };
    gpucore_core_t *core = NULL;
    gpucore_status_t st;
    uint64_t rng = SEED ^ 0x5eed;
    double t0;

    if (cold)
        evict(path);

    /* Sequential: open, then every segment front to back, as a full `gpucore decompress`
     * or a checksum of the dump would. */
    t0 = now();
    st = gpucore_core_open(path, NULL, &core, &diag);
    if (st != GPUCORE_OK)
        die_status(path, st, diag.message);
    for (uint32_t i = 0; i < im->nsegs; i++) {
        const struct segment *s = &im->segs[i];
        for (uint64_t off = 0; off < s->size; off += CHUNK) {
            uint64_t n = s->size - off < CHUNK ? s->size - off : CHUNK;
            st = gpucore_core_read(core, s->vaddr + off, buf, n, NULL);
            if (st != GPUCORE_OK)
                die_status(path, st, gpucore_core_errmsg(core));
        }
    }
    res->seq_seconds = now() - t0;
    gpucore_core_close(core);

    if (cold)
        evict(path);

    /* Random: 4 KiB pages anywhere, as an analyzer chasing pointers does. */
    st = gpucore_core_open(path, NULL, &core, &diag);
    if (st != GPUCORE_OK)
        die_status(path, st, diag.message);
    t0 = now();
    for (uint32_t i = 0; i < RANDOM_READS; i++) {
        uint32_t seg;
        uint64_t off;

        pick_page(im, &rng, &seg, &off);
        st = gpucore_core_read(core, im->segs[seg].vaddr + off, buf, PAGE, NULL);
        if (st != GPUCORE_OK)
            die_status(path, st, gpucore_core_errmsg(core));
    }
    res->rnd_seconds = now() - t0;
    if (!verify) {
        gpucore_core_close(core);
        return;
    }

    /* Untimed: what comes back is what went in -- random pages plus both ends of every
     * segment (zero pages come back from holes, so they are checked too). */
    res->verified = 0;
    for (uint32_t i = 0; i < VERIFY_READS + 2 * im->nsegs; i++) {
        uint32_t seg;
        uint64_t off;

        if (i < VERIFY_READS) {
            pick_page(im, &rng, &seg, &off);
        } else {
            seg = (i - VERIFY_READS) / 2;
            off = (i - VERIFY_READS) % 2 ? im->segs[seg].size - PAGE : 0;
        }
        st = gpucore_core_read(core, im->segs[seg].vaddr + off, buf, PAGE, NULL);
        if (st != GPUCORE_OK)
            die_status(path, st, gpucore_core_errmsg(core));
        fill(im, im->segs[seg].image_off + off, want, PAGE);
        if (memcmp(buf, want, PAGE) != 0) {
            char msg[128];
            snprintf(msg, sizeof(msg), "data read back at 0x%" PRIx64 " differs from written",
                     im->segs[seg].vaddr + off);
            die(path, msg);
        }
        res->verified++;
    }
    gpucore_core_close(core);
}

/* ============================================================================================ */
/* Frame sizes (--frames)                                                                       */
/* ============================================================================================ */

/*
 * Random reads of a compressed core against its frame size. For each frame size the image is
 * written at zstd level 3 (timed: the compression cost), then the core is opened afresh for
 * each read size and FRAME_READS reads at uniformly random offsets of the image are timed one
 * by one (a read never crosses a segment end). A read decodes every frame it touches that the
 * reader's frame cache (gpucore_open_opts defaults: 8 frames, at most 64 MiB) does not hold, so
 * the latency follows the frame size; the peak of libcore's memory budget
 * (gpucore_core_mem_get) shows what the cache held. Untimed, every read is compared with the
 * generator.
 */
#define FRAME_READS 400u

static const uint32_t frame_sizes[] = { 64u << 10,  256u << 10, 512u << 10,
                                        1u << 20,   4u << 20,   16u << 20 };
static const uint32_t read_sizes[] = { 4u << 10, 64u << 10 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double peak_rss_mib(void);

struct lat {
    double median, p99, mean; /* microseconds per read */
    uint64_t cache_peak;      /* libcore's memory budget peak, bytes */
};

static void random_reads(const struct image *im, const char *path, uint32_t rsize, uint8_t *buf,
                         uint8_t *want, struct lat *ret)
{
    static double t[FRAME_READS];
    gpucore_diag_t diag = { 0 };
    gpucore_core_t *core = NULL;
    struct gpucore_core_mem m;
    uint64_t rng = SEED ^ rsize;
    double sum = 0;

    if (gpucore_core_open(path, NULL, &core, &diag) != GPUCORE_OK)
        die(path, diag.message);
    for (uint32_t i = 0; i < FRAME_READS; i++) {
        uint32_t seg;
        uint64_t off, n;
        double t0;

        pick_page(im, &rng, &seg, &off);
        n = im->segs[seg].size - off < rsize ? im->segs[seg].size - off : rsize;
        t0 = now();
        if (gpucore_core_read(core, im->segs[seg].vaddr + off, buf, n, NULL) != GPUCORE_OK)
            die(path, gpucore_core_errmsg(core));
        t[i] = (now() - t0) * 1e6;
        sum += t[i];
        fill(im, im->segs[seg].image_off + off, want, n);
        if (memcmp(buf, want, (size_t)n) != 0)
            die(path, "data read back differs from what was written");
    }
    gpucore_core_mem_get(core, &m);
    gpucore_core_close(core);
    qsort(t, FRAME_READS, sizeof(t[0]), cmp_double);
    ret->median = t[FRAME_READS / 2];
    ret->p99 = t[FRAME_READS * 99 / 100];
    ret->mean = sum / FRAME_READS;
    ret->cache_peak = m.peak;
}

static int64_t pull_zeros(void *user, uint64_t addr, void *buf, uint64_t size, int *ret_errno,
                          uint64_t *ret_bad_size)
{
    (void)user, (void)addr, (void)ret_errno, (void)ret_bad_size;
    memset(buf, 0, (size_t)size);
    return (int64_t)size;
}

/* Bytes on disk of a compressed core holding one 1 GiB segment of zeros (never-written memory
   with --tier all): what each all-zero frame and its seek-table entry cost. */
static uint64_t zero_gib_cost(const char *path, uint32_t frame_size)
{
    struct gpucore_writer_opts o = { .sz = sizeof(o), .flags = GPUCORE_WRITE_OVERWRITE,
                                     .compress = 1, .compress_level = 3,
                                     .frame_size = frame_size };
    struct gpucore_range_info info = { .sz = sizeof(info), .tier = GPUCORE_TIER_ALL };
    gpucore_diag_t diag = { 0 };
    gpucore_writer_t *w = NULL;
    struct row r = { 0 };

    if (gpucore_writer_open(path, &o, &w, &diag) != GPUCORE_OK)
        die(path, diag.message);
    if (gpucore_writer_add_segment_fn(w, BASE_VADDR, 1ull << 30, &info, pull_zeros, NULL) !=
        GPUCORE_OK) {
        gpucore_writer_abort(w);
        die(path, "cannot write the zero segment");
    }
    if (gpucore_writer_finish(w, NULL, &diag) != GPUCORE_OK)
        die(path, diag.message);
    stat_file(path, &r);
    unlink(path);
    return r.apparent;
}

static void frames_mode(const struct image *im, uint64_t size, const char *dir, int repeat,
                        uint8_t *buf)
{
    enum { NF = sizeof(frame_sizes) / sizeof(frame_sizes[0]),
           NR = sizeof(read_sizes) / sizeof(read_sizes[0]) };
    static struct row w[NF];
    static struct lat lat[NF][NR][MAX_REPEAT];
    uint64_t zeros[NF];
    uint8_t *want = malloc(64u << 10);
    const char *path = track(dir, "frames.core");

    if (!want)
        die("setup", "out of memory");
    /* rounds over all frame sizes, as the main table does */
    for (int rep = 0; rep < repeat; rep++) {
        for (size_t f = 0; f < NF; f++) {
            write_core(im, path, 3, 0, frame_sizes[f], &w[f]);
            w[f].t[rep] = w[f].seconds;
            for (size_t r = 0; r < NR; r++)
                random_reads(im, path, read_sizes[r], buf, want, &lat[f][r][rep]);
            unlink(path);
        }
    }
    for (size_t f = 0; f < NF; f++)
        zeros[f] = zero_gib_cost(path, frame_sizes[f]);
    remove_all();
    printf("zstd -3, %u random reads per read size on a freshly opened core (frame cache: 8 "
           "frames, 64 MiB);\nlatency in microseconds per read (median of the rounds' "
           "medians, p99s, means); write = compression\ntime of the whole image; cache = peak of "
           "libcore's memory budget while reading (MB); zeros = bytes on\ndisk of 1 GiB of zeros; "
           "reach = the largest image 2^20 frames (the format's limit) hold\n\n",
           FRAME_READS);
    printf("%-6s %8s %9s %7s %8s %7s | %-6s %7s %7s %7s %6s | %-6s %7s %7s %7s %6s\n", "frame",
           "write s", "disk MB", "ratio", "zeros KB", "reach", "4 KiB", "median", "p99", "mean",
           "cache", "64 KiB", "median", "p99", "mean", "cache");
    for (size_t f = 0; f < NF; f++) {
        char name[16];

        if (frame_sizes[f] >= (1u << 20))
            snprintf(name, sizeof(name), "%uM", frame_sizes[f] >> 20);
        else
            snprintf(name, sizeof(name), "%uK", frame_sizes[f] >> 10);
        printf("%-6s %8.2f %9.1f %7.2f %8.1f %4" PRIu64 "GiB", name, median(w[f].t, repeat),
               mb(w[f].disk), (double)size / (double)w[f].disk, (double)zeros[f] / 1e3,
               ((uint64_t)frame_sizes[f] << 20) >> 30);
        for (size_t r = 0; r < NR; r++) {
            double med[MAX_REPEAT], p99[MAX_REPEAT], mean[MAX_REPEAT];
            uint64_t peak = 0;

            for (int k = 0; k < repeat; k++) {
                med[k] = lat[f][r][k].median;
                p99[k] = lat[f][r][k].p99;
                mean[k] = lat[f][r][k].mean;
                if (lat[f][r][k].cache_peak > peak)
                    peak = lat[f][r][k].cache_peak;
            }
            printf(" | %-6s %7.0f %7.0f %7.0f %6.1f", "", median(med, repeat),
                   median(p99, repeat), median(mean, repeat), mb(peak));
        }
        printf("\n");
    }
    printf("\nverified every read against the generator; peak RSS %.1f MiB\n", peak_rss_mib());
    free(want);
}

/* ============================================================================================ */
/* Main                                                                                         */
/* ============================================================================================ */

static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v;
    uint64_t mult = 1;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return 0;
    if (*end == 'K' || *end == 'k')
        mult = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mult = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mult = 1ull << 30;
    else if (*end != '\0')
        return 0;
    if (*end && end[1] != '\0' && strcmp(end + 1, "iB") != 0)
        return 0;
    if (v > UINT64_MAX / mult)
        return 0;
    return (uint64_t)v * mult;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [--size BYTES] [--dir DIR] [--repeat N] [--cold | --frames]\n"
            "  --size BYTES  image size, suffix K/M/G (binary); default 1G, minimum 16M\n"
            "  --repeat N    rounds of every measurement, the median is shown; default 3\n"
            "  --dir DIR     where to write the files; default $TMPDIR or /tmp\n"
            "  --cold        drop each core from the page cache before reading it back\n"
            "  --frames      instead: random-read latency, ratio and compression time of\n"
            "                zstd -3 cores against the frame size (64K .. 16M)\n",
            prog);
}

static double peak_rss_mib(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

static void print_write_row(const struct row *r, uint64_t input, int repeat)
{
    double sec = median(r->t, repeat);

    printf("%-30s %8.2f %9.1f", r->name, sec, mb(input) / sec);
    if (r->has_file)
        printf(" %12.1f %12.1f %7.2f\n", mb(r->disk), mb(r->apparent),
               r->disk ? (double)input / (double)r->disk : 0.0);
    else
        printf(" %12s %12s %7s\n", "-", "-", "-");
}

int main(int argc, char **argv)
{
    uint64_t size = 1ull << 30;
    const char *dir = getenv("TMPDIR");
    int cold = 0, repeat = 3, frames = 0;
    struct image im;
    uint8_t *buf, *want;

    if (!dir || !*dir)
        dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            size = parse_size(argv[++i]);
            if (size < (16u << 20)) {
                fprintf(stderr, "%s: invalid --size '%s' (at least 16M)\n", prog, argv[i]);
                return 64;
            }
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1 || v > MAX_REPEAT) {
                fprintf(stderr, "%s: invalid --repeat '%s' (1..%d)\n", prog, argv[i], MAX_REPEAT);
                return 64;
            }
            repeat = (int)v;
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--cold") == 0) {
            cold = 1;
        } else if (strcmp(argv[i], "--frames") == 0) {
            frames = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", prog, argv[i]);
            usage(stderr);
            return 64;
        }
    }
    size -= size % PAGE;

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    buf = malloc(CHUNK);
    want = malloc(PAGE);
    if (!buf || !want || build_image(&im, size) < 0)
        die("setup", "out of memory");

    printf("%s %s: %.1f MiB in %u segments; pages %.1f %% zero, %.1f %% patterned, "
           "%.1f %% random\ndirectory %s; times are the median of %d round(s); MB = 10^6 bytes; "
           "MB/s = input bytes / wall seconds;\nratio = input / bytes on disk\n\n",
           prog, GPUCORE_VERSION_STRING, (double)size / (1 << 20), im.nsegs,
           100.0 * (double)im.class_pages[PAGE_ZERO] / (double)im.pages,
           100.0 * (double)im.class_pages[PAGE_PATTERN] / (double)im.pages,
           100.0 * (double)im.class_pages[PAGE_RANDOM] / (double)im.pages, dir, repeat);
    fflush(stdout);

    if (frames) {
        frames_mode(&im, size, dir, repeat, buf);
        free_image(&im);
        free(buf);
        free(want);
        return 0;
    }

    struct row rows[] = {
        { .name = "generate only (no I/O)" },
        { .name = "write()+fsync, dense", .file = "baseline.bin" },
        { .name = "gpucore plain (sparse)", .file = "plain.core", .core = 1, .read_name = "plain" },
        { .name = "gpucore zstd -1", .file = "zstd1.core", .core = 1, .level = 1 },
        { .name = "gpucore zstd -3",
          .file = "zstd3.core",
          .core = 1,
          .level = 3,
          .read_name = "zstd -3" },
        { .name = "gpucore zstd -9", .file = "zstd9.core", .core = 1, .level = 9 },
        { .name = "gpucore zstd -3, 2 threads",
          .file = "zstd3t2.core",
          .core = 1,
          .level = 3,
          .threads = 2 },
    };
    const size_t nrows = sizeof(rows) / sizeof(rows[0]);

    for (size_t i = 0; i < nrows; i++)
        if (rows[i].file)
            rows[i].path = track(dir, rows[i].file);
    /* Rounds, not one variant repeated back to back: slow phases of the machine (writeback
     * of the previous file, a busy neighbour) then spread over all variants. */
    for (int rep = 0; rep < repeat; rep++) {
        for (size_t i = 0; i < nrows; i++) {
            struct row *r = &rows[i];

            if (!r->file)
                measure_generator(&im, buf, r);
            else if (!r->core)
                write_baseline(&im, r->path, buf, r);
            else
                write_core(&im, r->path, r->level, r->threads, 0, r);
            r->t[rep] = r->seconds;
            /* The read-back needs the plain and the level-3 core of the last round only. */
            if (r->file && (!r->read_name || rep + 1 < repeat))
                unlink(r->path);
        }
    }
    double rss_after_writes = peak_rss_mib();

    printf("%-30s %8s %9s %12s %12s %7s\n", "write", "seconds", "MB/s", "on disk MB", "apparent MB",
           "ratio");
    for (size_t i = 0; i < nrows; i++)
        print_write_row(&rows[i], size, repeat);
    fflush(stdout);

    struct read_result rr[2];
    int nread = 0;
    for (size_t i = 0; i < nrows && nread < 2; i++)
        if (rows[i].read_name)
            rr[nread++] = (struct read_result){ .name = rows[i].read_name, .path = rows[i].path };
    for (int rep = 0; rep < repeat; rep++) {
        for (int k = 0; k < nread; k++) {
            /* Only the last round checks the data: verification is not what is timed. */
            read_core(&im, rr[k].path, cold, rep + 1 == repeat, buf, want, &rr[k]);
            rr[k].seq_t[rep] = rr[k].seq_seconds;
            rr[k].rnd_t[rep] = rr[k].rnd_seconds;
        }
    }
    remove_all();

    printf("\n%-30s %8s %9s %12s\n", cold ? "read-back (cache dropped)" : "read-back (warm cache)",
           "seconds", "MB/s", "reads/s");
    for (int k = 0; k < nread; k++) {
        double seq = median(rr[k].seq_t, repeat), rnd = median(rr[k].rnd_t, repeat);
        char name[64];

        snprintf(name, sizeof(name), "%s: open + sequential", rr[k].name);
        printf("%-30s %8.2f %9.1f %12s\n", name, seq, mb(size) / seq, "-");
        snprintf(name, sizeof(name), "%s: %u random 4 KiB", rr[k].name, RANDOM_READS);
        printf("%-30s %8.2f %9.1f %12.0f\n", name, rnd, mb((uint64_t)RANDOM_READS * PAGE) / rnd,
               RANDOM_READS / rnd);
    }
    printf("\nverified %u + %u pages read back against the generator\n", rr[0].verified,
           rr[1].verified);
    printf("peak RSS: %.1f MiB after the writes, %.1f MiB at the end (the reader's mmap of the "
           "plain core counts pages it touched)\n",
           rss_after_writes, peak_rss_mib());

    free_image(&im);
    free(buf);
    free(want);
    return 0;
}
