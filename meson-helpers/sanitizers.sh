#!/usr/bin/env bash
# Runs every suite under ThreadSanitizer and AddressSanitizer: those that need no display
# (GLibKitTests, PhotoPipelineTests: steps thread, address) and the app's GUI suites under Xvfb
# (AppTests, against the app built with the same sanitizer: thread-gui, address-gui); then
# fuzzes the photo list readers and the decode path for a while with libFuzzer (fuzz).
#
#   meson-helpers/sanitizers.sh [thread] [address] [thread-gui] [thread-gui-all] [address-gui] [fuzz]
#                                         (all of them but thread-gui-all when none is named)
#
# thread-gui runs the GUI tests that drive the app's own threads (the two queues suspended,
# cancelled and resumed by scrolling over HTTP, the viewer's work cancelled, folder trees read
# and indexed and watched while the view changes, files trashed in a batch, decoder helpers
# killed while scrolling, a low-memory warning); those that drive only widgets on the main
# thread (dialogs, drag and drop, colours, translations, installation) run in the plain test
# command. thread-gui-all runs every GUI suite under ThreadSanitizer.
#
# Each build has a folder of its own (.build-tsan, .build-asan, .build-fuzz; the first build
# of each takes several minutes on two cores). FUZZ_SECONDS (default 120) is how long each
# fuzzer runs; the corpora they grow are kept in .build-fuzz/corpus (lists, seeded with the
# bundled list) and .build-fuzz/corpus-decode (pictures, seeded with small ones made here).
# Exits non-zero if any step finds something.
set -euo pipefail
cd "$(dirname "$0")/.."
source meson-helpers/setup.sh

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(thread address thread-gui address-gui fuzz)
# The GUI tests that drive the app's threads (see above), as a `swift test --filter` pattern.
THREAD_GUI_TESTS='AppTests\.(GUITests/((ScrollSchedulingTests|BulkActionTests|FolderTreeTests|FolderLiveTests|GridLayoutTests|MemoryWarningTests)/|ViewerTests/(servedPhotos|lowMemoryDropsNeighbours)\(|DecoderSandboxAppTests/killedWhileScrolling\()|DesktopGUITests/AppLaunchTests/(bundledList|noStallsUnderLatency)\()'

run=()
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then run=(dbus-run-session --); fi
status=0

for step in "${steps[@]}"; do
  case "$step" in
    thread|address|thread-gui|thread-gui-all|address-gui)
      sanitizer=${step%-gui*}
      if [ "$sanitizer" = thread ]; then path=.build-tsan; else path=.build-asan; fi
      # The display-free suites, or (-gui) the app's own under Xvfb, which start the app built
      # with the same sanitizer: a report in the app makes it exit with status 66, and the
      # test that quits it fails.
      case "$step" in
        thread|address) filter='GLibKitTests|PhotoPipelineTests' ;;
        thread-gui) filter="$THREAD_GUI_TESTS" ;;
        *) filter='AppTests' ;;
      esac
      echo "== $sanitizer sanitizer: $filter"
      swift build --build-tests --sanitize="$sanitizer" --build-path "$path"
      # TSan: report every race, not only the first of each kind, and fail the run on one.
      # Tests that measure resident memory skip that check: the sanitizers' allocators keep
      # freed memory in quarantine and add shadow memory.
      # The display-free suites run one test at a time under a sanitizer. In parallel, tests
      # that compute for seconds (20 s each under TSan: lists built and mangled, pictures
      # checked pixel by pixel) held both of libdispatch's pool threads on two cores, no other
      # test's task could resume, and tests waiting on a deadline of 15 s failed with nothing
      # wrong.
      # They take about three minutes so. The folder-change planner's property tests (25 s of
      # them) compute on one thread, where ThreadSanitizer has nothing to check: skipped under
      # it (the test command runs them).
      if [ "$step" = "$sanitizer" ]; then order=(--no-parallel); else order=(); fi
      if [ "$step" = thread ]; then order+=(--skip 'PhotoPipelineTests\.FolderChangeTests/'); fi
      if ! CLASSIC_PHOTOS_SANITIZER="$sanitizer" TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}" ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" \
          "${run[@]}" swift test --skip-build "${order[@]}" --sanitize="$sanitizer" --build-path "$path" --filter "$filter"; then
        echo "== $step sanitizer: FAILED"
        status=1
      fi
      ;;
    fuzz)
      # SwiftPM hands swiftc one -sanitize= flag per sanitizer, and swiftc compiles with only
      # the last of them (it links with all): with fuzzer then address, the Swift modules got
      # AddressSanitizer but none of the coverage instrumentation that -sanitize=fuzzer brings
      # (no __sancov_cntrs in their objects), and libFuzzer mutated blindly (no "cov:" in its
      # status lines, a corpus that shrank to one input). A last flag naming both fixes that.
      # The toolchain's own lld links them: gold warns about every local symbol of ASan's.
      both=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
      CLASSIC_PHOTOS_FUZZ=1 swift build --product plist-fuzz "${both[@]}" --build-path .build-fuzz
      CLASSIC_PHOTOS_FUZZ=1 swift build --product decode-fuzz "${both[@]}" --build-path .build-fuzz
      # Initial corpora: the bundled list (XML and binary); small pictures of every kind the
      # loaders read, one with EXIF, made here.
      lists=.build-fuzz/corpus
      pictures=.build-fuzz/corpus-decode
      mkdir -p "$lists" "$pictures"
      cp data/ClassicPhotos.plist "$lists/bundled.plist"
      [ -f "$lists/bundled.bplist" ] || python3 -c 'import plistlib,sys; d=plistlib.load(open("data/ClassicPhotos.plist","rb")); open(sys.argv[1],"wb").write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))' "$lists/bundled.bplist" 2>/dev/null || true
      # (Made again where the EXIF one is missing: an older script wrote it without EXIF.)
      if ! grep -q Exif "$pictures/exif.jpg" 2>/dev/null; then
        convert -size 40x30 gradient:red-blue -quality 80 "$pictures/seed.jpg"
        convert -size 40x30 gradient:red-blue -interlace Plane -quality 80 "$pictures/progressive.jpg"
        # ImageMagick writes no EXIF block for a picture it made: one is put in (camera, dates,
        # orientation 6, an EXIF sub-directory), as the viewer's EXIF reader reads them.
        python3 - "$pictures/seed.jpg" "$pictures/exif.jpg" <<'PYTHON'
