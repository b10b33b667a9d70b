#!/usr/bin/env bash
# End-to-end test of the cluster scripts (scripts/cluster) against a real one-node Slurm:
# starts munged and Slurm (slurmctld, slurmd) with a private configuration in a temporary folder,
# writes a synthetic 8-rank job with a late rank (chokepoint-make-job), summarises the ranks with a
# Slurm job array (summarize-array.sbatch), merges the summaries with a second Slurm job
# (merge-job.sh), and checks that the merged report names the late rank and its cause and has the
# same stragglers (indeed the same whole `job` object) as the in-process
# `chokepoint-cli analyze --format json` of the traces.
# Stops every daemon it started by its pid.
#
#   slurm_job_test.sh CHOKEPOINT_CLI CHOKEPOINT_MAKE_JOB SOURCE_DIR
#
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge; without them it says why
# and exits 77 (ctest's SKIP_RETURN_CODE). With CI=true and root it installs them first
# (scripts/install-slurm.sh).
set -euo pipefail

SKIP=77
cli=${1:?usage: slurm_job_test.sh CHOKEPOINT_CLI CHOKEPOINT_MAKE_JOB SOURCE_DIR}
make_job=${2:?}
src=${3:?}
late_rank=5
cause=data
expected_cause=data-wait

log() { echo "slurm_job_test: [${SECONDS}s] $*"; }
skip() {
  log "SKIP: $*"
  exit "$SKIP"
}
fail() {
  log "FAIL: $*"
  exit 1
}

if [ "$(id -u)" -ne 0 ]; then
  skip "needs root to run munged as user munge and the Slurm daemons"
fi
have_slurm() {
  for tool in munged mungekey slurmctld slurmd sbatch sinfo scontrol; do
    command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$tool" >/dev/null 2>&1 || return 1
  done
  id munge >/dev/null 2>&1
}
export PATH="$PATH:/usr/sbin:/sbin"
if ! have_slurm; then
  if [ "${CI:-}" = "true" ]; then
    "$src/scripts/install-slurm.sh" || fail "installing Slurm and MUNGE failed"
  fi
  have_slurm || skip "Slurm or MUNGE is not installed (apt-get install slurmctld slurmd slurm-client munge, or run scripts/install-slurm.sh)"
fi
command -v python3 >/dev/null || skip "python3 is needed to compare the JSON reports"
[ -x "$cli" ] || fail "$cli is not an executable"
[ -x "$make_job" ] || fail "$make_job is not an executable"
cli=$(realpath "$cli")
make_job=$(realpath "$make_job")
src=$(realpath "$src")

