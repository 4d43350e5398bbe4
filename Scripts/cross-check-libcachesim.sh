#!/usr/bin/env bash
# Cross-checks cachebench against libCacheSim on any trace: prints both simulators' miss ratios
# side by side for the policies both have (lru, fifo, clock, sieve, lfu, arc, 2q, lirs, s3fifo,
# belady; mru is cachebench-only).
#
# libCacheSim comes from PyPI (`libcachesim`, the project's official Python binding), installed
# into a throwaway virtual environment under a temporary directory that is removed on exit.
# Nothing is installed system-wide.
#
# Usage:
#   Scripts/cross-check-libcachesim.sh TRACE [--sizes 1%,10%,30%|N,N,...] [--bytes]
#                                      [--columns time=1,key=2,size=3] [--header auto|present|absent]
#                                      [--policies lru,sieve,...]
# Environment:
#   CACHEBENCH=path      use this cachebench binary instead of building one (swift build -c release)
#   LIBCACHESIM_VENV=dir reuse (or create and keep) a virtual environment there instead of a throwaway one
#
# Caveats: cachebench's s3fifo is libCacheSim 0.3.5's S3-FIFO, as the PyPI package's (the earlier
# algorithm, s3fifov0, has no counterpart there); libcachesim has no MRU.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit $(( $# < 1 ? 2 : 0 ))
fi
if [[ ! -r "$1" ]]; then
    echo "cross-check: cannot read trace '$1'" >&2
    exit 66
fi

if [[ -z "${CACHEBENCH:-}" ]]; then
    echo "cross-check: building cachebench (release)..." >&2
    if ! (cd "$root" && swift build -c release --product cachebench >/dev/null); then
        echo "cross-check: 'swift build -c release' failed; nothing was compared." >&2
        exit 1
    fi
    CACHEBENCH="$(cd "$root" && swift build -c release --show-bin-path)/cachebench"
fi

if ! command -v python3 >/dev/null 2>&1; then
    echo "cross-check: python3 is not installed; it is needed to run libCacheSim's Python package." >&2
    exit 1
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/cachebench-libcachesim.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
venv="${LIBCACHESIM_VENV:-$scratch/venv}"

if [[ ! -x "$venv/bin/python" ]]; then
    echo "cross-check: creating a virtual environment in $venv ..." >&2
    if ! python3 -m venv "$venv" >"$scratch/venv.log" 2>&1; then
        cat "$scratch/venv.log" >&2
        echo "cross-check: FAILED to create a Python virtual environment (python3 -m venv)." >&2
        echo "cross-check: on Debian/Ubuntu install it with: apt-get install python3-venv. Nothing was compared." >&2
        exit 1
    fi
fi
if ! "$venv/bin/python" -c 'import libcachesim' >/dev/null 2>&1; then
    echo "cross-check: installing libcachesim from PyPI into $venv ..." >&2
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check libcachesim >"$scratch/pip.log" 2>&1; then
        tail -n 20 "$scratch/pip.log" >&2
        echo "cross-check: FAILED to install the PyPI package 'libcachesim' (pip's last lines are above:" >&2
        echo "cross-check: no network to PyPI, or no wheel for this platform/Python). Nothing was compared." >&2
        exit 1
    fi
fi

# libCacheSim logs its trace conversion on stderr; keep it out of the table.
"$venv/bin/python" "$here/cross-check-libcachesim.py" --cachebench "$CACHEBENCH" "$@" 2>"$scratch/python.log" || {
    status=$?
    grep -v 'INFO\]\|^.\[0m$' "$scratch/python.log" >&2 || true
    echo "cross-check: the comparison failed (exit $status)." >&2
    exit "$status"
}
