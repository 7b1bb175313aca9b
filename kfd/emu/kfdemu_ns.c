/* SPDX-License-Identifier: MIT */
/*
 * gpucore-kfdemu, the command's side (kfdemu.h): a private mount namespace whose /dev and /sys
 * present the emulated driver, the seccomp filter that sends the device files' calls to the
 * emulator, and the exec. docs/kfd-emulator.md, "How, and why this way".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kfdemu.h"

/* ------------------------------------------------------------------------------------------ */
/* The command's side: namespace, files, filter, exec                                          */
/* ------------------------------------------------------------------------------------------ */

static void die_child(const char *what, const char *path)
{
    fprintf(stderr, PROG ": %s%s%s: %s\n", what, path ? " " : "", path ? path : "",
            strerror(errno));
    _exit(EXIT_OSERR);
}

static void xmount(const char *src, const char *dst, const char *type, unsigned long flags,
                   const char *data)
{
    if (mount(src, dst, type, flags, data) != 0)
        die_child("cannot mount on", dst);
}

static void mkdirs(const char *path, mode_t mode)
{
    char buf[4096];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        errno = ENAMETOOLONG;
        die_child("cannot create", path);
    }
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST)
                die_child("cannot create", buf);
            *s = '/';
        }
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
        die_child("cannot create", buf);
}

static void write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);

    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0)
        die_child("cannot write", path);
}

static void path_in(char *buf, size_t cap, const char *root, const char *rel)
{
    if (snprintf(buf, cap, "%s%s", root, rel) >= (int)cap) {
        errno = ENAMETOOLONG;
        die_child("path too long:", rel);
    }
}

/* Bind the host's file or directory @p host onto @p dst (created as the same kind). */
static void bind_host(const char *host, const char *dst)
{
    struct stat st;

    if (stat(host, &st) != 0)
        return; /* the host has none: the command will not have it either */
    if (S_ISDIR(st.st_mode)) {
        mkdirs(dst, 0755);
    } else {
        int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            die_child("cannot create", dst);
        close(fd);
    }
    xmount(host, dst, NULL, MS_BIND | MS_REC, NULL);
}

/* A device file: a sparse regular file of FILE_LIMIT bytes, opened for the emulator. */
static int device_file(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

    if (fd < 0 || fchmod(fd, 0666) != 0 || ftruncate(fd, (off_t)FILE_LIMIT) != 0)
        die_child("cannot create", path);
    return fd;
}

static void build_dev(const char *root, const struct options *o, int *fds)
{
    static const char *const nodes[] = { "null", "zero", "full", "random", "urandom", "tty",
                                         NULL };
    static const char *const links[][2] = { { "fd", "/proc/self/fd" },
        { "stdin", "/proc/self/fd/0" }, { "stdout", "/proc/self/fd/1" },
        { "stderr", "/proc/self/fd/2" }, { "ptmx", "pts/ptmx" } };
    char dev[4096], p[4096], host[64];

    path_in(dev, sizeof(dev), root, "/dev");
    mkdirs(dev, 0755);
    xmount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=1099511627776");
    for (size_t i = 0; nodes[i]; i++) {
        snprintf(host, sizeof(host), "/dev/%s", nodes[i]);
        path_in(p, sizeof(p), dev, host + 4);
        bind_host(host, p);
    }
    path_in(p, sizeof(p), dev, "/pts");
    bind_host("/dev/pts", p);
    path_in(p, sizeof(p), dev, "/shm");
    mkdirs(p, 01777);
    xmount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        snprintf(host, sizeof(host), "/%s", links[i][0]);
        path_in(p, sizeof(p), dev, host);
        if (symlink(links[i][1], p) != 0)
            die_child("cannot create", p);
    }
    path_in(p, sizeof(p), dev, "/kfd");
    fds[0] = device_file(p);
    path_in(p, sizeof(p), dev, "/dri");
    mkdirs(p, 0755);
    for (size_t i = 0; i < o->ndevs; i++) {
        snprintf(host, sizeof(host), "/dri/renderD%u", o->devs[i].render_minor);
        path_in(p, sizeof(p), dev, host);
        fds[1 + i] = device_file(p);
    }
}

