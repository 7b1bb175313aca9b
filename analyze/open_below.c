/* SPDX-License-Identifier: MIT */
/* Opening a file a core names below a directory the user chose (open_below.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "open_below.h"

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
