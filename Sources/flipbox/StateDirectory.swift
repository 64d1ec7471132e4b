import Foundation
import Switcher

/// Where the box keeps its state (last channel, guide): `--state-dir`, else
/// `$FLIPBOX_STATE_DIR`, `$XDG_STATE_HOME/flipbox` or `~/.local/state/flipbox`.
enum StateDirectory {
    static func resolve(_ given: String?) -> String {
        given ?? (LastChannelStore.defaultPath() as NSString).deletingLastPathComponent
    }
}
