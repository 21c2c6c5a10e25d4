#!/usr/bin/env bash
# bench/trace-convert: how long MPI_Finalize takes on rank 0 of a traced run
# when the spill files are converted serially on rank 0
# (MPILIFT_TRACE_CONVERT=serial) and when every rank converts its own
# (the default), alternating in one run, REPS times each; prints medians and
# their ratio. The calls per rank stay fixed as ranks grow (weak scaling).
# Usage: bash bench/trace-convert/run.sh [BUILD_DIR] [REPS] [CALLS_PER_RANK] [NP...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-5}
calls=${3:-200000}
shift $(( $# < 3 ? $# : 3 ))
nps=${*:-2 4 8 16 32}
app=$build/bench/trace-convert-app
run=$build/bin/mpilift-run
[ -x "$app" ] && [ -x "$run" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1
mpi="mpirun --oversubscribe --bind-to none"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$root/bench/common/median.sh"

printf "%4s %12s %12s %12s %8s\n" np events "serial(s)" "parallel(s)" ratio
for np in $nps; do
  : > "$tmp/serial"; : > "$tmp/parallel"
  for i in $(seq "$reps"); do
    for mode in serial parallel; do
      rm -rf "$tmp/tr"
      $mpi -np "$np" -x MPILIFT_TRACE_CONVERT=$mode "$run" -o "$tmp/tr" -- \
        "$app" "$calls" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      if [ -s "$tmp/err" ] || [ ! -f "$tmp/tr/traces.otf2" ]; then
        echo "np $np $mode: conversion failed:" >&2; cat "$tmp/err" >&2; exit 1
      fi
      cat "$tmp/out" >> "$tmp/$mode"
    done
  done
  s=$(median < "$tmp/serial"); p=$(median < "$tmp/parallel")
  printf "%4s %12s %12.3f %12.3f %8.2f\n" "$np" "$((np * calls))" "$s" "$p" \
    "$(awk -v a="$s" -v b="$p" 'BEGIN {print a / b}')"
done
echo "(medians of $reps alternating runs; time of MPI_Finalize on rank 0, which"
echo " flushes and converts; events = traced calls; ratio = serial / parallel)"
