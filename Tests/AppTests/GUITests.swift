import Testing

/// Tests that run the real app on an X display. One at a time: each starts its own Xvfb and
/// app, and two apps rendering and decoding at once on a two-core machine would measure each
/// other rather than themselves.
@Suite(.serialized) enum GUITests {}
