/* SPDX-License-Identifier: MIT */
/*
 * gpucore dbgapi-dump: a core as a debugger sees it through the amd-dbgapi library.
 *
 *   gpucore dbgapi-dump [--json] [--library PATH] [--host HOSTCORE] [--no-registers] [--lds]
 *                       [--log-level LEVEL] CORE
 *
 * A client of the public amd-dbgapi 0.77 interface (amd-dbgapi/amd-dbgapi.h) and nothing
 * else of the library: it loads the library at run time -- ours by default, or any other
 * implementation of the interface such as AMD's librocm-dbgapi.so.0 with --library -- binds
 * every function by name and symbol version as a linked debugger would, answers the core
 * handshake (OS pid NOT_AVAILABLE, the AMDGPU note as CORE_STATE), serves memory from the
 * core's PT_LOAD segments (gpucore/core.h), drains the events and walks every list: the
 * architectures with their registers, classes and address spaces, code objects, agents,
 * queues with their packets (the bytes of the first DUMP_PACKETS_SHOWN active ones, and
 * "packets_omitted" counting the rest when there are more), dispatches, workgroups (with their
 * LDS under --lds) and waves, each with every query answered and, per wave, every register
 * and the instruction at its PC.
 *
 * The output is one record per object, in that order: text for people, or with --json one
 * JSON object per line ("JSON Lines": {"kind": "wave", "id": 42, ...}). The text is rendered
 * from the same JSON objects, so the two never disagree. A query the library refuses is
 * shown with its status ({"error": "ERROR_NOT_AVAILABLE"}), never hidden.
 *
 * A split ROCm-runtime core (gpucore.PID, the GPU part only) takes the host core written by
 * the kernel with --host: memory the GPU file lacks (r_debug, the code object list) is read
 * from it, as ROCgdb reads a merged core.
 *
 * Exit status: 0; 64 usage; 65 the core has no AMDGPU note or the library found nothing in
 * it; 66 a file cannot be opened; 69 the library cannot be loaded or is not an amd-dbgapi 0.77
 * implementation; 70 the library failed (a FATAL status, or an attach or list that failed).
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "cli.h"

#define CMD "dbgapi-dump"

/* ---- the library, bound by name and version node ------------------------------------------ */

/* One pointer per function of the 0.77 ABI, typed from the header's declaration. */
struct api {
#define GC_DBGAPI_ABI_FN(name, ver) __typeof__(name) *name;
#include "abi_table.def"
};

/* Symbol name and version node of every function, and where its pointer goes. */
static const struct binding {
    const char *name;
    const char *node; /* "0_54": AMD_DBGAPI_0.54 */
    size_t offset;
} bindings[] = {
#define GC_DBGAPI_ABI_FN(name, ver) { #name, #ver, offsetof(struct api, name) },
#include "abi_table.def"
};

/* ---- state ---------------------------------------------------------------------------------- */

#define REG_CACHE_BITS 12 /* 4096 slots: every register of a few architectures */
/* Packets of a queue whose bytes are shown (the rest is counted in "packets_omitted"): the
   active ones a debugger is after are the oldest, and a ring may hold a million. */
#define DUMP_PACKETS_SHOWN 64u

struct reg_info {
    uint64_t id; /* 0: empty slot */
    char *name, *type;
    uint64_t size, elem; /* element size of a vector register (type "T[N]"), else size */
};

struct dd {
    struct api api;
    void *lib;
    const char *lib_path;
    const char *core_path, *host_path;
    gpucore_core_t *core, *host;
    struct gpucore_note note; /* the AMDGPU note (of the core, else of the host core) */
    int have_note;
    int json, registers, lds;
    amd_dbgapi_log_level_t log_level;
    amd_dbgapi_process_id_t process;
    uint64_t fatal;      /* FATAL statuses seen */
    uint64_t memory_errors; /* reads the core could not serve for a reason other than absence */
    struct reg_info regs[1u << REG_CACHE_BITS];
    FILE *out;
};

/* The client process id handed to the library is the address of this (one process). */
static struct dd *the_dd;

/* ---- names of statuses and enumerators (data, one row each) --------------------------------- */

struct name {
    uint64_t value;
    const char *name;
};

#define N(prefix, x) { (uint64_t)(prefix##x), #x }

static const struct name status_names[] = {
    N(AMD_DBGAPI_STATUS_, SUCCESS),
    N(AMD_DBGAPI_STATUS_, ERROR),
    N(AMD_DBGAPI_STATUS_, FATAL),
    N(AMD_DBGAPI_STATUS_, ERROR_NOT_IMPLEMENTED),
    N(AMD_DBGAPI_STATUS_, ERROR_NOT_AVAILABLE),
    N(AMD_DBGAPI_STATUS_, ERROR_NOT_SUPPORTED),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ARGUMENT),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ARGUMENT_COMPATIBILITY),
    N(AMD_DBGAPI_STATUS_, ERROR_ALREADY_INITIALIZED),
    N(AMD_DBGAPI_STATUS_, ERROR_NOT_INITIALIZED),
    N(AMD_DBGAPI_STATUS_, ERROR_RESTRICTION),
    N(AMD_DBGAPI_STATUS_, ERROR_ALREADY_ATTACHED),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ARCHITECTURE_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_ILLEGAL_INSTRUCTION),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_CODE_OBJECT_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ELF_AMDGPU_MACHINE),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_PROCESS_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_PROCESS_EXITED),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_AGENT_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_QUEUE_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_DISPATCH_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_WAVE_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_WAVE_NOT_STOPPED),
    N(AMD_DBGAPI_STATUS_, ERROR_WAVE_STOPPED),
    N(AMD_DBGAPI_STATUS_, ERROR_WAVE_OUTSTANDING_STOP),
    N(AMD_DBGAPI_STATUS_, ERROR_WAVE_NOT_RESUMABLE),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_DISPLACED_STEPPING_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE),
    N(AMD_DBGAPI_STATUS_, ERROR_DISPLACED_STEPPING_ACTIVE),
    N(AMD_DBGAPI_STATUS_, ERROR_RESUME_DISPLACED_STEPPING),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_WATCHPOINT_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_NO_WATCHPOINT_AVAILABLE),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_REGISTER_CLASS_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_REGISTER_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_LANE_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ADDRESS_CLASS_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ADDRESS_SPACE_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_MEMORY_ACCESS),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_ADDRESS_SPACE_CONVERSION),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_EVENT_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_BREAKPOINT_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_CLIENT_CALLBACK),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_CLIENT_PROCESS_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_SYMBOL_NOT_FOUND),
    N(AMD_DBGAPI_STATUS_, ERROR_REGISTER_NOT_AVAILABLE),
    N(AMD_DBGAPI_STATUS_, ERROR_INVALID_WORKGROUP_ID),
    N(AMD_DBGAPI_STATUS_, ERROR_INCOMPATIBLE_PROCESS_STATE),
    N(AMD_DBGAPI_STATUS_, ERROR_PROCESS_FROZEN),
    N(AMD_DBGAPI_STATUS_, ERROR_PROCESS_ALREADY_FROZEN),
    N(AMD_DBGAPI_STATUS_, ERROR_PROCESS_NOT_FROZEN),
    { 0, NULL },
};

