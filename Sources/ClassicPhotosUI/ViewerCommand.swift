import CGtk

/// What a person can ask of the photo viewer, by a button or a key.
enum ViewerCommand: Equatable {
    /// Escape: leaves fullscreen first, then closes.
    case escape
    case close
    /// Moves by this many photos (clamped to the list).
    case step(Int)
    /// The first (`toEnd` false) or last photo.
    case jump(toEnd: Bool)
    case zoomIn, zoomOut
    /// Fits the photo to the window, or shows it at 100 %.
    case fit, actualSize
    /// The zoom button: 100 % when fitted (and fit is not 100 %), fit otherwise.
    case toggleFit
    case fullscreen
    case copy, saveAs
    /// Opens the editor on the photo shown (E).
    case edit
    case retry
    /// Shows the sepia photo or the original.
    case sepia(Bool)
    case toggleSepia
    case properties
    /// Starts the slideshow (F5 while the viewer is open).
    case slideshow
    /// A video shown: Space plays or pauses it, M mutes it, L loops it, Shift+Left and
    /// Shift+Right move back or on by this many seconds.
    case playPause, mute, loop
    case seek(Double)
    /// A key that would move or activate the list behind: taken, and nothing happens.
    case ignore

    /// The command of a key pressed while the viewer is open; nil for keys it leaves to the window.
    static func forKey(_ keyval: UInt32, state: GdkModifierType) -> ViewerCommand? {
        let control = state.rawValue & GDK_CONTROL_MASK.rawValue != 0
        let alt = state.rawValue & GDK_ALT_MASK.rawValue != 0
        let shift = state.rawValue & GDK_SHIFT_MASK.rawValue != 0
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape: return .escape
        case GDK_KEY_Left where shift && !control, GDK_KEY_KP_Left where shift && !control: return .seek(-5)
        case GDK_KEY_Right where shift && !control, GDK_KEY_KP_Right where shift && !control: return .seek(5)
        case GDK_KEY_space: return .playPause
        case GDK_KEY_m where !control && !alt, GDK_KEY_M where !control && !alt: return .mute
        case GDK_KEY_l where !control && !alt, GDK_KEY_L where !control && !alt: return .loop
        case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up, GDK_KEY_KP_Page_Up: return .step(-1)
        case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down: return .step(1)
        case GDK_KEY_Home, GDK_KEY_KP_Home: return .jump(toEnd: false)
        case GDK_KEY_End, GDK_KEY_KP_End: return .jump(toEnd: true)
        case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add: return .zoomIn
        case GDK_KEY_minus, GDK_KEY_underscore, GDK_KEY_KP_Subtract: return .zoomOut
        // Ctrl+0 and Ctrl+1, as in Loupe and Eye of GNOME: the digits alone give stars, in
        // the viewer as in the list (as in Lightroom, darktable and Shotwell).
        case GDK_KEY_0 where control, GDK_KEY_KP_0 where control: return .fit
        case GDK_KEY_1 where control, GDK_KEY_KP_1 where control: return .actualSize
        case GDK_KEY_F11: return .fullscreen
        case GDK_KEY_F5: return .slideshow
        case GDK_KEY_c where control: return .copy
        case GDK_KEY_s where control, GDK_KEY_S where control: return .saveAs
        case GDK_KEY_s, GDK_KEY_S: return .toggleSepia
        case GDK_KEY_e where !control && !alt, GDK_KEY_E where !control && !alt: return .edit
        case GDK_KEY_Return where alt, GDK_KEY_KP_Enter where alt: return .properties
        case GDK_KEY_Up, GDK_KEY_Down, GDK_KEY_KP_Up, GDK_KEY_KP_Down, GDK_KEY_Return, GDK_KEY_KP_Enter:
            return .ignore
        default: return nil
        }
    }
}
