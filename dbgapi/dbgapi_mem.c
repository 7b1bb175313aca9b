/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: memory as a wave sees it (docs/dbgapi-on-cores.md §5,
 * docs/cwsr-layout.md §14-§15): reading through the process image, address-space conversion,
 * address dependencies and address classes. Writing is refused: a core never changes.
 */
#include "dbgapi_internal.h"

#include <inttypes.h>
#include <string.h>

/* The checks read_memory and write_memory share, in the interface's order. On success
   *ret_p is the process, *ret_slot the wave slot (UINT32_MAX for none), *ret_space the space
   with a generic address lowered when the wave is needed to know which. */
struct mem_args {
    struct gc_dbg_process *p;
    uint32_t slot;
    enum gc_aspace space;
};

/* Does reading @p space at @p addr need a wave (and a lane)? */
static void needs(enum gc_aspace space, uint64_t addr, int *ret_wave, int *ret_lane)
{
    if (space == GC_ASPACE_GENERIC) {
        uint64_t low = 0;

        if (gc_generic_lower(addr, &space, &low) != GPUCORE_OK)
            space = GC_ASPACE_GLOBAL;
    }
    *ret_wave = space != GC_ASPACE_GLOBAL;
    *ret_lane = space == GC_ASPACE_PRIVATE_LANE;
}

static amd_dbgapi_status_t mem_args(amd_dbgapi_process_id_t process_id,
                                    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
                                    amd_dbgapi_address_space_id_t address_space_id,
                                    amd_dbgapi_segment_address_t address,
                                    const amd_dbgapi_size_t *value_size, const void *value,
                                    struct mem_args *ret)
{
    struct gc_dbg_arch *a;
    int need_wave, need_lane;

    if (!gc_dbg.initialized)
        return AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED;
    ret->p = gc_dbg_process_find(process_id.handle);
    if (!ret->p)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID;
    ret->slot = UINT32_MAX;
    if (wave_id.handle) {
        struct gc_dbg_process *wp = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &ret->slot);

