import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The app as a person installs it: `meson setup` and `meson install` into a staging folder
    /// (`DESTDIR`, prefix `/usr`), the installed files checked with the desktop's own validators,
    /// and the installed binary started with nothing pointing it at its data.
    ///
    /// One test, so the release build and install happen once per run. The meson build folder
    /// is kept in `.build/install-test`, so SwiftPM only rebuilds what changed (on the 2-core
    /// development machine a release build from scratch takes about 20 s, an unchanged one 1 s).
    @Suite struct InstallTests {
        static let appID = AppInfo.applicationID
        static let prefix = "/usr"

        @Test(
            "meson install: validated launcher, metainfo and schema; every file in place; the installed app finds its photos"
        )
        func mesonInstall() throws {
            let stage = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("classic-photos-install-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: stage) }
            try Self.install(into: stage)
            let root = stage.appendingPathComponent(String(Self.prefix.dropFirst()))
            let share = root.appendingPathComponent("share")
            func installed(_ path: String) -> String { root.appendingPathComponent(path).path }

            // The desktop's validators, on the installed files.
            let desktopFile = installed("share/applications/\(Self.appID).desktop")
            let metainfo = installed("share/metainfo/\(Self.appID).metainfo.xml")
            let schemas = installed("share/glib-2.0/schemas")
            try Self.validate("desktop-file-validate", [desktopFile])
            try Self.validate("appstreamcli", ["validate", "--no-net", metainfo])
            try Self.validate("glib-compile-schemas", ["--strict", "--dry-run", schemas])

            // Every file where the desktop looks for it.
            let binary = installed("bin/classic-photos")
            #expect(FileManager.default.isExecutableFile(atPath: binary))
            #expect(FileManager.default.isExecutableFile(atPath: installed("libexec/classic-photos-decoder")))
            for path in [
                "share/icons/hicolor/scalable/apps/\(Self.appID).svg",
                "share/icons/hicolor/symbolic/apps/\(Self.appID)-symbolic.svg",
                "share/glib-2.0/schemas/\(Self.appID).gschema.xml",
                "share/mime/packages/\(Self.appID).mime.xml",
                "share/classic-photos/ClassicPhotos.plist",
            ] {
                #expect(FileManager.default.fileExists(atPath: installed(path)), "not installed: \(path)")
            }
            let photos = Products.packageRoot.appendingPathComponent("data/photos").path
            let bundled = try FileManager.default.contentsOfDirectory(atPath: photos).sorted()
            let installedPhotos =
                (try? FileManager.default.contentsOfDirectory(atPath: installed("share/classic-photos/photos")))
            #expect(installedPhotos?.sorted() == bundled)

            // The launcher and the D-Bus service name the installed binary by its final path.
            let service = try String(
                contentsOfFile: installed("share/dbus-1/services/\(Self.appID).service"), encoding: .utf8)
            #expect(Self.value("Name", in: service) == Self.appID)
            #expect(Self.value("Exec", in: service) == "\(Self.prefix)/bin/classic-photos --gapplication-service")
            let desktop = try String(contentsOfFile: desktopFile, encoding: .utf8)
            #expect(Self.value("Exec", in: desktop) == "\(Self.prefix)/bin/classic-photos %U")
            #expect(Self.value("Icon", in: desktop) == Self.appID)
            #expect(Self.value("DBusActivatable", in: desktop) == "true")
            let metainfoText = try String(contentsOfFile: metainfo, encoding: .utf8)
            #expect(
                metainfoText.contains("<release version=\"\(AppInfo.version)\""),
                "metainfo has no release \(AppInfo.version)")

            // The translations: a catalogue per language, and the launcher and the metainfo in
            // those languages too.
            for (language, words) in [("de", "Leere Datei"), ("es", "Archivo vacío")] {
                let catalogue = installed("share/locale/\(language)/LC_MESSAGES/classic-photos.mo")
                #expect(FileManager.default.fileExists(atPath: catalogue), "not installed: \(catalogue)")
                let messages = try run(try Self.tool("msgunfmt"), [catalogue], timeout: 30)
                #expect(
                    messages.status == 0 && messages.stdout.contains("msgstr \"\(words)\""),
                    "\(catalogue) does not translate “Empty file” as “\(words)”")
            }
            #expect(Self.value("GenericName", in: desktop) == "Photo Viewer")
            #expect(Self.value("GenericName[de]", in: desktop) == "Bildbetrachter")
            #expect(Self.value("GenericName[es]", in: desktop) == "Visor de fotos")
            #expect(Self.value("Comment[de]", in: desktop)?.contains("Fotoliste") == true)
            #expect(Self.value("Keywords[es]", in: desktop)?.contains("galería") == true)
            #expect(
                metainfoText.contains(
                    "<summary xml:lang=\"de\">Fotos durchblättern, die sich beim Eintreffen sepia färben</summary>"),
                "the metainfo has no German summary")
            #expect(
                metainfoText.contains("<p xml:lang=\"es\">Classic Photos muestra una carpeta de imágenes"),
                "the metainfo has no Spanish description")

            // The installed binary runs.
            let version = try run(URL(fileURLWithPath: binary), ["--version"], timeout: 30)
            #expect(version.status == 0)
            #expect(
                version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "classic-photos \(AppInfo.version)")

            // Started by name from PATH, as from a terminal (so argv[0] names no folder), with no
            // arguments and no CLASSIC_PHOTOS_DATADIR, it shows the bundled list from the
            // installed share folder beside it. The staged share folder goes on XDG_DATA_DIRS,
            // and its schemas are compiled, as a distribution's install does.
            let compile = try run(try Self.tool("glib-compile-schemas"), [schemas], timeout: 60)
            #expect(compile.status == 0, "glib-compile-schemas: \(compile.stderr)")
            let byName = stage.appendingPathComponent("classic-photos-by-name")
            try "#!/bin/sh\nPATH='\(root.path)/bin':\"$PATH\" exec classic-photos \"$@\"\n"
                .write(to: byName, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: byName.path)
            let app = try AppSession(
                executable: byName,
                environment: [
                    "XDG_DATA_DIRS": "\(share.path):/usr/local/share:/usr/share",
                    "GSETTINGS_BACKEND": "memory",
                ],
                unsetting: ["CLASSIC_PHOTOS_DATADIR", "GSETTINGS_SCHEMA_DIR"])
            let loaded = try app.waitFor(event: .sourceLoaded, timeout: 30)
            guard case .sourceLoaded(let url, let rows, _) = loaded.event else { return }
            #expect(rows == 18)
            #expect(url.contains(installed("share/classic-photos/ClassicPhotos.plist")), "loaded \(url)")
            #expect(app.terminate() == 0)
        }

        // MARK: Steps

        /// `meson setup` (or reconfigure) in `.build/install-test`, then `meson install` with
        /// `DESTDIR` set to `stage`.
        static func install(into stage: URL) throws {
            let source = Products.packageRoot
            let build = source.appendingPathComponent(".build/install-test")
            let meson = try tool("meson")
            let configured = FileManager.default.fileExists(
                atPath: build.appendingPathComponent("meson-private/coredata.dat").path)
            var setup = try run(
                meson,
                ["setup"] + (configured ? ["--reconfigure"] : []) + ["--prefix", prefix, build.path, source.path],
                timeout: 300)
            if setup.status != 0 && configured {
                // A build folder from another checkout or meson version: start it afresh.
                setup = try run(meson, ["setup", "--wipe", "--prefix", prefix, build.path, source.path], timeout: 300)
            }
            try #require(setup.status == 0, "meson setup failed:\n\(setup.stdout)\n\(setup.stderr)")

            let started = Date()
            let install = try run(
                meson, ["install", "-C", build.path], environment: ["DESTDIR": stage.path], timeout: 1200)
            print("meson install (release build included) took \(Int(Date().timeIntervalSince(started).rounded())) s")
            try #require(
                install.status == 0 && !install.timedOut,
                "meson install failed:\n\(install.stdout.suffix(6000))\n\(install.stderr.suffix(6000))")
        }

        /// Runs a validator and records its output; the test fails if it does.
        static func validate(_ name: String, _ arguments: [String]) throws {
            let result = try run(try tool(name), arguments, timeout: 60)
            let output = (result.stdout + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
            print(
                "\(name) \(arguments.joined(separator: " ")): exit \(result.status)\(output.isEmpty ? "" : "\n\(output)")"
            )
            #expect(result.status == 0, "\(name) failed:\n\(output)")
        }

        /// A program on PATH (or in /usr/bin), or a failure saying what to install.
        static func tool(_ name: String) throws -> URL {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            for folder in path.split(separator: ":").map(String.init) + ["/usr/bin"] {
                let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw MissingTool(name: name)
        }

        struct MissingTool: Error, CustomStringConvertible {
            let name: String
            var description: String { "\(name) is not installed (meson-helpers/setup.sh installs it)" }
        }

        /// The value of `key=` in a desktop-entry style file (first occurrence).
        static func value(_ key: String, in text: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
        }
    }
}