work=$(mktemp -d /tmp/chokepoint-slurm.XXXXXX)
chmod 755 "$work"  # munged (user munge) must reach its folder inside
pids=()
cleanup() {
  local status=$?
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[$i]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] && [ "$status" -ne "$SKIP" ]; then
    for f in "$work"/*.log "$work"/logs/* "$work"/munge/munged.log; do
      [ -f "$f" ] && {
        echo "----- $f"
        tail -n 30 "$f"
      }
    done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A port nobody listens on, from a range unlikely to be used (several developers share machines).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# --- MUNGE: a private key and socket, munged as user munge ------------------------------------------
mkdir -p "$work/munge"
chown munge:munge "$work/munge"
chmod 755 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" || fail "mungekey failed"
chown munge:munge "$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
socket="$work/munge/munge.socket.2"
setpriv --reuid=munge --regid=munge --init-groups munged --foreground --socket="$socket" \
  --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" >"$work/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
  [ -S "$socket" ] && break
  sleep 0.1
done
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null || fail "munged does not answer on $socket"

# --- Slurm: one node, one partition --------------------------------------------------------------
host=$(hostname -s)
ctld_port=$(free_port) || fail "no free port"
slurmd_port=$(free_port) || fail "no free port"
mkdir -p "$work/state" "$work/spool" "$work/logs"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=chokepointtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -c -f "$SLURM_CONF" >"$work/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = "idle" ] && break
  sleep 0.5
done
[ "$state" = "idle" ] || fail "the Slurm node did not become idle (state '$state')"
log "Slurm is up: node $host idle, slurmctld port $ctld_port"

# --- a synthetic job with a late rank ---------------------------------------------------------------
"$make_job" --ranks 8 --late-rank "$late_rank" --cause "$cause" -o "$work/traces" >"$work/logs/make-job.txt" ||
  fail "chokepoint-make-job failed"
cat "$work/logs/make-job.txt"

# --- summarize as a job array, then merge as a job ---------------------------------------------------
export CHOKEPOINT_CLI="$cli"
cd "$work"
sbatch --wait --array=0-7 --output="$work/logs/summarize-%a.out" \
  "$src/scripts/cluster/summarize-array.sbatch" "$work/traces" "$work/summaries" >/dev/null ||
  fail "the summarize job array failed"
count=$(find "$work/summaries" -name 'rank-*.cpsum' | wc -l)
[ "$count" -eq 8 ] || fail "expected 8 summaries, found $count"
sbatch --wait --output="$work/logs/merge.out" "$src/scripts/cluster/merge-job.sh" \
  "$work/summaries" "$work/merged" >/dev/null || fail "the merge job failed"
[ -s "$work/merged.json" ] || fail "the merge job wrote no report"
log "summarized 8 ranks with a job array and merged them with a job"

# --- the same with one summarizer per rank in an srun step (SLURM_PROCID), merged here ---------------
srun --overcommit --ntasks=8 --output="$work/logs/srun-%t.out" "$src/scripts/cluster/summarize-torchrun.sh" \
  "$work/traces/rank-{rank}.cptrace" "$work/summaries-srun" || fail "the srun step failed"
count=$(find "$work/summaries-srun" -name 'rank-*.cpsum' | wc -l)
[ "$count" -eq 8 ] || fail "expected 8 summaries from srun, found $count"
"$src/scripts/cluster/merge-job.sh" "$work/summaries-srun" "$work/merged-srun" >/dev/null ||
  fail "merging the srun summaries failed"
log "summarized 8 ranks with srun and merged them"

# --- the same job analysed in one process -----------------------------------------------------------
"$cli" analyze --format json "$work/traces" >"$work/direct.json" || fail "analyze of the traces failed"

python3 - "$work/merged.json" "$work/direct.json" "$late_rank" "$expected_cause" "$work/merged-srun.json" <<'EOF' ||
import json, sys
merged_path, direct_path, late_rank, cause, srun_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
merged = json.load(open(merged_path))["job"]
direct = json.load(open(direct_path))["job"]
srun = json.load(open(srun_path))["job"]
stragglers = merged["stragglers"]
if not stragglers:
    sys.exit("the merged report names no straggler")
first = stragglers[0]
print(f"merged report: worst straggler rank {first['rank']}, cause {first['cause']}, late {first['lateNs']} ns")
if first["rank"] != late_rank or first["cause"] != cause:
    sys.exit(f"expected rank {late_rank} with cause {cause}, got {json.dumps(first)}")
if len(merged["ranks"]) != 8:
    sys.exit(f"expected 8 ranks in the merged report, got {len(merged['ranks'])}")
if stragglers != direct["stragglers"]:
    sys.exit("stragglers differ:\n merged: " + json.dumps(stragglers) + "\n direct: " + json.dumps(direct["stragglers"]))
if srun["stragglers"] != stragglers:
    sys.exit("the srun summaries give other stragglers:\n srun: " + json.dumps(srun["stragglers"]))
# The summaries carry everything the job analysis uses: the whole job object is the same.
for name, other in (("in-process", direct), ("srun", srun)):
    differ = sorted(k for k in set(merged) | set(other) if merged.get(k) != other.get(k))
    if differ:
        sys.exit(f"the merged report differs from the {name} one in: {', '.join(differ)}")
EOF
  fail "the reports disagree"
log "PASS: the merged summaries name rank $late_rank ($expected_cause), as the in-process analysis does"
