#!/usr/bin/env python3
"""Side-by-side miss ratios: cachebench against libCacheSim (the PyPI package `libcachesim`).

Run it through Scripts/cross-check-libcachesim.sh, which installs `libcachesim` into a throwaway
virtual environment and calls this file with that environment's Python.

Both simulators read the same records: a CSV trace is first converted by libCacheSim's own
traceConv (`Util.convert_to_oracleGeneral`) into an oracleGeneral file, which also gives
libCacheSim's Belady its next-access times; cachebench reads the original file. Every CSV row is
a request (any op column is ignored), as in libCacheSim.

Known differences, printed next to the rows they affect:
  * libcachesim has no MRU; cachebench's mru is shown alone.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

# numpy and libcachesim are imported by main(), after the arguments are parsed, so that --help
# works without them (Scripts/cross-check-libcachesim.sh installs them in a throwaway venv).
np = None
lcs = None

# cachebench name -> (libcachesim class name, note). Only these have a counterpart. cachebench's
# s3fifo is libCacheSim 0.3.5's S3-FIFO (the earlier algorithm is s3fifov0, which the PyPI
# package does not expose).
COUNTERPARTS = {
    "lru": ("LRU", ""),
    "fifo": ("FIFO", ""),
    "clock": ("Clock", ""),
    "sieve": ("Sieve", ""),
    "lfu": ("LFU", ""),
    "arc": ("ARC", ""),
    "2q": ("TwoQ", ""),
    "twoq": ("TwoQ", ""),
    "lirs": ("LIRS", ""),
    "s3fifo": ("S3FIFO", ""),
    "belady": ("Belady", ""),
    "mru": (None, "libcachesim 0.3.5 has no MRU"),
}
ORDER = ["lru", "fifo", "mru", "clock", "sieve", "lfu", "arc", "2q", "twoq", "lirs", "s3fifo", "belady"]

HEADER_NAMES = {"time": "time", "timestamp": "time", "key": "key", "id": "key", "obj_id": "key", "size": "size"}


def is_oracle_general(path: str) -> bool:
    lower = os.path.basename(path).lower()
    if "oraclegeneral" in lower or lower.endswith(".bin"):
        return True
    if lower.endswith((".csv", ".txt", ".tsv")):
        return False
    with open(path, "rb") as f:
        return b"\0" in f.read(4096)


def csv_layout(path: str, columns: str | None, header: str):
    """1-based (time, key, size) columns, whether the first line is a header, the delimiter and
    whether keys are numeric, decided as cachebench does (header names, else time,key,size)."""
    with open(path, "r", errors="replace") as f:
        first = f.readline().rstrip("\r\n")
        second = f.readline().rstrip("\r\n")
    delimiter = "," if "," in first or "\t" not in first else "\t"
    names = [x.strip().strip('"').lower() for x in first.split(delimiter)]
    named = {HEADER_NAMES[n]: i + 1 for i, n in enumerate(names) if n in HEADER_NAMES}
    has_header = header == "present" or (header == "auto" and "key" in named)
    if columns:
        layout = {}
        for part in columns.split(","):
            k, _, v = part.partition("=")
            layout[k.strip()] = int(v)
    elif has_header:
        layout = named
    else:
        n = len(names)
        layout = {"time": 1, "key": 2, "size": 3} if n >= 3 else ({"time": 1, "key": 2} if n == 2 else {"key": 1})
    data_line = second if has_header else first
    fields = data_line.split(delimiter)
    key_field = fields[layout["key"] - 1].strip().strip('"') if len(fields) >= layout["key"] else ""
    return layout, has_header, delimiter, key_field.isdigit()


def convert_csv(path: str, layout, has_header: bool, delimiter: str, numeric: bool, out: str):
    # Real sizes are kept in the copy (size-0 rows are dropped, as both simulators skip them);
    # objects mode is chosen when the copy is read.
    params = lcs.ReaderInitParam(ignore_obj_size=False, has_header=has_header, has_header_set=True,
                                 delimiter=delimiter, obj_id_is_num=numeric, obj_id_is_num_set=True)
    params.time_field = layout.get("time", 0)
    params.obj_id_field = layout["key"]
    params.obj_size_field = layout.get("size", 0)
    reader = lcs.TraceReader(path, lcs.TraceType.CSV_TRACE, params)
    lcs.Util.convert_to_oracleGeneral(reader._reader, out)


def cachebench_policies(binary: str) -> list[str]:
    listing = json.loads(subprocess.run([binary, "policies", "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
    return [p["name"] for p in listing if p.get("family") == "research"]


def cachebench_run(binary, trace, policy, capacity, bytes_mode, csv_columns):
    cmd = [binary, "replay", trace, "--policy", policy, "--capacity", str(capacity), "--format", "json"]
    if not bytes_mode:
        cmd.append("--ignore-size")
    if csv_columns:
        cmd += ["--columns", csv_columns]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cachebench {policy}: {done.stderr.strip()}")
    result = json.loads(done.stdout)
    return result["requests"], result["misses"]


def libcachesim_run(cls, og_path, capacity, bytes_mode, n_requests):
    reader = lcs.TraceReader(og_path, lcs.TraceType.ORACLE_GENERAL_TRACE,
                             lcs.ReaderInitParam(ignore_obj_size=not bytes_mode))
    miss_ratio, _ = cls(capacity).process_trace(reader)
    return int(round(miss_ratio * n_requests))


def parse_sizes(text: str, total: int) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if part.endswith("%"):
            sizes.append(max(1, int(round(total * float(part[:-1]) / 100))))
        else:
            sizes.append(int(part))
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--cachebench", required=True, help="path to the cachebench binary")
    parser.add_argument("--sizes", default="1%,10%,30%",
                        help="cache sizes: numbers, or percentages of the working set (default 1%%,10%%,30%%)")
    parser.add_argument("--bytes", action="store_true", help="use object sizes; sizes in bytes (default: objects)")
    parser.add_argument("--columns", help="CSV columns, 1-based: time=1,key=2,size=3 (default: header or that)")
    parser.add_argument("--header", choices=["auto", "present", "absent"], default="auto")
    parser.add_argument("--policies", help="comma-separated cachebench names (default: every counterpart)")
    args = parser.parse_args()

    global np, lcs
    import numpy
    import libcachesim
    np, lcs = numpy, libcachesim
    og_dtype = np.dtype([("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])

    work = tempfile.mkdtemp(prefix="cachebench-crosscheck-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    csv_columns = None
    if is_oracle_general(args.trace):
        og_path = args.trace
    else:
        layout, has_header, delimiter, numeric = csv_layout(args.trace, args.columns, args.header)
        og_path = os.path.join(work, "trace.oracleGeneral.bin")
        convert_csv(args.trace, layout, has_header, delimiter, numeric, og_path)
        csv_columns = ",".join(f"{k}={v}" for k, v in sorted(layout.items(), key=lambda kv: kv[1]))

    records = np.fromfile(og_path, dtype=og_dtype)
    valid = records[records["size"] > 0]
    n_requests = int(len(valid))
    ids, first = np.unique(valid["id"], return_index=True)
    working_set = int(valid["size"][first].sum()) if args.bytes else int(len(ids))
    sizes = parse_sizes(args.sizes, working_set)

    available = set(cachebench_policies(args.cachebench))
    wanted = args.policies.split(",") if args.policies else ORDER
    policies = [p for p in wanted if p in available and p in COUNTERPARTS]
    if "2q" in policies and "twoq" in policies:
        policies.remove("twoq")
    missing = [p for p in wanted if p in COUNTERPARTS and p not in available and p not in ("2q", "twoq")]
    if not args.policies and not ({"2q", "twoq"} & available):
        missing.append("2q")

    unit = "bytes" if args.bytes else "objects"
    print(f"trace: {args.trace}  ({n_requests} requests, working set {working_set} {unit})")
    print(f"libcachesim {lcs.__version__} (PyPI) vs cachebench {args.cachebench}")
    if csv_columns:
        print(f"CSV read by both as columns {csv_columns}; libCacheSim reads its traceConv oracleGeneral copy")
    print()
    header = f"{'policy':<8} {'size':>12} {'cachebench':>11} {'libCacheSim':>11} {'misses (cb / lcs)':>21}  verdict"
    print(header)
    print("-" * len(header))
    exact = differ = 0
    for policy in policies:
        class_name, note = COUNTERPARTS[policy]
        cls = getattr(lcs, class_name) if class_name else None
        for size in sizes:
            requests, misses = cachebench_run(args.cachebench, args.trace, policy, size, args.bytes, csv_columns)
            cb_ratio = misses / requests if requests else 0.0
            if cls is None:
                print(f"{policy:<8} {size:>12} {cb_ratio:>11.6f} {'—':>11} {misses:>10} / {'—':<8}  ({note})")
                continue
            lcs_misses = libcachesim_run(cls, og_path, size, args.bytes, n_requests)
            lcs_ratio = lcs_misses / n_requests if n_requests else 0.0
            if lcs_misses == misses and requests == n_requests:
                verdict = "exact"
                exact += 1
            else:
                verdict = f"differs by {cb_ratio - lcs_ratio:+.6f}" + (f" ({note})" if note else "")
                differ += 1
            print(f"{policy:<8} {size:>12} {cb_ratio:>11.6f} {lcs_ratio:>11.6f} {misses:>10} / {lcs_misses:<8}  {verdict}")
    print()
    print(f"{exact} exact, {differ} different")
    if missing:
        print(f"not in this cachebench build: {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