static const struct name agent_states[] = {
    N(AMD_DBGAPI_AGENT_STATE_, SUPPORTED), N(AMD_DBGAPI_AGENT_STATE_, NOT_SUPPORTED), { 0, NULL }
};
static const struct name queue_types[] = {
    N(AMD_DBGAPI_OS_QUEUE_TYPE_, UNKNOWN),  N(AMD_DBGAPI_OS_QUEUE_TYPE_, HSA_AQL),
    N(AMD_DBGAPI_OS_QUEUE_TYPE_, AMD_PM4),  N(AMD_DBGAPI_OS_QUEUE_TYPE_, AMD_SDMA),
    N(AMD_DBGAPI_OS_QUEUE_TYPE_, AMD_SDMA_XGMI), { 0, NULL }
};
static const struct name queue_states[] = {
    N(AMD_DBGAPI_QUEUE_STATE_, VALID), N(AMD_DBGAPI_QUEUE_STATE_, ERROR), { 0, NULL }
};
static const struct name exceptions[] = {
    N(AMD_DBGAPI_EXCEPTION_, WAVE_ABORT),
    N(AMD_DBGAPI_EXCEPTION_, WAVE_TRAP),
    N(AMD_DBGAPI_EXCEPTION_, WAVE_MATH_ERROR),
    N(AMD_DBGAPI_EXCEPTION_, WAVE_ILLEGAL_INSTRUCTION),
    N(AMD_DBGAPI_EXCEPTION_, WAVE_MEMORY_VIOLATION),
    N(AMD_DBGAPI_EXCEPTION_, WAVE_ADDRESS_ERROR),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_DISPATCH_DIM_INVALID),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_DISPATCH_CODE_INVALID),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_UNSUPPORTED),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_DISPATCH_WORKGROUP_SIZE_INVALID),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_DISPATCH_REGISTER_COUNT_TOO_LARGE),
    N(AMD_DBGAPI_EXCEPTION_, PACKET_VENDOR_UNSUPPORTED),
    { (uint32_t)AMD_DBGAPI_EXCEPTION_QUEUE_PREEMPTION_ERROR, "QUEUE_PREEMPTION_ERROR" },
    { 0, NULL },
};
static const struct name barriers[] = {
    N(AMD_DBGAPI_DISPATCH_BARRIER_, NONE), N(AMD_DBGAPI_DISPATCH_BARRIER_, PRESENT), { 0, NULL }
};
static const struct name fences[] = {
    N(AMD_DBGAPI_DISPATCH_FENCE_SCOPE_, NONE), N(AMD_DBGAPI_DISPATCH_FENCE_SCOPE_, AGENT),
    N(AMD_DBGAPI_DISPATCH_FENCE_SCOPE_, SYSTEM), { 0, NULL }
};
static const struct name wave_states[] = {
    N(AMD_DBGAPI_WAVE_STATE_, RUN), N(AMD_DBGAPI_WAVE_STATE_, SINGLE_STEP),
    N(AMD_DBGAPI_WAVE_STATE_, STOP), { 0, NULL }
};
static const struct name stop_reasons[] = {
    N(AMD_DBGAPI_WAVE_STOP_REASON_, BREAKPOINT),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, WATCHPOINT),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, SINGLE_STEP),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_INPUT_DENORMAL),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_DIVIDE_BY_0),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_OVERFLOW),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_UNDERFLOW),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_INEXACT),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FP_INVALID_OPERATION),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, INT_DIVIDE_BY_0),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, DEBUG_TRAP),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, ASSERT_TRAP),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, TRAP),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, MEMORY_VIOLATION),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, ADDRESS_ERROR),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, ILLEGAL_INSTRUCTION),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, ECC_ERROR),
    N(AMD_DBGAPI_WAVE_STOP_REASON_, FATAL_HALT),
    { 0, NULL },
};
static const struct name space_access[] = {
    N(AMD_DBGAPI_ADDRESS_SPACE_ACCESS_, ALL), N(AMD_DBGAPI_ADDRESS_SPACE_ACCESS_, PROGRAM_CONSTANT),
    N(AMD_DBGAPI_ADDRESS_SPACE_ACCESS_, DISPATCH_CONSTANT), { 0, NULL }
};
static const struct name watchpoint_shares[] = {
    N(AMD_DBGAPI_WATCHPOINT_SHARE_KIND_, UNSUPPORTED), N(AMD_DBGAPI_WATCHPOINT_SHARE_KIND_, UNSHARED),
    N(AMD_DBGAPI_WATCHPOINT_SHARE_KIND_, SHARED), { 0, NULL }
};
static const struct name precisions[] = {
    N(AMD_DBGAPI_MEMORY_PRECISION_, NONE), N(AMD_DBGAPI_MEMORY_PRECISION_, PRECISE), { 0, NULL }
};
static const struct name runtime_states[] = {
    N(AMD_DBGAPI_RUNTIME_STATE_, LOADED_SUCCESS), N(AMD_DBGAPI_RUNTIME_STATE_, UNLOADED),
    N(AMD_DBGAPI_RUNTIME_STATE_, LOADED_ERROR_RESTRICTION), { 0, NULL }
};
static const struct name event_kinds[] = {
    N(AMD_DBGAPI_EVENT_KIND_, NONE),
    N(AMD_DBGAPI_EVENT_KIND_, WAVE_STOP),
    N(AMD_DBGAPI_EVENT_KIND_, WAVE_COMMAND_TERMINATED),
    N(AMD_DBGAPI_EVENT_KIND_, CODE_OBJECT_LIST_UPDATED),
    N(AMD_DBGAPI_EVENT_KIND_, BREAKPOINT_RESUME),
    N(AMD_DBGAPI_EVENT_KIND_, RUNTIME),
    N(AMD_DBGAPI_EVENT_KIND_, QUEUE_ERROR),
    { 0, NULL },
};
static const struct name log_levels[] = {
    { AMD_DBGAPI_LOG_LEVEL_NONE, "none" },       { AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR, "fatal" },
    { AMD_DBGAPI_LOG_LEVEL_WARNING, "warning" }, { AMD_DBGAPI_LOG_LEVEL_INFO, "info" },
    { AMD_DBGAPI_LOG_LEVEL_TRACE, "trace" },     { AMD_DBGAPI_LOG_LEVEL_VERBOSE, "verbose" },
    { 0, NULL },
};

static const char *name_of(const struct name *t, uint64_t v)
{
    for (; t->name; t++)
        if (t->value == v)
            return t->name;
    return NULL;
}

static const char *status_name(amd_dbgapi_status_t st)
{
    const char *n = name_of(status_names, (uint64_t)(int64_t)st);

    return n ? n : "an unknown status";
}

/* ---- JSON helpers --------------------------------------------------------------------------- */

/* A string from the library: it should be UTF-8; never trust it blindly. */
static json_t *jstr(const char *s)
{
    json_t *j = s ? json_string(s) : json_null();

    return j ? j : json_string("<not UTF-8>");
}

/* The value of a refused query: {"error": "ERROR_..."}. */
static json_t *jerror(struct dd *d, amd_dbgapi_status_t st)
{
    if (st == AMD_DBGAPI_STATUS_FATAL)
        d->fatal++;
    return json_pack("{s:s}", "error", status_name(st));
}

static json_t *jenum(const struct name *t, uint64_t v)
{
    const char *n = name_of(t, v);

    return n ? json_string(n) : json_integer((json_int_t)v);
}

/* A bit set: the names of its bits (unknown bits as hex). */
static json_t *jflags(const struct name *t, uint64_t v)
{
    json_t *a = json_array();

    for (; t->name; t++) {
        if (t->value && (v & t->value) == t->value) {
            json_array_append_new(a, json_string(t->name));
            v &= ~t->value;
        }
    }
    if (v)
        json_array_append_new(a, gc_json_hex(v));
    return a;
}

/* ---- the client's callbacks ----------------------------------------------------------------- */

static void *cb_allocate(size_t size)
{
    return size ? malloc(size) : NULL;
}

static void cb_deallocate(void *p)
{
    free(p);
}

