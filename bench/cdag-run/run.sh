#!/usr/bin/env bash
# bench/cdag-run: 8 processes broadcast 1 MiB written as a star in cDAG,
# with detection (MPI_Bcast) against CDAG_DISABLE_DETECTION=1.
# Usage: bash bench/cdag-run/run.sh [BUILD_DIR] [NP] [BYTES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
np=${2:-8}
bytes=${3:-1048576}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --oversubscribe --bind-to none -np "$np" "$build/bin/cdag-run" "$bytes" 11 20
