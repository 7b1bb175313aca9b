/* SPDX-License-Identifier: MIT */
/*
 * libcore atomic publish and writer options: nothing under the final name before finish,
 * nothing at all after abort, refusal to overwrite unless asked, the file mode regardless of
 * the umask, the hidden-name fallback for file systems without O_TMPFILE, and the `sz` rule.
 */
#include <dirent.h>
#include <errno.h>
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

#include <gpucore/core.h>

#include "core_publish.h"
#include "test_core_util.h"

static int setup(void **state)
{
    return tc_fixture_new(state, "publish", "p.core");
}

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* The one entry of @p dir (which must have exactly one), malloc'ed. */
static char *only_entry(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *name = NULL;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        assert_null(name);
        name = strdup(e->d_name);
    }
    closedir(d);
    assert_non_null(name);
    return name;
}

static void write_small(const char *path, const struct gpucore_writer_opts *o,
                        gpucore_status_t want_finish)
{
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;

    assert_int_equal(gpucore_writer_open(path, o, &w, &d), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "data", 4, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), want_finish);
}

static void test_nothing_before_finish(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    gpucore_core_t *core = NULL;

    for (int compressed = 0; compressed < 2; compressed++) {
        assert_int_equal(gpucore_writer_open(f->path,
                                             GPUCORE_OPTS(gpucore_writer_opts,
                                                          .compress = (uint32_t)compressed),
                                             &w, NULL),
                         GPUCORE_OK);
        assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "data", 4, NULL), GPUCORE_OK);
        /* O_TMPFILE: not even a temporary name is visible. */
        assert_false(exists(f->path));
        assert_int_equal(tc_dir_entries(f->dir), 0);
        assert_int_equal(gpucore_writer_finish(w, NULL, NULL), GPUCORE_OK);
        assert_int_equal(tc_dir_entries(f->dir), 1);
        assert_int_equal(gpucore_core_open(f->path, NULL, &core, NULL), GPUCORE_OK);
        gpucore_core_close(core);
        unlink(f->path);
    }
}

static void test_abort_leaves_nothing(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;

    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "data", 4, NULL), GPUCORE_OK);
    gpucore_writer_abort(w);
    assert_int_equal(tc_dir_entries(f->dir), 0);
}

static void test_refuse_existing(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    uint8_t *bytes;
    size_t n;

    assert_int_equal(tc_write_file(f->path, "precious", 8), 0);
    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, &d), GPUCORE_E_EXIST);
    assert_non_null(strstr(d.message, "exists"));
    /* A dangling symlink is an existing name too: never write through it. */
    {
        char *link = tc_path(f->dir, "link.core");

        assert_int_equal(symlink("nowhere", link), 0);
        assert_int_equal(gpucore_writer_open(link, NULL, &w, &d), GPUCORE_E_EXIST);
        unlink(link);
        free(link);
    }
    bytes = tc_read_file(f->path, &n);
    assert_int_equal(n, 8);
    free(bytes);

    /* OVERWRITE replaces it, atomically (rename over it). */
    write_small(f->path, GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE),
                GPUCORE_OK);
    bytes = tc_read_file(f->path, &n);
    assert_true(n > 64);
    assert_memory_equal(bytes, "\177ELF", 4);
    free(bytes);
    assert_int_equal(tc_dir_entries(f->dir), 1);
}

/* The final name appears while the core is written: finish refuses and keeps the other file. */
static void test_appears_meanwhile(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    uint8_t *bytes;
    size_t n;

    assert_int_equal(gpucore_writer_open(f->path, NULL, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "data", 4, NULL), GPUCORE_OK);
    assert_int_equal(tc_write_file(f->path, "other", 5), 0);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_E_EXIST);
    bytes = tc_read_file(f->path, &n);
    assert_int_equal(n, 5);
    free(bytes);
    assert_int_equal(tc_dir_entries(f->dir), 1);

    /* With OVERWRITE the late file is replaced. */
    assert_int_equal(
            gpucore_writer_open(f->path,
                                GPUCORE_OPTS(gpucore_writer_opts, .flags = GPUCORE_WRITE_OVERWRITE),
                                &w, NULL),
            GPUCORE_OK);
    unlink(f->path);
    assert_int_equal(tc_write_file(f->path, "other", 5), 0);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_OK);
    bytes = tc_read_file(f->path, &n);
    assert_true(n > 64);
    free(bytes);
    assert_int_equal(tc_dir_entries(f->dir), 1);
}

/* rename_on_exist of the tests: PATH.N, stopping after @p user's count of attempts. */
struct other_names {
    const char *path;
    uint32_t max, asked;
};

static int numbered(void *user, uint32_t attempt, char *buf, size_t size)
{
    struct other_names *o = user;

    o->asked = attempt;
    if (attempt > o->max)
        return -1;
    snprintf(buf, size, "%s.%u", o->path, attempt);
    return 0;
}

