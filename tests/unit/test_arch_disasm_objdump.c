/* SPDX-License-Identifier: MIT */
/*
 * test_arch_disasm_objdump: every instruction of real kernels, disassembled by gpucore and by
 * llvm-objdump of the same LLVM, must agree in address, size, text and branch-target symbol.
 *
 * At test time tests/data/kernels/disasm_kernel.cl is compiled for every target of the table
 * (clang -x cl -cl-std=CL2.0 -nogpulib -O2, then ld.lld -shared), .text and .symtab are read with
 * libelf, and `llvm-objdump -d -z --mcpu=<cpu>` (-z: zero words are instructions too, not "...")
 * is run on the same file. With LLVM 19 every target is its own processor. An older LLVM lacks
 * some (LLVM 16: gfx941, gfx942 and gfx12): a row with a stand-in (gfx940 for gfx941/gfx942) is
 * checked on the stand-in's object, one without is skipped with the reason.
 *
 * Normalisation of an objdump line "\t<text><spaces>// <address>: <words>[ <sym+off>]":
 * the text is everything between the tab and the "//" with trailing blanks removed (gpucore's
 * text has the same leading tab and trailing blanks removed, nothing else); the size is 4 bytes
 * per hex word; the symbol is compared with the " <sym+off>" gpucore appends when a symbolizer
 * is given (here: the nearest preceding .text symbol, as llvm-objdump chooses it).
 *
 * The tools come from the environment (GC_DISASM_CLANG, GC_DISASM_LLD, GC_DISASM_OBJDUMP,
 * GC_DISASM_KERNELS, and the LLVM's processors GC_DISASM_CPUS, set by tests/arch_disasm.cmake); if one is missing the test exits 77
 * (skipped).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include <gpucore/status.h>

#include "arch.h"
#include "disasm.h"

static const char *tool_clang, *tool_lld, *tool_objdump, *kernel_dir;
static char tmpdir[4096];

struct target_case {
    const char *cpu;  /* clang and llvm-objdump --mcpu */
    const char *arch; /* gc_arch row used by gpucore */
};

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void run(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run a shell command; its output goes to a log that is printed if it fails. */
static void run(const char *what, const char *fmt, ...)
{
    char cmd[16384], log[4200];
    va_list ap;
    int n, rc;

    snprintf(log, sizeof(log), "%s/tool.log", tmpdir);
    va_start(ap, fmt);
    n = vsnprintf(cmd, sizeof(cmd) - sizeof(log) - 16, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof(cmd) - sizeof(log) - 16);
    snprintf(cmd + n, sizeof(cmd) - (size_t)n, " 2>'%s'", log);
    rc = system(cmd);
    if (rc != 0) {
        char line[512];
        FILE *f = fopen(log, "r");

        print_error("%s failed (%d): %s\n", what, rc, cmd);
        while (f && fgets(line, sizeof(line), f))
            print_error("  %s", line);
        if (f)
            fclose(f);
    }
    assert_int_equal(rc, 0);
}

struct objline {
    uint64_t addr;
    uint32_t size;
    char text[GC_DISASM_TEXT_MAX];
    char sym[256]; /* "<k_main+0xa0>" or "" */
};

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

/* Parse one instruction line of llvm-objdump's AMDGPU output; 0 if it is no such line. */
static int parse_objdump_line(const char *line, struct objline *o)
{
    const char *cm, *p;
    char *end;
    size_t tl;

    if (line[0] != '\t')
        return 0;
    cm = strstr(line, "//");
    if (!cm)
        return 0;
    tl = (size_t)(cm - (line + 1));
    while (tl > 0 && (line[1 + tl - 1] == ' ' || line[1 + tl - 1] == '\t'))
        tl--;
    assert_true(tl < sizeof(o->text));
    memcpy(o->text, line + 1, tl);
    o->text[tl] = '\0';

    p = cm + 2;
    while (*p == ' ')
        p++;
    o->addr = strtoull(p, &end, 16);
    assert_true(end != p && *end == ':');
    p = end + 1;
    o->size = 0;
    /* Hex words of 8 digits, separated by blanks. */
    for (;;) {
        while (*p == ' ')
            p++;
        if (!(is_hex(p[0]) && strspn(p, "0123456789ABCDEFabcdef") == 8))
            break;
        o->size += 4;
        p += 8;
    }
    o->sym[0] = '\0';
    if (*p == '<') {
        size_t sl = strcspn(p, "\n");

        assert_true(sl < sizeof(o->sym));
        memcpy(o->sym, p, sl);
        o->sym[sl] = '\0';
    }
    return o->size > 0;
}

static struct objline *read_objdump(const char *path, size_t *ret_n)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    struct objline *v = NULL;
    size_t n = 0, cap = 0;

    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        struct objline o;

        if (!parse_objdump_line(line, &o))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = realloc(v, cap * sizeof(*v));
            assert_non_null(v);
        }
        v[n++] = o;
    }
    fclose(f);
    *ret_n = n;
    return v;
}

