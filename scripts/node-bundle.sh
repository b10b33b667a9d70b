#!/usr/bin/env bash
# Makes the node bundle (cmake/MakeNodeBundle.cmake) from a build folder (BUILD_DIR, default
# <repo>/build) and prints its path: build/chokepoint-node-VERSION-x86_64.tar.gz.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
version=$(sed -n 's/^project(Chokepoint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
cmake -DBUILD_DIR="$build_dir" -DSOURCE_DIR="$root" -DVERSION="$version" -P "$root/cmake/MakeNodeBundle.cmake" >&2
echo "$build_dir/chokepoint-node-$version-x86_64.tar.gz"