static amd_dbgapi_status_t cb_process_info(amd_dbgapi_client_process_id_t client,
                                           amd_dbgapi_client_process_info_t query,
                                           size_t value_size, void *value)
{
    struct dd *d = (struct dd *)client;
    amd_dbgapi_core_state_data_t cs;
    void *copy;

    if (!d || d != the_dd)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID;
    if (!value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    switch (query) {
    case AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID:
        return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE; /* a core: no live process */
    case AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE:
        if (value_size != sizeof(cs))
            return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
        if (!d->have_note)
            return AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
        /* The library frees the data with deallocate_memory: hand it a malloc'ed copy. */
        copy = malloc(d->note.desc_size ? d->note.desc_size : 1);
        if (!copy)
            return AMD_DBGAPI_STATUS_ERROR;
        memcpy(copy, d->note.desc, d->note.desc_size);
        cs.endianness = AMD_DBGAPI_ENDIAN_LITTLE;
        cs.size = d->note.desc_size;
        cs.data = copy;
        memcpy(value, &cs, sizeof(cs));
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
}

/* A core has no host libraries to patch: the library never asks on a core. */
static amd_dbgapi_status_t cb_insert_breakpoint(amd_dbgapi_client_process_id_t client,
                                                amd_dbgapi_global_address_t address,
                                                amd_dbgapi_breakpoint_id_t id)
{
    (void)client, (void)address, (void)id;
    return AMD_DBGAPI_STATUS_ERROR;
}

static amd_dbgapi_status_t cb_remove_breakpoint(amd_dbgapi_client_process_id_t client,
                                                amd_dbgapi_breakpoint_id_t id)
{
    (void)client, (void)id;
    return AMD_DBGAPI_STATUS_ERROR;
}

/* Read from one core: the bytes from the start that it has. */
static uint64_t read_core(struct dd *d, gpucore_core_t *c, uint64_t addr, void *buf, uint64_t size)
{
    uint64_t done = 0;
    gpucore_status_t st = gpucore_core_read(c, addr, buf, size, &done);

    if (st == GPUCORE_OK)
        return size;
    if (st != GPUCORE_E_UNAVAILABLE) {
        d->memory_errors++;
        if (d->log_level >= AMD_DBGAPI_LOG_LEVEL_WARNING)
            fprintf(stderr, "gpucore " CMD ": %s: %s\n", c == d->host ? d->host_path : d->core_path,
                    gpucore_core_errmsg(c));
        return 0;
    }
    return done;
}

static amd_dbgapi_status_t cb_xfer(amd_dbgapi_client_process_id_t client,
                                   amd_dbgapi_global_address_t address,
                                   amd_dbgapi_size_t *value_size, void *read_buffer,
                                   const void *write_buffer)
{
    struct dd *d = (struct dd *)client;
    uint64_t done;

    if (!d || d != the_dd)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID;
    if (!value_size || !read_buffer == !write_buffer)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (write_buffer) { /* a core file is never written */
        *value_size = 0;
        return AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
    }
    done = read_core(d, d->core, address, read_buffer, *value_size);
    if (done == 0 && d->host)
        done = read_core(d, d->host, address, read_buffer, *value_size);
    *value_size = done;
    return done ? AMD_DBGAPI_STATUS_SUCCESS : AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS;
}

static void cb_log(amd_dbgapi_log_level_t level, const char *message)
{
    const char *n = name_of(log_levels, (uint64_t)level);

    fprintf(stderr, "gpucore " CMD ": amd-dbgapi %s: %s\n", n ? n : "message",
            message ? message : "(null)");
}

static amd_dbgapi_callbacks_t callbacks = {
    cb_allocate, cb_deallocate, cb_process_info, cb_insert_breakpoint, cb_remove_breakpoint,
    cb_xfer,     cb_log,
};

/* ---- loading the library -------------------------------------------------------------------- */

/* Where our library sits relative to this program: the build tree, then the installed tree. */
static const char *const relative_paths[] = { GPUCORE_DBGAPI_BUILD_REL, GPUCORE_DBGAPI_INSTALL_REL };

static int find_library(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;

    if (n <= 0)
        return -1;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(relative_paths) / sizeof(relative_paths[0]); i++) {
        int len = snprintf(buf, size, "%s/%s", exe, relative_paths[i]);

        if (len > 0 && (size_t)len < size && access(buf, R_OK) == 0)
            return 0;
    }
    return -1;
}

static int load_library(struct dd *d, const char *path)
{
    static char found[PATH_MAX];
    uint32_t major = 0, minor = 0, patch = 0;

    if (!path)
        path = getenv("GPUCORE_DBGAPI_LIBRARY");
    if (!path || !*path) {
        if (find_library(found, sizeof(found)) != 0)
            return cli_fail(CLI_EXIT_UNAVAILABLE, NULL,
                            "cannot find libgpucore-dbgapi.so beside this program; name the "
                            "library with --library PATH");
        path = found;
    }
    d->lib_path = path;
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!d->lib)
        return cli_fail(CLI_EXIT_UNAVAILABLE, NULL, "cannot load the amd-dbgapi library: %s",
                        dlerror());
    for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
        char node[32];
        void *sym;

        snprintf(node, sizeof(node), "AMD_DBGAPI_%s", bindings[i].node);
        node[strcspn(node + 11, "_") + 11] = '.';
        sym = dlvsym(d->lib, bindings[i].name, node);
        if (!sym)
            return cli_fail(CLI_EXIT_UNAVAILABLE, path,
                            "not an amd-dbgapi 0.77 library: it does not define %s@%s",
                            bindings[i].name, node);
        memcpy((char *)&d->api + bindings[i].offset, &sym, sizeof(sym));
    }
    d->api.amd_dbgapi_get_version(&major, &minor, &patch);
    if (major != AMD_DBGAPI_VERSION_MAJOR || minor < AMD_DBGAPI_VERSION_MINOR)
        return cli_fail(CLI_EXIT_UNAVAILABLE, path,
                        "the library implements amd-dbgapi %u.%u.%u; this program needs %d.%d or "
                        "a later 0.x",
                        major, minor, patch, AMD_DBGAPI_VERSION_MAJOR, AMD_DBGAPI_VERSION_MINOR);
    return CLI_EXIT_OK;
}

/* ---- output: one record per object ---------------------------------------------------------- */

static void text_value(FILE *out, const json_t *v);

static void text_array(FILE *out, const json_t *a)
{
    size_t i;
    const json_t *e;

    json_array_foreach(a, i, e) {
        if (i)
            fputc(i % 8 ? ' ' : '\n', out);
        if (i && i % 8 == 0)
            fputs("        ", out);
        text_value(out, e);
    }
    if (json_array_size(a) == 0)
        fputs("-", out);
}

static void text_value(FILE *out, const json_t *v)
{
    const char *key;
    const json_t *m;
    int first = 1;

    switch (json_typeof(v)) {
    case JSON_STRING:
        fputs(json_string_value(v), out);
        break;
    case JSON_INTEGER:
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_TRUE:
        fputs("yes", out);
        break;
    case JSON_FALSE:
        fputs("no", out);
        break;
    case JSON_ARRAY:
        text_array(out, v);
        break;
    case JSON_OBJECT:
        if (json_object_size(v) == 1 && json_is_string(json_object_get(v, "error"))) {
            fprintf(out, "(%s)", json_string_value(json_object_get(v, "error")));
            break;
        }
        fputc('{', out);
        json_object_foreach((json_t *)v, key, m) {
            fprintf(out, "%s%s ", first ? "" : ", ", key);
            text_value(out, m);
            first = 0;
        }
        fputc('}', out);
        break;
    default:
        fputs("-", out);
        break;
    }
}

/* "kind id" then one "  key: value" line per member; a member object of scalars ("registers")
   one line per entry. */
static void text_record(FILE *out, const json_t *rec)
{
    const char *key, *k2;
    const json_t *v, *v2;
    const json_t *id = json_object_get(rec, "id");

    fprintf(out, "%s", json_string_value(json_object_get(rec, "kind")));
    if (id) {
        fputc(' ', out);
        text_value(out, id);
    }
    fputc('\n', out);
    json_object_foreach((json_t *)rec, key, v) {
        if (!strcmp(key, "kind") || !strcmp(key, "id"))
            continue;
        if (json_is_object(v) && !json_object_get(v, "error")) {
            fprintf(out, "  %s:\n", key);
            json_object_foreach((json_t *)v, k2, v2) {
                fprintf(out, "    %-14s ", k2);
                text_value(out, v2);
                fputc('\n', out);
            }
            continue;
        }
        fprintf(out, "  %-30s ", key);
        text_value(out, v);
        fputc('\n', out);
    }
}

