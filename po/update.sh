#!/usr/bin/env bash
# Brings the translations up to date with the sources:
#   1. lists in po/POTFILES.in every file with words to translate: Swift files that call tr(),
#      ntr() or translatable(), the GtkBuilder files, the launcher and the metainfo;
#   2. extracts them into po/classic-photos.pot with xgettext (Swift is read as C, which it
#      resembles closely enough for string literals in calls; the rest by their own rules);
#   3. merges the template into every translation named in po/LINGUAS (msgmerge), so new
#      messages appear untranslated and changed ones fuzzy, ready for a translator.
# Then translate what msgfmt --statistics reports as untranslated or fuzzy, e.g.
#   msgfmt --check --statistics -o /dev/null po/de.po
# Needs gettext (meson-helpers/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n "s/^ *version: '\([^']*\)'.*/\1/p" meson.build | head -1)
swift_files=$(grep -rlE '\b(tr|ntr|translatable)\(' Sources --include='*.swift' | LC_ALL=C sort)
other_files=$(
  {
    find data/resources -name '*.ui'
    echo data/io.github.classicphotos.ClassicPhotos.desktop.in
    echo data/io.github.classicphotos.ClassicPhotos.metainfo.xml.in
  } | LC_ALL=C sort
)
{
  echo "# Files with words to translate; written by po/update.sh."
  printf '%s\n' $swift_files $other_files
} > po/POTFILES.in

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--from-code=UTF-8 --add-comments=TRANSLATORS: --package-name=classic-photos
  --package-version="$version" --msgid-bugs-address=https://github.com/classicphotos/ClassicPhotos/issues)
# Read as C, Swift's multi-line string literals (""") outside messages draw "unterminated
# string literal" warnings, which are left out here; a message itself must be a single-line
# literal (LocalizationTests fails for one that is not, as for one missing from the template).
# shellcheck disable=SC2086
xgettext "${common[@]}" --language=C --keyword=tr --keyword=ntr:1,2 --keyword=translatable \
  -o "$work/swift.pot" $swift_files 2> >(grep -v 'warning: unterminated string literal' >&2)
# shellcheck disable=SC2086
xgettext "${common[@]}" -o "$work/data.pot" $other_files
msgcat --use-first -o "$work/all.pot" "$work/swift.pot" "$work/data.pot"
# Keep the file unchanged when only its date would change.
if [ -f po/classic-photos.pot ] &&
  diff -q <(grep -v POT-Creation-Date "$work/all.pot") <(grep -v POT-Creation-Date po/classic-photos.pot) >/dev/null; then
  echo "po/classic-photos.pot is up to date"
else
  cp "$work/all.pot" po/classic-photos.pot
  echo "wrote po/classic-photos.pot"
fi

for language in $(sed 's/#.*//' po/LINGUAS); do
  if [ -f "po/$language.po" ]; then
    msgmerge --quiet --update --backup=none --previous "po/$language.po" po/classic-photos.pot
  else
    msginit --no-translator --locale="$language" -i po/classic-photos.pot -o "po/$language.po"
  fi
  echo "$language: $(msgfmt --check --statistics -o /dev/null "po/$language.po" 2>&1)"
done
