#!/usr/bin/env python3
"""Writes results/minisim.md (see Scripts/minisim.sh): for each trace and policy, the miss-ratio
curve from miniature simulations against exact simulation of every capacity: the mean and largest
absolute error in percentage points, the mean error over several sampling seeds (the same ratio,
other keys kept), and the speed-up in wall-clock time of the whole `mrc` command (decoding included).

Variants: "1 %" samples every capacity at exactly 1 % of the key space (--min-miniature 0), the
headline figure; "1 %, floor 200" lets capacities whose miniature would hold fewer than 200
objects sample more (the default on working sets under 100,000 objects); "default" is mrc's own ratio when --sample is not given."""
import json
import os
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__ + "\n\nUsage: Scripts/minisim.py CACHEBENCH [EXTRA TRACE ...]   (Scripts/minisim.sh calls it)")
    sys.exit(0 if len(sys.argv) >= 2 else 2)
BINARY = sys.argv[1]
EXTRA = sys.argv[2:]
# MINISIM_POLICIES=fifo,arc narrows the policies; MINISIM_ONLY_EXTRA=1 skips the bundled traces
# and the heading (to add rows for the large trace alone).
POLICIES = os.environ.get("MINISIM_POLICIES", "lru,fifo,clock,s3fifo,arc").split(",")
ONLY_EXTRA = os.environ.get("MINISIM_ONLY_EXTRA") == "1"
# MINISIM_MODE=cv writes the estimator table instead (shards against the control variates, every
# capacity at exactly 1 %); MINISIM_EXACT_CACHE=DIR keeps each exact curve (deterministic) in DIR
# as <trace file>-<policy>.json, reused with its wall time on the next run.
MODE = os.environ.get("MINISIM_MODE", "shards")
EXACT_CACHE = os.environ.get("MINISIM_EXACT_CACHE")
# (label, mrc options): "cv, census 1" is cv with every key counted (--census-ratio 1) instead of
# the default bounded census (every key up to 262,144, then a power-of-two share of them).
ESTIMATORS = [("shards", ["--estimator", "shards"]), ("cv", ["--estimator", "cv"]),
              ("cv, census 1", ["--estimator", "cv", "--census-ratio", "1"]),
              ("cv-lru", ["--estimator", "cv-lru"]), ("cv-fifo", ["--estimator", "cv-fifo"])]
SEEDS = [0, 1, 2, 3, 4]
# MINISIM_MODE=floors writes the floor table instead: the default estimator at 1 % with each
# miniature floor (--min-miniature) of MINISIM_FLOORS, seeds 0-4, against the exact curve.
FLOORS = [int(f) for f in os.environ.get("MINISIM_FLOORS", "0,16,32,48,64,100,200").split(",")]

