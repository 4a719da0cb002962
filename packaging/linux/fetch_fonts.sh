#!/usr/bin/env bash
# Put fonts for every script checkpoints hold into the portable bundle, with their licences:
#   packaging/linux/fetch_fonts.sh DEST   (DEST = <bundle>/_internal/fonts)
# The fonts come from Debian's packages, fetched at build time with `apt-get download` (nothing
# is committed: the repository keeps no large binaries). For each package DEST gets the font
# files, <package>_<version>.copyright (its /usr/share/doc/<package>/copyright) and
# <package>_<version>.files (which font files came from it); make_notices.py lists them.
#   fonts-dejavu-core       Latin, Greek, Cyrillic (DejaVu Sans, Bold, Mono)
#   fonts-wqy-microhei      CJK: Chinese, Japanese kana, Hangul (5 MB; Noto CJK would be 56 MB)
#   fonts-noto-color-emoji  emoji
# The app adds them to Qt at start (inspector/gui/fonts.py); the .deb drops them and depends on
# the same packages instead.
set -euo pipefail
DEST=$1
declare -A WANT=(
  [fonts-dejavu-core]="DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf"
  [fonts-wqy-microhei]="wqy-microhei.ttc"
  [fonts-noto-color-emoji]="NotoColorEmoji.ttf"
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$DEST"
cd "$work"
if ! apt-get download "${!WANT[@]}" >/dev/null 2>apt.err; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get download "${!WANT[@]}" >/dev/null; else cat apt.err >&2; exit 1; fi
fi
for pkg in "${!WANT[@]}"; do
  deb=$(ls "${pkg}"_*.deb)
  version=$(dpkg-deb -f "$deb" Version)
  dpkg-deb -x "$deb" "x-$pkg"
  : > "$DEST/${pkg}_${version}.files"
  for name in ${WANT[$pkg]}; do
    src=$(find "x-$pkg/usr/share/fonts" -name "$name" | head -n 1)
    [ -n "$src" ] || { echo "fetch_fonts: $name is not in $deb" >&2; exit 1; }
    install -m 0644 "$src" "$DEST/$name"
    echo "$name" >> "$DEST/${pkg}_${version}.files"
  done
  install -m 0644 "x-$pkg/usr/share/doc/$pkg/copyright" "$DEST/${pkg}_${version}.copyright"
done
echo "fetch_fonts: $(find "$DEST" -maxdepth 1 -type f \( -name '*.ttf' -o -name '*.ttc' -o -name '*.otf' \) | wc -l) fonts, $(du -sh "$DEST" | cut -f1) in $DEST"
