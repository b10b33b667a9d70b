#!/usr/bin/env bash
# The README's first command: installs the packages, builds, and opens the GUI on the diagnosis page
# of the bundled real sample (samples/real/resnet50-nw0.pt.trace.json.gz, a data-bound ResNet-50
# run); without a display it prints the CLI's analysis of the same trace instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
BUILD_DIR=$build_dir "$root/scripts/build.sh"
sample="$root/samples/real/resnet50-nw0.pt.trace.json.gz"
if [ -x "$build_dir/bin/chokepoint" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$build_dir/bin/chokepoint" "$sample"
fi
echo "No display found: printing the analysis of $sample instead of opening the GUI."
exec "$build_dir/bin/chokepoint-cli" analyze "$sample"
