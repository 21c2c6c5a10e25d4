//===- CollectiveJudge.cpp - Which collective a region implements ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "JudgeImpl.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;
namespace cg = mpilift::commgraph;

namespace mpilift {
namespace analysis {
namespace judge {


bool Judge::evaluate(int64_t P, ArrayRef<int64_t> Setting,
                     std::vector<RankRun> &Out, bool &Skip) {
  Skip = false;
  // The runs of the last evaluation lend their memory to this one's.
  Out.resize(P);
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    Eval.run(Rank, P, Setting, Out[Rank]);
    ++Runs;
    const RankRun &Run = Out[Rank];
    Deciding |= Run.DecidingInputs;
    Sizing |= Run.CountInputs;
    if (!Run.Stopped)
      continue;
    Out.resize(Rank + 1); // No stale run of another size stays behind.
    const eval::Reason &Why = *Run.Stopped;
    // An input taking a value the program never gives it (a root past the
    // last rank) is no counter-example.
    if (Why.MissingPeer && (Run.DecidingInputs & Run.ReadInputs)) {
      Skip = true;
      return false;
    }
    refuse(checkOfStop(Why),
           Why.MissingPeer ? "at " + processes(P) + ", " + Why.Text : Why.Text,
           Why.Loc);
    return false;
  }
  return sameCommunicator(P, Out);
}

/// Whether the run's messages use a communicator that can be compared
/// with another run's: a handle (an object) or an integer.
static bool comparableCommunicator(const RankRun &Run) {
  return Run.Comm &&
         (Run.Comm->isInt() ||
          (Run.Comm->isPointer() && Run.Comm->Obj < Run.Objects.size()));
}

/// Whether two ranks' runs use the same communicator. Object ids are per
/// run: a handle is compared by the name of its object.
static bool sameHandle(const RankRun &A, const RankRun &B) {
  const eval::Value &X = *A.Comm, &Y = *B.Comm;
  if (X.isInt() || Y.isInt())
    return X.isInt() && Y.isInt() && X.I == Y.I;
  return X.I == Y.I && A.Objects[X.Obj].Name == B.Objects[Y.Obj].Name;
}

/// The communicator argument of the first MPI call of \p Run that has one.
static const Expr *firstCommArgument(const RankRun &Run) {
  for (const RankOp &Op : Run.Ops)
    if (const Expr *Comm =
            Op.Call ? mpiArgAsWritten(Op.Call, mpi::Role::Comm) : nullptr)
      return Comm;
  return nullptr;
}

bool Judge::sameCommunicator(int64_t P, const std::vector<RankRun> &Runs) {
  int64_t FirstRank = -1;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    if (!comparableCommunicator(Runs[Rank]))
      continue;
    if (FirstRank < 0) {
      FirstRank = Rank;
      continue;
    }
    if (!sameHandle(Runs[FirstRank], Runs[Rank])) {
      // Name the two communicators as the calls spell them.
      const Expr *A = firstCommArgument(Runs[FirstRank]);
      const Expr *B = firstCommArgument(Runs[Rank]);
      const ASTContext &Ctx = TU.context();
      std::string Which =
          A && B ? " on '" + sourceText(A, Ctx) + "' and rank " +
                       std::to_string(Rank) + " on '" + sourceText(B, Ctx) + "'"
                 : " on another communicator than rank " + std::to_string(Rank);
      refuse(SafetyCheck::MatchingArguments,
             "at " + processes(P) + ", rank " + std::to_string(FirstRank) +
                 " communicates" + Which +
                 "; one collective call has one communicator",
             B ? B->getBeginLoc() : regionLoc());
      // What the messages would form on one communicator names the
      // refusal.
      if (!V.Looks && !Looking)
        lookAt(P, Runs);
      return false;
    }
  }
  return true;
}

/// Which ranks of 0 .. \p P - 1 are outside \p Group, as a reader says it
/// ("rank 3 takes no part", "ranks 4, 5, 6 and 2 more take no part").
static std::string absentRanks(const std::vector<cg::Rank> &Group, int64_t P) {
  std::vector<int64_t> Out;
  for (int64_t Rank = 0; Rank < P; ++Rank)
    if (!std::binary_search(Group.begin(), Group.end(),
                            static_cast<cg::Rank>(Rank)))
      Out.push_back(Rank);
  std::string Text = Out.size() == 1 ? "rank " : "ranks ";
  size_t Shown = std::min<size_t>(Out.size(), 3);
  for (size_t I = 0; I < Shown; ++I) {
    if (I > 0)
      Text += I + 1 == Out.size() ? " and " : ", ";
    Text += std::to_string(Out[I]);
  }
  if (Out.size() > Shown)
    Text += " and " + std::to_string(Out.size() - Shown) + " more";
  return Text + (Out.size() == 1 ? " takes no part" : " take no part");
}

/// The collective the messages of detection \p D at \p P processes look
/// like when they form none a call can replace: one collective over a
/// part of the processes (three at least: a single message is none), or
/// collectives over all of them, with no other transfers. A ring shift
/// (every rank sends to one neighbour) looks like nothing.
static std::optional<ManualKind> resemblance(int64_t P,
                                             const cg::Detection &D) {
  if (D.Collectives.empty() || !D.Residual.empty())
    return std::nullopt;
  const cg::Collective &C = D.Collectives[0];
  if (D.Collectives.size() == 1)
    return C.Group.size() >= 3 ? resembledKind(C.Kind) : std::nullopt;
  for (const cg::Collective &Other : D.Collectives)
    if (!Other.onAllProcesses(static_cast<cg::Rank>(P)) || Other.Kind != C.Kind)
      return std::nullopt;
  return resembledKind(C.Kind);
}

/// Why the detection \p D at \p P processes is not one collective of all
/// of them that a call can replace; nothing when it is.
static std::optional<Refusal> notOneCollective(int64_t P,
                                               const cg::Detection &D) {
  auto Noun = [](cg::CollectiveKind K) {
    std::optional<ManualKind> Kind = resembledKind(K);
    return withArticle(Kind ? collectiveNoun(*Kind).str() : cg::name(K));
  };
  std::string At = "at " + processes(P) + " the messages form ";
  if (D.Collectives.empty())
    return Refusal{SafetyCheck::ScaleIndependence, At + "no collective", {}};
  const cg::Collective &C = D.Collectives[0];
  if (D.Collectives.size() > 1 && resemblance(P, D))
    return Refusal{SafetyCheck::ScaleIndependence,
                   At + std::to_string(D.Collectives.size()) + " " +
                       collectiveNoun(*resembledKind(C.Kind)).str() +
                       "s; one collective call replaces one of them",
                   {}};
  if (D.Collectives.size() != 1 || !D.Residual.empty())
    return Refusal{SafetyCheck::ScaleIndependence,
                   At + "no single collective (" +
                       std::to_string(D.Collectives.size()) +
                       " collectives and " + std::to_string(D.Residual.size()) +
                       " other transfers)",
                   {}};
  if (!C.onAllProcesses(static_cast<cg::Rank>(P)))
    return Refusal{SafetyCheck::ScaleIndependence,
                   At + Noun(C.Kind) + " over " +
                       std::to_string(C.Group.size()) + " of them; " +
                       absentRanks(C.Group, P),
                   {}};
  if (C.Parts != 1)
    return Refusal{SafetyCheck::ScaleIndependence,
                   At + Noun(C.Kind) + " of " + std::to_string(C.Parts) +
                       " separate blocks",
                   {}};
  if (C.Kind == cg::CollectiveKind::Allgatherv ||
      C.Kind == cg::CollectiveKind::Alltoallv)
    return Refusal{SafetyCheck::MatchingArguments,
                   At + withArticle(cg::name(C.Kind)) +
                       ": the ranks' blocks differ in size, and the v forms "
                       "of the allgather and the alltoall are not rewritten "
                       "yet",
                   {}};
  if (!resembledKind(C.Kind))
    return Refusal{SafetyCheck::ScaleIndependence,
                   At + withArticle(cg::name(C.Kind)) +
                       ", which no hand-written form is rewritten to",
                   {}};
  return std::nullopt;
}

/// The index of \p Run's last message (0 when it has none).
static size_t lastMessage(const RankRun &Run) {
  size_t Last = 0;
  for (size_t Index = 0; Index < Run.Ops.size(); ++Index)
    if ((Run.Ops[Index].K == RankOp::Kind::Send ||
         Run.Ops[Index].K == RankOp::Kind::Recv) &&
        !Run.Ops[Index].SelfCopy)
      Last = Index;
  return Last;
}

/// The allocated block the pointer in \p Obj points to the start of at
/// the end of \p Run, if any.
static std::optional<eval::ObjectId> heapBlockAt(const RankRun &Run,
                                                 eval::ObjectId Obj) {
  const eval::Object &Pointer = Run.Objects[Obj];
  const auto *Cell = Pointer.Cells.find(0);
  if (Cell == Pointer.Cells.end() || !Cell->second.V.isPointer() ||
      Cell->second.V.I != 0 || Cell->second.V.Obj == eval::NullObject ||
      Cell->second.V.Obj >= Run.Objects.size() ||
      !Run.Objects[Cell->second.V.Obj].Allocated)
    return std::nullopt;
  return Cell->second.V.Obj;
}

std::optional<Observation> Judge::observe(int64_t P,
                                          const std::vector<RankRun> &Runs) {
  cg::Graph G(static_cast<cg::Rank>(P));
  bool Any = false;
  // A region that combines data from messages is judged as a reduction:
  // its work buffers, dead after it, are scratch like its own temporaries.
  // A rank that folds its own data into what it received and sends nothing
  // more only changes its copy (`p[0] += w;` after a broadcast).
  // Once a reduction, a reduction (two processes may not tell).
  bool Combines = (Reference && isReduction(*Reference)) ||
                  llvm::any_of(Runs, [](const RankRun &Run) {
                    size_t Last = lastMessage(Run);
                    for (size_t I = 0; I < Run.Ops.size(); ++I)
                      if (Run.Ops[I].K == RankOp::Kind::Combine &&
                          (Run.Ops[I].FromCarried || I < Last))
                        return true;
                    return false;
                  });
  // The op behind each operation of the graph, in the graph's order.
  std::vector<std::pair<int64_t, const RankOp *>> Global;
  std::optional<uint64_t> TypeSize;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    const RankRun &Run = Runs[Rank];
    cg::LocalGraph L(static_cast<cg::Rank>(Rank));
    std::vector<uint32_t> LocalId(Run.Ops.size(), UINT32_MAX);
    // What the rank writes after its last message runs after the
    // collective as well: it is no part of what the collective moves.
    size_t LastMessage = lastMessage(Run);
    for (size_t Index = 0; Index < Run.Ops.size(); ++Index) {
      const RankOp &Op = Run.Ops[Index];
      // A combine after the rank's last message may as well be a step
      // after the collective (`total /= size` at a reduction's root): the
      // judge tries that when the region is no reduction with it.
      if (Op.K == RankOp::Kind::Marker ||
          (Op.K == RankOp::Kind::Local && Index > LastMessage) ||
          (Op.K == RankOp::Kind::Combine &&
           (DropTrailingCombines || !Combines) && Index > LastMessage))
        continue;
      Global.push_back({Rank, &Op});
      if (Op.Offset < 0 || static_cast<uint64_t>(Op.Offset) > OffsetMask) {
        refuse(SafetyCheck::MessageIntegrity,
               "a buffer lies before the start of " +
                   Run.Objects[Op.Object].Name,
               Op.Site->getBeginLoc());
        return std::nullopt;
      }
      cg::Address A = addressOf(Op.Object, Op.Offset);
      uint32_t Id = UINT32_MAX;
      switch (Op.K) {
      case RankOp::Kind::Send:
        Id = L.addSend(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Recv:
        Id = L.addRecv(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Local:
      case RankOp::Kind::Marker:
        if (Combines && Op.CopyOf) {
          // `total = local;`: to a reduction, a copy of what it reads.
          int32_t Tag = -2000000 - static_cast<int32_t>(Index);
          uint32_t Out = L.addSend(addressOf(Op.FromObject, Op.FromOffset),
                                   Op.Bytes, static_cast<cg::Rank>(Rank), Tag);
          for (uint32_t Before : Op.After)
            if (LocalId[Before] != UINT32_MAX)
              L.addDependency(LocalId[Before], Out);
          Global.push_back({Rank, &Op}); // The receiving half.
          Id = L.addRecv(A, Op.Bytes, static_cast<cg::Rank>(Rank), Tag);
          break;
        }
        Id = L.addLocal(A, Op.Bytes);
        break;
      case RankOp::Kind::Combine:
        if (!Combines) {
          Id = L.addLocal(A, Op.Bytes);
          break;
        }
        Id = L.addCombine(A, addressOf(Op.FromObject, Op.FromOffset), Op.Bytes,
                          Op.CombineOp, static_cast<uint32_t>(Op.Bytes),
                          tieRule(Op.Ties));
        break;
      }
      LocalId[Index] = Id;
      for (uint32_t Before : Op.After)
        if (LocalId[Before] != UINT32_MAX)
          L.addDependency(LocalId[Before], Id);
      if (Op.Call && !FirstCall)
        FirstCall = Op.Call;
      if (Op.Call && Op.TypeSize) {
        if (TypeSize && *TypeSize != Op.TypeSize) {
          refuse(SafetyCheck::MatchingArguments,
                 "the calls use datatypes of different sizes",
                 Op.Call->getBeginLoc());
          return std::nullopt;
        }
        TypeSize = Op.TypeSize;
      }
      Any |= !Op.SelfCopy &&
             (Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv);
    }
    for (eval::ObjectId Obj = 1; Obj < Run.Objects.size(); ++Obj) {
      const auto *Var = dyn_cast_or_null<clang::VarDecl>(Run.Objects[Obj].Decl);
      if (Run.Objects[Obj].Temporary ||
          (Combines && Var && deadAfterRegion().count(Var)))
        L.addScratch(addressOf(Obj, 0), OffsetMask);
      // The block a work pointer holds (allocated before the region, freed
      // after it).
      if (Combines && Var && scratchPointers().count(Var))
        if (std::optional<eval::ObjectId> Block = heapBlockAt(Run, Obj))
          L.addScratch(addressOf(*Block, 0), OffsetMask);
    }
    if (cg::Status S = G.add(L); !S.ok()) {
      refuse(SafetyCheck::ScaleIndependence,
             "at " + processes(P) + ", " + S.Message, regionLoc());
      return std::nullopt;
    }
  }
  if (!Any)
    return std::nullopt; // Nothing moves (one process, or nothing sent).
  // A reduction passes on other data at every step: what it forms says
  // whether that is right.
  if (!Combines && changesMessage(P, Runs))
    return std::nullopt;
  cg::Matching M;
  if (cg::Status S = cg::match(G, M); !S.ok()) {
    bool Sizes = S.Message.find("differ in size") != std::string::npos;
    // A program may rely on MPI buffering its blocking sends (a rank that
    // sends to itself, all sends before the receives): try that once.
    if (!Sizes && !Buffered) {
      RetryBuffered = true;
      return std::nullopt;
    }
    auto Call = [&](const RankOp *Op) {
      return Op->Site ? Op->Site->getBeginLoc() : regionLoc();
    };
    auto Describe = [&](cg::OpId Id) {
      auto [Rank, Op] = Global[Id];
      std::string Tag = " (tag " + std::to_string(Op->Tag) + ", " +
                        std::to_string(Op->Bytes) + " bytes)";
      return Op->K == RankOp::Kind::Send
                 ? "rank " + std::to_string(Rank) + " sends to rank " +
                       std::to_string(Op->Peer) + Tag +
                       ", and no receive takes the message"
                 : "rank " + std::to_string(Rank) +
                       " waits for a message from rank " +
                       std::to_string(Op->Peer) + Tag + " that never comes";
    };
    if (Sizes && Looking)
      return std::nullopt;
    if (Sizes && !V.Looks)
      lookPastSizes(P, Runs, Global, M.PeerOf);
    if (Sizes) {
      for (cg::OpId Id = 0; Id < M.PeerOf.size(); ++Id) {
        cg::OpId Peer = M.PeerOf[Id];
        auto [Rank, Op] = Global[Id];
        if (Peer == cg::NoOp || Op->K != RankOp::Kind::Send ||
            Global[Peer].second->Bytes == Op->Bytes)
          continue;
        refuse(SafetyCheck::MatchingArguments,
               "at " + processes(P) + ", rank " + std::to_string(Rank) +
                   " sends " + std::to_string(Op->Bytes) + " bytes to rank " +
                   std::to_string(Op->Peer) + ", which receives " +
                   std::to_string(Global[Peer].second->Bytes),
               Call(Op));
        return std::nullopt;
      }
    }
    if (!M.Unmatched.empty()) {
      std::optional<std::string> Misaddressed;
      if (!Looking && !V.Looks)
        Misaddressed = lookPastPeers(P, Runs, Global, M.Unmatched);
      // Senders and receivers that disagree at the first size with
      // messages, and pair up when the receives name the rank that sends
      // to them: their arguments do not match (one root for all, one
      // partner each), whatever the size.
      if (Misaddressed && !Reference && V.Looks) {
        refuse(SafetyCheck::MatchingArguments,
               "at " + processes(P) + ", " + *Misaddressed,
               Call(Global[M.Unmatched.front()].second));
        return std::nullopt;
      }
      refuse(SafetyCheck::ScaleIndependence,
             "at " + processes(P) + ", " + Describe(M.Unmatched.front()),
             Call(Global[M.Unmatched.front()].second));
      return std::nullopt;
    }
    refuse(Sizes ? SafetyCheck::MatchingArguments
                 : SafetyCheck::ScaleIndependence,
           "at " + processes(P) +
               " the messages wait for each other in a cycle: " + S.Message,
           regionLoc());
    return std::nullopt;
  }
  V.Closed = true;
  std::vector<cg::Transfer> All, Transfers, Self;
  std::vector<cg::Combination> Combined;
  if (cg::Status S = cg::propagate(G, M, All, nullptr, nullptr,
                                   Combines ? &Combined : nullptr);
      !S.ok()) {
    refuse(SafetyCheck::ScaleIndependence,
           "at " + processes(P) + ": " + S.Message, regionLoc());
    return std::nullopt;
  }
  TransfersAt[P] = std::max<uint64_t>(TransfersAt[P], All.size());
  if (Combines) {
    std::optional<Observation> O =
        observeReduction(P, Runs, Global, All, Combined);
    if (O && !O->TypeSize)
      O->TypeSize = TypeSize;
    return O;
  }
  for (const cg::Transfer &T : All)
    (T.Src == T.Dst ? Self : Transfers).push_back(T);
  if (Transfers.empty()) {
    // Messages moved, but nothing received survives: a rank writes over
    // what it got (a value incremented at every hop).
    for (const RankRun &Run : Runs)
      for (size_t I = 0; I < Run.Ops.size(); ++I)
        if (Run.Ops[I].K == RankOp::Kind::Local)
          for (size_t J = 0; J < I; ++J)
            if (Run.Ops[J].K == RankOp::Kind::Recv &&
                Run.Ops[J].Object == Run.Ops[I].Object) {
              refuse(SafetyCheck::MessageIntegrity,
                     "the region writes over the data it receives, so no "
                     "data moves from one process to another unchanged",
                     Run.Ops[I].Site->getBeginLoc());
              return std::nullopt;
            }
    return std::nullopt;
  }
  cg::DetectionOptions Options;
  Options.MinSubset = 2; // To say which processes a subset pattern misses.
  cg::Detection D = cg::detect(Transfers, static_cast<cg::Rank>(P), Options);
  completeWithEmptyBlocks(P, Runs, D);
  if (std::optional<Refusal> Not = notOneCollective(P, D)) {
    // What the messages resemble names the refusal, also when they form
    // it over part of the processes only or in blocks of different sizes.
    if (!V.Looks)
      V.Looks = resemblance(P, D);
    refuse(Not->Check, Not->Reason, regionLoc());
    return std::nullopt;
  }
  const cg::Collective &C = D.Collectives[0];
  Observation O;
  O.TypeSize = TypeSize;
  O.Kind = *resembledKind(C.Kind);
  O.Vector = C.Kind == cg::CollectiveKind::Scatterv ||
             C.Kind == cg::CollectiveKind::Gatherv;
  if (P == 2 && Reference) {
    // Two processes cannot tell a broadcast from a scatter or a gather,
    // nor an allgather from an alltoall: the larger sizes decide.
    bool Rooted = isRooted(O.Kind) && isRooted(*Reference);
    bool Exchange = !isRooted(O.Kind) && !isRooted(*Reference);
    if (Rooted || Exchange)
      O.Kind = *Reference;
  }
  if (!sameAsReference(P, O.Kind, "the messages form"))
    return std::nullopt;
  if (!shape(P, C, Self, O))
    return std::nullopt;
  if (P >= 3) {
    // A ring whose root rotates is a chain at the settings where the root
    // is where a chain would start: once a ring, a ring.
    ManualTopology T = topologyOf(O, Runs);
    if (!(T == ManualTopology::Chain && V.Topology == ManualTopology::Ring))
      V.Topology = T;
  }
  return O;
}

bool Judge::sameAsReference(int64_t P, ManualKind Kind, StringRef Forms) {
  if (!Reference) {
    Reference = Kind;
    ReferenceSize = P;
    V.Looks = Kind;
    return true;
  }
  if (Kind == *Reference)
    return true;
  refuse(SafetyCheck::ScaleIndependence,
         "at " + processes(P) + " " + Forms.str() + " " +
             withArticle(collectiveNoun(Kind)) + ", at " +
             processes(ReferenceSize) + " " +
             withArticle(collectiveNoun(*Reference)),
         regionLoc());
  return false;
}

/// In \p Copy, a copy of \p Runs, the operation that \p Where (a rank
/// and one of its operations in \p Runs) names.
static RankOp &copiedOp(std::vector<RankRun> &Copy,
                        const std::vector<RankRun> &Runs,
                        std::pair<int64_t, const RankOp *> Where) {
  auto [Rank, Op] = Where;
  return Copy[Rank].Ops[Op - Runs[Rank].Ops.data()];
}

void Judge::lookPastSizes(int64_t P, const std::vector<RankRun> &Runs,
                          ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                          ArrayRef<cg::OpId> PeerOf) {
  std::vector<RankRun> Even = Runs;
  auto Own = [&](cg::OpId Id) -> RankOp & {
    return copiedOp(Even, Runs, Global[Id]);
  };
  for (cg::OpId Id = 0; Id < PeerOf.size(); ++Id) {
    cg::OpId Peer = PeerOf[Id];
    if (Peer == cg::NoOp || Global[Id].second->K != RankOp::Kind::Send)
      continue;
    Own(Peer).Bytes = Global[Id].second->Bytes;
  }
  lookAt(P, Even);
}

std::optional<std::string>
Judge::lookPastPeers(int64_t P, const std::vector<RankRun> &Runs,
                     ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                     ArrayRef<cg::OpId> Unmatched) {
  std::vector<RankRun> Paired = Runs;
  auto Own = [&](cg::OpId Id) -> RankOp & {
    return copiedOp(Paired, Runs, Global[Id]);
  };
  std::vector<cg::OpId> Sends;
  for (cg::OpId Id : Unmatched)
    if (Global[Id].second->K == RankOp::Kind::Send)
      Sends.push_back(Id);
  std::optional<std::string> First;
  for (cg::OpId Id : Unmatched) {
    auto [Rank, Recv] = Global[Id];
    if (Recv->K != RankOp::Kind::Recv)
      continue;
    auto Addressed = [&, Rank = Rank, Recv = Recv](cg::OpId S) {
      const RankOp &Send = *Global[S].second;
      return Send.Peer == Rank && Send.Tag == Recv->Tag &&
             Send.Bytes == Recv->Bytes;
    };
    if (llvm::count_if(Sends, Addressed) != 1) {
      Own(Id).K = RankOp::Kind::Marker; // Left out.
      continue;
    }
    auto Only = llvm::find_if(Sends, Addressed);
    int64_t Sender = Global[*Only].first;
    Own(Id).Peer = static_cast<int32_t>(Sender);
    Sends.erase(Only);
    if (First)
      continue;
    // The source as the receive spells it (MPI_Sendrecv names it second).
    const Expr *Source =
        Recv->Call ? mpiArgAsWritten(Recv->Call, mpi::Role::Source) : nullptr;
    First = "rank " + std::to_string(Rank) + " waits for a message from rank " +
            std::to_string(Recv->Peer) + " (" +
            (Source ? "source '" + sourceText(Source, Ctx) + "', " : "") +
            "tag " + std::to_string(Recv->Tag) +
            "), and the one sent to it comes from rank " +
            std::to_string(Sender) +
            "; the ranks do not agree on who sends to whom";
  }
  for (cg::OpId Id : Sends)
    Own(Id).K = RankOp::Kind::Marker;
  lookAt(P, Paired);
  return First;
}

void Judge::lookAt(int64_t P, const std::vector<RankRun> &Runs) {
  std::vector<Refusal> Saved = std::move(V.Refusals);
  std::optional<ManualKind> SavedReference = Reference;
  int64_t SavedReferenceSize = ReferenceSize;
  bool SavedClosed = V.Closed, SavedRetry = RetryBuffered;
  Looking = true;
  V.Refusals.clear();
  observe(P, Runs);
  Looking = false;
  // Only Looks (and the topology) stays: no refusal, reference, closure
  // or retry with buffered sends comes from runs the program never made.
  V.Refusals = std::move(Saved);
  Reference = SavedReference;
  ReferenceSize = SavedReferenceSize;
  V.Closed = SavedClosed;
  RetryBuffered = SavedRetry;
}

/// Message integrity: a rank that writes bytes after it received or sent
/// them, and then sends them (again), sends other data than it got or
/// than it sent before: no collective sends that.
bool Judge::changesMessage(int64_t P, const std::vector<RankRun> &Runs) {
  auto Overlap = [](const RankOp &A, const RankOp &B) {
    return A.Object == B.Object &&
           A.Offset < B.Offset + static_cast<int64_t>(B.Bytes) &&
           B.Offset < A.Offset + static_cast<int64_t>(A.Bytes);
  };
  auto Message = [](const RankOp &Op) {
    return (Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
           !Op.SelfCopy;
  };
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    const std::vector<RankOp> &Ops = Runs[Rank].Ops;
    for (size_t W = 0; W < Ops.size(); ++W) {
      const RankOp &Write = Ops[W];
      bool Writes = Write.K == RankOp::Kind::Local ||
                    (Write.SelfCopy && Write.K == RankOp::Kind::Recv);
      if (!Writes)
        continue;
      const RankOp *Before = nullptr;
      for (size_t E = 0; E < W && !Before; ++E)
        if (Message(Ops[E]) && Overlap(Ops[E], Write))
          Before = &Ops[E];
      if (!Before)
        continue;
      for (size_t S = W + 1; S < Ops.size(); ++S)
        if (Message(Ops[S]) && Ops[S].K == RankOp::Kind::Send &&
            Overlap(Ops[S], Write)) {
          const Stmt *Site = Write.Origin ? Write.Origin : Write.Site;
          refuse(SafetyCheck::MessageIntegrity,
                 std::string("this statement changes ") +
                     Runs[Rank].Objects[Write.Object].Name + " after " +
                     (Before->K == RankOp::Kind::Recv ? "it was received"
                                                      : "it was sent") +
                     " and before it is sent again, so the messages do not "
                     "all carry the same data",
                 Site ? Site->getBeginLoc() : regionLoc());
          if (!V.Looks)
            V.Looks = ManualKind::Bcast;
          return true;
        }
    }
  }
  return false;
}

ManualTopology Judge::topologyOf(const Observation &O,
                                 const std::vector<RankRun> &Runs) {
  if (!isRooted(O.Kind))
    return ManualTopology::Exchange;
  auto Messages = [&](int64_t Rank, RankOp::Kind K) {
    unsigned N = 0;
    for (const RankOp &Op : Runs[Rank].Ops)
      N += Op.K == K && !Op.SelfCopy;
    return N;
  };
  int64_t P = static_cast<int64_t>(Runs.size());
  bool FromRoot = O.Kind != ManualKind::Gather;
  RankOp::Kind Out = FromRoot ? RankOp::Kind::Send : RankOp::Kind::Recv;
  RankOp::Kind In = FromRoot ? RankOp::Kind::Recv : RankOp::Kind::Send;
  if (Messages(O.Root, Out) == static_cast<unsigned>(P - 1))
    return ManualTopology::Star;
  if (Messages(O.Root, Out) != 1)
    return ManualTopology::Tree;
  for (int64_t Rank = 0; Rank < P; ++Rank)
    if (Rank != O.Root && (Messages(Rank, In) != 1 || Messages(Rank, Out) > 1))
      return ManualTopology::Tree;
  if (Messages(O.Root, In) == 1)
    return ManualTopology::Ring; // It closes at the root.
  // A path along the cycle of ranks that passes from the last rank to the
  // first (or back) is a ring that does not close: its root is not where a
  // chain starts.
  auto NextOf = [&](int64_t Rank) -> int64_t {
    for (const RankOp &Op : Runs[Rank].Ops)
      if (Op.K == Out && !Op.SelfCopy)
        return Op.Peer;
    return -1;
  };
  int64_t Step = 0;
  bool Wraps = false;
  for (int64_t Rank = O.Root, Hops = 0; Hops < P; ++Hops) {
    int64_t Next = NextOf(Rank);
    if (Next < 0)
      break;
    int64_t Here = 0; // The hop's direction along the cycle.
    if ((Next - Rank + P) % P == 1)
      Here = 1;
    else if ((Rank - Next + P) % P == 1)
      Here = -1;
    if (Here == 0 || (Step != 0 && Here != Step))
      return ManualTopology::Chain;
    Step = Here;
    Wraps |= (Step == 1) != (Next > Rank);
    Rank = Next;
  }
  return Wraps ? ManualTopology::Ring : ManualTopology::Chain;
}

bool Judge::shape(int64_t P, const cg::Collective &C,
                  const std::vector<cg::Transfer> &Self, Observation &O) {
  O.Block = C.BlockSize;
  O.Buffer.assign(P, std::nullopt);
  O.Send.assign(P, std::nullopt);
  O.Recv.assign(P, std::nullopt);
  O.InPlace.assign(P, false);
  uint64_t B = C.BlockSize;
  auto Fail = [&](std::string Why) {
    refuse(SafetyCheck::MessageIntegrity, "at " + processes(P) + ", " + Why,
           regionLoc());
    return false;
  };
  // Every transfer of one rank's blocks agrees on one base.
  auto Agree = [&](std::optional<Where> &Slot, std::optional<Where> W) {
    if (!W)
      return false;
    if (Slot && !(*Slot == *W))
      return false;
    Slot = W;
    return true;
  };
  switch (O.Kind) {
  case ManualKind::Bcast:
  case ManualKind::Scatter:
  case ManualKind::Gather: {
    bool FromRoot = O.Kind != ManualKind::Gather;
    O.Root = FromRoot ? C.Blocks[0].Src : C.Blocks[0].Dst;
    O.Blocks.assign(P, std::nullopt);
    O.Bytes.assign(P, 0);
    // Two processes cannot tell a v form: once one, the larger sizes say.
    O.Vector |= P == 2 && AnyVector;
    for (const cg::Transfer &T : C.Blocks) {
      Where Src = whereOf(T.SrcAddr), Dst = whereOf(T.DstAddr);
      int64_t Peer = FromRoot ? T.Dst : T.Src;
      if ((FromRoot ? T.Src : T.Dst) != O.Root)
        return Fail("the collective has more than one root");
      if (O.Kind == ManualKind::Bcast) {
        if (!Agree(O.Buffer[O.Root], Src))
          return Fail("the root sends from more than one buffer");
        O.Buffer[T.Dst] = Dst;
        continue;
      }
      O.Blocks[Peer] = FromRoot ? Src : Dst;
      O.Bytes[Peer] = T.Size;
      (FromRoot ? O.Recv[T.Dst] : O.Send[T.Src]) = FromRoot ? Dst : Src;
      // Blocks of one size in rank order from one base are the plain
      // form; any other layout needs the v form's displacements.
      std::optional<Where> &Base = FromRoot ? O.Send[O.Root] : O.Recv[O.Root];
      if (!O.Vector && !Agree(Base, before(*O.Blocks[Peer], Peer * B)))
        O.Vector = true;
    }
    if (O.Vector) {
      O.Send[O.Root] = O.Recv[O.Root] = std::nullopt;
      return disjointBlocks(P, O);
    }
    return true;
  }
  case ManualKind::Allgather:
  case ManualKind::Alltoall: {
    bool ToAll = O.Kind == ManualKind::Alltoall;
    for (const cg::Transfer &T : C.Blocks) {
      Where Src = whereOf(T.SrcAddr), Dst = whereOf(T.DstAddr);
      if (!Agree(O.Recv[T.Dst], before(Dst, T.Src * B)) ||
          !Agree(O.Send[T.Src],
                 ToAll ? before(Src, T.Dst * B) : std::optional<Where>(Src)))
        return Fail("a rank's blocks are not in rank order");
    }
    for (int64_t I = 0; I < P; ++I) {
      if (!O.Send[I] || !O.Recv[I])
        return Fail("rank " + std::to_string(I) + " takes no part");
      Where Own = ToAll ? Where{O.Send[I]->Obj,
                                O.Send[I]->Off + static_cast<int64_t>(I * B)}
                        : *O.Send[I];
      Where Slot{O.Recv[I]->Obj, O.Recv[I]->Off + static_cast<int64_t>(I * B)};
      O.InPlace[I] = Own == Slot;
      if (O.InPlace[I])
        continue;
      // MPI writes the rank's own block; the program must have put the
      // same data there itself.
      bool Copied = llvm::any_of(Self, [&](const cg::Transfer &T) {
        return T.Dst == I && whereOf(T.DstAddr) == Slot &&
               whereOf(T.SrcAddr) == Own && T.Size >= B;
      });
      if (!Copied)
        return Fail("rank " + std::to_string(I) +
                    " leaves its own block alone and copies nothing there; "
                    "the collective would write it");
    }
    return true;
  }
  }
  return false;
}

} // namespace judge

} // namespace analysis
} // namespace mpilift
