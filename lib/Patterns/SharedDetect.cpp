//===- SharedDetect.cpp - mpilift detect on several processes -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/SharedDetect.h"

#include "mpilift/Dist/ThreadGroup.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <thread>

namespace mpilift {
namespace patterns {
namespace {

/// The last byte of what a process sends process 0: whether the rest is
/// its steps (RankStepCollector::serialize) or why it has none.
enum : char { ShareSteps = 1, ShareFailure = 0 };

/// What a process sends process 0: the steps of its ranks (taken into
/// \p Steps as \p T was read), or why it could not read them.
std::string shareOf(llvm::Expected<trace::Trace> &T, RankStepCollector &Steps) {
  std::string Share;
  if (T) {
    Share = Steps.serialize(*T);
    Share.push_back(ShareSteps);
  } else {
    Share = llvm::toString(T.takeError());
    Share.push_back(ShareFailure);
  }
  return Share;
}

/// Adds the share the member named \p From sent to \p Steps; an error
/// says why not.
llvm::Error addShare(const std::string &From, std::string Share,
                     const trace::Trace &T, RankStepCollector &Steps) {
  auto failed = [&](const std::string &Why) {
    return llvm::createStringError(llvm::formatv("{0}: {1}", From, Why).str());
  };
  if (Share.empty())
    return failed("it sent nothing");
  char Kind = Share.back();
  Share.pop_back();
  if (Kind == ShareFailure)
    return failed(Share);
  if (llvm::Error E = Steps.add(T, Share))
    return failed(llvm::toString(std::move(E)));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::optional<SharedDetectResult>>
detectOnProcesses(llvm::StringRef Dir, dist::ProcessGroup &Group,
                  const DetectOptions &Options) {
  int Me = Group.rank(), Size = Group.size();
  // Spill files are converted once, by process 0, before anyone reads.
  bool Recovered = false;
  std::string NotPrepared;
  if (Me == 0)
    if (llvm::Expected<std::string> Anchor =
            trace::prepareTrace(Dir, &Recovered);
        !Anchor)
      NotPrepared = llvm::toString(Anchor.takeError());
  llvm::Expected<int> Prepared = Group.broadcast(NotPrepared.empty());
  if (!Prepared)
    return Prepared.takeError();
  if (!*Prepared) {
    if (Me == 0)
      return llvm::createStringError(NotPrepared);
    return std::nullopt; // Process 0 says why.
  }

  RankStepCollector Steps;
  llvm::Expected<trace::Trace> T = trace::readTrace(
      Dir, nullptr, [&](trace::Trace &T, int Rank) { Steps.take(T, Rank); },
      [&](int Rank) { return Rank % Size == Me; });
  if (Me != 0) {
    if (llvm::Error E = Group.sendToFirst(shareOf(T, Steps)))
      return std::move(E);
    return std::nullopt;
  }

  // Every process's share is received, even after a failure: a process
  // whose send is not received cannot finish.
  std::optional<llvm::Error> Failure;
  if (!T)
    Failure = T.takeError();
  for (int From = 1; From < Size; ++From) {
    llvm::Expected<std::string> Share = Group.receiveFrom(From);
    if (!Share) {
      if (Failure)
        llvm::consumeError(std::move(*Failure));
      return Share.takeError();
    }
    if (Failure)
      continue;
    if (llvm::Error E =
            addShare(Group.memberName(From), std::move(*Share), *T, Steps))
      Failure = std::move(E);
  }
  if (Failure)
    return std::move(*Failure);
  Steps.numberSitesAsOneReader(*T);
  SharedDetectResult Out;
  Out.Result = Steps.detect(*T, Options);
  Out.Trace = std::move(*T);
  Out.Recovered = Recovered;
  return Out;
}

llvm::Expected<SharedDetectResult>
detectOnThreads(llvm::StringRef Dir, int Threads,
                const DetectOptions &Options) {
  std::vector<std::unique_ptr<dist::ProcessGroup>> Group =
      dist::makeThreadGroup(std::max(Threads, 1));
  // A thread that shares the reading fails only if member 0 cannot be
  // reached, which in one process cannot happen; its error is kept anyway.
  std::vector<std::string> Failures(Group.size());
  std::vector<std::thread> Readers;
  for (size_t Member = 1; Member < Group.size(); ++Member)
    Readers.emplace_back([&, Member] {
      auto Done = detectOnProcesses(Dir, *Group[Member], Options);
      if (!Done)
        Failures[Member] = llvm::toString(Done.takeError());
    });
  auto Result = detectOnProcesses(Dir, *Group[0], Options);
  for (std::thread &Reader : Readers)
    Reader.join();
  for (const std::string &Why : Failures)
    if (!Why.empty()) {
      if (!Result)
        llvm::consumeError(Result.takeError());
      return llvm::createStringError(Why);
    }
  if (!Result)
    return Result.takeError();
  assert(*Result && "member 0 ends with the patterns");
  return std::move(**Result);
}

} // namespace patterns
} // namespace mpilift
