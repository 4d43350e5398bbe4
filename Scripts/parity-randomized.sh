#!/usr/bin/env bash
# Parity of cachebench's randomized policies with libCacheSim 0.3.5, on every row of
# Traces/golden-libcachesim-0.3.5-randomized.tsv: for each row, cachebench runs seeds 1-8 and its
# mean misses must fall within libCacheSim's 8-seed [min, max] widened by 0.2 % of the requests
# (`swift test` checks a subset of these rows; this checks them all, with a release build).
#
# Usage: Scripts/parity-randomized.sh [ALGORITHM ...]   (default: every algorithm cachebench has)
# Environment: CACHEBENCH (default .build/release/cachebench, built if missing), JOBS (default 2).
# Prints one line per row and a summary per algorithm; exits 1 when a row is out of range.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, "Scripts")
from _parity import jobs, registered_names, release_binary, run_json

binary, wanted = release_binary(), [a.lower() for a in sys.argv[1:]]
names = registered_names(binary)
rows = []
with open("Traces/golden-libcachesim-0.3.5-randomized.tsv") as table:
    next(table)
    for line in table:
        trace, mode, size, algorithm, seeds, requests, mean, sd, low, high = line.rstrip("\n").split("\t")
        if (wanted and algorithm not in wanted) or (not wanted and algorithm.lower() not in names):
            continue
        rows.append((trace, mode, int(size), algorithm, int(requests), float(mean), int(low), int(high)))

def misses(row, seed):
    trace, mode, size, algorithm = row[:4]
    arguments = ["replay", "Traces/" + trace, "--policy", algorithm, "--capacity", str(size), "--option", f"seed={seed}"]
    if mode == "objects":
        arguments.append("--ignore-size")
    report = run_json(binary, arguments)
    if report["requests"] != row[4]:
        raise SystemExit(f"{trace}: {report['requests']} requests, libCacheSim {row[4]}")
    return report["misses"]

def check(row):
    mean = sum(misses(row, seed) for seed in range(1, 9)) / 8
    slack = 0.002 * row[4]
    return row, mean, row[6] - slack <= mean <= row[7] + slack

summary = defaultdict(lambda: [0, 0])
with ThreadPoolExecutor(max_workers=jobs()) as pool:
    for row, mean, ok in pool.map(check, rows):
        trace, mode, size, algorithm, requests, lcs_mean, low, high = row
        summary[algorithm][0] += ok
        summary[algorithm][1] += 1
        print(f"{'ok ' if ok else 'OUT'} {algorithm:11} {trace:34} {mode:7} {size:>6}  cachebench {mean:10.1f}"
              f"  libCacheSim {lcs_mean:10.1f} [{low}, {high}] ± {0.002 * requests:.0f}", flush=True)
print()
for algorithm, (inside, total) in sorted(summary.items()):
    print(f"{algorithm:11} {inside}/{total} rows in range")
sys.exit(0 if all(inside == total for inside, total in summary.values()) else 1)
PY
