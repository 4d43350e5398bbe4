#!/usr/bin/env python3
"""Writes results/minisim.md (see Scripts/minisim.sh): for each trace and policy, the miss-ratio
curve from miniature simulations at 1 % (and at the default ratio) against exact simulation of
every capacity: the mean and largest absolute error in percentage points, and the speed-up in
wall-clock time of the whole `mrc` command (decoding included)."""
import json
import os
import subprocess
import sys
import time

BINARY = sys.argv[1]
EXTRA = sys.argv[2:]
POLICIES = ["lru", "fifo", "clock", "s3fifo", "arc"]

# (label, path, arguments): object mode for the traces without sizes, bytes for the Zipf with sizes.
TRACES = [
    ("cache2k web12", "Traces/cache2k-web12.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("LIRS sprite", "Traces/lirs-sprite.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("LIRS 2_pools", "Traces/lirs-2_pools.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("Zipf 50k (bytes)", "Traces/zipf.csv", ["--capacities", "0.001...0.5:12"]),
] + [("Zipf 10M, α 1.0, 1M objects", path, ["--ignore-size", "--capacities", "1000...500000:12"]) for path in EXTRA]


def mrc(path, policy, arguments, sample):
    command = [BINARY, "mrc", path, "--policy", policy, "--format", "json"] + arguments
    if sample is not None:
        command += ["--sample", sample]
    start = time.monotonic()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    seconds = time.monotonic() - start
    results = json.loads(output)["results"]
    return [r["missRatio"] for r in results], seconds, results


def main():
    print("# Miss-ratio curves from miniature simulations (MINISIM) against exact simulation\n")
    print("`cachebench mrc TRACE --policy NAME --sample RATIO` runs the policy once per capacity on a")
    print("SHARDS spatial sample of the trace (keys whose 64-bit hash is below RATIO·2^64) at the capacity")
    print("times RATIO; `--sample 1` simulates every capacity on the whole trace. Each row is one curve of")
    print("12 log-spaced capacities (fractions 0.001 to 0.5 of the working set; 1,000 to 500,000 objects on")
    print("the 10M trace). Error: |estimated − exact miss ratio| in percentage points (pp), mean and largest")
    print("over the 12 capacities. Speed-up: wall time of the exact `mrc` over the sampled one, whole")
    print("commands (decoding, the working-set pass and process start included), release build, `--threads 2`.")
    print("Ratio: the sampling ratio (1 % asked, then the default, which is raised on small traces so the sample")
    print("keeps about 10,000 objects); capacities whose miniature would hold fewer than 200 objects sample")
    print("more, in nested samples. Requests simulated: the sum over the 12 runs (12 × requests when exact).")
    print("Made by `Scripts/minisim.sh`; miss ratios are deterministic, times depend on the machine.\n")
    print("| trace | policy | requests | ratio | requests simulated | MAE (pp) | max error (pp) | exact s | sampled s | speed-up |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    sys.stdout.flush()
    for label, path, arguments in TRACES:
        arguments = arguments + ["--threads", "2"]
        for policy in POLICIES:
            exact, exact_seconds, exact_results = mrc(path, policy, arguments, "1")
            for sample in ["0.01", None]:
                estimate, seconds, results = mrc(path, policy, arguments, sample)
                errors = [abs(a - b) * 100 for a, b in zip(estimate, exact)]
                mae = sum(errors) / len(errors)
                # The base ratio: the largest capacity's (small capacities may sample more, nested).
                ratio = (results[-1].get("window") or {}).get("sampleRatio", 1)
                simulated = sum((r.get("window") or {}).get("sampledRequests", r["requests"]) for r in results)
                if sample is None and ratio == 0.01:
                    continue  # the default is 1 % on this trace: the row above
                print(f"| {label} | {policy} | {exact_results[0]['requests']:,} | {ratio:g} | {simulated:,} "
                      f"| {mae:.2f} | {max(errors):.2f} | {exact_seconds:.2f} | {seconds:.2f} | {exact_seconds / seconds:.1f}× |")
                sys.stdout.flush()
    print()


if __name__ == "__main__":
    main()
