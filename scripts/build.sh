#!/usr/bin/env bash
# Configures and builds Chokepoint into ./build (override with BUILD_DIR). Extra arguments go to
# cmake on every run, also for an existing build folder (cmake -S -B is idempotent), so
# `scripts/build.sh -DCHOKEPOINT_BUILD_TESTS=ON` takes effect on a tree configured without tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
args=()
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  # First configure: choose the generator and build type (a later -G would clash with the cache).
  command -v ninja >/dev/null && args+=(-G Ninja)
  # ccache, when installed, makes rebuilds in a fresh clone cheap (optional; not installed by us).
  command -v ccache >/dev/null && args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
cmake -S "$root" -B "$build_dir" "${args[@]}" "$@"
cmake --build "$build_dir" -j "$(nproc)"
