#!/usr/bin/env bash
# Builds the libFuzzer target for spill files and the trace reader with
# clang 19 (AddressSanitizer + libFuzzer), then runs it.
# Usage: bash scripts/fuzz.sh [BUILD_DIR] [libFuzzer options...]
# e.g.   bash scripts/fuzz.sh build -max_total_time=600
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
clang=/usr/lib/llvm-19/bin/clang++
[ -x "$clang" ] || { echo "fuzz.sh: needs clang-19" >&2; exit 2; }
out=$build/fuzz
mkdir -p "$out" "$out/corpus"
if [ ! -x "$out/spill-file-fuzzer" ] || [ -n "$(find "$root/trace-runtime" "$root/lib" "$root/include" "$root/unittests/Fuzz" -newer "$out/spill-file-fuzzer" -name '*.[ch]*' | head -1)" ]; then
  "$clang" -std=c++17 -g -O1 -fsanitize=fuzzer,address \
    -I"$root/include" -I"$root/trace-runtime" $(/usr/lib/llvm-19/bin/llvm-config --cxxflags | sed 's/-fno-exceptions//; s/-std=c++17//') \
    "$root/unittests/Fuzz/SpillFileFuzzer.cpp" \
    "$root"/trace-runtime/{Converter,SpillFile,RankWriter,ArchiveDefinitions,PackedEvents}.cpp \
    "$root/lib/MPI/Vocabulary.cpp" "$root/lib/Trace/TraceReader.cpp" \
    -L/usr/lib/llvm-19/lib -lLLVM-19 -lotf2 -Wl,-rpath,/usr/lib/llvm-19/lib \
    -o "$out/spill-file-fuzzer"
fi
python3 "$root/unittests/Fuzz/make_seeds.py" \
  "$root/include/mpilift/MPI/MPIFunctions.def" "$out/corpus"
exec "$out/spill-file-fuzzer" "$out/corpus" "$@"
