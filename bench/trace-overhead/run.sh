#!/usr/bin/env bash
# bench/trace-overhead: the traced/untraced time ratio of MPI kernels, both
# measured in the same run, alternating, REPS times each; prints medians.
# Usage: bash bench/trace-overhead/run.sh [BUILD_DIR] [REPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-11}
app=$build/bench/trace-overhead-app
run=$build/bin/mpilift-run
[ -x "$app" ] && [ -x "$run" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun --oversubscribe --bind-to none"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$root/bench/common/median.sh"
minimum() { sort -g | head -1; }

printf "%-12s %3s %10s %10s %12s %8s %10s\n" kernel np iterations "plain(us)" "traced(us)" ratio "best-ratio"
for spec in "nullsend 1 2000000" "nullrecv 1 2000000" "pingpong0 2 1000000" "pingpong64k 2 20000" "ring 4 50000"; do
  set -- $spec
  kernel=$1 np=$2 iters=$3
  : > "$tmp/plain"; : > "$tmp/traced"; : > "$tmp/ratio"
  for i in $(seq "$reps"); do
    p=$($mpi -np "$np" "$app" "$kernel" "$iters")
    rm -rf "$tmp/tr"
    t=$($mpi -np "$np" "$run" -o "$tmp/tr" -- "$app" "$kernel" "$iters")
    echo "$p" >> "$tmp/plain"; echo "$t" >> "$tmp/traced"
    awk -v a="$t" -v b="$p" 'BEGIN {printf "%.4f\n", a / b}' >> "$tmp/ratio"
  done
  best=$(awk -v a="$(minimum < "$tmp/traced")" -v b="$(minimum < "$tmp/plain")" 'BEGIN {printf "%.3f", a / b}')
  printf "%-12s %3s %10s %10.4f %12.4f %8.3f %10s\n" "$kernel" "$np" "$iters" \
    "$(median < "$tmp/plain")" "$(median < "$tmp/traced")" "$(median < "$tmp/ratio")" "$best"
done
echo "(medians of $reps alternating runs; ratio = median of traced / untraced per run;"
echo " best-ratio = fastest traced run / fastest untraced run;"
echo " nullsend/nullrecv: MPI_Send to and MPI_Recv from MPI_PROC_NULL;"
echo " traced minus untraced is the cost per call)"
