import CGLib
import CGtk
import GLibKit

// Typed handles on GTK objects: the one place where a pointer meets the C type a GTK function
// wants. Code that holds a `Widget<Label>` calls `setText`, never a cast; the class was checked
// once, when the handle was taken from a GtkBuilder file (`Handle<Builder>`), or is certain
// because the handle wraps what a GTK constructor has just returned (`make`, `init(made:)`).

/// A GObject class a handle can name.
@MainActor
public protocol GObjectKind {
    static var type: GType { get }
}

/// A GtkWidget class.
@MainActor
public protocol WidgetKind: GObjectKind {}

/// A GtkWindow class.
@MainActor
public protocol WindowKind: WidgetKind {}

/// A GtkPopover class (a popover, or a popover menu).
@MainActor
public protocol PopoverKind: WidgetKind {}

/// A GtkEventController class.
@MainActor
public protocol ControllerKind: GObjectKind {}

/// A GtkGesture class: a controller that recognises a sequence of pointer or touch events.
@MainActor
public protocol GestureKind: ControllerKind {}

/// Any GObject of class `Kind`, unowned: what holds the object (its widget tree, a builder, an
/// `ObjectRef`) keeps it alive.
@MainActor
public struct Handle<Kind: GObjectKind> {
    /// The object, as the untyped pointer GLib's own calls take (and a key to find it by).
    public let raw: UnsafeMutableRawPointer
    init(_ raw: UnsafeMutableRawPointer) { self.raw = raw }

    /// The object `object` holds, which must be a `Kind`; the handle is valid while it is held.
    public init(_ object: ObjectRef<GObject>) {
        self.init(checking: UnsafeMutableRawPointer(object.pointer))
    }

    /// An object handed in from outside, which must be a `Kind`; the caller keeps it alive.
    public init(checking raw: UnsafeMutableRawPointer) {
        self.init(raw)
        precondition(isA(Kind.type), "the object is not a \(Kind.self)")
    }

    /// The object as the opaque pointer that functions of final and interface types take.
    public var opaque: OpaquePointer { OpaquePointer(raw) }
    func pointer<T>(as _: T.Type = T.self) -> UnsafeMutablePointer<T> { raw.assumingMemoryBound(to: T.self) }

    /// Whether the object is an instance of `type` (or of a subclass).
    public func isA(_ type: GType) -> Bool {
        g_type_check_instance_is_a(pointer(as: GTypeInstance.self), type) != 0
    }

    /// The same object as a handle of class `Other`, if it is one.
    public func checked<Other: GObjectKind>(as _: Other.Type = Other.self) -> Handle<Other>? {
        isA(Other.type) ? Handle<Other>(raw) : nil
    }

    /// A reference of its own on the object, which keeps it alive while held (a dialog while
    /// it is open, say).
    public func retained() -> ObjectRef<GObject> { ObjectRef(retaining: pointer(as: GObject.self)) }

    /// Connects `body` to `signal` (no arguments); the connection lasts as long as it is kept.
    public func connect(_ signal: String, _ body: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, body)
    }

    /// Connects `body` to `signal`, whose one argument is an integer.
    public func connect(_ signal: String, int body: @escaping (Int32) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, int: body)
    }

    /// Connects `body` to changes of the property `property`.
    public func onNotify(_ property: String, _ body: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "notify::\(property)", pointer: { _ in body() })
    }

    /// Makes `target`'s property `targetProperty` follow this object's `property` from now on.
    public func bind(_ property: String, to target: Handle<some GObjectKind>, _ targetProperty: String) {
        g_object_bind_property(raw, property, target.raw, targetProperty, G_BINDING_DEFAULT)
    }
}

/// A widget of class `Kind`: a handle with the widget's own calls.
public typealias Widget<Kind: WidgetKind> = Handle<Kind>
