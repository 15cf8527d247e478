#!/usr/bin/env bash
# Takes the README's and the metainfo's screenshots from the real window under Xvfb: the
# bundled photos, scrolled to a failed row, in the light and the dark style; the same photos
# as a grid; and the photo viewer (fitted, zoomed in, with its info popover) in a window a small window manager sizes
# to the screen.
# Needs Xvfb, xdotool, ImageMagick, matchbox-window-manager and xcompmgr (meson-helpers/setup.sh
# installs all but xcompmgr: apt-get install xcompmgr).
# Usage: data/screenshots/take.sh [path/to/classic-photos]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
app=${1:-}
if [ -z "$app" ]; then
  swift build --product classic-photos >/dev/null
  app="$(swift build --show-bin-path)/classic-photos"
fi
display=:$((200 + RANDOM % 500))
Xvfb "$display" -screen 0 1024x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 0.5

shoot() { # scheme, output file
  DISPLAY=$display GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo GSETTINGS_BACKEND=memory \
    ADW_DEBUG_COLOR_SCHEME=$1 "$app" --new-instance >/dev/null 2>&1 &
  local pid=$!
  sleep 2
  # A few wheel steps bring the broken "Field Notes" row into view; the pointer then leaves.
  DISPLAY=$display xdotool mousemove 240 400 click --repeat 5 --delay 80 5 mousemove 900 850
  sleep 2.5
  local geometry
  geometry=$(DISPLAY=$display xdotool search --onlyvisible --name "Classic Photos" getwindowgeometry --shell | tr '\n' ' ')
  eval "$geometry"
  import -display "$display" -window root -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$2"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "wrote $2"
}
shoot prefer-light data/screenshots/main-window.png
shoot prefer-dark data/screenshots/main-window-dark.png

shoot_grid() { # output file
  DISPLAY=$display GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo GSETTINGS_BACKEND=memory \
    "$app" --new-instance >/dev/null 2>&1 &
  local pid=$! id geometry
  sleep 2
  id=$(DISPLAY=$display xdotool search --onlyvisible --name "Classic Photos" | head -1)
  # A window as wide as the screen, the grid (Ctrl+2), and the pointer away from the cells.
  DISPLAY=$display xdotool windowsize "$id" 1000 760 mousemove 500 20 key ctrl+2 mousemove 1010 880
  sleep 3
  geometry=$(DISPLAY=$display xdotool getwindowgeometry --shell "$id" | tr '\n' ' ')
  eval "$geometry"
  import -display "$display" -window root -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$1"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "wrote $1"
}
shoot_grid data/screenshots/grid.png

shoot_viewer() { # output files: fitted, zoomed, info
  local keys wm compositor pid
  keys=$(mktemp)
  DISPLAY=$display matchbox-window-manager -use_titlebar no -kbdconfig "$keys" >/dev/null 2>&1 &
  wm=$!
  # A compositing manager, so that the popover's shadow is a shadow and not a black box.
  DISPLAY=$display xcompmgr >/dev/null 2>&1 &
  compositor=$!
  sleep 0.5
  DISPLAY=$display GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo GSETTINGS_BACKEND=memory \
    "$app" --new-instance data/photos >/dev/null 2>&1 &
  pid=$!
  sleep 2.5
  # The ninth row, hubble-deep-field.jpg; then the pointer rests over the photo.
  DISPLAY=$display xdotool mousemove 300 727 click 1 sleep 1.5 mousemove 600 420
  sleep 1
  import -display "$display" -window root "$1"
  DISPLAY=$display xdotool key --delay 150 plus plus plus plus
  sleep 1.5
  import -display "$display" -window root "$2"
  DISPLAY=$display xdotool key 0 sleep 0.5 key alt+Return
  sleep 1
  import -display "$display" -window root "$3"
  kill "$pid" "$wm" "$compositor"
  wait "$pid" "$wm" "$compositor" 2>/dev/null || true
  rm -f "$keys"
  echo "wrote $1 $2 $3"
}
shoot_viewer data/screenshots/viewer.png data/screenshots/viewer-zoomed.png data/screenshots/viewer-info.png
