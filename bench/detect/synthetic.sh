#!/usr/bin/env bash
# bench/detect, large runs: for each process count, writes the spill files
# of a synthetic run (detect-synthetic: halo exchanges with a hand-written
# broadcast every 50 iterations, EVENTS calls a rank), converts them with
# `mpilift trace recover`, and measures `mpilift detect` (time, peak
# resident memory, bytes per call) against reading the trace alone
# (`mpilift trace dump`, the baseline), REPS times each, alternating; a
# detect run that takes more than LIMIT seconds is stopped and reported as
# such. Every run must find the broadcast. With SHARED=K in the
# environment, `mpirun -np K mpilift detect` is timed as well, in the same
# alternation, and must print what one process prints; its time is given
# as a ratio to one process's, with process 0's peak memory. With JOBS=K,
# `mpilift detect --jobs K` (K reading threads) is timed the same way.
# Usage: [SHARED=K] [JOBS=K] bash bench/detect/synthetic.sh [BUILD_DIR] [REPS] [EVENTS] [LIMIT] [RANKS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-1}
events=${3:-100000}
limit=${4:-900}
shift $(( $# < 4 ? $# : 4 ))
ranks=${*:-16 32 64}
mpilift=$build/bin/mpilift
gen=$build/bench/detect-synthetic
[ -x "$mpilift" ] && [ -x "$gen" ] || { echo "build first: cmake --build $build" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
shared=${SHARED:-}
jobs=${JOBS:-}
if [ -n "$shared" ]; then
  command -v mpirun > /dev/null || { echo "SHARED needs mpirun" >&2; exit 2; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$root/bench/common/median.sh"

# Prints the median time of the runs in $1 ("seconds KB" lines), its ratio
# to one process's median time $2, and the median peak in MB.
print_variant() {
  local t k
  t=$(awk '{print $1}' "$1" | median)
  k=$(awk '{print $2}' "$1" | median)
  printf " %12.2f %10.2f %10.1f" "$t" \
    "$(awk -v v="$t" -v d="$2" 'BEGIN {print v / d}')" \
    "$(awk -v k="$k" 'BEGIN {print k / 1024}')"
}

printf "%6s %10s %10s %10s %10s %10s %12s" ranks calls "read (s)" "read (MB)" \
  "detect (s)" "det. (MB)" "bytes/call"
[ -n "$shared" ] && printf " %12s %10s %10s" "np $shared (s)" "ratio" "p0 (MB)"
[ -n "$jobs" ] && printf " %12s %10s %10s" "-j $jobs (s)" "ratio" "-j (MB)"
echo
for np in $ranks; do
  rm -rf "$tmp/trace"
  "$gen" "$tmp/trace" "$np" "$events" > /dev/null
  "$mpilift" trace recover "$tmp/trace" > /dev/null
  calls=$("$mpilift" trace dump "$tmp/trace" |
    awk '/^rank [0-9]+: [0-9]+ events$/ {n += $3} END {print n}')
  : > "$tmp/read"; : > "$tmp/detect"; : > "$tmp/shared"; : > "$tmp/jobs"
  stopped=0
  for i in $(seq "$reps"); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$mpilift" trace dump "$tmp/trace" > /dev/null
    cat "$tmp/time" >> "$tmp/read"
    if ! /usr/bin/time -f "%e %M" -o "$tmp/time" timeout "$limit" \
        "$mpilift" detect "$tmp/trace" > "$tmp/out" 2> /dev/null; then
      stopped=1
      break
    fi
    grep -q "bcast star comm 0 root 0" "$tmp/out" ||
      { echo "$np ranks: the broadcast was not found:" >&2; cat "$tmp/out" >&2; exit 1; }
    cat "$tmp/time" >> "$tmp/detect"
    if [ -n "$shared" ]; then
      start=$(date +%s.%N)
      mpirun --oversubscribe --bind-to none -np "$shared" /usr/bin/time \
        -f "%M" -a -o "$tmp/rss" "$mpilift" detect "$tmp/trace" > "$tmp/shared.out"
      end=$(date +%s.%N)
      cmp -s "$tmp/out" "$tmp/shared.out" ||
        { echo "$np ranks: mpirun -np $shared mpilift detect differs:" >&2;
          diff "$tmp/out" "$tmp/shared.out" >&2; exit 1; }
      # The largest of the processes' peaks is process 0's (it gathers).
      echo "$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}') $(sort -g "$tmp/rss" | tail -1)" >> "$tmp/shared"
      rm -f "$tmp/rss"
    fi
    if [ -n "$jobs" ]; then
      /usr/bin/time -f "%e %M" -o "$tmp/time" "$mpilift" detect --jobs "$jobs" \
        "$tmp/trace" > "$tmp/jobs.out"
      cmp -s "$tmp/out" "$tmp/jobs.out" ||
        { echo "$np ranks: mpilift detect --jobs $jobs differs:" >&2;
          diff "$tmp/out" "$tmp/jobs.out" >&2; exit 1; }
      cat "$tmp/time" >> "$tmp/jobs"
    fi
  done
  rt=$(awk '{print $1}' "$tmp/read" | median)
  rk=$(awk '{print $2}' "$tmp/read" | median)
  if [ "$stopped" = 1 ]; then
    printf "%6s %10s %10.2f %10.1f %10s %10s %12s\n" "$np" "$calls" "$rt" \
      "$(awk -v k="$rk" 'BEGIN {print k / 1024}')" ">$limit" "-" "-"
    continue
  fi
  dt=$(awk '{print $1}' "$tmp/detect" | median)
  dk=$(awk '{print $2}' "$tmp/detect" | median)
  printf "%6s %10s %10.2f %10.1f %10.2f %10.1f %12.0f" "$np" "$calls" "$rt" \
    "$(awk -v k="$rk" 'BEGIN {print k / 1024}')" "$dt" \
    "$(awk -v k="$dk" 'BEGIN {print k / 1024}')" \
    "$(awk -v k="$dk" -v e="$calls" 'BEGIN {print k * 1024 / e}')"
  [ -n "$shared" ] && print_variant "$tmp/shared" "$dt"
  [ -n "$jobs" ] && print_variant "$tmp/jobs" "$dt"
  echo
done
echo "(medians of $reps alternating runs; MB = peak resident memory; read ="
echo " mpilift trace dump, the baseline; targets of issue 16: 1024 ranks x 10^5"
echo " calls in at most 60 s and 8 GiB, at most 100 bytes per call)"
[ -n "$shared" ] && echo "(np $shared = mpirun -np $shared mpilift detect, wall time with the launch, its" &&
  echo " ratio to one process, and the peak of process 0)"
[ -n "$jobs" ] && echo "(-j $jobs = mpilift detect --jobs $jobs, its ratio to one thread, and its peak)"
exit 0
