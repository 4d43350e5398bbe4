#!/usr/bin/env bash
# Builds the DocC documentation of the EvictionPolicies library from its catalog
# (Sources/EvictionPolicies/EvictionPolicies.docc) and the module's symbol graph, with the docc
# the Swift toolchain ships: no swift-docc-plugin, so the package keeps no dependencies.
#
# Usage: Scripts/docs.sh [--strict] [--built BIN] [OUTPUT]
#   OUTPUT       the .doccarchive to write (default .build-docs/EvictionPolicies.doccarchive)
#   --strict     fail on any DocC warning: a broken ``symbol`` or <doc:article> link, an undocumented
#                parameter. CI runs it this way.
#   --built BIN  read the module from a build that already holds it (a bin path such as
#                .build/release) rather than building it in debug. CI passes its release build,
#                so the docs are checked beside the tests without waiting for their build.
# Needs: swift, and docc and swift-symbolgraph-extract beside it in the toolchain (or DOCC=...).
# The module is the ordinary debug build (so a built tree costs nothing more); its symbol graph is
# extracted from the built module rather than emitted while compiling, so an up-to-date build
# still yields a graph.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."

STRICT=()
BIN=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --strict) STRICT=(--warnings-as-errors); shift ;;
    --built)
      [[ $# -ge 2 ]] || { echo "docs.sh: --built needs a bin path" >&2; exit 2; }
      BIN="$2"; shift 2 ;;
    *) break ;;
  esac
done
OUTPUT="${1:-.build-docs/EvictionPolicies.doccarchive}"
DOCC="${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}"
if [[ ! -x "$DOCC" ]]; then
  echo "docs.sh: no docc at $DOCC; set DOCC to the docc of your toolchain" >&2
  exit 66
fi

if [[ -z "$BIN" ]]; then
  swift build --target EvictionPolicies >&2
  BIN="$(swift build --show-bin-path)"
elif [[ ! -f "$BIN/Modules/EvictionPolicies.swiftmodule" ]]; then
  echo "docs.sh: no EvictionPolicies module in $BIN/Modules; build it first" >&2
  exit 66
fi
case "$(uname -s)" in
  Darwin) TRIPLE="$(uname -m | sed 's/aarch64/arm64/')-apple-macosx" ;;
  *) TRIPLE="$(uname -m)-unknown-linux-gnu" ;;
esac
GRAPHS=.build-docs/symbol-graphs
rm -rf "$GRAPHS"
mkdir -p "$GRAPHS"
"$(dirname "$DOCC")/swift-symbolgraph-extract" -module-name EvictionPolicies \
  -target "$TRIPLE" -minimum-access-level public \
  -I "$BIN/Modules" -I Sources/_CSupport/include \
  -Xcc -fmodule-map-file="$BIN/_CSupport.build/module.modulemap" \
  -output-dir "$GRAPHS"

"$DOCC" convert Sources/EvictionPolicies/EvictionPolicies.docc \
  --additional-symbol-graph-dir "$GRAPHS" \
  --fallback-display-name EvictionPolicies \
  --fallback-bundle-identifier org.cachebench.EvictionPolicies \
  --output-path "$OUTPUT" "${STRICT[@]}"
echo "docs.sh: wrote $OUTPUT" >&2
