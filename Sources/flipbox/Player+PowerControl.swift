import Control
import Switcher

/// The TV's power (HDMI-CEC) drives the player: standby releases the warm pool, wake resumes.
extension Player: PowerControl {
    public func wake() async { await resume() }
}
