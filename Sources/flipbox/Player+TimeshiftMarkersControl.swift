import Control
import Switcher

extension Player: TimeshiftMarkersControl {}
