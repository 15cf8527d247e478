import PhotoPipeline

/// The words a person reads when the window has no photos to show: what it shows instead of the
/// list, the alert, and a sentence for each way a source can fail. The pipeline says what went
/// wrong as typed values (`PhotoSourceError`); this is where they become words.
enum StatusText {
    /// The status page shown for `status` instead of the list: its icon, title and description.
    static func page(_ status: WindowStatus.Status) -> (icon: String, title: String, description: String?) {
        switch status {
        case .loading:
            ("folder-pictures-symbolic", tr("Loading Photos…"), nil)
        case .empty:
            (
                "folder-pictures-symbolic", tr("No Photos"),
                tr("There are no pictures here. Open a folder, a picture or a photo list.")
            )
        case .failed(let errors):
            ("dialog-error-symbolic", tr("Could Not Load Photos"), errors.map { sentence($0) }.joined(separator: "\n"))
        case .filteredOut:
            (
                "classic-photos-filter-symbolic", tr("No Photos Match the Filter"),
                tr("None of the photos here has the marks the filter asks for.")
            )
        case .noResults:
            (
                "system-search-symbolic", tr("No Results Found"),
                tr("No photo here has every word searched for in its name, its folders or its tags.")
            )
        }
    }

    /// The alert's title when sources could not be read.
    static var alertTitle: String { tr("Oops!") }

    /// The alert's message for sources that could not be read: one paragraph each.
    static func alertMessage(_ errors: [PhotoSourceError]) -> String {
        errors.map { sentence($0) }.joined(separator: "\n\n")
    }

    /// The alert's message when there was nothing to open at all.
    static var noBundledList: String {
        tr(
            "The bundled photo list could not be found. Set CLASSIC_PHOTOS_DATADIR to the app's data folder, or open photos."
        )
    }

    /// One sentence for why a source could not be read, in the user's language; in English
    /// for the trace's `error`.
    static func sentence(_ error: PhotoSourceError, in language: MessageCatalogue.Language = .user) -> String {
        func tr(_ message: String) -> String { language.translate(message) }
        return switch error {
        case .cancelled:
            tr("Cancelled")
        case .notFound(let path):
            String(format: tr("“%@” does not exist"), path)
        case .permissionDenied(let path):
            String(format: tr("No permission to read “%@”"), path)
        case .unreadable(let path, let detail):
            String(format: tr("Could not read “%1$@”: %2$@"), path, detail)
        case .notAFolder(let path):
            String(format: tr("“%@” is not a folder"), path)
        case .notPhotos(let path):
            String(format: tr("“%@” is neither a folder, a picture nor a photo list"), path)
        case .notMounted(let location):
            String(format: tr("“%@” is on a share that is not mounted"), location)
        case .mountFailed(let location, let detail):
            String(format: tr("Could not connect to “%1$@”: %2$@"), location, detail)
        case .listNotFetched(let list, let failure):
            String(format: tr("Could not load “%1$@”: %2$@"), list, failure.detail)
        case .notAPropertyList(let list, nil):
            String(format: tr("“%@” is not a property list"), list)
        case .notAPropertyList(let list, .valueWithoutKey?):
            String(format: tr("“%@” is not a property list (a value without a key)"), list)
        case .notAPropertyList(let list, .markup(let message)?):
            String(format: tr("“%1$@” is not a property list (%2$@)"), list, message)
        case .notAPhotoList:
            tr("The list must be a dictionary of names to addresses, or an array of {name, url}")
        case .itemNotADictionary(let item):
            String(format: tr("Item %@ of the list is not a {name, url} dictionary"), Localization.number(item + 1))
        case .itemWithoutName(let item):
            String(format: tr("Item %@ of the list needs a “name” string"), Localization.number(item + 1))
        }
    }
}
