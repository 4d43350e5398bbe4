#!/bin/bash
# Measures what sharding buys on one machine: the same sweep as one shard doing everything, and
# as two shards run at the same time (each --threads 1, as a one-CPU array task would be; then
# with every core per shard), alternating, best of ROUNDS. Records each process's wall and CPU
# time (user + system), so the figure can be judged on a machine shared with other work: with
# free cores, two shards take about max(CPU of a shard) / (CPU of one shard) of the time.
# Writes results/sweep-scaling.md.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-2}
swift build -c release 2>&1 | tail -1
cachebench=$(pwd)/.build/release/cachebench
work=$(mktemp -d /tmp/cachebench-sweep-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
args=(--traces 'Traces/*.csv' --policies research --ignore-size)
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
cpu() { awk '{ printf "%.2f", $2 + $3 }' "$1"; }   # /usr/bin/time -f "%e %U %S": user + system
rows=()
for round in $(seq "$rounds"); do
    for threads in 1 $(nproc); do
        rm -rf "${work:?}"/*
        s=$(now)
        /usr/bin/time -f "%e %U %S" -o "$work/one.time" "$cachebench" sweep "${args[@]}" --threads "$threads" --output "$work/one" > /dev/null
        one=$(calc "$(now) - $s")
        s=$(now)
        /usr/bin/time -f "%e %U %S" -o "$work/a.time" "$cachebench" sweep "${args[@]}" --threads "$threads" --output "$work/two" --shard 1/2 > /dev/null &
        a=$!
        /usr/bin/time -f "%e %U %S" -o "$work/b.time" "$cachebench" sweep "${args[@]}" --threads "$threads" --output "$work/two" --shard 2/2 > /dev/null &
        b=$!
        wait $a; wait $b
        two=$(calc "$(now) - $s")
        "$cachebench" merge "$work/two" --format csv > /dev/null 2>&1   # fails (65) if a cell is missing
        c1=$(cpu "$work/one.time") ca=$(cpu "$work/a.time") cb=$(cpu "$work/b.time")
        cmax=$(awk "BEGIN { print ($ca > $cb) ? $ca : $cb }")
        row="| $round | $threads | $one | $c1 | $two | $ca + $cb | $(calc "$two / $one") | $(calc "$cmax / $c1") |"
        rows+=("$row")
        echo "$row" >&2
    done
done
cells=$("$cachebench" merge "$work/two" --format json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["cells"])')
{
    echo "# Sweep scaling: two shards against one, on this machine"
    echo
    echo "\`Scripts/sweep-scaling.sh\` ($(date -u +%Y-%m-%d), release build, $(nproc) cores shared with other work:"
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end). \`cachebench sweep ${args[*]}\`, $cells cells,"
    echo "as one shard and as two shards started together (\`--shard 1/2\`, \`--shard 2/2\`; wall time until both finish)."
    echo "CPU is each process's user + system seconds; the last column, the larger shard's CPU over the single"
    echo "shard's, is the time two shards take when each has a core to itself."
    echo
    echo "| round | threads per shard | one shard: wall (s) | one shard: CPU (s) | two shards: wall (s) | two shards: CPU (s) | wall ratio | CPU-bound ratio |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
} > results/sweep-scaling.md
cat results/sweep-scaling.md