/* Print and free a record. */
static void emit(struct dd *d, json_t *rec)
{
    if (!rec)
        return;
    if (d->json) {
        json_dumpf(rec, d->out, JSON_COMPACT | JSON_ENSURE_ASCII); /* no raw C1 bytes for the filter */
        fputc('\n', d->out);
    } else {
        text_record(d->out, rec);
    }
    json_decref(rec);
}

static json_t *record(const char *kind, uint64_t id)
{
    json_t *r = json_pack("{s:s}", "kind", kind);

    if (r && id)
        json_object_set_new(r, "id", gc_json_uint(id));
    return r;
}

/* ---- queries, table-driven ------------------------------------------------------------------ */

enum vtype {
    V_HANDLE,  /* a handle (8 bytes) */
    V_U16,     /* uint16_t */
    V_U32,     /* uint32_t */
    V_SIZE,    /* size_t / uint64_t count or size */
    V_ADDR,    /* 64-bit address */
    V_STRING,  /* char *, client-owned */
    V_U16X3,   /* uint16_t[3] */
    V_U32X3,   /* uint32_t[3] */
    V_ENUM,    /* uint32_t named by a table */
    V_FLAGS,   /* uint32_t bit set named by a table */
    V_BYTES,   /* void *, client-owned; its size from the previous V_SIZE row */
    V_WATCH,   /* amd_dbgapi_watchpoint_list_t */
    V_NOTIFIER /* amd_dbgapi_notifier_t */
};

struct query {
    int query;
    const char *name;
    enum vtype type;
    const struct name *names;
};

typedef amd_dbgapi_status_t (*getter)(struct dd *d, uint64_t id, int query, size_t size,
                                      void *value);

#define GETTER(kind, handle_type, query_type)                                                  \
    static amd_dbgapi_status_t get_##kind(struct dd *d, uint64_t id, int q, size_t size,       \
                                          void *value)                                        \
    {                                                                                          \
        handle_type h = { id };                                                                \
        return d->api.amd_dbgapi_##kind##_get_info(h, (query_type)q, size, value);              \
    }

GETTER(process, amd_dbgapi_process_id_t, amd_dbgapi_process_info_t)
GETTER(architecture, amd_dbgapi_architecture_id_t, amd_dbgapi_architecture_info_t)
GETTER(code_object, amd_dbgapi_code_object_id_t, amd_dbgapi_code_object_info_t)
GETTER(agent, amd_dbgapi_agent_id_t, amd_dbgapi_agent_info_t)
GETTER(queue, amd_dbgapi_queue_id_t, amd_dbgapi_queue_info_t)
GETTER(dispatch, amd_dbgapi_dispatch_id_t, amd_dbgapi_dispatch_info_t)
GETTER(workgroup, amd_dbgapi_workgroup_id_t, amd_dbgapi_workgroup_info_t)
GETTER(wave, amd_dbgapi_wave_id_t, amd_dbgapi_wave_info_t)
GETTER(event, amd_dbgapi_event_id_t, amd_dbgapi_event_info_t)
GETTER(register, amd_dbgapi_register_id_t, amd_dbgapi_register_info_t)
GETTER(address_space, amd_dbgapi_address_space_id_t, amd_dbgapi_address_space_info_t)
GETTER(address_class, amd_dbgapi_address_class_id_t, amd_dbgapi_address_class_info_t)

static amd_dbgapi_status_t get_register_class(struct dd *d, uint64_t id, int q, size_t size,
                                              void *value)
{
    amd_dbgapi_register_class_id_t h = { id };

    return d->api.amd_dbgapi_architecture_register_class_get_info(
            h, (amd_dbgapi_register_class_info_t)q, size, value);
}

#define Q(prefix, x, type, names) { prefix##x, #x, type, names }

static const struct query process_queries[] = {
    Q(AMD_DBGAPI_PROCESS_INFO_, NOTIFIER, V_NOTIFIER, NULL),
    Q(AMD_DBGAPI_PROCESS_INFO_, WATCHPOINT_COUNT, V_SIZE, NULL),
    Q(AMD_DBGAPI_PROCESS_INFO_, WATCHPOINT_SHARE, V_ENUM, watchpoint_shares),
    Q(AMD_DBGAPI_PROCESS_INFO_, PRECISE_MEMORY_SUPPORTED, V_ENUM, precisions),
    Q(AMD_DBGAPI_PROCESS_INFO_, PRECISE_ALU_EXCEPTIONS_SUPPORTED, V_ENUM, precisions),
    Q(AMD_DBGAPI_PROCESS_INFO_, OS_ID, V_SIZE, NULL),
};
static const struct query architecture_queries[] = {
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, NAME, V_STRING, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, ELF_AMDGPU_MACHINE, V_U32, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, LARGEST_INSTRUCTION_SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, MINIMUM_INSTRUCTION_ALIGNMENT, V_SIZE, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, BREAKPOINT_INSTRUCTION_SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, BREAKPOINT_INSTRUCTION, V_BYTES, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, BREAKPOINT_INSTRUCTION_PC_ADJUST, V_SIZE, NULL),
    Q(AMD_DBGAPI_ARCHITECTURE_INFO_, PC_REGISTER, V_HANDLE, NULL),
};
static const struct query code_object_queries[] = {
    Q(AMD_DBGAPI_CODE_OBJECT_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_CODE_OBJECT_INFO_, URI_NAME, V_STRING, NULL),
    Q(AMD_DBGAPI_CODE_OBJECT_INFO_, LOAD_ADDRESS, V_ADDR, NULL),
};
static const struct query agent_queries[] = {
    Q(AMD_DBGAPI_AGENT_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, NAME, V_STRING, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, ARCHITECTURE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, STATE, V_ENUM, agent_states),
    Q(AMD_DBGAPI_AGENT_INFO_, PCI_DOMAIN, V_U16, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, PCI_SLOT, V_U16, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, PCI_VENDOR_ID, V_U32, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, PCI_DEVICE_ID, V_U32, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, EXECUTION_UNIT_COUNT, V_SIZE, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, MAX_WAVES_PER_EXECUTION_UNIT, V_SIZE, NULL),
    Q(AMD_DBGAPI_AGENT_INFO_, OS_ID, V_SIZE, NULL),
};
static const struct query queue_queries[] = {
    Q(AMD_DBGAPI_QUEUE_INFO_, AGENT, V_HANDLE, NULL),
    Q(AMD_DBGAPI_QUEUE_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_QUEUE_INFO_, ARCHITECTURE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_QUEUE_INFO_, TYPE, V_ENUM, queue_types),
    Q(AMD_DBGAPI_QUEUE_INFO_, STATE, V_ENUM, queue_states),
    Q(AMD_DBGAPI_QUEUE_INFO_, ERROR_REASON, V_FLAGS, exceptions),
    Q(AMD_DBGAPI_QUEUE_INFO_, ADDRESS, V_ADDR, NULL),
    Q(AMD_DBGAPI_QUEUE_INFO_, SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_QUEUE_INFO_, OS_ID, V_SIZE, NULL),
};
static const struct query dispatch_queries[] = {
    Q(AMD_DBGAPI_DISPATCH_INFO_, QUEUE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, AGENT, V_HANDLE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, ARCHITECTURE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, OS_QUEUE_PACKET_ID, V_SIZE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, BARRIER, V_ENUM, barriers),
    Q(AMD_DBGAPI_DISPATCH_INFO_, ACQUIRE_FENCE, V_ENUM, fences),
    Q(AMD_DBGAPI_DISPATCH_INFO_, RELEASE_FENCE, V_ENUM, fences),
    Q(AMD_DBGAPI_DISPATCH_INFO_, GRID_DIMENSIONS, V_U32, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, WORKGROUP_SIZES, V_U16X3, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, GRID_SIZES, V_U32X3, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, PRIVATE_SEGMENT_SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, GROUP_SEGMENT_SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_ARGUMENT_SEGMENT_ADDRESS, V_ADDR, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_DESCRIPTOR_ADDRESS, V_ADDR, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_CODE_ENTRY_ADDRESS, V_ADDR, NULL),
    Q(AMD_DBGAPI_DISPATCH_INFO_, KERNEL_COMPLETION_ADDRESS, V_ADDR, NULL),
};
static const struct query workgroup_queries[] = {
    Q(AMD_DBGAPI_WORKGROUP_INFO_, DISPATCH, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WORKGROUP_INFO_, QUEUE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WORKGROUP_INFO_, AGENT, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WORKGROUP_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WORKGROUP_INFO_, ARCHITECTURE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WORKGROUP_INFO_, WORKGROUP_COORD, V_U32X3, NULL),
};
static const struct query wave_queries[] = {
    Q(AMD_DBGAPI_WAVE_INFO_, STATE, V_ENUM, wave_states),
    Q(AMD_DBGAPI_WAVE_INFO_, STOP_REASON, V_FLAGS, stop_reasons),
    Q(AMD_DBGAPI_WAVE_INFO_, WATCHPOINTS, V_WATCH, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, WORKGROUP, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, DISPATCH, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, QUEUE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, AGENT, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, PROCESS, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, ARCHITECTURE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, PC, V_ADDR, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, EXEC_MASK, V_ADDR, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, WORKGROUP_COORD, V_U32X3, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, WAVE_NUMBER_IN_WORKGROUP, V_U32, NULL),
    Q(AMD_DBGAPI_WAVE_INFO_, LANE_COUNT, V_SIZE, NULL),
};
static const struct query event_queries[] = {
    { AMD_DBGAPI_EVENT_INFO_KIND, "EVENT_KIND", V_ENUM, event_kinds },
    Q(AMD_DBGAPI_EVENT_INFO_, PROCESS, V_HANDLE, NULL),
};
static const struct query address_space_queries[] = {
    Q(AMD_DBGAPI_ADDRESS_SPACE_INFO_, NAME, V_STRING, NULL),
    Q(AMD_DBGAPI_ADDRESS_SPACE_INFO_, ADDRESS_SIZE, V_SIZE, NULL),
    Q(AMD_DBGAPI_ADDRESS_SPACE_INFO_, NULL_ADDRESS, V_ADDR, NULL),
    Q(AMD_DBGAPI_ADDRESS_SPACE_INFO_, ACCESS, V_ENUM, space_access),
    Q(AMD_DBGAPI_ADDRESS_SPACE_INFO_, DWARF, V_SIZE, NULL),
};
static const struct query address_class_queries[] = {
    Q(AMD_DBGAPI_ADDRESS_CLASS_INFO_, NAME, V_STRING, NULL),
    Q(AMD_DBGAPI_ADDRESS_CLASS_INFO_, ADDRESS_SPACE, V_HANDLE, NULL),
    Q(AMD_DBGAPI_ADDRESS_CLASS_INFO_, DWARF, V_SIZE, NULL),
};
static const struct query register_class_queries[] = {
    Q(AMD_DBGAPI_REGISTER_CLASS_INFO_, NAME, V_STRING, NULL),
};

