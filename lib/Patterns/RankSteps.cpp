//===- RankSteps.cpp - Steps taken from a trace rank by rank --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
//
// RankStepCollector: each rank's steps taken as the reader hands the rank
// over, and, for a trace whose ranks several processes read, the steps of
// other processes' ranks with their call sites, numbered at the end as one
// reader of every rank would have numbered them.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/Detect.h"

#include "Search.h"
#include "Streams.h"

#include "mpilift/Dist/Wire.h"

#include "llvm/Support/FormatVariadic.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <cassert>
#include <map>
#include <optional>

namespace mpilift {
namespace patterns {
namespace {

using namespace detail;

/// What the bytes of RankStepCollector::serialize start with.
constexpr uint32_t Magic = 0x5344504d; // "MPDS" in little-endian order.
constexpr uint32_t Version = 1;

/// Releases the events and request records of world rank \p World.
void releaseEvents(trace::Trace &T, int World) {
  std::vector<trace::Event>().swap(T.Ranks[World].Events);
  std::vector<trace::RequestRecord>().swap(T.Ranks[World].Requests);
}

/// Gives the pages of released events back to the system.
void trimHeap() {
#ifdef __GLIBC__
  // The events' arrays came from the heap (glibc raises its mmap threshold
  // as large blocks are freed); give their pages back.
  malloc_trim(0);
#endif
}

/// The call sites one reader of a trace numbered, with its modules.
struct SiteTable {
  std::vector<std::string> Modules;
  std::vector<trace::CallSite> Sites;
};

llvm::Error malformed(const std::string &Why) {
  return llvm::createStringError("the steps another process sent are "
                                 "malformed: " +
                                 Why);
}

} // namespace

struct RankStepCollector::Impl {
  std::optional<CommStreams> Work;
  /// The world ranks taken from this process's trace, in order.
  std::vector<int> Taken;
  /// For each world rank: the table its sites are numbered in (0 for this
  /// process's trace, -1 while no steps are here), and its call sites in
  /// the order it first used them (trace::RankTrace::SiteOrder).
  std::vector<int> TableOf;
  std::vector<std::vector<uint32_t>> SiteOrder;
  /// The site tables of the processes whose steps were added, from 1 on;
  /// entry 0 stands for the trace's own, read when the sites are numbered.
  std::vector<SiteTable> Tables{SiteTable()};

