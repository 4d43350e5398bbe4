#!/bin/bash
# Regenerates results/sweep-report.md and results/sweep-report.svg: a sweep of the research
# policies over every bundled trace (Traces/*.csv; the binary copy of cloudPhysics is the same
# trace and is left out) and 24 generated ones (Zipf at four skews, scans, loops, mixes and image
# feeds, several seeds), in object mode at libCacheSim's default sizes, then the miss-ratio
# reduction against FIFO. Release build; about a minute on 2 cores.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release 2>&1 | tail -1
cachebench=.build/release/cachebench
work=$(mktemp -d /tmp/cachebench-sweep-report.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/generated"
gen() { local name=$1; shift; "$cachebench" generate "$@" --output "$work/generated/$name.csv"; }
for alpha in 0.6 0.8 1.0 1.2; do
    for seed in 1 2; do gen "zipf-a$alpha-s$seed" zipf --alpha "$alpha" --objects 20000 --seed "$seed"; done
done
for seed in 1 2 3 4; do gen "scan-s$seed" scan --seed "$seed" --scan-length $((seed * 2500)); done
for objects in 500 2000 8000; do gen "loop-n$objects" loop --objects "$objects"; done
for seed in 1 2 3 4 5; do gen "mix-s$seed" mix --seed "$seed" --alpha 0.$((seed + 5)); done
for seed in 1 2 3 4; do gen "image-feed-s$seed" image-feed --seed "$seed"; done
policies=fifo,lru,clock,sieve,s3fifo,arc,2q,lirs,caffeine-wtinylfu,belady
start=$(date +%s.%N)
"$cachebench" sweep --traces 'Traces/*.csv' --traces "$work/generated/*.csv" --policies "$policies" \
    --ignore-size --output "$work/study"
end=$(date +%s.%N)
"$cachebench" merge "$work/study" --format csv > /dev/null   # fails (65) if any cell is missing
traces=$(ls Traces/*.csv "$work"/generated/*.csv | wc -l)
{
    echo "# Miss-ratio reduction against FIFO across $traces traces"
    echo
    echo "Made by \`Scripts/sweep-report.sh\`: \`cachebench sweep\` of $policies over the $(ls Traces/*.csv | wc -l)"
    echo "bundled traces (\`Traces/*.csv\`) and $(ls "$work"/generated/*.csv | wc -l) generated ones (Zipf α 0.6–1.2, scans, loops, mixes,"
    echo "image feeds; see the script), every object counting 1, at libCacheSim's default sizes"
    echo "(fractions of each trace's working set), then \`cachebench sweep-report\`. The sweep took"
    echo "$(awk "BEGIN { printf \"%.0f\", $end - $start }") s on 2 shared cores (release build). Chart: [sweep-report.svg](sweep-report.svg)."
    echo
    "$cachebench" sweep-report "$work/study" --plot results/sweep-report.svg
} > "$work/report.md"
mv "$work/report.md" results/sweep-report.md
echo "wrote results/sweep-report.md and results/sweep-report.svg"
