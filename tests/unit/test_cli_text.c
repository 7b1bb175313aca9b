/* SPDX-License-Identifier: MIT */
/*
 * The text filter every view quoting a core writes through (cli/common.c cli_text_open): C0
 * controls but newline and tab, DEL and UTF-8 C1 controls become '?', also when a C1 control
 * is split across two writes; other UTF-8 (the report's arrows) passes unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffer),
        cmocka_unit_test(test_stream_split_c1),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
