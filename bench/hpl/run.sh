#!/usr/bin/env bash
# bench/hpl: HPL 2.3 end to end, the acceptance test of issue 19. Builds a
# copy of the user's HPL tree with `mpicc -g -O2 -fno-optimize-sibling-calls`
# and Debian's OpenBLAS under bear, then for each panel broadcast variant
# (HPL.dat BCAST 0-5) on a 1x4 grid: traces xhpl, runs `mpilift detect`,
# runs `mpilift check --trace --collectives nonblocking --fix` on the
# broadcast's file and the grid routines, and, where something was
# rewritten, rebuilds and runs the rewritten xhpl on 1x4, 1x3, 2x3 and 1x5
# grids. Prints one line per variant: what detect found on the row, what
# check did (or the check that refused and why), HPL's residual checks,
# and the original's Gflops (median of REPS runs; the rewritten one's in
# alternating runs when there is one).
# HPL is not part of this repository: bring your own tree.
# Usage: bash bench/hpl/run.sh HPL_SOURCE_DIR [BUILD_DIR] [REPS]
# MPILIFT_HPL_KEEP=1 keeps the work directory (printed) for a look.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$(cd "${1:?usage: bench/hpl/run.sh HPL_SOURCE_DIR [BUILD_DIR] [REPS]}" && pwd)
build=$(cd "${2:-$root/build}" && pwd)
reps=${3:-5}
mpilift=$build/bin/mpilift
run=$build/bin/mpilift-run
if ! [ -x "$mpilift" ] || ! [ -x "$run" ]; then
  echo "build mpilift first: cmake --build $build" >&2
  exit 2
fi
if ! [ -f "$src/setup/Make.Linux_PII_CBLAS" ] || ! [ -d "$src/src/comm" ]; then
  echo "'$src' is not an HPL 2.3 source tree" >&2
  exit 2
fi

