/* SPDX-License-Identifier: MIT */
/* The fault plan (emu_faults.h). */
#include "emu_faults.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const action_names[] = {
    [GC_EMU_COMPLETE] = "complete",
    [GC_EMU_MEMORY_VIOLATION] = "memory_violation",
    [GC_EMU_ILLEGAL_INSTRUCTION] = "illegal_instruction",
    [GC_EMU_TRAP] = "trap",
    [GC_EMU_HANG] = "hang",
};

const char *gc_emu_action_name(enum gc_emu_action a)
{
    return (unsigned)a < sizeof(action_names) / sizeof(action_names[0]) ? action_names[a] : "?";
}

static gpucore_status_t fail(char *err, size_t errlen, const char *name, uint32_t i,
                             const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static gpucore_status_t fail(char *err, size_t errlen, const char *name, uint32_t i,
                             const char *key, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: faults[%u]%s%s: %s", name, i, key ? "." : "", key ? key : "",
             what);
    return GPUCORE_E_INVAL;
}

/* A number given as a JSON integer or as a string (decimal or 0x hex). */
static int get_u64(json_t *v, uint64_t *ret)
{
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return -1;
        *ret = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;

        if (!*s || *s == '-')
            return -1;
        errno = 0;
        *ret = strtoull(s, &end, 0);
        return errno || *end ? -1 : 0;
    }
    return -1;
}

static gpucore_status_t parse_rule(json_t *o, uint32_t i, const char *name,
                                   struct gc_emu_rule *r, char *err, size_t errlen)
{
    static const char *const keys[] = { "kernel", "dispatch", "action", "address", "access",
                                        "trap_id", NULL };
    const char *key;
    json_t *v;
    uint64_t n;

