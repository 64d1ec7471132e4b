import ArgumentParser
import Lineup

/// Where the lineup's logos may be fetched from, shared by `flipbox play` and `flipbox serve`.
/// Only the box's own command line says this, never the lineup (docs/security.md).
struct LogoOptions: ParsableArguments {
    @Option(name: .customLong("allow-logo-host"), help: ArgumentHelp(
        "A host (name or address) logo URLs may point at although it is this machine (loopback, the box's own ports) or link-local. Repeatable. Only on the command line: a lineup cannot allow it.",
        valueName: "HOST"))
    var allowLogoHosts: [String] = []

    /// The rules for `ownPorts`, the ports this box listens on.
    func policy(ownPorts: [Int]) throws -> LogoSourcePolicy {
        for host in allowLogoHosts where LogoSourcePolicy.hostKey(host).isEmpty || host.contains("/") || host.contains(" ") {
            throw ValidationError("--allow-logo-host takes a host name or an address such as 127.0.0.1 or logos.lan, not '\(host)'")
        }
        return LogoSourcePolicy(allowedHosts: allowLogoHosts, ownPorts: ownPorts)
    }
}
