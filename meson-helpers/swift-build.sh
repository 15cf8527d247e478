#!/usr/bin/env bash
# Run by meson: swift-build.sh OUTPUT SWIFT build ARGUMENTS…
# Builds a product with SwiftPM and copies its binary (named as OUTPUT is) to OUTPUT when it
# changed (so an up-to-date build leaves the installed file alone).
set -euo pipefail
output=$1
shift

# Linking Foundation statically makes the linker repeat glibc's link-time note about
# Foundation's own use of mktemp(3), on every build; it says nothing about this project.
"$@" 2>&1 | { grep -v "warning: the use of \`mktemp' is dangerous" || true; }

bin=$("$@" --show-bin-path)
product=$(basename "$output")
if ! cmp -s "$bin/$product" "$output"; then
  cp "$bin/$product" "$output"
fi
