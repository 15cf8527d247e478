import CGLib
import CGtk
import GtkKit

/// The editor's keys, taken before the window's shortcuts while it is open.
extension PhotoEditor {
    /// A key pressed while the editor is open: whether it was taken.
    func key(_ keyval: UInt32, state modifiers: GdkModifierType) -> Bool {
        let control = modifiers.rawValue & GDK_CONTROL_MASK.rawValue != 0
        let shift = modifiers.rawValue & GDK_SHIFT_MASK.rawValue != 0
        let plain = modifiers.rawValue & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue) == 0
        // The shape's popover, while open, has the keys (Escape closes it, arrows move in it);
        // the slider, when it has the focus, the keys that move it.
        if shapeMenu.popover?.isVisible == true { return false }
        if straightenScale.hasFocus, Self.sliderKeys.contains(Int32(bitPattern: keyval)), plain { return false }
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape: cancel()
        case GDK_KEY_z where control && shift, GDK_KEY_Z where control, GDK_KEY_y where control: redo()
        case GDK_KEY_z where control: undo()
        case GDK_KEY_s where control && shift, GDK_KEY_S where control && shift: save(.replace)
        case GDK_KEY_s where control, GDK_KEY_S where control: save(lastMode)
        case GDK_KEY_r where control: reset()
        case GDK_KEY_bracketleft where plain: turn(clockwise: false)
        case GDK_KEY_bracketright where plain: turn(clockwise: true)
        case GDK_KEY_h where plain, GDK_KEY_H where plain: flip(vertically: false)
        case GDK_KEY_v where plain, GDK_KEY_V where plain: flip(vertically: true)
        case GDK_KEY_o where plain, GDK_KEY_O where plain: portrait.isActive.toggle()
        case GDK_KEY_l where plain, GDK_KEY_L where plain: if levelButton.isSensitive { levelButton.isActive.toggle() }
        // Alt and a letter: a mnemonic of the controls.
        case _ where modifiers.rawValue & GDK_ALT_MASK.rawValue != 0: return false
        // The arrows move the frame (with Shift, its bottom-right corner) by a step of the screen.
        case GDK_KEY_Left: nudge(dx: -1, dy: 0, corner: shift)
        case GDK_KEY_Right: nudge(dx: 1, dy: 0, corner: shift)
        case GDK_KEY_Up: nudge(dx: 0, dy: -1, corner: shift)
        case GDK_KEY_Down: nudge(dx: 0, dy: 1, corner: shift)
        // Moving between the controls and pressing them is GTK's.
        case GDK_KEY_Tab, GDK_KEY_ISO_Left_Tab, GDK_KEY_KP_Tab, GDK_KEY_space, GDK_KEY_Return, GDK_KEY_KP_Enter:
            return false
        // Any other key is kept from the window's shortcuts, which would act on the list behind.
        default: break
        }
        return true
    }

    private static let sliderKeys: Set<Int32> = [
        GDK_KEY_Left, GDK_KEY_Right, GDK_KEY_Up, GDK_KEY_Down, GDK_KEY_Home, GDK_KEY_End, GDK_KEY_Page_Up,
        GDK_KEY_Page_Down, GDK_KEY_KP_Left, GDK_KEY_KP_Right, GDK_KEY_minus, GDK_KEY_plus,
    ]
}
