#!/usr/bin/env bash
# Peak RSS of `cachebench replay -` on generated traces of 10^6, 10^7 and 10^8 rows streamed
# through standard input: the reader keeps one buffer and the policy is bounded by its capacity,
# so the peak should not grow with the length of the trace. Writes results/constant-memory.md.
# Usage: Scripts/constant-memory.sh [POLICY] [MAX_EXPONENT]   (defaults: lru 8)
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
policy="${1:-lru}"
max="${2:-8}"
swift build -c release >/dev/null
bin="$(swift build -c release --show-bin-path)/cachebench"
out=results/constant-memory.md
{
  echo "# Constant memory: replaying from standard input"
  echo
  echo "\`Scripts/constant-memory.sh $policy $max\` on $(uname -sm), $(nproc) cores, $(date -u +%Y-%m-%d)."
  echo "Each trace is \`cachebench generate zipf --seed 7 --requests N --objects 1000000 --alpha 1.0 --min-size 100 --max-size 10000\`"
  echo "piped into \`cachebench replay - --policy $policy --capacity 256MiB\`; peak RSS is the replay process's own (GNU time). Requests/s here is bounded by the generator
writing the other end of the pipe on the same 2 cores, not by the replay."
  echo
  echo "| rows | peak RSS of replay (MB) | hit ratio | requests/s |"
  echo "|---:|---:|---:|---:|"
} > "$out"
for exponent in $(seq 6 "$max"); do
  rows=$((10 ** exponent))
  "$bin" generate zipf --seed 7 --requests "$rows" --objects 1000000 --alpha 1.0 --min-size 100 --max-size 10000 \
    | /usr/bin/time -f "%M" -o /tmp/cachebench-rss.$$ "$bin" replay - --policy "$policy" --capacity 256MiB --format json \
    > /tmp/cachebench-result.$$
  rss_kb=$(tail -1 /tmp/cachebench-rss.$$)
  python3 - "$rows" "$rss_kb" /tmp/cachebench-result.$$ >> "$out" <<'PY'
import json, sys
rows, rss, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = json.load(open(path))
assert r["requests"] == rows, (r["requests"], rows)
print(f"| {rows:,} | {rss / 1024:.1f} | {r['hitRatio']:.4f} | {r['requestsPerSecond'] / 1e6:.2f}M |")
PY
  tail -1 "$out"
done
rm -f /tmp/cachebench-rss.$$ /tmp/cachebench-result.$$