struct elf_text {
    uint8_t *bytes;
    size_t size;
    uint64_t addr;
    struct tsym {
        uint64_t addr;
        char *name;
    } * syms;
    size_t nsyms;
};

static int cmp_tsym(const void *a, const void *b)
{
    const struct tsym *x = a, *y = b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* .text bytes and the symbols defined in it, with libelf. */
static void read_elf(const char *path, struct elf_text *t)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf *e;
    Elf_Scn *scn = NULL, *symscn = NULL;
    size_t shstrndx, text_ndx = 0;
    GElf_Shdr sh, symsh = { 0 };

    memset(t, 0, sizeof(*t));
    assert_true(fd >= 0);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    e = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(e);
    assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        const char *name;

        assert_non_null(gelf_getshdr(scn, &sh));
        name = elf_strptr(e, shstrndx, sh.sh_name);
        if (name && strcmp(name, ".text") == 0) {
            Elf_Data *d = elf_getdata(scn, NULL);

            assert_non_null(d);
            assert_int_equal(d->d_size, sh.sh_size);
            t->bytes = malloc(d->d_size);
            assert_non_null(t->bytes);
            memcpy(t->bytes, d->d_buf, d->d_size);
            t->size = d->d_size;
            t->addr = sh.sh_addr;
            text_ndx = elf_ndxscn(scn);
        } else if (sh.sh_type == SHT_SYMTAB) {
            symscn = scn;
            symsh = sh;
        }
    }
    assert_non_null(t->bytes);
    assert_non_null(symscn);
    {
        Elf_Data *d = elf_getdata(symscn, NULL);
        size_t n = symsh.sh_size / symsh.sh_entsize;

        t->syms = calloc(n, sizeof(*t->syms));
        assert_non_null(t->syms);
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            const char *name;
            int type;

            assert_non_null(gelf_getsym(d, (int)i, &s));
            type = GELF_ST_TYPE(s.st_info);
            name = elf_strptr(e, symsh.sh_link, s.st_name);
            if (s.st_shndx != text_ndx || !name || !*name ||
                (type != STT_FUNC && type != STT_NOTYPE))
                continue;
            t->syms[t->nsyms].addr = s.st_value;
            t->syms[t->nsyms].name = strdup(name);
            t->nsyms++;
        }
    }
    qsort(t->syms, t->nsyms, sizeof(*t->syms), cmp_tsym);
    elf_end(e);
    close(fd);
}

static void free_elf(struct elf_text *t)
{
    for (size_t i = 0; i < t->nsyms; i++)
        free(t->syms[i].name);
    free(t->syms);
    free(t->bytes);
}

/* The nearest preceding .text symbol, as llvm-objdump labels branch targets. */
static int text_lookup(void *user, uint64_t addr, const char **ret_name, uint64_t *ret_offset)
{
    const struct elf_text *t = user;
    const struct tsym *best = NULL;

    if (addr < t->addr || addr - t->addr >= t->size)
        return 0;
    for (size_t i = 0; i < t->nsyms && t->syms[i].addr <= addr; i++)
        best = &t->syms[i];
    if (!best)
        return 0;
    *ret_name = best->name;
    *ret_offset = addr - best->addr;
    return 1;
}

