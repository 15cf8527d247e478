#!/usr/bin/env bash
# First command of the README: set up, build, and open Classic Photos on the bundled photos
# (or on the list given as an argument).
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh
# Optimised, as the app is installed (the debug build is the tests').
swift build -c release --product classic-photos
exec "$(swift build -c release --show-bin-path)/classic-photos" "$@"
