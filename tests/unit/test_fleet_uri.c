/* SPDX-License-Identifier: MIT */
/*
 * The fleet index's URI (store/store_fleet.c, store/store_conf.c): which URIs are tried at
 * all, passwords masked in every form libpq takes them, store.conf's FleetIndex= strictly
 * parsed, and which URI a command uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fleet.h"
#include "store.h"

static void test_uri_ok(void **state)
{
    char big[GC_FLEET_URI_MAX + 2];

    (void)state;
    assert_true(gc_fleet_uri_ok("postgresql:///fleet?host=/run/pg"));
    assert_true(gc_fleet_uri_ok("host=db dbname=fleet"));
    assert_false(gc_fleet_uri_ok(NULL));
    assert_false(gc_fleet_uri_ok(""));
    assert_false(gc_fleet_uri_ok("postgresql://db/fleet\n"));
    assert_false(gc_fleet_uri_ok("postgresql://db/\x1b[2Jfleet"));
    assert_false(gc_fleet_uri_ok("postgresql://db/fleet\x7f"));
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_false(gc_fleet_uri_ok(big)); /* GC_FLEET_URI_MAX + 1 bytes */
    big[GC_FLEET_URI_MAX] = '\0';
    assert_true(gc_fleet_uri_ok(big));
}

static void test_mask(void **state)
{
    static const struct {
        const char *uri, *masked;
    } cases[] = {
        { "postgresql://alice:s3cret@db.example:5432/fleet",
          "postgresql://alice:***@db.example:5432/fleet" },
        { "postgres://alice:p@ss@db/fleet", "postgres://alice:***@db/fleet" },
        { "postgresql://alice@db/fleet", "postgresql://alice@db/fleet" },
        { "postgresql://db/fleet?user=bob&password=hunter2&sslmode=require",
          "postgresql://db/fleet?user=bob&password=***&sslmode=require" },
        { "postgresql:///fleet?password=x", "postgresql:///fleet?password=***" },
        { "host=db password=hunter2 dbname=fleet", "host=db password=*** dbname=fleet" },
        { "host=db password = 'a b\\' c' dbname=fleet", "host=db password = *** dbname=fleet" },
        { "password=x", "password=***" },
        { "host=db mypassword=x", "host=db mypassword=x" }, /* not the key */
        { "postgresql://db/fleet?host=/run/pg", "postgresql://db/fleet?host=/run/pg" },
    };
    char buf[GC_FLEET_URI_MAX + 1], small[12];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(gc_fleet_uri_mask(cases[i].uri, buf, sizeof(buf)), cases[i].masked);
    /* cut to fit, never past the buffer, the password never in the part kept */
    assert_string_equal(gc_fleet_uri_mask("postgresql://a:b@c/d", small, sizeof(small)),
                        "postgresql:");
    assert_string_equal(gc_fleet_uri_mask(NULL, buf, sizeof(buf)), "");
}

static void test_conf(void **state)
{
    struct gc_store_conf c = { .gc = { .keep_per_signature = -1 } };
    gpucore_diag_t d = { 0 };
    static const char good[] = "[Store]\nFleetIndex = postgresql://db.example/fleet \nMaxUse=1G\n";
    static const char ctl[] = "FleetIndex=postgresql://db/\x1b"
                              "fleet\n";
    static const char empty[] = "FleetIndex=\n";

    (void)state;
    assert_int_equal(gc_store_conf_parse_all(good, strlen(good), "store.conf", &c, &d), GPUCORE_OK);
    assert_string_equal(c.fleet_index, "postgresql://db.example/fleet");
    assert_int_equal(c.gc.max_use, 1ull << 30);
    assert_int_equal(gc_store_conf_parse_all(ctl, strlen(ctl), "store.conf", &c, &d),
                     GPUCORE_E_CORRUPT);
    assert_non_null(strstr(d.message, "store.conf:1: FleetIndex= expects a PostgreSQL URI"));
    assert_int_equal(gc_store_conf_parse_all(empty, strlen(empty), "store.conf", &c, &d),
                     GPUCORE_E_CORRUPT);
    assert_string_equal(c.fleet_index, "postgresql://db.example/fleet"); /* kept on failure */

    /* which URI: the option, else the file's, else none */
    assert_string_equal(gc_fleet_uri("postgresql:///x", &c), "postgresql:///x");
    assert_string_equal(gc_fleet_uri(NULL, &c), "postgresql://db.example/fleet");
    c.fleet_index[0] = '\0';
    assert_null(gc_fleet_uri(NULL, &c));
    assert_null(gc_fleet_uri(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uri_ok),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_conf),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
