#!/usr/bin/env bash
# Builds the tests with AddressSanitizer and UndefinedBehaviorSanitizer in their own folder
# (BUILD_DIR, default <repo>/build-asan) and runs them: every suite except the GUI's (not built
# here: slow under ASan, and Qt's own allocations drown the report) and the `gpu` ones (the CUPTI
# agent is not built with sanitizers). Any sanitizer report fails the test that triggered it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build-asan}
generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  command -v ninja >/dev/null && generator=(-G Ninja)
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build_dir" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCHOKEPOINT_ENABLE_SANITIZERS=ON -DCHOKEPOINT_WERROR=ON -DCHOKEPOINT_BUILD_TESTS=ON \
  -DCHOKEPOINT_BUILD_GUI=OFF -DCHOKEPOINT_BUILD_BENCHMARKS=OFF -DCHOKEPOINT_WITH_CUPTI=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -LE gpu -j "$(nproc)"
