#!/usr/bin/env bash
# Reproduces results/minisim.md: the error and the speed-up of miss-ratio curves from miniature
# simulations (`mrc --policy NAME --sample RATIO`, as libCacheSim's MINISIM) against exact
# simulation of every capacity (`--sample 1`), on the bundled traces and a 10-million-request
# Zipf trace generated here (in a temporary folder, removed afterwards).
#
#   Scripts/minisim.sh                # release build, every trace
#   Scripts/minisim.sh --quick        # the bundled traces only (no 10M trace)
#   Scripts/minisim.sh --estimators [--quick]
#                                     # the estimator table on stdout (shards against the control
#                                     # variates cv, cv-lru and cv-fifo, 1 % exactly, seeds 0-4), for the
#                                     # "Estimators" section of results/minisim.md (cv: the default blend)
#
# MINISIM_MODE=floors python3 Scripts/minisim.py BINARY [TRACE] prints the floor table instead (the
# default estimator at 1 % with each --min-miniature of MINISIM_FLOORS, seeds 0-4).
#
# MINISIM_TRACE=FILE uses FILE as the 10M trace instead of generating it (e.g. a cached copy);
# MINISIM_EXACT_CACHE=DIR keeps the exact curves (deterministic) between runs.
#
# Each curve is sampled at exactly 1 % (--min-miniature 0), with five sampling seeds to separate
# the sample's variance from a bias, and with a floor of 200-object miniatures (mrc's default
# on working sets under 100,000 objects; on larger ones the policy's own, 0 or 32).
# Miss ratios are deterministic (the sample is a fixed hash of the key and seed); times depend on
# the machine and its load, so the speed-up is measured side by side, run after run.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the help
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product cachebench
B=${CACHEBENCH:-.build/release/cachebench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mode=shards
if [[ "${1:-}" == "--estimators" ]]; then mode=cv; shift; fi
traces=()
if [[ "${1:-}" != "--quick" && -n "${MINISIM_TRACE:-}" ]]; then
    traces+=("$MINISIM_TRACE")
elif [[ "${1:-}" != "--quick" ]]; then
    "$B" generate zipf --seed 7 --requests 10000000 --alpha 1.0 --objects 1000000 --output "$work/zipf-10m.csv"
    "$B" convert "$work/zipf-10m.csv" --output "$work/zipf-10m.oracleGeneral"
    rm "$work/zipf-10m.csv"
    traces+=("$work/zipf-10m.oracleGeneral")
fi
if [[ $mode == cv ]]; then
    MINISIM_MODE=cv python3 Scripts/minisim.py "$B" "${traces[@]}"
    exit
fi
python3 Scripts/minisim.py "$B" "${traces[@]}" > results/minisim.md
echo "wrote results/minisim.md" >&2
