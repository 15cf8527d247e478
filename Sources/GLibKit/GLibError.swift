import CGLib

/// `GError` as a Swift `Error`.
public struct GLibError: Error, CustomStringConvertible, Sendable, Equatable {
    public let domain: String
    public let code: Int32
    public let message: String

    public init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies and frees a `GError` the caller owns.
    public init(consuming error: UnsafeMutablePointer<GError>) {
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = String(cString: error.pointee.message)
        g_error_free(error)
    }

    public var description: String { message }

    /// True for `G_IO_ERROR_CANCELLED`, what GIO and libsoup report for a cancelled call.
    public var isCancellation: Bool {
        domain == String(cString: g_quark_to_string(g_io_error_quark()))
            && code == Int32(G_IO_ERROR_CANCELLED.rawValue)
    }

    /// Whether this error is `code` of GIO's error domain.
    public func isIOError(_ ioCode: GIOErrorEnum) -> Bool {
        domain == String(cString: g_quark_to_string(g_io_error_quark())) && code == Int32(ioCode.rawValue)
    }
}

/// Calls a C function that reports failure through a `GError**`, turning it into a throw.
public func withGError<R>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R) throws(GLibError) -> R {
    var error: UnsafeMutablePointer<GError>? = nil
    let result = body(&error)
    if let error { throw GLibError(consuming: error) }
    return result
}
