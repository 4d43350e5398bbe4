#!/usr/bin/env bash
# Regenerates results/ from the traces in Traces/, with a release build: the generated traces,
# every comparison chart and table, the CI gate's baseline, and the timing tables. results/README.md
# lists each file with the command that made it.
#
#   Scripts/make-results.sh              # everything
#   Scripts/make-results.sh --no-timing  # skip the tables that time things (they depend on the machine)
#
# Hit ratios are deterministic: rerunning gives identical charts and ratio tables (throughput and
# latency columns vary with the machine).
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."

timing=1
[[ "${1:-}" == "--no-timing" ]] && timing=0

swift build -c release
B=.build/release/cachebench
R=results
mkdir -p "$R"

run() { echo "+ cachebench $*" >&2; "$B" "$@"; }

# 0. The generated traces in Traces/ (deterministic: the same bytes every time; a test checks).
run generate zipf --seed 1 --requests 50000 --alpha 0.9 --objects 10000 --min-size 1KiB --max-size 64KiB \
    --output Traces/zipf.csv
run generate scan --seed 1 --requests 60000 --objects 2000 --scan-every 10000 --scan-length 3000 --output Traces/scan.csv
run generate loop --seed 1 --requests 30000 --objects 1500 --output Traces/loop.csv
run generate mix --seed 1 --requests 60000 --objects 5000 --phase 15000 --loop-objects 1500 --set-ratio 0.05 \
    --delete-ratio 0.01 --output Traces/mix.csv

# 1. Research policies on real traces, object mode (every object counts as 1, as the LIRS and
#    cache2k traces have no sizes): hit ratio against capacity.
run compare Traces/cache2k-web12.csv --policies research --capacities 100...12800:15 --ignore-size \
    --format markdown --output "$R/web12.md" --plot "$R/web12.svg"
run compare Traces/lirs-sprite.csv --policies research --capacities 50...6400:15 --ignore-size \
    --format markdown --output "$R/lirs-sprite.md" --plot "$R/lirs-sprite.svg"
run compare Traces/lirs-2_pools.csv --policies research --capacities 100...9600:14 --ignore-size \
    --format markdown --output "$R/lirs-2_pools.md" --plot "$R/lirs-2_pools.svg"

# 2. Byte mode on the CloudPhysics sample (real sizes, 512 B to 68 KiB): hit ratio and the
#    latency of each eviction pass. --plot-latency simulates LRU at every size so its passes are timed.
run compare Traces/cloudPhysicsIO.oracleGeneral.bin --policies research --capacities 1MiB...2GiB:12 \
    --format markdown --output "$R/cloudphysics-bytes.md" --plot "$R/cloudphysics-bytes.svg" \
    --plot-latency "$R/cloudphysics-bytes-latency.svg"

# 3. The generated workload shapes (Traces/README.md): scan resistance, LRU's worst case, a
#    shifting mix, and Zipf with real sizes.
run compare Traces/scan.csv --policies research --capacities 100...6400:13 --ignore-size \
    --format markdown --output "$R/scan.md" --plot "$R/scan.svg"
run compare Traces/loop.csv --policies research --capacities 100...2000:12 --ignore-size \
    --format markdown --output "$R/loop.md" --plot "$R/loop.svg"
run compare Traces/mix.csv --policies research --capacities 100...10000:13 --ignore-size \
    --format markdown --output "$R/mix.md" --plot "$R/mix.svg"
run compare Traces/zipf.csv --policies research --capacities 1MiB...256MiB:9 \
    --format markdown --output "$R/zipf-bytes.md" --plot "$R/zipf-bytes.svg" --plot-latency "$R/zipf-bytes-latency.svg"

# 4. The app-cache models against LRU on the image-feed sample (decoded-bitmap sizes, memory
#    warnings, trips to the background).
run compare Traces/image-feed.csv --policies library,lru --capacities 16MiB...4GiB:9 \
    --format markdown --output "$R/image-feed-library.md" --plot "$R/image-feed-library.svg" \
    --plot-latency "$R/image-feed-library-latency.svg"

# 5. LRU miss-ratio curves from one stack-distance pass each.
run mrc Traces/lirs-multi2.csv --ignore-size --points 40 --format markdown --output "$R/mrc-lirs-multi2.md" \
    --plot "$R/mrc-lirs-multi2.svg"
run mrc Traces/cloudPhysicsIO.oracleGeneral.bin --points 40 --format markdown --output "$R/mrc-cloudphysics-bytes.md" \
    --plot "$R/mrc-cloudphysics-bytes.svg"

