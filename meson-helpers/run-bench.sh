#!/usr/bin/env bash
# Builds the benchmark with optimisations and prints its figures: thumbnails against
# ImageMagick and vipsthumbnail, and the download pipeline against curl. Arguments go to
# classic-photos-bench (--rounds N, --rows N, --latency MS, --only SECTION).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_PACKAGES=(libvips-tools curl)
source meson-helpers/setup.sh
# The benchmark runs the app itself too (its "app" section), so both are built optimised.
swift build -c release --product classic-photos
swift build -c release --product classic-photos-bench
exec "$(swift build -c release --show-bin-path)/classic-photos-bench" "$@"
