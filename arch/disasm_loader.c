/* SPDX-License-Identifier: MIT */
/*
 * Where disasm.c's LLVM half comes from: linked in, or the module gpucore-disasm.so opened on
 * first use from one of the two paths the build fixed. The rules and why: disasm_module.h;
 * for users: docs/building.md, "The disassembler module".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disasm.h"
#include "disasm_module.h"
#include "gc_util.h"

/*
 * Set by the build (arch/CMakeLists.txt): the build tree (its real path), the module there, and
 * the module's installed path.
 */
#ifndef GC_DISASM_BUILD_DIR
#error "GC_DISASM_BUILD_DIR, GC_DISASM_BUILD_MODULE and GC_DISASM_INSTALL_MODULE come from the build"
#endif

/*
 * The table of disasm_llvm.c when this binary links it. Weak: a binary without it has a null
 * address here. Hidden (disasm_module.h), so the reference is settled by the static link and
 * never bound at run time to a symbol another loaded object exports.
 */
#pragma weak gc_disasm_llvm_module

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const struct gc_disasm_module *) loaded; /* the module's table, once loaded */
static int failed;                                      /* under lock: why[] says why */
static char why[GPUCORE_DIAG_MESSAGE_SIZE];             /* under lock */

#ifdef GC_DISASM_TEST_HOOKS
static const char *test_path;
#endif

static const struct gc_disasm_module *linked(void)
{
    const struct gc_disasm_module *m = &gc_disasm_llvm_module;

    return m;
}

/*
 * The real path of the file that holds this code, into out[PATH_MAX]: the running executable
 * (/proc/self/exe, whatever argv[0] or the current directory say) when the loader is linked
 * into a program, the shared object's own file (dladdr, then realpath) when it is linked into a
 * library such as libgpucore-dbgapi.so, which runs inside a debugger whose executable says
 * nothing about where gpucore lies. 0 on success, -1 when the file cannot be named.
 */
static int own_file(char *out)
{
    Dl_info info;
    struct link_map *lm = NULL;
    ssize_t n;

    if (dladdr1((const void *)&own_file, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0 && lm &&
        lm->l_name && lm->l_name[0] != '\0')
        return realpath(lm->l_name, out) ? 0 : -1;
    /* The main program's link map has an empty name: ask the kernel. */
    n = readlink("/proc/self/exe", out, PATH_MAX - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/*
 * The module's path: the build tree's module when the file holding this code (own_file()) lies
 * in the build tree, else the installed one. Only ever one of the two paths the build fixed:
 * where the file lies chooses between them, it never names the module itself.
 */
static const char *module_path(void)
{
    static const char build_dir[] = GC_DISASM_BUILD_DIR;
    char self[PATH_MAX];

#ifdef GC_DISASM_TEST_HOOKS
    if (test_path)
        return test_path;
#endif
    if (own_file(self) == 0 && sizeof(build_dir) > 2 &&
        strncmp(self, build_dir, sizeof(build_dir) - 1) == 0 && self[sizeof(build_dir) - 1] == '/')
        return GC_DISASM_BUILD_MODULE;
    return GC_DISASM_INSTALL_MODULE;
}

/* Under lock: open, check and load the module at path; its table, or NULL and why[] set. */
static const struct gc_disasm_module *load(const char *path)
{
    char fdpath[32];
    struct stat sb;
    void *handle, *sym;
    gc_disasm_module_entry_fn entry;
    const struct gc_disasm_module *m;
    uid_t euid = geteuid();
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    if (fd < 0) {
        snprintf(why, sizeof(why), "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    /* Checked on the descriptor and loaded from it: what was checked is what is loaded. */
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(why, sizeof(why), "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    if (sb.st_uid != 0 && sb.st_uid != euid) {
        snprintf(why, sizeof(why), "%s belongs to uid %u, neither root nor this user", path,
                 (unsigned)sb.st_uid);
        close(fd);
        return NULL;
    }
    if ((sb.st_mode & S_IWOTH) || (euid == 0 && (sb.st_mode & S_IWGRP))) {
        snprintf(why, sizeof(why), "%s may be written by others than its owner", path);
        close(fd);
        return NULL;
    }
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
    handle = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    if (!handle) {
        const char *e = dlerror();

        snprintf(why, sizeof(why), "cannot load %s: %s", path, e ? e : "unknown error");
        return NULL;
    }
    sym = dlsym(handle, GC_DISASM_MODULE_ENTRY);
    if (!sym) {
        snprintf(why, sizeof(why), "%s is not a gpucore disassembler module (it has no %s)", path,
                 GC_DISASM_MODULE_ENTRY);
        dlclose(handle);
        return NULL;
    }
    memcpy(&entry, &sym, sizeof(entry)); /* dlsym's object pointer to a function pointer */
    m = entry();
    /* Only abi is read before it matches: the rest of another interface may differ. */
    if (!m || m->abi != GC_DISASM_MODULE_ABI || m->size != sizeof(*m)) {
        snprintf(why, sizeof(why),
                 "%s is the module of another gpucore (interface %u, this program needs %u): "
                 "install the gpucore-disasm.so built with this program",
                 path, m ? (unsigned)m->abi : 0u, (unsigned)GC_DISASM_MODULE_ABI);
        dlclose(handle);
        return NULL;
    }
    /* Kept loaded for the life of the process: LLVM does not take well to being unloaded. */
    return m;
}

gpucore_status_t gc_disasm_module_get(const struct gc_disasm_module **ret, gpucore_diag_t *diag)
{
    const struct gc_disasm_module *m = atomic_load_explicit(&loaded, memory_order_acquire);
    gpucore_status_t st = GPUCORE_OK;

    if (m) {
        *ret = m;
        return GPUCORE_OK;
    }
    pthread_mutex_lock(&lock);
    m = atomic_load_explicit(&loaded, memory_order_relaxed);
    if (!m && !failed) {
        m = linked();
        if (!m)
            m = load(module_path());
        if (m)
            atomic_store_explicit(&loaded, m, memory_order_release);
        else
            failed = 1;
    }
    if (m)
        *ret = m;
    else
        st = gc_diag_set(diag, GPUCORE_E_NOTSUP, GC_NO_OFFSET, "disassembler not available: %s",
                         why);
    pthread_mutex_unlock(&lock);
    return st;
}

const struct gc_disasm_module *gc_disasm_module_peek(void)
{
    return atomic_load_explicit(&loaded, memory_order_acquire);
}

void gc_disasm_disable(const char *reason)
{
    pthread_mutex_lock(&lock);
    if (!atomic_load_explicit(&loaded, memory_order_relaxed)) {
        failed = 1;
        snprintf(why, sizeof(why), "%s", reason && *reason ? reason : "disabled");
    }
    pthread_mutex_unlock(&lock);
}

#ifdef GC_DISASM_TEST_HOOKS
void gc_disasm_module_test_reset(const char *path)
{
    pthread_mutex_lock(&lock);
    atomic_store_explicit(&loaded, NULL, memory_order_release);
    failed = 0;
    why[0] = '\0';
    test_path = path;
    pthread_mutex_unlock(&lock);
}
#endif
