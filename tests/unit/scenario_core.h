/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a core of a scenario, captured from a running gpucore-inferior by the built
 * `gpucore capture --kfd sim`, with the addresses the inferior placed things at (its
 * --describe output). Shared by the tests that compare what a core serves with what the
 * scenario put there (test_image, test_dbgapi).
 *
 * Environment (set by the tests' cmake files): GPUCORE_SCENARIO_DIR, GPUCORE_SCENARIO_OBJECTS,
 * GPUCORE_INFERIOR, GPUCORE_CLI, GPUCORE_TEST_TMPDIR. Failures end the running cmocka test.
 */
#ifndef GC_TEST_SCENARIO_CORE_H
#define GC_TEST_SCENARIO_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario.h"

/* Where the inferior put things (its --describe lines). */
struct tsc_addrs {
    uint64_t entry[GC_SCEN_MAX_DISPATCHES];   /* kernel code entry */
    uint64_t kd[GC_SCEN_MAX_DISPATCHES];      /* kernel descriptor */
    uint64_t buffer[GC_SCEN_MAX_BUFFERS];
    uint64_t co_load[GC_SCEN_MAX_CODE_OBJECTS];
    uint64_t ring[GC_SCEN_MAX_QUEUES], ring_size[GC_SCEN_MAX_QUEUES];
    uint64_t scratch[GC_SCEN_MAX_QUEUES];
};

/* A captured scenario: its files (removed by tsc_case_done) and ground truth. */
struct tsc_case {
    char scen[4096], desc[4200], core[4200];
    struct gc_scenario *s;
    struct tsc_addrs a;
};

/* The value of an environment variable the harness sets (fails the test if unset). */
const char *tsc_env(const char *name);

/* A whole file, NUL-terminated, in malloc'ed memory (*len without the NUL); NULL if unreadable. */
void *tsc_read_file(const char *path, size_t *len);

/* Root, or Yama's ptrace scope 0: the capture can attach to the inferior. */
int tsc_ptrace_permitted(void);

/* cmocka teardown: kill an inferior a failed test left running. */
int tsc_kill_child(void **state);

/* Start the inferior on scenario file @p scen (--describe @p desc); returns once it is ready. */
pid_t tsc_start_inferior(const char *scen, const char *desc);
void tsc_stop_inferior(pid_t pid);

/* `gpucore capture --kfd sim [extra1 [extra2]] PID -o CORE` (stderr in CORE.log): exit status. */
int tsc_capture(pid_t pid, const char *core, const char *extra1, const char *extra2);

/*
 * Capture scenario @p name (its "continue" variant, so the runtime does not abort under the
 * capture; with ROCr's r_debug version @p r_version unless 0) into files named after @p tag,
 * with capture options @p opt1 @p opt2 (NULL: none); the inferior is stopped again before
 * returning. The scenario is loaded into c->s.
 */
void tsc_capture_case(struct tsc_case *c, const char *tag, const char *name, uint32_t r_version,
                      const char *opt1, const char *opt2);

/* Prepare @p c for scenario @p name (and @p r_version, 0: the scenario's) without capturing
   (the caller starts the inferior). */
void tsc_prepare_case(struct tsc_case *c, const char *tag, const char *name, uint32_t r_version);

/* Read the inferior's --describe output into c->a. */
void tsc_parse_describe(struct tsc_case *c);

/* Remove the case's files and free its scenario. */
void tsc_case_done(struct tsc_case *c);

#endif /* GC_TEST_SCENARIO_CORE_H */
