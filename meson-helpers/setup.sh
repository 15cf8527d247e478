#!/usr/bin/env bash
# Installs what Classic Photos needs on Debian / Ubuntu (only the packages that are missing),
# and puts Swift on PATH. Sourced by run-app.sh, run-tests.sh and run-bench.sh.
set -euo pipefail

# Build and run-time libraries, the tools the tests drive a real X display with (and read its
# clipboard with; xcompmgr is for the screenshot script), and what
# `meson install` and its checks use (meson, ninja, the desktop-file, AppStream and
# GSettings schema validators); gdk-pixbuf's loaders for HEIF / HEIC, AVIF and WebP, LibRaw and
# libheif (RAW previews, HEIF thumbnails), and the tools the tests make such files with;
# bubblewrap and libseccomp, which confine the decoder helpers; SQLite (the index of dates
# taken the app keeps in its cache); Little CMS 2 (colour profiles, turned into sRGB in the
# decoder helpers); libjxl (JPEG XL, which gdk-pixbuf has no loader for here); libjpeg (a
# CMYK JPEG's inks, turned into RGB through its profile); Exempi (the XMP of photos and
# their sidecars: stars, labels, tags); gexiv2 (what cameras wrote about a photo: exposure,
# lens, place, author); libgweather (the nearest town to where a photo was taken, from its
# database of the world's towns, offline); TurboJPEG (a JPEG turned, flipped and cropped without decoding it)
# and jpegtran beside it (the tests check its lossless transforms against it); gdb (where an app that stopped answering in a test,
# or in the soak, is stuck, in the failure's message); gettext (the build compiles
# the translations in po/ with msgfmt) and the locales the tests run the app in;
# xdg-desktop-portal-gtk, which every GNOME desktop has (eog and gThumb recommend it), so the
# tests meet drags through its document portal as users' desktops make them; FFmpeg's libraries
# (a video's frame for its thumbnail, read in the decoder helpers) and ffmpeg (the tests make
# their videos with it); GTK's GStreamer media backend with the good plugins and the FFmpeg
# plugin (the viewer plays videos with them); at-spi2-core and pyatspi (the tests read the
# app's accessibility tree as a screen reader does) and xsettingsd (they scale the text as
# GNOME's settings daemon does).
# (libglib2.0-dev-bin, which libglib2.0-dev pulls in, has glib-compile-resources: the build
# makes the app's GResource with it.)
PACKAGES=(
  pkg-config libglib2.0-dev libglib2.0-dev-bin libgtk-4-dev libadwaita-1-dev libsoup-3.0-dev libgdk-pixbuf-2.0-dev
  librsvg2-common shared-mime-info adwaita-icon-theme fonts-cantarell
  glib-networking dbus xvfb xdotool imagemagick x11-utils matchbox-window-manager xclip xcompmgr
  meson ninja-build desktop-file-utils appstream libglib2.0-bin
  heif-gdk-pixbuf libavif-gdk-pixbuf webp-pixbuf-loader libraw-dev libheif-dev
  libheif-examples libavif-bin libjxl-tools libimage-exiftool-perl
  bubblewrap libseccomp-dev libsqlite3-dev liblcms2-dev libjxl-dev libjpeg-dev libpng-dev libtiff-dev libgs-common
  libexempi-dev libgexiv2-dev libgweather-4-dev libturbojpeg0-dev libjpeg-turbo-progs gdb
  gvfs gvfs-backends gvfs-fuse openssh-client rclone
  gettext locales xdg-desktop-portal-gtk
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev ffmpeg
  libgtk-4-media-gstreamer gstreamer1.0-plugins-good gstreamer1.0-libav
  at-spi2-core python3-pyatspi xsettingsd
)
# A script sourcing this may ask for more (the benchmark's peer tools, say).
PACKAGES+=(${EXTRA_PACKAGES[@]+"${EXTRA_PACKAGES[@]}"})

missing=()
for package in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The languages the app is translated into, as locales the tests (and a person trying a
# translation) can run it in: German and Spanish, added to /etc/locale.gen and generated once.
LOCALES=(de_DE.UTF-8 es_ES.UTF-8)
missing_locales=()
for wanted in "${LOCALES[@]}"; do
  normalised=$(echo "$wanted" | tr '[:upper:]' '[:lower:]' | sed 's/utf-8/utf8/')
  locale -a 2>/dev/null | tr '[:upper:]' '[:lower:]' | grep -qx "$normalised" || missing_locales+=("$wanted")
done
if [ ${#missing_locales[@]} -gt 0 ]; then
  echo "Generating locales: ${missing_locales[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
  for wanted in "${missing_locales[@]}"; do
    if grep -q "^# *$wanted UTF-8" /etc/locale.gen; then
      "${SUDO[@]}" sed -i "s/^# *\($wanted UTF-8\)/\1/" /etc/locale.gen
    elif ! grep -q "^$wanted UTF-8" /etc/locale.gen; then
      echo "$wanted UTF-8" | "${SUDO[@]}" tee -a /etc/locale.gen >/dev/null
    fi
  done
  "${SUDO[@]}" locale-gen
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && break
  done
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "Swift 6 is needed and was not found on PATH. Install the Swift 6 toolchain for your" >&2
  echo "distribution from swift.org (it is not packaged by Debian 12) and run this again." >&2
  exit 1
fi
