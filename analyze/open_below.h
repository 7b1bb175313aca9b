/* SPDX-License-Identifier: MIT */
/*
 * Opening a file a core names, below a directory the user chose (--code-object-path,
 * --sysroot), as if that directory were the root: the only way analyze opens a host file
 * because a core mentions it. Internal to analyze. No printing.
 */
#ifndef GC_ANALYZE_OPEN_BELOW_H
#define GC_ANALYZE_OPEN_BELOW_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Open @p path (absolute or not: it is resolved below @p dir either way, with openat2
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, so neither ".." nor a symbolic link leaves @p dir)
 * for reading, a regular file only: the inode is resolved O_PATH first, so a FIFO or a device
 * is never opened, nor a file of a kernel file system (proc, sysfs, debugfs, ...: their
 * "regular" files are interfaces, and reading /proc/kmsg consumes the kernel log); then it is
 * reopened O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and checked to be the same inode.
 * @p option names the option that gave @p dir, for messages.
 * @return the fd (the caller closes it), with *@p st filled; or -1 with @p why saying why in
 *         one phrase ("not found below --sysroot /srv/root (No such file or directory)").
 */
int gc_open_below(const char *dir, const char *option, const char *path, struct stat *st,
                  char *why, size_t why_size);

#endif
