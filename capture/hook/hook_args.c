/* SPDX-License-Identifier: MIT */
/* The helper's command line and the hook's environment (hook_args.h). libc only. */
#include "hook_args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Copy @p s (NUL included) to @p cmd's buffer at *used; NULL if it does not fit. */
static char *put(struct gc_hook_cmd *cmd, size_t *used, const char *s, size_t len)
{
    char *at;

    if (len >= sizeof(cmd->buf) - *used)
        return NULL;
    at = cmd->buf + *used;
    memcpy(at, s, len);
    at[len] = '\0';
    *used += len + 1;
    return at;
}

int gc_hook_build_cmd(struct gc_hook_cmd *cmd, const char *bin, const char *options,
                      const char *output, const char *trigger, pid_t error_tid, long timeout_s,
                      int ready_fd, pid_t pid)
{
    size_t used = 0;
    unsigned words = 0;
    char pidtext[24], timetext[24], tidtext[24], fdtext[24];
    const char *p;

    cmd->argc = 0;
    if (options && strlen(options) > GC_HOOK_MAX_OPTIONS_LEN)
        return GC_HOOK_ARGS_TOO_LONG;
    if (!(cmd->argv[cmd->argc++] = put(cmd, &used, bin, strlen(bin))))
        return GC_HOOK_ARGS_TOO_LONG;
    cmd->argv[cmd->argc++] = put(cmd, &used, "capture", 7);
    for (p = options; p && *p;) {
        const char *start;

        while (*p && is_blank(*p))
            p++;
        if (!*p)
            break;
        start = p;
        while (*p && !is_blank(*p))
            p++;
        if (++words > GC_HOOK_MAX_OPTION_WORDS)
            return GC_HOOK_ARGS_TOO_MANY_WORDS;
        if (!(cmd->argv[cmd->argc++] = put(cmd, &used, start, (size_t)(p - start))))
            return GC_HOOK_ARGS_TOO_LONG;
    }
    if (output && *output) {
        cmd->argv[cmd->argc++] = put(cmd, &used, "-o", 2);
        if (!(cmd->argv[cmd->argc++] = put(cmd, &used, output, strlen(output))))
            return GC_HOOK_ARGS_TOO_LONG;
    }
    cmd->argv[cmd->argc++] = put(cmd, &used, "--trigger", 9);
    if (!(cmd->argv[cmd->argc++] = put(cmd, &used, trigger, strlen(trigger))))
        return GC_HOOK_ARGS_TOO_LONG;
    if (error_tid > 0) {
        snprintf(tidtext, sizeof(tidtext), "%ld", (long)error_tid);
        cmd->argv[cmd->argc++] = put(cmd, &used, "--error-thread", 14);
        cmd->argv[cmd->argc++] = put(cmd, &used, tidtext, strlen(tidtext));
    }
    snprintf(timetext, sizeof(timetext), "%ld", timeout_s);
    cmd->argv[cmd->argc++] = put(cmd, &used, "--hook-timeout", 14);
    cmd->argv[cmd->argc++] = put(cmd, &used, timetext, strlen(timetext));
    if (ready_fd >= 0) {
        snprintf(fdtext, sizeof(fdtext), "%d", ready_fd);
        cmd->argv[cmd->argc++] = put(cmd, &used, "--hook-ready-fd", 15);
        cmd->argv[cmd->argc++] = put(cmd, &used, fdtext, strlen(fdtext));
    }
    snprintf(pidtext, sizeof(pidtext), "%ld", (long)pid);
    if (!(cmd->argv[cmd->argc++] = put(cmd, &used, pidtext, strlen(pidtext))))
        return GC_HOOK_ARGS_TOO_LONG;
    for (unsigned i = 0; i < cmd->argc; i++)
        if (!cmd->argv[i])
            return GC_HOOK_ARGS_TOO_LONG;
    cmd->argv[cmd->argc] = NULL;
    return GC_HOOK_ARGS_OK;
}

void gc_hook_format_memory_fault(char *out, size_t cap, uint64_t va, uint32_t reasons)
{
    snprintf(out, cap, "memory-violation@0x%" PRIx64 "/0x%" PRIx32, va, reasons);
}

void gc_hook_format_queue_error(char *out, size_t cap, int32_t status)
{
    snprintf(out, cap, "queue-error:0x%" PRIx32, (uint32_t)status);
}

int gc_hook_find_program(const char *bin_env, const char *path_env, char *out, size_t cap)
{
    static const char name[] = "gpucore";
    const char *p;

    if (bin_env && *bin_env) {
        if (strlen(bin_env) >= cap)
            return -1;
        memcpy(out, bin_env, strlen(bin_env) + 1);
        return 0;
    }
    for (p = path_env; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int n;

        /* An empty component is the current directory, as for execvp. */
        if (len == 0)
            n = snprintf(out, cap, "%s", name);
        else
            n = snprintf(out, cap, "%.*s/%s", (int)len, p, name);
        if (n > 0 && (size_t)n < cap && access(out, X_OK) == 0)
            return 0;
        if (!end)
            break;
        p = end + 1;
        if (!*p) { /* a trailing ':' is an empty component too */
            n = snprintf(out, cap, "%s", name);
            return n > 0 && (size_t)n < cap && access(out, X_OK) == 0 ? 0 : -1;
        }
    }
    return -1;
}

long gc_hook_parse_timeout(const char *text)
{
    unsigned long v = 0;

    if (!text || !*text)
        return (long)GC_HOOK_TIMEOUT_S;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10u + (unsigned long)(*p - '0');
        if (v > GC_HOOK_TIMEOUT_MAX_S)
            return -1;
    }
    return v == 0 ? -1 : (long)v;
}