static void build_sys(const char *root, const struct options *o)
{
    char sys[4096], p[4096];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int dirfd;

    path_in(sys, sizeof(sys), root, "/sys");
    mkdirs(sys, 0755);
    xmount("tmpfs", sys, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755");
    path_in(p, sizeof(p), sys, "/devices/system");
    bind_host("/sys/devices/system", p);
    path_in(p, sizeof(p), sys, "/module/amdgpu");
    mkdirs(p, 0755);
    path_in(p, sizeof(p), sys, "/module/amdgpu/initstate");
    write_text(p, "live\n");
    path_in(p, sizeof(p), sys, "/devices/virtual/kfd/kfd/topology");
    mkdirs(p, 0755);
    dirfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0 || gc_emu_topology_write(dirfd, o->devs, o->ndevs,
                                           (uint32_t)(cores > 0 ? cores : 1)) != GPUCORE_OK)
        die_child("cannot write the topology in", p);
    close(dirfd);
    for (size_t i = 0; i < o->ndevs; i++) { /* what libdrm reads to name a DRM node */
        char rel[128];

        snprintf(rel, sizeof(rel), "/dev/char/226:%u/device/drm/card%zu",
                 o->devs[i].render_minor, i);
        path_in(p, sizeof(p), sys, rel);
        mkdirs(p, 0755);
        snprintf(rel, sizeof(rel), "/dev/char/226:%u/device/drm/renderD%u",
                 o->devs[i].render_minor, o->devs[i].render_minor);
        path_in(p, sizeof(p), sys, rel);
        mkdirs(p, 0755);
    }
    path_in(p, sizeof(p), sys, "/class/kfd");
    mkdirs(p, 0755);
    path_in(p, sizeof(p), sys, "/class/kfd/kfd");
    if (symlink("../../devices/virtual/kfd/kfd", p) != 0)
        die_child("cannot create", p);
    /* read-only, as sysfs is to its readers */
    xmount(NULL, sys, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
           NULL);
}

static int install_filter(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fstat, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_statx, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof(code) / sizeof(code[0])), code };

    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &prog);
}

static int send_fds(int sock, const int *fds, size_t n)
{
    char byte = 'F';
    struct iovec iov = { &byte, 1 };
    char cbuf[CMSG_SPACE(sizeof(int) * (GC_EMU_MAX_DEVICES + 2))];
    struct msghdr msg = { 0 };
    struct cmsghdr *cm;

    memset(cbuf, 0, sizeof(cbuf));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
    cm = CMSG_FIRSTHDR(&msg);
    if (!cm)
        return -1;
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
    memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
    return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

void gc_kfdemu_run_command(const struct options *o, int sock)
{
    int fds[GC_EMU_MAX_DEVICES + 2];
    char cwd[4096], stage[4096], root[4096], p[4096], ack;
    const char *newroot = "";

    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "/");
    /* the overlay's staging directory: only its name is left on the host's file system while
       the command runs (the tmpfs over it is this namespace's) */
    snprintf(stage, sizeof(stage), "%s/gpucore-kfdemu.XXXXXX", P_tmpdir);
    if (unshare(CLONE_NEWNS) != 0)
        die_child("cannot make a mount namespace", NULL);
    xmount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    if (o->root) {
        if (!mkdtemp(stage))
            die_child("cannot create", stage);
        xmount("tmpfs", stage, "tmpfs", 0, "mode=700");
        path_in(p, sizeof(p), stage, "/upper");
        mkdirs(p, 0755);
        path_in(p, sizeof(p), stage, "/work");
        mkdirs(p, 0755);
        path_in(root, sizeof(root), stage, "/root");
        mkdirs(root, 0755);
        if (snprintf(p, sizeof(p), "lowerdir=%s,upperdir=%s/upper,workdir=%s/work", o->root,
                     stage, stage) >= (int)sizeof(p)) {
            errno = ENAMETOOLONG;
            die_child("cannot mount", o->root);
        }
        xmount("overlay", root, "overlay", 0, p);
        newroot = root;
        path_in(p, sizeof(p), root, "/proc");
        bind_host("/proc", p);
        path_in(p, sizeof(p), root, "/tmp");
        mkdirs(p, 01777);
        xmount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
        for (size_t i = 0; i < o->nbinds; i++) {
            path_in(p, sizeof(p), root, o->bind_at[i] ? o->bind_at[i] : o->binds[i]);
            bind_host(o->binds[i], p);
        }
    }
    build_dev(newroot, o, fds);
    build_sys(newroot, o);
    if (o->root) {
        if (chroot(newroot) != 0)
            die_child("cannot chroot to", newroot);
        if (chdir(cwd) != 0 && chdir("/") != 0)
            die_child("cannot chdir to", "/");
        rmdir(stage); /* the host's empty directory; the mount lives on in this namespace */
    }
    /* without its emulator the command would run with no driver behind /dev/kfd: if the
       emulator dies, so does the command (its descendants see their ioctls fail, ENOSYS) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
        _exit(EXIT_OSERR);
    fds[1 + o->ndevs] = install_filter();
    if (fds[1 + o->ndevs] < 0) {
        fprintf(stderr, PROG ": seccomp user notification unavailable: %s\n", strerror(errno));
        _exit(EXIT_UNAVAILABLE);
    }
    if (send_fds(sock, fds, o->ndevs + 2) != 0 || read(sock, &ack, 1) != 1)
        _exit(EXIT_OSERR);
    for (size_t i = 0; i < o->ndevs + 2; i++)
        close(fds[i]);
    close(sock);
    execvp(o->argv[0], o->argv);
    fprintf(stderr, PROG ": %s: %s\n", o->argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

