#!/usr/bin/env bash
# Regenerate the 160x160 PNG versions of the placeholder artwork from the SVGs.
# Needs rsvg-convert (Debian/Ubuntu: apt install librsvg2-bin).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

if ! command -v rsvg-convert >/dev/null 2>&1; then
    echo "render.sh: rsvg-convert not found (install librsvg2-bin)" >&2
    exit 1
fi

for name in placeholder failed; do
    rsvg-convert --width=160 --height=160 --format=png \
        --output="${name}.png" "${name}.svg"
    echo "rendered ${name}.png"
done
