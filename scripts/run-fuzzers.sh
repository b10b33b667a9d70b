#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in their own build directory and runs every
# chokepoint_fuzz_* binary for a bounded time, each from a small seed corpus made here, then prints
# the executions and crashes of each. Exit status 1 when any target crashed (or failed to run).
#
# Usage: scripts/run-fuzzers.sh [SECONDS_PER_TARGET (default 60)]
# Environment: BUILD_DIR (default <repo>/build-fuzz), FUZZ_DIR for corpora and crash files
# (default <repo>/fuzz-corpus), JOBS for the build (default 2), FUZZ_TARGETS to run a subset
# (space-separated names).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build_dir=${BUILD_DIR:-$root/build-fuzz}
fuzz_dir=${FUZZ_DIR:-$root/fuzz-corpus}
jobs=${JOBS:-2}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "run-fuzzers.sh: clang++ not found (apt-get install clang)" >&2
  exit 1
fi

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCHOKEPOINT_BUILD_FUZZERS=ON -DCHOKEPOINT_BUILD_TESTS=ON -DCHOKEPOINT_BUILD_GUI=OFF \
  -DCHOKEPOINT_BUILD_BENCHMARKS=OFF -DCHOKEPOINT_WITH_CUPTI=OFF >/dev/null
targets=$(ninja -C "$build_dir" -t targets all | sed -n 's/^\(chokepoint_fuzz_[A-Za-z0-9_]*\): .*/\1/p' | sort -u)
if [ -n "${FUZZ_TARGETS:-}" ]; then
  targets=$FUZZ_TARGETS
fi
if [ -z "$targets" ]; then
  echo "run-fuzzers.sh: no chokepoint_fuzz_* targets (is clang the compiler in $build_dir?)" >&2
  exit 1
fi
# shellcheck disable=SC2086
ninja -C "$build_dir" -j "$jobs" $targets

# Small valid Kineto traces (both category generations, flows, metadata, AMD) as seeds.
write_kineto_seeds() {
  local dir=$1
  cat >"$dir/seed-current.json" <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100.5, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 101, "dur": 20, "args": {"External id": 3, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 102, "dur": 5, "args": {"correlation": 9, "External id": 3}},
  {"ph": "s", "id": 9, "pid": 1, "tid": 1, "ts": 102, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110.125, "dur": 3.5, "args": {"device": 0, "stream": 7, "correlation": 9, "grid": [1, 2, 3], "block": [32, 1, 1], "registers per thread": 64, "shared memory": 1024}},
  {"ph": "f", "id": 9, "pid": 0, "tid": 7, "ts": 110.125, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 120, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 10, "bytes": 64}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 122, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 11, "bytes": 64}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 110, "dur": 14},
  {"ph": "X", "cat": "python_function", "name": "train.py(1): f", "pid": 1, "tid": 1, "ts": 100, "dur": 60},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 130, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 12}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 103, "s": "t"},
  {"ph": "C", "name": "mem", "pid": 1, "ts": 104, "args": {"a": 1.5, "b": 2}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": 1, "args": {"name": "main"}}
 ], "displayTimeUnit": "ns", "baseTimeNanoseconds": 1700000000000000000}
JSON
  cat >"$dir/seed-2021.json" <<'JSON'
{"schemaVersion": 1, "computeProperties": [{"id": 0, "name": "Tesla V100", "major": 7, "minor": 0, "multiProcessorCount": 80}],
 "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#2", "pid": 5, "tid": "5", "ts": 1000, "dur": 100},
  {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 5, "tid": "5", "ts": 1010, "dur": 4, "args": {"correlation": 31, "external id": 2}},
  {"ph": "s", "id": 31, "pid": 5, "tid": 5, "ts": 1010, "cat": "async", "name": "launch"},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": "stream 7", "ts": 1020, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 31, "bytes": 640}},
  {"ph": "f", "id": 31, "pid": 0, "tid": "stream 7", "ts": 1020, "cat": "async", "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "Trace", "ts": 1000, "dur": 200, "pid": "Traces", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)"}
]}
JSON
  cat >"$dir/seed-amd-array.json" <<'JSON'
[{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 2, "tid": 2, "ts": 1, "dur": 1, "args": {"stream": "0x0", "size": "2560"}},
 {"ph": "X", "cat": "kernel", "name": "Cijk", "pid": 2, "tid": 0, "ts": 3, "dur": 1e0, "args": {"device": 2, "kind": "Dispatch Kernel"}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 2, "tid": 0, "ts": 5, "dur": -1, "args": {"kind": "HtoD"}}]
JSON
  printf '{"traceEvents": [], "esc": "a\\"b\\\\c\\u00e9"}' >"$dir/seed-empty.json"
  if command -v gzip >/dev/null 2>&1; then
    gzip -c "$dir/seed-2021.json" >"$dir/seed-2021.json.gz"
  fi
}

status=0
summary=""
for target in $targets; do
  bin="$build_dir/tests/fuzz/$target"
  work="$fuzz_dir/$target"
  corpus="$work/corpus"
  mkdir -p "$corpus" "$work/artifacts"
  extra_env=()
  extra_args=()
  case $target in
    chokepoint_fuzz_kineto_json)
      write_kineto_seeds "$corpus"
      extra_args=(-max_len=8192)
      ;;
    chokepoint_fuzz_nsys_sqlite)
      sh "$root/tests/fuzz/make-nsys-seeds.sh" "$corpus" >/dev/null || true
      ;;
    chokepoint_fuzz_cptrace)
      extra_env+=("CHOKEPOINT_CPTRACE_SEED_DIR=$corpus")
      ;;
  esac
  log="$work/fuzz.log"
  echo "== $target: ${seconds}s, corpus $corpus"
  set +e
  env ${extra_env[@]+"${extra_env[@]}"} "$bin" "$corpus" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    ${extra_args[@]+"${extra_args[@]}"} >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  crashes=$(find "$work/artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l)
  line="$target: ${execs:-0} executions, $crashes crash/leak/timeout files, exit $rc (log $log)"
  echo "$line"
  summary="$summary$line"$'\n'
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    tail -n 30 "$log"
  fi
done
echo
echo "Fuzzing summary (${seconds}s per target):"
printf '%s' "$summary"
exit $status
