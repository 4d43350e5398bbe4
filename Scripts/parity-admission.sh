#!/usr/bin/env bash
# Parity of cachebench's admission rules (--admission) with libCacheSim 0.3.5's `-a`, on every row
# of Traces/golden-libcachesim-0.3.5-admission.tsv, with a release build (`swift test` replays a
# subset of the rows). Every row must match exactly, misses and byte misses, randomized rules too:
# cachebench draws libCacheSim's generator with the row's seed. The three ARC rows where
# libCacheSim 0.3.5 is wrong (see Traces/README.md) are checked against the corrected counts.
#
# Usage: Scripts/parity-admission.sh
#        Scripts/parity-admission.sh --derive LCS_ADM DIR ALGORITHM...
# Environment: CACHEBENCH (default .build/release/cachebench, built if missing), JOBS (default 2).
# Prints each mismatch and a summary; exits 1 when a row does not match.
#
# --derive prints the rows of each ALGORITHM (libCacheSim's name) without a header, for appending
# to the table: LCS_ADM is the driver Traces/README.md describes (lcs_exact with an admissioner,
# built outside the repository), DIR holds the traces as oracleGeneral binaries
# (cloudPhysicsIO.oracleGeneral.bin, and NAME.csv.og.bin for each CSV, as traceConv writes them).
# Rows per algorithm: lirs-cs, lirs-gli, lirs-ps and cloudPhysicsIO at their two smaller golden
# sizes in object mode with bloomfilter and prob (seeds 1-3); cloudPhysicsIO at 16 and 128 MiB in
# byte mode with size (size=65536), bloomfilter, prob (prob=0.8), sizeprob (exponent=0.00001)
# and adaptsize, seed 1.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--derive" ]]; then
  driver=$(realpath "$2"); dir=$3; shift 3
  cd "$dir"
  row() { # trace file mode sizes algorithm admission params seed
    local ignore=1; [[ $3 == bytes ]] && ignore=0
    LCS_SEED=$8 LCS_ADMISSION=$6 LCS_ADMISSION_PARAMS="${7/#-/}" "$driver" "$2" "$5" "$4" "$ignore" 2>/dev/null |
    while IFS=$'\t' read -r _ _ size requests misses bytes byte_misses; do
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$3" "$size" "$5" "$6" "$7" "$8" \
        "$requests" "$misses" "$bytes" "$byte_misses"
    done
  }
  declare -A sizes=([cloudPhysicsIO.oracleGeneral.bin]=500,5000 [lirs-cs.csv]=20,150 [lirs-gli.csv]=25,250 [lirs-ps.csv]=30,300)
  cloud=cloudPhysicsIO.oracleGeneral.bin
  for algorithm in "$@"; do
    for trace in $cloud lirs-cs.csv lirs-gli.csv lirs-ps.csv; do
      file=$trace; [[ $trace != "$cloud" ]] && file=$trace.og.bin
      row $trace $file objects "${sizes[$trace]}" "$algorithm" bloomfilter - 1
      for seed in 1 2 3; do row $trace $file objects "${sizes[$trace]}" "$algorithm" prob - $seed; done
    done
    for rule in size:size=65536 bloomfilter:- prob:prob=0.8 sizeprob:exponent=0.00001 adaptsize:-; do
      row $cloud $cloud bytes 16777216,134217728 "$algorithm" "${rule%%:*}" "${rule#*:}" 1
    done
  done
  exit 0
fi
exec python3 - <<'PY'
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, "Scripts")
from _parity import jobs, registered_names, release_binary, run_json

binary = release_binary()
registered = registered_names(binary)
# One `compare` per trace, mode, rule, rule parameters and seed: every algorithm of those rows at
# every capacity of them, from one read (`compare` gives each run a fresh copy of the rule, so each
# cell equals a separate `replay`, which the tests prove).
groups = defaultdict(list)
count = 0
with open("Traces/golden-libcachesim-0.3.5-admission.tsv") as table:
    next(table)
    for line in table:
        row = line.rstrip("\n").split("\t")
        trace, mode, size, algorithm, admission, params, seed = row[:7]
        groups[(trace, mode, admission, params, seed)].append(row)
        count += 1

def check(key):
    trace, mode, admission, params, seed = key
    rows = groups[key]
    options = [] if params == "-" else params.split(",")
    if admission not in ("size", "bloomfilter"):
        options.append("seed=" + seed)
    algorithms = sorted({row[3] for row in rows})
    capacities = sorted({int(row[2]) for row in rows})
    arguments = ["compare", "Traces/" + trace, "--policies", ",".join(algorithms),
                 "--capacities", ",".join(map(str, capacities)), "--admission", admission]
    if options:
        arguments += ["--admission-option", ",".join(options)]
    if mode == "objects":
        arguments.append("--ignore-size")
    results = {(r["policy"], r["capacity"]): r for r in run_json(binary, arguments)["results"]}
    wrong = []
    for row in rows:
        _, _, size, algorithm, _, _, _, requests, misses, _, byte_misses = row
        found = results.get((registered.get(algorithm.lower(), algorithm), int(size)))
        got = None if found is None else (found["requests"], found["misses"], found["byteRequests"] - found["byteHits"])
        ok = got is not None and got == (int(requests), int(misses), int(byte_misses))
        if not ok:
            wrong.append(f"MISMATCH {' '.join(row[:7])}: cachebench {got}, libCacheSim {(int(requests), int(misses), int(byte_misses))}")
    return wrong

failed = 0
with ThreadPoolExecutor(jobs()) as pool:
    for wrong in pool.map(check, sorted(groups)):
        failed += len(wrong)
        for line in wrong:
            print(line, flush=True)
print(f"{count - failed} of {count} rows match")
sys.exit(1 if failed else 0)
PY
