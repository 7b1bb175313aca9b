/* SPDX-License-Identifier: MIT */
/*
 * gpucore debug: open a core in a debugger, as `coredumpctl debug` does.
 *
 *   gpucore debug [--debugger PATH] [--exe PATH] [--sysroot DIR] CORE [-- DEBUGGER-ARGS...]
 *
 * The debugger is --debugger, else `rocgdb` from PATH, else `gdb`. It is started as
 *
 *   DEBUGGER [-iex 'set sysroot DIR'] DEBUGGER-ARGS... EXE CORE     (or ... -c CORE without EXE)
 *
 * and this program waits for it; its exit status is the debugger's (128 + N when a signal N
 * ended it). What it does on the way (docs/debugging.md says why):
 *
 *  - a compressed core (which GDB cannot read: "not a core dump") is first decompressed into a
 *    private directory (mode 0700) under $TMPDIR or /tmp, as a sparse file of mode 0600 (its
 *    all-zero pages are holes, so it takes the disk the core's real content takes), and that
 *    directory is removed when the debugger ends, however it ends; a SIGTERM or SIGHUP to this
 *    program is passed on to the debugger first, and SIGINT/SIGQUIT are left to the debugger
 *    (they reach it from the terminal), as system(3) does. The copy is checked before a byte
 *    is written: its size (the plain core's, holes included, known from the compressed
 *    core's frames) at most --max-temp (DEBUG_MAX_TEMP_DEFAULT), and what it takes on disk
 *    (its pages that are not all zeros, counted by reading the core once when its size alone
 *    does not fit) within the directory's free space less DEBUG_TEMP_KEEP; else exit 73;
 *  - the executable is --exe (the user's word), else the one the core records (gpucore's
 *    capture metadata, else the NT_FILE mapping that holds the program's entry point, AT_ENTRY
 *    of NT_AUXV), but only with --sysroot: a path the core names is never opened on the
 *    core's word. It is resolved below --sysroot as analyze resolves it (open_below.h: no
 *    "..", no link leaves the directory, a regular file of a real file system only), must be
 *    an ELF file, and is kept open: the debugger gets /proc/self/fd/N of it, which nothing
 *    can swap. Without --exe or --sysroot the debugger gets the core alone, and one line says
 *    how to name the program;
 *  - when no librocm-dbgapi.so.0 is installed (none the dynamic linker finds, none in
 *    /opt/rocm/lib or beside the debugger), LD_LIBRARY_PATH is prefixed with the directory of
 *    libgpucore-dbgapi under AMD's soname, so ROCgdb serves the GPU part of the core with it.
 *
 * Exit status: the debugger's; 64 usage; 65 malformed core; 66 the core cannot be opened; 73
 * the decompressed copy cannot be written or would not fit (--max-temp, free space); 74 I/O
 * error; 126 the debugger cannot be executed; 127 no debugger found.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "cli.h"
#include "gc_util.h"
#include "open_below.h"

#define DEBUG_EXIT_CANNOT_EXEC 126 /* the shell's "found but cannot execute" */
#define DEBUG_EXIT_NO_DEBUGGER 127 /* the shell's "command not found" */

/* Debuggers tried, in order, when --debugger is not given. */
static const char *const default_debuggers[] = { "rocgdb", "gdb" };

/* AMD's library: the soname a debugger linked with it loads. */
#define DBGAPI_SONAME "librocm-dbgapi.so.0"

/* Directories where ROCm installs AMD's library, besides the dynamic linker's own search. */
static const char *const amd_dbgapi_dirs[] = { "/opt/rocm/lib", "/opt/rocm/lib64" };

/* Where libgpucore-dbgapi sits relative to this program (build tree, installed tree), and
 * where AMD's soname for it is relative to that file. */
static const struct {
    const char *lib;
    const char *soname_dir; /* relative to the library's directory */
} our_dbgapi[] = {
    { GPUCORE_DBGAPI_BUILD_REL, "." },
    { GPUCORE_DBGAPI_INSTALL_REL, "gpucore" },
};

