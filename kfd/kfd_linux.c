/* SPDX-License-Identifier: MIT */
/*
 * The linux backend: /dev/kfd and its ioctls, nothing more. It moves the kernel's argument
 * structs in and out and reports -errno; kfd.c decides what every result means. The ioctl entry
 * point is injectable so unit tests can play the driver without a GPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gc_util.h"
#include "kfd_internal.h"

#define DEFAULT_DEVICE "/dev/kfd"

struct linux_state {
    int fd;
    gc_kfd_ioctl_fn ioctl_fn;
    void *ioctl_user;
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

static void linux_close(struct gc_kfd *k)
{
    struct linux_state *s = k->backend;

    if (!s)
        return;
    close(s->fd);
    gc_free(s);
    k->backend = NULL;
}

const struct gc_kfd_backend_ops gc_kfd_linux_ops = {
    .name = "linux",
    .open = linux_open,
    .get_version = linux_get_version,
    .dbg_trap = linux_dbg_trap,
    .read_memory = linux_read_memory,
    .close = linux_close,
};
