#!/usr/bin/env bash
# Builds the app and the benchmark with optimisations and runs the benchmark, which prints its
# figures as Markdown: thumbnails against vipsthumbnail, ImageMagick and gdk-pixbuf-thumbnailer
# on camera photos it generates, sepia against a plain copy, the first and last visible
# thumbnail against a plain per-core pool, the pipeline against curl, list reading, and the
# real app under Xvfb (launch, cold and warm launch, wheel scrolling 10,000 rows against the
# tutorial's synchronous list, big lists, a folder of camera photos against eog and gThumb,
# folders of 20,000 and 100,000 pictures against the same two, the same photos as a web list
# over a paced link, and the grid: the camera folder against gThumb's browser, scrolling against
# a plain GtkGridView, 100,000 cells; a Pictures tree of 100,000 pictures in 2,000 folders,
# recursive and by date taken, against find and exiftool; the camera folder on a WebDAV
# share at 40 Mbit/s through GVfs, against eog on the same share; and many at once: list → grid
# on folders of 500 to 100,000 pictures, and 10,000 to the trash and back, against gio trash).
#
#   meson-helpers/run-bench.sh --write BENCHMARKS.md   # every section; rewrites BENCHMARKS.md
#   meson-helpers/run-bench.sh --only thumbnails,sepia --rounds 3
#
# Arguments go to classic-photos-bench (--write FILE, --rounds N, --rows N, --latency MS,
# --only SECTION[,SECTION…]).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_PACKAGES=(libvips-tools libgdk-pixbuf2.0-bin curl eog gthumb libimage-exiftool-perl)
source meson-helpers/setup.sh
# The benchmark runs the app itself too, so both are built optimised.
swift build -c release --product classic-photos
swift build -c release --product classic-photos-bench
exec "$(swift build -c release --show-bin-path)/classic-photos-bench" "$@"
