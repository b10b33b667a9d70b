#!/usr/bin/env bash
# Builds the Debian package from an existing build folder (BUILD_DIR, default <repo>/build), then
# checks it the way a user would get it, without installing it system-wide:
#   * its Depends cover every package dpkg-shlibdeps finds for the executables;
#   * unpacked with dpkg -x into a temporary folder (so nothing refers to the build tree), the
#     unpacked chokepoint-cli prints the project version and analyses the unpacked real sample,
#     and the unpacked GUI finds its samples relative to itself and renders a screenshot offscreen.
# Exit status non-zero on the first failure, with a message saying which check failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
fail() { echo "package-check: $*" >&2; exit 1; }

version=$(sed -n 's/^project(Chokepoint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || fail "no project(VERSION) in CMakeLists.txt"
(cd "$build_dir" && cpack -G DEB >/dev/null) || fail "cpack -G DEB failed"
deb=$(ls -t "$build_dir"/chokepoint_"$version"_*.deb 2>/dev/null | head -n1)
[ -f "$deb" ] || fail "cpack made no chokepoint_${version}_*.deb in $build_dir"
echo "package-check: built $deb ($(du -h "$deb" | cut -f1))"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg -x "$deb" "$work/root"
depends=$(dpkg-deb -f "$deb" Depends)
echo "package-check: Depends: $depends"
bin="$work/root/usr/bin"
sample="$work/root/usr/share/chokepoint/samples/real/resnet50-nw0.pt.trace.json.gz"
[ -x "$bin/chokepoint-cli" ] || fail "the package has no usr/bin/chokepoint-cli"
[ -f "$sample" ] || fail "the package has no real sample at usr/share/chokepoint/samples/real"
[ -f "$work/root/usr/share/doc/chokepoint/LICENSE" ] || fail "the package has no LICENSE"
if [ -f "$build_dir/bin/libchokepoint_agent.so" ]; then
  [ -f "$work/root/usr/lib/libchokepoint_agent.so" ] || fail "the agent was built but is not in the package"
  echo "package-check: the agent is packaged (usr/lib/libchokepoint_agent.so)"
fi
desktop="$work/root/usr/share/applications/chokepoint.desktop"
[ -f "$desktop" ] || fail "the package has no usr/share/applications/chokepoint.desktop"
command -v desktop-file-validate >/dev/null || fail "desktop-file-validate missing (scripts/install-deps.sh installs it)"
desktop-file-validate "$desktop" || fail "chokepoint.desktop does not validate"
echo "package-check: chokepoint.desktop validates"

# Every library package the executables need is declared (names as dpkg-shlibdeps sees them).
executables=("$bin/chokepoint-cli")
[ -x "$bin/chokepoint" ] && executables+=("$bin/chokepoint")
mkdir -p "$work/shlibs/debian"
printf 'Source: chokepoint\n\nPackage: chokepoint\nArchitecture: any\n' >"$work/shlibs/debian/control"
needed=$(cd "$work/shlibs" && dpkg-shlibdeps -O "${executables[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$needed" ] || fail "dpkg-shlibdeps found nothing for ${executables[*]}"
for entry in $(echo "$needed" | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g'); do
  echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/ //g' | grep -qx "$entry" ||
    fail "Depends lacks $entry (dpkg-shlibdeps: $needed)"
done

# Build-tree paths baked into the binaries (lookups must go relative to the executable first).
for f in "${executables[@]}"; do
  baked=$(strings "$f" | grep -F "$build_dir/" || true)
  [ -z "$baked" ] || fail "$(basename "$f") contains a build-tree path: $(echo "$baked" | head -n1)"
done

"$bin/chokepoint-cli" --version | grep -qxE "chokepoint-cli $version \(build [A-Za-z0-9._+-]+\)" ||
  fail "chokepoint-cli --version does not print $version and its build id"
analysis="$work/analysis.txt"
"$bin/chokepoint-cli" analyze "$sample" >"$analysis" || fail "the unpacked chokepoint-cli analyze failed"
grep -q "^VERDICT: Data-bound" "$analysis" || fail "the unpacked CLI does not call the num_workers=0 sample data-bound"
echo "package-check: unpacked chokepoint-cli analyzed the unpacked sample: $(grep -m1 -i 'verdict\|bottleneck' "$analysis" || true)"

if [ -x "$bin/chokepoint" ]; then
  export QT_QPA_PLATFORM=offscreen
  "$bin/chokepoint" --version | grep -q "$version" || fail "chokepoint --version does not print $version"
  # Relative to its own location: the samples it lists are the unpacked ones.
  listed=$(env -u CHOKEPOINT_SAMPLES_DIR "$bin/chokepoint" --list-samples)
  echo "$listed" | head -n1 | grep -qF "$work/root/usr/share/chokepoint/samples/real/resnet50-nw0" ||
    fail "the unpacked GUI does not list its own samples first: $listed"
  "$bin/chokepoint" --screenshot "$work/shot.png" --page diagnosis "$sample" ||
    fail "the unpacked chokepoint --screenshot failed"
  [ -s "$work/shot.png" ] || fail "the unpacked GUI wrote no screenshot"
  echo "package-check: unpacked GUI rendered the diagnosis page ($(stat -c %s "$work/shot.png") bytes)"
fi
# The node bundle (cpack -G External): unpacked elsewhere, every library its CLI and agent need
# beyond glibc, libstdc++, libgcc_s and zlib resolves inside it, and its CLI reads a trace.
(cd "$build_dir" && cpack -G External >/dev/null) || fail "cpack -G External (the node bundle) failed"
bundle=$(ls -t "$build_dir"/chokepoint-node-"$version"-*.tar.gz 2>/dev/null | head -n1)
[ -f "$bundle" ] || fail "cpack made no chokepoint-node-$version-*.tar.gz in $build_dir"
mkdir -p "$work/node"
tar xzf "$bundle" -C "$work/node"
node=$(ls -d "$work"/node/chokepoint-node-*)
[ -x "$node/bin/chokepoint-cli" ] && [ -x "$node/gpu-check.sh" ] && [ -f "$node/python/chokepoint_helper.py" ] ||
  fail "the node bundle lacks bin/chokepoint-cli, gpu-check.sh or python/chokepoint_helper.py"
for f in "$node/bin/chokepoint-cli" "$node"/lib/*.so*; do
  while read -r line; do
    lib=$(echo "$line" | awk '{print $1}')
    where=$(echo "$line" | awk '{print $3}')
    case "$lib" in
      linux-vdso.so*|ld-linux*|/lib64/ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*) continue ;;
      libstdc++.so*|libgcc_s.so*|libz.so*) continue ;;
    esac
    case "$where" in
      "$node"/*) ;;
      *) fail "$(basename "$f") needs $lib from outside the bundle ($line)" ;;
    esac
  done < <(ldd "$f" | grep '=>')
done
echo "package-check: every library of the bundle's CLI and agent beyond glibc, libstdc++, libgcc_s, zlib is inside it"
"$node/gpu-check.sh" --help | grep -q "summary" || fail "the bundle's gpu-check.sh --help says nothing"
if [ -d "$root/../shared/traces/h100" ]; then
  node_trace=$(ls "$root"/../shared/traces/h100/*.cptrace | head -n1)
else
  node_trace=$sample
fi
(cd / && "$node/bin/chokepoint-cli" info "$node_trace" >"$work/node-info.txt") ||
  fail "the bundle's chokepoint-cli info $node_trace failed"
echo "package-check: the bundle's CLI read $(basename "$node_trace"): $(grep -m1 'Steps:' "$work/node-info.txt" | cut -c1-70)"

# In CI, as root: install the package with apt as a user would (its Depends resolved from Debian),
# run the installed programs from outside the source tree, then remove it.
if [ "${CI:-}" = "true" ] && [ "$(id -u)" -eq 0 ]; then
  deb_path=$(realpath "$deb")
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb_path" >"$work/apt.log" 2>&1 ||
    fail "apt-get install $deb_path failed: $(tail -n 3 "$work/apt.log")"
  trap 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq chokepoint >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  installed_sample=/usr/share/chokepoint/samples/real/resnet50-nw0.pt.trace.json.gz
  (cd / && /usr/bin/chokepoint-cli analyze "$installed_sample" >"$work/installed.txt") ||
    fail "the installed chokepoint-cli analyze failed"
  grep -q "^VERDICT: Data-bound" "$work/installed.txt" || fail "the installed CLI does not call the sample data-bound"
  if [ -x /usr/bin/chokepoint ]; then
    (cd / && QT_QPA_PLATFORM=offscreen /usr/bin/chokepoint --screenshot "$work/installed.png" --page diagnosis \
      "$installed_sample") || fail "the installed chokepoint --screenshot failed"
  fi
  echo "package-check: installed with apt-get, ran the installed CLI and GUI, removed it again"
fi
echo "package-check: OK"
