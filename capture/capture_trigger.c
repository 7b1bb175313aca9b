/* SPDX-License-Identifier: MIT */
/* --trigger: the error the runtime hook saw before the capture began (capture.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpucore/schema.h>

#include "capture.h"
#include "gc_hsa_tools.h"
#include "gc_util.h"

/* The runtime's queue error status back to the exception code it came from (the reverse of
   ROCr's queue exception table; several codes share HSA_STATUS_ERROR_EXCEPTION). */
static const struct {
    int32_t status;
    uint32_t code;
} status_codes[] = {
    { GC_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION, EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION },
    { GC_HSA_STATUS_ERROR_MEMORY_FAULT, EC_QUEUE_WAVE_MEMORY_VIOLATION },
    { GC_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, EC_QUEUE_WAVE_APERTURE_VIOLATION },
    { GC_HSA_STATUS_ERROR_EXCEPTION, EC_QUEUE_WAVE_ABORT },
};

static int parse_u64(const char *text, uint64_t *ret)
{
    char *end;

    if (!*text || *text == '-' || *text == '+')
        return -1;
    errno = 0;
    *ret = strtoull(text, &end, 0);
    return errno || *end ? -1 : 0;
}

gpucore_status_t gc_capture_parse_trigger(const char *text, struct gc_capture_trigger *ret,
                                          gpucore_diag_t *diag)
{
    static const char mem[] = "memory-violation", queue[] = "queue-error";
    struct gc_capture_trigger t = { 0 };
    uint64_t v;

    GC_FAIL_IF(!text || !ret, diag, GPUCORE_E_INVAL, GC_NO_OFFSET, "NULL argument");
    if (strncmp(text, mem, sizeof(mem) - 1) == 0 &&
        (text[sizeof(mem) - 1] == '\0' || text[sizeof(mem) - 1] == '@')) {
        t.trigger = GPUCORE_TRIGGER_MEMORY_VIOLATION;
        t.exception_code = EC_DEVICE_MEMORY_VIOLATION;
        if (text[sizeof(mem) - 1] == '@') {
            char va[32];
            const char *slash = strchr(text + sizeof(mem), '/');
            size_t n = slash ? (size_t)(slash - (text + sizeof(mem))) : strlen(text + sizeof(mem));

            if (n >= sizeof(va))
                n = 0; /* too long for an address: refused below */
            memcpy(va, text + sizeof(mem), n);
            va[n] = '\0';
            if (parse_u64(va, &t.fault_va) != 0)
                return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                   "--trigger memory-violation@VA: bad address '%s'", va);
            if (slash && (parse_u64(slash + 1, &v) != 0 || v > UINT32_MAX))
                return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                   "--trigger memory-violation@VA/REASONS: bad reasons '%s'",
                                   slash + 1);
            if (slash)
                t.fault_reasons = (uint32_t)v;
        }
    } else if (strncmp(text, queue, sizeof(queue) - 1) == 0 &&
               (text[sizeof(queue) - 1] == '\0' || text[sizeof(queue) - 1] == ':')) {
        t.trigger = GPUCORE_TRIGGER_QUEUE_ERROR;
        if (text[sizeof(queue) - 1] == ':') {
            if (parse_u64(text + sizeof(queue), &v) != 0 || v > UINT32_MAX)
                return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                                   "--trigger queue-error:STATUS: bad status '%s'",
                                   text + sizeof(queue));
            for (size_t i = 0; i < GC_ARRAY_SIZE(status_codes); i++)
                if ((uint32_t)status_codes[i].status == (uint32_t)v)
                    t.exception_code = status_codes[i].code;
        }
    } else {
        return gc_diag_set(diag, GPUCORE_E_INVAL, GC_NO_OFFSET,
                           "--trigger takes memory-violation[@VA[/REASONS]] or queue-error[:STATUS], got "
                           "'%s'", text);
    }
    *ret = t;
    return GPUCORE_OK;
}
