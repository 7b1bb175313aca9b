/* SPDX-License-Identifier: MIT */
/*
 * The store's configuration file, store.conf (store.h): where it is for the caller, reading it
 * (bounded, never through a symlink, never waiting on a FIFO), and its keys. One place for
 * every command that takes its defaults from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet.h"
#include "gc_util.h"
#include "store.h"
#include "store_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* The keys                                                                                    */
/* ---------------------------------------------------------------------------------------- */

enum conf_kind { CONF_SIZE, CONF_DURATION, CONF_COUNT, CONF_LIMIT, CONF_URI };

/* The keys: each sets one member of the configuration (at @p field), parsed as its kind. */
static const struct conf_key {
    const char *name;
    enum conf_kind kind;
    size_t field;
    const char *expected;
} conf_keys[] = {
    { "MaxUse", CONF_SIZE, offsetof(struct gc_store_conf, gc.max_use), "a size such as 10G" },
    { "KeepFree", CONF_SIZE, offsetof(struct gc_store_conf, gc.keep_free), "a size such as 1G" },
    { "MaxAge", CONF_DURATION, offsetof(struct gc_store_conf, gc.max_age_ns),
      "a duration such as 30d" },
    { "KeepPerSignature", CONF_COUNT, offsetof(struct gc_store_conf, gc.keep_per_signature),
      "a count such as 3" },
    { "HostSizeMax", CONF_LIMIT, offsetof(struct gc_store_conf, host_size_max),
      "a size of at least 4K such as 4G, or infinity" },
    { "GpuSizeMax", CONF_LIMIT, offsetof(struct gc_store_conf, gpu_size_max),
      "a size of at least 4K such as 4G, or infinity" },
    { "FleetIndex", CONF_URI, offsetof(struct gc_store_conf, fleet_index),
      "a PostgreSQL URI such as postgresql://db.example/fleet, without control characters" },
};
#define CONF_KEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static int conf_set(const struct conf_key *k, const char *value, struct gc_store_conf *c)
{
    char *field = (char *)c + k->field;
    uint64_t u;
    int64_t v;

    switch (k->kind) {
    case CONF_SIZE:
        if (gc_store_parse_size(value, &u) != 0)
            return -1;
        memcpy(field, &u, sizeof(u));
        return 0;
    case CONF_DURATION:
        if (gc_store_parse_duration(value, &v) != 0)
            return -1;
        memcpy(field, &v, sizeof(v));
        return 0;
    case CONF_COUNT:
        if (gc_store_parse_count(value, 1000000, &u) != 0)
            return -1;
        v = (int64_t)u;
        memcpy(field, &v, sizeof(v));
        return 0;
    case CONF_LIMIT:
        if (gc_store_parse_limit(value, &u) != 0)
            return -1;
        memcpy(field, &u, sizeof(u));
        return 0;
    case CONF_URI:
        if (!gc_fleet_uri_ok(value) || strlen(value) > GC_STORE_FLEET_URI_MAX)
            return -1;
        memcpy(field, value, strlen(value) + 1);
        return 0;
    }
    return -1;
}

/* "unknown key (expected A, B or C)": the keys of the table, in @p buf. */
static const char *known_keys(char *buf, size_t size)
{
    size_t n = 0;

    for (size_t i = 0; i < CONF_KEYS && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s",
                              i == 0               ? ""
                              : i + 1 == CONF_KEYS ? " or "
                                                   : ", ",
                              conf_keys[i].name);
    return buf;
}

static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        *--end = '\0';
    return s;
}

gpucore_status_t gc_store_conf_parse_all(const char *text, size_t len, const char *name,
                                         struct gc_store_conf *c, gpucore_diag_t *reterr_diag)
{
    struct gc_store_conf out = *c;
    char line[GC_STORE_CONF_LINE_MAX + 1];
    size_t pos = 0;
    unsigned lineno = 0;

