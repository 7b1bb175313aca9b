/* SPDX-License-Identifier: MIT */
/* The host threads of a core and their backtraces, through libdwfl (host_stack.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

#include "demangle.h"
#include "gc_json.h"
#include "gc_le.h"
#include "gc_util.h"
#include "host_stack.h"
#include "open_below.h"
#include "syscalls_x86_64.h"
#include "triage_keys.h"

/* x86-64 struct elf_prstatus (<sys/procfs.h>): 336 bytes, pr_cursig at 12, pr_pid at 32,
   pr_reg (27 registers of struct user_regs_struct) at 112. */
#define PRSTATUS_SIZE   336u
#define PRSTATUS_CURSIG 12u
#define PRSTATUS_PID    32u
#define PRSTATUS_REG    112u
#define PRSTATUS_NREG   27u

/* struct user_regs_struct indices. */
enum { UR_R15, UR_R14, UR_R13, UR_R12, UR_RBP, UR_RBX, UR_R11, UR_R10, UR_R9, UR_R8, UR_RAX,
       UR_RCX, UR_RDX, UR_RSI, UR_RDI, UR_ORIG_RAX, UR_RIP, UR_CS, UR_EFLAGS, UR_RSP };

/* The x86-64 DWARF register numbers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15,
   rip), as user_regs_struct indices. */
static const uint8_t dwarf_to_user_reg[17] = {
    UR_RAX, UR_RDX, UR_RCX, UR_RBX, UR_RSI, UR_RDI, UR_RBP, UR_RSP, UR_R8,
    UR_R9,  UR_R10, UR_R11, UR_R12, UR_R13, UR_R14, UR_R15, UR_RIP,
};

#define SYS_IOCTL 16
/* AMDKFD_IOC_WAIT_EVENTS = _IOWR('K', 0x0C, struct kfd_ioctl_wait_events_args (24 bytes)): the
   runtime's event thread waits there, and is the first to hear of a queue error. */
#define KFD_IOC_WAIT_EVENTS 0xC0184B0Cu

#define NT_FILE_ 0x46494c45u
#define AT_SYSINFO_EHDR_ 33u
#define PAGE 4096u
/* The longest GNU build-id kept or looked up: libdw's own bound (ld writes 20 bytes, SHA-1). */
#define BUILD_ID_MAX 64u
/* "/usr/lib/debug/.build-id/xx/" + the other bytes in hex + ".debug" + NUL. */
#define BUILD_ID_PATH_SIZE (sizeof("/usr/lib/debug/.build-id/xx/.debug") + 2 * (BUILD_ID_MAX - 1))

struct hs_thread {
    int32_t tid;
    int32_t cursig;
    uint64_t regs[PRSTATUS_NREG];
};

/* An ELF image whose only DWARF is four zero bytes of .debug_line (libdw accepts no file
   without one of .debug_info, .debug_line, .debug_frame), laid out: the header, .shstrtab at
   NO_ALT_SHSTRTAB, .debug_line at NO_ALT_LINE, the three section headers at NO_ALT_SHOFF. */
#define NO_ALT_NAMES    "\0.shstrtab\0.debug_line"
#define NO_ALT_SHSTRTAB 64u
#define NO_ALT_LINE     (NO_ALT_SHSTRTAB + sizeof(NO_ALT_NAMES))
#define NO_ALT_SHOFF    96u
#define NO_ALT_SIZE     (NO_ALT_SHOFF + 3u * 64u)

struct hs_mod;

struct hs_ctx {
    gpucore_core_t *core;
    const char *sysroot;
    struct hs_thread *threads;
    uint32_t nthreads, cap;
    Elf *ebl_elf;     /* a minimal x86-64 ELF header for libdwfl's backend choice */
    unsigned char ebl_image[64];
    json_t *no_symbols; /* modules_without_symbols */
    struct hs_mod *mods; /* every module's state (attach_module), freed after dwfl_end */
    /* The supplementary file of every module gpucore found none for (no_alt()): made once. */
    Elf *no_alt_elf;
    Dwarf *no_alt;
    unsigned char no_alt_image[NO_ALT_SIZE];
};

/* What gpucore keeps of a module libdwfl has an ELF image of: its user data. */
struct hs_mod {
    struct hs_ctx *c;
    struct hs_mod *next;
    int alt_set; /* module_dwarf() gave the module's Dwarf its supplementary file */
    Dwarf *alt;  /* that file below --sysroot (sysroot_alt()), or NULL: owned here */
    Elf *alt_elf;
    int alt_fd;
};

/* A copy of @p s with every byte that is not printable ASCII replaced by '?': names from a
   core reach a terminal. NULL when out of memory. */
static char *dup_printable(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    d[n] = 0;
    return d;
}

static json_t *printable_json(const char *s)
{
    char *d = s ? dup_printable(s, strlen(s)) : NULL;
    json_t *j = d ? json_string(d) : json_null();

    free(d);
    return j;
}

/* ---- notes -------------------------------------------------------------------------------- */

static int read_threads(struct hs_ctx *c, char *why, size_t why_size)
{
    struct gpucore_note n;

    for (uint32_t i = 0; gpucore_core_find_note(c->core, "CORE", 1, &i, &n) == GPUCORE_OK; i++) {
        struct hs_thread *th;

        if (n.desc_size != PRSTATUS_SIZE) {
            snprintf(why, why_size,
                     "NT_PRSTATUS at file offset 0x%" PRIx64 " has %" PRIu64
                     " bytes, not the 336 of x86-64: only x86-64 host threads are unwound",
                     n.offset, n.desc_size);
            return 0;
        }
        if (c->nthreads == c->cap) {
            th = gc_array_grow(c->threads, &c->cap, c->nthreads, sizeof(*th), 16);
            if (!th)
                return -1;
            c->threads = th;
        }
        th = &c->threads[c->nthreads++];
        th->tid = (int32_t)gc_le32_get(n.desc + PRSTATUS_PID);
        th->cursig = (int16_t)gc_le16_get(n.desc + PRSTATUS_CURSIG);
        for (uint32_t r = 0; r < PRSTATUS_NREG; r++)
            th->regs[r] = gc_le64_get(n.desc + PRSTATUS_REG + 8u * r);
    }
    return 1;
}

