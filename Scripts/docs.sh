#!/usr/bin/env bash
# Builds the DocC documentation of the EvictionPolicies library from its catalog
# (Sources/EvictionPolicies/EvictionPolicies.docc) and the module's symbol graph, with the docc
# the Swift toolchain ships: no swift-docc-plugin, so the package keeps no dependencies.
#
# Usage: Scripts/docs.sh [--strict] [OUTPUT]
#   OUTPUT    the .doccarchive to write (default .build-docs/EvictionPolicies.doccarchive)
#   --strict  fail on any DocC warning: a broken ``symbol`` or <doc:article> link, an undocumented
#             parameter. CI runs it this way.
# Needs: swift, and docc beside it in the toolchain (or DOCC=/path/to/docc).
# The symbol graph is built in .build-docs, apart from .build, so a debug build is not invalidated.
set -euo pipefail
cd "$(dirname "$0")/.."

STRICT=()
if [[ "${1:-}" == "--strict" ]]; then STRICT=(--warnings-as-errors); shift; fi
OUTPUT="${1:-.build-docs/EvictionPolicies.doccarchive}"
DOCC="${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}"
if [[ ! -x "$DOCC" ]]; then
  echo "docs.sh: no docc at $DOCC; set DOCC to the docc of your toolchain" >&2
  exit 66
fi

GRAPHS=.build-docs/symbol-graphs
rm -rf "$GRAPHS"
mkdir -p "$GRAPHS"
swift build --scratch-path .build-docs/build --target EvictionPolicies \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$GRAPHS" >&2

"$DOCC" convert Sources/EvictionPolicies/EvictionPolicies.docc \
  --additional-symbol-graph-dir "$GRAPHS" \
  --fallback-display-name EvictionPolicies \
  --fallback-bundle-identifier org.cachebench.EvictionPolicies \
  --output-path "$OUTPUT" "${STRICT[@]}"
echo "docs.sh: wrote $OUTPUT" >&2