#define QUERIES(t) t, sizeof(t) / sizeof(t[0])

static const size_t vtype_size[] = {
    [V_HANDLE] = 8,        [V_U16] = 2,           [V_U32] = 4,
    [V_SIZE] = 8,          [V_ADDR] = 8,          [V_STRING] = sizeof(char *),
    [V_U16X3] = 6,         [V_U32X3] = 12,        [V_ENUM] = 4,
    [V_FLAGS] = 4,         [V_BYTES] = sizeof(void *),
    [V_WATCH] = sizeof(amd_dbgapi_watchpoint_list_t),
    [V_NOTIFIER] = sizeof(amd_dbgapi_notifier_t),
};

/* Answer one query into a JSON value (never NULL); *ret_u64 the integer value when there is
   one, for the caller's next steps. */
static json_t *query_value(struct dd *d, getter get, uint64_t id, const struct query *q,
                           uint64_t bytes_size, uint64_t *ret_u64)
{
    union {
        uint64_t u64;
        uint32_t u32, u32x3[3];
        uint16_t u16, u16x3[3];
        char *str;
        void *ptr;
        amd_dbgapi_watchpoint_list_t watch;
        amd_dbgapi_notifier_t notifier;
    } v;
    amd_dbgapi_status_t st;
    json_t *j;

    memset(&v, 0, sizeof(v));
    st = get(d, id, q->query, vtype_size[q->type], &v);
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        return jerror(d, st);
    switch (q->type) {
    case V_HANDLE:
    case V_SIZE:
        *ret_u64 = v.u64;
        return gc_json_uint(v.u64);
    case V_ADDR:
        *ret_u64 = v.u64;
        return gc_json_hex(v.u64);
    case V_U16:
        *ret_u64 = v.u16;
        return gc_json_uint(v.u16);
    case V_U32:
        *ret_u64 = v.u32;
        return gc_json_uint(v.u32);
    case V_ENUM:
        *ret_u64 = v.u32;
        return jenum(q->names, v.u32);
    case V_FLAGS:
        *ret_u64 = v.u32;
        return jflags(q->names, v.u32);
    case V_STRING:
        j = jstr(v.str);
        free(v.str);
        return j;
    case V_U16X3:
        return json_pack("[iii]", v.u16x3[0], v.u16x3[1], v.u16x3[2]);
    case V_U32X3:
        return json_pack("[III]", (json_int_t)v.u32x3[0], (json_int_t)v.u32x3[1],
                         (json_int_t)v.u32x3[2]);
    case V_BYTES:
        j = v.ptr ? gc_json_hex_bytes(v.ptr, bytes_size) : json_null();
        free(v.ptr);
        return j;
    case V_WATCH:
        j = json_array();
        for (size_t i = 0; i < v.watch.count && v.watch.watchpoint_ids; i++)
            json_array_append_new(j, gc_json_uint(v.watch.watchpoint_ids[i].handle));
        free(v.watch.watchpoint_ids);
        return j;
    case V_NOTIFIER:
        return json_boolean(v.notifier >= 0);
    }
    return json_null();
}

/* Every query of a table into members of @p rec (lower-case names). */
static void query_all(struct dd *d, json_t *rec, getter get, uint64_t id, const struct query *qs,
                      size_t n)
{
    uint64_t last = 0;

    for (size_t i = 0; i < n; i++) {
        char key[64];
        uint64_t value = 0;
        json_t *v = query_value(d, get, id, &qs[i], last, &value);
        size_t k;

        for (k = 0; qs[i].name[k] && k + 1 < sizeof(key); k++)
            key[k] = (char)(qs[i].name[k] >= 'A' && qs[i].name[k] <= 'Z' ? qs[i].name[k] + 32
                                                                          : qs[i].name[k]);
        key[k] = '\0';
        json_object_set_new(rec, key, v);
        last = value;
    }
}

/* One integer query (0 on failure). */
static uint64_t query_u64(struct dd *d, getter get, uint64_t id, int query, size_t size)
{
    uint64_t v = 0;

    if (get(d, id, query, size, &v) != AMD_DBGAPI_STATUS_SUCCESS)
        return 0;
    return v;
}

/* ---- lists ---------------------------------------------------------------------------------- */

struct handles {
    uint64_t *ids;
    size_t n;
};

