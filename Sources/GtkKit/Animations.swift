import CGLib
import CGtk
import GLibKit

// libadwaita's timed animations, driving a property of an object.

extension Handle where Kind == TimedAnimation {
    /// A new animation of `object`'s property `property` (a double) from `from` to `to` over
    /// `milliseconds`, timed by `widget`'s frames; as the reference that keeps it alive.
    public static func make(
        animating property: String, of object: Handle<some GObjectKind>, on widget: Widget<some WidgetKind>,
        from: Double, to: Double, milliseconds: UInt32
    ) -> ObjectRef<GObject> {
        let target = adw_property_animation_target_new(object.pointer(as: GObject.self), property)
        let animation = adw_timed_animation_new(widget.widget, from, to, milliseconds, target)!
        return ObjectRef(taking: UnsafeMutableRawPointer(animation).assumingMemoryBound(to: GObject.self))
    }

    /// The value now, wherever the animation got to.
    public var value: Double { adw_animation_get_value(pointer()) }
    /// Stops it where it is, to be played again from its start.
    public func reset() { adw_animation_reset(pointer()) }
    public func play() { adw_animation_play(pointer()) }
    public func setValueFrom(_ value: Double) { adw_timed_animation_set_value_from(opaque, value) }
    public func setValueTo(_ value: Double) { adw_timed_animation_set_value_to(opaque, value) }
    public func setEasing(_ easing: AdwEasing) { adw_timed_animation_set_easing(opaque, easing) }

    /// Connects `body` to "done": it reached its end (or was skipped to it).
    public func onDone(_ body: @escaping () -> Void) -> SignalConnection { connect("done", body) }
}