# (label, path, arguments): object mode for the traces without sizes, bytes for the Zipf with sizes.
TRACES = ([] if ONLY_EXTRA else [
    ("cache2k web12", "Traces/cache2k-web12.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("LIRS sprite", "Traces/lirs-sprite.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("LIRS 2_pools", "Traces/lirs-2_pools.csv", ["--ignore-size", "--capacities", "0.001...0.5:12"]),
    ("Zipf 50k (bytes)", "Traces/zipf.csv", ["--capacities", "0.001...0.5:12"]),
]) + [("Zipf 10M, α 1.0, 1M objects", path, ["--ignore-size", "--capacities", "1000...500000:12"]) for path in EXTRA]

VARIANTS = [("1 %", ["--sample", "0.01", "--min-miniature", "0", "--estimator", "shards"], True),
            ("1 %, floor 200", ["--sample", "0.01", "--min-miniature", "200", "--estimator", "shards"], False),
            ("default", ["--estimator", "shards"], False)]


def mrc(path, policy, arguments):
    command = [BINARY, "mrc", path, "--format", "json"] + (["--policy", policy] if policy else []) + arguments
    start = time.monotonic()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    seconds = time.monotonic() - start
    results = json.loads(output)["results"]
    return [r["missRatio"] for r in results], seconds, results


def exact_curve(path, policy, arguments):
    """The exact curve (`--sample 1`) and its wall time, from the cache when it has them."""
    cached = None
    if EXACT_CACHE:
        os.makedirs(EXACT_CACHE, exist_ok=True)
        cached = os.path.join(EXACT_CACHE, f"{os.path.basename(path)}-{policy}-{'-'.join(arguments).replace('/', '_')}.json")
        if os.path.exists(cached):
            with open(cached) as file:
                saved = json.load(file)
            return saved["missRatios"], saved["seconds"], None
    ratios, seconds, results = mrc(path, policy, arguments + ["--sample", "1"])
    if cached:
        with open(cached + ".tmp", "w") as file:
            json.dump({"missRatios": ratios, "seconds": seconds}, file)
        os.replace(cached + ".tmp", cached)
    return ratios, seconds, results


def table(header, alignment):
    """Prints a table's heading; yields (label, path, arguments, policy, exact curve, exact seconds)
    for every trace and policy."""
    print(header)
    print(alignment)
    sys.stdout.flush()
    for label, path, arguments in TRACES:
        arguments = arguments + ["--threads", "2"]
        for policy in POLICIES:
            exact, exact_seconds, _ = exact_curve(path, policy, arguments)
            yield label, path, arguments, policy, exact, exact_seconds


def over_seeds(path, policy, arguments, options):
    """The curve, wall time and results of each seed of SEEDS."""
    return [mrc(path, policy, arguments + options + ["--sample-seed", str(seed)]) for seed in SEEDS]


def estimator_table():
    rows = table("| trace | policy | estimator | MAE seed 0 (pp) | max error seed 0 (pp) | MAE over seeds (pp) | mean bias (pp) | spread (pp) | exact s | sampled s | speed-up |",
                 "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, path, arguments, policy, exact, exact_seconds in rows:
        for estimator, chosen in ESTIMATORS:
            runs = over_seeds(path, policy, arguments, ["--sample", "0.01", "--min-miniature", "0"] + chosen)
            curves = [run[0] for run in runs]
            maes = [sum(errors(curve, exact)) / len(exact) for curve in curves]
            first = errors(curves[0], exact)
            # Per capacity: the mean signed error over seeds (bias) and the seeds' standard
            # deviation (spread), each averaged over the capacities.
            bias = sum(abs(statistics.mean(c[i] for c in curves) - exact[i]) for i in range(len(exact))) / len(exact) * 100
            spread = sum(statistics.stdev(c[i] for c in curves) for i in range(len(exact))) / len(exact) * 100
            seconds = statistics.median(run[1] for run in runs)
            print(f"| {label} | {policy} | {estimator} | {sum(first) / len(first):.2f} | {max(first):.2f} "
                  f"| {statistics.mean(maes):.2f} ({min(maes):.2f}–{max(maes):.2f}) | {bias:.2f} | {spread:.2f} "
                  f"| {exact_seconds:.2f} | {seconds:.2f} | {exact_seconds / seconds:.1f}× |")
            sys.stdout.flush()
    print()


def floor_table():
    """Per trace, policy and floor: the MAE over seeds, the mean bias, the largest error (seed 0),
    the requests the miniatures simulated (seed 0) and the median wall time of the sampled command."""
    rows = table("| trace | policy | floor (objects) | requests simulated (seed 0) | MAE over seeds (pp) | mean bias (pp) | largest error seed 0 (pp) | exact s | sampled s | speed-up |",
                 "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, path, arguments, policy, exact, exact_seconds in rows:
        for floor in FLOORS:
            runs = over_seeds(path, policy, arguments, ["--sample", "0.01", "--min-miniature", str(floor)])
            curves = [run[0] for run in runs]
            simulated = sum((r.get("window") or {}).get("sampledRequests", r["requests"]) for r in runs[0][2])
            maes = [sum(errors(curve, exact)) / len(exact) for curve in curves]
            bias = sum(abs(statistics.mean(c[i] for c in curves) - exact[i]) for i in range(len(exact))) / len(exact) * 100
            seconds = statistics.median(run[1] for run in runs)
            print(f"| {label} | {policy} | {floor} | {simulated:,} | {statistics.mean(maes):.2f} ({min(maes):.2f}–{max(maes):.2f}) "
                  f"| {bias:.2f} | {max(errors(curves[0], exact)):.2f} | {exact_seconds:.2f} | {seconds:.2f} | {exact_seconds / seconds:.1f}× |")
            sys.stdout.flush()
    print()


def errors(estimate, exact):
    return [abs(a - b) * 100 for a, b in zip(estimate, exact)]


def heading():
    print("# Miss-ratio curves from miniature simulations (MINISIM) against exact simulation\n")
    print("`cachebench mrc TRACE --policy NAME --sample RATIO` runs the policy once per capacity on a")
    print("SHARDS spatial sample of the trace (keys whose 64-bit hash is below RATIO·2^64) at the capacity")
    print("times RATIO, and divides the sample's misses by RATIO (SHARDS-adj); `--sample 1` simulates every")
    print("capacity on the whole trace. Each row is one curve of 12 log-spaced capacities (fractions 0.001 to")
    print("0.5 of the working set; 1,000 to 500,000 objects on the 10M trace).\n")
    print("- **Variant**: `1 %` samples every capacity at exactly 1 % of the key space (`--min-miniature 0`),")
    print("  the target's figure; `1 %, floor 200` (mrc's default floor on working sets under 100,000 objects), where a")
    print("  capacity whose miniature would hold fewer than 200 objects samples more (nested samples, up to")
    print("  20 % for 1,000 objects), so it is not a 1 % figure; `default` is mrc without `--sample` (a ratio")
    print("  raised so the sample keeps 10,000 objects; for lru the exact stack-distance pass).")
    print("- **Error**: |estimated − exact miss ratio| in percentage points (pp), mean (MAE) and largest over")
    print(f"  the 12 capacities, for the default hash (seed 0); **MAE over seeds**: the mean of the MAEs with")
    print(f"  `--sample-seed` {SEEDS[0]}…{SEEDS[-1]} (other keys kept at the same ratio), and their range.")
    print("- **Speed-up**: wall time of the exact `mrc --sample 1` (the policy simulated at each capacity,")
    print("  one shared read, as a user would otherwise run it) over the sampled command, both whole commands")
    print("  (decoding and process start included), release build, `--threads 2`, measured side by side.")
    print("  For lru, also against the one-pass exact stack-distance profile (`mrc` without `--policy`).")
    print("- **Requests simulated**: the sum over the 12 runs (12 × requests when exact).\n")
    print("Made by `Scripts/minisim.sh`; miss ratios are deterministic, times depend on the machine.\n")
    print("| trace | policy | variant | ratio | requests simulated | MAE (pp) | max error (pp) | MAE over seeds (pp) | exact s | sampled s | speed-up |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    sys.stdout.flush()


def main():
    if MODE == "cv":
        estimator_table()
        return
    if MODE == "floors":
        floor_table()
        return
    if not ONLY_EXTRA:
        heading()
    for label, path, arguments in TRACES:
        arguments = arguments + ["--threads", "2"]
        for policy in POLICIES:
            exact, exact_seconds, _ = exact_curve(path, policy, arguments)
            profile_seconds = mrc(path, None, arguments)[1] if policy == "lru" else None
            for name, options, seeded in VARIANTS:
                estimate, seconds, results = mrc(path, policy, arguments + options)
                errs = errors(estimate, exact)
                # The base ratio: the largest capacity's (small capacities may sample more, nested).
                ratio = (results[-1].get("window") or {}).get("sampleRatio", 1)
                if name == "default" and ratio == 0.01:
                    continue  # the default is the floored 1 % on this trace: the row above
                simulated = sum((r.get("window") or {}).get("sampledRequests", r["requests"]) for r in results)
                over_seeds = ""
                if seeded and ratio < 1:
                    maes = [sum(errs) / len(errs)]
                    for seed in SEEDS[1:]:
                        other = mrc(path, policy, arguments + options + ["--sample-seed", str(seed)])[0]
                        maes.append(sum(errors(other, exact)) / len(exact))
                    over_seeds = f"{sum(maes) / len(maes):.2f} ({min(maes):.2f}–{max(maes):.2f})"
                speedup = f"{exact_seconds / seconds:.1f}×"
                if profile_seconds is not None:
                    speedup += f" ({profile_seconds / seconds:.1f}× vs {profile_seconds:.2f} s stack distance)"
                print(f"| {label} | {policy} | {name} | {ratio:g} | {simulated:,} | {sum(errs) / len(errs):.2f} | {max(errs):.2f} "
                      f"| {over_seeds} | {exact_seconds:.2f} | {seconds:.2f} | {speedup} |")
                sys.stdout.flush()
    print()


if __name__ == "__main__":
    main()
