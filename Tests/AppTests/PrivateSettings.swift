import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Settings of the test's own (a keyfile), with the app's schema compiled beside them, set
    /// to `values` and a window of `width` × `height`: the environment an app run takes them from.
    static func privateSettings(
        _ values: [String: String] = [:], width: Int = 1000, height: Int = 700
    ) throws -> [String: String] {
        let state = try TestPictures.makeFolder("settings")
        let compiled = try run(
            URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
            ["--strict", "--targetdir=\(state.path)", Products.packageRoot.appendingPathComponent("data").path])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let environment = [
            "GSETTINGS_SCHEMA_DIR": state.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": state.path,
        ]
        let all = values.merging(["window-width": "\(width)", "window-height": "\(height)"]) { a, _ in a }
        for (key, value) in all {
            let set = try run(
                URL(fileURLWithPath: "/usr/bin/gsettings"), ["set", AppInfo.applicationID, key, value],
                environment: environment, timeout: 30)
            #expect(set.status == 0, "\(set.stderr)")
        }
        return environment
    }
}
