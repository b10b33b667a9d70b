#!/usr/bin/env bash
# Installs a one-node Slurm (Debian 12's slurmctld, slurmd, slurm-client) and MUNGE for
# tests/scripts/cluster/slurm_job_test.sh. The test runs this only in CI (CI=true) as root; elsewhere install
# the packages yourself or let the test skip.
set -euo pipefail

packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
echo "Installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
