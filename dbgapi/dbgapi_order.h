/* SPDX-License-Identifier: MIT */
/*
 * Internal to libgpucore-dbgapi: the order in which AMD's library visits the waves of a process.
 *
 * AMD's library keeps a process's waves in a std::unordered_map keyed by the wave handle (hash:
 * the handle value itself) and, when it opens a core, forces every wave that is still running
 * into the stop state by walking that map; each forced stop queues a WAVE_STOP event. A
 * debugger numbers threads in event order (GDB), so the order of the walk is what a user sees.
 * It is the iteration order of libstdc++'s hash table after inserting the handles one by one,
 * which depends only on the keys and the insertion order: it is reproduced here exactly
 * (bucket = key modulo the bucket count; a node goes to the front of its bucket, or to the
 * front of the whole list when its bucket was empty; a rehash walks the old list and relinks
 * each node the same way; the bucket count grows along the rehash policy's prime schedule).
 */
#ifndef GC_DBGAPI_ORDER_H
#define GC_DBGAPI_ORDER_H

#include <stdint.h>

#include <gpucore/status.h>

/* The largest number of keys the schedule below covers (libstdc++'s buckets up to 2938679). */
#define GC_DBG_ORDER_MAX_KEYS 2938679u

/*
 * Iteration order of a libstdc++ std::unordered_map<uint64_t-like handle, ...> (identity hash,
 * default max_load_factor 1.0) into which the keys @p first_key, @p first_key + 1, ...,
 * @p first_key + @p n - 1 were inserted in that order: ret_order[k] is the index (0..n-1) of the
 * k-th key visited. @p ret_order holds @p n entries.
 * @retval GPUCORE_OK
 * @retval GPUCORE_E_INVAL   ret_order NULL with n > 0
 * @retval GPUCORE_E_LIMIT   n > GC_DBG_ORDER_MAX_KEYS
 * @retval GPUCORE_E_NOMEM
 */
gpucore_status_t gc_dbg_map_order(uint64_t first_key, uint32_t n, uint32_t *ret_order);

#endif /* GC_DBGAPI_ORDER_H */
