//===- SpillWriter.h - Spill files as the trace runtime writes -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
//
// For tests that need a trace without running MPI: spill files written
// chunk by chunk, which tracert::convertSpillFiles turns into an archive.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_UNITTESTS_TRACE_SPILLWRITER_H
#define MPILIFT_UNITTESTS_TRACE_SPILLWRITER_H

#include "PackedEvents.h"
#include "RawFormat.h"

#include "mpilift/MPI/Vocabulary.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace mpilift {
namespace testutil {

using namespace rawtrace;

class SpillWriter {
public:
  SpillWriter(const std::string &Dir, int Rank, int Size,
              uint32_t Version = FormatVersion) {
    Path = Dir + "/" + SpillDirName + "/rank-00000" + std::to_string(Rank) +
           ".raw";
    F = fopen(Path.c_str(), "wb");
    RankHeader H;
    memset(&H, 0, sizeof(H));
    H.Version = Version;
    H.Rank = Rank;
    H.Size = Size;
    strcpy(H.Host, "testhost");
    chunk(ChunkType::RankHeader, 0, &H, sizeof(H));
    // One counter tick is one nanosecond.
    calibration(1000, 1000000000);
    calibration(1000000, 1000999000);
    module("/bin/app", 0x1000, 0x2000, 0);
    comm(0, {0, 1, 2});
  }
  ~SpillWriter() {
    if (F)
      fclose(F);
  }

  void chunk(ChunkType T, uint16_t Thread, const void *P, uint32_t Bytes,
             uint32_t Records = 0) {
    ChunkHeader H{ChunkMagic, uint16_t(T), Thread, Bytes, Records};
    fwrite(&H, sizeof(H), 1, F);
    fwrite(P, Bytes, 1, F);
  }
  void calibration(uint64_t Tsc, uint64_t Ns) {
    Calibration C{Tsc, Ns, Ns + 5};
    chunk(ChunkType::Calibration, 0, &C, sizeof(C));
  }
  /// A module as the runtime lists it: path, address range and load bias.
  struct ModuleSpec {
    std::string Name;
    uint64_t Low, High, Bias;
  };
  void module(const std::string &Name, uint64_t Low, uint64_t High,
              uint64_t Bias) {
    modules({{Name, Low, High, Bias}});
  }
  /// The loaded modules, replacing those listed before.
  void modules(const std::vector<ModuleSpec> &List) {
    std::vector<char> P(8, 0);
    uint32_t Count = static_cast<uint32_t>(List.size());
    memcpy(P.data(), &Count, 4);
    for (const ModuleSpec &M : List) {
      ModuleEntry E{M.Bias, M.Low, M.High, uint32_t(M.Name.size()), 0};
      P.insert(P.end(), reinterpret_cast<char *>(&E),
               reinterpret_cast<char *>(&E) + sizeof(E));
      P.insert(P.end(), M.Name.begin(), M.Name.end());
      P.resize((P.size() + 7) & ~size_t(7), 0);
    }
    chunk(ChunkType::Modules, 0, P.data(), uint32_t(P.size()));
  }
  void comm(uint32_t Id, std::vector<int32_t> Members) {
    CommDef D{Id, 0, int32_t(Members.size()), 0};
    std::vector<char> P(reinterpret_cast<char *>(&D),
                        reinterpret_cast<char *>(&D) + sizeof(D));
    P.insert(P.end(), reinterpret_cast<char *>(Members.data()),
             reinterpret_cast<char *>(Members.data() + Members.size()));
    chunk(ChunkType::Comm, 0, P.data(), uint32_t(P.size()));
  }
  /// One chunk of \p Es, packed as a full buffer is (Packed) or as a
  /// crash leaves them.
  void events(const std::vector<Event> &Es, uint16_t Thread = 0) {
    if (!Packed) {
      chunk(ChunkType::Events, Thread, Es.data(),
            uint32_t(Es.size() * sizeof(Event)));
      return;
    }
    std::vector<uint8_t> P(Es.size() * MaxPackedRecordBytes);
    size_t Bytes = packEvents(Es.data(), uint32_t(Es.size()), P.data());
    chunk(ChunkType::PackedEvents, Thread, P.data(), uint32_t(Bytes),
          uint32_t(Es.size()));
  }
  void footer(EndReason R, int Detail = 0) {
    Footer Ft{uint32_t(R), Detail, 0};
    chunk(ChunkType::Footer, 0, &Ft, sizeof(Ft));
  }
  void garbage(size_t N) {
    std::vector<char> G(N, 'x');
    fwrite(G.data(), 1, N, F);
  }

  std::string Path;
  bool Packed = false;

private:
  FILE *F;
};

inline Event call(mpi::FunctionId F, uint64_t Begin, int32_t Peer, int32_t Tag,
                  uint32_t Comm, uint64_t Bytes, uint64_t Handle = 0) {
  Event E;
  memset(&E, 0, sizeof(E));
  E.Begin = Begin;
  E.End = Begin + 50;
  E.CallSite = 0x1234;
  E.Buffer = 0xb000;
  E.Bytes = Bytes;
  E.Handle = Handle;
  E.Peer = Peer;
  E.Tag = Tag;
  E.Comm = Comm;
  E.Function = uint16_t(F);
  E.Kind = uint8_t(EventKind::Call);
  return E;
}

inline Event part(EventKind K, uint64_t Handle, int32_t Peer = PeerNone,
                  int32_t Tag = TagNone, uint64_t Bytes = 0) {
  Event E;
  memset(&E, 0, sizeof(E));
  E.Kind = uint8_t(K);
  E.Handle = Handle;
  E.Peer = Peer;
  E.Tag = Tag;
  E.Bytes = Bytes;
  E.Comm = CommNone;
  return E;
}

} // namespace testutil
} // namespace mpilift

#endif // MPILIFT_UNITTESTS_TRACE_SPILLWRITER_H
