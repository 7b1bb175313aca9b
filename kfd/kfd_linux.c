/* SPDX-License-Identifier: MIT */
/*
 * The linux backend: /dev/kfd and its ioctls, nothing more. It moves the kernel's argument
 * structs in and out and reports -errno; kfd.c decides what every result means. The ioctl entry
 * point is injectable so unit tests can play the driver without a GPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>


#include "gc_util.h"
#include "kfd_internal.h"
#include "procmaps.h"

#define DEFAULT_DEVICE "/dev/kfd"

struct linux_state {
    int fd;
    gc_kfd_ioctl_fn ioctl_fn;
    void *ioctl_user;
    char *smaps_path; /* test hook (gc_kfd_open_opts::smaps_path), NULL = /proc/PID/smaps */
};

static int sys_ioctl(void *user, int fd, unsigned long request, void *arg)
{
    (void)user;
    return ioctl(fd, request, arg);
}

static gpucore_status_t linux_open(struct gc_kfd *k, const struct gc_kfd_open_opts *o,
                                   gpucore_diag_t *diag)
{
    const char *path = o->device_path ? o->device_path : DEFAULT_DEVICE;
    struct linux_state *s;
    int fd, err;

    /* O_RDWR: the debug ioctls are refused on a read-only open of /dev/kfd. */
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        if (err == ENOENT)
            return gc_diag_set(diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                               "no AMD GPU kernel driver: %s not found", path);
        if (err == EACCES || err == EPERM)
            return gc_diag_set(diag, GPUCORE_E_PERM, GC_NO_OFFSET,
                               "cannot open %s: permission denied (is the user in the render "
                               "group?)",
                               path);
        if (err == ENXIO || err == ENODEV)
            return gc_diag_set(diag, GPUCORE_E_NODEV, GC_NO_OFFSET,
                               "no AMD GPU kernel driver behind %s: %s", path, strerror(err));
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "cannot open %s: %s", path,
                           strerror(err));
    }
    s = gc_calloc_array(1, sizeof(*s));
    if (!s) {
        close(fd);
        return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
    }
    if (o->smaps_path) {
        s->smaps_path = gc_strdup(o->smaps_path);
        if (!s->smaps_path) {
            close(fd);
            gc_free(s);
            return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
        }
    }
    s->fd = fd;
    s->ioctl_fn = o->ioctl_fn ? o->ioctl_fn : sys_ioctl;
    s->ioctl_user = o->ioctl_user;
    k->backend = s;
    return GPUCORE_OK;
}

/* One ioctl: >= 0 as the driver returned it, or -errno. EINTR is retried (nothing happened). */
static int call(struct gc_kfd *k, unsigned long request, void *arg)
{
    struct linux_state *s = k->backend;
    int rc;

    do {
        errno = 0;
        rc = s->ioctl_fn(s->ioctl_user, s->fd, request, arg);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return errno ? -errno : -EIO; /* never report a failure as success */
    return rc;
}

static int linux_get_version(struct gc_kfd *k, struct kfd_ioctl_get_version_args *args)
{
    int rc = call(k, AMDKFD_IOC_GET_VERSION, args);

    return rc < 0 ? rc : 0;
}

static int linux_dbg_trap(struct gc_kfd *k, struct kfd_ioctl_dbg_trap_args *args)
{
    return call(k, AMDKFD_IOC_DBG_TRAP, args);
}

static int linux_read_memory(struct gc_kfd *k, uint64_t addr, void *buf, size_t size,
                             size_t *ret_done)
{
    return gc_kfd_read_process_memory(k, addr, buf, size, ret_done);
}

/* Which mappings of the target are the GPU's: the device files the runtime maps. */
struct gpu_file {
    const char *path;
    int prefix; /* 1: path is a prefix ("/dev/dri/renderD128") */
    uint32_t kind, flags;
};

static const struct gpu_file gpu_files[] = {
    { "/dev/dri/renderD", 1, GC_KFD_MEM_UNKNOWN, 0 },           /* VRAM and GTT BOs */
    { "/dev/kfd", 0, GC_KFD_MEM_DOORBELL, GC_KFD_MAP_NO_READ }, /* doorbells, MMIO */
};

static const struct gpu_file *gpu_file_of(const char *path)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(gpu_files); i++) {
        size_t n = strlen(gpu_files[i].path);

        if (strncmp(path, gpu_files[i].path, n) == 0 &&
            (gpu_files[i].prefix ? path[n] >= '0' && path[n] <= '9' : path[n] == '\0'))
            return &gpu_files[i];
    }
    return NULL;
}

static gpucore_status_t linux_gpu_mappings(struct gc_kfd *k, struct gc_kfd_mapping **ret_maps,
                                           uint32_t *ret_count, gpucore_diag_t *diag)
{
    struct linux_state *s = k->backend;
    struct gc_procmaps pm;
    struct gc_kfd_mapping *out = NULL;
    uint32_t n = 0;
    gpucore_status_t st;

    st = gc_procmaps_read(k->pid, s->smaps_path, &pm, diag);
    if (st != GPUCORE_OK) {
        /* This call's contract: the target is gone, out of memory, or it could not be read. */
        if (st != GPUCORE_E_NOTFOUND && st != GPUCORE_E_NOMEM) {
            st = GPUCORE_E_IO;
            if (diag)
                diag->status = st; /* the parser's message stays */
        }
        return st;
    }
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < pm.count; i++) {
            const struct gc_procmap *m = &pm.maps[i];
            const struct gpu_file *g = gpu_file_of(m->path);

            if (!g)
                continue;
            if (pass == 1) {
                struct gc_kfd_mapping *o = &out[n];

                o->base = m->start;
                o->size = m->end - m->start;
                o->kind = g->kind;
                o->gpu_id = 0;
                o->flags = g->flags;
                snprintf(o->label, sizeof(o->label), "%s", m->path);
            }
            n++;
        }
        if (pass == 0) {
            if (n == 0)
                break;
            out = gc_calloc_array(n, sizeof(*out));
            if (!out) {
                gc_procmaps_free(&pm);
                return gc_diag_set(diag, GPUCORE_E_NOMEM, GC_NO_OFFSET, "out of memory");
            }
            n = 0;
        }
    }
    gc_procmaps_free(&pm);
    /* smaps lists mappings sorted and disjoint, so the result is too. */
    *ret_maps = out;
    *ret_count = n;
    return GPUCORE_OK;
}

static void linux_close(struct gc_kfd *k)
{
    struct linux_state *s = k->backend;

    if (!s)
        return;
    close(s->fd);
    gc_free(s->smaps_path);
    gc_free(s);
    k->backend = NULL;
}

const struct gc_kfd_backend_ops gc_kfd_linux_ops = {
    .name = "linux",
    .open = linux_open,
    .get_version = linux_get_version,
    .dbg_trap = linux_dbg_trap,
    .read_memory = linux_read_memory,
    .gpu_mappings = linux_gpu_mappings,
    .close = linux_close,
};
