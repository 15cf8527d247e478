import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Animated GIFs and WebPs in the photo viewer, on the real app: the frames advance (seen in
    /// the trace's `viewer.frame`), in sepia and original, and stop when the viewer moves on or
    /// closes; a still GIF shows as before; hostile animations do not bring the app down.
    @Suite(.serialized) struct AnimationViewerTests {
        private func click(_ app: AppSession, row: Int) throws {
            let window = try app.windowGeometry()
            try app.xdotool([
                "mousemove", "\(window.x + window.width / 2)", "\(window.y + ViewerTests.headerHeight + 80 * row + 40)",
                "click", "--repeat", "2", "--delay", "80", "1",
            ])
        }

        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        private func frames(_ events: [TraceRecord], row: Int, after t: Double = 0) -> [Int] {
            events.filter { $0.event.name == .viewerFrame && $0.event.row == row && $0.t > t }.compactMap(\.event.frame)
        }

        private func images(_ events: [TraceRecord], row: Int, state: ViewerImageState? = nil) -> [TraceRecord] {
            events.filter {
                $0.event.name == .viewerImage && $0.event.row == row && (state == nil || $0.event.viewerState == state)
            }
        }

        /// The trace once an animation that still played would have shown more frames: the
        /// test's animations show a frame every 200 ms, so in 800 ms a playing one traces
        /// three or four. A frame that does not come has no event to wait for: this waits for
        /// the time itself.
        private func eventsAfterFourFrames(_ app: AppSession) -> [TraceRecord] {
            Thread.sleep(forTimeInterval: 0.8)
            return app.events()
        }

        /// Escape closes the viewer; no frame is traced after it closed, and the app quits cleanly.
        private func closeExpectingStillness(_ app: AppSession) throws {
            try key(app, "Escape")
            let closed = try app.waitFor(event: .viewerClose)
            let events = eventsAfterFourFrames(app)
            #expect(
                !events.contains { $0.event.name == .viewerFrame && $0.t > closed.t + 0.05 },
                "frames after the viewer closed")
            #expect(app.terminate() == 0)
        }

        @Test("An animated GIF plays in sepia and original, a still GIF does not; moving on and closing stop it")
        func playsAndStops() throws {
            let folder = try TestPictures.makeFolder("viewer-animation")
            defer { try? FileManager.default.removeItem(at: folder) }
            try #require(
                AnimatedPictures.write(folder.appendingPathComponent("a-anim.gif")), "ImageMagick could not write a GIF"
            )
            try #require(
                AnimatedPictures.convert([
                    "-size", "64x48", "xc:orange", folder.appendingPathComponent("b-still.gif").path,
                ]))

            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            // The row shows the first frame, sepia, as for any photo.
            try app.waitFor("rows filtered") {
                AppSession.rowStates($0)[0] == .filtered && AppSession.rowStates($0)[1] == .filtered
            }

            try click(app, row: 0)
            var events = try app.waitFor("the GIF animated in sepia, two frames on") { events in
                images(events, row: 0, state: .filtered).contains { $0.event.frames == 3 }
                    && Set(frames(events, row: 0)).count >= 2
            }
            let size = try #require(images(events, row: 0, state: .filtered).last?.event.imageSize)
            #expect(size.w == 64 && size.h == 48)
            // Frames follow each other in order, at about the file's 200 ms.
            let shown = events.filter { $0.event.name == .viewerFrame && $0.event.row == 0 }
            for (a, b) in zip(shown, shown.dropFirst()) {
                #expect(b.event.frame == (a.event.frame! + 1) % 3)
                #expect(b.t - a.t > 0.15 && b.t - a.t < 0.6, "frame interval \(b.t - a.t) s")
            }

            // S: the original, still playing.
            let switched = events.last!.t
            try key(app, "s")
            events = try app.waitFor("the original animated") { events in
                images(events, row: 0, state: .original).contains { $0.event.frames == 3 }
                    && frames(events, row: 0, after: switched).count >= 2
            }
            try key(app, "s")

            // Right: the still GIF, as before (no frames); the animation stopped.
            try key(app, "Right")
            events = try app.waitFor("the still GIF shown") { !images($0, row: 1, state: .filtered).isEmpty }
            let moved = try #require(events.last { $0.event.name == .viewerOpen && $0.event.row == 1 }).t
            events = eventsAfterFourFrames(app)
            #expect(images(events, row: 1).allSatisfy { $0.event.frames == 0 })
            #expect(frames(events, row: 1).isEmpty)
            #expect(
                frames(events, row: 0, after: moved + 0.05).isEmpty, "the GIF went on playing after the viewer moved on"
            )

            try closeExpectingStillness(app)
        }

        @Test(
            "An animated WebP plays in the viewer, and closing stops it",
            .enabled(
                if: AnimatedPictures.hasWebPLoader && AnimatedPictures.writesAnimatedWebP,
                "needs gdk-pixbuf's WebP loader (webp-pixbuf-loader) and an ImageMagick that writes animated WebP"))
        func webPPlays() throws {
            let folder = try TestPictures.makeFolder("viewer-animation-webp")
            defer { try? FileManager.default.removeItem(at: folder) }
            let webp = folder.appendingPathComponent("anim.webp")
            try #require(AnimatedPictures.write(webp) && AnimatedPictures.isAnimatedWebP(webp))
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("the row filtered") { AppSession.rowStates($0)[0] == .filtered }
            try click(app, row: 0)
            let events = try app.waitFor("the WebP animated in sepia, two frames on") { events in
                images(events, row: 0, state: .filtered).contains { $0.event.frames == 3 }
                    && Set(frames(events, row: 0)).count >= 2
            }
            let size = try #require(images(events, row: 0, state: .filtered).last?.event.imageSize)
            #expect(size.w == 64 && size.h == 48)
            try closeExpectingStillness(app)
        }

        @Test(
            "Hostile animated GIFs (too many frames, a frame larger than the picture, too much to composite) show a still picture or fail, and the app carries on"
        )
        func hostile() throws {
            let folder = try TestPictures.makeFolder("viewer-animation-hostile")
            defer { try? FileManager.default.removeItem(at: folder) }
            let pictures = [
                "a-many.gif": AnimatedPictures.gif(frames: 5000),
                "b-bigframe.gif": AnimatedPictures.gif(frames: 3, bigFrame: (20000, 20000)),
                "c-wide.gif": AnimatedPictures.gif(frames: 40, width: 4000, height: 4000),
            ]
            for (name, data) in pictures { try data.write(to: folder.appendingPathComponent(name)) }
            try #require(AnimatedPictures.write(folder.appendingPathComponent("d-fine.gif")))

            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows settled") { events in
                let states = AppSession.rowStates(events)
                return (0..<4).allSatisfy { states[$0] == .filtered || states[$0] == .failed }
            }
            try click(app, row: 0)
            for row in 0..<3 {
                let events = try app.waitFor("row \(row) shown or failed in the viewer") { events in
                    !images(events, row: row, state: .filtered).isEmpty
                        || images(events, row: row).contains { $0.event.viewerState == .failed }
                }
                #expect(images(events, row: row).allSatisfy { $0.event.frames == 0 }, "row \(row) animated")
                try key(app, "Right")
            }
            // The well-formed one after them still plays.
            try app.waitFor("the fine GIF animated") { Set(frames($0, row: 3)).count >= 2 }
            #expect(app.terminate() == 0)
        }
    }
}
