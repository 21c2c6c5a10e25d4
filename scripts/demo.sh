#!/usr/bin/env bash
# The main job, end to end, on the bundled example: build mpilift, build the
# example with debug information, run it under mpirun with every MPI call
# traced, print the trace with source locations, and find the collectives
# it implements by hand.
# Usage: bash scripts/demo.sh        (as root on Debian 12; installs deps)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MPILIFT_BUILD_DIR:-$root/build}
out=$build/demo
np=${NP:-4}

bash "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" --target mpilift mpilift-run mpilift-trace

mkdir -p "$out"
echo "== building examples/manual-bcast with debug information"
mpicc -g -O1 "$root/examples/manual-bcast/manual_bcast.c" -o "$out/manual_bcast"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "== running on $np ranks under mpilift-run"
rm -rf "$out/traces"
mpirun --oversubscribe -np "$np" "$build/bin/mpilift-run" -o "$out/traces" -- "$out/manual_bcast"

echo "== the OTF2 archive"
ls -l "$out/traces"
echo "== otf2-print reads it ($(otf2-print "$out/traces/traces.otf2" | wc -l) lines)"
echo "== mpilift trace dump (ranks 0 and 1)"
"$build/bin/mpilift" trace dump "$out/traces" --rank 0 --times
"$build/bin/mpilift" trace dump "$out/traces" --rank 1 | tail -n +5
echo "== mpilift detect: the hand-written collectives in it"
"$build/bin/mpilift" detect "$out/traces"
"$build/bin/mpilift" detect "$out/traces" --format json -o "$out/patterns.json"
echo "(JSON in $out/patterns.json)"
