import Testing

// Tests that run the real app on an X display, each with an Xvfb server and an app of its own,
// in two lanes that run side by side, each lane one test at a time. Most of a GUI test is
// waiting for the app (about a third of two cores is busy over a run), so two lanes take a
// little over half the time of one; more would have apps decoding against each other on two
// cores, and the tests' waits would measure the machine. Figures the tests print are a guide,
// not a measurement: the benchmark measures alone.

/// The list, the grid, the viewer and folders: the app's own work, its queues and threads
/// (the suites the ThreadSanitizer run picks from, see meson-helpers/sanitizers.sh).
@Suite(.serialized) enum GUITests {}

/// The desktop around the app: installing it, drag and drop, the clipboard, dialogs, colours,
/// languages, the photo actions, input it refuses; and the launch. The tests that bound the
/// main loop's stalls (the launch under latency, hostile input) are in this lane with the
/// install test, whose release build takes both cores for minutes: never beside it.
@Suite(.serialized) enum DesktopGUITests {}
