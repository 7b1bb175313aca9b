/* SPDX-License-Identifier: MIT */
/*
 * Names of enum-like values, from gpucore_enums.def: the public gpucore_*_name() functions and
 * the bit masks the decoders use to notice flags from a newer writer.
 */
#include <stddef.h>
#include <stdint.h>

#include <gpucore/schema.h>

#include "schema_internal.h"

const struct gc_enum_group_desc gc_enum_groups[GC_ENUM_GROUP_COUNT_] = {
#define GC_ENUM_GROUP(group, is_bits, title) [GC_ENUM_##group] = { #group, title, is_bits },
#define GC_ENUM(group, value, name, doc)
#include "gpucore_enums.def"
#undef GC_ENUM_GROUP
#undef GC_ENUM
};

const struct gc_enum_row gc_enum_rows[] = {
#define GC_ENUM_GROUP(group, is_bits, title)
#define GC_ENUM(group, value, name, doc) { GC_ENUM_##group, (value), name, doc },
#include "gpucore_enums.def"
#undef GC_ENUM_GROUP
#undef GC_ENUM
};
const size_t gc_enum_row_count = GC_ARRAY_SIZE(gc_enum_rows);

const char *gc_enum_name(enum gc_enum_group group, uint32_t value)
{
    for (size_t i = 0; i < gc_enum_row_count; i++)
        if (gc_enum_rows[i].group == group && gc_enum_rows[i].value == value)
            return gc_enum_rows[i].name;
    return NULL;
}

uint32_t gc_enum_known_bits(enum gc_enum_group group)
{
    uint32_t mask = 0;

    for (size_t i = 0; i < gc_enum_row_count; i++)
        if (gc_enum_rows[i].group == group)
            mask |= gc_enum_rows[i].value;
    return mask;
}

GPUCORE_API const char *gpucore_trigger_name(uint32_t trigger)
{
    return gc_enum_name(GC_ENUM_trigger, trigger);
}

GPUCORE_API const char *gpucore_tier_name(uint32_t tier)
{
    return gc_enum_name(GC_ENUM_tier, tier);
}

GPUCORE_API const char *gpucore_range_status_name(uint32_t status)
{
    return gc_enum_name(GC_ENUM_range_status, status);
}

GPUCORE_API const char *gpucore_reason_name(uint32_t reason)
{
    return gc_enum_name(GC_ENUM_reason, reason);
}

GPUCORE_API const char *gpucore_alloc_kind_name(uint32_t kind)
{
    return gc_enum_name(GC_ENUM_alloc_kind, kind);
}

GPUCORE_API const char *gpucore_note_type_name(uint32_t type)
{
    return gc_enum_name(GC_ENUM_note_type, type);
}

GPUCORE_API const char *gpucore_runtime_state_name(uint32_t state)
{
    return gc_enum_name(GC_ENUM_runtime_state, state);
}

GPUCORE_API const char *gpucore_queue_type_name(uint32_t type)
{
    return gc_enum_name(GC_ENUM_queue_type, type);
}

/* The index-th row of a group, so callers can walk a flag table without seeing it. */
static const char *enum_row(enum gc_enum_group group, uint32_t index, uint32_t *ret_value)
{
    for (size_t i = 0; i < gc_enum_row_count; i++) {
        if (gc_enum_rows[i].group != group)
            continue;
        if (index-- == 0) {
            if (ret_value)
                *ret_value = gc_enum_rows[i].value;
            return gc_enum_rows[i].name;
        }
    }
    return NULL;
}

GPUCORE_API const char *gpucore_capability_flag(uint32_t index, uint32_t *ret_mask)
{
    return enum_row(GC_ENUM_hsa_cap, index, ret_mask);
}

GPUCORE_API const char *gpucore_debug_prop_flag(uint32_t index, uint32_t *ret_mask)
{
    return enum_row(GC_ENUM_hsa_dbg, index, ret_mask);
}
