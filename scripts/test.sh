#!/usr/bin/env bash
# The README's test command (and what CI runs): installs the packages, builds everything with
# tests, and runs the whole ctest suite offscreen. GPU tests (label `gpu`) skip without a device.
#
# With CI=true (set by .ci/run) it also enforces what a developer's run leaves to review:
#   * warnings are errors (-DCHOKEPOINT_WERROR=ON);
#   * an AddressSanitizer + UBSan build of the non-GUI tests in build-asan (scripts/sanitize-test.sh);
#   * the Debian package is built, unpacked with dpkg -x and run (scripts/package-check.sh).
# ctest fails when no test was found (--no-tests=error), so a tree configured without tests
# cannot pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
ci=false
[ "${CI:-}" = true ] && ci=true

"$root/scripts/install-deps.sh"
cmake_args=(-DCHOKEPOINT_BUILD_TESTS=ON)
if $ci; then
  cmake_args+=(-DCHOKEPOINT_WERROR=ON)
fi
BUILD_DIR=$build_dir "$root/scripts/build.sh" "${cmake_args[@]}"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$(nproc)"

if $ci; then
  "$root/scripts/sanitize-test.sh"
  BUILD_DIR=$build_dir "$root/scripts/package-check.sh"
fi
