/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of libgpucore-hook.so (hook.c): reading its environment and building the
 * command line of the capture helper. No allocation, no I/O except access(2) in the PATH
 * search: everything lands in caller-provided fixed buffers, so the hook needs no heap inside
 * an arbitrary (possibly failing) process. Unit-tested by tests/hook/test_hook_args.c.
 *
 * The helper's command line:
 *
 *     BIN capture [GPUCORE_OPTIONS words...] [-o GPUCORE_OUTPUT] --trigger TRIGGER
 *         [--error-thread TID] --hook-timeout SECONDS [--hook-ready-fd FD] PID
 *
 * GPUCORE_OPTIONS is split on blanks (space, tab, newline), without any shell quoting:
 * a word cannot contain a blank. GPUCORE_OUTPUT is one argument, passed verbatim (spaces
 * included); unset or empty means no -o, so the helper writes what `gpucore capture` writes
 * by default (gpucore.%p in the program's current directory). The options come before -o and
 * --trigger, so those two win over the same options in GPUCORE_OPTIONS.
 */
#ifndef GC_HOOK_ARGS_H
#define GC_HOOK_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Most words GPUCORE_OPTIONS may hold, and most bytes; beyond either the hook refuses to run
   the helper (one line) rather than drop options silently. */
#define GC_HOOK_MAX_OPTION_WORDS 32u
#define GC_HOOK_MAX_OPTIONS_LEN  2048u
/* Room the argv vector needs: BIN capture words... -o OUT --trigger T --error-thread TID
   --hook-timeout S --hook-ready-fd FD PID NULL. */
#define GC_HOOK_ARGV_MAX (GC_HOOK_MAX_OPTION_WORDS + 14u)
/* The descriptor number the helper finds the hook's "ready" pipe on (see hook.c). */
#define GC_HOOK_READY_FD 3
/* Longest --trigger value. */
#define GC_HOOK_TRIGGER_MAX 96u

/* GPUCORE_HOOK_TIMEOUT: whole seconds, 1..GC_HOOK_TIMEOUT_MAX_S; default GC_HOOK_TIMEOUT_S. */
#define GC_HOOK_TIMEOUT_S     120u
#define GC_HOOK_TIMEOUT_MAX_S 86400u

/* Storage of one helper command line: argv points into buf. */
struct gc_hook_cmd {
    char buf[GC_HOOK_MAX_OPTIONS_LEN + 4096u + 256u];
    char *argv[GC_HOOK_ARGV_MAX];
    unsigned argc;
};

enum gc_hook_args_status {
    GC_HOOK_ARGS_OK = 0,
    GC_HOOK_ARGS_TOO_MANY_WORDS = -1, /* GPUCORE_OPTIONS has more than the maximum words */
    GC_HOOK_ARGS_TOO_LONG = -2,       /* an input does not fit its buffer */
};

/*
 * Build the helper's command line into @p cmd from @p bin (the program to run), @p options
 * (GPUCORE_OPTIONS, NULL = none), @p output (GPUCORE_OUTPUT, NULL or "" = none), @p trigger
 * (gc_hook_format_*), @p error_tid (the thread the runtime reported the error on, the
 * hook's caller: --error-thread; 0 or less = not passed), @p timeout_s (GPUCORE_HOOK_TIMEOUT:
 * the helper ends itself past it, since this process, stopped by the capture, cannot),
 * @p ready_fd (the helper's descriptor of the pipe the hook writes to once its thread is out
 * of posix_spawn: --hook-ready-fd; negative = not passed) and @p pid. Returns a
 * gc_hook_args_status; on failure @p cmd is unspecified.
 */
int gc_hook_build_cmd(struct gc_hook_cmd *cmd, const char *bin, const char *options,
                      const char *output, const char *trigger, pid_t error_tid, long timeout_s,
                      int ready_fd, pid_t pid);

/* The --trigger value of a GPU memory fault: "memory-violation@0xVA/0xREASONS" (REASONS: the
   runtime's fault_reason_mask). */
void gc_hook_format_memory_fault(char *out, size_t cap, uint64_t va, uint32_t reasons);
/* The --trigger value of a queue error with the runtime's status: "queue-error:0xSTATUS". */
void gc_hook_format_queue_error(char *out, size_t cap, int32_t status);

/*
 * The program to run: @p bin_env (GPUCORE_BIN) if set and non-empty, used as is; otherwise
 * "gpucore" looked up in @p path_env (PATH; NULL or "" = not found), the first directory whose
 * entry is executable (access X_OK). Empty PATH components mean the current directory, as
 * execvp treats them. Writes the path into @p out; 0, or -1 if not found or too long.
 */
int gc_hook_find_program(const char *bin_env, const char *path_env, char *out, size_t cap);

/* GPUCORE_HOOK_TIMEOUT into seconds: NULL or "" gives the default; a value that is not a
   whole number in 1..GC_HOOK_TIMEOUT_MAX_S gives -1 (the hook then says so and uses the
   default). */
long gc_hook_parse_timeout(const char *text);

#endif /* GC_HOOK_ARGS_H */
