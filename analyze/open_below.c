/* SPDX-License-Identifier: MIT */
/* Opening a file a core names below a directory the user chose (open_below.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "open_below.h"

#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570 /* fs/configfs/configfs_internal.h */
#endif

/* File systems whose "regular" files are the kernel's interfaces, not a program's bytes:
   opening or reading them can act (reading /proc/kmsg consumes the kernel log) or block. */
static const struct {
    unsigned long type;
    const char *name;
} kernel_fs[] = {
    { PROC_SUPER_MAGIC, "proc" },       { SYSFS_MAGIC, "sysfs" },
    { DEBUGFS_MAGIC, "debugfs" },       { TRACEFS_MAGIC, "tracefs" },
    { SECURITYFS_MAGIC, "securityfs" }, { SELINUX_MAGIC, "selinuxfs" },
    { SMACK_MAGIC, "smackfs" },         { CONFIGFS_MAGIC, "configfs" },
    { CGROUP_SUPER_MAGIC, "cgroup" },   { CGROUP2_SUPER_MAGIC, "cgroup2" },
    { BPF_FS_MAGIC, "bpf" },            { PSTOREFS_MAGIC, "pstore" },
    { EFIVARFS_MAGIC, "efivarfs" },     { BINFMTFS_MAGIC, "binfmt_misc" },
    { DEVPTS_SUPER_MAGIC, "devpts" },   { NSFS_MAGIC, "nsfs" },
};

/* The name of the kernel file system @p fd is on, or NULL. */
static const char *kernel_fs_of(int fd)
{
    struct statfs f;

    if (fstatfs(fd, &f) != 0)
        return "unknown"; /* cannot tell: refused */
    for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
        if ((unsigned long)f.f_type == kernel_fs[i].type)
            return kernel_fs[i].name;
    return NULL;
}

int gc_open_below(const char *dir, const char *option, const char *path, struct stat *st,
                  char *why, size_t why_size)
{
    struct open_how how = { .flags = O_PATH | O_CLOEXEC,
                            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
    struct stat a;
    char self[64];
    int dfd, pfd, fd;

    dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(why, why_size, "%s %.200s: %s", option, dir, strerror(errno));
        return -1;
    }
    pfd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
    close(dfd);
    if (pfd < 0) {
        snprintf(why, why_size, "not found below %s %.200s (%s)", option, dir, strerror(errno));
        return -1;
    }
    if (fstat(pfd, &a) != 0 || !S_ISREG(a.st_mode)) {
        snprintf(why, why_size, "below %s %.200s, not a regular file", option, dir);
        close(pfd);
        return -1;
    }
    {
        const char *fs = kernel_fs_of(pfd);

        if (fs) {
            snprintf(why, why_size, "below %s %.200s, a file of the kernel's %s file system, "
                                    "not a program's",
                     option, dir, fs);
            close(pfd);
            return -1;
        }
    }
    snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
    fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    close(pfd);
    if (fd < 0 || fstat(fd, st) != 0 || st->st_dev != a.st_dev || st->st_ino != a.st_ino) {
        snprintf(why, why_size, "below %s %.200s, cannot be opened (%s)", option, dir,
                 fd < 0 ? strerror(errno) : "it changed");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}