# What this script needs beyond mpilift's own dependencies.
need=()
command -v bear > /dev/null || need+=(bear)
[ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] ||
  [ -e /usr/lib/aarch64-linux-gnu/libopenblas.so ] || need+=(libopenblas-dev)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" > /dev/null
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun --oversubscribe --bind-to none"
work=$(mktemp -d /tmp/mpilift-hpl.XXXXXX)
[ -z "${MPILIFT_HPL_KEEP:-}" ] || echo "work directory: $work"
[ -n "${MPILIFT_HPL_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
flags="-g -O2 -fno-optimize-sibling-calls"

# A Make.<arch> for this machine, from HPL's own Linux template.
configure() { # TREE
  sed -e "s|^ARCH .*|ARCH = mpilift|" -e "s|^TOPdir .*|TOPdir = $1|" \
    -e "s|^MPdir .*|MPdir =|" -e "s|^MPinc .*|MPinc =|" -e "s|^MPlib .*|MPlib =|" \
    -e "s|^LAdir .*|LAdir =|" -e "s|^LAlib .*|LAlib = -lopenblas|" \
    -e "s|^CC .*|CC = mpicc|" -e "s|^LINKER .*|LINKER = mpicc|" \
    -e "s|^CCFLAGS .*|CCFLAGS = \$(HPL_DEFS) $flags|" \
    "$1/setup/Make.Linux_PII_CBLAS" > "$1/Make.mpilift"
}

build_hpl() { # TREE [bear]
  (cd "$1" && make arch=mpilift clean_arch_all > /dev/null 2>&1 || true
   if [ "${2:-}" = bear ]; then
     bear --output "$1/compile_commands.json" -- make arch=mpilift > "$1/build.log" 2>&1
   else
     make arch=mpilift > "$1/build.log" 2>&1
   fi) || { echo "HPL did not build: see $1/build.log" >&2; exit 1; }
}

# HPL.dat for one problem: N 1500, NB 64, a P x Q grid, one BCAST, depth 1.
hpl_dat() { # DIR P Q BCAST
  cat > "$1/HPL.dat" <<EOF
HPLinpack benchmark input file
mpilift bench/hpl
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
1500         Ns
1            # of NBs
64           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$2           Ps
$3           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
$4           BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
EOF
}

# Runs xhpl of TREE on a P x Q grid; prints "PASSED Gflops" or "FAILED -".
run_hpl() { # TREE P Q BCAST
  local dir out
  dir=$(mktemp -d "$work/run.XXXXXX")
  hpl_dat "$dir" "$2" "$3" "$4"
  out=$(cd "$dir" && $mpi -np $(($2 * $3)) "$1/bin/mpilift/xhpl" 2>&1) || true
  if grep -q "PASSED" <<< "$out" && ! grep -q "FAILED" <<< "$out"; then
    echo "PASSED $(awk '/^WR/ {print $7; exit}' <<< "$out")"
  else
    echo "FAILED -"
  fi
}

. "$root/bench/common/median.sh"

orig=$work/hpl
cp -r "$src" "$orig"
configure "$orig"
build_hpl "$orig" bear

names=(1ring 1rinM 2ring 2rinM blong blonM)
printf "%-6s | %-34s | %-60s | %-22s | %s\n" variant "detect (row communicator)" check \
  "residual checks" "Gflops original / rewritten"
for b in 0 1 2 3 4 5; do
  v=${names[$b]}
  dir=$work/trace.$b
  mkdir -p "$dir"
  hpl_dat "$dir" 1 4 "$b"
  (cd "$dir" && $mpi -np 4 "$run" -o "$dir/tr" -- "$orig/bin/mpilift/xhpl" > "$dir/xhpl.out" 2>&1) ||
    { echo "$v: the traced run failed: $dir/xhpl.out" >&2; exit 1; }
  # The row communicator's patterns at the variant's own file.
  found=$("$mpilift" detect "$dir/tr" | awk -v f="HPL_$v.c" '
    /^  [a-z]/ {head = $1 " " $2; next}
    index($0, f) && !(head in seen) {seen[head]; list = list (list ? ", " : "") head}
    END {print (list ? list : "nothing")}')

  copy=$work/rewrite.$b
  rm -rf "$copy"
  cp -r "$orig" "$copy"
  sed -i "s|$orig|$copy|g" "$copy/compile_commands.json"
  configure "$copy"
  files=("src/comm/HPL_$v.c" src/grid/HPL_broadcast.c src/grid/HPL_reduce.c
    src/grid/HPL_all_reduce.c)
  report=$(cd "$copy" && "$mpilift" check -p "$copy" --trace "$dir/tr" \
    --collectives nonblocking --fix "${files[@]}" 2>&1) || true
  changed=()
  for f in "${files[@]}"; do
    cmp -s "$orig/$f" "$copy/$f" || changed+=("$f")
  done
  line=$(grep -m1 "HPL_$v.c:.*warning:" <<< "$report" || true)
  if [ ${#changed[@]} -gt 0 ]; then
    what="rewritten: ${changed[*]##*/}"
  elif [ -n "$line" ]; then
    why=$(grep -A20 -m1 "HPL_$v.c:.*warning:" <<< "$report" | grep -m1 "note:" |
      sed 's/.*note: //')
    what="refused: ${why:-${line#*not rewritten: }}"
  else
    what="nothing reported"
  fi

  plain=()
  for _ in $(seq "$reps"); do
    r=$(run_hpl "$orig" 1 4 "$b")
    plain+=("${r#* }")
  done
  residuals="original $(run_hpl "$orig" 1 4 "$b" | cut -d' ' -f1)"
  rewritten=-
  if [ ${#changed[@]} -gt 0 ]; then
    build_hpl "$copy"
    for grid in "1 4" "1 3" "2 3" "1 5"; do
      read -r p q <<< "$grid"
      residuals="$residuals, ${p}x$q $(run_hpl "$copy" "$p" "$q" "$b" | cut -d' ' -f1)"
    done
    new=()
    for _ in $(seq "$reps"); do # Alternating with the original's runs.
      r=$(run_hpl "$orig" 1 4 "$b"); plain+=("${r#* }")
      r=$(run_hpl "$copy" 1 4 "$b"); new+=("${r#* }")
    done
    rewritten=$(printf "%s\n" "${new[@]}" | median)
  fi
  printf "%-6s | %-34s | %-60s | %-22s | %s / %s\n" "$v" "$found" "$what" \
    "$residuals" "$(printf "%s\n" "${plain[@]}" | median)" "$rewritten"
done
echo "(N 1500, NB 64, depth 1, 1x4 grid; Gflops: medians of $reps runs on $(nproc) cores)"