/*
 * With rename_on_exist, a name taken while the core is written is numbered on, never replaced
 * and never the reason the core is lost: PATH and PATH.1 taken meanwhile, the core is PATH.2;
 * the other files keep their bytes. Through the hidden-file fallback too.
 */
static void test_appears_meanwhile_renamed(void **state)
{
    struct tc_fixture *f = *state;
    struct other_names o = { .path = f->path, .max = 5 };
    const struct gpucore_writer_opts *wo =
            GPUCORE_OPTS(gpucore_writer_opts, .rename_on_exist = numbered, .rename_user = &o);
    char one[PATH_MAX], two[PATH_MAX];
    struct gc_core_publish p;
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    uint8_t *bytes;
    size_t n;

    snprintf(one, sizeof(one), "%s.1", f->path);
    snprintf(two, sizeof(two), "%s.2", f->path);
    assert_int_equal(gpucore_writer_open(f->path, wo, &w, NULL), GPUCORE_OK);
    assert_int_equal(gpucore_writer_add_segment(w, 0x1000, "data", 4, NULL), GPUCORE_OK);
    assert_int_equal(tc_write_file(f->path, "other", 5), 0);
    assert_int_equal(tc_write_file(one, "third", 5), 0);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_OK);
    assert_int_equal(o.asked, 2);
    bytes = tc_read_file(two, &n);
    assert_true(n > 64);
    assert_memory_equal(bytes, "\177ELF", 4);
    free(bytes);
    bytes = tc_read_file(f->path, &n);
    assert_int_equal(n, 5);
    assert_memory_equal(bytes, "other", 5);
    free(bytes);
    assert_int_equal(tc_dir_entries(f->dir), 3);

    /* the caller stops giving names: the finish fails as without them, nothing is left */
    o.max = 1;
    assert_int_equal(gpucore_writer_open(f->path, wo, &w, NULL), GPUCORE_E_EXIST);
    unlink(two);
    unlink(one);
    unlink(f->path);
    assert_int_equal(gpucore_writer_open(f->path, wo, &w, NULL), GPUCORE_OK);
    assert_int_equal(tc_write_file(f->path, "other", 5), 0);
    assert_int_equal(tc_write_file(one, "third", 5), 0);
    assert_int_equal(gpucore_writer_finish(w, NULL, &d), GPUCORE_E_EXIST);
    assert_int_equal(tc_dir_entries(f->dir), 2);
    unlink(one);

    /* the hidden-file fallback: RENAME_NOREPLACE refuses, the next name is taken */
    o.max = 5;
    unlink(f->path);
    assert_int_equal(gc_core_publish_open(&p, f->path, 0600, GC_CORE_PUBLISH_NO_TMPFILE, &d),
                     GPUCORE_OK);
    p.rename_on_exist = numbered;
    p.rename_user = &o;
    assert_int_equal(write(p.fd, "abc", 3), 3);
    assert_int_equal(tc_write_file(f->path, "other", 5), 0);
    assert_int_equal(gc_core_publish_commit(&p, &d), GPUCORE_OK);
    bytes = tc_read_file(one, &n);
    assert_int_equal(n, 3);
    free(bytes);
    assert_int_equal(tc_dir_entries(f->dir), 2);
}