/* The first signal number of NT_SIGINFO, 0 if none. */
static int core_signal(gpucore_core_t *core)
{
    struct gpucore_note n;
    uint32_t i = 0;

    if (gpucore_core_find_note(core, "CORE", 0x53494749u, &i, &n) != GPUCORE_OK ||
        n.desc_size < 4)
        return 0;
    return (int32_t)gc_le32_get(n.desc);
}

/* pr_pid of NT_PRPSINFO (x86-64 struct elf_prpsinfo: 136 bytes, pr_pid at 24), -1 if none. */
static int64_t core_pid(gpucore_core_t *core)
{
    struct gpucore_note n;
    uint32_t i = 0;

    if (gpucore_core_find_note(core, "CORE", 3, &i, &n) != GPUCORE_OK || n.desc_size != 136)
        return -1;
    return (int32_t)gc_le32_get(n.desc + 24);
}

/* AT_SYSINFO_EHDR from NT_AUXV, 0 if none. */
static uint64_t core_vdso(gpucore_core_t *core)
{
    struct gpucore_note n;
    uint32_t i = 0;

    if (gpucore_core_find_note(core, "CORE", 6, &i, &n) != GPUCORE_OK)
        return 0;
    for (uint64_t o = 0; o + 16 <= n.desc_size; o += 16)
        if (gc_le64_get(n.desc + o) == AT_SYSINFO_EHDR_)
            return gc_le64_get(n.desc + o + 8);
    return 0;
}

/* ---- modules ------------------------------------------------------------------------------ */

/* What the core holds of an ELF image mapped at @p base: its type, its load address for
   libdwfl, and the GNU build-id from its first page. 0 ok, -1 not an ELF image in the core. */
struct core_elf {
    uint16_t type;
    uint64_t first_vaddr; /* the first PT_LOAD's page-aligned p_vaddr */
    uint8_t build_id[BUILD_ID_MAX];
    uint32_t build_id_len;
};

static void read_build_id(gpucore_core_t *core, uint64_t addr, uint64_t size,
                          struct core_elf *e)
{
    uint8_t buf[PAGE];
    uint64_t o = 0;

    if (size > sizeof(buf))
        size = sizeof(buf);
    if (gpucore_core_read(core, addr, buf, size, NULL) != GPUCORE_OK)
        return;
    while (o + 12 <= size) {
        uint32_t namesz = gc_le32_get(buf + o), descsz = gc_le32_get(buf + o + 4),
                 type = gc_le32_get(buf + o + 8);
        uint64_t name_at = o + 12, desc_at = name_at + (((uint64_t)namesz + 3) & ~(uint64_t)3);
        uint64_t next = desc_at + (((uint64_t)descsz + 3) & ~(uint64_t)3);

        if (next > size)
            return;
        if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 &&
            descsz > 0 && descsz <= sizeof(e->build_id)) {
            memcpy(e->build_id, buf + desc_at, descsz);
            e->build_id_len = descsz;
            return;
        }
        o = next;
    }
}

static int read_core_elf(gpucore_core_t *core, uint64_t base, struct core_elf *e)
{
    uint8_t eh[64], ph[56];
    uint64_t phoff;
    uint16_t phnum, phentsize;
    int have_load = 0;

    memset(e, 0, sizeof(*e));
    if (gpucore_core_read(core, base, eh, sizeof(eh), NULL) != GPUCORE_OK ||
        memcmp(eh, ELFMAG, SELFMAG) != 0 || eh[EI_CLASS] != ELFCLASS64 ||
        eh[EI_DATA] != ELFDATA2LSB)
        return -1;
    e->type = gc_le16_get(eh + 16);
    phoff = gc_le64_get(eh + 32);
    phentsize = gc_le16_get(eh + 54);
    phnum = gc_le16_get(eh + 56);
    if (phentsize != sizeof(ph) || phoff > PAGE || phnum > (PAGE - phoff) / sizeof(ph))
        return e->type == ET_EXEC || e->type == ET_DYN ? 0 : -1;
    for (uint16_t i = 0; i < phnum; i++) {
        uint32_t type;

        if (gpucore_core_read(core, base + phoff + i * sizeof(ph), ph, sizeof(ph), NULL) !=
            GPUCORE_OK)
            break;
        type = gc_le32_get(ph);
        if (type == PT_LOAD && !have_load) {
            e->first_vaddr = gc_le64_get(ph + 16) & ~(uint64_t)(PAGE - 1);
            have_load = 1;
        }
        if (type == PT_NOTE && !e->build_id_len && have_load) {
            uint64_t vaddr = gc_le64_get(ph + 16), filesz = gc_le64_get(ph + 32);
            uint64_t at = e->type == ET_DYN ? base - e->first_vaddr + vaddr : vaddr;

            read_build_id(core, at, filesz, e);
        }
    }
    return e->type == ET_EXEC || e->type == ET_DYN ? 0 : -1;
}

