#!/bin/bash
# Brings up a one-node Slurm cluster on this machine (Debian's slurm-wlm and munge: slurmctld
# and slurmd on localhost, configuration in a temporary folder), submits Scripts/slurm-sweep.sbatch
# as a 4-task array over the bundled traces, waits, merges the records, and checks that the
# merged report equals one local `cachebench sweep` cell for cell (every field but timings).
# Shuts the cluster down and removes everything it created, also on failure or Ctrl-C.
#
#   sudo Scripts/slurm-local-test.sh            # needs root: it installs packages, runs daemons
#
# CACHEBENCH=path uses a built executable instead of building release; POLICIES overrides the
# policies swept (default fifo,lru,clock,sieve,s3fifo,arc,2q).
set -euo pipefail
# Any argument is a request for this text: the script takes none, and it installs packages.
if [ $# -gt 0 ]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
cd "$(dirname "$0")/.."
repo=$(pwd)
policies=${POLICIES:-fifo,lru,clock,sieve,s3fifo,arc,2q}
traces="Traces/*.csv,Traces/*.bin"
tasks=4

if [ "$(id -u)" != 0 ]; then echo "run as root (installs slurm-wlm and munge, starts daemons)" >&2; exit 2; fi
echo "== installing slurm-wlm and munge"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
echo "slurm-wlm $(dpkg-query -W -f "\${Version}" slurm-wlm), munge $(dpkg-query -W -f "\${Version}" munge)"

if [ -z "${CACHEBENCH:-}" ]; then
    echo "== building cachebench (release)"
    swift build -c release 2>&1 | tail -1
    CACHEBENCH=$repo/.build/release/cachebench
fi
export CACHEBENCH

work=$(mktemp -d /tmp/cachebench-slurm.XXXXXX)
munge_pid="" ctld_pid="" slurmd_pid=""
cleanup() {
    set +e
    echo "== shutting down and cleaning up"
    [ -n "${SLURM_CONF:-}" ] && scancel --quiet --user=root 2>/dev/null
    for pid in $slurmd_pid $ctld_pid $munge_pid; do kill "$pid" 2>/dev/null; done
    for pid in $slurmd_pid $ctld_pid $munge_pid; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$work"
    echo "cleaned up: daemons stopped, $work removed"
}
trap cleanup EXIT INT TERM

echo "== starting munged"
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
       --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed"
munge_pid=$(cat "$work/munge/munged.pid")

echo "== starting slurmctld and slurmd on localhost ($work)"
mkdir -p "$work/state" "$work/spool" "$work/log"
cpus=$(nproc)
cat > "$work/slurm.conf" <<CONF
ClusterName=cachebench-local
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF" -i
for _ in $(seq 50); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.2; done
ctld_pid=$(cat "$work/slurmctld.pid")
slurmd -f "$SLURM_CONF" -N localhost
for _ in $(seq 50); do [ -s "$work/slurmd.pid" ] && break; sleep 0.2; done
slurmd_pid=$(cat "$work/slurmd.pid")
for _ in $(seq 100); do
    state=$(sinfo -h -N -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
sinfo -N -o "%N %t %c"

echo "== submitting a $tasks-task array: $policies over $traces"
records=$work/records
start=$(date +%s.%N)
job=$(sbatch --parsable --wait --array=0-$((tasks - 1)) --chdir="$repo" --output="$work/log/task-%a.out" \
      Scripts/slurm-sweep.sbatch "$records" "$traces" "$policies")
end=$(date +%s.%N)
echo "job $job finished in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
for i in $(seq 0 $((tasks - 1))); do echo "-- task $i:"; cat "$work/log/task-$i.out"; done

echo "== merging"
"$CACHEBENCH" merge "$records" --format json > "$work/slurm.json"
"$CACHEBENCH" merge "$records" --format table | head -12

echo "== the same sweep locally, in one process"
local_start=$(date +%s.%N)
"$CACHEBENCH" sweep --traces "$traces" --policies "$policies" --output "$work/local"
local_end=$(date +%s.%N)
echo "local sweep: $(awk "BEGIN { printf \"%.1f\", $local_end - $local_start }") s"
"$CACHEBENCH" merge "$work/local" --format json > "$work/local.json"

echo "== comparing cell for cell"
python3 - "$work/slurm.json" "$work/local.json" <<'PY'
import json, sys
timing = {"seconds", "requestsPerSecond", "totalNanoseconds", "p50Nanoseconds", "p99Nanoseconds", "maxNanoseconds"}
def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in timing}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value
slurm, local = (json.load(open(p)) for p in sys.argv[1:3])
assert not slurm["missing"] and not local["missing"], "missing cells"
assert not slurm["duplicated"], "duplicated cells"
a, b = strip(slurm["results"]), strip(local["results"])
# "cells" counts every cell of the plan; "results" holds one per distinct (policy, size) a
# policy accepted (fractions that resolve to one size are one result; refused cells have none).
assert slurm["cells"] == local["cells"], (slurm["cells"], local["cells"])
assert len(a) == len(b) > 0, (len(a), len(b))
diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
assert not diff, f"{len(diff)} cells differ, first {a[diff[0]]} vs {b[diff[0]]}"
traces = len(slurm["traces"])
print(f"equal: {len(a)} cells ({traces} traces), every field but timings; none missing, none duplicated")
PY
echo "== ok"
