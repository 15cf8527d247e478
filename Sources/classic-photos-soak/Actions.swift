import Foundation
import TestSupport

/// What a restless person does to the app, one step at a time.
enum Action: CustomStringConvertible {
    case wheel(notches: Int)
    case keys([String])
    case scrollbar(toFraction: Double)
    case view(grid: Bool)
    case zoomCells(String)
    case resize(width: Int, height: Int)
    case sort(String)
    case selectAllOrNone(all: Bool)
    /// Stars, a reject or a label given to the photos selected (keys: "3", "x", "6", …).
    case mark(String)
    /// The funnel's menu (Ctrl+Shift+F) and an item's letter, or Escape: the filter cleared.
    case filter(String)
    /// Selects `rows` rows from one on screen, moves them to the trash, and puts them back.
    case trashAndUndo(rows: Int, all: Bool)
    /// Selects a photo on screen and turns it one way, then back.
    case rotate
    /// The editor on the photo shown: these keys, then saved as a copy and the save undone
    /// (Ctrl+Z), or reset and left.
    case edit(keys: [String], save: Bool)
    case openViewer(atFraction: Double)
    case page(keys: [String])
    /// An arrow key held down for `seconds` (the X server repeats it).
    case hold(key: String, seconds: Double)
    /// 2 to 4 photos selected from the middle of the view, compared: zoomed, marked, closed.
    case compare(photos: Int, keys: [String])
    case slideshow
    case closeViewer
    case intoSubfolder
    case back
    case reload
    case includeSubfolders
    case open(Source)
    /// Photos added to and removed from the big folder underneath the app.
    case filesChange(add: Int, remove: Int)

    /// What the app is opened on.
    enum Source: CustomStringConvertible {
        case folder, tree, list, share
        var description: String {
            switch self {
            case .folder: "the big folder"
            case .tree: "the Pictures tree"
            case .list: "the web list"
            case .share: "the WebDAV share"
            }
        }
    }

    var description: String {
        switch self {
        case .wheel(let notches): "wheel \(notches > 0 ? "down" : "up") \(abs(notches))"
        case .keys(let keys): "keys \(keys.joined(separator: " "))"
        case .scrollbar(let fraction): "drag the scrollbar to \(Int(fraction * 100)) %"
        case .view(let grid): grid ? "the grid (Ctrl+2)" : "the list (Ctrl+1)"
        case .zoomCells(let key): "cell size \(key)"
        case .resize(let width, let height): "resize to \(width) × \(height)"
        case .sort(let keys): "sort: F10 \(keys)"
        case .selectAllOrNone(let all): all ? "select all" : "select none"
        case .mark(let key): "mark the photos selected: \(key)"
        case .filter(let key): key == "Escape" ? "clear the filter (Escape)" : "filter: Ctrl+Shift+F \(key)"
        case .trashAndUndo(let rows, let all):
            all ? "select all, Delete, then Ctrl+Z" : "select \(rows) rows, Delete, then Ctrl+Z"
        case .rotate: "rotate a photo right, then left"
        case .edit(let keys, let save):
            "edit: E, \(keys.joined(separator: " ")), " + (save ? "Ctrl+S, Ctrl+Z" : "Ctrl+R, Escape")
        case .openViewer(let fraction): "open the photo \(Int(fraction * 100)) % down the view"
        case .page(let keys): "page the viewer: \(keys.joined(separator: " "))"
        case .hold(let key, let seconds): "hold \(key) in the viewer for \(String(format: "%.1f", seconds)) s"
        case .compare(let photos, let keys): "compare \(photos) photos (C), keys \(keys.joined(separator: " ")), Escape"
        case .slideshow: "slideshow for a moment"
        case .closeViewer: "close the viewer"
        case .intoSubfolder: "into the first sub-folder"
        case .back: "back (Alt+Left)"
        case .reload: "reload (F5)"
        case .includeSubfolders: "toggle Include Sub-folders"
        case .open(let source): "open \(source)"
        case .filesChange(let add, let remove): "add \(add) photos to the big folder, remove \(remove)"
        }
    }
}

/// What the run believes the app shows, from its own steps (and, for what only the app
/// knows, what its trace said).
struct Scene {
    var source: Action.Source
    var grid = false
    var viewerOpen = false
    var inSubfolder = false
    var recursive = false

    /// Local files the trash and rotation act on.
    var isLocal: Bool { source == .folder || source == .tree }

