#!/usr/bin/env bash
# Time from `chokepoint FILE` to the diagnosis page drawn, against `chokepoint-cli analyze FILE`.
# Both are timed as whole processes (exec to exit) with the same clock; the GUI exits as soon as the
# diagnosis page has been painted with the analysis (CHOKEPOINT_EXIT_WHEN_DRAWN). Prints the medians
# and the ratio (the GUI issue's target: at most 1.5).
#
#   bench/gui-startup.sh [-n RUNS] [-b BUILD_DIR] FILE
set -euo pipefail

runs=15
build=build
while getopts "n:b:" opt; do
    case "$opt" in
        n) runs="$OPTARG" ;;
        b) build="$OPTARG" ;;
        *) echo "usage: $0 [-n RUNS] [-b BUILD_DIR] FILE" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -ne 1 ]]; then
    echo "usage: $0 [-n RUNS] [-b BUILD_DIR] FILE" >&2
    exit 2
fi
file="$1"
gui="$build/bin/chokepoint"
cli="$build/bin/chokepoint-cli"
for exe in "$gui" "$cli"; do
    [[ -x "$exe" ]] || { echo "$0: $exe not built" >&2; exit 1; }
done
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# Milliseconds of wall time for one run of the command given.
wall_ms() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One warm-up run of each so both read the file from the page cache.
wall_ms "$cli" analyze "$file" >/dev/null
CHOKEPOINT_EXIT_WHEN_DRAWN=1 CHOKEPOINT_TIMING=1 wall_ms "$gui" "$file" >/dev/null

cli_times=()
gui_times=()
for ((i = 0; i < runs; ++i)); do
    # Interleaved, so drift in machine load touches both alike.
    cli_times+=("$(wall_ms "$cli" analyze "$file")")
    gui_times+=("$(CHOKEPOINT_EXIT_WHEN_DRAWN=1 CHOKEPOINT_TIMING=1 wall_ms "$gui" "$file")")
done
cli_median=$(printf '%s\n' "${cli_times[@]}" | median)
gui_median=$(printf '%s\n' "${gui_times[@]}" | median)
echo "file:                    $file"
echo "runs:                    $runs each, interleaved"
echo "chokepoint-cli analyze:  median ${cli_median} ms   (${cli_times[*]})"
echo "chokepoint to diagnosis: median ${gui_median} ms   (${gui_times[*]})"
awk -v g="$gui_median" -v c="$cli_median" 'BEGIN { printf "ratio GUI / CLI:         %.2f\n", g / c }'