    if (len > GC_STORE_CONF_MAX_SIZE)
        return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0,
                           "%s: %zu bytes: a configuration file is at most %u", name, len,
                           GC_STORE_CONF_MAX_SIZE);
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char *l, *eq, *key, *value;
        size_t i;

        lineno++;
        if (n > GC_STORE_CONF_LINE_MAX)
            return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0,
                               "%s:%u: line longer than %u bytes", name, lineno,
                               GC_STORE_CONF_LINE_MAX);
        if (memchr(text + pos, '\0', n))
            return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0, "%s:%u: a NUL byte", name,
                               lineno);
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos += n + (nl ? 1 : 0);
        l = trim(line);
        if (!*l || *l == '#' || *l == ';' || strcmp(l, "[Store]") == 0)
            continue;
        eq = strchr(l, '=');
        if (!eq)
            return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0,
                               "%s:%u: expected Key=Value or [Store], got something else", name,
                               lineno);
        *eq = '\0';
        key = trim(l);
        value = trim(eq + 1);
        for (i = 0; i < CONF_KEYS; i++)
            if (strcmp(conf_keys[i].name, key) == 0)
                break;
        if (i == CONF_KEYS) {
            char keys[160];

            return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0,
                               "%s:%u: unknown key (expected %s)", name, lineno,
                               known_keys(keys, sizeof(keys)));
        }
        if (conf_set(&conf_keys[i], value, &out) != 0)
            return gc_diag_set(reterr_diag, GPUCORE_E_CORRUPT, 0, "%s:%u: %s= expects %s", name,
                               lineno, conf_keys[i].name, conf_keys[i].expected);
    }
    *c = out;
    return GPUCORE_OK;
}

gpucore_status_t gc_store_conf_parse(const char *text, size_t len, const char *name,
                                     struct gc_store_policy *p, gpucore_diag_t *reterr_diag)
{
    struct gc_store_conf c = { .gc = *p };
    gpucore_status_t st = gc_store_conf_parse_all(text, len, name, &c, reterr_diag);

    if (st == GPUCORE_OK)
        *p = c.gc;
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Where it is, and reading it                                                                 */
/* ---------------------------------------------------------------------------------------- */

int gc_store_conf_path(const char *option, char *buf, size_t size)
{
    const char *v;

    if (option)
        return snprintf(buf, size, "%s", option) < (int)size ? 0 : -1;
    if (geteuid() == 0)
        return snprintf(buf, size, "%s", GC_STORE_CONF_SYSTEM) < (int)size ? 0 : -1;
    if ((v = getenv("XDG_CONFIG_HOME")) && v[0] == '/')
        return snprintf(buf, size, "%s/gpucore/store.conf", v) < (int)size ? 0 : -1;
    if ((v = getenv("HOME")) && v[0] == '/')
        return snprintf(buf, size, "%s/.config/gpucore/store.conf", v) < (int)size ? 0 : -1;
    buf[0] = '\0';
    return 0;
}

/* Read what @p fd holds, at most GC_STORE_CONF_MAX_SIZE + 1 bytes (one more than the parser
   takes, so that a longer file is told apart). 0 with *ret_text (gc_free()) and *ret_len, or
   -1 with errno. */
static int read_bounded(int fd, char **ret_text, size_t *ret_len)
{
    size_t cap = GC_STORE_CONF_MAX_SIZE + 1, len = 0;
    char *text = gc_malloc(cap);
    ssize_t n;

    if (!text)
        return (errno = ENOMEM), -1;
    while (len < cap && (n = read(fd, text + len, cap - len)) != 0) {
        if (n < 0) {
            int e = errno;

            if (e == EINTR)
                continue;
            gc_free(text);
            return (errno = e), -1;
        }
        len += (size_t)n;
    }
    *ret_text = text;
    *ret_len = len;
    return 0;
}

gpucore_status_t gc_store_conf_load(const char *option, struct gc_store_conf *c, char *path,
                                    size_t path_size, gpucore_diag_t *reterr_diag)
{
    gpucore_status_t st;
    char *text = NULL;
    size_t len = 0;
    int fd, e;

    if (!path || !path_size)
        return gc_diag_set(reterr_diag, GPUCORE_E_INVAL, 0, "no buffer for the path");
    if (gc_store_conf_path(option, path, path_size) != 0) {
        path[0] = '\0';
        return gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, 0,
                           "the configuration file's path is too long");
    }
    if (!path[0])
        return GPUCORE_OK;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        if (e == ENOENT && !option) {
            path[0] = '\0'; /* no default file: no defaults */
            return GPUCORE_OK;
        }
        return gc_diag_set(reterr_diag,
                           e == EACCES || e == ELOOP ? GPUCORE_E_PERM : GPUCORE_E_NOTFOUND, 0,
                           "cannot open the configuration file: %s",
                           e == ELOOP ? "a symlink (refused)" : strerror(e));
    }
    if (read_bounded(fd, &text, &len) != 0) {
        e = errno;
        close(fd);
        return gc_diag_set(reterr_diag, e == ENOMEM ? GPUCORE_E_NOMEM : GPUCORE_E_IO, 0,
                           "cannot read: %s", strerror(e));
    }
    close(fd);
    st = gc_store_conf_parse_all(text, len, path, c, reterr_diag);
    gc_free(text);
    return st;
}
