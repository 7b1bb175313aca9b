/* SPDX-License-Identifier: MIT */
/**
 * @file gpucore/status.h
 * @brief The one status type every gpucore function returns, and failure details.
 *
 * Every fallible gpucore function returns a ::gpucore_status_t. Zero is success; every error is
 * negative. The numeric values are ABI: they are appended to, never renumbered.
 *
 * Functions that can say more than a status (which file, which byte offset, what was expected)
 * also take an optional `gpucore_diag_t *reterr_diag`. On failure it is filled with one line of
 * text and, where the failure concerns a byte position in some input, that offset. On success it
 * is left untouched. Passing NULL is always allowed.
 *
 * This header is self-contained and includes only <stddef.h> and <stdint.h>.
 */
#ifndef GPUCORE_STATUS_H
#define GPUCORE_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GPUCORE_API
#define GPUCORE_API __attribute__((visibility("default")))
#endif

/**
 * The status list: GPUCORE_STATUS(name, value, message).
 *
 * One row per status; the enum and gpucore_strerror() are both generated from it, so the
 * message of a status can never drift from its name.
 */
#define GPUCORE_STATUS_LIST(X)                                                                     \
    X(GPUCORE_OK, 0, "success")                                                                    \
    X(GPUCORE_E_INVAL, -1, "invalid argument")                                                     \
    X(GPUCORE_E_NOMEM, -2, "out of memory")                                                        \
    X(GPUCORE_E_IO, -3, "input/output error")                                                      \
    X(GPUCORE_E_TRUNCATED, -4, "data ends before what it announces")                               \
    X(GPUCORE_E_CORRUPT, -5, "malformed data")                                                     \
    X(GPUCORE_E_VERSION, -6, "unsupported format version or feature")                              \
    X(GPUCORE_E_ARCH, -7, "unknown GPU architecture")                                              \
    X(GPUCORE_E_LIMIT, -8, "exceeds a configured or built-in limit")                               \
    X(GPUCORE_E_NODEV, -9, "no usable GPU kernel driver")                                          \
    X(GPUCORE_E_PERM, -10, "permission denied")                                                    \
    X(GPUCORE_E_NOTSUP, -11, "not supported")                                                      \
    X(GPUCORE_E_UNAVAILABLE, -12, "not captured in this core")                                     \
    X(GPUCORE_E_EXIST, -13, "file already exists")                                                 \
    X(GPUCORE_E_NOTFOUND, -14, "not found")                                                        \
    X(GPUCORE_E_INTR, -15, "interrupted")                                                          \
    X(GPUCORE_E_CANTCREAT, -16, "cannot create the output file")

/** Status of a gpucore call. 0 is success, negative values are errors. */
typedef enum gpucore_status {
#define GPUCORE_STATUS_ENUM_(name, value, msg) name = (value),
    GPUCORE_STATUS_LIST(GPUCORE_STATUS_ENUM_)
#undef GPUCORE_STATUS_ENUM_
} gpucore_status_t;

/**
 * Describe a status.
 *
 * @param status  any value, including ones this library version does not know.
 * @return a static, NUL-terminated English phrase; never NULL. Unknown values give
 *         "unknown status".
 */
GPUCORE_API const char *gpucore_strerror(gpucore_status_t status);

/**
 * Name of a status, for logs and JSON ("GPUCORE_E_CORRUPT").
 *
 * @return a static string; "GPUCORE_E_UNKNOWN" for values this version does not know.
 */
GPUCORE_API const char *gpucore_status_name(gpucore_status_t status);

/** Size of gpucore_diag_t::message, including the terminating NUL. */
#define GPUCORE_DIAG_MESSAGE_SIZE 256

/** gpucore_diag_t::flags: gpucore_diag_t::offset is meaningful. */
#define GPUCORE_DIAG_HAS_OFFSET 0x1u

/**
 * Failure detail, filled by functions that take a `reterr_diag` argument.
 *
 * Owned by the caller (usually on the stack). On failure the callee sets every field; on
 * success it does not touch the structure.
 */
typedef struct gpucore_diag {
    gpucore_status_t status; /**< the status that was returned */
    uint32_t flags;          /**< GPUCORE_DIAG_* bits */
    uint64_t offset;         /**< byte offset in the input, if GPUCORE_DIAG_HAS_OFFSET */
    char message[GPUCORE_DIAG_MESSAGE_SIZE]; /**< one line, no trailing newline */
} gpucore_diag_t;

#ifdef __cplusplus
}
#endif

#endif /* GPUCORE_STATUS_H */