static json_t *build_id_json(const uint8_t *id, uint32_t len)
{
    char hex[2 * BUILD_ID_MAX + 1];

    if (!len)
        return json_null();
    for (uint32_t i = 0; i < len && i < BUILD_ID_MAX; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    return json_string(hex);
}

static void note_no_symbols(struct hs_ctx *c, const char *name, const char *path,
                            const struct core_elf *e, const char *why)
{
    json_t *o = json_object();

    if (!o)
        return;
    json_object_set_new(o, GC_TK_NAME, printable_json(name));
    json_object_set_new(o, "path", printable_json(path));
    json_object_set_new(o, "build_id", build_id_json(e->build_id, e->build_id_len));
    json_object_set_new(o, GC_TK_WHY, json_string(why));
    json_array_append_new(c->no_symbols, o);
}

/* The module's file below --sysroot, when it is the file the core had mapped: an fd libdwfl may
   take, or -1 with why filled. */
static int open_module_file(struct hs_ctx *c, const char *path, const struct core_elf *e,
                            char *why, size_t why_size)
{
    struct stat st;
    const void *id = NULL;
    ssize_t idlen;
    Elf *elf;
    GElf_Ehdr eh;
    int fd;

    if (!c->sysroot) {
        snprintf(why, why_size,
                 "its file is not in the core (--sysroot DIR reads it below DIR, checked "
                 "by build-id)");
        return -1;
    }
    fd = gc_open_below(c->sysroot, "--sysroot", path, &st, why, why_size);
    if (fd < 0)
        return -1;
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
        eh.e_machine != EM_X86_64 || eh.e_type != e->type) {
        snprintf(why, why_size, "below --sysroot %.200s, not the x86-64 ELF file the core "
                 "had mapped", c->sysroot);
        goto bad;
    }
    idlen = dwelf_elf_gnu_build_id(elf, &id);
    if (e->build_id_len && (idlen != (ssize_t)e->build_id_len ||
                            memcmp(id, e->build_id, e->build_id_len) != 0)) {
        snprintf(why, why_size, "below --sysroot %.200s, a file with another build-id than "
                 "the core's", c->sysroot);
        goto bad;
    }
    elf_end(elf);
    return fd;
bad:
    elf_end(elf);
    close(fd);
    return -1;
}

/* Give a module with an ELF image its state, through which libdwfl's callbacks and
   module_dwarf() find the context. A module without (out of memory) gets no source lines and
   no separate debug file. */
static void attach_module(Dwfl_Module *mod, struct hs_ctx *c)
{
    void **ud = NULL;
    struct hs_mod *m;

    if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !ud ||
        !(m = calloc(1, sizeof(*m))))
        return;
    m->c = c;
    m->alt_fd = -1;
    m->next = c->mods;
    c->mods = m;
    *ud = m;
}

static struct hs_mod *module_state(Dwfl_Module *mod)
{
    void **ud = NULL;

    if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !ud)
        return NULL;
    return *ud;
}

