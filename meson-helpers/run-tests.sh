#!/usr/bin/env bash
# Second command of the README: set up, build, and run the whole test suite. Each GUI test
# starts an X server (Xvfb) of its own; a D-Bus session is started when there is none.
#
# With no arguments, two test processes run side by side: the GUI suites (two lanes of one
# test at a time, see Tests/AppTests/GUITests.swift) and every other suite. A GUI test waits
# for the app by blocking its thread, and Swift's cooperative pool has one thread a core:
# in one process, the two lanes held both threads of a two-core machine, and the other
# suites' awaits could not resume until a GUI test ended. Arguments (a --filter, say) are
# passed to one `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec dbus-run-session -- "$0" "$@"
fi

swift build --build-tests
if [ $# -gt 0 ]; then
  exec swift test --skip-build "$@"
fi

gui='^AppTests\.(GUITests|DesktopGUITests)'
others_log=$(mktemp)
trap 'rm -f "$others_log"' EXIT
swift test --skip-build --skip "$gui" > "$others_log" 2>&1 &
others=$!
gui_status=0
swift test --skip-build --filter "$gui" || gui_status=$?
others_status=0
wait "$others" || others_status=$?
echo "== the suites that need no display:"
cat "$others_log"
echo "== GUI suites: exit $gui_status; the others: exit $others_status"
[ "$gui_status" -eq 0 ] && [ "$others_status" -eq 0 ]
