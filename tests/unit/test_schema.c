/* SPDX-License-Identifier: MIT */
/*
 * test_schema: the unit tests of schema/ (conventions G-TEST-1: one executable per module,
 * linked with the module's object library so internal tables are reachable). Each group
 * lives in its own file; this runs them all and fails if any fails.
 */
#include <stdio.h>

int test_schema_kfd_run(void);
int test_schema_notes_run(void);
int test_schema_tables_run(void);
int test_schema_rocr_run(void);
int test_schema_amd_queue_run(void);

int main(void)
{
    int failed = 0;

    failed += test_schema_tables_run();
    failed += test_schema_kfd_run();
    failed += test_schema_notes_run();
    failed += test_schema_rocr_run();
    failed += test_schema_amd_queue_run();
    if (failed)
        fprintf(stderr, "test_schema: %d test(s) failed\n", failed);
    return failed ? 1 : 0;
}
