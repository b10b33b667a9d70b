#!/usr/bin/env bash
# Installs Chokepoint's build dependencies from Debian 12 packages (uses sudo when not root).
# The CUDA toolkit is optional and not installed here: without it the CUPTI agent is not built.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git python3
  qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev
  libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev
  libsimdjson-dev zlib1g-dev libsqlite3-dev
  patchelf  # scripts/node-bundle.sh: RUNPATH of the bundled CLI and libraries
  dpkg-dev  # dpkg-shlibdeps: scripts/package-check.sh checks the .deb's Depends with it
  desktop-file-utils  # desktop-file-validate: scripts/package-check.sh checks the .desktop file
)

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
