import CGLib

/// Typed looks at the untyped pointers C hands over: GObject instances checked against their
/// type, a Swift object lent to a C callback as its data, and bytes in the form C functions take.
/// Every reinterpretation of memory the pipeline needs is made here, each with its contract.

/// Instances of GObject types seen through the struct of their own class or interface.
public enum GObjectCast {
    /// Whether the instance at `pointer` is of `type` or of a type derived from it (for an
    /// interface: whether its class implements it).
    public static func isInstance(_ pointer: UnsafeMutableRawPointer, of type: GType) -> Bool {
        g_type_check_instance_is_a(pointer.assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    /// The instance at `pointer` as `T` when it is of `type` (see `isInstance`); nil when not.
    /// `T` must be the C struct of `type` or of one of its ancestors.
    public static func instance<T>(
        _ pointer: UnsafeMutableRawPointer, of type: GType, as _: T.Type = T.self
    ) -> UnsafeMutablePointer<T>? {
        isInstance(pointer, of: type) ? pointer.assumingMemoryBound(to: T.self) : nil
    }

    /// The instance at `pointer` as the struct of an ancestor type, which it is by construction
    /// (a `GUnixInputStream` is a `GInputStream`): the C macros' unchecked up-cast.
    public static func upcast<T>(_ pointer: UnsafeMutableRawPointer, to _: T.Type = T.self) -> UnsafeMutablePointer<T> {
        pointer.assumingMemoryBound(to: T.self)
    }
}

/// A Swift value handed to a C callback as its `gpointer` data.
public enum CallbackData {
    /// One strong reference to `object`, as data for a callback that runs exactly once;
    /// that callback balances it with `take`.
    public static func retain(_ object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(object).toOpaque()
    }

    /// The object `retain` lent, its reference given back to the caller.
    public static func take<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: T.Type = T.self) -> T {
        Unmanaged<T>.fromOpaque(data!).takeRetainedValue()
    }

    /// `object` as data for a callback that may run any number of times, all of them while the
    /// caller keeps `object` alive (`withExtendedLifetime` around the C call): no reference goes
    /// with it, so nothing is to be given back.
    public static func lend(_ object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque()
    }

    /// The object at a callback's data, its reference left where it is: data `lend` made, or
    /// data `retain` made for a callback that runs many times and whose destroy-notify `take`s
    /// it back once.
    public static func borrow<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: T.Type = T.self) -> T {
        Unmanaged<T>.fromOpaque(data!).takeUnretainedValue()
    }

    /// The value a callback's data points at, for a caller that allocated it as `T` and keeps it
    /// alive for as long as the callback can run.
    public static func value<T>(_ data: UnsafeMutableRawPointer?, as _: T.Type = T.self) -> UnsafeMutablePointer<T> {
        data!.assumingMemoryBound(to: T.self)
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes as C's `const guint8 *` / `const guchar *`; nil for an empty buffer without storage.
    public var cBytes: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }

    /// The bytes as C's `const gchar *` (not terminated: pass the count along).
    public var cChars: UnsafePointer<CChar>? { baseAddress?.assumingMemoryBound(to: CChar.self) }
}

extension UnsafeMutableRawPointer {
    /// Memory the caller owns and fills with bytes (a mapping, a buffer), as C's `guchar *`.
    public var cBytes: UnsafeMutablePointer<UInt8> { assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeRawPointer {
    /// Bytes C passed as an untyped pointer (a `gconstpointer` with a length), as `guint8 *`.
    public var cBytes: UnsafePointer<UInt8> { assumingMemoryBound(to: UInt8.self) }
}

extension String {
    /// The NUL-terminated UTF-8 text at a `gpointer` (a hash table's key or value, say).
    public init(cStringAt pointer: UnsafeRawPointer) {
        self.init(cString: pointer.assumingMemoryBound(to: CChar.self))
    }
}