static void free_modules(struct hs_ctx *c)
{
    while (c->mods) {
        struct hs_mod *m = c->mods;

        c->mods = m->next;
        if (m->alt)
            dwarf_end(m->alt);
        if (m->alt_elf)
            elf_end(m->alt_elf);
        if (m->alt_fd >= 0)
            close(m->alt_fd);
        free(m);
    }
    if (c->no_alt)
        dwarf_end(c->no_alt);
    if (c->no_alt_elf)
        elf_end(c->no_alt_elf);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static void report_file_module(Dwfl *dwfl, struct hs_ctx *c, const char *path, uint64_t low,
                               uint64_t high, uint64_t base)
{
    char why[512], *name = dup_printable(base_name(path), strlen(base_name(path)));
    struct core_elf e;
    Dwfl_Module *mod = NULL;
    size_t len = strlen(path);
    int fd;

    if (!name)
        return;
    if (read_core_elf(c->core, base, &e) != 0)
        goto out; /* not an ELF image (a data file, a font): no module */
    if (len > 10 && strcmp(path + len - 10, " (deleted)") == 0) {
        snprintf(why, sizeof(why), "its file had been deleted when the core was written");
        fd = -1;
    } else {
        fd = open_module_file(c, path, &e, why, sizeof(why));
    }
    if (fd >= 0) {
        mod = dwfl_report_elf(dwfl, name, path, fd, e.type == ET_DYN ? base : 0, false);
        if (!mod) {
            snprintf(why, sizeof(why), "libdwfl refused its file: %s", dwfl_errmsg(-1));
            close(fd);
        }
    }
    if (mod) {
        attach_module(mod, c);
    } else {
        note_no_symbols(c, name, path, &e, why);
        dwfl_report_module(dwfl, name, low, high);
    }
out:
    free(name);
}

struct file_map {
    uint64_t start, end, pgoff;
    const char *name;
    uint32_t pos;       /* index in NT_FILE order */
    uint64_t low, high; /* of the whole file, kept on the file's first entry */
    uint64_t base;      /* its mapping of file offset 0, UINT64_MAX for none */
    int leader;         /* the file's first entry in NT_FILE order */
};

static int file_map_by_name(const void *a, const void *b)
{
    const struct file_map *x = a, *y = b;
    int r = strcmp(x->name, y->name);

    return r ? r : (x->pos > y->pos) - (x->pos < y->pos);
}

static int file_map_by_pos(const void *a, const void *b)
{
    const struct file_map *x = a, *y = b;

    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Report every mapped ELF file of NT_FILE: one module per file, from its lowest to its highest
   mapping, loaded at its mapping of file offset 0, in the order of the file's first entry. The
   entries are grouped by sorting (n log n: a hostile note has up to GC_HS_MAX_FILES of them). */
static int report_files(Dwfl *dwfl, struct hs_ctx *c)
{
    struct gpucore_note n;
    struct file_map *m;
    uint64_t count;
    const char *names, *end;
    uint32_t i = 0;

    if (gpucore_core_find_note(c->core, "CORE", NT_FILE_, &i, &n) != GPUCORE_OK ||
        n.desc_size < 16)
        return 0;
    count = gc_le64_get(n.desc);
    if (count > (n.desc_size - 16) / 24)
        return 0; /* malformed: no modules (the frames say "no module") */
    if (count > GC_HS_MAX_FILES)
        count = GC_HS_MAX_FILES;
    m = calloc(count ? count : 1, sizeof(*m));
    if (!m)
        return -1;
    names = (const char *)n.desc + 16 + 24 * gc_le64_get(n.desc);
    end = (const char *)n.desc + n.desc_size;
    for (uint64_t k = 0; k < count; k++) {
        const char *nul = memchr(names, 0, (size_t)(end - names));

        if (!nul) {
            count = k;
            break;
        }
        m[k].start = gc_le64_get(n.desc + 16 + 24 * k);
        m[k].end = gc_le64_get(n.desc + 24 + 24 * k);
        m[k].pgoff = gc_le64_get(n.desc + 32 + 24 * k);
        m[k].name = names;
        m[k].pos = (uint32_t)k;
        names = nul + 1;
    }
    /* Entries of one file are adjacent after this sort, in NT_FILE order; empty ranges take
       no part (as if absent). */
    qsort(m, (size_t)count, sizeof(*m), file_map_by_name);
    for (uint64_t k = 0; k < count;) {
        uint64_t j = k, lead = count;

        for (; j < count && strcmp(m[j].name, m[k].name) == 0; j++) {
            if (m[j].end <= m[j].start)
                continue;
            if (lead == count) {
                lead = j;
                m[j].leader = 1;
                m[j].low = m[j].start;
                m[j].high = m[j].end;
                m[j].base = UINT64_MAX;
            }
            m[lead].low = m[j].start < m[lead].low ? m[j].start : m[lead].low;
            m[lead].high = m[j].end > m[lead].high ? m[j].end : m[lead].high;
            if (m[j].pgoff == 0 && m[lead].base == UINT64_MAX)
                m[lead].base = m[j].start;
        }
        k = j;
    }
    qsort(m, (size_t)count, sizeof(*m), file_map_by_pos);
    for (uint64_t k = 0; k < count; k++)
        if (m[k].leader && m[k].base != UINT64_MAX)
            report_file_module(dwfl, c, m[k].name, m[k].low, m[k].high, m[k].base);
    free(m);
    return 0;
}

/* Sections libelf, libdw or libdwfl inflate when they read an image, besides any with
   SHF_COMPRESSED. A kernel's vDSO has none; a core's could make its few hundred KiB inflate to
   GiB (xz reaches about 7000:1, zlib 1000:1), so an image with one is not read. */
static const struct {
    const char *name;
    bool prefix;
} inflated_sections[] = {
    { ".zdebug", true },         /* GNU-style zlib DWARF (libdw) */
    { ".gnu_debugdata", false }, /* an xz-compressed symbol table, MiniDebugInfo (libdwfl) */
};

static bool inflated_name(const char *name)
{
    for (size_t i = 0; i < GC_ARRAY_SIZE(inflated_sections); i++) {
        size_t n = strlen(inflated_sections[i].name);

        if (strncmp(name, inflated_sections[i].name, n) == 0 &&
            (inflated_sections[i].prefix || name[n] == 0))
            return true;
    }
    return false;
}

/* The name of section @p sh of @p img (@p size bytes, section headers at @p shoff): NULL when
   libelf could not read it either (elf_strptr: an offset or a string past .shstrtab). */
static const char *section_name(const uint8_t *img, uint64_t size, uint64_t shoff,
                                uint32_t shstrndx, uint32_t shnum, const uint8_t *sh)
{
    uint64_t off, len, at = gc_le32_get(sh);

    if (shstrndx >= shnum)
        return NULL;
    off = gc_le64_get(img + shoff + 64u * (uint64_t)shstrndx + 24);
    len = gc_le64_get(img + shoff + 64u * (uint64_t)shstrndx + 32);
    if (off > size || len > size - off || at >= len || !memchr(img + off + at, 0, len - at))
        return NULL;
    return (const char *)img + off + at;
}

/* Whether libdwfl may read the vDSO's image @p img of @p size (>= 64) bytes: 0, or -1 with
   @p why when a section is compressed, or its section headers are not all inside it (extended
   numbering included) or not of 64 bytes: a kernel's are, and then every section libelf will
   see is checked here. */
static int vdso_usable(const uint8_t *img, uint64_t size, char *why, size_t why_size)
{
    uint64_t shoff = gc_le64_get(img + 40), shnum = gc_le16_get(img + 60);
    uint32_t shstrndx = gc_le16_get(img + 62);

    if (shoff == 0 && shnum == 0)
        return 0; /* no section headers */
    if (gc_le16_get(img + 58) != 64 || shoff > size || size - shoff < 64)
        goto outside;
    if (shnum == 0) /* extended numbering: the count is section 0's sh_size */
        shnum = gc_le64_get(img + shoff + 32);
    if (shstrndx == SHN_XINDEX)
        shstrndx = gc_le32_get(img + shoff + 40);
    if ((size - shoff) / 64 < shnum)
        goto outside;
    for (uint32_t i = 1; i < shnum; i++) {
        const uint8_t *sh = img + shoff + 64u * (uint64_t)i;
        const char *name = section_name(img, size, shoff, shstrndx, (uint32_t)shnum, sh);

        if ((gc_le64_get(sh + 8) & SHF_COMPRESSED) || (name && inflated_name(name))) {
            char *p = name ? dup_printable(name, strnlen(name, 64)) : NULL;

            snprintf(why, why_size,
                     "its image in the core has a compressed section (%s), which a kernel's "
                     "vDSO never has: not read (it could inflate far beyond the core's bytes)",
                     p ? p : "without a name");
            free(p);
            return -1;
        }
    }
    return 0;
outside:
    snprintf(why, why_size, "its image in the core does not hold its section headers");
    return -1;
}

/* The vDSO: the kernel dumps it whole, so its ELF image (symbols, CFI) comes from the core. */
static void report_vdso(Dwfl *dwfl, struct hs_ctx *c)
{
    uint64_t at = core_vdso(c->core), size = 0;
    uint8_t eh[64], *img;
    struct core_elf e;
    Dwfl_Module *mod;
    char why[512];
    int fd;

    if (!at || read_core_elf(c->core, at, &e) != 0 ||
        gpucore_core_read(c->core, at, eh, sizeof(eh), NULL) != GPUCORE_OK)
        return;
    /* The image ends with its section headers (or its last segment). */
    size = gc_le64_get(eh + 40) + (uint64_t)gc_le16_get(eh + 58) * gc_le16_get(eh + 60);
    for (uint16_t i = 0; i < gc_le16_get(eh + 56) && i < 64; i++) {
        uint8_t ph[56];

        if (gpucore_core_read(c->core, at + gc_le64_get(eh + 32) + 56u * i, ph, sizeof(ph), NULL) ==
                GPUCORE_OK &&
            gc_le32_get(ph) == PT_LOAD)
            if (gc_le64_get(ph + 8) + gc_le64_get(ph + 32) > size)
                size = gc_le64_get(ph + 8) + gc_le64_get(ph + 32);
    }
    if (size < sizeof(eh) || size > GC_HS_VDSO_MAX || !(img = malloc(size)))
        return;
    if (gpucore_core_read(c->core, at, img, size, NULL) != GPUCORE_OK) {
        free(img);
        return;
    }
    if (vdso_usable(img, size, why, sizeof(why)) != 0) {
        note_no_symbols(c, "[vdso]", "[vdso]", &e, why);
        dwfl_report_module(dwfl, "[vdso]", at, at + size);
        free(img);
        return;
    }
    fd = memfd_create("gpucore-vdso", MFD_CLOEXEC);
    if (fd >= 0 && (write(fd, img, size) != (ssize_t)size ||
                    !(mod = dwfl_report_elf(dwfl, "[vdso]", "[vdso]", fd, at, false)))) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0)
        attach_module(mod, c);
    free(img);
}

/* ---- libdwfl callbacks -------------------------------------------------------------------- */

/* Never a file for a module the core names: report_file_module() gave libdwfl every file it
   may have. */
static int find_no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       char **file_name, Elf **elfp)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    *elfp = NULL;
    return -1;
}

