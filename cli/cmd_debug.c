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
 *    (they reach it from the terminal), as system(3) does;
 *  - the executable is --exe, else the one the core records (gpucore's capture metadata,
 *    else the NT_FILE mapping that holds the program's entry point, AT_ENTRY of NT_AUXV),
 *    used only when it is a regular file here (below --sysroot when given);
 *  - when no librocm-dbgapi.so.0 is installed (none the dynamic linker finds, none in
 *    /opt/rocm/lib or beside the debugger), LD_LIBRARY_PATH is prefixed with the directory of
 *    libgpucore-dbgapi under AMD's soname, so ROCgdb serves the GPU part of the core with it.
 *
 * Exit status: the debugger's; 64 usage; 65 malformed core; 66 the core cannot be opened; 73
 * the decompressed copy cannot be written; 74 I/O error; 126 the debugger cannot be executed;
 * 127 no debugger found.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpucore/core.h>
#include <gpucore/schema.h>

#include "cli.h"

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

struct debug_args {
    const char *debugger;
    const char *exe;
    const char *sysroot;
    const char *core;
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
            "  --exe PATH       the executable (default: the one the core records, if it is\n"
            "                   a regular file here)\n"
            "  --sysroot DIR    where the core's files are: the executable the core records is\n"
            "                   looked up below DIR, and the debugger is told `set sysroot DIR`\n"
            "  -h, --help       this text\n\n"
            "Exit status: the debugger's (128 + N if signal N ended it); 64 usage; 65 malformed\n"
            "core; 66 the core cannot be opened; 73 or 74 the decompressed copy cannot be\n"
            "written; 126 the debugger cannot be executed; 127 no debugger found.\n");
}

static int parse_args(int argc, char **argv, struct debug_args *a)
{
    static const struct option longopts[] = {
        { "debugger", required_argument, NULL, 'd' },
        { "exe", required_argument, NULL, 'e' },
        { "sysroot", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

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

/* ---- AMD's library or ours ----------------------------------------------------------------- */

static int is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

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

/* Decompress @p core into a new private directory: 0, or an exit code after the message. */
static int tmpcopy_make(gpucore_core_t *core, const char *name, struct tmpcopy *t)
{
    const char *tmp = getenv("TMPDIR");
    const char *base = strrchr(name, '/');
    char file[256];
    size_t len;
    gpucore_diag_t d;
    gpucore_status_t st;

    if (!tmp || !*tmp)
        tmp = "/tmp";
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
        int rc;

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
 * none is lost between two waits. */
static int run_debugger(char **argv, const char *ld_prefix)
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

int cmd_debug(int argc, char **argv)
{
    struct debug_args a = { 0 };
    struct tmpcopy tmp = { { 0 }, { 0 } };
    struct gpucore_core_info info;
    gpucore_core_t *core = NULL;
    char debugger[PATH_MAX], exe[PATH_MAX], exe_here[PATH_MAX * 2], libdir[PATH_MAX];
    char sysroot_cmd[PATH_MAX + 32], core_arg[PATH_MAX + 2];
    const char *core_path, *ld_prefix = NULL;
    static char opt_iex[] = "-iex", opt_core[] = "-c";
    char **dargv = NULL;
    int rc, n = 0, have_exe = 0;

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

    /* The executable: the user's word, else the core's if it is an absolute path (a name the
     * core gives must never read as an option of the debugger) and a regular file here. */
    if (a.exe) {
        if (!is_file(a.exe)) {
            gpucore_core_close(core);
            return cli_fail(CLI_EXIT_NOINPUT, a.exe, "not a regular file");
        }
        have_exe = path_arg(exe_here, sizeof(exe_here), a.exe) == 0;
    } else if (exe_from_meta(core, exe, sizeof(exe)) == 0 ||
               exe_from_file_note(core, exe, sizeof(exe)) == 0) {
        char shown[sizeof(exe_here)];
        int pending = 0;

        snprintf(exe_here, sizeof(exe_here), "%s%s", a.sysroot ? a.sysroot : "", exe);
        have_exe = exe[0] == '/' && is_file(exe_here);
        if (have_exe) {
            snprintf(shown, sizeof(shown), "%s", exe_here);
            have_exe = path_arg(exe_here, sizeof(exe_here), shown) == 0;
        } else {
            /* The name is the core's: shown with its control bytes made harmless. */
            snprintf(shown, sizeof(shown), "%s", exe_here);
            cli_text_neutralise(shown, strlen(shown), &pending);
            fprintf(stderr, "gpucore: debug: the core's executable %s is not here; the "
                            "debugger opens the core without it (name it with --exe PATH)\n",
                    shown);
        }
    }

    if (path_arg(core_arg, sizeof(core_arg), a.core) != 0) {
        gpucore_core_close(core);
        return cli_fail(CLI_EXIT_NOINPUT, a.core, "path too long");
    }
    core_path = core_arg;
    if (info.flags & GPUCORE_INFO_COMPRESSED) {
        rc = tmpcopy_make(core, a.core, &tmp);
        if (rc) {
            gpucore_core_close(core);
            return rc;
        }
        if (path_arg(core_arg, sizeof(core_arg), tmp.path) != 0) {
            rc = cli_fail(CLI_EXIT_CANTCREAT, tmp.dir, "path too long");
            gpucore_core_close(core);
            tmpcopy_remove(&tmp);
            return rc;
        }
    }
    gpucore_core_close(core);

    if (!amd_dbgapi_installed(debugger) && our_dbgapi_dir(libdir) == 0)
        ld_prefix = libdir;

    dargv = calloc((size_t)a.nextra + 8, sizeof(*dargv));
    if (!dargv) {
        tmpcopy_remove(&tmp);
        return cli_fail(CLI_EXIT_SOFTWARE, NULL, "out of memory");
    }
    dargv[n++] = debugger;
    if (a.sysroot) {
        snprintf(sysroot_cmd, sizeof(sysroot_cmd), "set sysroot %s", a.sysroot);
        dargv[n++] = opt_iex;
        dargv[n++] = sysroot_cmd;
    }
    for (int i = 0; i < a.nextra; i++)
        dargv[n++] = a.extra[i];
    if (have_exe)
        dargv[n++] = exe_here;
    else
        dargv[n++] = opt_core;
    dargv[n++] = (char *)core_path;
    dargv[n] = NULL;

    rc = run_debugger(dargv, ld_prefix);
    free(dargv);
    tmpcopy_remove(&tmp);
    return rc;
}
