//===- Dump.cpp - Print a trace for people --------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Trace/Dump.h"

#include "mpilift/TraceRuntime/TraceFormat.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpilift {
namespace trace {
namespace {

using mpi::Family;

std::string peerText(int32_t P) {
  switch (P) {
  case AnySource:
    return "any";
  case ProcNull:
    return "null";
  case RootPeer:
    return "root";
  case NoPeer:
    return "?";
  default:
    return std::to_string(P);
  }
}

std::string tagText(int32_t T) {
  return T == AnyTag ? "any" : T == NoTag ? "?" : std::to_string(T);
}

class LinePrinter {
public:
  explicit LinePrinter(llvm::raw_ostream &OS) : OS(OS) {}
  void field(llvm::StringRef Key, const std::string &Value) {
    OS << ' ' << Key << '=' << Value;
  }
  void number(llvm::StringRef Key, uint64_t V) {
    field(Key, std::to_string(V));
  }
  void hex(llvm::StringRef Key, uint64_t V) {
    OS << ' ' << Key << '=' << llvm::format_hex(V, 2);
  }
  void comm(uint32_t C) {
    if (C != NoComm)
      number("comm", C);
  }
  void peer(llvm::StringRef Key, int32_t P) {
    if (P != NoPeer)
      field(Key, peerText(P));
  }
  void buffer(llvm::StringRef Key, uint64_t B) {
    if (B)
      hex(Key, B);
  }
  llvm::raw_ostream &OS;
};

/// " gaps" for data with gaps, and its runs as offset+length where the
/// trace describes them (" gaps=0+400,456+400").
void printGaps(LinePrinter &P, llvm::StringRef Key,
               llvm::ArrayRef<LayoutRun> Runs) {
  P.OS << ' ' << Key;
  for (size_t I = 0; I < Runs.size(); ++I)
    P.OS << (I ? "," : "=") << Runs[I].Offset << '+' << Runs[I].Length;
}

void printSendSide(LinePrinter &P, const RankTrace &R, const Event &E) {
  P.peer("peer", E.Peer);
  P.field("tag", tagText(E.Tag));
  P.comm(E.Comm);
  P.number("bytes", E.Bytes);
  P.buffer("buf", E.Buffer);
  if (E.Flags & traceformat::FlagNoncontiguous)
    printGaps(P, "gaps", R.layoutOf(E, /*Recv=*/false));
  if (E.HasHash)
    P.hex("hash", E.Hash);
}

void printRequests(LinePrinter &P, const Trace &T, int Rank, const Event &E) {
  for (const RequestRecord &R : T.requestsOf(Rank, E)) {
    P.OS << (R.Started     ? " starts"
             : R.Cancelled ? " cancels"
                           : " completes")
         << " req=" << R.Request;
    if (R.PostedBy != NoEvent)
      P.OS << " (#" << R.PostedBy << ")";
    if (R.Peer != NoPeer) {
      P.peer("peer", R.Peer);
      P.field("tag", tagText(R.Tag));
      P.number("bytes", R.Bytes);
    }
    if (R.HasHash)
      P.hex("hash", R.Hash);
  }
}

void printFields(LinePrinter &P, const Trace &T, int Rank, const Event &E) {
  const mpi::FunctionInfo &F = mpi::info(E.Function);
  switch (F.TheFamily) {
  case Family::BlockingSend:
  case Family::NonblockingSend:
  case Family::BlockingRecv:
  case Family::NonblockingRecv:
  case Family::PersistentSendInit:
  case Family::PersistentRecvInit:
    printSendSide(P, T.Ranks[Rank], E);
    if (E.Request)
      P.number("req", E.Request);
    break;
  case Family::SendRecv:
    printSendSide(P, T.Ranks[Rank], E);
    P.peer("recv-peer", E.RecvPeer);
    P.field("recv-tag", tagText(E.RecvTag));
    P.number("recv-bytes", E.RecvBytes);
    P.buffer("recv-buf", E.RecvBuffer);
    if (E.Flags & traceformat::FlagRecvNoncontiguous)
      printGaps(P, "recv-gaps", T.Ranks[Rank].layoutOf(E, /*Recv=*/true));
    if (E.HasRecvHash)
      P.hex("recv-hash", E.RecvHash);
    break;
  case Family::BlockingProbe:
  case Family::NonblockingProbe:
    P.peer("peer", E.Peer);
    P.field("tag", tagText(E.Tag));
    P.comm(E.Comm);
    if (E.Flags & traceformat::FlagFound)
      P.number("bytes", E.Bytes);
    else
      P.OS << " not-found";
    break;
  case Family::Wait:
  case Family::Test:
    if (E.NumRequestRecords == 0)
      P.OS << " none";
    printRequests(P, T, Rank, E);
    break;
  case Family::Start:
  case Family::RequestFree:
  case Family::Cancel:
    if (E.Request)
      P.number("req", E.Request);
    printRequests(P, T, Rank, E);
    break;
  case Family::BlockingCollective:
  case Family::NonblockingCollective:
    P.comm(E.Comm);
    if (mpi::isRooted(F.Collective))
      P.peer("root", E.Root);
    P.number("sent", E.Bytes);
    P.number("received", E.RecvBytes);
    P.buffer("buf", E.Buffer);
    P.buffer("recv-buf", E.RecvBuffer);
    if (E.Request)
      P.number("req", E.Request);
    break;
  case Family::CommCreate:
  case Family::CommFree:
    P.comm(E.Comm);
    if (E.NewComm != NoComm)
      P.number("new-comm", E.NewComm);
    break;
  case Family::Environment:
    if (E.Function == mpi::FunctionId::Pcontrol && E.Tag != NoTag)
      P.number("level", E.Tag);
    if (E.Function == mpi::FunctionId::Abort && E.Tag != NoTag)
      P.field("code", std::to_string(E.Tag));
    break;
  case Family::CommQuery:
    break;
  }
}

std::string membersText(const std::vector<int32_t> &M) {
  std::string S;
  for (int32_t R : M)
    S += (S.empty() ? "" : " ") + std::to_string(R);
  return S;
}

} // namespace

void dumpTrace(const Trace &T, Symbolizer &S, llvm::raw_ostream &OS,
               const DumpOptions &Options,
               std::set<std::string> &SymbolizerErrors) {
  OS << "trace: " << T.Directory << "\n";
  OS << "ranks: " << T.WorldSize;
  if (T.FromMpilift)
    OS << ", " << (T.Complete ? "complete" : "incomplete")
       << ", payload hashes: " << (T.HasPayloadHashes ? "yes" : "no");
  else
    OS << ", foreign archive (no call sites)";
  OS << "\n";
  if (!T.Complete && !T.RankStatus.empty()) {
    OS << "how ranks ended:\n";
    llvm::SmallVector<llvm::StringRef, 8> Lines;
    llvm::StringRef(T.RankStatus).trim().split(Lines, '\n');
    for (llvm::StringRef L : Lines)
      OS << "  rank " << L << "\n";
  }
  OS << "communicators:\n";
  for (size_t C = 0; C < T.Comms.size(); ++C) {
    const Communicator &Comm = T.Comms[C];
    OS << "  " << C << " " << Comm.Name << ": " << membersText(Comm.Members);
    if (Comm.IsInter)
      OS << " | " << membersText(Comm.Remote);
    if (Comm.Parent != NoComm)
      OS << " (from " << Comm.Parent << ")";
    OS << "\n";
  }
  for (const RankTrace &R : T.Ranks) {
    if (Options.Rank && *Options.Rank != R.Rank)
      continue;
    OS << "rank " << R.Rank << ": " << R.Events.size() << " events\n";
    for (size_t I = 0; I < R.Events.size(); ++I) {
      const Event &E = R.Events[I];
      OS << "  #" << I << " " << mpi::info(E.Function).Name;
      if (E.Thread)
        OS << " [thread " << E.Thread << "]";
      LinePrinter P(OS);
      printFields(P, T, R.Rank, E);
      if (E.Site != NoSite) {
        llvm::Expected<SourceLocation> L = S.symbolize(E.Site);
        if (L) {
          OS << " at " << L->File << ":" << L->Line << ":" << L->Column;
        } else {
          SymbolizerErrors.insert(llvm::toString(L.takeError()));
          OS << " at ?";
        }
      }
      if (Options.Times)
        OS << llvm::formatv(" t={0:f3}us dur={1:f3}us", E.Begin / 1000.0,
                            (E.End - E.Begin) / 1000.0);
      OS << "\n";
    }
  }
}

} // namespace trace
} // namespace mpilift