/* The handle lists all share one shape: (process, &count, &items, &changed). */
#define LIST(d, fn, ret, type)                                                                 \
    do {                                                                                       \
        type *items_ = NULL;                                                                   \
        size_t n_ = 0;                                                                         \
        amd_dbgapi_status_t st_ =                                                              \
                (d)->api.amd_dbgapi_process_##fn##_list((d)->process, &n_, &items_, NULL);      \
        (ret)->ids = NULL;                                                                     \
        (ret)->n = 0;                                                                          \
        if (st_ != AMD_DBGAPI_STATUS_SUCCESS) {                                                \
            list_failed(d, #fn, st_);                                                          \
            break;                                                                             \
        }                                                                                      \
        (ret)->ids = (uint64_t *)(void *)items_; /* handles are { uint64_t } */               \
        (ret)->n = n_;                                                                         \
    } while (0)

static int list_errors;

static void list_failed(struct dd *d, const char *what, amd_dbgapi_status_t st)
{
    if (st == AMD_DBGAPI_STATUS_FATAL)
        d->fatal++;
    list_errors++;
    fprintf(stderr, "gpucore " CMD ": the %s list failed: %s\n", what, status_name(st));
}

_Static_assert(sizeof(amd_dbgapi_wave_id_t) == sizeof(uint64_t), "handles are one uint64_t");

/* ---- the walk ------------------------------------------------------------------------------- */

static void dump_library(struct dd *d)
{
    uint32_t major, minor, patch;
    char version[48];
    json_t *r = record("library", 0);

    d->api.amd_dbgapi_get_version(&major, &minor, &patch);
    snprintf(version, sizeof(version), "%u.%u.%u", major, minor, patch);
    json_object_set_new(r, "path", jstr(d->lib_path));
    json_object_set_new(r, "version", json_string(version));
    json_object_set_new(r, "build", jstr(d->api.amd_dbgapi_get_build_name()));
    json_object_set_new(r, "core", jstr(d->core_path));
    if (d->host_path)
        json_object_set_new(r, "host_core", jstr(d->host_path));
    emit(d, r);
}

static void dump_events(struct dd *d)
{
    for (;;) {
        amd_dbgapi_event_id_t ev;
        amd_dbgapi_event_kind_t kind;
        amd_dbgapi_status_t st = d->api.amd_dbgapi_process_next_pending_event(d->process, &ev,
                                                                               &kind);
        json_t *r;

        if (st != AMD_DBGAPI_STATUS_SUCCESS) {
            list_failed(d, "pending event", st);
            return;
        }
        if (ev.handle == 0)
            return;
        r = record("event", ev.handle);
        query_all(d, r, get_event, ev.handle, QUERIES(event_queries));
        if (kind == AMD_DBGAPI_EVENT_KIND_WAVE_STOP ||
            kind == AMD_DBGAPI_EVENT_KIND_WAVE_COMMAND_TERMINATED)
            json_object_set_new(r, "wave", gc_json_uint(query_u64(d, get_event, ev.handle,
                                                          AMD_DBGAPI_EVENT_INFO_WAVE, 8)));
        else if (kind == AMD_DBGAPI_EVENT_KIND_RUNTIME)
            json_object_set_new(r, "runtime_state",
                                jenum(runtime_states,
                                      query_u64(d, get_event, ev.handle,
                                                AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE, 4)));
        else if (kind == AMD_DBGAPI_EVENT_KIND_QUEUE_ERROR)
            json_object_set_new(r, "queue", gc_json_uint(query_u64(d, get_event, ev.handle,
                                                           AMD_DBGAPI_EVENT_INFO_QUEUE, 8)));
        st = d->api.amd_dbgapi_event_processed(ev);
        if (st != AMD_DBGAPI_STATUS_SUCCESS)
            json_object_set_new(r, "processed", jerror(d, st));
        emit(d, r);
    }
}

static json_t *handle_objects(struct dd *d, getter get, const uint64_t *ids, size_t n,
                              const struct query *qs, size_t nq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:I}", "id", (json_int_t)ids[i]);

        query_all(d, o, get, ids[i], qs, nq);
        json_array_append_new(a, o);
    }
    return a;
}

static void dump_architecture(struct dd *d, uint64_t arch)
{
    amd_dbgapi_architecture_id_t a = { arch };
    json_t *r = record("architecture", arch);
    amd_dbgapi_register_class_id_t *classes = NULL;
    amd_dbgapi_register_id_t *regs = NULL;
    amd_dbgapi_address_space_id_t *spaces = NULL;
    amd_dbgapi_address_class_id_t *aclasses = NULL;
    size_t n = 0;
    amd_dbgapi_status_t st;

    query_all(d, r, get_architecture, arch, QUERIES(architecture_queries));
    st = d->api.amd_dbgapi_architecture_register_list(a, &n, &regs);
    json_object_set_new(r, "registers", st ? jerror(d, st) : gc_json_uint(n));
    free(regs);
    st = d->api.amd_dbgapi_architecture_register_class_list(a, &n, &classes);
    json_object_set_new(r, "register_classes",
                        st ? jerror(d, st)
                           : handle_objects(d, get_register_class, (uint64_t *)(void *)classes, n,
                                            QUERIES(register_class_queries)));
    free(classes);
    st = d->api.amd_dbgapi_architecture_address_space_list(a, &n, &spaces);
    json_object_set_new(r, "address_spaces",
                        st ? jerror(d, st)
                           : handle_objects(d, get_address_space, (uint64_t *)(void *)spaces, n,
                                            QUERIES(address_space_queries)));
    free(spaces);
    st = d->api.amd_dbgapi_architecture_address_class_list(a, &n, &aclasses);
    json_object_set_new(r, "address_classes",
                        st ? jerror(d, st)
                           : handle_objects(d, get_address_class, (uint64_t *)(void *)aclasses, n,
                                            QUERIES(address_class_queries)));
    free(aclasses);
    emit(d, r);
}

static void dump_architectures(struct dd *d, const struct handles *agents)
{
    uint64_t *seen = calloc(agents->n + 1, sizeof(*seen));
    size_t nseen = 0;

    for (size_t i = 0; seen && i < agents->n; i++) {
        uint64_t arch = query_u64(d, get_agent, agents->ids[i], AMD_DBGAPI_AGENT_INFO_ARCHITECTURE,
                                  8);
        size_t k;

        for (k = 0; k < nseen && seen[k] != arch; k++)
            ;
        if (!arch || k < nseen)
            continue;
        seen[nseen++] = arch;
        dump_architecture(d, arch);
    }
    free(seen);
}

static void dump_simple(struct dd *d, const char *kind, const struct handles *h, getter get,
                        const struct query *qs, size_t nq)
{
    for (size_t i = 0; i < h->n; i++) {
        json_t *r = record(kind, h->ids[i]);

        query_all(d, r, get, h->ids[i], qs, nq);
        emit(d, r);
    }
}

static void dump_queues(struct dd *d, const struct handles *queues)
{
    for (size_t i = 0; i < queues->n; i++) {
        amd_dbgapi_queue_id_t q = { queues->ids[i] };
        json_t *r = record("queue", q.handle);
        amd_dbgapi_os_queue_packet_id_t rd = 0, wr = 0;
        size_t size = 0;
        void *bytes = NULL;
        amd_dbgapi_status_t st;

        query_all(d, r, get_queue, q.handle, QUERIES(queue_queries));
        st = d->api.amd_dbgapi_queue_packet_list(q, &rd, &wr, &size, &bytes);
        if (st == AMD_DBGAPI_STATUS_SUCCESS) {
            size_t shown = size < DUMP_PACKETS_SHOWN * 64u ? size : DUMP_PACKETS_SHOWN * 64u;

            json_object_set_new(r, "read_packet_id", gc_json_uint(rd));
            json_object_set_new(r, "write_packet_id", gc_json_uint(wr));
            json_object_set_new(r, "packets", gc_json_hex_bytes(bytes, shown));
            if (shown < size)
                json_object_set_new(r, "packets_omitted", gc_json_uint((size - shown) / 64u));
        } else {
            json_object_set_new(r, "packets", jerror(d, st));
        }
        free(bytes);
        emit(d, r);
    }
}

