/* SPDX-License-Identifier: MIT */
/*
 * What the pipeline (capture.c) lends the tree supervisor of `gpucore run` (run_tree.c): the
 * checks made before the command starts, arming one process (a driver session with the error
 * exceptions enabled) and capturing one armed process whose threads the supervisor traces.
 * Internal to capture.
 */
#ifndef GC_CAPTURE_CAPTURE_INTERNAL_H
#define GC_CAPTURE_CAPTURE_INTERNAL_H

#include "capture.h"
#include "kfd.h"
#include "tracee.h"

/* One armed GPU process. */
struct gc_capture_armed {
    pid_t pid;
    struct gc_kfd *k;               /* the driver session, debugging enabled; owned */
    struct kfd_runtime_info rinfo;  /* what ENABLE said */
    int enable_failed;              /* after a failed gc_capture_arm: the session was opened,
                                       ENABLE failed (no point retrying) */
};

/*
 * RUN, before anything is started: the driver probe (linux backend) and the output's name and
 * directory (precheck_output). Nothing it finds stops the command: *ret_no_driver is 1 when no
 * driver answers (nothing will be armed), and @p ret_notice (@p notice_cap bytes) gets one
 * sentence for the user when something will not be as asked ("" otherwise).
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL  an unknown % sequence in the output pattern (a usage error)
 * @retval GPUCORE_E_LIMIT  the pattern expands past PATH_MAX
 */
gpucore_status_t gc_capture_run_precheck(const struct gc_capture_opts *o, int *ret_no_driver,
                                         char *ret_notice, size_t notice_cap, gpucore_diag_t *diag);

/* Open a driver session on @p pid (traced by the caller) and ENABLE with the error exceptions
 * in the mask. On failure nothing is left open (*a zeroed but enable_failed).
 * @retval GPUCORE_OK, and gc_kfd_open's / gc_kfd_enable's failures. */
gpucore_status_t gc_capture_arm(const struct gc_capture_opts *o, pid_t pid,
                                struct gc_capture_armed *a, gpucore_diag_t *diag);

/* DISABLE (the runtime gets what was held) and close; errors ignored. Accepts a disarmed one. */
void gc_capture_disarm(struct gc_capture_armed *a);

/*
 * @p a's event fd is readable: read the raised exceptions. None: OK with res->exception_code
 * 0, still armed. With @p capture 0 (the process was captured already): the exceptions are
 * only recorded in res (exception_code) and handed to the runtime (DISABLE), then debugging is
 * enabled again on a new session (a disarmed, if that fails). With @p capture 1: the process
 * (its threads in @p t, adopted from the caller) is captured as WATCH captures it, and @p a is
 * disarmed (DISABLE: the runtime gets the exception); the threads are resumed, not detached.
 * Disarmed means a->k NULL; a->pid stays.
 * res is zeroed first and filled as gc_capture_run fills it for one core. If the process
 * exited meanwhile, res->exited and exit_status say so (its status was collected by @p t).
 * @retval as gc_capture_run for the capture proper; GPUCORE_E_INTR if o->interrupted was set.
 */
gpucore_status_t gc_capture_armed_event(const struct gc_capture_opts *o, struct gc_capture_armed *a,
                                        struct gc_tracee *t, int capture,
                                        struct gc_capture_result *res, gpucore_diag_t *diag);

/* The tree supervisor of RUN (run_tree.c), called by gc_capture_run; it runs the precheck. */
gpucore_status_t gc_capture_run_tree(const struct gc_capture_opts *o, struct gc_capture_result *ret,
                                     gpucore_diag_t *diag);

#endif /* GC_CAPTURE_CAPTURE_INTERNAL_H */
