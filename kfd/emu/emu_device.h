/* SPDX-License-Identifier: MIT */
/*
 * The devices gpucore-kfdemu presents: the simulated driver's agent model (struct
 * gc_scen_agent, the same one the sim's scenarios describe) plus what a real amdkfd node also
 * shows in sysfs (memory size, engines, clocks). docs/kfd-emulator.md lists every property and
 * where its value comes from.
 */
#ifndef GC_EMU_DEVICE_H
#define GC_EMU_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "cwsr.h"
#include "gpucore/status.h"
#include "scenario.h"

#define GC_EMU_MAX_DEVICES 16 /* render minors 128..143 */
#define GC_EMU_RENDER_MINOR_BASE 128

struct gc_emu_device {
    struct gc_scen_agent agent; /* target, gpu_id, SIMDs, XCCs, capability, PCI ids */
    const struct gc_arch *arch;
    struct gc_cwsr_sizes cwsr;  /* per XCC: what CREATE_QUEUE must be given */
    char name[32];              /* the node's sysfs "name" (amdgpu's IP name) */
    uint64_t vram_bytes;        /* the local memory bank */
    uint32_t cu_per_simd_array, lds_size_in_kb, wave_front_size, max_slots_scratch_cu;
    uint32_t num_cp_queues, num_sdma_engines, num_sdma_xgmi_engines, sdma_queues_per_engine;
    uint32_t fw_version, sdma_fw_version, max_engine_clk_fcompute, num_gws;
    uint32_t l2_kb, l3_kb;      /* cache sizes (L3: the MALL, 0 = none) */
    uint64_t unique_id;
    uint32_t node;              /* sysfs node number (1..; 0 is the CPU) */
    uint32_t render_minor;      /* /dev/dri/renderD<minor> */
};

/*
 * The targets of the built-in devices (an MI210, an MI300X of 8 XCCs, an RX 7900 XTX), first
 * the default: up to @p cap names into @p names. Returns how many there are.
 */
size_t gc_emu_device_presets(const char **names, size_t cap);

/*
 * Add the devices a --device argument names to @p devs (which holds *n of @p cap): a preset
 * name, or a scenario file (JSON, docs/kfd-emulator.md) whose every agent becomes a device.
 * gpu_ids must be unique over all devices. On failure, @p err (of @p errlen) says why.
 *
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (unknown preset, bad file, duplicate gpu_id, a target
 *         the emulator cannot present), GPUCORE_E_LIMIT (more than @p cap devices),
 *         GPUCORE_E_IO (the file cannot be read), GPUCORE_E_NOMEM.
 */
gpucore_status_t gc_emu_devices_add(const char *spec, struct gc_emu_device *devs, size_t cap,
                                    size_t *n, char *err, size_t errlen);

/*
 * Write the KFD topology of @p devs (nodes 1..n; node 0 is the host's CPU with @p cpu_cores
 * cores) below the directory @p dirfd, as amdkfd shows it below
 * /sys/devices/virtual/kfd/kfd/topology: generation_id, system_properties,
 * nodes/N/{gpu_id,name,properties,mem_banks,caches,io_links,p2p_links}.
 *
 * @retval GPUCORE_OK, GPUCORE_E_IO (errno set).
 */
gpucore_status_t gc_emu_topology_write(int dirfd, const struct gc_emu_device *devs, size_t n,
                                       uint32_t cpu_cores);

/* The text of node @p d's "properties" file, as amdkfd's node_show prints it. Returns the
   length written (bounded by @p cap, always NUL-terminated). */
size_t gc_emu_node_properties(const struct gc_emu_device *d, char *buf, size_t cap);

#endif
