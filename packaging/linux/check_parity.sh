#!/usr/bin/env bash
# The packaged command line says exactly what the same source says when run from Python:
#   packaging/linux/check_parity.sh APP REF
# APP: the bundle's executable (or the installed /usr/bin/checkpoint-inspector); REF: the
# `checkpoint-inspector` console script of this tree installed with pip (build.sh's venv).
# Each command below runs in both, from the same folder on the same files (the bundled samples,
# a pretty-printed payload, a file name that is not UTF-8), with SOURCE_DATE_EPOCH fixed; stdout,
# stderr and the exit code must be byte-identical. A frozen-only fault (a data file the bundle
# lacks, a module PyInstaller missed, a warning printed only when frozen) shows up as a
# difference here, though every test passes from source. Takes a few seconds.
set -uo pipefail
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
APP=$(abs "$1")
REF=$(abs "$2")
samples=$(cd "$(dirname "$(readlink -f "$APP")")/_internal/inspector/resources/samples" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$samples"/sample.*.json "$samples"/broken.*.json .
cp "$samples/broken.payload.json" "$(printf 'caf\xe9.payload.json')"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=2, ensure_ascii=False)' \
  sample.payload.json pretty.payload.json
export SOURCE_DATE_EPOCH=1700000000
nonutf=$(printf 'caf\xe9.payload.json')
failed=0
n=0
run() {  # run ARGS...: APP and REF must agree
  n=$((n + 1))
  "$APP" "$@" >app.out 2>app.err; local a=$?
  "$REF" "$@" >ref.out 2>ref.err; local r=$?
  # verify --progress stamps its lines with the seconds since start: how long a step took is not what is compared
  sed -i -E 's/^\[ *[0-9]+\.[0-9] s\]/[t s]/' app.err ref.err
  # a report's tags are keyed with a random key made for that report (so is its digest, which covers them)
  sed -i -E 's/tag [0-9a-f]{8}/tag T/g; s/report-sha256:[0-9a-f]{64}/report-sha256:D/g' app.out ref.out
  if [ "$a" != "$r" ] || ! cmp -s app.out ref.out || ! cmp -s app.err ref.err; then
    failed=$((failed + 1))
    echo "differs: checkpoint-inspector $* (exit $a packaged, $r from source)"
    diff ref.out app.out | head -n 6 | sed 's/^/  stdout /'
    diff ref.err app.err | head -n 6 | sed 's/^/  stderr /'
  fi
}
run verify sample.payload.json sample.descriptor.json
run verify --format json broken.payload.json broken.descriptor.json
run verify --format sarif broken.descriptor.json broken.payload.json
run verify --progress pretty.payload.json sample.descriptor.json
run verify "$nonutf" broken.descriptor.json
run report broken.payload.json broken.descriptor.json
run report --format html --sha256-prefixes broken.payload.json broken.descriptor.json
run report --format json sample.payload.json
run describe sample.payload.json
run canon pretty.payload.json
run canon --diff pretty.payload.json
run diff sample.payload.json broken.payload.json
run diff --format json sample.payload.json "$nonutf"
run explain X-BYTES
run explain P-CANONICAL
run rules --format json
run rules --format markdown
run verfy sample.payload.json
run --help
echo "$((n - failed)) of $n commands say the same packaged and from source"
[ "$failed" = 0 ]
