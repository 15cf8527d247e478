import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The private-network protection in the real app: a list served from 127.0.0.2, taken as
    /// public through `CLASSIC_PHOTOS_PUBLIC_ADDRESSES`, naming photos on 127.0.0.1.
    @Suite(.serialized) struct PrivateNetworkAppTests {
        @Test(
            "A list from the web: its photos on this computer fail as blocked-address, directly or redirected; public ones load"
        )
        func webListStaysOutside() throws {
            let inside = try LoopbackServer()
            let outside = try LoopbackServer(host: "127.0.0.2")
            let photo = inside.url("/photos/coffee.jpg").absoluteString
            let encoded = photo.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let rows: [(name: String, url: String, reason: PhotoFailure.Reason?)] = [
                ("On this computer", photo, .blockedAddress),
                ("Outside", outside.url("/photos/coffee.jpg").absoluteString, nil),
                (
                    "Redirected to this computer", outside.url("/redirect-to?url=\(encoded)").absoluteString,
                    .blockedAddress
                ),
            ]
            let items = rows.map { ["name": $0.name, "url": $0.url] }
            outside.setList(
                try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0), for: "list.plist"
            )
            let app = try AppSession(
                source: outside.url("/lists/list.plist").absoluteString,
                environment: ["CLASSIC_PHOTOS_PUBLIC_ADDRESSES": "127.0.0.2"])
            let events = try app.waitFor("every row final, failures shown") { events in
                let states = AppSession.rowStates(events)
                let shown = Set(events.filter { $0.event.name == .rowStatus }.compactMap(\.event.row))
                return rows.indices.allSatisfy {
                    states[$0] == .filtered || (states[$0] == .failed && shown.contains($0))
                }
            }
            let fails = events.filter { $0.event.name == .opFail }
            let statuses = events.filter { $0.event.name == .rowStatus }
            let states = AppSession.rowStates(events)
            for (row, expected) in rows.enumerated() {
                if let reason = expected.reason {
                    #expect(fails.last { $0.event.row == row }?.event.reason == reason, "row \(row)")
                    #expect(
                        statuses.last { $0.event.row == row }?.event.text == "Private address not allowed", "row \(row)"
                    )
                } else {
                    #expect(states[row] == .filtered, "row \(row)")
                }
            }
            #expect(inside.requestCount("/photos/coffee.jpg") == 0)
            #expect(app.terminate() == 0)
        }
    }
}
