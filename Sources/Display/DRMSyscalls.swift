import CDRM
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The only calls into libdrm: open a device node, read its driver, connectors and modes, close
/// it. Nothing here sets a mode or keeps a descriptor: the probe opens and closes the device
/// before kmssink opens it (the first to open a card becomes its DRM master, which setting the
/// mode needs), and reads without master when something else already drives the display.
enum DRMSyscalls {
    /// Reads the card at `path`: `drmGetVersion` (driver), `drmModeGetResources` (connectors),
    /// `drmModeGetConnector` (connection, modes; probes the display when nothing drives it).
    static func probe(path: String) -> Result<DisplayCard, DisplayError> {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            let fix = code == EACCES || code == EPERM
                ? ": add the user to the video group (sudo usermod -aG video $USER, then log in again)" : ""
            return .failure(DisplayError(.cannotOpen, "\(path): cannot open (\(reason))\(fix)"))
        }
        defer { close(fd) }
        var driver = "unknown"
        if let version = drmGetVersion(fd) {
            if let name = version.pointee.name { driver = String(cString: name) }
            drmFreeVersion(version)
        } else {
            return .failure(DisplayError(.notModeSetting, "\(path) is not a DRM device"))
        }
        guard let resources = drmModeGetResources(fd) else {
            return .failure(DisplayError(.notModeSetting, "\(path) (\(driver)) cannot set modes (a render-only device?)"))
        }
        defer { drmModeFreeResources(resources) }
        let ids = UnsafeBufferPointer(start: resources.pointee.connectors, count: Int(resources.pointee.count_connectors))
        let connectors = ids.compactMap { id -> DisplayConnector? in
            guard let connector = drmModeGetConnector(fd, id) else { return nil }
            defer { drmModeFreeConnector(connector) }
            return displayConnector(connector.pointee)
        }
        return .success(DisplayCard(path: path, driver: driver, connectors: connectors))
    }

    private static func displayConnector(_ c: drmModeConnector) -> DisplayConnector {
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown\(c.connector_type)"
        let connection: DisplayConnector.Connection = switch c.connection {
        case DRM_MODE_CONNECTED: .connected
        case DRM_MODE_DISCONNECTED: .disconnected
        default: .unknown
        }
        let modes = UnsafeBufferPointer(start: c.modes, count: Int(c.count_modes)).map(displayMode)
        return DisplayConnector(id: c.connector_id, name: "\(typeName)-\(c.connector_type_id)", connection: connection, modes: modes)
    }

    /// Refresh from the pixel clock (kHz) over the frame's totals; `vrefresh` when those are 0.
    private static func displayMode(_ m: drmModeModeInfo) -> DisplayMode {
        let interlaced = m.flags & cdrm_mode_flag_interlace() != 0
        let total = Int(m.htotal) * Int(m.vtotal) * max(1, Int(m.vscan))
        var millihertz = total > 0 ? Int((Double(m.clock) * 1_000_000 / Double(total)).rounded()) : Int(m.vrefresh) * 1000
        if interlaced && total > 0 { millihertz *= 2 }
        return DisplayMode(width: Int(m.hdisplay), height: Int(m.vdisplay), refreshMillihertz: millihertz,
                           preferred: m.type & cdrm_mode_type_preferred() != 0, interlaced: interlaced)
    }
}
