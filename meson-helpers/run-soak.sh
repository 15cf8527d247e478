#!/usr/bin/env bash
# Drives the real app under Xvfb with a seeded random sequence of what people do, for a given
# time, checking after every step that it is alive, printed no GLib warning or critical, stays
# within its memory, and (every few steps) that every photo on screen reached its final state;
# stalls of 50 ms or more are counted. A failure prints the seed and the step, and the same
# seed replays the same steps.
#
#   meson-helpers/run-soak.sh --seed 1 --seconds 90          # what CI runs (the debug build)
#   meson-helpers/run-soak.sh --minutes 30 --configuration release --max-stalls-per-1000 1
#   meson-helpers/run-soak.sh --seed 4242 --steps 317          # replay a failure up to its step
#
# Options go to classic-photos-soak (--seed N, --seconds S or --minutes M, --rate R,
# --steps N, --photos N, --max-rss-mb MB, --max-stalls-per-1000 N, --configuration
# debug|release, --keep). It builds what it runs, and starts a D-Bus session when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

configuration=debug
previous=""
for argument in "$@"; do
  [ "$previous" = "--configuration" ] && configuration=$argument
  previous=$argument
done
swift build -c "$configuration" --product classic-photos
swift build -c "$configuration" --product classic-photos-decoder
swift build --product classic-photos-soak
run=("$(swift build --show-bin-path)/classic-photos-soak" "$@")
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  run=(dbus-run-session -- "${run[@]}")
fi
"${run[@]}"