  void start(const trace::Trace &T) {
    if (Work)
      return;
    Work = searchedComms(T);
    TableOf.assign(T.WorldSize, -1);
    SiteOrder.assign(T.WorldSize, {});
  }
};

RankStepCollector::RankStepCollector() : I(std::make_unique<Impl>()) {}
RankStepCollector::~RankStepCollector() = default;

void RankStepCollector::take(trace::Trace &T, int World) {
  I->start(T);
  takeStreams(T, World, *I->Work);
  I->Taken.push_back(World);
  I->TableOf[World] = 0;
  I->SiteOrder[World] = T.Ranks[World].SiteOrder;
  releaseEvents(T, World);
}

std::string RankStepCollector::serialize(const trace::Trace &T) {
  I->start(T);
  dist::WireWriter W;
  W.put(Magic);
  W.put(Version);
  W.put<int32_t>(T.WorldSize);
  W.put<uint64_t>(T.Comms.size());
  W.put<uint64_t>(T.Modules.size());
  for (const std::string &M : T.Modules)
    W.putString(M);
  std::vector<uint32_t> SiteModules;
  std::vector<uint64_t> SiteOffsets;
  for (const trace::CallSite &S : T.Sites) {
    SiteModules.push_back(S.Module);
    SiteOffsets.push_back(S.Offset);
  }
  W.putVector(SiteModules);
  W.putVector(SiteOffsets);
  // All at once: the steps of a long trace are hundreds of megabytes. One
  // byte more for the caller's (SharedDetect.cpp).
  size_t Rest = sizeof(uint64_t) + 1;
  for (int World : I->Taken)
    Rest += sizeof(int32_t) + sizeof(uint64_t) +
            I->SiteOrder[World].size() * sizeof(uint32_t);
  for (const auto &[C, Streams] : *I->Work)
    for (const Stream &S : Streams)
      Rest += S.writtenBytes();
  W.reserve(Rest);
  W.put<uint64_t>(I->Taken.size());
  for (int World : I->Taken) {
    W.put<int32_t>(World);
    W.putVector(I->SiteOrder[World]);
    for (auto &[C, Streams] : *I->Work) {
      int32_t Member = commRank(T.Comms[C], World);
      if (Member < 0)
        continue;
      Streams[Member].write(W);
      Streams[Member] = Stream(); // The bytes hold it now.
    }
  }
  I->Taken.clear();
  return W.take();
}

llvm::Error RankStepCollector::add(const trace::Trace &T,
                                   const std::string &Bytes) {
  I->start(T);
  dist::WireReader R(Bytes);
  uint32_t GotMagic = 0, GotVersion = 0;
  int32_t WorldSize = 0;
  uint64_t Comms = 0, Modules = 0;
  if (!R.get(GotMagic) || GotMagic != Magic || !R.get(GotVersion) ||
      GotVersion != Version)
    return malformed("not steps of this version of mpilift");
  if (!R.get(WorldSize) || !R.get(Comms) || WorldSize != T.WorldSize ||
      Comms != T.Comms.size())
    return malformed("they come from another trace");
  SiteTable Table;
  if (!R.get(Modules))
    return malformed("the bytes end early");
  for (uint64_t M = 0; M < Modules; ++M) {
    Table.Modules.emplace_back();
    if (!R.getString(Table.Modules.back()))
      return malformed("the bytes end early");
  }
  std::vector<uint32_t> SiteModules;
  std::vector<uint64_t> SiteOffsets;
  if (!R.getVector(SiteModules) || !R.getVector(SiteOffsets) ||
      SiteModules.size() != SiteOffsets.size())
    return malformed("the call sites are cut off");
  for (size_t K = 0; K < SiteModules.size(); ++K) {
    if (SiteModules[K] != trace::NoModule && SiteModules[K] >= Modules)
      return malformed("a call site names no module");
    Table.Sites.push_back({SiteModules[K], SiteOffsets[K]});
  }
  int TableIndex = static_cast<int>(I->Tables.size());
  uint64_t Ranks = 0;
  if (!R.get(Ranks))
    return malformed("the bytes end early");
  for (uint64_t K = 0; K < Ranks; ++K) {
    int32_t World = -1;
    if (!R.get(World) || World < 0 || World >= T.WorldSize)
      return malformed("a rank is outside the world");
    if (I->TableOf[World] >= 0)
      return llvm::createStringError(
          llvm::formatv("the steps of rank {0} arrived twice", World).str());
    std::vector<uint32_t> Order;
    if (!R.getVector(Order))
      return malformed("the bytes end early");
    for (uint32_t Site : Order)
      if (Site >= Table.Sites.size())
        return malformed("a rank uses a call site that is not sent");
    for (auto &[C, Streams] : *I->Work) {
      int32_t Member = commRank(T.Comms[C], World);
      if (Member < 0)
        continue;
      Stream S;
      if (!S.read(R))
        return malformed(llvm::formatv("the steps of rank {0} on "
                                       "communicator {1} are cut off",
                                       World, C)
                             .str());
      for (const StepEvent &E : S)
        if ((E.Site != trace::NoSite && E.Site >= Table.Sites.size()) ||
            E.Peer < -1 || E.Peer >= int32_t(Streams.size()))
          return malformed("a step names a call site or peer that does not "
                           "exist");
      Streams[Member] = std::move(S);
    }
    I->TableOf[World] = TableIndex;
    I->SiteOrder[World] = std::move(Order);
  }
  if (!R.atEnd())
    return malformed("bytes are left over");
  I->Tables.push_back(std::move(Table));
  return llvm::Error::success();
}

void RankStepCollector::numberSitesAsOneReader(trace::Trace &T) {
  I->start(T);
  I->Tables[0] = {T.Modules, T.Sites};
  // A reader of every rank numbers a site when it first reads it: ranks in
  // order, each rank's sites in the order it first used them.
  std::map<std::string, uint32_t> ModuleIndex;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> SiteIndex;
  SiteTable Joint;
  std::vector<std::vector<uint32_t>> JointOf(I->Tables.size());
  for (size_t K = 0; K < I->Tables.size(); ++K)
    JointOf[K].assign(I->Tables[K].Sites.size(), trace::NoSite);
  for (int World = 0; World < T.WorldSize; ++World) {
    int Table = I->TableOf[World];
    if (Table < 0)
      continue;
    for (uint32_t Local : I->SiteOrder[World]) {
      uint32_t &Joined = JointOf[Table][Local];
      if (Joined != trace::NoSite)
        continue;
      const trace::CallSite &S = I->Tables[Table].Sites[Local];
      uint32_t Module = trace::NoModule;
      if (S.Module != trace::NoModule) {
        const std::string &Name = I->Tables[Table].Modules[S.Module];
        auto [It, New] = ModuleIndex.try_emplace(Name, Joint.Modules.size());
        if (New)
          Joint.Modules.push_back(Name);
        Module = It->second;
      }
      auto [It, New] =
          SiteIndex.try_emplace({Module, S.Offset}, Joint.Sites.size());
      if (New)
        Joint.Sites.push_back({Module, S.Offset});
      Joined = It->second;
    }
  }
  for (auto &[C, Streams] : *I->Work)
    for (size_t Member = 0; Member < Streams.size(); ++Member) {
      int Table = I->TableOf[T.Comms[C].Members[Member]];
      if (Table >= 0)
        Streams[Member].mapSites(JointOf[Table]);
    }
  for (int World = 0; World < T.WorldSize; ++World) {
    int Table = I->TableOf[World];
    if (Table < 0)
      continue;
    std::vector<uint32_t> &Order = I->SiteOrder[World];
    for (uint32_t &Site : Order)
      Site = JointOf[Table][Site];
    T.Ranks[World].SiteOrder = Order;
    I->TableOf[World] = 0; // Now numbered as the trace's own.
  }
  T.Modules = std::move(Joint.Modules);
  T.Sites = std::move(Joint.Sites);
  I->Tables.assign(1, SiteTable());
}

DetectResult RankStepCollector::detect(const trace::Trace &T,
                                       const DetectOptions &Options) {
  I->start(T); // A trace of no ranks.
  assert(I->Tables.size() == 1 &&
         "added steps are searched once their sites are numbered");
  trimHeap();
  CommStreams Work = std::move(*I->Work);
  I->Work.reset();
  return detectInStreams(T, Options, std::move(Work));
}

} // namespace patterns
} // namespace mpilift