/* Limits of the NT_FILE and NT_AUXV notes this command reads (the kernel's layouts). */
#define DEBUG_MAX_FILE_ENTRIES 65536u

/* The largest decompressed copy written without --max-temp: its size, holes included. A
   compressed core can expand far beyond its own size (132 KB of zstd made 4.1 GiB), and the
   copy is decompressed, so its size bounds the time too. 16 GiB holds what gpucore's default
   tiers capture of even large processes; a bigger copy (a --tier all core of a process with
   that much memory) takes an explicit --max-temp. */
#define DEBUG_MAX_TEMP_DEFAULT (16ull << 30)
/* Free space the copy leaves in its directory (beyond what the file system reserves for root,
   which is not counted: f_bavail): room for the debugger's own files and everyone else's. */
#define DEBUG_TEMP_KEEP (64ull << 20)
/* The page the copy's holes are made of (libcore's plain writer leaves all-zero 4 KiB pages
   unwritten), and the chunk read at a time when counting them. */
#define DEBUG_HOLE_PAGE 4096u
#define DEBUG_COUNT_CHUNK (1u << 20)

struct debug_args {
    const char *debugger;
    const char *exe;
    const char *sysroot;
    const char *core;
    uint64_t max_temp;
    char **extra;
    int nextra;
};

static void debug_help(FILE *out)
{
    fprintf(out,
            "Usage: gpucore debug [--debugger PATH] [--exe PATH] [--sysroot DIR] CORE\n"
            "                     [-- DEBUGGER-ARGS...]\n\n"
            "Open CORE in a debugger, as `coredumpctl debug` does: ROCgdb (`rocgdb`) if it is\n"
            "installed, else GDB (`gdb`). A compressed core is first decompressed into a\n"
            "private temporary file (sparse, mode 0600, in $TMPDIR or /tmp) that is removed\n"
            "when the debugger ends. The debugger is pointed at the executable the core\n"
            "records and, when AMD's librocm-dbgapi.so.0 is not installed, at libgpucore-dbgapi\n"
            "(through LD_LIBRARY_PATH) for the GPU part. Arguments after `--` go to the\n"
            "debugger, e.g. `gpucore debug CORE -- -batch -ex 'info threads' -ex bt`.\n\n"
            "  --debugger PATH  the debugger to run (a name is looked up in PATH)\n"
            "  --exe PATH       the executable\n"
            "  --sysroot DIR    where the core's files are (/ for this machine's): the\n"
            "                   executable the core records is looked up below DIR, and the\n"
            "                   debugger is told `set sysroot DIR`. Without --exe or --sysroot\n"
            "                   the debugger gets the core alone: a path a core names is never\n"
            "                   opened on the core's word\n"
            "  --max-temp SIZE  the largest decompressed copy to write, holes included\n"
            "                   (default 16G); it must also fit in the free space there\n"
            "  -h, --help       this text\n\n"
            "Exit status: the debugger's (128 + N if signal N ended it); 64 usage; 65 malformed\n"
            "core; 66 the core cannot be opened; 73 the decompressed copy would not fit\n"
            "(--max-temp, free space) or cannot be written, 74 I/O error; 126 the debugger\n"
            "cannot be executed; 127 no debugger found.\n");
}

