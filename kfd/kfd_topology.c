/* SPDX-License-Identifier: MIT */
/*
 * amdkfd's sysfs topology (kfd_topology.h): bounded reads, a line parser that names what it
 * expected, and a table of the properties kept.
 */
#include "kfd_topology.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The properties kept: the key, and where its value goes (with its width). */
struct prop_field {
    const char *key;
    size_t offset;
    size_t size; /* 4 or 8 */
};

static const struct prop_field prop_fields[] = {
    { "gfx_target_version", offsetof(struct gc_kfd_topology_node, gfx_target_version), 4 },
    { "capability", offsetof(struct gc_kfd_topology_node, capability), 8 },
    { "simd_count", offsetof(struct gc_kfd_topology_node, simd_count), 4 },
    { "num_xcc", offsetof(struct gc_kfd_topology_node, num_xcc), 4 },
};

/*
 * Read all of @p path into @p buf (NUL-terminated), at most GC_KFD_TOPOLOGY_FILE_MAX bytes.
 * OK; E_IO (cannot open or read); E_LIMIT (larger); E_CORRUPT (a NUL byte inside).
 */
static gpucore_status_t read_small(const char *path, char *buf, size_t *ret_len,
                                   gpucore_diag_t *diag)
{
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    if (fd < 0)
        return gc_diag_set(diag, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s", path, strerror(errno));
    for (;;) {
        ssize_t n = read(fd, buf + len, GC_KFD_TOPOLOGY_FILE_MAX + 1 - len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;

            close(fd);
            return gc_diag_set(diag, GPUCORE_E_IO, len, "%s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > GC_KFD_TOPOLOGY_FILE_MAX) {
            close(fd);
            return gc_diag_set(diag, GPUCORE_E_LIMIT, GC_NO_OFFSET,
                               "%s: larger than %u bytes, expected a few lines", path,
                               GC_KFD_TOPOLOGY_FILE_MAX);
        }
    }
    close(fd);
    buf[len] = '\0';
    GC_FAIL_IF(strlen(buf) != len, diag, GPUCORE_E_CORRUPT, strlen(buf),
               "%s: a NUL byte at offset %zu, expected text", path, strlen(buf));
    *ret_len = len;
    return GPUCORE_OK;
}

/* A decimal number of at most 20 digits up to UINT64_MAX, the whole of [s, end). */
static int parse_u64(const char *s, const char *end, uint64_t *ret)
{
    uint64_t v = 0;

    if (s == end)
        return -1;
    for (; s < end; s++) {
        unsigned d = (unsigned)(*s - '0');

        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *ret = v;
    return 0;
}

static void store_field(struct gc_kfd_topology_node *n, const struct prop_field *f, uint64_t v)
{
    unsigned char *at = (unsigned char *)n + f->offset;

    if (f->size == 8) {
        memcpy(at, &v, 8);
    } else {
        uint32_t w = (uint32_t)v;

        memcpy(at, &w, 4);
    }
}

/* One "KEY VALUE" line of @p path (line number @p lineno) into @p n. */
static gpucore_status_t parse_prop_line(const char *path, unsigned lineno, const char *line,
                                        const char *end, struct gc_kfd_topology_node *n,
                                        gpucore_diag_t *diag)
{
    const char *sp = memchr(line, ' ', (size_t)(end - line));
    uint64_t v;

    GC_FAIL_IF(!sp || sp == line, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "%s: line %u: expected \"KEY VALUE\"", path, lineno);
    for (const char *k = line; k < sp; k++)
        GC_FAIL_IF(!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_'), diag,
                   GPUCORE_E_CORRUPT, GC_NO_OFFSET, "%s: line %u: expected a key of a-z, 0-9 and _",
                   path, lineno);
    GC_FAIL_IF(parse_u64(sp + 1, end, &v) != 0, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
               "%s: line %u: expected a decimal number up to 2^64-1 after the key", path, lineno);
    for (size_t i = 0; i < GC_ARRAY_SIZE(prop_fields); i++) {
        const struct prop_field *f = &prop_fields[i];
        size_t klen = (size_t)(sp - line);

        if (strlen(f->key) == klen && memcmp(f->key, line, klen) == 0) {
            GC_FAIL_IF(f->size == 4 && v > UINT32_MAX, diag, GPUCORE_E_CORRUPT, GC_NO_OFFSET,
                       "%s: line %u: %s %llu: expected at most 2^32-1", path, lineno, f->key,
                       (unsigned long long)v);
            store_field(n, f, v);
        }
    }
    return GPUCORE_OK;
}

gpucore_status_t gc_kfd_topology_parse_properties(const char *path, const char *text, size_t len,
                                                  struct gc_kfd_topology_node *n,
                                                  gpucore_diag_t *diag)
{
    const char *p = text, *end = text + len;
    unsigned lineno = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;

        lineno++;
        if (eol > p)
            GC_TRY(parse_prop_line(path, lineno, p, eol, n, diag));
        p = nl ? nl + 1 : end;
    }
    return GPUCORE_OK;
}

/* The file NAME of node directory @p nodedir into @p buf (PATH_MAX), read. */
static gpucore_status_t read_node_file(const char *nodedir, const char *name, char *path, char *buf,
                                       size_t *len, gpucore_diag_t *diag)
{
    int w = snprintf(path, PATH_MAX, "%s/%s", nodedir, name);

    GC_FAIL_IF(w < 0 || w >= PATH_MAX, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "%s/%s: path too long",
               nodedir, name);
    return read_small(path, buf, len, diag);
}

/* Text with its one trailing newline taken off; the rest must be printable ASCII. */
static int trim_line(char *buf, size_t *len)
{
    if (*len && buf[*len - 1] == '\n')
        buf[--*len] = '\0';
    for (size_t i = 0; i < *len; i++)
        if (buf[i] < 0x20 || buf[i] > 0x7e)
            return -1;
    return 0;
}

static gpucore_status_t read_node(const char *nodesdir, uint32_t number,
                                  struct gc_kfd_topology_node *n, gpucore_diag_t *diag)
{
    char buf[GC_KFD_TOPOLOGY_FILE_MAX + 1];
    char nodedir[PATH_MAX], path[PATH_MAX];
    uint64_t v;
    size_t len;
    int w = snprintf(nodedir, sizeof(nodedir), "%s/%u", nodesdir, number);

    GC_FAIL_IF(w < 0 || (size_t)w >= sizeof(nodedir), diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "%s: path too long", nodesdir);
    memset(n, 0, sizeof(*n));
    n->node = number;
    GC_TRY(read_node_file(nodedir, "gpu_id", path, buf, &len, diag));
    GC_FAIL_IF(trim_line(buf, &len) != 0 || parse_u64(buf, buf + len, &v) != 0 || v > UINT32_MAX,
               diag, GPUCORE_E_CORRUPT, 0, "%s: expected a decimal number up to 2^32-1", path);
    n->gpu_id = (uint32_t)v;
    GC_TRY(read_node_file(nodedir, "name", path, buf, &len, diag));
    GC_FAIL_IF(trim_line(buf, &len) != 0 || len >= sizeof(n->name), diag, GPUCORE_E_CORRUPT, 0,
               "%s: expected a name of at most %zu printable characters", path,
               sizeof(n->name) - 1);
    memcpy(n->name, buf, len + 1);
    GC_TRY(read_node_file(nodedir, "properties", path, buf, &len, diag));
    return gc_kfd_topology_parse_properties(path, buf, len, n, diag);
}

/* A directory entry that is a node number: decimal digits, no leading zero but "0". */
static int node_number(const char *name, uint32_t *ret)
{
    uint64_t v;
    size_t len = strlen(name);

    if (len == 0 || len > 9 || (name[0] == '0' && len > 1) || parse_u64(name, name + len, &v) != 0)
        return -1;
    *ret = (uint32_t)v;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

gpucore_status_t gc_kfd_topology_read(const char *dir, struct gc_kfd_topology *ret,
                                      gpucore_diag_t *reterr_diag)
{
    uint32_t numbers[GC_KFD_TOPOLOGY_MAX_NODES];
    char nodesdir[PATH_MAX];
    struct dirent *de;
    uint32_t count = 0, number;
    DIR *d;
    int w;

    GC_FAIL_IF(!ret, reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    memset(ret, 0, sizeof(*ret));
    w = snprintf(nodesdir, sizeof(nodesdir), "%s/nodes", dir ? dir : GC_KFD_TOPOLOGY_DIR);
    GC_FAIL_IF(w < 0 || (size_t)w >= sizeof(nodesdir), reterr_diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
               "topology directory path too long");
    d = opendir(nodesdir);
    if (!d)
        return gc_diag_set(reterr_diag, errno == ENOENT ? GPUCORE_E_NOTFOUND : GPUCORE_E_IO,
                           GC_NO_OFFSET, "%s: %s", nodesdir, strerror(errno));
    while ((errno = 0, de = readdir(d)) != NULL) {
        if (node_number(de->d_name, &number) != 0)
            continue;
        if (count == GC_KFD_TOPOLOGY_MAX_NODES) {
            closedir(d);
            return gc_diag_set(reterr_diag, GPUCORE_E_LIMIT, GC_NO_OFFSET, "%s: more than %u nodes",
                               nodesdir, GC_KFD_TOPOLOGY_MAX_NODES);
        }
        numbers[count++] = number;
    }
    if (errno != 0) {
        int e = errno;

        closedir(d);
        return gc_diag_set(reterr_diag, GPUCORE_E_IO, GC_NO_OFFSET, "%s: %s", nodesdir,
                           strerror(e));
    }
    closedir(d);
    qsort(numbers, count, sizeof(numbers[0]), cmp_u32);
    for (uint32_t i = 0; i < count; i++)
        GC_TRY(read_node(nodesdir, numbers[i], &ret->nodes[i], reterr_diag));
    ret->count = count;
    return GPUCORE_OK;
}

int gc_kfd_topology_debuggable(const struct gc_kfd_topology_node *node)
{
    const uint64_t both = GC_KFD_CAP_TRAP_DEBUG_SUPPORT | GC_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;

    return node && (node->capability & both) == both;
}
