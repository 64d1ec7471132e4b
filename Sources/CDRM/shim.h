// libdrm's mode-setting queries (devices, connectors, modes), for the one Swift file that
// probes displays (Sources/Display/DRMSyscalls.swift). Nothing here sets a mode: kmssink does.
#ifndef FLIPBOX_CDRM_SHIM_H
#define FLIPBOX_CDRM_SHIM_H

#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/// `DRM_MODE_TYPE_PREFERRED`: the mode the display itself prefers (its native one).
static inline uint32_t cdrm_mode_type_preferred(void) { return DRM_MODE_TYPE_PREFERRED; }

/// `DRM_MODE_FLAG_INTERLACE`.
static inline uint32_t cdrm_mode_flag_interlace(void) { return DRM_MODE_FLAG_INTERLACE; }

#endif
