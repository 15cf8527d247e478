#!/usr/bin/env bash
# Runs the suites that need no display (GLibKitTests, PhotoPipelineTests) under ThreadSanitizer
# and AddressSanitizer, then fuzzes the photo list readers for a while with libFuzzer.
#
#   meson-helpers/sanitizers.sh [thread] [address] [fuzz]    (all three when none is named)
#
# Each build has a folder of its own (.build-tsan, .build-asan, .build-fuzz; the first build
# of each takes several minutes on two cores). FUZZ_SECONDS (default 120) is how long the
# fuzzer runs; the corpus it grows is kept in .build-fuzz/corpus, seeded with the bundled list
# and the lists of the tests. Exits non-zero if any step finds something.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(thread address fuzz)
filter='GLibKitTests|PhotoPipelineTests'
run=()
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then run=(dbus-run-session --); fi
status=0

for step in "${steps[@]}"; do
  case "$step" in
    thread|address)
      if [ "$step" = thread ]; then path=.build-tsan; else path=.build-asan; fi
      echo "== $step sanitizer: $filter"
      swift build --build-tests --sanitize="$step" --build-path "$path"
      # TSan: report every race, not only the first of each kind, and fail the run on one.
      # Tests that measure resident memory skip that check: the sanitizers' allocators keep
      # freed memory in quarantine and add shadow memory.
      if ! CLASSIC_PHOTOS_SANITIZER="$step" TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}" ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" \
          "${run[@]}" swift test --skip-build --sanitize="$step" --build-path "$path" --filter "$filter"; then
        echo "== $step sanitizer: FAILED"
        status=1
      fi
      ;;
    fuzz)
      echo "== fuzzing the photo list readers for ${FUZZ_SECONDS:-120} s"
      CLASSIC_PHOTOS_FUZZ=1 swift build --product plist-fuzz --sanitize=fuzzer --sanitize=address --build-path .build-fuzz
      corpus=.build-fuzz/corpus
      mkdir -p "$corpus"
      cp data/ClassicPhotos.plist "$corpus/bundled.plist"
      # A binary list too, so the fuzzer starts from both readers.
      plutil_out="$corpus/bundled.bplist"
      [ -f "$plutil_out" ] || python3 -c 'import plistlib,sys; d=plistlib.load(open("data/ClassicPhotos.plist","rb")); open(sys.argv[1],"wb").write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))' "$plutil_out" 2>/dev/null || true
      if ! ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" .build-fuzz/debug/plist-fuzz "$corpus" \
          -max_total_time="${FUZZ_SECONDS:-120}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
          -artifact_prefix=.build-fuzz/; then
        echo "== fuzzing: FAILED (the input is in .build-fuzz/crash-* or timeout-*)"
        status=1
      fi
      ;;
    *) echo "unknown step: $step (thread, address or fuzz)" >&2; exit 2 ;;
  esac
done
exit $status
