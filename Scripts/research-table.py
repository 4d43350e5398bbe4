#!/usr/bin/env python3
"""Regenerates results/research-policies.md: every research policy × trace × size of the golden
table (Traces/golden-libcachesim.tsv), with miss ratio, agreement with libCacheSim and requests/s,
from a release build of cachebench.

The policies are whatever `cachebench policies` lists with family "research" when the script runs,
so newly registered policies appear without editing this file. Sizes and modes are those of the
golden table (objects mode with --ignore-size; cloudPhysicsIO also in bytes). Throughput is the
best of --repeat runs of `cachebench replay` (the replay loop only: decoding plus policy; Belady's
first pass over a CSV trace is not timed), on whatever machine runs the script.

Usage: python3 Scripts/research-table.py [--repeat 3] [--cachebench PATH] [--output results/research-policies.md]
Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, **kw).stdout


def build() -> str:
    print("building cachebench (release)...", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "cachebench"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return os.path.join(run(["swift", "build", "-c", "release", "--show-bin-path"]).strip(), "cachebench")


def load_golden():
    """(trace, mode, size) in file order, and libCacheSim's misses by (trace, mode, size, algorithm)."""
    configs, golden = [], {}
    with open(os.path.join(ROOT, "Traces", "golden-libcachesim.tsv")) as f:
        next(f)
        for line in f:
            trace, mode, size, algorithm, requests, misses, *_ = line.rstrip("\n").split("\t")
            key = (trace, mode, int(size))
            if key not in configs:
                configs.append(key)
            golden[key + (algorithm,)] = (int(requests), int(misses))
    return configs, golden


def golden_for(golden, config, policy):
    for algorithm in (policy, "twoq" if policy == "2q" else None):
        if algorithm and config + (algorithm,) in golden:
            return golden[config + (algorithm,)]
    return None


def replay(binary, trace, policy, size, mode):
    cmd = [binary, "replay", os.path.join("Traces", trace), "--policy", policy, "--capacity", str(size),
           "--format", "json"]
    if mode == "objects":
        cmd.append("--ignore-size")
    return json.loads(run(cmd))


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    swift = run(["swift", "--version"]).strip().splitlines()[0]
    return f"{platform.machine()}, {os.cpu_count()} cores{', ' + model if model else ''}; {swift}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; throughput is the best (default 3)")
    parser.add_argument("--cachebench", help="a release cachebench binary (default: build one)")
    parser.add_argument("--output", default=os.path.join("results", "research-policies.md"))
    args = parser.parse_args()

    binary = args.cachebench or build()
    policies = [p["name"] for p in json.loads(run([binary, "policies", "--format", "json"]))
                if p.get("family") == "research"]
    configs, golden = load_golden()

    ratio, throughput, parity = {}, {}, {p: [0, 0, 0.0] for p in policies}   # compared, exact, max |Δ|
    for n, config in enumerate(configs, 1):
        trace, mode, size = config
        print(f"[{n}/{len(configs)}] {trace} {mode} {size}", file=sys.stderr)
        for policy in policies:
            results = [replay(binary, trace, policy, size, mode) for _ in range(args.repeat)]
            first = results[0]
            ratio[config + (policy,)] = (first["misses"], first["requests"])
            throughput[config + (policy,)] = max(r["requestsPerSecond"] for r in results)
            reference = golden_for(golden, config, policy)
            if reference:
                parity[policy][0] += 1
                parity[policy][1] += reference == (first["requests"], first["misses"])
                delta = abs(first["misses"] / first["requests"] - reference[1] / reference[0])
                parity[policy][2] = max(parity[policy][2], delta)

    commit = run(["git", "rev-parse", "--short", "HEAD"]).strip()
    dirty = " (with uncommitted changes)" if run(["git", "status", "--porcelain", "--untracked-files=no"]).strip() else ""
    today = datetime.date.today().isoformat()
    out = []
    out.append("# Research policies: miss ratio and throughput\n")
    out.append(f"Generated by `python3 Scripts/research-table.py --repeat {args.repeat}` on {today}, "
               f"cachebench {commit}{dirty}, release build.  ")
    out.append(f"Machine: {machine()}.\n")
    out.append("Traces, sizes and modes are those of `Traces/golden-libcachesim.tsv` (libCacheSim aa0fc40; see "
               "`Traces/README.md`): `objects` ignores sizes and counts objects, `bytes` uses the trace's sizes. "
               "Policies are every `research` policy that `cachebench policies` listed at run time.\n")
    out.append("## Agreement with libCacheSim\n")
    out.append("| policy | golden rows | exact miss count | max abs. miss-ratio difference |")
    out.append("|---|---:|---:|---:|")
    for policy in policies:
        compared, exact, worst = parity[policy]
        if compared:
            out.append(f"| `{policy}` | {compared} | {exact} | {worst:.6f} |")
        else:
            out.append(f"| `{policy}` | — | — | not in libCacheSim's table |")
    out.append("")

    def table(title, note, cell):
        out.append(f"## {title}\n")
        out.append(note + "\n")
        out.append("| trace | mode | size | " + " | ".join(f"`{p}`" for p in policies) + " |")
        out.append("|---|---|---:|" + "---:|" * len(policies))
        for config in configs:
            trace, mode, size = config
            out.append(f"| {trace} | {mode} | {size} | " + " | ".join(cell(config, p) for p in policies) + " |")
        out.append("")

    def miss_cell(config, policy):
        misses, requests = ratio[config + (policy,)]
        text = f"{misses / requests:.4f}" if requests else "—"
        reference = golden_for(golden, config, policy)
        if reference and reference != (requests, misses):
            text += f" (lcs {reference[1] / reference[0]:.4f})"
        return text

    table("Miss ratio",
          "Misses / requests. Where libCacheSim's count differs, its miss ratio follows in parentheses.",
          miss_cell)
    table("Throughput (million requests/s)",
          f"Best of {args.repeat} runs of the replay loop (trace decoding and policy together, single thread; "
          "Belady's first pass over a CSV trace is not included). These traces are small (6,015 to 133,996 "
          "requests), so the rates include each run's warm-up and the machine's load at the time: compare "
          "policies within a row rather than across traces.",
          lambda c, p: f"{throughput[c + (p,)] / 1e6:.2f}")

    path = os.path.join(ROOT, args.output)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
