/* SPDX-License-Identifier: MIT */
/* gpucore-kfdemu's fault plan (kfd/emu/emu_faults.c, docs/kfd-emulator.md "The fault plan"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "emu_faults.h"

static gpucore_status_t parse(const char *text, struct gc_emu_plan *plan, char *err)
{
    return gc_emu_plan_parse(text, strlen(text), "plan.json", plan, err, 256);
}

static void test_rules(void **state)
{
    static struct gc_emu_plan plan;
    char err[256];
    const struct gc_emu_rule *r;

    (void)state;
    assert_int_equal(parse("{\"faults\": ["
                           "{\"kernel\": \"_Z3oob*\", \"action\": \"memory_violation\","
                           " \"address\": {\"argument_offset\": 8, \"add\": \"0x1000\"},"
                           " \"access\": \"read\"},"
                           "{\"kernel\": \"vadd\", \"dispatch\": 2, \"action\": \"trap\","
                           " \"trap_id\": 3},"
                           "{\"kernel\": \"*\", \"action\": \"complete\"}]}", &plan, err),
                     GPUCORE_OK);
    assert_int_equal(plan.nrules, 3);
    r = gc_emu_plan_decide(&plan, "_Z3oobPfi");
    assert_non_null(r);
    assert_int_equal(r->action, GC_EMU_MEMORY_VIOLATION);
    assert_int_equal(r->argument_offset, 8);
    assert_int_equal(r->add, 0x1000);
    assert_int_equal(r->write, 0);
    /* the second dispatch of vadd only; complete otherwise (the catch-all "complete") */
    assert_null(gc_emu_plan_decide(&plan, "vadd"));
    r = gc_emu_plan_decide(&plan, "vadd");
    assert_non_null(r);
    assert_int_equal(r->action, GC_EMU_TRAP);
    assert_int_equal(r->trap_id, 3);
    assert_null(gc_emu_plan_decide(&plan, "vadd"));
    /* an unknown kernel matches "*" only */
    assert_null(gc_emu_plan_decide(&plan, NULL));
    assert_string_equal(gc_emu_action_name(GC_EMU_ILLEGAL_INSTRUCTION), "illegal_instruction");
}

static void test_defaults(void **state)
{
    static struct gc_emu_plan plan;
    char err[256];
    const struct gc_emu_rule *r;

    (void)state;
    assert_int_equal(parse("{\"faults\": [{\"kernel\": \"k\", \"action\": \"memory_violation\"},"
                           "{\"kernel\": \"t\", \"action\": \"trap\"}]}", &plan, err),
                     GPUCORE_OK);
    r = gc_emu_plan_decide(&plan, "k");
    assert_int_equal(r->argument_offset, 0);
    assert_int_equal(r->add, 1ull << 32);
    assert_int_equal(r->write, 1);
    assert_int_equal(r->use_absolute, 0);
    r = gc_emu_plan_decide(&plan, "t");
    assert_int_equal(r->trap_id, 2);
}

static void test_refused(void **state)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        { "", "plan.json:" },
        { "[]", "expected {\"faults\"" },
        { "{\"faults\": [], \"x\": 1}", "expected {\"faults\"" },
        { "{\"faults\": [1]}", "faults[0]: not an object" },
        { "{\"faults\": [{\"action\": \"hang\"}]}", "faults[0].kernel" },
        { "{\"faults\": [{\"kernel\": \"\", \"action\": \"hang\"}]}", "faults[0].kernel" },
        { "{\"faults\": [{\"kernel\": \"k\"}]}", "faults[0].action: missing" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"crash\"}]}", "unknown action 'crash'" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"hang\", \"when\": 1}]}",
          "faults[0].when: unknown key" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"hang\", \"trap_id\": 2}]}",
          "faults[0].trap_id" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"trap\", \"trap_id\": 0}]}",
          "faults[0].trap_id" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"hang\", \"address\": {}}]}",
          "faults[0].address" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"memory_violation\", "
          "\"address\": {\"argument_offset\": 4}}]}", "address.argument_offset" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"memory_violation\", "
          "\"address\": {\"absolute\": 4096, \"add\": 1}}]}", "address.absolute" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"memory_violation\", "
          "\"address\": {\"add\": \"-1\"}}]}", "address.add" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"memory_violation\", "
          "\"access\": \"exec\"}]}", "faults[0].access" },
        { "{\"faults\": [{\"kernel\": \"k\", \"action\": \"hang\", \"dispatch\": -1}]}",
          "faults[0].dispatch" },
    };
    static struct gc_emu_plan plan;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(parse(bad[i].text, &plan, err), GPUCORE_E_INVAL);
        if (!strstr(err, bad[i].why))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].why);
    }
}

static void test_limit(void **state)
{
    static struct gc_emu_plan plan;
    static char text[16384];
    char err[256];
    size_t len;

    (void)state;
    len = (size_t)snprintf(text, sizeof(text), "{\"faults\": [");
    for (int i = 0; i <= GC_EMU_PLAN_MAX_RULES; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s{\"kernel\": \"k%d\", "
                                "\"action\": \"hang\"}", i ? "," : "", i);
    snprintf(text + len, sizeof(text) - len, "]}");
    assert_int_equal(parse(text, &plan, err), GPUCORE_E_LIMIT);
    assert_non_null(strstr(err, "at most"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
