#!/usr/bin/env bash
# bench/detect: time and peak memory of `mpilift detect` on the long
# star/halo trace (star_halo.c traced at NP ranks for ITERATIONS
# iterations), against reading the same trace alone (`mpilift trace dump`,
# the baseline, measured in the same run), alternating, REPS times each.
# Prints medians, the peak bytes per traced MPI call, and the ratios. With
# OTHER_MPILIFT (an mpilift executable of another build), its detect runs
# alternate with this build's too and its figures are printed beside.
# Usage: bash bench/detect/run.sh [BUILD_DIR] [REPS] [ITERATIONS] [NP] [OTHER_MPILIFT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-3}
iterations=${3:-20000}
np=${4:-16}
other=${5:-}
mpilift=$build/bin/mpilift
run=$build/bin/mpilift-run
[ -x "$mpilift" ] && [ -x "$run" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
[ -z "$other" ] || [ -x "$other" ] || { echo "not an executable: $other" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$root/bench/common/median.sh"

mpicc -O2 -g "$root/bench/detect/star_halo.c" -o "$tmp/star_halo"
mpirun --oversubscribe -np "$np" "$run" -o "$tmp/trace" -- \
  "$tmp/star_halo" "$iterations" > /dev/null
events=$("$mpilift" trace dump "$tmp/trace" |
  awk '/^rank [0-9]+: [0-9]+ events$/ {n += $3} END {print n}')

# measure NAME COMMAND...: appends "seconds kilobytes" to $tmp/NAME.
measure() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > "$tmp/$name.out"
  cat "$tmp/time" >> "$tmp/$name"
}
names="read detect"
[ -z "$other" ] || names="$names other"
for i in $(seq "$reps"); do
  measure read "$mpilift" trace dump "$tmp/trace"
  measure detect "$mpilift" detect "$tmp/trace"
  [ -z "$other" ] || measure other "$other" detect "$tmp/trace"
done
if [ -n "$other" ] && ! cmp -s "$tmp/detect.out" "$tmp/other.out"; then
  echo "the two builds' detect outputs differ:" >&2
  diff "$tmp/other.out" "$tmp/detect.out" >&2 || true
  exit 1
fi

echo "star/halo trace: $np ranks x $iterations iterations, $events MPI calls"
printf "%-22s %10s %10s %14s\n" "" "time (s)" "peak (MB)" "bytes/call"
for n in $names; do
  t=$(awk '{print $1}' "$tmp/$n" | median)
  k=$(awk '{print $2}' "$tmp/$n" | median)
  label=$n
  case $n in
  read) label="read (trace dump)" ;;
  detect) label="detect" ;;
  other) label="detect (other build)" ;;
  esac
  printf "%-22s %10.2f %10.1f %14.0f\n" "${label:0:22}" "$t" \
    "$(awk -v k="$k" 'BEGIN {print k / 1024}')" \
    "$(awk -v k="$k" -v e="$events" 'BEGIN {print k * 1024 / e}')"
  eval "t_$n=$t k_$n=$k"
done
awk -v a="$k_detect" -v b="$k_read" 'BEGIN {printf "detect / read, peak memory: %.2f\n", a / b}'
if [ -n "$other" ]; then
  awk -v a="$k_detect" -v b="$k_other" 'BEGIN {printf "this build / other, peak memory: %.2f\n", a / b}'
  awk -v a="$t_detect" -v b="$t_other" 'BEGIN {printf "this build / other, time: %.2f\n", a / b}'
fi
echo "(medians of $reps alternating runs; peak = maximum resident set size;"
echo " target of issue 16: at most 100 bytes per event at peak)"
