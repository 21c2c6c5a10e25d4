//===- MessagePieces.cpp - Messages cut where their data has gaps ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The dataflow graph moves bytes from a range of the sender's memory to a
/// range of the receiver's. A message whose datatype leaves gaps is no
/// such range: its data is runs of bytes (Stream::layout), and the sender
/// and the receiver may cut it differently (HPL sends a panel's columns
/// from a matrix and receives them into a packed copy). Cutting both sides
/// wherever either side's runs break gives pieces that are ranges on both
/// sides, the k-th piece of the send carrying what the k-th piece of the
/// receive gets.
///
//===----------------------------------------------------------------------===//

#include "Streams.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace mpilift {
namespace patterns {
namespace detail {

namespace {

/// Where the runs of \p Layout break, as offsets into the message, below
/// \p Bytes.
void addBreaks(llvm::ArrayRef<trace::LayoutRun> Layout, uint64_t Bytes,
               std::vector<uint64_t> &Breaks) {
  uint64_t At = 0;
  for (const trace::LayoutRun &Run : Layout) {
    At += Run.Length;
    if (At >= Bytes)
      return;
    Breaks.push_back(At);
  }
}

/// The pieces of step \p St (with runs \p Layout, or none: one range from
/// its buffer) between the message offsets \p Cuts (ascending, the last
/// the message's size). False when the runs hold fewer bytes.
bool cut(const StepEvent &St, llvm::ArrayRef<trace::LayoutRun> Layout,
         llvm::ArrayRef<uint64_t> Cuts, llvm::SmallVectorImpl<Piece> &Out) {
  uint64_t From = 0;
  size_t Run = 0;
  uint64_t RunStart = 0; // The message offset where Layout[Run] starts.
  for (uint64_t To : Cuts) {
    if (Layout.empty()) {
      Out.push_back({St.Buffer + From, To - From});
    } else {
      while (Run < Layout.size() && RunStart + Layout[Run].Length <= From)
        RunStart += Layout[Run++].Length;
      if (Run == Layout.size() || RunStart + Layout[Run].Length < To)
        return false;
      Out.push_back({St.Buffer + static_cast<uint64_t>(Layout[Run].Offset) +
                         (From - RunStart),
                     To - From});
    }
    From = To;
  }
  return true;
}

} // namespace

bool piecesOf(const std::vector<Stream> &Streams,
              llvm::ArrayRef<std::pair<StepRef, StepRef>> Messages,
              StepPieces &Pieces) {
  Pieces.assign(Streams.size(), {});
  std::vector<uint64_t> Cuts;
  for (const auto &[Send, Recv] : Messages) {
    const Stream &From = Streams[Send.first], &To = Streams[Recv.first];
    llvm::ArrayRef<trace::LayoutRun> SendRuns = From.layout(Send.second),
                                     RecvRuns = To.layout(Recv.second);
    if (SendRuns.empty() && RecvRuns.empty())
      continue;
    StepEvent S = From[Send.second], R = To[Recv.second];
    uint64_t Bytes = std::min(S.Bytes, R.Bytes);
    if (Bytes == 0)
      continue;
    Cuts.clear();
    addBreaks(SendRuns, Bytes, Cuts);
    addBreaks(RecvRuns, Bytes, Cuts);
    std::sort(Cuts.begin(), Cuts.end());
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    Cuts.push_back(Bytes);
    if (!cut(S, SendRuns, Cuts, Pieces[Send.first][Send.second]) ||
        !cut(R, RecvRuns, Cuts, Pieces[Recv.first][Recv.second]))
      return false;
  }
  return true;
}

std::vector<std::pair<StepRef, StepRef>>
messagesInOrder(const std::vector<Stream> &Streams,
                const std::vector<std::vector<size_t>> &Steps) {
  // MPI pairs the k-th send from a to b with tag t with the k-th receive
  // of b from a with t.
  std::map<std::tuple<int32_t, int32_t, int32_t>, std::vector<uint32_t>> Sent;
  for (size_t R = 0; R < Steps.size(); ++R)
    for (size_t K : Steps[R]) {
      StepEvent St = Streams[R][K];
      if (St.P2P && St.Send)
        Sent[{int32_t(R), St.Peer, St.Tag}].push_back(uint32_t(K));
    }
  std::map<std::tuple<int32_t, int32_t, int32_t>, size_t> Taken;
  std::vector<std::pair<StepRef, StepRef>> Out;
  for (size_t R = 0; R < Steps.size(); ++R)
    for (size_t K : Steps[R]) {
      StepEvent St = Streams[R][K];
      if (!St.P2P || St.Send)
        continue;
      std::tuple<int32_t, int32_t, int32_t> Channel{St.Peer, int32_t(R),
                                                    St.Tag};
      auto It = Sent.find(Channel);
      size_t &Next = Taken[Channel];
      if (It == Sent.end() || Next == It->second.size())
        continue;
      Out.push_back({StepRef(St.Peer, It->second[Next++]),
                     StepRef(int32_t(R), uint32_t(K))});
    }
  return Out;
}

bool hasLayouts(const std::vector<Stream> &Streams,
                const std::vector<std::vector<size_t>> &Steps) {
  for (size_t R = 0; R < Steps.size(); ++R)
    for (size_t K : Steps[R])
      if (!Streams[R].layout(K).empty())
        return true;
  return false;
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