/* The register's name, size and element size, asked once per register handle. */
static const struct reg_info *reg_info(struct dd *d, uint64_t id)
{
    size_t slot = (size_t)(id * 0x9E3779B97F4A7C15ull >> (64 - REG_CACHE_BITS));
    struct reg_info *r;
    const char *bracket;

    for (size_t probe = 0; probe < (1u << REG_CACHE_BITS); probe++) {
        r = &d->regs[(slot + probe) & ((1u << REG_CACHE_BITS) - 1)];
        if (r->id == id)
            return r;
        if (r->id == 0)
            break;
        r = NULL;
    }
    if (!r) { /* full: more registers than the cache holds; ask every time */
        static struct reg_info scratch;

        free(scratch.name);
        free(scratch.type);
        memset(&scratch, 0, sizeof(scratch));
        r = &scratch;
    }
    r->id = id;
    r->name = NULL;
    r->type = NULL;
    get_register(d, id, AMD_DBGAPI_REGISTER_INFO_NAME, sizeof(char *), &r->name);
    get_register(d, id, AMD_DBGAPI_REGISTER_INFO_TYPE, sizeof(char *), &r->type);
    r->size = query_u64(d, get_register, id, AMD_DBGAPI_REGISTER_INFO_SIZE, 8);
    r->elem = r->size;
    bracket = r->type ? strrchr(r->type, '[') : NULL;
    if (bracket) {
        unsigned long count = strtoul(bracket + 1, NULL, 10);

        if (count && r->size % count == 0)
            r->elem = r->size / count;
    }
    return r;
}

static void reg_cache_free(struct dd *d)
{
    for (size_t i = 0; i < (1u << REG_CACHE_BITS); i++) {
        free(d->regs[i].name);
        free(d->regs[i].type);
    }
}

/* A little-endian value of 1..8 bytes as hex. */
static json_t *jle(const uint8_t *p, uint64_t n)
{
    uint64_t v = 0;

    for (uint64_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return gc_json_hex(v);
}

static json_t *wave_registers(struct dd *d, amd_dbgapi_wave_id_t w)
{
    amd_dbgapi_register_id_t *regs = NULL;
    size_t n = 0;
    amd_dbgapi_status_t st = d->api.amd_dbgapi_wave_register_list(w, &n, &regs);
    json_t *o;
    uint8_t *buf = NULL;
    size_t cap = 0;

    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        return jerror(d, st);
    o = json_object();
    for (size_t i = 0; i < n; i++) {
        const struct reg_info *ri = reg_info(d, regs[i].handle);
        json_t *v;

        if (!ri->name || !ri->size)
            continue;
        if (ri->size > cap) {
            uint8_t *nb = realloc(buf, ri->size);

            if (!nb)
                break;
            buf = nb;
            cap = ri->size;
        }
        st = d->api.amd_dbgapi_read_register(w, regs[i], 0, ri->size, buf);
        if (st != AMD_DBGAPI_STATUS_SUCCESS) {
            v = jerror(d, st);
        } else if (ri->size <= 8) {
            v = jle(buf, ri->size);
        } else {
            uint64_t elem = ri->elem && ri->elem <= 8 ? ri->elem : 4;

            v = json_array();
            for (uint64_t k = 0; k + elem <= ri->size; k += elem)
                json_array_append_new(v, jle(buf + k, elem));
        }
        json_object_set_new(o, ri->name, v);
    }
    free(buf);
    free(regs);
    return o;
}

/* The instruction at the wave's PC: its bytes from memory, disassembled. */
static void wave_instruction(struct dd *d, json_t *r, amd_dbgapi_wave_id_t w, uint64_t arch,
                            uint64_t pc)
{
    amd_dbgapi_architecture_id_t a = { arch };
    uint8_t bytes[64];
    amd_dbgapi_size_t size = query_u64(d, get_architecture, arch,
                                       AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE, 8);
    char *text = NULL;
    amd_dbgapi_status_t st;

    if (size == 0 || size > sizeof(bytes))
        size = sizeof(bytes);
    st = d->api.amd_dbgapi_read_memory(d->process, w, 0, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, pc,
                                       &size, bytes);
    if (st != AMD_DBGAPI_STATUS_SUCCESS) {
        json_object_set_new(r, "instruction", jerror(d, st));
        return;
    }
    st = d->api.amd_dbgapi_disassemble_instruction(a, pc, &size, bytes, &text, 0, NULL);
    if (st != AMD_DBGAPI_STATUS_SUCCESS) {
        json_object_set_new(r, "instruction", jerror(d, st));
        return;
    }
    json_object_set_new(r, "instruction", jstr(text));
    json_object_set_new(r, "instruction_bytes", gc_json_hex_bytes(bytes, size));
    free(text);
}

static void dump_waves(struct dd *d, const struct handles *waves)
{
    for (size_t i = 0; i < waves->n; i++) {
        amd_dbgapi_wave_id_t w = { waves->ids[i] };
        json_t *r = record("wave", w.handle);
        uint64_t pc = 0;

        query_all(d, r, get_wave, w.handle, QUERIES(wave_queries));
        if (get_wave(d, w.handle, AMD_DBGAPI_WAVE_INFO_PC, 8, &pc) == AMD_DBGAPI_STATUS_SUCCESS)
            wave_instruction(d, r, w,
                             query_u64(d, get_wave, w.handle, AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, 8),
                             pc);
        if (d->registers)
            json_object_set_new(r, "registers", wave_registers(d, w));
        emit(d, r);
    }
}

/* Workgroups; with --lds, the bytes of each one's LDS read through one of its waves. */
static void dump_workgroups(struct dd *d, const struct handles *groups, const struct handles *waves)
{
    uint64_t *wave_group = NULL;
    uint8_t *lds = NULL;
    const size_t lds_max = 256u << 10;

    if (d->lds) {
        wave_group = calloc(waves->n + 1, sizeof(*wave_group));
        lds = malloc(lds_max);
        for (size_t i = 0; wave_group && i < waves->n; i++)
            wave_group[i] = query_u64(d, get_wave, waves->ids[i], AMD_DBGAPI_WAVE_INFO_WORKGROUP,
                                      8);
    }
    for (size_t i = 0; i < groups->n; i++) {
        json_t *r = record("workgroup", groups->ids[i]);
        size_t k;

        query_all(d, r, get_workgroup, groups->ids[i], QUERIES(workgroup_queries));
        for (k = 0; d->lds && wave_group && lds && k < waves->n; k++)
            if (wave_group[k] == groups->ids[i])
                break;
        if (d->lds && wave_group && lds && k < waves->n) {
            amd_dbgapi_wave_id_t w = { waves->ids[k] };
            amd_dbgapi_address_space_id_t local = AMD_DBGAPI_ADDRESS_SPACE_NONE;
            amd_dbgapi_size_t size = lds_max;
            amd_dbgapi_architecture_id_t a = {
                query_u64(d, get_wave, w.handle, AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, 8)
            };
            amd_dbgapi_status_t st = d->api.amd_dbgapi_dwarf_address_space_to_address_space(
                    a, 3 /* DW_ASPACE_AMDGPU_local */, &local);

            if (st == AMD_DBGAPI_STATUS_SUCCESS)
                st = d->api.amd_dbgapi_read_memory(d->process, w, 0, local, 0, &size, lds);
            json_object_set_new(r, "lds", st ? jerror(d, st) : gc_json_hex_bytes(lds, size));
        }
        emit(d, r);
    }
    free(wave_group);
    free(lds);
}

static void dump_summary(struct dd *d, const struct handles *h)
{
    json_t *r = record("summary", 0);

    json_object_set_new(r, "code_objects", gc_json_uint(h[0].n));
    json_object_set_new(r, "agents", gc_json_uint(h[1].n));
    json_object_set_new(r, "queues", gc_json_uint(h[2].n));
    json_object_set_new(r, "dispatches", gc_json_uint(h[3].n));
    json_object_set_new(r, "workgroups", gc_json_uint(h[4].n));
    json_object_set_new(r, "waves", gc_json_uint(h[5].n));
    json_object_set_new(r, "fatal_statuses", gc_json_uint(d->fatal));
    emit(d, r);
}

/* ---- the command ---------------------------------------------------------------------------- */

static void help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore dbgapi-dump [--json] [--library PATH] [--host HOSTCORE]\n"
            "                           [--no-registers] [--lds] [--log-level LEVEL] CORE\n\n"
            "Open CORE through an amd-dbgapi 0.77 library, as a debugger does, and print\n"
            "everything it serves: architectures, code objects, agents, queues and their\n"
            "packets, dispatches, workgroups and waves with every register.\n\n"
            "  --json            one JSON object per line (kind, id, one member per query)\n"
            "  --library PATH    the library (default: libgpucore-dbgapi beside gpucore, or\n"
            "                    $GPUCORE_DBGAPI_LIBRARY); AMD's librocm-dbgapi.so.0 works too\n"
            "  --host HOSTCORE   the host core of a split GPU core file (gpucore.PID): memory\n"
            "                    the GPU file lacks is read from it\n"
            "  --no-registers    skip the registers of each wave\n"
            "  --lds             print each workgroup's LDS bytes\n"
            "  --log-level L     the library's messages on stderr: none, fatal, warning\n"
            "                    (default), info, trace, verbose\n"
            "  -h, --help        this text\n");
}

