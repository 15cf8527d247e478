#!/usr/bin/env bash
# Interop stays in its room: memory is reinterpreted (`unsafeBitCast`, `Unmanaged`,
# `assumingMemoryBound`) only in GLibKit and GtkKit, each time behind a helper with its contract
# (GLibKit's CPointers.swift: GObjectCast, CallbackData, cBytes and cChars; GtkKit's handles).
# Everything else calls those helpers, or a typed C function (a `static inline` one in a C
# module's shim.h where the library's own is untyped). Fails naming each file:line found
# elsewhere in the package's Swift files, comments included.
set -euo pipefail
cd "$(dirname "$0")/.."

found=$(find Sources Tests Plugins meson-helpers/fuzz -name '*.swift' \
    -not -path 'Sources/GLibKit/*' -not -path 'Sources/GtkKit/*' -print0 |
    sort -z | xargs -0 grep -HnE 'unsafeBitCast|Unmanaged|assumingMemoryBound' || true)
if [ -n "$found" ]; then
    echo "check-interop: pointer reinterpretation outside Sources/GLibKit and Sources/GtkKit:" >&2
    echo "$found" | sed 's/^/  /' >&2
    echo "Use (or add, with its contract) a helper in GLibKit's CPointers.swift or GtkKit," >&2
    echo "or a typed C function in the C module's shim.h." >&2
    exit 1
fi
echo "check-interop: no unsafeBitCast, Unmanaged or assumingMemoryBound outside GLibKit and GtkKit"
