import CGLib

/// GLib's log as the app writes it: every message as GLib's own writer writes it, but for
/// warnings a library prints about an operation the app itself cancelled, which are no fault
/// and are written as debug messages (seen with `G_MESSAGES_DEBUG`).
///
/// The one known: GVFS 1.50's client (Debian 12) warns "The peer-to-peer connection failed:
/// … Operation was cancelled …" when a file operation on a share is cancelled while the thread
/// doing it is still connecting to the share's daemon (a photo scrolled out of view while its
/// download starts). Its asynchronous path passes over a cancelled connection in silence; the
/// blocking one the download threads use does not.
public enum LogFilter {
    /// Installs the writer; once, before anything logs (GLib allows one writer a process).
    public static func install() {
        _ = installed
    }

    private static let installed: Void = {
        g_log_set_writer_func(
            { level, fields, count, data in
                guard let fields else { return G_LOG_WRITER_UNHANDLED }
                let all = UnsafeBufferPointer(start: fields, count: Int(count))
                if level.rawValue & G_LOG_LEVEL_WARNING.rawValue != 0, LogFilter.isCancelledConnection(all) {
                    return g_log_writer_default(G_LOG_LEVEL_DEBUG, fields, count, data)
                }
                return g_log_writer_default(level, fields, count, data)
            }, nil, nil)
    }()

    /// GVFS's warning about a cancelled connection to a share's daemon.
    static func isCancelledConnection(_ fields: UnsafeBufferPointer<GLogField>) -> Bool {
        guard text(of: "GLIB_DOMAIN", in: fields) == "GVFS", let message = text(of: "MESSAGE", in: fields) else {
            return false
        }
        return message.hasPrefix("The peer-to-peer connection failed") && message.contains("cancelled")
    }

    private static func text(of key: String, in fields: UnsafeBufferPointer<GLogField>) -> String? {
        guard let field = fields.first(where: { String(cString: $0.key) == key }), let value = field.value else {
            return nil
        }
        let bytes = value.assumingMemoryBound(to: CChar.self)
        guard field.length >= 0 else { return String(cString: bytes) }
        return String(decoding: UnsafeRawBufferPointer(start: value, count: field.length), as: UTF8.self)
    }
}