static void test_mode_ignores_umask(void **state)
{
    struct tc_fixture *f = *state;
    mode_t old = umask(0777);
    struct stat st;

    write_small(f->path, NULL, GPUCORE_OK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    unlink(f->path);
    write_small(f->path, GPUCORE_OPTS(gpucore_writer_opts, .mode = 0640), GPUCORE_OK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    umask(old);
}

/* The fallback for file systems without O_TMPFILE: a hidden `.NAME.XXXXXX` file. */
static void test_fallback_named_tmp(void **state)
{
    struct tc_fixture *f = *state;
    struct gc_core_publish p;
    gpucore_diag_t d;
    struct stat st;
    char *name;

    assert_int_equal(gc_core_publish_open(&p, f->path, 0640, GC_CORE_PUBLISH_NO_TMPFILE, &d),
                     GPUCORE_OK);
    name = only_entry(f->dir);
    assert_true(!strncmp(name, ".p.core.", 8) && strlen(name) == 14);
    free(name);
    assert_int_equal(write(p.fd, "abc", 3), 3);
    assert_int_equal(gc_core_publish_commit(&p, &d), GPUCORE_OK);
    name = only_entry(f->dir);
    assert_string_equal(name, "p.core");
    free(name);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_size, 3);
    assert_int_equal(st.st_mode & 07777, 0640);

    /* Without OVERWRITE, an existing name wins (RENAME_NOREPLACE); the hidden file goes. */
    assert_int_equal(gc_core_publish_open(&p, f->path, 0600, GC_CORE_PUBLISH_NO_TMPFILE, &d),
                     GPUCORE_E_EXIST);
    assert_int_equal(gc_core_publish_open(&p, f->path, 0600,
                                          GC_CORE_PUBLISH_NO_TMPFILE | GC_CORE_PUBLISH_OVERWRITE,
                                          &d),
                     GPUCORE_OK);
    p.overwrite = 0; /* as if the name appeared after a non-overwriting open */
    assert_int_equal(gc_core_publish_commit(&p, &d), GPUCORE_E_EXIST);
    assert_int_equal(tc_dir_entries(f->dir), 1);

    /* OVERWRITE replaces; abort removes the hidden file. */
    assert_int_equal(gc_core_publish_open(&p, f->path, 0600,
                                          GC_CORE_PUBLISH_NO_TMPFILE | GC_CORE_PUBLISH_OVERWRITE,
                                          &d),
                     GPUCORE_OK);
    assert_int_equal(tc_dir_entries(f->dir), 2);
    gc_core_publish_abort(&p);
    assert_int_equal(tc_dir_entries(f->dir), 1);
    assert_int_equal(gc_core_publish_open(&p, f->path, 0600,
                                          GC_CORE_PUBLISH_NO_TMPFILE | GC_CORE_PUBLISH_OVERWRITE,
                                          &d),
                     GPUCORE_OK);
    assert_int_equal(gc_core_publish_commit(&p, &d), GPUCORE_OK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(tc_dir_entries(f->dir), 1);
}

static void test_bad_paths(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    char *missing = tc_path(f->dir, "no/such/dir.core");
    char *slash = tc_path(f->dir, "trailing/");

    assert_int_equal(gpucore_writer_open(missing, NULL, &w, &d), GPUCORE_E_CANTCREAT);
    assert_non_null(strstr(d.message, "No such file"));
    assert_int_equal(gpucore_writer_open(slash, NULL, &w, &d), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_open(NULL, NULL, &w, &d), GPUCORE_E_INVAL);
    assert_int_equal(gpucore_writer_open(f->path, NULL, NULL, &d), GPUCORE_E_INVAL);
    free(missing);
    free(slash);
}

static void test_options(void **state)
{
    struct tc_fixture *f = *state;
    gpucore_writer_t *w = NULL;
    gpucore_diag_t d;
    uint8_t big[sizeof(struct gpucore_writer_opts) + 16] = { 0 };
    struct gpucore_writer_opts *o = (struct gpucore_writer_opts *)big;
    static const struct {
        struct gpucore_writer_opts o;
        const char *why;
    } bad[] = {
        { { .sz = sizeof(struct gpucore_writer_opts), .kind = 2 }, "kind" },
        { { .sz = sizeof(struct gpucore_writer_opts), .flags = 0x80 }, "flags" },
        { { .sz = sizeof(struct gpucore_writer_opts), .mode = 010000 }, "mode" },
        { { .sz = sizeof(struct gpucore_writer_opts), .frame_size = 4096 }, "frame size" },
        { { .sz = sizeof(struct gpucore_writer_opts), .frame_size = 65u << 20 }, "frame size" },
        { { .sz = sizeof(struct gpucore_writer_opts), .compress_level = 23 }, "level" },
        { { .sz = sizeof(struct gpucore_writer_opts), .threads = 1000 }, "threads" },
        { { .sz = sizeof(struct gpucore_writer_opts), .kind = 1, .e_machine = 62 }, "e_machine" },
        { { .sz = sizeof(struct gpucore_writer_opts), .e_machine = 70000 }, "e_machine" },
        { { .sz = 2 }, "sz" },
    };

    for (size_t i = 0; i < GC_TEST_ARRAY(bad); i++) {
        gpucore_status_t st = gpucore_writer_open(f->path, &bad[i].o, &w, &d);

        if (st != GPUCORE_E_INVAL)
            fail_msg("options case %zu (%s): %s", i, bad[i].why, gpucore_status_name(st));
        assert_non_null(strstr(d.message, bad[i].why));
    }
    assert_int_equal(tc_dir_entries(f->dir), 0);

    /* A newer caller's larger struct: fine while the bytes we do not know are zero. */
    o->sz = sizeof(big);
    write_small(f->path, o, GPUCORE_OK);
    big[sizeof(struct gpucore_writer_opts) + 5] = 1;
    assert_int_equal(gpucore_writer_open(f->path, o, &w, &d), GPUCORE_E_INVAL);
    assert_non_null(strstr(d.message, "byte"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nothing_before_finish, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_nothing, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_refuse_existing, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_appears_meanwhile, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_appears_meanwhile_renamed, setup,
                                        tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_mode_ignores_umask, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_fallback_named_tmp, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_bad_paths, setup, tc_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_options, setup, tc_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