        if (!wp)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID;
        if (wp != ret->p)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    }
    if (!gc_dbg_space_find(address_space_id.handle, &a, &ret->space))
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID;
    if (a && ret->slot != UINT32_MAX && a->arch != gc_dbg_wave_agent(ret->p, ret->slot)->arch)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (lane_id != AMD_DBGAPI_LANE_NONE &&
        (ret->slot == UINT32_MAX || lane_id >= gc_dbg_image_wave(ret->p, ret->slot)->lanes))
        return AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID;
    if (!value_size || !value)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    needs(ret->space, address, &need_wave, &need_lane);
    if (need_wave && ret->slot == UINT32_MAX)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID;
    if (need_lane && lane_id == AMD_DBGAPI_LANE_NONE)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID;
    if (ret->slot != UINT32_MAX && !ret->p->waves[ret->slot].visible_stop)
        return AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_read_memory(
        amd_dbgapi_process_id_t process_id, amd_dbgapi_wave_id_t wave_id,
        amd_dbgapi_lane_id_t lane_id, amd_dbgapi_address_space_id_t address_space_id,
        amd_dbgapi_segment_address_t segment_address, amd_dbgapi_size_t *value_size, void *value)
{
    struct mem_args m;
    gpucore_diag_t d = { 0 };
    uint64_t done = 0;
    gpucore_status_t gst;
    amd_dbgapi_status_t st = mem_args(process_id, wave_id, lane_id, address_space_id,
                                      segment_address, value_size, value, &m);

    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        DBG_RETURN(amd_dbgapi_read_memory, st);
    if (*value_size == 0)
        DBG_RETURN(amd_dbgapi_read_memory, AMD_DBGAPI_STATUS_SUCCESS);
    if (!m.p->img) {
        *value_size = 0;
        DBG_RETURN(amd_dbgapi_read_memory, AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
    }
    gst = gc_image_read(m.p->img, m.slot == UINT32_MAX ? UINT32_MAX : m.p->waves[m.slot].img,
                        m.space, lane_id, segment_address, value, *value_size, &done, &d);
    if (gst != GPUCORE_OK)
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "read of %" PRIu64 " bytes at 0x%" PRIx64
                   ": %" PRIu64 " read: %s", (uint64_t)*value_size, segment_address, done,
                   d.message);
    *value_size = done;
    DBG_RETURN(amd_dbgapi_read_memory, done ? AMD_DBGAPI_STATUS_SUCCESS
                                            : AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_write_memory(
        amd_dbgapi_process_id_t process_id, amd_dbgapi_wave_id_t wave_id,
        amd_dbgapi_lane_id_t lane_id, amd_dbgapi_address_space_id_t address_space_id,
        amd_dbgapi_segment_address_t segment_address, amd_dbgapi_size_t *value_size,
        const void *value)
{
    struct mem_args m;
    amd_dbgapi_status_t st = mem_args(process_id, wave_id, lane_id, address_space_id,
                                      segment_address, value_size, value, &m);

    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        DBG_RETURN(amd_dbgapi_write_memory, st);
    /* A core is a snapshot: no write reaches the client or the file. */
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "the memory of a core cannot be written");
    *value_size = 0;
    DBG_RETURN(amd_dbgapi_write_memory, AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN);
}

/* ---- address-space conversion ---------------------------------------------------------------- */

/* Bytes from @p addr to the end of @p space (saturated). */
static uint64_t space_rest(enum gc_aspace space, uint64_t addr)
{
    size_t n = 0;
    const struct gc_address_space *s = gc_address_spaces(&n);
    uint32_t bits = s[space].address_bits;

    if (bits >= 64)
        return addr ? UINT64_MAX - addr + 1 : UINT64_MAX;
    return addr < (1ull << bits) ? (1ull << bits) - addr : 0;
}

/* The generic aperture of a segment space (wave.h: bits 63:48 = 1 local, 2 private). */
static const struct {
    enum gc_aspace space;
    uint64_t aperture;
} apertures[] = {
    { GC_ASPACE_LOCAL, 1ull << 48 },
    { GC_ASPACE_PRIVATE_LANE, 2ull << 48 },
};

/*
 * Convert @p addr of @p from to @p to, as seen by a wave of @p lanes lanes (0: no wave) and lane
 * @p lane (AMD_DBGAPI_LANE_NONE: none). SUCCESS, INVALID_ADDRESS_SPACE_CONVERSION, or
 * INVALID_WAVE_ID / INVALID_LANE_ID when the conversion needs one.
 */
static amd_dbgapi_status_t convert(enum gc_aspace from, uint64_t addr, enum gc_aspace to,
                                   uint32_t lanes, uint32_t lane, uint64_t *ret_addr,
                                   uint64_t *ret_contig)
{
    size_t n = 0;
    const struct gc_address_space *s = gc_address_spaces(&n);

    /* A null address is null in every space. */
    if (addr == s[from].null_address) {
        *ret_addr = s[to].null_address;
        *ret_contig = 0;
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    if (from == GC_ASPACE_GENERIC) {
        enum gc_aspace lowered;
        uint64_t low;

        if (gc_generic_lower(addr, &lowered, &low) != GPUCORE_OK)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
        if (to == GC_ASPACE_GENERIC) {
            *ret_addr = addr;
            *ret_contig = space_rest(GC_ASPACE_GENERIC, addr);
            return AMD_DBGAPI_STATUS_SUCCESS;
        }
        return convert(lowered, low, to, lanes, lane, ret_addr, ret_contig);
    }
    if (to == GC_ASPACE_GENERIC) {
        if (from == GC_ASPACE_PRIVATE_WAVE) {
            uint64_t lane_addr, contig;
            amd_dbgapi_status_t st = convert(from, addr, GC_ASPACE_PRIVATE_LANE, lanes, lane,
                                             &lane_addr, &contig);

            if (st != AMD_DBGAPI_STATUS_SUCCESS)
                return st;
            return convert(GC_ASPACE_PRIVATE_LANE, lane_addr, to, lanes, lane, ret_addr,
                           ret_contig);
        }
        if (from == GC_ASPACE_GLOBAL) {
            enum gc_aspace lowered;
            uint64_t low;

            /* a global address inside an aperture has no generic equivalent */
            if (gc_generic_lower(addr, &lowered, &low) != GPUCORE_OK ||
                lowered != GC_ASPACE_GLOBAL)
                return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
            *ret_addr = addr;
            *ret_contig = space_rest(GC_ASPACE_GLOBAL, addr);
            return AMD_DBGAPI_STATUS_SUCCESS;
        }
        for (size_t i = 0; i < GC_ARRAY_SIZE(apertures); i++) {
            if (apertures[i].space == from && addr <= UINT32_MAX) {
                *ret_addr = apertures[i].aperture | addr;
                *ret_contig = space_rest(from, addr);
                return AMD_DBGAPI_STATUS_SUCCESS;
            }
        }
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
    }
    if (from == to) {
        *ret_addr = addr;
        *ret_contig = space_rest(to, addr);
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    /* The two views of scratch: swizzled per lane, and the wave's whole slot. */
    if ((from == GC_ASPACE_PRIVATE_LANE && to == GC_ASPACE_PRIVATE_WAVE) ||
        (from == GC_ASPACE_PRIVATE_WAVE && to == GC_ASPACE_PRIVATE_LANE)) {
        if (!lanes)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID;
        if (lane == AMD_DBGAPI_LANE_NONE)
            return AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID;
        if (from == GC_ASPACE_PRIVATE_LANE) {
            uint32_t contig = 0;

            if (gc_private_lane_offset(addr, lane, lanes, (uint64_t)UINT32_MAX + 1, ret_addr,
                                       &contig) != GPUCORE_OK)
                return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
            *ret_contig = contig;
        } else {
            uint32_t owner = 0;

            if (gc_private_lane_of(addr, lanes, &owner, ret_addr) != GPUCORE_OK || owner != lane)
                return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
            *ret_contig = 4 - addr % 4;
        }
        return AMD_DBGAPI_STATUS_SUCCESS;
    }
    return AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_convert_address_space(
        amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
        amd_dbgapi_address_space_id_t source_address_space_id,
        amd_dbgapi_segment_address_t source_segment_address,
        amd_dbgapi_address_space_id_t destination_address_space_id,
        amd_dbgapi_segment_address_t *destination_segment_address,
        amd_dbgapi_size_t *destination_contiguous_bytes)
{
    struct gc_dbg_process *p = NULL;
    struct gc_dbg_arch *sa, *da;
    enum gc_aspace from, to;
    uint32_t slot = UINT32_MAX, lanes = 0;
    uint64_t out = 0, contig = 0;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_convert_address_space, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (wave_id.handle) {
        p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &slot);
        if (!p)
            DBG_RETURN(amd_dbgapi_convert_address_space, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
        lanes = gc_dbg_image_wave(p, slot)->lanes;
    }
    if (lane_id != AMD_DBGAPI_LANE_NONE && lane_id >= lanes)
        DBG_RETURN(amd_dbgapi_convert_address_space, AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID);
    if (!gc_dbg_space_find(source_address_space_id.handle, &sa, &from) ||
        !gc_dbg_space_find(destination_address_space_id.handle, &da, &to))
        DBG_RETURN(amd_dbgapi_convert_address_space,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID);
    if (!destination_segment_address || !destination_contiguous_bytes)
        DBG_RETURN(amd_dbgapi_convert_address_space, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    if ((sa && da && sa != da) ||
        (p && ((sa && sa->arch != gc_dbg_wave_agent(p, slot)->arch) ||
               (da && da->arch != gc_dbg_wave_agent(p, slot)->arch))))
        DBG_RETURN(amd_dbgapi_convert_address_space,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
    st = convert(from, source_segment_address, to, lanes, lane_id, &out, &contig);
    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        *destination_segment_address = out;
        *destination_contiguous_bytes = contig;
    }
    DBG_RETURN(amd_dbgapi_convert_address_space, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_dependency(
        amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
        amd_dbgapi_segment_address_dependency_t *segment_address_dependency)
{
    static const amd_dbgapi_segment_address_dependency_t by_space[_GC_ASPACE_MAX] = {
        [GC_ASPACE_GLOBAL] = AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS,
        [GC_ASPACE_GENERIC] = AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS,
        [GC_ASPACE_LOCAL] = AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WORKGROUP,
        [GC_ASPACE_PRIVATE_LANE] = AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_LANE,
        [GC_ASPACE_PRIVATE_WAVE] = AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WAVE,
    };
    struct gc_dbg_arch *a;
    enum gc_aspace space;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_address_dependency, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_space_find(address_space_id.handle, &a, &space))
        DBG_RETURN(amd_dbgapi_address_dependency, AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID);
    if (!segment_address_dependency)
        DBG_RETURN(amd_dbgapi_address_dependency, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    if (space == GC_ASPACE_GENERIC) {
        uint64_t low;

        if (gc_generic_lower(segment_address, &space, &low) != GPUCORE_OK)
            space = GC_ASPACE_GLOBAL;
    }
    *segment_address_dependency = by_space[space];
    DBG_RETURN(amd_dbgapi_address_dependency, AMD_DBGAPI_STATUS_SUCCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_is_in_address_class(
        amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
        amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
        amd_dbgapi_address_class_id_t address_class_id,
        amd_dbgapi_address_class_state_t *address_class_state)
{
    const struct gc_address_class *classes;
    struct gc_dbg_process *p;
    struct gc_dbg_arch *sa, *ca = NULL;
    enum gc_aspace space, class_space;
    size_t n = 0;
    uint32_t slot, ci = 0;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_address_is_in_address_class,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &slot);
    if (!p)
        DBG_RETURN(amd_dbgapi_address_is_in_address_class, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    if (lane_id != AMD_DBGAPI_LANE_NONE && lane_id >= gc_dbg_image_wave(p, slot)->lanes)
        DBG_RETURN(amd_dbgapi_address_is_in_address_class, AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID);
    if (!gc_dbg_space_find(address_space_id.handle, &sa, &space))
        DBG_RETURN(amd_dbgapi_address_is_in_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID);
    ca = gc_dbg_part_find(address_class_id.handle, GC_DBG_PART_ADDRESS_CLASS, &ci);
    if (!ca)
        DBG_RETURN(amd_dbgapi_address_is_in_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID);
    if (!address_class_state)
        DBG_RETURN(amd_dbgapi_address_is_in_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    if (ca->arch != gc_dbg_wave_agent(p, slot)->arch || (sa && sa != ca))
        DBG_RETURN(amd_dbgapi_address_is_in_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
    classes = gc_address_classes(&n);
    class_space = classes[ci].space;
    /* A generic class holds every address; otherwise the address's own space, a generic
       address lowered by its aperture, must be the class's. */
    if (space == GC_ASPACE_GENERIC && class_space != GC_ASPACE_GENERIC) {
        uint64_t low;

        if (gc_generic_lower(segment_address, &space, &low) != GPUCORE_OK)
            space = GC_ASPACE_GLOBAL;
    }
    *address_class_state = class_space == GC_ASPACE_GENERIC || class_space == space
                                   ? AMD_DBGAPI_ADDRESS_CLASS_STATE_MEMBER
                                   : AMD_DBGAPI_ADDRESS_CLASS_STATE_NOT_MEMBER;
    DBG_RETURN(amd_dbgapi_address_is_in_address_class, AMD_DBGAPI_STATUS_SUCCESS);
}
