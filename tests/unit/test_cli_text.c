/* SPDX-License-Identifier: MIT */
/*
 * The text filter every view quoting a core writes through (cli/common.c cli_text_open): C0
 * controls but newline and tab, DEL and UTF-8 C1 controls become '?', also when a C1 control
 * is split across two writes; other UTF-8 (the report's arrows) passes unchanged. And the
 * streamed JSON list (cli_json_stream_array): the bytes cli_print_json() writes for the whole
 * document, and a stop at the first element that cannot be built.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"

static void test_buffer(void **state)
{
    char b[] = "a\x1b[2Jb\tc\nd\x7f" "e\xc2\x9b" "f\xe2\x86\x92g\xc2\xa0h\x01";
    int pending = 0;

    (void)state;
    assert_int_equal(cli_text_neutralise(b, strlen(b), &pending), 4);
    assert_string_equal(b, "a?[2Jb\tc\nd?e??f\xe2\x86\x92g\xc2\xa0h?");
    assert_int_equal(pending, 0);
}

static void test_stream_split_c1(void **state)
{
    char *out = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&out, &len), *f;

    (void)state;
    assert_non_null(sink);
    f = cli_text_open(sink);
    assert_non_null(f);
    fputs("x\xc2", f);
    fflush(f); /* the lead byte reaches the sink alone */
    fputs("\x9b" "1m\x1b", f);
    fprintf(f, "%s", "ok\n");
    assert_int_equal(fclose(f), 0);
    assert_int_equal(fclose(sink), 0);
    assert_string_equal(out, "x\xc2?1m?ok\n");
    free(out);
}

/* What @p write printed on stdout, as a new string: stdout is sent to a temporary file. */
static char *captured_stdout(int (*write)(void *user), void *user, int *ret_rc)
{
    FILE *tmp = tmpfile();
    int saved = dup(STDOUT_FILENO);
    long size;
    char *text;

    assert_non_null(tmp);
    assert_true(saved >= 0);
    fflush(stdout);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    *ret_rc = write(user);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    assert_int_equal(fseek(tmp, 0, SEEK_END), 0);
    size = ftell(tmp);
    assert_true(size >= 0);
    text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)size, tmp), (size_t)size);
    fclose(tmp);
    return text;
}

struct stream_case {
    json_t *doc;    /* the whole document, its last member the array "cores" */
    size_t fail_at; /* the element whose builder fails (SIZE_MAX: none) */
    size_t built;   /* elements built */
};

static json_t *case_elem(size_t i, void *user)
{
    struct stream_case *c = user;

    c->built++;
    return i == c->fail_at ? NULL
                           : json_incref(json_array_get(json_object_get(c->doc, "cores"), i));
}

static int write_whole(void *user)
{
    return cli_print_json(((struct stream_case *)user)->doc);
}

static int write_streamed(void *user)
{
    struct stream_case *c = user;
    json_t *head = json_deep_copy(c->doc);
    const json_t *cores = json_object_get(c->doc, "cores");
    int rc;

    json_object_del(head, "cores");
    rc = cli_json_stream_array(head, "cores", json_array_size(cores), case_elem, c);
    json_decref(head);
    return rc;
}

static void check_same_bytes(const char *doc_text)
{
    struct stream_case c = { .fail_at = SIZE_MAX };
    char *whole, *streamed;
    int rc;

    c.doc = json_loads(doc_text, JSON_PRESERVE_ORDER, NULL);
    assert_non_null(c.doc);
    whole = captured_stdout(write_whole, &c, &rc);
    assert_int_equal(rc, CLI_EXIT_OK);
    streamed = captured_stdout(write_streamed, &c, &rc);
    assert_int_equal(rc, CLI_EXIT_OK);
    assert_string_equal(streamed, whole);
    assert_int_equal(c.built, json_array_size(json_object_get(c.doc, "cores")));
    free(whole);
    free(streamed);
    json_decref(c.doc);
}

static void test_json_stream_same_bytes(void **state)
{
    (void)state;
    check_same_bytes("{\"schema\": \"x/1\", \"n\": 2, \"cores\": "
                     "[{\"a\": 1, \"b\": [1, {\"c\": \"d\\ne\"}]}, {}, \"s\", null]}");
    check_same_bytes("{\"schema\": \"x/1\", \"cores\": []}");
}

static void test_json_stream_stops(void **state)
{
    struct stream_case c = { .fail_at = 1 };
    char *text;
    int rc;

    (void)state;
    c.doc = json_loads("{\"schema\": \"x/1\", \"cores\": [1, 2, 3]}", 0, NULL);
    assert_non_null(c.doc);
    text = captured_stdout(write_streamed, &c, &rc);
    assert_int_equal(rc, CLI_EXIT_SOFTWARE);
    assert_int_equal(c.built, 2); /* nothing built after the failure */
    /* the document is left unended: no reader takes it for the whole list */
    assert_non_null(strstr(text, "\"cores\": [\n    1"));
    assert_null(strstr(text, "]"));
    free(text);
    json_decref(c.doc);
}

static void test_json_stream_empty_head(void **state)
{
    struct stream_case c = { .fail_at = SIZE_MAX };
    char *text;
    int rc;

    (void)state;
    c.doc = json_loads("{\"cores\": [1]}", 0, NULL); /* a head with no member */
    text = captured_stdout(write_streamed, &c, &rc);
    assert_int_equal(rc, CLI_EXIT_SOFTWARE);
    assert_int_equal(c.built, 0);
    assert_string_equal(text, "");
    free(text);
    json_decref(c.doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffer),
        cmocka_unit_test(test_stream_split_c1),
        cmocka_unit_test(test_json_stream_same_bytes),
        cmocka_unit_test(test_json_stream_stops),
        cmocka_unit_test(test_json_stream_empty_head),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
