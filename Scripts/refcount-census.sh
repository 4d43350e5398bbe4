#!/usr/bin/env bash
# Counts the Swift runtime's reference-counting calls and mallocs each policy's replay makes, to
# find hot paths that should make none: a research replay keys by UInt64 and stores no values, so
# past start-up (a few thousand calls) every policy should stay flat however many requests it
# replays. Each retain or release is an atomic operation, a full barrier on x86.
# Usage: Scripts/refcount-census.sh [REQUESTS] [POLICY...]   (default 1000000 requests, every policy)
# Needs Linux perf with uprobes (root, or perf_event_paranoid ≤ 1) and a release build
# (swift build -c release --product cachebench). Prints one row per policy: calls per request.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-1000000}"; shift || true
bin=.build/release/cachebench
[ -x "$bin" ] || { echo "refcount-census: build first: swift build -c release --product cachebench" >&2; exit 66; }
command -v perf >/dev/null || { echo "refcount-census: needs Linux perf" >&2; exit 69; }
# By the library's own name: a pattern such as /libc\.so/ also matches libswiftGlibc.so.
core=$(ldd "$bin" | awk '$1 ~ /^libswiftCore\.so/ {print $3}')
libc=$(ldd "$bin" | awk '$1 ~ /^libc\.so/ {print $3}')
# Adding a probe that exists already fails; what matters is that all three exist afterwards.
for f in swift_retain swift_release; do perf probe -q -x "$core" "$f" 2>/dev/null || true; done
perf probe -q -x "$libc" malloc 2>/dev/null || true
for probe in probe_libswiftCore:swift_retain probe_libswiftCore:swift_release probe_libc:malloc; do
  perf probe -l "$probe" 2>/dev/null | grep -q . || { echo "refcount-census: cannot add the uprobe $probe (root?)" >&2; exit 69; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$bin" generate zipf --seed 42 --requests "$requests" --objects $((requests / 10 + 1)) --alpha 1.0 \
  --min-size 100 --max-size 10000 --output "$work/zipf.csv" >/dev/null
"$bin" convert "$work/zipf.csv" --output "$work/zipf.bin" >/dev/null
policies=("$@")
[ ${#policies[@]} -gt 0 ] || mapfile -t policies < <("$bin" policies --format csv | tail -n +2 | cut -d, -f1)
echo "| policy | retains/request | releases/request | mallocs/request |"
echo "|---|---:|---:|---:|"
for policy in "${policies[@]}"; do
  # The models that are slow by design (PINCache's sort on every set over the limit) get a minute;
  # a replay that fails (a policy that refuses the default capacity) is reported the same way.
  if ! perf stat -x, -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release -e probe_libc:malloc \
    -o "$work/stat" timeout 60 "$bin" replay "$work/zipf.bin" --policy "$policy" --format json >/dev/null; then
    echo "| $policy | (failed, or did not finish in 60 s) | | |"; continue
  fi
  awk -F, -v p="$policy" -v n="$requests" '/probe_/ {c[++i]=$1} END {printf "| %s | %.3f | %.3f | %.3f |\n", p, c[1]/n, c[2]/n, c[3]/n}' "$work/stat"
done
