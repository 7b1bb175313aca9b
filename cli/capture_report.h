/* SPDX-License-Identifier: MIT */
/*
 * What capture, run and watch say of a core once it is published (cli/capture_report.c): the
 * final line on stderr, the --json record, and with --store the core's row in the store.
 *
 * Two parts of a report read the core again, and a core is hostile input: its crash signature
 * (the triage report) and its store row. They run in a child process of their own, killed
 * after CLI_REPORT_TIME_MAX_S, so no core can make a report slow enough to hold anything up;
 * a report that ran out of time still has its line and record, without a signature, and says
 * so. `gpucore run` goes further: its tree loop hands each core to a reporter process started
 * before the command (run_reporter_*), so no process of the tree ever waits for a report.
 */
#ifndef GPUCORE_CLI_CAPTURE_REPORT_H
#define GPUCORE_CLI_CAPTURE_REPORT_H

#include <signal.h>
#include <sys/types.h>

#include "capture.h"

/* The version of the --json records: a script checks it. A new member keeps the version; a
   member removed or changing meaning bumps it. */
#define CAPTURE_JSON_SCHEMA "gpucore.capture/1"

/* The most the signature and the store row of one core may take, seconds (a healthy core of
   10,000 waves takes well under one). */
#define CLI_REPORT_TIME_MAX_S 30
/* The most `gpucore run` waits, once its command has ended, for the reports still being made;
   then they are abandoned (the cores stay, `gpucore store --rescan` indexes them). */
#define CLI_RUN_REPORTS_WAIT_S 30

/* Where a report goes: the command's output options. Strings are borrowed. */
struct report_sink {
    int quiet;             /* --quiet: no lines on stderr (the --json record is still written) */
    const char *json_path; /* --json=FILE; NULL with json_fd 1 for stdout */
    int json_fd;           /* -1: no --json */
    const char *store_dir; /* --store: index the core there; NULL */
    const char *store_config; /* --config FILE: the store.conf of its retention; NULL default */
    const char *fleet_index;  /* --fleet-index URI: the fleet index to tell; NULL store.conf's */
    int writer;               /* which command writes the cores: enum gc_journal_writer (the
                                 journal entry's GPUCORE_WRITER, store/journal.h) */
};

/*
 * Report the core @p r describes (r->written): the warning and final lines, the store row, the
 * --json record. The signature and the row are made in a child bounded by CLI_REPORT_TIME_MAX_S;
 * when @p interrupted becomes nonzero meanwhile (a stop signal), that child is abandoned at
 * once. Returns 0, or the exit code of a --json record that could not be written.
 */
int capture_report_core(const struct report_sink *sink, const struct gc_capture_opts *o,
                        const struct gc_capture_result *r, const volatile sig_atomic_t *interrupted);

/* run's reporter: a process that reports the cores the tree loop hands it, in order. */
struct run_reporter {
    pid_t pid;   /* 0: none (then cores are reported without signature or row, at once) */
    int fd;      /* the loop's end of the socket: one message per core */
    unsigned lost; /* cores that could not be handed over */
};

/* Start the reporter (before the command: the tree loop collects every status of its children,
   so the reporter must exist before the loop and end after it). Never fails: without one,
   rr->pid is 0 and run_reporter_submit() reports what it can at once. */
void run_reporter_start(struct run_reporter *rr, const struct report_sink *sink,
                        const struct gc_capture_opts *o);
/* Hand over the core of @p r without waiting; when the reporter is gone or its queue is full,
   the core's line and record are written at once without signature or store row. */
void run_reporter_submit(struct run_reporter *rr, const struct report_sink *sink,
                         const struct gc_capture_opts *o, const struct gc_capture_result *r);
/* No more cores: wait for the reporter at most CLI_RUN_REPORTS_WAIT_S (less once
   @p interrupted is set), then end it. */
void run_reporter_finish(struct run_reporter *rr, const volatile sig_atomic_t *interrupted);

#endif /* GPUCORE_CLI_CAPTURE_REPORT_H */