    /// The next step, chosen by `generator` among those that make sense now.
    func nextAction(using generator: inout SplitMix64) -> Action {
        if viewerOpen {
            let choice = Int.random(in: 0..<20, using: &generator)
            switch choice {
            case 0..<10:
                let keys = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                    ["Right", "Right", "Left", "plus", "minus", "ctrl+1", "ctrl+0", "3", "x"].randomElement(
                        using: &generator)!
                }
                return .page(keys: keys)
            case 10..<12: return .slideshow
            case 12..<14 where isLocal: return .rotate
            case 16..<17 where isLocal:
                let keys = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                    ["bracketright", "bracketleft", "h", "v", "shift+Left", "shift+Up", "Left", "Down", "ctrl+z", "o"]
                        .randomElement(using: &generator)!
                }
                return .edit(keys: keys, save: Bool.random(using: &generator))
            case 14..<16:
                return .hold(
                    key: Bool.random(using: &generator) ? "Right" : "Left",
                    seconds: Double.random(in: 0.4...2.5, using: &generator))
            default: return .closeViewer
            }
        }
        enum Kind { case wheel, keys, scrollbar, view, resize, sort, select, viewer, reload, open, filter }
        enum LocalKind { case zoom, trash, rotate, files, subfolders, folder, mark, compare }
        var weighted: [(Int, Either)] = [
            (16, .any(.wheel)), (10, .any(.keys)), (5, .any(.scrollbar)), (7, .any(.view)), (4, .any(.resize)),
            (3, .any(.sort)), (4, .any(.select)), (9, .any(.viewer)), (2, .any(.reload)), (2, .any(.open)),
            (3, .any(.filter)),
        ]
        enum Either {
            case any(Kind)
            case some(LocalKind)
        }
        if grid { weighted.append((5, .some(.zoom))) }
        if isLocal {
            weighted += [
                (4, .some(.trash)), (3, .some(.rotate)), (4, .some(.files)), (1, .some(.subfolders)),
                (5, .some(.mark)), (3, .some(.compare)),
            ]
        }
        if source == .folder { weighted.append((3, .some(.folder))) }
        var pick = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.0 }, using: &generator)
        let chosen = weighted.first { weight, _ in
            defer { pick -= weight }
            return pick < weight
        }!.1
        switch chosen {
        case .any(.wheel): return .wheel(notches: Int.random(in: -12...16, using: &generator))
        case .any(.keys):
            let key = ["Page_Down", "Page_Up", "End", "Home", "Down", "Down", "Up"].randomElement(using: &generator)!
            return .keys(Array(repeating: key, count: Int.random(in: 1...3, using: &generator)))
        case .any(.scrollbar): return .scrollbar(toFraction: Double.random(in: 0...1, using: &generator))
        case .any(.view): return .view(grid: !grid)
        case .any(.resize):
            return .resize(
                width: [640, 800, 1000, 1200, 1400].randomElement(using: &generator)!,
                height: [600, 850, 980].randomElement(using: &generator)!)
        case .any(.sort):
            return .sort(["s n", "s t", "s m", "s z", "s r", "s a", "s d"].randomElement(using: &generator)!)
        case .any(.filter):
            return .filter(["3", "1", "a", "r", "d", "g", "Escape", "Escape"].randomElement(using: &generator)!)
        case .any(.select): return .selectAllOrNone(all: Bool.random(using: &generator))
        case .any(.viewer): return .openViewer(atFraction: Double.random(in: 0.45...0.85, using: &generator))
        case .any(.reload): return .reload
        case .any(.open): return .open([.folder, .tree, .list, .share].randomElement(using: &generator)!)
        case .some(.zoom): return .zoomCells(["ctrl+plus", "ctrl+minus", "ctrl+0"].randomElement(using: &generator)!)
        case .some(.trash):
            return .trashAndUndo(
                rows: Int.random(in: 2...60, using: &generator), all: Int.random(in: 0..<6, using: &generator) == 0)
        case .some(.rotate): return .rotate
        case .some(.files):
            return .filesChange(
                add: Int.random(in: 0...30, using: &generator), remove: Int.random(in: 0...30, using: &generator))
        case .some(.subfolders): return .includeSubfolders
        case .some(.mark):
            return .mark(["0", "1", "2", "3", "4", "5", "x", "6", "7", "8", "9"].randomElement(using: &generator)!)
        case .some(.folder): return inSubfolder ? .back : .intoSubfolder
        case .some(.compare):
            let keys = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                ["plus", "minus", "ctrl+0", "ctrl+1", "Tab", "Right", "4", "x", "0"].randomElement(using: &generator)!
            }
            return .compare(photos: Int.random(in: 2...4, using: &generator), keys: keys)
        }
    }
}