static int open_core(const char *path, gpucore_core_t **ret)
{
    return cli_open_core(path, 0, ret);
}

static int find_note(struct dd *d)
{
    uint32_t idx = 0;

    if (gpucore_core_find_note(d->core, GPUCORE_AMDGPU_NOTE_OWNER,
                               GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &idx, &d->note) == GPUCORE_OK)
        d->have_note = 1;
    idx = 0;
    if (!d->have_note && d->host &&
        gpucore_core_find_note(d->host, GPUCORE_AMDGPU_NOTE_OWNER,
                               GPUCORE_NT_AMDGPU_KFD_CORE_STATE, &idx, &d->note) == GPUCORE_OK)
        d->have_note = 1;
    if (!d->have_note)
        return cli_fail(CLI_EXIT_DATAERR, d->core_path,
                        "no AMDGPU core-state note (owner \"AMDGPU\", type %u): not a GPU core",
                        GPUCORE_NT_AMDGPU_KFD_CORE_STATE);
    return CLI_EXIT_OK;
}

static int parse_args(struct dd *d, int argc, char **argv, const char **ret_lib)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "library", required_argument, NULL, 'L' },
        { "host", required_argument, NULL, 'H' },
        { "no-registers", no_argument, NULL, 'R' },
        { "lds", no_argument, NULL, 'D' },
        { "log-level", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        const struct name *n;

        switch (c) {
        case 'j':
            d->json = 1;
            break;
        case 'L':
            *ret_lib = optarg;
            break;
        case 'H':
            d->host_path = optarg;
            break;
        case 'R':
            d->registers = 0;
            break;
        case 'D':
            d->lds = 1;
            break;
        case 'l':
            for (n = log_levels; n->name && strcmp(n->name, optarg); n++)
                ;
            if (!n->name)
                return cli_usage_error(CMD, "unknown log level '%s'", optarg);
            d->log_level = (amd_dbgapi_log_level_t)n->value;
            break;
        case 'h':
            help(stdout);
            return -1;
        default:
            return cli_usage_error(CMD, "an option given is not one of dbgapi-dump's");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(CMD, "expected exactly one CORE argument");
    d->core_path = argv[optind];
    return CLI_EXIT_OK;
}

static int walk(struct dd *d)
{
    struct handles h[6]; /* code objects, agents, queues, dispatches, workgroups, waves */
    amd_dbgapi_status_t st;
    json_t *r;
    int rc = CLI_EXIT_OK;

    st = d->api.amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)d, &d->process);
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        return cli_fail(st == AMD_DBGAPI_STATUS_ERROR_RESTRICTION ? CLI_EXIT_DATAERR
                                                                   : CLI_EXIT_SOFTWARE,
                        d->core_path, "the library cannot attach to the core: %s",
                        status_name(st));
    dump_library(d);
    r = record("process", d->process.handle);
    query_all(d, r, get_process, d->process.handle, QUERIES(process_queries));
    emit(d, r);
    dump_events(d);
    LIST(d, code_object, &h[0], amd_dbgapi_code_object_id_t);
    LIST(d, agent, &h[1], amd_dbgapi_agent_id_t);
    LIST(d, queue, &h[2], amd_dbgapi_queue_id_t);
    LIST(d, dispatch, &h[3], amd_dbgapi_dispatch_id_t);
    LIST(d, workgroup, &h[4], amd_dbgapi_workgroup_id_t);
    LIST(d, wave, &h[5], amd_dbgapi_wave_id_t);
    dump_architectures(d, &h[1]);
    dump_simple(d, "code_object", &h[0], get_code_object, QUERIES(code_object_queries));
    dump_simple(d, "agent", &h[1], get_agent, QUERIES(agent_queries));
    dump_queues(d, &h[2]);
    dump_simple(d, "dispatch", &h[3], get_dispatch, QUERIES(dispatch_queries));
    dump_workgroups(d, &h[4], &h[5]);
    dump_waves(d, &h[5]);
    dump_summary(d, h);
    if (h[1].n == 0)
        rc = cli_fail(CLI_EXIT_DATAERR, d->core_path,
                      "the library found no agents in the core (run with --log-level info to "
                      "see why)");
    for (size_t i = 0; i < 6; i++)
        free(h[i].ids);
    st = d->api.amd_dbgapi_process_detach(d->process);
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        rc = cli_fail(CLI_EXIT_SOFTWARE, d->core_path, "detaching failed: %s", status_name(st));
    if (d->fatal || list_errors)
        rc = cli_fail(CLI_EXIT_SOFTWARE, d->lib_path,
                      "the library failed: %" PRIu64 " FATAL statuses, %d failed lists", d->fatal,
                      list_errors);
    return rc;
}

int cmd_dbgapi_dump(int argc, char **argv)
{
    struct dd *d = calloc(1, sizeof(*d));
    const char *lib = NULL;
    amd_dbgapi_status_t st;
    int rc;

    if (!d)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    the_dd = d;
    d->registers = 1;
    d->log_level = AMD_DBGAPI_LOG_LEVEL_WARNING;
    d->out = cli_text_open(stdout);
    if (!d->out) {
        free(d);
        the_dd = NULL;
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    }
    list_errors = 0;
    rc = parse_args(d, argc, argv, &lib);
    if (rc == -1) {
        rc = CLI_EXIT_OK;
        goto out;
    }
    if (rc)
        goto out;
    rc = open_core(d->core_path, &d->core);
    if (!rc && d->host_path)
        rc = open_core(d->host_path, &d->host);
    if (!rc)
        rc = find_note(d);
    if (!rc)
        rc = load_library(d, lib);
    if (rc)
        goto out;
    d->api.amd_dbgapi_set_log_level(d->log_level);
    st = d->api.amd_dbgapi_initialize(&callbacks);
    if (st != AMD_DBGAPI_STATUS_SUCCESS) {
        rc = cli_fail(CLI_EXIT_SOFTWARE, d->lib_path, "initialising the library failed: %s",
                      status_name(st));
        goto out;
    }
    rc = walk(d);
    st = d->api.amd_dbgapi_finalize();
    if (st != AMD_DBGAPI_STATUS_SUCCESS && !rc)
        rc = cli_fail(CLI_EXIT_SOFTWARE, d->lib_path, "finalising the library failed: %s",
                      status_name(st));
out:
    if (fclose(d->out) != 0 && !rc)
        rc = cli_fail(CLI_EXIT_IOERR, NULL, "writing the output failed: %s", strerror(errno));
    reg_cache_free(d);
    if (d->lib)
        dlclose(d->lib);
    gpucore_core_close(d->host);
    gpucore_core_close(d->core);
    free(d);
    the_dd = NULL;
    return rc;
}
