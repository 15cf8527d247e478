import CGLib

/// An owned reference to a GObject: holds exactly one strong ref and drops it on deinit.
public final class ObjectRef<T>: @unchecked Sendable {
    /// The wrapped instance, typed as its C struct.
    public let pointer: UnsafeMutablePointer<T>

    /// Adopts a reference the caller already owns (C "transfer full").
    public init(taking pointer: UnsafeMutablePointer<T>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own (C "transfer none").
    public init(retaining pointer: UnsafeMutablePointer<T>) {
        g_object_ref(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }

    /// Takes ownership of a floating reference (GInitiallyUnowned, e.g. a new widget).
    public init(sinking pointer: UnsafeMutablePointer<T>) {
        g_object_ref_sink(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// The instance as the opaque pointer that functions of final and interface types take
    /// (Swift imports a C type whose struct is private as `OpaquePointer`).
    public var opaque: OpaquePointer { OpaquePointer(pointer) }

    /// The instance as a plain `GObject`.
    public var object: UnsafeMutablePointer<GObject> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self)
    }

    /// The instance reinterpreted as another struct in its class hierarchy.
    public func cast<U>(_: U.Type = U.self) -> UnsafeMutablePointer<U> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: U.self)
    }

    /// The GObject reference count, for leak checks in tests.
    public var referenceCount: UInt32 { GObjectInspection.referenceCount(of: pointer) }
}

/// Read-only looks into GObject instances, for diagnostics and tests.
public enum GObjectInspection {
    public static func referenceCount<T>(of pointer: UnsafeMutablePointer<T>) -> UInt32 {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self).pointee.ref_count
    }
}

/// Observes whether a GObject has been finalized, without keeping it alive.
public final class FinalizationWatch: @unchecked Sendable {
    private let flag: UnsafeMutablePointer<gpointer?>

    public init<T>(_ pointer: UnsafeMutablePointer<T>) {
        flag = .allocate(capacity: 1)
        flag.initialize(to: UnsafeMutableRawPointer(pointer))
        g_object_add_weak_pointer(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self), flag)
    }

    /// True once the object has been finalized.
    public var isFinalized: Bool { flag.pointee == nil }

    deinit {
        if let object = flag.pointee {
            g_object_remove_weak_pointer(object.assumingMemoryBound(to: GObject.self), flag)
        }
        flag.deallocate()
    }
}

extension ObjectRef where T == GObject {
    /// Adopts an instance whose C type Swift imports as opaque (GObject interfaces like `GFile`).
    public convenience init(takingOpaque pointer: OpaquePointer) {
        self.init(taking: UnsafeMutablePointer(pointer))
    }

    /// Adds a reference of our own to an instance whose C type Swift imports as opaque.
    public convenience init(retainingOpaque pointer: OpaquePointer) {
        self.init(retaining: UnsafeMutablePointer(pointer))
    }
}
