#!/usr/bin/env bash
# The README's test command (and what CI runs): installs the packages, builds everything with
# tests, and runs the whole ctest suite offscreen. GPU tests (label `gpu`) skip without a device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
BUILD_DIR=$build_dir "$root/scripts/build.sh" -DCHOKEPOINT_BUILD_TESTS=ON
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
