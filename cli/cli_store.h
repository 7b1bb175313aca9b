/* SPDX-License-Identifier: MIT */
/*
 * What the capture commands share with the store's commands (cli/cmd_store.c): opening the
 * store as the program does, and the store's statuses as exit codes.
 */
#ifndef GPUCORE_CLI_STORE_H
#define GPUCORE_CLI_STORE_H

#include <gpucore/status.h>

struct gc_store;

/* Open (creating it) the store --store @p option names, else GPUCORE_STORE's, else the
   default (store.h, gc_store_locate()). 0 with *ret set, or an exit code after printing. */
int cli_store_open(const char *option, struct gc_store **ret);

/* Close @p s (NULL accepted), first warning once on stderr when its queries left out rows
   that name no file of the store (gc_store_rows_ignored()). */
void cli_store_close(struct gc_store *s);

/* Print the store's failure @p d as one line; its exit code: 77 permission, 65 a newer or
   damaged index, 66 not found, 74 I/O, 64 usage, 70 otherwise. */
int cli_store_fail(const gpucore_diag_t *d);

int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_store(int argc, char **argv);

#endif /* GPUCORE_CLI_STORE_H */
