#!/usr/bin/env bash
# Second command of the README: set up, build, and run the whole test suite. Each GUI test
# starts an X server (Xvfb) of its own; a D-Bus session bus is started when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

swift build --build-tests
run=(swift test --skip-build)
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  run=(dbus-run-session -- "${run[@]}")
fi
"${run[@]}" "$@"
