#!/usr/bin/env bash
# Exact parity of cachebench's deterministic policies with libCacheSim 0.3.5, on every row of
# Traces/golden-libcachesim-0.3.5.tsv (27 algorithms, 9 traces and modes, 3 capacities each):
# the misses, requests and byte misses must be libCacheSim's to the request.
#
# `swift test` replays the rows of the four smaller traces in a debug build
# (GoldenParityAllTests, GoldenParity035Tests); this checks every row with a release build, one
# `compare` per trace and mode (each policy at the row's capacities, from one read; `compare`
# equals separate `replay` runs, which the tests prove), and LRU by `replay` at each capacity, so
# it is simulated rather than taken from compare's one-pass profile. CI runs it.
#
# Usage: Scripts/parity.sh [ALGORITHM ...]   (default: every algorithm of the table)
# Environment: CACHEBENCH (default .build/release/cachebench, built if missing), JOBS (default 2).
# Prints one line per trace and mode and a summary; exits 1 when a row differs.
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
registered = registered_names(binary)
groups = defaultdict(list)  # (trace, mode) -> rows
with open("Traces/golden-libcachesim-0.3.5.tsv") as table:
    next(table)
    for line in table:
        trace, mode, size, algorithm, requests, misses, _, _, byte_misses = line.rstrip("\n").split("\t")
        if wanted and algorithm not in wanted:
            continue
        groups[(trace, mode)].append((algorithm, int(size), int(requests), int(misses), int(byte_misses)))
if not groups:
    raise SystemExit(f"no rows of Traces/golden-libcachesim-0.3.5.tsv for {' '.join(wanted)}")

def check(key):
    trace, mode = key
    rows = groups[key]
    mode_flag = ["--ignore-size"] if mode == "objects" else []
    results = {}
    others = sorted({a for a, *_ in rows if a != "lru"})
    if others:
        capacities = sorted({size for a, size, *_ in rows if a != "lru"})
        report = run_json(binary, ["compare", "Traces/" + trace, "--policies", ",".join(others),
                      "--capacities", ",".join(map(str, capacities))] + mode_flag)
        for result in report["results"]:
            results[(result["policy"], result["capacity"])] = result
    for algorithm, size, *_ in rows:
        if algorithm == "lru":
            results[("lru", size)] = run_json(binary, ["replay", "Traces/" + trace, "--policy", "lru",
                                          "--capacity", str(size)] + mode_flag)
    wrong = []
    for algorithm, size, requests, misses, byte_misses in rows:
        found = results.get((registered.get(algorithm, algorithm), size))
        got = None if found is None else (found["requests"], found["misses"], found["byteRequests"] - found["byteHits"])
        if got != (requests, misses, byte_misses):
            wrong.append(f"{algorithm} {size}: cachebench {got}, libCacheSim {(requests, misses, byte_misses)}")
    return key, len(rows), wrong

total = failed = 0
with ThreadPoolExecutor(max_workers=jobs()) as pool:
    for (trace, mode), count, wrong in pool.map(check, sorted(groups)):
        total += count
        failed += len(wrong)
        print(f"{'ok  ' if not wrong else 'DIFF'} {trace:34} {mode:7} {count - len(wrong)}/{count} rows exact", flush=True)
        for line in wrong:
            print("     " + line, flush=True)
print(f"\n{total - failed}/{total} rows exact")
sys.exit(1 if failed else 0)
PY
