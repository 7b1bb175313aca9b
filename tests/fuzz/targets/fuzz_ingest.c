/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the stream reader of `gpucore ingest` (capture/ingest.c): the whole stream is
 * hostile (ELF header, program header table, notes, the AMDGPU note that decides what is kept,
 * segment data, where it ends).
 *
 * Input: u8 mode (bit 0: the GPU half, else a host core; bit 1: keep everything, else tier
 * state; bits 2-4, k: a size limit of 4 KiB << (k - 1) when k is not 0, else the default),
 * then the stream, read from a memory file. Segments up to 256 bytes count as small
 * (kept whole in tier state, up to 1 KiB of them in all), so seeds of a few KiB reach the
 * partial keeping of larger ones and the small segments past the total.
 *
 * Invariants (abort() on violation): the call succeeds or fails with a documented status and
 * a message; it never reads more than the stream holds; on success the file published opens
 * with gpucore_core_open() (not merely with ALLOW_TRUNCATED) as a split core for a GPU half
 * and a unified one otherwise, holds every byte it says it kept, and a GPU half holds the
 * AMDGPU note; it is never larger than the size limit, and a core the limit cut is marked
 * truncated for the budget; on failure nothing is published. Warnings (a save area kept
 * whole) are single non-empty lines, at most GC_INGEST_MAX_WARNINGS of them, as many as the
 * result counts up to that; the unused save-area bytes dropped are among the bytes skipped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpucore/core.h>

#include "ingest.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *out_path; /* fuzz_scratch_file() */
static uint32_t warnings;

static void on_warn(void *user, const char *msg)
{
    (void)user;
    CHECK(msg && msg[0] != '\0' && !strchr(msg, '\n'));
    warnings++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_ingest_result res = { 0 };
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    gpucore_diag_t d;
    gpucore_status_t st;
    uint64_t limit = 0;
    uint8_t mode;
    int fd;

    if (size < 1)
        return 0;
    out_path = fuzz_scratch_file("fuzz_ingest");
    warnings = 0;
    mode = data[0];
    if ((mode >> 2) & 7u)
        limit = (uint64_t)GPUCORE_WRITER_MIN_BUDGET << (((mode >> 2) & 7u) - 1);
    fd = memfd_create("fuzz_ingest", MFD_CLOEXEC);
    CHECK(fd >= 0);
    CHECK(write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    unlink(out_path);
    st = gc_ingest_stream(fd, out_path,
                          &(struct gc_ingest_opts){ .expect_gpu = mode & 1u,
                                                    .keep_all = (mode >> 1) & 1u,
                                                    .small_max = 256,
                                                    .small_total_max = 1024,
                                                    .max_head = 1u << 20,
                                                    .max_bytes = limit,
                                                    .warn = on_warn },
                          &res, &d);
    close(fd);
    CHECK(res.bytes_read <= size - 1);
    CHECK(warnings <= GC_INGEST_MAX_WARNINGS);
    if (st != GPUCORE_OK) {
        CHECK(st == GPUCORE_E_CORRUPT || st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_LIMIT ||
              st == GPUCORE_E_NOMEM || st == GPUCORE_E_INVAL || st == GPUCORE_E_IO);
        CHECK(d.message[0] != '\0');
        CHECK(access(out_path, F_OK) != 0);
        return 0;
    }
    st = gpucore_core_open(out_path, NULL, &core, &d);
    if (st != GPUCORE_OK) {
        fprintf(stderr, "fuzz_ingest: the core published does not open: %s\n", d.message);
        abort();
    }
    CHECK(gpucore_core_get_info(core, &info) == GPUCORE_OK);
    CHECK(info.kind == ((mode & 1u) ? GPUCORE_CORE_SPLIT : GPUCORE_CORE_UNIFIED));
    CHECK(info.load_bytes == res.bytes_kept);
    CHECK(warnings ==
          (res.warnings < GC_INGEST_MAX_WARNINGS ? res.warnings : GC_INGEST_MAX_WARNINGS));
    CHECK(res.save_area_bytes_dropped <= res.bytes_skipped);
    CHECK(res.small_bytes_kept <= 1024 && res.small_bytes_kept <= res.bytes_kept);
    CHECK(!(mode & 2u) || res.small_segments_over == 0);
    CHECK(res.max_bytes == (limit ? limit
                            : (mode & 1u) ? GC_INGEST_GPU_SIZE_MAX
                                          : GC_INGEST_HOST_SIZE_MAX));
    {
        struct stat sb;

        CHECK(stat(out_path, &sb) == 0 && (uint64_t)sb.st_size <= res.max_bytes);
    }
    if (res.size_limited) {
        struct gpucore_note n;
        gpucore_manifest_t *m = NULL;
        uint32_t i = 0;

        CHECK(gpucore_core_find_note(core, "GPUCORE", GPUCORE_NT_MANIFEST, &i, &n) ==
              GPUCORE_OK);
        CHECK(gpucore_manifest_decode(n.desc, n.desc_size, &m, NULL) == GPUCORE_OK);
        CHECK((m->flags & GPUCORE_MANIFEST_TRUNCATED) &&
              m->truncation_reason == GPUCORE_REASON_BUDGET);
        gpucore_manifest_free(m);
    }
    if (mode & 1u) {
        struct gpucore_note n;
        uint32_t i = 0;

        CHECK(gpucore_core_find_note(core, "AMDGPU", 33, &i, &n) == GPUCORE_OK);
    }
    gpucore_core_close(core);
    unlink(out_path);
    return 0;
}
