/* SPDX-License-Identifier: MIT */
/*
 * gpucore-kfdemu's parts (kfd/emu/kfdemu_*.c): the options, and the command's side -- the
 * private mount namespace with the device files and the sysfs topology, the seccomp filter,
 * the exec -- which kfdemu_ns.c makes.
 */
#ifndef GC_KFDEMU_H
#define GC_KFDEMU_H

#include <stddef.h>

#include "emu_device.h"
#include "emu_faults.h"

#define PROG "gpucore-kfdemu"
#define EXIT_USAGE 64
#define EXIT_UNAVAILABLE 69
#define EXIT_OSERR 71
#define MAX_BINDS 32
#define FILE_LIMIT (1ull << 40) /* length of each device file: offsets the driver hands out */

struct options {
    const char *root;
    const char *binds[MAX_BINDS];  /* host path */
    const char *bind_at[MAX_BINDS]; /* where it appears inside the root (the same path if NULL) */
    size_t nbinds;
    struct gc_emu_device devs[GC_EMU_MAX_DEVICES];
    size_t ndevs;
    struct gc_emu_plan plan;
    char **argv;
};

/*
 * In the forked child: make the namespace, the device files (their descriptors, the seccomp
 * listener's last, go to the parent over @p sock), install the filter, wait for the parent's
 * go and exec the command. Never returns: exits EXIT_OSERR, EXIT_UNAVAILABLE, 126 or 127
 * with a message on stderr when something fails.
 */
void gc_kfdemu_run_command(const struct options *o, int sock) __attribute__((noreturn));

#endif
