/* SPDX-License-Identifier: MIT */
/*
 * The cores of one job side by side (`gpucore job`): which rank faulted first, which ranks are
 * victims, the signatures with the ranks that share each, and one summary line a job log can
 * show.
 *
 * Each core is read for its capture metadata (CAPTURE_META: capture time, host, pid, and the
 * job and rank the target's environment named, format 1.4) and judged by the triage report
 * (triage.h): its crash signature and its faulting waves. The cores are grouped by job id.
 * Cores without one are no job: nothing says they ran together, so no rank of theirs "faulted
 * first" nor is a victim; they are listed apart, in "without_job", each by what it is:
 *
 *   faulted   a core with faulting waves
 *   no_fault  a core without faulting waves
 *
 * Within a job:
 *
 *   faulted   a core with faulting waves (a wave stopped by an exception of its own)
 *   first     the faulted core captured first (capture time, then rank): the origin
 *   same      a faulted core with the first one's signature: the same bug
 *   other     a faulted core with another signature: a different failure (a victim of the
 *             first, or a second bug: the report cannot tell, it says which)
 *   hung      a core without faulting waves (captured on demand while its waves ran or waited):
 *             a victim, waiting for a rank that failed
 *   unreadable  a core that could not be analyzed (the entry says why)
 *
 * The document (schema GC_JOB_SCHEMA):
 *   {"schema", "command": "job", "jobs": [{"job", "ranks", "summary", "first": RANK-ENTRY|null,
 *    "signatures": [{"signature", "hash", "kind", "ranks": [..], "count", "first_seen"}],
 *    "cores": [RANK-ENTRY...]}], "without_job": [RANK-ENTRY...], "unreadable": [{"core",
 *    "error"}]}
 *   RANK-ENTRY: {"core", "job", "rank", "host", "pid", "time" (ISO 8601 UTC), "time_ns",
 *    "waves", "faulting_waves", "signature" ({"text", "hash", "kind"} or null), "what" (the
 *    report's first summary line), "role" (in a job: first | same | other | hung; without a
 *    job: faulted | no_fault)}
 * Cores are listed in capture-time order. Ranks are the strings the environment gave; a core
 * without a rank is named "pid N".
 *
 * Internal to gpucore; not installed. Nothing here prints or exits.
 */
#ifndef GC_ANALYZE_JOB_H
#define GC_ANALYZE_JOB_H

#include <stddef.h>

#include <jansson.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

#define GC_JOB_SCHEMA    "gpucore.job/1"
#define GC_JOB_MAX_CORES 4096u /* cores one report takes; more is GPUCORE_E_LIMIT */

struct gc_job;

/* A new, empty job set; NULL when out of memory. Free with gc_job_free(). */
struct gc_job *gc_job_new(void);
void gc_job_free(struct gc_job *j);

/*
 * Judge the open core @p core, named @p path in the document (both borrowed for the call;
 * the core may be closed afterwards). A core that cannot be analyzed is recorded as
 * unreadable, with the reason, and is not an error of this call.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_LIMIT  GC_JOB_MAX_CORES cores were added already
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_job_add_core(struct gc_job *j, const char *path, gpucore_core_t *core,
                                 gpucore_diag_t *reterr_diag);

/* Record @p path as unreadable for @p why (a file the caller could not open as a core).
   @retval GPUCORE_OK, GPUCORE_E_LIMIT, GPUCORE_E_NOMEM as gc_job_add_core() */
gpucore_status_t gc_job_add_unreadable(struct gc_job *j, const char *path, const char *why,
                                       gpucore_diag_t *reterr_diag);

/* The document above, owned by the caller; NULL when out of memory. */
json_t *gc_job_report(const struct gc_job *j);

#endif /* GC_ANALYZE_JOB_H */