/* Where a file of GNU build-id @p id (2 to BUILD_ID_MAX bytes: 0 ok, else -1) is installed, a
   separate debug file or a supplementary (dwz) one: "/usr/lib/debug/.build-id/xx/yyyy.debug". */
static int build_id_path(const unsigned char *id, size_t len, char path[BUILD_ID_PATH_SIZE])
{
    int o;

    if (len < 2 || len > BUILD_ID_MAX)
        return -1;
    o = snprintf(path, BUILD_ID_PATH_SIZE, "/usr/lib/debug/.build-id/%02x/", id[0]);
    for (size_t i = 1; i < len; i++)
        o += snprintf(path + o, BUILD_ID_PATH_SIZE - (size_t)o, "%02x", id[i]);
    snprintf(path + o, BUILD_ID_PATH_SIZE - (size_t)o, ".debug");
    return 0;
}

/* libdwfl asks find_debuginfo for two files: a module's separate debug file, passing the main
   file's .gnu_debuglink name and CRC (or NULL), and, once it has the module's DWARF, the
   supplementary file, passing the name .gnu_debugaltlink gives and CRC 0. Which is it? */
static bool asks_for_alt(Dwfl_Module *mod, const char *link, GElf_Word crc)
{
    Dwarf_Addr bias;
    GElf_Word own_crc = 0;
    Elf *elf;
    const char *own;

    if (!link)
        return false;
    elf = dwfl_module_getelf(mod, &bias);
    own = elf ? dwelf_elf_gnu_debuglink(elf, &own_crc) : NULL;
    return !own || own_crc != crc || strcmp(own, link) != 0;
}

/* A separate debug file by build-id, below --sysroot only: never by the name a file gives
   (@p debuglink_file, which the image chose). The supplementary file is never given here: it
   is module_dwarf()'s to choose. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          GElf_Addr base, const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    const struct hs_mod *m = userdata ? *userdata : NULL;
    const unsigned char *id = NULL;
    GElf_Addr id_vaddr;
    char path[BUILD_ID_PATH_SIZE], why[512];
    struct stat st;
    int len, fd;

    (void)modname, (void)base, (void)file_name;
    *debuginfo_file_name = NULL;
    if (!m || !m->c->sysroot || asks_for_alt(mod, debuglink_file, debuglink_crc))
        return -1;
    len = dwfl_module_build_id(mod, &id, &id_vaddr);
    if (len < 0 || build_id_path(id, (size_t)len, path) != 0)
        return -1;
    fd = gc_open_below(m->c->sysroot, "--sysroot", path, &st, why, sizeof(why));
    if (fd < 0)
        return -1;
    *debuginfo_file_name = strdup(path);
    return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = find_no_elf,
    .find_debuginfo = find_debuginfo,
};

/* ---- supplementary DWARF files ------------------------------------------------------------ */

