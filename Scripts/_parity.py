"""What the parity scripts (parity.sh, parity-admission.sh, parity-randomized.sh) share: the release
binary they check, the registered name of every policy spelling, and running the binary for JSON.
They run from the repository's root and import this with Scripts/ on their path."""
import json, os, subprocess, sys


def release_binary():
    """CACHEBENCH, which must be an executable, or .build/release/cachebench, built first when it is missing."""
    binary = os.environ.get("CACHEBENCH")
    if binary is not None:
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"CACHEBENCH={binary}: not an executable")
        return binary
    binary = ".build/release/cachebench"
    if not os.access(binary, os.X_OK):
        subprocess.run(["swift", "build", "-c", "release", "--product", "cachebench"], check=True, stdout=sys.stderr)
    return binary


def jobs():
    """How many runs at once: JOBS, or 2."""
    return int(os.environ.get("JOBS", "2"))


def run_json(binary, arguments):
    """The JSON report of `binary arguments --format json`; a failed run ends the script with its message."""
    done = subprocess.run([binary] + arguments + ["--format", "json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)}: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def registered_names(binary):
    """Each policy name and alias, lowercased, to the registered name (compare reports that one)."""
    names = {}
    for policy in run_json(binary, ["policies"]):
        for name in [policy["name"]] + policy.get("aliases", []):
            names[name.lower()] = policy["name"]
    return names