struct collected {
    struct gc_disasm_insn *v;
    size_t n, cap;
};

static int collect(void *user, const struct gc_disasm_insn *insn)
{
    struct collected *c = user;

    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->v = realloc(c->v, c->cap * sizeof(*c->v));
        if (!c->v)
            return 1;
    }
    c->v[c->n++] = *insn;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The comparison                                                                              */
/* ------------------------------------------------------------------------------------------ */

static void compare_target(const struct target_case *tc)
{
    char obj[4200], so[4200], dis[4200];
    const struct gc_arch *arch = gc_arch_by_name(tc->arch);
    struct elf_text t;
    struct objline *ol;
    size_t nol, mismatches = 0, with_sym = 0;
    struct collected got = { 0 };
    struct gc_disasm_symbolizer sym = { .lookup = text_lookup, .user = &t };
    gpucore_diag_t diag = { 0 };
    gpucore_status_t st;

    assert_non_null(arch);
    assert_true(gc_disasm_available(arch));
    snprintf(obj, sizeof(obj), "%s/k_%s.o", tmpdir, tc->cpu);
    snprintf(so, sizeof(so), "%s/k_%s.so", tmpdir, tc->cpu);
    snprintf(dis, sizeof(dis), "%s/k_%s_%s.objdump", tmpdir, tc->cpu, tc->arch);
    run("clang",
        "'%s' -target amdgcn-amd-amdhsa -mcpu=%s -nogpulib -O2 -x cl -cl-std=CL2.0 -c "
        "'%s/disasm_kernel.cl' -o '%s'",
        tool_clang, tc->cpu, kernel_dir, obj);
    run("ld.lld", "'%s' -shared '%s' -o '%s'", tool_lld, obj, so);
    run("llvm-objdump", "'%s' -d -z --mcpu=%s '%s' >'%s'", tool_objdump, tc->cpu, so, dis);

    read_elf(so, &t);
    ol = read_objdump(dis, &nol);
    assert_true(nol > 100);

    st = gc_disasm_range(arch, t.bytes, t.size, t.addr, &sym, collect, &got, NULL, &diag);
    if (st != GPUCORE_OK)
        print_error("gc_disasm_range: %s\n", diag.message);
    assert_int_equal(st, GPUCORE_OK);

    for (size_t i = 0; i < nol && i < got.n; i++) {
        char want[GC_DISASM_TEXT_MAX + 300];

        snprintf(want, sizeof(want), "%s%s%s", ol[i].text, ol[i].sym[0] ? " " : "", ol[i].sym);
        with_sym += ol[i].sym[0] != '\0';
        if (got.v[i].pc != ol[i].addr || got.v[i].size != ol[i].size ||
            strcmp(got.v[i].text, want) != 0) {
            if (mismatches++ < 10)
                print_error("%s #%zu\n  objdump 0x%llx %u [%s]\n  gpucore 0x%llx %u [%s]\n",
                            tc->arch, i, (unsigned long long)ol[i].addr, ol[i].size, want,
                            (unsigned long long)got.v[i].pc, got.v[i].size, got.v[i].text);
        }
    }
    print_message("  %s (%s object, llvm-objdump --mcpu=%s): %zu instructions compared, %zu "
                  "with a branch-target symbol, %zu mismatches\n",
                  tc->arch, tc->cpu, tc->cpu, nol < got.n ? nol : got.n, with_sym, mismatches);
    assert_int_equal(got.n, nol);
    assert_int_equal(mismatches, 0);

    /* The same through the one-instruction entry point, without a symbolizer. */
    for (size_t i = 0; i < nol; i++) {
        char text[GC_DISASM_TEXT_MAX];
        uint32_t size = 0;
        size_t off = (size_t)(ol[i].addr - t.addr);

        assert_int_equal(gc_disasm_insn(arch, t.bytes + off, t.size - off, ol[i].addr, NULL, text,
                                        sizeof(text), &size, NULL),
                         GPUCORE_OK);
        assert_string_equal(text, ol[i].text);
        assert_int_equal(size, ol[i].size);
    }

    free(got.v);
    free(ol);
    free_elf(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Every target                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* The processors of the LLVM (GC_DISASM_CPUS, from `llc -mcpu=help`, comma-separated). */
static const char *llvm_cpus;

static int llvm_has(const char *cpu)
{
    size_t n = strlen(cpu);

    for (const char *p = llvm_cpus; p && *p;) {
        size_t len = strcspn(p, ",");

        if (len == n && strncmp(p, cpu, n) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/*
 * One row of the target table: compiled for the row's own processor when the LLVM has it (every
 * row with LLVM 19), else for its stand-in (gfx940 for gfx941/gfx942 on LLVM 16), else skipped
 * with the reason (gfx12 on LLVM 16). From LLVM 19 on a stand-in or a skip is a failure.
 */
static void test_target(void **state)
{
    const struct gc_arch *a = *(const struct gc_arch *const *)*state;
    struct target_case tc = { .arch = a->name };

    if (llvm_has(a->name))
        tc.cpu = a->name;
    else if (a->llvm_cpu && llvm_has(a->llvm_cpu))
        tc.cpu = a->llvm_cpu;
    if (GC_TEST_LLVM_MAJOR >= GC_TEST_LLVM_ALL_TARGETS_MAJOR && tc.cpu != a->name)
        fail_msg("LLVM %d has no processor %s (every target has one from LLVM %d on)",
                 GC_TEST_LLVM_MAJOR, a->name, GC_TEST_LLVM_ALL_TARGETS_MAJOR);
    if (!tc.cpu) {
        print_message("  %s: SKIPPED, LLVM %d has no processor %s nor a stand-in (LLVM %d has)\n",
                      a->name, GC_TEST_LLVM_MAJOR, a->name, GC_TEST_LLVM_ALL_TARGETS_MAJOR);
        skip();
    }
    compare_target(&tc);
}

static const char *tool(const char *env)
{
    const char *p = getenv(env);

    if (!p || !*p || access(p, X_OK) != 0) {
        printf("SKIP: %s not set or not executable ('%s')\n", env, p ? p : "");
        return NULL;
    }
    return p;
}

int main(void)
{
    static struct CMUnitTest tests[64];
    static const struct gc_arch *rows[64];
    size_t ntests = 0;
    const char *base = getenv("GPUCORE_TEST_TMPDIR");
    struct stat st;
    int failed;

    tool_clang = tool("GC_DISASM_CLANG");
    tool_lld = tool("GC_DISASM_LLD");
    tool_objdump = tool("GC_DISASM_OBJDUMP");
    kernel_dir = getenv("GC_DISASM_KERNELS");
    llvm_cpus = getenv("GC_DISASM_CPUS");
    if (!llvm_cpus || !*llvm_cpus) {
        printf("SKIP: GC_DISASM_CPUS (the LLVM's processors) not set\n");
        return 77;
    }
    for (const struct gc_arch *a = gc_arch_table; a->name; a++) {
        if (ntests == sizeof(tests) / sizeof(tests[0]))
            return 1;
        rows[ntests] = a;
        tests[ntests] = (struct CMUnitTest){ .name = a->name, .test_func = test_target,
                                             .initial_state = (void *)&rows[ntests] };
        ntests++;
    }
    if (!tool_clang || !tool_lld || !tool_objdump)
        return 77;
    if (!kernel_dir || stat(kernel_dir, &st) != 0) {
        printf("SKIP: GC_DISASM_KERNELS not set or missing\n");
        return 77;
    }
    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755);
    snprintf(tmpdir, sizeof(tmpdir), "%s/disasm.XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        perror(tmpdir);
        return 1;
    }

    failed = _cmocka_run_group_tests("arch: disassembler vs llvm-objdump", tests, ntests, NULL,
                                     NULL);
    gc_disasm_fini();
    if (!failed && !getenv("GPUCORE_TEST_KEEP")) {
        char cmd[4200];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return failed ? 1 : 0;
}
