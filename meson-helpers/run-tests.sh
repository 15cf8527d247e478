#!/usr/bin/env bash
# Second command of the README: set up, build, and run the whole test suite. Starts an X
# server (Xvfb) and a D-Bus session bus when there are none, as on a headless machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

if [ -z "${DISPLAY:-}" ]; then
  for n in $(seq 90 140); do
    [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { display=":$n"; break; }
  done
  Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
  export DISPLAY="$display"
fi

swift build --build-tests
run=(swift test --skip-build)
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  run=(dbus-run-session -- "${run[@]}")
fi
"${run[@]}" "$@"
