#!/usr/bin/env bash
# Run by meson: swift-build.sh OUTPUT SWIFT build ARGUMENTS…
# Builds the app with SwiftPM and copies the binary to OUTPUT when it changed (so an
# up-to-date build leaves the installed file alone).
set -euo pipefail
output=$1
shift

# Linking Foundation statically makes the linker repeat glibc's link-time note about
# Foundation's own use of mktemp(3), on every build; it says nothing about this project.
"$@" 2>&1 | { grep -v "warning: the use of \`mktemp' is dangerous" || true; }

bin=$("$@" --show-bin-path)
if ! cmp -s "$bin/classic-photos" "$output"; then
  cp "$bin/classic-photos" "$output"
fi
