#!/usr/bin/env bash
# The main job, end to end, on the bundled example: build mpilift, build the
# example with debug information, run it under mpirun with every MPI call
# traced, print the trace with source locations, find the collectives it
# implements by hand, check the source against them, rewrite a copy, rebuild
# it, and run the original and the rewritten program side by side.
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

echo "== mpilift check: prove the patterns safe in the source, rewrite a copy"
work=$out/rewrite
rm -rf "$work" && mkdir -p "$work"
cp "$root/examples/manual-bcast/manual_bcast.c" "$work/manual_bcast.c"
cat > "$work/compile_commands.json" <<JSON
[{"directory": "$work", "file": "$work/manual_bcast.c",
  "command": "mpicc -g -O1 -c manual_bcast.c -o manual_bcast.o"}]
JSON
"$build/bin/mpilift" check -p "$work" --trace "$out/traces" --fix "$work/manual_bcast.c"
echo "== the rewrite"
diff -u "$root/examples/manual-bcast/manual_bcast.c" "$work/manual_bcast.c" || true
mpicc -g -O1 "$work/manual_bcast.c" -o "$out/manual_bcast.rewritten"

run_timed() { # label program
  local start end
  start=$(date +%s.%N)
  mpirun --oversubscribe -np "$np" "$2" > "$out/$1.out"
  end=$(date +%s.%N)
  echo "$1: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s"
}
echo "== both programs on $np ranks"
run_timed original "$out/manual_bcast"
run_timed rewritten "$out/manual_bcast.rewritten"
echo "-- original output"; cat "$out/original.out"
echo "-- rewritten output"; cat "$out/rewritten.out"
if cmp -s "$out/original.out" "$out/rewritten.out"; then
  echo "== identical output"
else
  echo "== OUTPUT DIFFERS"; exit 1
fi
