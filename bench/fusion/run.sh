#!/usr/bin/env bash
# bench/fusion: the sequences mpilift-fuse-collectives fuses against the
# fused call, alternately, at 2, 4 and 8 processes and 8 B to 1 MiB.
# Usage: bash bench/fusion/run.sh [BUILD_DIR] [REPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-9}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 2 4 8; do
  mpirun --oversubscribe --bind-to none -np "$np" "$build/bin/fusion" "$reps" 20
done