static int parse_args(int argc, char **argv, struct debug_args *a)
{
    static const struct option longopts[] = {
        { "debugger", required_argument, NULL, 'd' },
        { "exe", required_argument, NULL, 'e' },
        { "sysroot", required_argument, NULL, 's' },
        { "max-temp", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    a->max_temp = DEBUG_MAX_TEMP_DEFAULT;
    optind = 1;
    opterr = 0;
    /* '+': options end at CORE, so what follows it is the debugger's. */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            a->debugger = optarg;
            break;
        case 'e':
            a->exe = optarg;
            break;
        case 's':
            a->sysroot = optarg;
            break;
        case 't':
            if (cli_parse_size(optarg, &a->max_temp) != 0 || a->max_temp == 0)
                return cli_usage_error("debug", "--max-temp takes a size (e.g. 64G), not '%s'",
                                       optarg);
            break;
        case 'h':
            debug_help(stdout);
            return -1;
        case '?':
        default:
            return cli_usage_error("debug", "unknown option or missing value in '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("debug", "expected CORE");
    a->core = argv[optind++];
    if (optind < argc) {
        if (strcmp(argv[optind], "--") != 0)
            return cli_usage_error("debug", "unexpected '%s' after CORE (arguments for the "
                                            "debugger go after `--`)",
                                   argv[optind]);
        optind++;
    }
    a->extra = argv + optind;
    a->nextra = argc - optind;
    return 0;
}

/* ---- the debugger ------------------------------------------------------------------------ */

/* @p name as a program: a name with a '/' as it is, else looked up in PATH. 0 with @p buf
 * set, or -1 when there is no such executable file. */
static int find_program(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");

    if (!*name)
        return -1;
    if (strchr(name, '/')) {
        struct stat st;

        if (stat(name, &st) != 0 || !S_ISREG(st.st_mode) || access(name, X_OK) != 0 ||
            strlen(name) >= size)
            return -1;
        memcpy(buf, name, strlen(name) + 1);
        return 0;
    }
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        int n = snprintf(buf, size, "%.*s/%s", (int)len, len ? path : ".", name);
        struct stat st;

        if (n > 0 && (size_t)n < size && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
            access(buf, X_OK) == 0)
            return 0;
        path = end ? end + 1 : NULL;
    }
    return -1;
}

/* @p path as an argument the debugger cannot take for an option: "./" before a relative one.
 * 0, or -1 if it does not fit (@p buf then holds an empty string). */
static int path_arg(char *buf, size_t size, const char *path)
{
    int n = snprintf(buf, size, "%s%s", path[0] == '/' ? "" : "./", path);

    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

/* ---- the executable the core records -------------------------------------------------------- */

static int copy_str(char *buf, size_t size, const char *s, size_t len)
{
    if (len == 0 || len >= size || memchr(s, '\0', len))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return 0;
}

/* gpucore's capture metadata: the exe /proc/PID/exe named. */
static int exe_from_meta(gpucore_core_t *core, char *buf, size_t size)
{
    struct gpucore_note n;
    gpucore_capture_meta_t *m = NULL;
    gpucore_diag_t d;
    uint32_t i = 0;
    int rc;

    if (gpucore_core_find_note(core, GPUCORE_NOTE_OWNER, GPUCORE_NT_CAPTURE_META, &i, &n) !=
                GPUCORE_OK ||
        gpucore_capture_meta_decode(n.desc, (size_t)n.desc_size, &m, &d) != GPUCORE_OK)
        return -1;
    rc = m->exe.ptr ? copy_str(buf, size, m->exe.ptr, m->exe.len) : -1;
    gpucore_capture_meta_free(m);
    return rc;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Any core the kernel, gcore or ROCgdb wrote: the NT_FILE entry that maps AT_ENTRY. */
static int exe_from_file_note(gpucore_core_t *core, char *buf, size_t size)
{
    struct gpucore_note auxv, file;
    uint32_t i = 0, j = 0;
    uint64_t entry = 0, count;
    const char *names, *end;

    if (gpucore_core_find_note(core, "CORE", 6 /* NT_AUXV */, &i, &auxv) != GPUCORE_OK ||
        gpucore_core_find_note(core, "CORE", 0x46494c45u /* NT_FILE */, &j, &file) !=
                GPUCORE_OK)
        return -1;
    for (uint64_t off = 0; auxv.desc_size >= 16 && off <= auxv.desc_size - 16; off += 16)
        if (le64(auxv.desc + off) == 9 /* AT_ENTRY */)
            entry = le64(auxv.desc + off + 8);
    if (!entry || file.desc_size < 16)
        return -1;
    count = le64(file.desc);
    if (count > DEBUG_MAX_FILE_ENTRIES || (file.desc_size - 16) / 24 < count)
        return -1;
    names = (const char *)file.desc + 16 + 24 * count;
    end = (const char *)file.desc + file.desc_size;
    for (uint64_t k = 0; k < count; k++) {
        const uint8_t *e = file.desc + 16 + 24 * k;
        const char *nul = memchr(names, '\0', (size_t)(end - names));

        if (!nul)
            return -1;
        if (entry >= le64(e) && entry < le64(e + 8))
            return copy_str(buf, size, names, (size_t)(nul - names));
        names = nul + 1;
    }
    return -1;
}

static int is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* What the debugger is given as the program: a path, or nothing (the core alone). */
struct exe_choice {
    char arg[PATH_MAX + 2]; /* "./" and --exe, or /proc/self/fd/N */
    int fd; /* the file below --sysroot, kept open for the debugger to inherit, or -1 */
};

/* Whether @p fd starts as an ELF file does. */
static int is_elf(int fd)
{
    unsigned char m[SELFMAG];

    return pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) && memcmp(m, ELFMAG, SELFMAG) == 0;
}

/* The core's executable @p exe below @p sysroot: 0 with c->arg naming the open file by its
 * descriptor (/proc/self/fd/N: the debugger inherits N, so the path cannot be swapped for
 * another file between this check and its open), or -1 with @p why. */
static int exe_below(const char *sysroot, const char *exe, struct exe_choice *c, char *why,
                     size_t why_size)
{
    struct stat st;
    int fd = gc_open_below(sysroot, "--sysroot", exe, &st, why, why_size);

    if (fd < 0)
        return -1;
    if (!is_elf(fd)) {
        snprintf(why, why_size, "below --sysroot %.200s, not an ELF file", sysroot);
        close(fd);
        return -1;
    }
    c->fd = fd;
    snprintf(c->arg, sizeof(c->arg), "/proc/self/fd/%d", fd);
    return 0;
}

/*
 * Choose the program (struct exe_choice): --exe as the user gave it (a regular file), else the
 * path the core records, only below --sysroot. Without the program, @p note gets the line to
 * print (why, and how to give it), printed once the core is ready for the debugger. 0, or an
 * exit code after the message (--exe is not a regular file).
 */
static int choose_exe(const struct debug_args *a, gpucore_core_t *core, struct exe_choice *c,
                      char *note, size_t note_size)
{
    char exe[PATH_MAX], shown[PATH_MAX], why[PATH_MAX + 128];
    int pending = 0;

    c->arg[0] = note[0] = '\0';
    c->fd = -1;
    if (a->exe) {
        if (!is_file(a->exe))
            return cli_fail(CLI_EXIT_NOINPUT, a->exe, "not a regular file");
        if (path_arg(c->arg, sizeof(c->arg), a->exe) != 0)
            return cli_fail(CLI_EXIT_NOINPUT, a->exe, "path too long");
        return 0;
    }
    if (exe_from_meta(core, exe, sizeof(exe)) != 0 &&
        exe_from_file_note(core, exe, sizeof(exe)) != 0) {
        snprintf(note, note_size, "the core names no executable; the debugger opens the core "
                                  "without it (name the program with --exe PATH)");
        return 0;
    }
    /* The name is the core's: shown with its control bytes made harmless. */
    snprintf(shown, sizeof(shown), "%s", exe);
    cli_text_neutralise(shown, strlen(shown), &pending);
    if (!a->sysroot) {
        snprintf(note, note_size,
                 "the core names its executable %s, which is not opened on a core's word; the "
                 "debugger opens the core without it (name the program with --exe PATH, or the "
                 "directory the core's files are in with --sysroot DIR, / for this machine)",
                 shown);
        return 0;
    }
    if (exe_below(a->sysroot, exe, c, why, sizeof(why)) != 0) {
        pending = 0;
        cli_text_neutralise(why, strlen(why), &pending);
        snprintf(note, note_size, "the core's executable %s: %s; the debugger opens the core "
                                  "without it (name the program with --exe PATH)",
                 shown, why);
    }
    return 0;
}

/* ---- AMD's library or ours ----------------------------------------------------------------- */

/* Whether a librocm-dbgapi.so.0 is there for the debugger: one the dynamic linker finds (tried
 * in a child process, so no library code runs here), one in ROCm's directories, or one beside
 * the debugger (ROCgdb's $ORIGIN/../lib). */
static int amd_dbgapi_installed(const char *debugger)
{
    char buf[PATH_MAX], dir[PATH_MAX];
    pid_t pid;
    int status;

    for (size_t i = 0; i < sizeof(amd_dbgapi_dirs) / sizeof(amd_dbgapi_dirs[0]); i++) {
        snprintf(buf, sizeof(buf), "%s/%s", amd_dbgapi_dirs[i], DBGAPI_SONAME);
        if (is_file(buf))
            return 1;
    }
    if (realpath(debugger, dir)) {
        char *slash = strrchr(dir, '/');

        if (slash) {
            *slash = '\0';
            if ((size_t)snprintf(buf, sizeof(buf), "%s/../lib/%s", dir, DBGAPI_SONAME) <
                        sizeof(buf) &&
                is_file(buf))
                return 1;
        }
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        _exit(dlopen(DBGAPI_SONAME, RTLD_LAZY | RTLD_LOCAL) ? 0 : 1);
    if (pid < 0)
        return 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The directory that holds libgpucore-dbgapi under AMD's soname (canonical, in @p buf of
 * PATH_MAX bytes), or -1. */
static int our_dbgapi_dir(char *buf)
{
    char dir[PATH_MAX * 2 + 64], soname[PATH_MAX * 2 + 96];
    ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);
    char *slash;

    if (n <= 0)
        return -1;
    dir[n] = '\0';
    slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(our_dbgapi) / sizeof(our_dbgapi[0]); i++) {
        char lib[PATH_MAX * 2 + 64];

        if ((size_t)snprintf(lib, sizeof(lib), "%s/%s", dir, our_dbgapi[i].lib) >= sizeof(lib))
            continue;
        slash = strrchr(lib, '/');
        *slash = '\0'; /* lib has a '/': dir's own */
        if ((size_t)snprintf(soname, sizeof(soname), "%s/%s/%s", lib, our_dbgapi[i].soname_dir,
                             DBGAPI_SONAME) >= sizeof(soname) ||
            !is_file(soname))
            continue;
        slash = strrchr(soname, '/');
        *slash = '\0';
        if (realpath(soname, buf))
            return 0;
    }
    return -1;
}

/* ---- the temporary copy -------------------------------------------------------------------- */

struct tmpcopy {
    char dir[PATH_MAX];
    char path[PATH_MAX + 64];
};

static void tmpcopy_remove(struct tmpcopy *t)
{
    if (t->path[0])
        (void)unlink(t->path);
    if (t->dir[0])
        (void)rmdir(t->dir);
    t->path[0] = t->dir[0] = '\0';
}

static int all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* What the plain copy of @p core (@p size bytes) takes on disk: its DEBUG_HOLE_PAGE pages that
 * are not all zeros, which the writer writes (the others stay holes), found by reading the
 * core once. 0 with *ret, or an exit code after the message. */
static int copy_data_bytes(gpucore_core_t *core, const char *name, uint64_t size, uint64_t *ret)
{
    uint8_t *buf = malloc(DEBUG_COUNT_CHUNK);
    uint64_t data = 0;

    if (!buf)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < DEBUG_COUNT_CHUNK ? (size_t)(size - off) : DEBUG_COUNT_CHUNK;
        gpucore_status_t st = gpucore_core_read_file(core, off, buf, n);

        if (st != GPUCORE_OK) {
            free(buf);
            return cli_fail(cli_exit_for(st, CLI_SIDE_INPUT), name, "%s",
                            gpucore_core_errmsg(core));
        }
        for (size_t i = 0; i < n; i += DEBUG_HOLE_PAGE)
            if (!all_zero(buf + i, n - i < DEBUG_HOLE_PAGE ? n - i : DEBUG_HOLE_PAGE))
                data += DEBUG_HOLE_PAGE;
        off += n;
    }
    free(buf);
    *ret = data;
    return 0;
}

/* Free bytes of @p dir's file system a copy may use: what unprivileged users may still
 * allocate there (f_bavail), less DEBUG_TEMP_KEEP. */
static uint64_t temp_room(const char *dir)
{
    struct statvfs v;
    uint64_t avail;

    if (statvfs(dir, &v) != 0)
        return 0;
    avail = (uint64_t)v.f_bavail * (v.f_frsize ? v.f_frsize : v.f_bsize);
    return avail > DEBUG_TEMP_KEEP ? avail - DEBUG_TEMP_KEEP : 0;
}

/*
 * Whether the plain copy of @p core, @p size bytes, may be written in @p dir: at most
 * @p max_temp bytes (holes included: the size alone, known before anything is read), and
 * taking no more than temp_room() on disk. When the size alone does not fit in the room, what
 * the copy takes is counted (copy_data_bytes), since its holes take nothing. 0, or an exit code
 * after the message.
 */
static int tmpcopy_fits(gpucore_core_t *core, const char *name, const char *dir, uint64_t size,
                        uint64_t max_temp)
{
    char a[32], b[32], c[32];
    uint64_t room, data = 0;
    int rc;

    if (size > max_temp)
        return cli_fail(CLI_EXIT_CANTCREAT, name,
                        "its decompressed copy would be %s (the plain core, holes included), "
                        "more than --max-temp %s: nothing is written (allow it with --max-temp "
                        "SIZE)",
                        gc_format_size(size, a, sizeof(a)), gc_format_size(max_temp, b, sizeof(b)));
    room = temp_room(dir);
    if (size <= room)
        return 0;
    rc = copy_data_bytes(core, name, size, &data);
    if (rc)
        return rc;
    if (data <= room)
        return 0;
    return cli_fail(CLI_EXIT_CANTCREAT, name,
                    "its decompressed copy would take %s on disk (its pages that are not all "
                    "zeros), more than the %s free in %s less %s kept free: nothing is written "
                    "(set TMPDIR to a directory with room)",
                    gc_format_size(data, a, sizeof(a)),
                    gc_format_size(room + DEBUG_TEMP_KEEP, b, sizeof(b)), dir,
                    gc_format_size(DEBUG_TEMP_KEEP, c, sizeof(c)));
}

/* Decompress @p core into a new private directory, if it fits (tmpcopy_fits): 0, or an exit
 * code after the message. */
static int tmpcopy_make(gpucore_core_t *core, const struct gpucore_core_info *info,
                        const char *name, uint64_t max_temp, struct tmpcopy *t)
{
    const char *tmp = getenv("TMPDIR");
    const char *base = strrchr(name, '/');
    char file[256];
    size_t len;
    gpucore_diag_t d;
    gpucore_status_t st;
    int rc;

    if (!tmp || !*tmp)
        tmp = "/tmp";
    if (info->logical_size > max_temp) /* said before any directory is made */
        return tmpcopy_fits(core, name, tmp, info->logical_size, max_temp);
    if ((size_t)snprintf(t->dir, sizeof(t->dir), "%s/gpucore-debug.XXXXXX", tmp) >=
        sizeof(t->dir)) {
        t->dir[0] = '\0';
        return cli_fail(CLI_EXIT_CANTCREAT, tmp, "temporary directory name too long");
    }
    if (!mkdtemp(t->dir)) {
        int e = errno;

        t->dir[0] = '\0';
        return cli_fail(CLI_EXIT_CANTCREAT, tmp, "cannot create a temporary directory: %s",
                        strerror(e));
    }
    rc = tmpcopy_fits(core, name, tmp, info->logical_size, max_temp);
    if (rc) {
        tmpcopy_remove(t);
        return rc;
    }
    /* The core's own name without its compression suffix, so the debugger says which. */
    base = base ? base + 1 : name;
    snprintf(file, sizeof(file), "%s", *base ? base : "core");
    len = strlen(file);
    if (len > 4 && strcmp(file + len - 4, ".zst") == 0)
        file[len - 4] = '\0';
    if ((size_t)snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, file) >= sizeof(t->path)) {
        t->path[0] = '\0';
        tmpcopy_remove(t);
        return cli_fail(CLI_EXIT_CANTCREAT, tmp, "temporary file name too long");
    }
    /* mode 0 = 0600; all-zero pages become holes. */
    st = gpucore_core_transcode(core, t->path, GPUCORE_OPTS(gpucore_writer_opts, .flags = 0), &d);
    if (st != GPUCORE_OK) {
        t->path[0] = '\0'; /* nothing is left under the name on failure */
        if (st == GPUCORE_E_CORRUPT || st == GPUCORE_E_UNAVAILABLE ||
            st == GPUCORE_E_TRUNCATED || st == GPUCORE_E_LIMIT)
            rc = cli_report(name, &d, CLI_SIDE_INPUT);
        else
            rc = cli_report(t->dir, &d, CLI_SIDE_OUTPUT);
        tmpcopy_remove(t);
        return rc;
    }
    return 0;
}

