import PhotoPipeline

/// The words a person reads when the window has no photos to show: what it shows instead of the
/// list, the alert, and a sentence for each way a source can fail. The pipeline says what went
/// wrong as typed values (`PhotoSourceError`); this is where they become words.
enum StatusText {
    /// The status page shown for `status` instead of the list: its icon, title and description.
    static func page(_ status: PhotoListWindow.Status) -> (icon: String, title: String, description: String?) {
        switch status {
        case .loading:
            ("folder-pictures-symbolic", "Loading Photos…", nil)
        case .empty:
            (
                "folder-pictures-symbolic", "No Photos",
                "There are no pictures here. Open a folder, a picture or a photo list."
            )
        case .failed(let errors):
            ("dialog-error-symbolic", "Could Not Load Photos", errors.map(sentence).joined(separator: "\n"))
        }
    }

    /// The alert's title when sources could not be read.
    static let alertTitle = "Oops!"

    /// The alert's message for sources that could not be read: one paragraph each.
    static func alertMessage(_ errors: [PhotoSourceError]) -> String {
        errors.map(sentence).joined(separator: "\n\n")
    }

    /// The alert's message when there was nothing to open at all.
    static let noBundledList =
        "The bundled photo list could not be found. "
        + "Set CLASSIC_PHOTOS_DATADIR to the app's data folder, or open photos."

    /// One sentence for why a source could not be read; the trace's `error` for it too.
    static func sentence(_ error: PhotoSourceError) -> String {
        switch error {
        case .cancelled:
            "Cancelled"
        case .notFound(let path):
            "“\(path)” does not exist"
        case .permissionDenied(let path):
            "No permission to read “\(path)”"
        case .unreadable(let path, let detail):
            "Could not read “\(path)”: \(detail)"
        case .notAFolder(let path):
            "“\(path)” is not a folder"
        case .notPhotos(let path):
            "“\(path)” is neither a folder, a picture nor a photo list"
        case .listNotFetched(let list, let failure):
            "Could not load “\(list)”: \(failure.detail)"
        case .notAPropertyList(let list, nil):
            "“\(list)” is not a property list"
        case .notAPropertyList(let list, .valueWithoutKey?):
            "“\(list)” is not a property list (a value without a key)"
        case .notAPropertyList(let list, .markup(let message)?):
            "“\(list)” is not a property list (\(message))"
        case .notAPhotoList:
            "The list must be a dictionary of names to addresses, or an array of {name, url}"
        case .itemNotADictionary(let item):
            "Item \(item + 1) of the list is not a {name, url} dictionary"
        case .itemWithoutName(let item):
            "Item \(item + 1) of the list needs a “name” string"
        }
    }
}
