/// What went wrong doing something to a photo's file (moving it to the trash and back,
/// deleting it, turning it, turning it by its EXIF tag, saving a copy, decoding it whole for
/// the page), in a sentence: GIO's words, the C library's or the app's own.
public struct PhotoFileFailure: Error, Sendable, Equatable {
    public let message: String
    /// The failure was that the folder cannot be written (no permission, a read-only disk):
    /// the file could go to another folder.
    public let folderUnwritable: Bool

    public init(message: String, folderUnwritable: Bool = false) {
        self.message = message
        self.folderUnwritable = folderUnwritable
    }

    /// The message in the user's language (GIO's and the C library's are already).
    public var localizedMessage: String { MessageCatalogue.translate(message) }
}