/* ---- running it ---------------------------------------------------------------------------- */

/* Run @p argv, wait for it and return its exit status as a shell reports it. SIGINT and SIGQUIT
 * are the debugger's (it is in the terminal's foreground too) and ignored here; SIGTERM and
 * SIGHUP to this process are passed on to it. They are blocked and taken with sigtimedwait, so
 * none is lost between two waits. @p keep_fd (or -1) is inherited by the debugger, the other
 * descriptors this program opened are not (O_CLOEXEC). */
static int run_debugger(char **argv, const char *ld_prefix, int keep_fd)
{
    struct sigaction ign, old_int, old_quit;
    sigset_t set, old_mask;
    int status = 0, exec_pipe[2], err = 0;
    pid_t pid;

    if (pipe2(exec_pipe, O_CLOEXEC) != 0)
        return cli_fail(CLI_EXIT_IOERR, NULL, "pipe: %s", strerror(errno));
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old_mask);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int e;

        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(exec_pipe[0]);
        if (keep_fd >= 0)
            (void)fcntl(keep_fd, F_SETFD, 0);
        if (ld_prefix) {
            const char *old = getenv("LD_LIBRARY_PATH");
            size_t n = strlen(ld_prefix) + (old ? strlen(old) + 1 : 0) + 1;
            char *v = malloc(n);

            if (v) {
                snprintf(v, n, "%s%s%s", ld_prefix, old && *old ? ":" : "",
                         old && *old ? old : "");
                setenv("LD_LIBRARY_PATH", v, 1);
            }
        }
        execv(argv[0], argv);
        e = errno;
        if (write(exec_pipe[1], &e, sizeof(e)) < 0)
            _exit(DEBUG_EXIT_CANNOT_EXEC);
        _exit(DEBUG_EXIT_CANNOT_EXEC);
    }
    close(exec_pipe[1]);
    if (pid < 0) {
        err = errno;
        close(exec_pipe[0]);
        status = cli_fail(CLI_EXIT_IOERR, NULL, "cannot start %s: %s", argv[0], strerror(err));
        goto out;
    }
    if (read(exec_pipe[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
        err = 0;
    close(exec_pipe[0]);
    for (;;) {
        struct timespec tick = { 1, 0 };
        pid_t w = waitpid(pid, &status, WNOHANG);
        int sig;

        if (w == pid || (w < 0 && errno != EINTR))
            break;
        /* SIGCHLD wakes this at once; the tick only guards against a lost one. */
        sig = sigtimedwait(&set, NULL, &tick);
        if (sig == SIGTERM || sig == SIGHUP)
            (void)kill(pid, sig);
    }
    /* A SIGTERM or SIGHUP that came after the debugger ended is taken here, not when the mask
     * is restored: this program ends anyway, after the temporary copy is removed. */
    {
        struct timespec zero = { 0, 0 };

        while (sigtimedwait(&set, NULL, &zero) > 0)
            ;
    }
    if (err) {
        status = cli_fail(DEBUG_EXIT_CANNOT_EXEC, NULL, "cannot execute the debugger %s: %s",
                          argv[0], strerror(err));
        goto out;
    }
    status = WIFEXITED(status)     ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                   : CLI_EXIT_SOFTWARE;
out:
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return status;
}

/* DEBUGGER [-iex 'set sysroot DIR'] ARGS... (EXE | -c) CORE, run and waited for: its status. */
static int launch(const struct debug_args *a, char *debugger, struct exe_choice *exe,
                  char *core_arg, const char *ld_prefix)
{
    static char opt_iex[] = "-iex", opt_core[] = "-c";
    char sysroot_cmd[PATH_MAX + 32];
    char **dargv = calloc((size_t)a->nextra + 8, sizeof(*dargv));
    int n = 0, rc;

    if (!dargv)
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    dargv[n++] = debugger;
    if (a->sysroot) {
        snprintf(sysroot_cmd, sizeof(sysroot_cmd), "set sysroot %s", a->sysroot);
        dargv[n++] = opt_iex;
        dargv[n++] = sysroot_cmd;
    }
    for (int i = 0; i < a->nextra; i++)
        dargv[n++] = a->extra[i];
    dargv[n++] = exe->arg[0] ? exe->arg : opt_core;
    dargv[n++] = core_arg;
    dargv[n] = NULL;
    rc = run_debugger(dargv, ld_prefix, exe->fd);
    free(dargv);
    return rc;
}

int cmd_debug(int argc, char **argv)
{
    struct debug_args a = { 0 };
    struct tmpcopy tmp = { { 0 }, { 0 } };
    struct exe_choice exe = { .fd = -1 };
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    char debugger[PATH_MAX], libdir[PATH_MAX], core_arg[PATH_MAX + 2];
    char note[2 * PATH_MAX + 512];
    const char *ld_prefix = NULL;
    int rc;

    rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;

    /* The debugger first: without one there is nothing to do with the core. */
    if (a.debugger) {
        if (find_program(a.debugger, debugger, sizeof(debugger)) != 0)
            return cli_fail(DEBUG_EXIT_NO_DEBUGGER, NULL,
                            "debug: no debugger found: %s is not an executable file%s",
                            a.debugger, strchr(a.debugger, '/') ? "" : " in PATH");
    } else {
        size_t i;

        for (i = 0; i < sizeof(default_debuggers) / sizeof(default_debuggers[0]); i++)
            if (find_program(default_debuggers[i], debugger, sizeof(debugger)) == 0)
                break;
        if (i == sizeof(default_debuggers) / sizeof(default_debuggers[0]))
            return cli_fail(DEBUG_EXIT_NO_DEBUGGER, NULL,
                            "debug: no debugger found: neither rocgdb nor gdb is in PATH "
                            "(install ROCgdb or GDB, or name one with --debugger PATH)");
    }

    rc = cli_open_core(a.core, 0, &core);
    if (rc)
        return rc;
    if (gpucore_core_get_info(core, &info) != GPUCORE_OK) {
        gpucore_core_close(core);
        return cli_fail(CLI_EXIT_SOFTWARE, a.core, "cannot describe the core");
    }
    if (path_arg(core_arg, sizeof(core_arg), a.core) != 0) {
        gpucore_core_close(core);
        return cli_fail(CLI_EXIT_NOINPUT, a.core, "path too long");
    }
    rc = choose_exe(&a, core, &exe, note, sizeof(note));
    if (rc == 0 && (info.flags & GPUCORE_INFO_COMPRESSED)) {
        rc = tmpcopy_make(core, &info, a.core, a.max_temp, &tmp);
        if (rc == 0 && path_arg(core_arg, sizeof(core_arg), tmp.path) != 0)
            rc = cli_fail(CLI_EXIT_CANTCREAT, tmp.dir, "path too long");
    }
    gpucore_core_close(core);
    if (rc == 0 && note[0])
        fprintf(stderr, "gpucore: debug: %s\n", note);
    if (rc == 0 && !amd_dbgapi_installed(debugger) && our_dbgapi_dir(libdir) == 0)
        ld_prefix = libdir;
    if (rc == 0)
        rc = launch(&a, debugger, &exe, core_arg, ld_prefix);
    tmpcopy_remove(&tmp);
    if (exe.fd >= 0)
        close(exe.fd);
    return rc;
}
