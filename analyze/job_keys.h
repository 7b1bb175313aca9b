/* SPDX-License-Identifier: MIT */
/*
 * The member names of `gpucore job`'s document (schema "gpucore.job/1", job.h). Builder
 * (analyze/job.c) and renderer (cli/cmd_job.c) both spell a member with its GC_JK_ name, so a
 * misspelt member is a compile error (tests/abi/check_document_keys.py checks no member is read
 * by a literal).
 */
#ifndef GC_ANALYZE_JOB_KEYS_H
#define GC_ANALYZE_JOB_KEYS_H

#define GC_JK_CORE           "core"
#define GC_JK_CORES          "cores"
#define GC_JK_COUNT          "count"
#define GC_JK_ERROR          "error"
#define GC_JK_FAULTING_WAVES "faulting_waves"
#define GC_JK_FIRST          "first"
#define GC_JK_FIRST_SEEN     "first_seen"
#define GC_JK_HASH           "hash"
#define GC_JK_HOST           "host"
#define GC_JK_HUNG           "hung"
#define GC_JK_JOB            "job"
#define GC_JK_JOBS           "jobs"
#define GC_JK_KIND           "kind"
#define GC_JK_OTHER          "other"
#define GC_JK_PID            "pid"
#define GC_JK_RANK           "rank"
#define GC_JK_RANKS          "ranks"
#define GC_JK_ROLE           "role"
#define GC_JK_SAME           "same"
#define GC_JK_SIGNATURE      "signature"
#define GC_JK_SIGNATURES     "signatures"
#define GC_JK_SUMMARY        "summary"
#define GC_JK_TEXT           "text"
#define GC_JK_TIME           "time"
#define GC_JK_TIME_NS        "time_ns"
#define GC_JK_UNREADABLE     "unreadable"
#define GC_JK_WAVES          "waves"
#define GC_JK_WHAT           "what"
#define GC_JK_WITHOUT_JOB    "without_job"

#endif /* GC_ANALYZE_JOB_KEYS_H */
