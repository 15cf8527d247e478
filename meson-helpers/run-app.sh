#!/usr/bin/env bash
# First command of the README: set up, build, and open Classic Photos on the bundled photos
# (or on the list given as an argument).
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh
swift build --product classic-photos
exec "$(swift build --show-bin-path)/classic-photos" "$@"
