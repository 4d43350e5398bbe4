#!/bin/bash
# Measures what sharding buys on one machine: the same sweep as one shard doing everything, and
# as two shards run in parallel (each --threads 1, as a one-CPU array task would be; then with
# every core per shard), alternating, best of ROUNDS. Writes results/sweep-scaling.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-2}
swift build -c release 2>&1 | tail -1
cachebench=$(pwd)/.build/release/cachebench
work=$(mktemp -d /tmp/cachebench-sweep-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
args=(--traces 'Traces/*.csv' --policies research --ignore-size)
now() { date +%s.%N; }
elapsed() { awk "BEGIN { printf \"%.2f\", $2 - $1 }"; }
best() { printf '%s\n' "$@" | sort -g | head -1; }
one1=() two1=() one2=() two2=()
for round in $(seq "$rounds"); do
    for threads in 1 $(nproc); do
        rm -rf "$work"/*
        s=$(now); "$cachebench" sweep "${args[@]}" --threads $threads --output "$work/one" > /dev/null; e=$(now)
        t=$(elapsed "$s" "$e"); [ $threads = 1 ] && one1+=("$t") || one2+=("$t")
        s=$(now)
        "$cachebench" sweep "${args[@]}" --threads $threads --output "$work/two" --shard 1/2 > /dev/null &
        a=$!
        "$cachebench" sweep "${args[@]}" --threads $threads --output "$work/two" --shard 2/2 > /dev/null &
        b=$!
        wait $a; wait $b
        e=$(now)
        t=$(elapsed "$s" "$e"); [ $threads = 1 ] && two1+=("$t") || two2+=("$t")
        "$cachebench" merge "$work/two" --format csv > /dev/null
        echo "round $round, threads $threads: one shard ${one1[-1]:-} ${one2[-1]:-} s, two shards ${two1[-1]:-} ${two2[-1]:-} s" >&2
    done
done
b1=$(best "${one1[@]}") b2=$(best "${two1[@]}") c1=$(best "${one2[@]}") c2=$(best "${two2[@]}")
cells=$("$cachebench" merge "$work/two" --format csv | tail -n +2 | wc -l)
{
    echo "# Sweep scaling: two shards against one, on this machine"
    echo
    echo "\`Scripts/sweep-scaling.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores shared with other work, release build, best of $rounds):"
    echo "\`cachebench sweep ${args[*]}\`, $cells cells, as one shard and as two shards started together"
    echo "(\`--shard 1/2\` and \`--shard 2/2\`, wall time until both finish)."
    echo
    echo "| threads per shard | one shard (s) | two shards in parallel (s) | ratio |"
    echo "|---:|---:|---:|---:|"
    echo "| 1 | $b1 | $b2 | $(awk "BEGIN { printf \"%.2f\", $b2 / $b1 }") |"
    echo "| $(nproc) | $c1 | $c2 | $(awk "BEGIN { printf \"%.2f\", $c2 / $c1 }") |"
    echo
    echo "All runs: one shard, 1 thread: ${one1[*]}; two shards, 1 thread: ${two1[*]};"
    echo "one shard, $(nproc) threads: ${one2[*]}; two shards, $(nproc) threads: ${two2[*]}."
} > results/sweep-scaling.md
cat results/sweep-scaling.md
