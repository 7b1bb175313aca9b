/* SPDX-License-Identifier: MIT */
/*
 * The crash signature of a report (triage.h, "signature"): what identifies the bug and not the
 * run, so two cores of the same crash get the same signature and different crashes different
 * ones.
 *
 * It is made of the report's leading group of waves: the largest faulting group (the report's
 * first "faults" entry), or, when no wave stopped on an error (a hang, a capture on demand),
 * the largest group of all. From that group:
 *
 *   kind        "fault" or "hang"
 *   where       the symbol and offset of its PC ("vadd+0xb4"); without a symbol, the offset in
 *               its code object ("co+0x16b4")
 *   why         its stop reasons, joined by "+" ("memory_violation"; "none" for a hang)
 *   code object the first 12 hex digits of a 64-bit FNV-1a hash of the bytes of the code
 *               object holding the PC ("co-3f2a9c1b7d4e")
 *
 * Text: "KIND:WHERE:WHY:CODEOBJECT", e.g. "fault:vadd+0xb4:memory_violation:co-3f2a9c1b7d4e".
 * Hash: the 16 hex digits of FNV-1a-64 of the text. Addresses, pids, times, wave counts and the
 * driver's exception status (which a capture made after the runtime had the error does not
 * hold) are deliberately left out. No waves at all: no signature (null).
 *
 * A signature joins only crashes known to share their cause, so no part of it may be unknown:
 * when the bytes of the code object holding the PC are not in the core (the ROCm runtime's GPU
 * half without its host half, whose link map names the code objects; a code object not
 * captured), there is no signature either (null). An unknown part is never equal to another:
 * "fault:unknown+?:memory_violation:co-unknown" once made two crashes of different kernels on
 * different GPUs one signature, and `gc --keep-per-signature` removed one as a repeat.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "image.h"
#include "triage_internal.h"

#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME  0x100000001b3ull

static uint64_t fnv1a64(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;

    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= FNV64_PRIME;
    }
    return h;
}

/* The largest group of the report's queues (agents[].queues[].groups[]), or NULL. */
static const json_t *largest_group(const json_t *agents)
{
    const json_t *best = NULL, *a, *q, *g;
    size_t i, j, k;

    json_array_foreach(agents, i, a)
    {
        json_array_foreach(json_object_get(a, GC_TK_QUEUES), j, q)
        {
            json_array_foreach(json_object_get(q, GC_TK_GROUPS), k, g)
            {
                if (!best || gc_json_get_u64(g, GC_TK_COUNT) > gc_json_get_u64(best, GC_TK_COUNT))
                    best = g;
            }
        }
    }
    return best;
}

json_t *gc_tr_signature_json(const struct gc_triage *t, const json_t *faults,
                             const json_t *agents)
{
    const json_t *g = json_array_get(faults, 0), *r;
    const char *kind = "fault", *sym;
    char where[GC_IMAGE_NAME_MAX + 32], why[256] = "", cohash[32], text[sizeof(where) + 320];
    char hash[24];
    const struct gc_image_code_object *co;
    uint64_t pc = 0;
    size_t i, len = 0;
    json_t *o;

    if (!g) {
        g = largest_group(agents);
        kind = "hang";
    }
    if (!g)
        return json_null();
    (void)sscanf(gc_json_get_str_or(g, GC_TK_PC, "0x0"), "%" SCNx64, &pc);
    co = gc_image_code_object(t->img, gc_image_code_object_at(t->img, pc));
    if (!co || !co->bytes)
        return json_null(); /* the code is unknown: nothing tells this crash from another */
    sym = gc_json_get_str(g, GC_TK_SYMBOL);
    if (sym)
        snprintf(where, sizeof(where), "%s", sym);
    else
        snprintf(where, sizeof(where), "co+0x%" PRIx64, pc - co->load_address);
    json_array_foreach(json_object_get(g, GC_TK_STOP_REASONS), i, r)
    {
        gc_str_appendf(why, sizeof(why), &len, "%s%s", i ? "+" : "", json_string_value(r));
    }
    if (!len)
        snprintf(why, sizeof(why), "none");
    snprintf(cohash, sizeof(cohash), "co-%012" PRIx64,
             fnv1a64(FNV64_OFFSET, co->bytes, (size_t)co->size) >> 16);
    snprintf(text, sizeof(text), "%s:%s:%s:%s", kind, where, why, cohash);
    snprintf(hash, sizeof(hash), "%016" PRIx64, fnv1a64(FNV64_OFFSET, text, strlen(text)));
    o = json_object();
    json_object_set_new(o, GC_TK_TEXT, json_string(text));
    json_object_set_new(o, GC_TK_HASH, json_string(hash));
    json_object_set_new(o, "kind", json_string(kind));
    return o;
}