import struct, sys
jpeg = open(sys.argv[1], "rb").read()
date = b"2021:07:04 18:30:05\0"
blob, start = b"", 8 + 2 + 5 * 12 + 4
def ascii(tag, value):
    global blob
    entry = struct.pack(">HHII", tag, 2, len(value), start + len(blob))
    blob += value
    return entry
entries = [ascii(0x10F, b"Fuzz\0"), ascii(0x110, b"Fuzz Camera 1\0"), struct.pack(">HHIHH", 0x112, 3, 1, 6, 0), ascii(0x132, date)]
sub = start + len(blob)
entries.append(struct.pack(">HHII", 0x8769, 4, 1, sub))
tiff = (b"MM\0*" + struct.pack(">IH", 8, 5) + b"".join(entries) + struct.pack(">I", 0) + blob
        + struct.pack(">HHHIII", 1, 0x9003, 2, len(date), sub + 18, 0) + date)
app1 = b"Exif\0\0" + tiff
open(sys.argv[2], "wb").write(jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:])
PYTHON
        for format in png gif bmp tga ppm ico tiff xpm; do convert -size 24x16 gradient:green-yellow "$pictures/seed.$format" 2>/dev/null || true; done
        convert -size 24x16 gradient:green-yellow -alpha set -channel A -evaluate set 50% "$pictures/alpha.png"
      fi
      # Colour profiles (an RGB matrix-and-curves one, as cameras embed, written here), on their
      # own and in a JPEG (APP2), a 16-bit PNG (iCCP) and a 16-bit TIFF.
      if [ ! -f "$pictures/profile.icc" ]; then
        python3 - "$pictures/profile.icc" <<'PYTHON'
import struct, sys
def s15(v): return struct.pack(">i", round(v * 65536))
def xyz(x, y, z): return b"XYZ \0\0\0\0" + s15(x) + s15(y) + s15(z)
name = b"Fuzz RGB\0"
tags = [(b"desc", b"desc\0\0\0\0" + struct.pack(">I", len(name)) + name + b"\0" * 79),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)), (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)),
        (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)), (b"bXYZ", xyz(0.1492, 0.0632, 0.7446))]
curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, 563) + b"\0\0"
tags += [(b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
at, table, body = 128 + 4 + 12 * len(tags), b"", b""
for sig, data in tags:
    table += sig + struct.pack(">II", at + len(body), len(data))
    body += data + b"\0" * (-len(data) % 4)
size = 128 + 4 + len(table) + len(body)
header = (struct.pack(">I", size) + b"\0" * 4 + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ " + b"\0" * 12
          + b"acsp" + b"\0" * 24 + b"\0" * 4 + s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 48)
open(sys.argv[1], "wb").write(header + struct.pack(">I", len(tags)) + table + body)
PYTHON
        convert -size 24x16 gradient:red-blue -profile "$pictures/profile.icc" -quality 80 "$pictures/profiled.jpg"
        convert -size 24x16 gradient:red-blue -depth 16 -profile "$pictures/profile.icc" "PNG48:$pictures/deep.png"
        convert -size 24x16 gradient:red-blue -depth 16 -profile "$pictures/profile.icc" "$pictures/deep.tiff"
      fi
      # What the details panel reads: EXIF (with GPS and a lens), IPTC and XMP as exiftool
      # writes them, in a JPEG, a TIFF (the shape of most RAW files) and a HEIC.
      if [ ! -f "$pictures/details.tiff" ] && [ -x /usr/bin/exiftool ]; then
        convert -size 24x16 gradient:red-blue -quality 80 "$pictures/details.jpg"
        convert -size 24x16 gradient:red-blue "$pictures/details.tiff"
        heif-enc -q 50 "$pictures/details.jpg" -o "$pictures/details.heic" >/dev/null 2>&1 || true
        exiftool -q -overwrite_original -Make=Fuzz "-Model=Fuzz Camera 2" "-LensModel=Fuzz 24-70mm" \
          -ExposureTime=1/250 -FNumber=2.8 -ISO=400 -FocalLength=35 "-DateTimeOriginal=2021:07:04 18:30:05" \
          -OffsetTimeOriginal=+02:00 -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 \
          -GPSLongitudeRef=E -GPSAltitude=35 -Artist=Fuzz "-XMP-dc:Description=A fuzz seed" \
          "-IPTC:Caption-Abstract=A fuzz seed" "$pictures/details.jpg" "$pictures/details.tiff" \
          "$pictures/details.heic" >/dev/null 2>&1 || true
      fi
      # Deeper than 8 bits beyond PNG and TIFF: a 16-bit grey PNG, and AVIF and HEIC of 10 bits
      # with the profile (decoded whole by libheif at their depth).
      if [ ! -f "$pictures/deep-grey.png" ]; then
        convert -size 24x16 gradient:white-black -depth 16 -colorspace Gray -type Grayscale "PNG:$pictures/deep-grey.png"
        avifenc -d 10 --icc "$pictures/profile.icc" "$pictures/deep.png" "$pictures/deep10.avif" >/dev/null 2>&1 || true
        heif-enc -q 80 -b 10 "$pictures/deep.png" -o "$pictures/deep10.heic" >/dev/null 2>&1 || true
      fi
      # A phone's HEIC with a thumbnail item, which a turn in the container turns too.
      [ -f "$pictures/thumb.heic" ] || heif-enc -q 50 -t 8 "$pictures/seed.jpg" -o "$pictures/thumb.heic" >/dev/null 2>&1 || true
      for target in plist-fuzz decode-fuzz; do
        if [ "$target" = plist-fuzz ]; then corpus=$lists; max_len=65536; else corpus=$pictures; max_len=262144; fi
        echo "== fuzzing with $target for ${FUZZ_SECONDS:-120} s (corpus $corpus)"
        if ! ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" ".build-fuzz/debug/$target" "$corpus" \
            -max_total_time="${FUZZ_SECONDS:-120}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix=".build-fuzz/$target-"; then
          echo "== fuzzing with $target: FAILED (the input is in .build-fuzz/$target-crash-* or -timeout-*)"
          status=1
        fi
      done
      # The app decodes in its helpers: the pictures the decode fuzzer kept go through them
      # too, and none may take a helper down.
      echo "== the decode corpus through the decoder helpers"
      swift build --build-tests
      if ! CLASSIC_PHOTOS_FUZZ_CORPUS="$pictures" "${run[@]}" swift test --skip-build --filter "DecoderPoolTests/fuzzCorpus"; then
        echo "== the decode corpus through the decoder helpers: FAILED"
        status=1
      fi
      ;;
    *) echo "unknown step: $step (thread, address, thread-gui, thread-gui-all, address-gui or fuzz)" >&2; exit 2 ;;
  esac
done
exit $status
