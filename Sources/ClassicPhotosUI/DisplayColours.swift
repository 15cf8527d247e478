import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The colours pictures are shown in. Every picture is decoded into sRGB (the decoder helpers
/// turn each from its own profile); when the session names a colour profile for the display
/// (the X root window's `_ICC_PROFILE`, which colord and the desktops set) and the setting
/// `use-display-profile` is on, as it is by default, each is turned into the display's colours
/// as it is made into a texture, the way gThumb does. A profile set, changed or removed while
/// the app runs (in Settings → Color) is followed: every window shows its pictures again. The
/// pictures themselves stay sRGB: saving, copying and the sepia use them as they are.
@MainActor
final class DisplayColours {
    static let shared = DisplayColours()

    /// The display's own profile (its description), whether or not it is used.
    private(set) var displayProfileName: String?
    /// How pictures are turned for the display; nil: shown as they are (sRGB).
    private(set) var transform: ColorProfile.DisplayTransform?
    /// Counts changes of `transform`: a texture made before the last change is made again.
    private(set) var generation = 0
    private var displayTransform: ColorProfile.DisplayTransform?
    /// The profile's bytes as last read (nil: none).
    private var displayProfile: Data?
    private var enabled = true
    private var read = false
    /// Called when the colours pictures are shown in changed (each window shows its own again).
    private var observers: [() -> Void] = []

    /// Reads the display's profile once (at start), with the setting's value.
    func start(enabled: Bool) {
        guard !read else { return }
        read = true
        self.enabled = enabled
        guard let display = gdk_display_get_default() else { return apply() }
        use(Self.profile(of: display))
        apply()
        // Called as GDK handles the X event; read at the loop's next turn.
        _ = cp_watch_display_icc_profile(display) {
            MainLoop.onMainActor { DisplayColours.shared.displayProfileChanged() }
        }
    }

    /// The display's profile as the X session names it now, if it names one.
    private static func profile(of display: OpaquePointer) -> Data? {
        var length: gsize = 0
        guard let bytes = cp_display_icc_profile(display, &length) else { return nil }
        defer { g_free(bytes) }
        return Data(bytes: bytes, count: Int(length))
    }

    private func use(_ profile: Data?) {
        displayProfile = profile
        displayTransform = profile.flatMap { ColorProfile.DisplayTransform(displayProfile: $0) }
        displayProfileName = displayTransform?.name
    }

    /// The session's `_ICC_PROFILE` was set or removed: read again, and if it is another
    /// profile, every window shows its pictures in the new colours.
    private func displayProfileChanged() {
        guard let display = gdk_display_get_default() else { return }
        let profile = Self.profile(of: display)
        guard profile != displayProfile else { return }
        use(profile)
        apply()
        for observer in observers { observer() }
    }

    /// The setting changed.
    func setEnabled(_ on: Bool) {
        guard on != enabled else { return }
        enabled = on
        apply()
        for observer in observers { observer() }
    }

    func observe(_ body: @escaping () -> Void) { observers.append(body) }

    private func apply() {
        transform = enabled ? displayTransform : nil
        generation += 1
        Trace.shared.emit(.displayProfile(name: transform?.name ?? ""))
    }

    /// A texture of `image` in the display's colours.
    func texture(for image: PhotoImage) -> ObjectRef<GObject> {
        let shown = transform?.apply(to: image) ?? image
        // The turned copy lives until its texture holds its pixels.
        return withExtendedLifetime(shown) { Handle<Texture>.make(from: shown.pixbuf) }
    }

    /// What About's Troubleshooting page says of it.
    var troubleshooting: String {
        switch (displayProfileName, transform) {
        case (let name?, .some): "Pictures are turned from sRGB into the display's profile, “\(name)”."
        case (let name?, nil):
            "The display's profile, “\(name)”, is not used (the setting use-display-profile is off): pictures are shown in sRGB."
        default: "The display names no colour profile (or only sRGB): pictures are shown in sRGB."
        }
    }
}