/* The supplementary file of @p dw below --sysroot, by the build-id its .gnu_debugaltlink gives
   (never by the name it gives) and only if the file has that build-id: kept in @p m, or NULL. */
static Dwarf *sysroot_alt(struct hs_mod *m, Dwarf *dw)
{
    const char *name;
    const void *id, *fid;
    char path[BUILD_ID_PATH_SIZE], why[512];
    struct stat st;
    ssize_t len;
    Elf *elf;
    Dwarf *alt = NULL;
    int fd;

    if (!m->c->sysroot)
        return NULL;
    len = dwelf_dwarf_gnu_debugaltlink(dw, &name, &id);
    if (len <= 0 || build_id_path(id, (size_t)len, path) != 0)
        return NULL;
    fd = gc_open_below(m->c->sysroot, "--sysroot", path, &st, why, sizeof(why));
    if (fd < 0)
        return NULL;
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf && elf_kind(elf) == ELF_K_ELF && dwelf_elf_gnu_build_id(elf, &fid) == len &&
        memcmp(fid, id, (size_t)len) == 0)
        alt = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!alt) {
        elf_end(elf);
        close(fd);
        return NULL;
    }
    m->alt = alt;
    m->alt_elf = elf;
    m->alt_fd = fd;
    return alt;
}

/* The 64 bytes of an x86-64 little-endian ELF header of @p type, without segments or sections:
   the images gpucore makes for libelf itself (no_alt(), init_ebl_elf()). @p h is zeroed. */
static void put_elf_header(unsigned char h[64], uint16_t type)
{
    memcpy(h, ELFMAG, SELFMAG);
    h[EI_CLASS] = ELFCLASS64;
    h[EI_DATA] = ELFDATA2LSB;
    h[EI_VERSION] = EV_CURRENT;
    gc_le16_put(h + 16, type);
    gc_le16_put(h + 18, EM_X86_64);
    gc_le32_put(h + 20, EV_CURRENT);
    gc_le16_put(h + 52, 64); /* e_ehsize */
    gc_le16_put(h + 58, 64); /* e_shentsize */
}

/* The supplementary file for every module gpucore found none for: an image without strings
   or units, so a reference into it (DW_FORM_GNU_strp_alt, DW_FORM_strp_sup,
   DW_FORM_GNU_ref_alt) reads nothing rather than another file's or the module's own bytes.
   NULL when out of memory. */
static Dwarf *no_alt(struct hs_ctx *c)
{
    static const char names[] = NO_ALT_NAMES;
    unsigned char *h = c->no_alt_image, *sh = h + NO_ALT_SHOFF;

    if (c->no_alt)
        return c->no_alt;
    memset(h, 0, sizeof(c->no_alt_image));
    put_elf_header(h, ET_DYN);
    gc_le64_put(h + 40, NO_ALT_SHOFF);
    gc_le16_put(h + 60, 3);  /* e_shnum */
    gc_le16_put(h + 62, 1);  /* e_shstrndx */
    memcpy(h + NO_ALT_SHSTRTAB, names, sizeof(names));
    /* [1] .shstrtab, [2] .debug_line: sh_name, sh_type, sh_offset, sh_size */
    gc_le32_put(sh + 64, 1);
    gc_le32_put(sh + 64 + 4, SHT_STRTAB);
    gc_le64_put(sh + 64 + 24, NO_ALT_SHSTRTAB);
    gc_le64_put(sh + 64 + 32, sizeof(names));
    gc_le32_put(sh + 128, sizeof(".shstrtab") + 1);
    gc_le32_put(sh + 128 + 4, SHT_PROGBITS);
    gc_le64_put(sh + 128 + 24, NO_ALT_LINE);
    gc_le64_put(sh + 128 + 32, 4);
    c->no_alt_elf = elf_memory((char *)h, sizeof(c->no_alt_image));
    if (c->no_alt_elf)
        c->no_alt = dwarf_begin_elf(c->no_alt_elf, DWARF_C_READ, NULL);
    return c->no_alt;
}

/*
 * The module's DWARF, with its supplementary file set before anything reads it. Left unset,
 * libdw looks for one itself the first time a unit refers to it (dwarf_getalt): it opens
 * /usr/lib/debug/.build-id/ of this machine and then the path the image's .gnu_debugaltlink
 * names, as it is, with the reader's rights; the vDSO's image is the core's, so a core could make
 * `gpucore analyze` read a device or block on a FIFO. The file is instead the one below --sysroot
 * whose build-id is the altlink's (sysroot_alt()), else no_alt(): libdw never looks.
 * Unwinding reads no unit (only CFI), so this is done before the first source line is looked up.
 * NULL when the module has no DWARF, no state, or memory ran out.
 */
