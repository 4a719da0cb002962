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

# first alternative of each Depends entry, without version constraints
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/([^)]*)//g' | xargs)
missing=()
for p in $deps; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci.sh: installing the package's Depends: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scratch=$(mktemp -d /tmp/ci-deb-root.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch"
app="$scratch/usr/bin/checkpoint-inspector"
samples="$scratch/opt/checkpoint-inspector/_internal/inspector/resources/samples"

passed=0
failed=0
check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name=$1 want=$2; shift 2
  local rc=0
  "$@" >"$scratch/out.txt" 2>&1 || rc=$?
  if [ "$rc" = "$want" ]; then
    passed=$((passed + 1)); echo "ci.sh: ok   $name (exit $rc)"; tail -n 2 "$scratch/out.txt" | sed 's/^/    /'
  else
    failed=$((failed + 1)); echo "ci.sh: FAIL $name (exit $rc, expected $want):"; sed 's/^/    /' "$scratch/out.txt"
  fi
}
check "installed: files in place" 0 test -f "$scratch/usr/share/applications/checkpoint-inspector.desktop" -a \
  -f "$scratch/usr/share/icons/hicolor/256x256/apps/checkpoint-inspector.png" -a -L "$app"
if ! command -v desktop-file-validate >/dev/null; then
  apt-get install -y -qq --no-install-recommends desktop-file-utils >/dev/null 2>&1 || true
fi
if command -v desktop-file-validate >/dev/null; then
  check "installed: desktop entry is valid" 0 desktop-file-validate "$scratch/usr/share/applications/checkpoint-inspector.desktop"
fi
check "installed: --self-test" 0 "$app" --self-test
check "installed: verify golden pair" 0 "$app" verify "$samples/sample.payload.json" "$samples/sample.descriptor.json"
# exit 1 from verify, and the JSON report names X-BYTES as the root cause (else exit 9)
check "installed: verify broken pair -> root cause X-BYTES" 1 bash -c \
  "'$app' verify --format json '$samples/broken.payload.json' '$samples/broken.descriptor.json' > '$scratch/broken.json'; rc=\$?
   python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))[\"root_cause\"][\"rule\"] == \"X-BYTES\" else 9)' '$scratch/broken.json' || exit 9
   echo root cause X-BYTES; exit \$rc"
check "bundle: --self-test" 0 build/packaging/dist/checkpoint-inspector/checkpoint-inspector --self-test

echo "ci.sh: artifacts: $(ls -sh dist | sed 1d | tr '\n' ' ')"
echo "ci.sh: packaging stage took $(( $(date +%s) - start ))s"
echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
