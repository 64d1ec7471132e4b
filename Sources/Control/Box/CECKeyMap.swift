/// What a TV remote's keys mean, as HDMI-CEC delivers them (`cec_user_control_code`). Volume,
/// mute and power stay with the TV (nil).
public enum CECKeyMap {
    public static func key(forUserControlCode code: Int) -> Key? {
        switch code {
        case 0x00, 0x2B: .enter                  // SELECT, ENTER
        case 0x01: .up
        case 0x02: .down
        case 0x03: .left
        case 0x04: .right
        case 0x0C, 0x2F: .favourites             // FAVORITE_MENU, NEXT_FAVORITE
        case 0x0D, 0x91, 0x32: .back             // EXIT, AN_RETURN, PREVIOUS_CHANNEL
        case 0x20...0x29: .digit(code - 0x20)    // NUMBER0...NUMBER9
        case 0x2A: .dot
        case 0x2C: .backspace                    // CLEAR
        case 0x30, 0x37: .pageUp                 // CHANNEL_UP, PAGE_UP
        case 0x31, 0x38: .pageDown               // CHANNEL_DOWN, PAGE_DOWN
        case 0x33: .audio                        // SOUND_SELECT
        case 0x35: .info                         // DISPLAY_INFORMATION
        case 0x44, 0x46, 0x61: .playPause        // PLAY, PAUSE, PAUSE_PLAY_FUNCTION
        case 0x45, 0x64: .stop                   // STOP, STOP_FUNCTION
        case 0x47, 0x62: .record                 // RECORD, RECORD_FUNCTION
        case 0x48: .rewind
        case 0x49: .fastForward
        case 0x4B: .skipForward                  // FORWARD (next)
        case 0x4C: .skipBack                     // BACKWARD (previous)
        case 0x51: .subtitle                     // SUB_PICTURE
        case 0x53: .guide                        // ELECTRONIC_PROGRAM_GUIDE
        case 0x96: .multiview                    // AN_CHANNELS_LIST
        case 0x71: .blue                         // F1_BLUE
        case 0x72: .red                          // F2_RED
        case 0x73: .green                        // F3_GREEN
        case 0x74: .yellow                       // F4_YELLOW
        default: nil
        }
    }
}