static Dwarf *module_dwarf(Dwfl_Module *mod)
{
    struct hs_mod *m = module_state(mod);
    Dwarf_Addr bias;
    Dwarf *dw = m ? dwfl_module_getdwarf(mod, &bias) : NULL, *alt;

    if (!dw || m->alt_set)
        return dw;
    alt = sysroot_alt(m, dw);
    if (!alt)
        alt = no_alt(m->c);
    if (!alt)
        return NULL;
    dwarf_setalt(dw, alt);
    m->alt_set = 1;
    return dw;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    struct hs_ctx *c = arg;

    (void)dwfl;
    for (uint32_t i = 0; i < c->nthreads; i++)
        if (c->threads[i].tid == tid) {
            *thread_argp = &c->threads[i];
            return true;
        }
    return false;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    struct hs_ctx *c = arg;
    struct hs_thread *th = *thread_argp;
    uint32_t i = th ? (uint32_t)(th - c->threads) + 1 : 0;

    (void)dwfl;
    if (i >= c->nthreads)
        return 0;
    *thread_argp = &c->threads[i];
    return c->threads[i].tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    struct hs_ctx *c = arg;
    uint8_t b[8];

    (void)dwfl;
    if (gpucore_core_read(c->core, addr, b, sizeof(b), NULL) != GPUCORE_OK)
        return false;
    *result = gc_le64_get(b);
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const struct hs_thread *th = thread_arg;
    Dwarf_Word regs[17];

    for (size_t i = 0; i < GC_ARRAY_SIZE(regs); i++)
        regs[i] = th->regs[dwarf_to_user_reg[i]];
    dwfl_thread_state_register_pc(thread, th->regs[UR_RIP]);
    return dwfl_thread_state_registers(thread, 0, 16, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- frames ------------------------------------------------------------------------------- */

struct frames {
    Dwfl *dwfl;
    json_t *arr;
    int more;
};

static json_t *frame_json(Dwfl *dwfl, Dwarf_Addr pc, bool activation)
{
    /* A return address points after the call: look the caller up at the call itself. */
    Dwarf_Addr at = activation || pc == 0 ? pc : pc - 1, start = 0;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, at);
    const char *mname = mod ? dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL)
                            : NULL;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *sname = mod ? dwfl_module_addrinfo(mod, at, &off, &sym, NULL, NULL, NULL) : NULL;
    Dwfl_Line *line = sname && module_dwarf(mod) ? dwfl_module_getsrc(mod, at) : NULL;
    json_t *o = json_object(), *src = json_null();
    char demangled[GC_DEMANGLE_TEXT_MAX];
    int lineno = 0, col = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL) : NULL;

    if (!o)
        return NULL;
    if (file) {
        json_decref(src);
        src = json_object();
        json_object_set_new(src, GC_TK_FILE, printable_json(file));
        json_object_set_new(src, GC_TK_LINE, json_integer(lineno));
        json_object_set_new(src, GC_TK_COLUMN, json_integer(col));
    }
    json_object_set_new(o, GC_TK_PC, gc_json_hex(pc));
    json_object_set_new(o, GC_TK_MODULE, mname ? printable_json(mname) : json_null());
    json_object_set_new(o, GC_TK_MODULE_OFFSET, mname ? gc_json_hex(pc - start) : json_null());
    json_object_set_new(o, GC_TK_SYMBOL, printable_json(sname));
    json_object_set_new(o, GC_TK_SYMBOL_DEMANGLED,
                        sname && gc_demangle(sname, demangled, sizeof(demangled))
                                ? printable_json(demangled)
                                : json_null());
    json_object_set_new(o, GC_TK_SYMBOL_OFFSET,
                        sname ? json_integer((json_int_t)(off + (pc - at))) : json_null());
    json_object_set_new(o, GC_TK_SOURCE, src);
    return o;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
    struct frames *f = arg;
    Dwarf_Addr pc;
    bool activation;

    if (json_array_size(f->arr) >= GC_HS_MAX_FRAMES) {
        f->more = 1;
        return DWARF_CB_ABORT;
    }
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    if (pc == 0 && !activation)
        return DWARF_CB_ABORT; /* a zero return address: the outermost frame was the last */
    json_array_append_new(f->arr, frame_json(f->dwfl, pc, activation));
    return DWARF_CB_OK;
}

/* Why unwinding stopped early: most often the last frame's module has no file here, so neither
   CFI nor a frame-pointer chain through it could be followed; that is said in words, without
   libdwfl's message for it (which is only "Callback returned failure": its memory callback
   found no unwind tables to read). */
static json_t *unwind_end_json(const json_t *frames)
{
    const json_t *last = json_array_get(frames, json_array_size(frames) - 1);
    const char *mod = json_string_value(json_object_get(last, GC_TK_MODULE));
    char b[512];

    if (last && json_is_null(json_object_get(last, GC_TK_SYMBOL)))
        snprintf(b, sizeof(b), "no unwind tables for %s: its file is not at hand",
                 mod ? mod : "a frame outside every mapped file");
    else
        snprintf(b, sizeof(b), "libdwfl: %s", dwfl_errmsg(-1));
    return printable_json(b);
}

static json_t *syscall_json(const struct hs_thread *th)
{
    int64_t nr = (int64_t)th->regs[UR_ORIG_RAX];
    char b[48];

    if (nr < 0)
        return json_null();
    if (nr == SYS_IOCTL && (uint32_t)th->regs[UR_RSI] == KFD_IOC_WAIT_EVENTS)
        return json_string("ioctl(AMDKFD_IOC_WAIT_EVENTS)");
    /* Every x86-64 number has its name, a reader sees "sendto" rather than a number; one the
       table does not know (a newer kernel's) stays a number. */
    if (nr < (int64_t)GC_SYSCALLS_X86_64_COUNT && gc_syscalls_x86_64[nr])
        return json_string(gc_syscalls_x86_64[nr]);
    snprintf(b, sizeof(b), "#%" PRId64, nr);
    return json_string(b);
}

static json_t *signal_json(int sig)
{
    const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
    char b[32];

    if (sig <= 0)
        return json_null();
    if (abbrev)
        snprintf(b, sizeof(b), "SIG%s", abbrev);
    else
        snprintf(b, sizeof(b), "signal %d", sig);
    return json_string(b);
}

