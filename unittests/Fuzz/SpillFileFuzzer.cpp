//===- SpillFileFuzzer.cpp - libFuzzer target for spill files and reader --===//
//
// The fuzz input is the body of one rank's spill file, after a valid header,
// clock calibration and MPI_COMM_WORLD definition, so that the fuzzer spends
// its time on chunks and event records rather than on the first magic number.
// Whatever the converter accepts is then read back. Neither may crash; both
// may refuse with a message. Built by scripts/fuzz.sh.
//
//===----------------------------------------------------------------------===//

#include "RawFormat.h"

#include "mpilift/Trace/Trace.h"
#include "mpilift/TraceRuntime/Convert.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace mpilift;
using namespace mpilift::rawtrace;

namespace {

void chunk(FILE *F, ChunkType T, const void *P, uint32_t Bytes) {
  ChunkHeader H{ChunkMagic, uint16_t(T), 0, Bytes, 0};
  fwrite(&H, sizeof(H), 1, F);
  fwrite(P, Bytes, 1, F);
}

void writePrologue(FILE *F) {
  RankHeader H;
  memset(&H, 0, sizeof(H));
  H.Version = FormatVersion;
  H.Size = 2;
  strcpy(H.Host, "fuzz");
  chunk(F, ChunkType::RankHeader, &H, sizeof(H));
  Calibration C1{1000, 1000, 2000}, C2{2000000, 2001000, 2002000};
  chunk(F, ChunkType::Calibration, &C1, sizeof(C1));
  chunk(F, ChunkType::Calibration, &C2, sizeof(C2));
  struct {
    CommDef D;
    int32_t Members[2];
  } World = {{0, 0, 2, 0}, {0, 1}};
  chunk(F, ChunkType::Comm, &World, sizeof(World));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static std::string Dir = [] {
    llvm::SmallString<128> D;
    if (llvm::sys::fs::createUniqueDirectory("mpilift-fuzz", D))
      abort();
    return std::string(D);
  }();
  llvm::sys::fs::remove_directories(Dir);
  llvm::sys::fs::create_directories(Dir + "/" + SpillDirName);
  FILE *F =
      fopen((Dir + "/" + SpillDirName + "/rank-000000.raw").c_str(), "wb");
  if (!F)
    abort();
  writePrologue(F);
  fwrite(Data, 1, Size, F);
  fclose(F);
  tracert::ConvertResult R = tracert::convertSpillFiles(Dir);
  if (R.Ok) {
    llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
    if (!T)
      llvm::consumeError(T.takeError());
  }
  return 0;
}
