// swift-tools-version: 6.1
// Classic Photos: a GTK 4 photo list that downloads and sepia-filters photos in
// Foundation operation queues, driven by the list's scrolling.
import Foundation
import PackageDescription

/// Header search paths of the C libraries, asked of pkg-config once. SwiftPM's own pkg-config
/// support would also pass flags it then rejects with warnings (-pthread, -msse), so only the
/// -I paths are taken here and the libraries are linked through the module maps.
let cIncludeFlags: [String] = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "pkg-config", "--cflags-only-I", "gtk4", "libadwaita-1", "libsoup-3.0", "gdk-pixbuf-2.0", "gio-unix-2.0",
        "gweather4",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return [] }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return [] }
    return String(decoding: output, as: UTF8.self)
        .split(whereSeparator: { $0 == " " || $0 == "\n" })
        .map(String.init)
}()

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(cIncludeFlags.flatMap { ["-Xcc", $0] }),
]

let package = Package(
    name: "ClassicPhotos",
    products: [
        .executable(name: "classic-photos", targets: ["classic-photos"]),
        .executable(name: "classic-photos-decoder", targets: ["classic-photos-decoder"]),
    ],
    targets: [
        // MARK: C libraries, found through pkg-config
        .systemLibrary(
            name: "CGLib",
            providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(
            name: "CSoup",
            providers: [.apt(["libsoup-3.0-dev"])]),
        .systemLibrary(
            name: "CGdkPixbuf",
            providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        .systemLibrary(
            name: "CGtk",
            providers: [.apt(["libgtk-4-dev", "libadwaita-1-dev"])]),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLcms2",
            providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(
            name: "CJxl",
            providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(
            name: "CExempi", pkgConfig: "exempi-2.0",
            providers: [.apt(["libexempi-dev"])]),
        .systemLibrary(
            name: "CGExiv2",
            providers: [.apt(["libgexiv2-dev"])]),
        .systemLibrary(
            name: "CGWeather",
            providers: [.apt(["libgweather-4-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CCairo", pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]),

        // A GListModel of photo identities (C, as GObject types are declared in C).
        .target(
            name: "CPhotoListModel", dependencies: ["CGLib"],
            cSettings: [.unsafeFlags(cIncludeFlags + ["-Wall", "-Wextra"])]),

        // What a photo holds besides its main image: RAW files' camera previews (LibRaw) and
        // HEIF / AVIF thumbnail items and sizes (libheif); and the pictures gdk-pixbuf's loaders
        // would lose colours of: CMYK JPEGs' inks (libjpeg), 16-bit PNGs and TIFFs (libpng, libtiff).
        .target(
            name: "CEmbeddedPictures",
            cSettings: [.unsafeFlags(cIncludeFlags + ["-Wall", "-Wextra"])],
            linkerSettings: [
                .linkedLibrary("raw_r"), .linkedLibrary("heif"), .linkedLibrary("jpeg"), .linkedLibrary("png16"),
                .linkedLibrary("tiff"),
            ]),

        // The decoder helpers' confinement (seccomp, the address-space limit), sealed memfds and
        // descriptor passing.
        .target(
            name: "CDecoderSandbox",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra"])],
            linkerSettings: [.linkedLibrary("seccomp")]),

        // The viewer's zoomable picture widget (C, as GtkWidget subclasses are declared in C).
        .target(
            name: "CPhotoViewer", dependencies: ["CGtk"],
            cSettings: [.unsafeFlags(cIncludeFlags + ["-Wall", "-Wextra"])]),

        // One line of text for list rows and grid cells, cheap to make and to measure.
        .target(
            name: "CLineText", dependencies: ["CGtk"],
            cSettings: [.unsafeFlags(cIncludeFlags + ["-Wall", "-Wextra"])]),

        // Exiv2's HEIF / AVIF / CR3 reader turned on (a C++ call gexiv2 does not make).
        .target(
            name: "CExiv2Setup", cxxSettings: [.unsafeFlags(["-Wall", "-Wextra"])],
            linkerSettings: [.linkedLibrary("exiv2")]),

        // A video's frame that stands for it, read with FFmpeg's demuxers and decoders.
        .target(
            name: "CVideoFrames",
            cSettings: [.unsafeFlags(cIncludeFlags + ["-Wall", "-Wextra"])],
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"),
                .linkedLibrary("avutil"), .linkedLibrary("gio-2.0"), .linkedLibrary("glib-2.0"), .linkedLibrary("m"),
            ]),

        // Where the main thread is during a stall, written when asked (a diagnostic).
        .target(name: "CStallStacks", cSettings: [.unsafeFlags(["-Wall", "-Wextra"])]),

        // MARK: Interop: owned references, signals, errors, main-loop marshalling
        .target(name: "GLibKit", dependencies: ["CGLib"], swiftSettings: strict),
        // Typed handles on GTK and libadwaita objects: widgets, windows, controllers, dialogs.
        .target(name: "GtkKit", dependencies: ["GLibKit", "CGLib", "CGtk"], swiftSettings: strict),

        // MARK: The photo pipeline (no GTK): data source, records, operations, filter, scheduling
        .target(
            name: "PhotoPipeline",
            dependencies: [
                "GLibKit", "CGLib", "CSoup", "CGdkPixbuf", "CEmbeddedPictures", "CDecoderSandbox", "CPhotoListModel",
                "CSQLite", "CLcms2", "CJxl", "CExempi", "CGExiv2", "CExiv2Setup", "CStallStacks", "CTurboJPEG",
                "CCairo", "CGWeather", "CVideoFrames",
            ],
            swiftSettings: strict),

        // MARK: The GTK application
        .target(
            name: "ClassicPhotosUI",
            dependencies: [
                "GLibKit", "GtkKit", "PhotoPipeline", "CGLib", "CGdkPixbuf", "CGtk", "CPhotoViewer", "CLineText",
            ],
            swiftSettings: strict,
            plugins: ["EmbedResources", "CompileCatalogues"]),
        // Builds data/resources into a GResource embedded in ClassicPhotosUI.
        .plugin(name: "EmbedResources", capability: .buildTool()),
        // Compiles po/ into the build's message catalogues, which the app finds when run from
        // the build (the installed app reads those meson installs).
        .plugin(name: "CompileCatalogues", capability: .buildTool()),

        // MARK: Executables
        .executableTarget(
            name: "classic-photos", dependencies: ["ClassicPhotosUI", "classic-photos-decoder"], swiftSettings: strict),
        // Decodes pictures for the app in a confined process of its own (see DecoderPool).
        .executableTarget(
            name: "classic-photos-decoder", dependencies: ["PhotoPipeline", "CDecoderSandbox"], swiftSettings: strict),
        // Runs interop scenarios in a process whose real main thread loops GLib (used by tests).
        .executableTarget(
            name: "glibkit-probe", dependencies: ["GLibKit", "CGLib", "CGtk", "ClassicPhotosUI", "PhotoPipeline"],
            swiftSettings: strict),

        // Prints performance figures next to peer tools (vipsthumbnail, ImageMagick,
        // gdk-pixbuf-thumbnailer, curl) and writes BENCHMARKS.md; GTK for the tutorial's
        // synchronous list it compares the app with.
        .executableTarget(
            name: "classic-photos-bench",
            dependencies: ["PhotoPipeline", "GLibKit", "TestSupport", "CGdkPixbuf", "CGLib", "CGtk", "CLcms2"],
            swiftSettings: strict),

        // Drives the real app under Xvfb with a seeded sequence of what people do, checking it
        // after every step (meson-helpers/run-soak.sh).
        .executableTarget(
            name: "classic-photos-soak", dependencies: ["PhotoPipeline", "TestSupport"], swiftSettings: strict),

        // MARK: Tests
        .target(
            name: "TestSupport", dependencies: ["GLibKit", "PhotoPipeline", "CGLib", "CSoup", "CGdkPixbuf"],
            path: "Tests/TestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "GLibKitTests", dependencies: ["GLibKit", "CGLib", "TestSupport", "glibkit-probe"],
            swiftSettings: strict),
        .testTarget(
            name: "PhotoPipelineTests",
            dependencies: ["PhotoPipeline", "GLibKit", "CGLib", "CSoup", "CSQLite", "CLcms2", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "AppTests",
            dependencies: ["classic-photos", "ClassicPhotosUI", "PhotoPipeline", "TestSupport", "CGtk"],
            swiftSettings: strict),
    ]
)

// The fuzzers (the list readers; the decode path), only when meson-helpers/sanitizers.sh asks
// for them: it builds them with -sanitize=fuzzer, which gives them libFuzzer's main, and with
// coverage instrumentation for every module.
if ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_FUZZ"] != nil {
    for (name, dependencies) in [
        ("plist-fuzz", ["PhotoPipeline"]), ("decode-fuzz", ["PhotoPipeline", "GLibKit", "CGLib", "CGdkPixbuf"]),
    ] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: dependencies.map { .target(name: $0) }, path: "meson-helpers/fuzz/\(name)",
                swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