static json_t *thread_json(Dwfl *dwfl, const struct hs_thread *th, int first, int sig,
                           int attached, uint32_t error_thread)
{
    struct frames f = { .dwfl = dwfl, .arr = json_array() };
    json_t *o = json_object();
    int rc;

    if (!o || !f.arr) {
        json_decref(o);
        json_decref(f.arr);
        return NULL;
    }
    json_object_set_new(o, GC_TK_TID, json_integer(th->tid));
    json_object_set_new(o, GC_TK_FIRST, json_boolean(first));
    json_object_set_new(o, GC_TK_MET_ERROR,
                        json_boolean(error_thread && (uint32_t)th->tid == error_thread));
    /* A first thread with pr_cursig 0 was not signalled (a gcore, or an on-demand capture):
       its NT_SIGINFO only says how it was stopped. */
    json_object_set_new(o, GC_TK_SIGNAL,
                        signal_json(first && th->cursig ? (sig ? sig : th->cursig) : 0));
    json_object_set_new(o, GC_TK_SYSCALL, syscall_json(th));
    if (attached) {
        rc = dwfl_getthread_frames(dwfl, th->tid, frame_cb, &f);
        json_object_set_new(o, GC_TK_UNWIND_END, rc < 0 ? unwind_end_json(f.arr) : json_null());
    } else {
        json_array_append_new(f.arr, frame_json(dwfl, th->regs[UR_RIP], true));
        json_object_set_new(o, GC_TK_UNWIND_END, json_string("libdwfl could not attach"));
    }
    json_object_set_new(o, GC_TK_FRAMES, f.arr);
    json_object_set_new(o, GC_TK_MORE_FRAMES, json_boolean(f.more));
    return o;
}

/* Set each module's "in_frames": whether a frame shown is in it. */
static void mark_modules_in_frames(json_t *modules, const json_t *threads)
{
    const json_t *th, *f;
    json_t *m;
    size_t i, j, k;

    json_array_foreach(modules, i, m)
    {
        int in = 0;
        const char *name = json_string_value(json_object_get(m, GC_TK_NAME));

        json_array_foreach(threads, j, th)
                json_array_foreach(json_object_get(th, GC_TK_FRAMES), k, f)
        {
            const char *fm = json_string_value(json_object_get(f, GC_TK_MODULE));

            if (name && fm && strcmp(name, fm) == 0)
                in = 1;
        }
        json_object_set_new(m, GC_TK_IN_FRAMES, json_boolean(in));
    }
}

/* ---- the member --------------------------------------------------------------------------- */

static void init_ebl_elf(struct hs_ctx *c)
{
    unsigned char *h = c->ebl_image;

    memset(h, 0, sizeof(c->ebl_image));
    put_elf_header(h, ET_CORE);
    gc_le16_put(h + 54, 56); /* e_phentsize */
    elf_version(EV_CURRENT);
    c->ebl_elf = elf_memory((char *)h, sizeof(c->ebl_image));
}

json_t *gc_host_stacks_json(gpucore_core_t *core, const char *sysroot, uint32_t error_thread)
{
    struct hs_ctx c = { .core = core, .sysroot = sysroot };
    json_t *doc = json_object(), *threads = json_array();
    Dwfl *dwfl = NULL;
    char why[512] = "";
    int attached = 0, ok, sig;
    int64_t pid;

    c.no_symbols = json_array();
    if (!doc || !threads || !c.no_symbols)
        goto nomem;
    ok = read_threads(&c, why, sizeof(why));
    if (ok < 0)
        goto nomem;
    if (ok && c.nthreads == 0) {
        json_decref(doc);
        json_decref(threads);
        json_decref(c.no_symbols);
        return json_null();
    }
    sig = core_signal(core);
    if (ok) {
        init_ebl_elf(&c);
        dwfl = dwfl_begin(&dwfl_callbacks);
        if (!dwfl || !c.ebl_elf) {
            snprintf(why, sizeof(why), "libdwfl: %s", dwfl_errmsg(-1));
            ok = 0;
        }
    }
    if (ok) {
        dwfl_report_begin(dwfl);
        if (report_files(dwfl, &c) != 0)
            goto nomem;
        report_vdso(dwfl, &c);
        dwfl_report_end(dwfl, NULL, NULL);
        attached = dwfl_attach_state(dwfl, c.ebl_elf, c.threads[0].tid, &thread_callbacks, &c);
        for (uint32_t i = 0; i < c.nthreads && i < GC_HS_MAX_THREADS; i++) {
            json_t *t = thread_json(dwfl, &c.threads[i], i == 0, sig, attached,
                                    error_thread);

            if (!t)
                goto nomem;
            json_array_append_new(threads, t);
        }
    }
    pid = core_pid(core);
    json_object_set_new(doc, GC_TK_PID, pid >= 0 ? json_integer(pid) : json_null());
    json_object_set_new(doc, GC_TK_THREADS, threads);
    threads = NULL;
    json_object_set_new(doc, GC_TK_MORE_THREADS,
                        json_integer(c.nthreads > GC_HS_MAX_THREADS
                                             ? (json_int_t)(c.nthreads - GC_HS_MAX_THREADS)
                                             : 0));
    json_object_set_new(doc, "sysroot", sysroot ? printable_json(sysroot) : json_null());
    mark_modules_in_frames(c.no_symbols, json_object_get(doc, GC_TK_THREADS));
    json_object_set_new(doc, GC_TK_MODULES_WITHOUT_SYMBOLS, c.no_symbols);
    c.no_symbols = NULL;
    json_object_set_new(doc, GC_TK_PROBLEM, why[0] ? json_string(why) : json_null());
    dwfl_end(dwfl);
    free_modules(&c);
    if (c.ebl_elf)
        elf_end(c.ebl_elf);
    free(c.threads);
    return doc;
nomem:
    dwfl_end(dwfl);
    free_modules(&c);
    if (c.ebl_elf)
        elf_end(c.ebl_elf);
    free(c.threads);
    json_decref(doc);
    json_decref(threads);
    json_decref(c.no_symbols);
    return NULL;
}