    if (!json_is_object(o))
        return fail(err, errlen, name, i, NULL, "not an object");
    json_object_foreach(o, key, v) {
        size_t k = 0;

        while (keys[k] && strcmp(keys[k], key))
            k++;
        if (!keys[k])
            return fail(err, errlen, name, i, key, "unknown key");
    }
    memset(r, 0, sizeof(*r));
    v = json_object_get(o, "kernel");
    if (!json_is_string(v) || !json_string_length(v) ||
        json_string_length(v) >= sizeof(r->kernel))
        return fail(err, errlen, name, i, "kernel", "a pattern of 1 to %zu characters",
                    sizeof(r->kernel) - 1);
    memcpy(r->kernel, json_string_value(v), json_string_length(v) + 1);
    v = json_object_get(o, "action");
    if (!json_is_string(v))
        return fail(err, errlen, name, i, "action", "missing (one of complete, "
                    "memory_violation, illegal_instruction, trap, hang)");
    for (r->action = GC_EMU_COMPLETE; r->action <= GC_EMU_HANG; r->action++)
        if (!strcmp(action_names[r->action], json_string_value(v)))
            break;
    if (r->action > GC_EMU_HANG)
        return fail(err, errlen, name, i, "action", "unknown action '%s'", json_string_value(v));
    if ((v = json_object_get(o, "dispatch"))) {
        if (get_u64(v, &n) || n > UINT32_MAX)
            return fail(err, errlen, name, i, "dispatch", "a count from 1 (0: every dispatch)");
        r->dispatch = (uint32_t)n;
    }
    r->trap_id = 2;
    if ((v = json_object_get(o, "trap_id"))) {
        if (r->action != GC_EMU_TRAP || get_u64(v, &n) || n < 1 || n > 255)
            return fail(err, errlen, name, i, "trap_id", "1 to 255, for the trap action only");
        r->trap_id = (uint32_t)n;
    }
    r->write = 1;
    if ((v = json_object_get(o, "access"))) {
        if (r->action != GC_EMU_MEMORY_VIOLATION || !json_is_string(v) ||
            (strcmp(json_string_value(v), "read") && strcmp(json_string_value(v), "write")))
            return fail(err, errlen, name, i, "access", "\"read\" or \"write\", for "
                        "memory_violation only");
        r->write = !strcmp(json_string_value(v), "write");
    }
    r->add = 1ull << 32; /* default: 4 GiB past the first argument */
    if ((v = json_object_get(o, "address"))) {
        json_t *a;

        if (r->action != GC_EMU_MEMORY_VIOLATION || !json_is_object(v))
            return fail(err, errlen, name, i, "address", "an object, for memory_violation only");
        json_object_foreach(v, key, a) {
            if (strcmp(key, "argument_offset") && strcmp(key, "add") && strcmp(key, "absolute"))
                return fail(err, errlen, name, i, "address", "unknown key '%s'", key);
        }
        if ((a = json_object_get(v, "absolute"))) {
            if (get_u64(a, &r->absolute) || json_object_size(v) != 1)
                return fail(err, errlen, name, i, "address.absolute",
                            "an address, alone in the object");
            r->use_absolute = 1;
        }
        if ((a = json_object_get(v, "argument_offset"))) {
            if (get_u64(a, &n) || n % 8 || n > 4096 - 8)
                return fail(err, errlen, name, i, "address.argument_offset",
                            "a multiple of 8 below 4096 (a pointer argument's offset)");
            r->argument_offset = (uint32_t)n;
        }
        if ((a = json_object_get(v, "add")) && get_u64(a, &r->add))
            return fail(err, errlen, name, i, "address.add", "a byte count");
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_emu_plan_parse(const char *text, size_t len, const char *name,
                                   struct gc_emu_plan *plan, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *faults, *o;
    gpucore_status_t st = GPUCORE_OK;
    size_t i;

    memset(plan, 0, sizeof(*plan));
    if (!root) {
        snprintf(err, errlen, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
        return GPUCORE_E_INVAL;
    }
    faults = json_object_get(root, "faults");
    if (!json_is_object(root) || json_object_size(root) != 1 || !json_is_array(faults)) {
        snprintf(err, errlen, "%s: expected {\"faults\": [...]}", name);
        json_decref(root);
        return GPUCORE_E_INVAL;
    }
    if (json_array_size(faults) > GC_EMU_PLAN_MAX_RULES) {
        snprintf(err, errlen, "%s: %zu rules, at most %d", name, json_array_size(faults),
                 GC_EMU_PLAN_MAX_RULES);
        json_decref(root);
        return GPUCORE_E_LIMIT;
    }
    json_array_foreach(faults, i, o) {
        st = parse_rule(o, (uint32_t)i, name, &plan->rules[i], err, errlen);
        if (st != GPUCORE_OK)
            break;
        plan->nrules++;
    }
    json_decref(root);
    return st;
}

gpucore_status_t gc_emu_plan_load(const char *path, struct gc_emu_plan *plan, char *err,
                                  size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;
    ssize_t n;
    gpucore_status_t st;

    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return GPUCORE_E_IO;
    }
    buf = malloc(GC_EMU_PLAN_MAX_BYTES + 1);
    if (!buf) {
        close(fd);
        return GPUCORE_E_NOMEM;
    }
    n = read(fd, buf, GC_EMU_PLAN_MAX_BYTES + 1);
    close(fd);
    if (n < 0 || n > GC_EMU_PLAN_MAX_BYTES) {
        snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(errno) : "larger than 1 MiB");
        free(buf);
        return GPUCORE_E_IO;
    }
    st = gc_emu_plan_parse(buf, (size_t)n, path, plan, err, errlen);
    free(buf);
    return st;
}

const struct gc_emu_rule *gc_emu_plan_decide(struct gc_emu_plan *plan, const char *kernel)
{
    for (uint32_t i = 0; i < plan->nrules; i++) {
        struct gc_emu_rule *r = &plan->rules[i];
        int match = kernel && *kernel ? fnmatch(r->kernel, kernel, 0) == 0
                                      : !strcmp(r->kernel, "*");

        if (!match)
            continue;
        r->seen++;
        if (r->dispatch && r->seen != r->dispatch)
            continue;
        return r->action == GC_EMU_COMPLETE ? NULL : r;
    }
    return NULL;
}
