/* SPDX-License-Identifier: MIT */
/*
 * check_core_bytes CORE PID: every GPU range a capture wrote, and every read-only host range,
 * holds exactly the bytes the (still running) process has there.
 *
 * The ranges come from the core's manifest (GPUCORE_NT_MANIFEST): each CAPTURED entry of a GPU
 * tier (state, scratch, referenced, all), and each CAPTURED host entry whose segment is not
 * writable (program text, read-only data, the vDSO). Writable host memory (stacks, heap) is
 * left out on purpose: the process has run on since the capture. The core's bytes are read
 * with gpucore_core_read, the process's with process_vm_readv. Also checks the notes a capture must carry: exactly one
 * AMDGPU note (which decodes), one capture-meta note naming PID, one manifest.
 *
 * Prints "ok: N ranges, M bytes" and exits 0; prints the first difference and exits 1; exits 2
 * on usage or setup errors; 77 if the process cannot be read (no ptrace rights).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#define CHUNK (1u << 20)

/* The p_flags of the segment holding @p addr, or 0xffffffff if none does. */
static uint32_t segment_flags(gpucore_core_t *core, uint64_t addr)
{
    struct gpucore_segment s;

    for (uint32_t i = 0; i < gpucore_core_segment_count(core); i++)
        if (gpucore_core_segment(core, i, &s) == GPUCORE_OK && addr >= s.vaddr &&
            addr - s.vaddr < s.memsz)
            return s.flags;
    return 0xffffffffu;
}

static int count_notes(gpucore_core_t *core, const char *owner, uint32_t type,
                       struct gpucore_note *ret)
{
    uint32_t idx = 0;
    int n = 0;
    struct gpucore_note note;

    while (gpucore_core_find_note(core, owner, type, &idx, &note) == GPUCORE_OK) {
        if (n++ == 0 && ret)
            *ret = note;
        idx++;
    }
    return n;
}

/* Compare [addr, addr + size) of the core and of process @p pid. 0 equal, 1 differs, 77/2. */
static int compare_range(gpucore_core_t *core, pid_t pid, uint64_t addr, uint64_t size,
                         uint8_t *a, uint8_t *b)
{
    while (size) {
        uint64_t n = size < CHUNK ? size : CHUNK;
        struct iovec local = { b, (size_t)n }, remote = { (void *)(uintptr_t)addr, (size_t)n };
        gpucore_status_t st = gpucore_core_read(core, addr, a, n, NULL);
        ssize_t got;

        if (st != GPUCORE_OK) {
            fprintf(stderr, "check_core_bytes: core: 0x%" PRIx64 "+0x%" PRIx64
                    " is listed as captured but reads %s\n", addr, n, gpucore_strerror(st));
            return 1;
        }
        got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (got < 0 && (errno == EPERM || errno == EACCES))
            return 77;
        if (got != (ssize_t)n) {
            fprintf(stderr, "check_core_bytes: process %ld: 0x%" PRIx64 "+0x%" PRIx64
                    " is not readable (%s)\n", (long)pid, addr, n,
                    got < 0 ? strerror(errno) : "short read");
            return 1;
        }
        if (memcmp(a, b, (size_t)n) != 0) {
            uint64_t i = 0;

            while (a[i] == b[i])
                i++;
            fprintf(stderr, "check_core_bytes: 0x%" PRIx64 ": core has 0x%02x, process has "
                    "0x%02x\n", addr + i, a[i], b[i]);
            return 1;
        }
        addr += n;
        size -= n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    gpucore_core_t *core = NULL;
    gpucore_diag_t d = { 0 };
    struct gpucore_note note;
    gpucore_manifest_t *m = NULL;
    gpucore_amdgpu_note_t *amd = NULL;
    gpucore_capture_meta_t *meta = NULL;
    uint8_t *a = NULL, *b = NULL;
    uint64_t bytes = 0;
    uint32_t ranges = 0, host_ranges = 0;
    pid_t pid;
    int rc = 2;

    if (argc != 3) {
        fprintf(stderr, "usage: check_core_bytes CORE PID\n");
        return 2;
    }
    pid = (pid_t)strtol(argv[2], NULL, 10);
    if (gpucore_core_open(argv[1], NULL, &core, &d) != GPUCORE_OK) {
        fprintf(stderr, "check_core_bytes: %s: %s\n", argv[1], d.message);
        return 1;
    }
    if (count_notes(core, GPUCORE_AMDGPU_NOTE_OWNER, GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &note) != 1 ||
        gpucore_amdgpu_note_decode(note.desc, note.desc_size, &amd, &d) != GPUCORE_OK) {
        fprintf(stderr, "check_core_bytes: %s: expected exactly one decodable AMDGPU note\n",
                argv[1]);
        rc = 1;
        goto out;
    }
    if (count_notes(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &note) != 1 ||
        gpucore_capture_meta_decode(note.desc, note.desc_size, &meta, &d) != GPUCORE_OK ||
        meta->pid != (uint32_t)pid || strcmp(meta->producer.ptr, "gpucore") != 0) {
        fprintf(stderr, "check_core_bytes: %s: expected one capture-meta note for pid %ld "
                "produced by gpucore\n", argv[1], (long)pid);
        rc = 1;
        goto out;
    }
    if (count_notes(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_MANIFEST, &note) != 1 ||
        gpucore_manifest_decode(note.desc, note.desc_size, &m, &d) != GPUCORE_OK) {
        fprintf(stderr, "check_core_bytes: %s: expected one decodable manifest\n", argv[1]);
        rc = 1;
        goto out;
    }
    a = malloc(CHUNK);
    b = malloc(CHUNK);
    if (!a || !b)
        goto out;
    for (uint32_t i = 0; i < m->count; i++) {
        const gpucore_manifest_entry_t *e = &m->entries[i];

        if (e->status != GPUCORE_RANGE_CAPTURED)
            continue;
        if (e->tier == GPUCORE_TIER_HOST) {
            uint32_t flags = segment_flags(core, e->address);

            if (flags == 0xffffffffu) {
                fprintf(stderr, "check_core_bytes: host range 0x%" PRIx64 " (\"%s\") is listed "
                        "as captured but no segment holds it\n", e->address, e->label.ptr);
                rc = 1;
                goto out;
            }
            if (flags & 2u /* PF_W */)
                continue;
            host_ranges++;
        } else if (e->tier > GPUCORE_TIER_ALL) {
            continue;
        }
        rc = compare_range(core, pid, e->address, e->size, a, b);
        if (rc) {
            if (rc == 1)
                fprintf(stderr, "check_core_bytes: in range 0x%" PRIx64 "+0x%" PRIx64
                        " (%s tier, \"%s\")\n", e->address, e->size,
                        gpucore_tier_name(e->tier), e->label.ptr);
            goto out;
        }
        ranges++;
        bytes += e->size;
    }
    if (ranges == 0) {
        fprintf(stderr, "check_core_bytes: %s: no GPU range was captured\n", argv[1]);
        rc = 1;
        goto out;
    }
    if (host_ranges == 0) {
        fprintf(stderr, "check_core_bytes: %s: no read-only host range was captured\n", argv[1]);
        rc = 1;
        goto out;
    }
    printf("ok: %u ranges (%u read-only host), %" PRIu64 " bytes, %u agents, %u queues\n",
           ranges, host_ranges, bytes, amd->agent_count, amd->queue_count);
    rc = 0;
out:
    free(a);
    free(b);
    gpucore_manifest_free(m);
    gpucore_capture_meta_free(meta);
    gpucore_amdgpu_note_free(amd);
    gpucore_core_close(core);
    return rc;
}