# 6. The CI regression gate's baseline: the arguments live in results/baseline.args (one per
#    line) so that this script, the tests and .github/workflows/cachebench.yml agree.
mapfile -t GATE < <(grep -v '^#' "$R/baseline.args" | grep -v '^$')
run compare "${GATE[@]}" --format json --output "$R/baseline.json"
run compare "${GATE[@]}" --baseline "$R/baseline.json" --tolerance 0 > /dev/null

# 7. Timing: compare (one read, both cores, LRU from one pass) against separate replays, and the
#    other machine-dependent tables in results/ (each script says how it measures).
if (( timing )); then
    # measure CMD...: runs CMD (its output discarded) and prints "WALL CPU" in seconds, CPU being
    # user + system time of CMD and its children (CPU time is steadier than wall time on a shared machine).
    measure() {
        local out
        out=$(mktemp)
        /usr/bin/time -f "%e %U %S" -o "$out" "$@" > /dev/null
        awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$out"
        rm -f "$out"
    }
    capacities_of() {  # TRACE CAPS FLAGS...: the resolved capacities, one per line
        local trace=$1 caps=$2; shift 2
        "$B" compare "$trace" --policies fifo --capacities "$caps" "$@" --format csv | awk -F, 'NR > 1 { print $3 }'
    }
    replays() {  # POLICIES TRACE CAPS FLAGS...: one replay process per (policy, capacity)
        local policies=$1 trace=$2 caps=$3; shift 3
        for p in $policies; do
            for c in $(capacities_of "$trace" "$caps" "$@"); do
                "$B" replay "$trace" --policy "$p" --capacity "$c" "$@" --format json > /dev/null
            done
        done
    }
    export -f capacities_of replays
    export B
    # One table row: compare against one replay process per (policy, capacity), and LRU's
    # one-pass profile against one LRU replay per capacity; each as "wall / CPU" seconds.
    time_compare() {
        local trace=$1 caps=$2; shift 2
        local policies n compare separate lru lru_separate
        policies=$("$B" policies --format csv | awk -F, 'NR > 1 && $2 == "research" { print $1 }')
        n=$(( $(echo "$policies" | wc -w) * $(capacities_of "$trace" "$caps" "$@" | wc -l) ))
        compare=$(measure "$B" compare "$trace" --policies research --capacities "$caps" "$@" --format json)
        separate=$(measure bash -c 'replays "$@"' _ "$policies" "$trace" "$caps" "$@")
        lru=$(measure "$B" compare "$trace" --policies lru --capacities "$caps" "$@" --threads 1 --format json)
        lru_separate=$(measure bash -c 'replays "$@"' _ lru "$trace" "$caps" "$@")
        echo "| \`$(basename "$trace")\` $* | $caps | $n | ${compare/ / \/ } | ${separate/ / \/ } | ${lru/ / \/ } | ${lru_separate/ / \/ } |"
    }
    big=$(mktemp /tmp/cachebench-zipf-XXXXXX.csv)
    trap 'rm -f "$big"' EXIT
    "$B" generate zipf --seed 1 --requests 2000000 --objects 200000 --alpha 0.9 --min-size 1KiB --max-size 64KiB --output "$big"
    {
        echo "# compare and mrc timing"
        echo
        echo "Seconds as wall / CPU (user + system, all threads and processes) on $(nproc) cores ($(uname -m), load"
        echo "average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') when started: the machine is shared), release build, made by"
        echo "\`Scripts/make-results.sh\`. \"compare\" runs every research policy at every capacity from one read of the"
        echo "trace on all cores; \"replays\" runs one \`cachebench replay\` process per (policy, capacity), one after"
        echo "another. The LRU columns compare \`compare --policies lru --threads 1\` (the one-pass stack-distance"
        echo "profile) with one \`replay --policy lru\` per capacity. \`zipf-2M\` is \`generate zipf --requests 2000000"
        echo "--objects 200000 --alpha 0.9 --min-size 1KiB --max-size 64KiB\` (not committed)."
        echo
        echo "| trace | capacities | runs | compare | replays | LRU one pass | LRU replays |"
        echo "|---|---|---:|---:|---:|---:|---:|"
        time_compare Traces/cache2k-web12.csv "100...12800:15" --ignore-size
        time_compare Traces/cloudPhysicsIO.oracleGeneral.bin "1MiB...2GiB:12"
        time_compare "$big" "1MiB...8GiB:12" | sed "s|\`$(basename "$big")\`|\`zipf-2M\`|"
        time_compare "$big" "100...200000:12" --ignore-size | sed "s|\`$(basename "$big")\`|\`zipf-2M\`|"
    } > "$R/compare-timing.md"
    cat "$R/compare-timing.md" >&2
    python3 Scripts/research-table.py --repeat 5
    Scripts/seed-policies.sh 3
    python3 Scripts/trim-latency-vs-entries.py --runs 3
    Scripts/constant-memory.sh lru 8
fi
