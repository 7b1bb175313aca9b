/* SPDX-License-Identifier: MIT */
/*
 * The DRM render node of an emulated device (/dev/dri/renderD<N>): the calls of the amdgpu DRM
 * driver that AMD's thunk makes through libdrm_amdgpu (the node's version and the device
 * queries of AMDGPU_INFO). Memory is allocated through amdkfd, never through this node.
 */
#ifndef GC_EMU_DRM_H
#define GC_EMU_DRM_H

#include <stdint.h>

#include "emu_device.h"
#include "emu_kfd.h"

/* Serve ioctl @p cmd with @p args (GC_IOC_SIZE(cmd) bytes copied in, room for
   GC_EMU_ARGS_MAX). Returns 0 or -errno (unknown calls: -EINVAL, as DRM's core). */
long gc_emu_drm_ioctl(const struct gc_emu_device *d, unsigned cmd, uint8_t *args,
                      const struct gc_emu_io *io);

/* A name for messages ("VERSION", "AMDGPU_INFO"), never NULL. */
const char *gc_emu_drm_name(unsigned cmd);

#endif
