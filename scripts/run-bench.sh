#!/usr/bin/env bash
# Runs every benchmark program in a Release build directory with repetitions and prints the medians.
# Usage: scripts/run-bench.sh build [extra Google Benchmark flags...]
set -euo pipefail
dir=${1:-build}
shift || true
for b in "$dir"/bench/voxen_bench_* "$dir"/voxen_bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
done
