//===- EvalMPI.cpp - MPI calls in the rank-space evaluator ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What MPI's calls do in a run: point-to-point calls become operations
/// with their dependencies (a nonblocking one completes at its wait),
/// datatypes are measured or built, requests and communicators are values
/// the run follows; at the end, the operations are put in their order.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

eval::SpecialRanks specialRanks(const ASTContext &Ctx) {
  // Open MPI declares its handles as globals named ompi_mpi_*.
  const IdentifierInfo &World = Ctx.Idents.get("ompi_mpi_comm_world");
  if (!Ctx.getTranslationUnitDecl()->lookup(&World).empty())
    return {-1, -2, -1};
  return {-2, -1, -1}; // MPICH and its derivatives.
}

} // namespace

std::optional<Value> RankEvaluator::Impl::datatypeOf(const Expr *Type) {
  // Whether the argument is spelled as a predefined datatype does not
  // change from one run to the next.
  auto [Known, New] = PredefinedBytes.try_emplace(Type, -1);
  if (New) {
    std::string Text = spelled(Type);
    Text = Text.substr(1, Text.size() - 2);
    if (std::optional<uint64_t> Bytes = predefinedTypeSize(Text, Ctx))
      Known->second = static_cast<int64_t>(*Bytes);
  }
  if (Known->second >= 0)
    return Value::datatype(Known->second, Known->second);
  if (std::optional<Value> Passed = contractDatatype(Type))
    return Passed;
  Value V = eval(Type);
  if (V.K == Value::Kind::Datatype)
    return V;
  // A predefined datatype that reached the call through a variable or a
  // function (`MpiType<T>::get()` returning MPI_DOUBLE).
  if (std::optional<Value> Predefined = predefinedHandle(V))
    return Predefined;
  stopWith(V, "the datatype", Type);
  return std::nullopt;
}

std::optional<Value>
RankEvaluator::Impl::contractDatatype(const Expr *Type) const {
  // A function judged as a whole with its parameters taken as the same on
  // every process (CollectiveFunctions.h) may pass its `MPI_Datatype`
  // parameter on, as MPI_Bcast's callers do: one datatype, unknown but the
  // same in every message, of a size no C type has, so that no offset the
  // program computes from a `sizeof` can line up with it by chance.
  const auto *Ref = dyn_cast<DeclRefExpr>(Type->IgnoreParenImpCasts());
  const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  if (!Param || !isDatatypeHandle(Param->getType()) ||
      TU.contract() != R.Function || Param->getDeclContext() != R.Function)
    return std::nullopt;
  constexpr uint64_t OpaqueBytes = 24;
  return Value::datatype(OpaqueBytes, OpaqueBytes);
}

std::optional<Value> RankEvaluator::Impl::predefinedHandle(const Value &V) {
  // Open MPI's MPI_DOUBLE is the address of its global ompi_mpi_double.
  if (!V.isPointer() || V.Obj == eval::NullObject || V.I != 0)
    return std::nullopt;
  const auto *Var = dyn_cast_or_null<VarDecl>(Objects[V.Obj].Decl);
  if (!Var || !Var->hasGlobalStorage() || !Var->getDeclName().isIdentifier())
    return std::nullopt;
  StringRef Name = Var->getName();
  if (!Name.consume_front("ompi_mpi_"))
    return std::nullopt;
  std::optional<uint64_t> Bytes =
      predefinedTypeSize("MPI_" + Name.upper(), Ctx);
  if (!Bytes)
    return std::nullopt;
  return Value::datatype(*Bytes, *Bytes);
}

void RankEvaluator::Impl::addOp(RankOp Op, bool Blocking) {
  if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
      !Op.SelfCopy)
    MessageSeen = true;
  Op.After = Frontier;
  Op.Origin = Outer;
  if (Op.K != RankOp::Kind::Local)
    LocalsSinceMessage.clear();
  if (Op.K == RankOp::Kind::Send) {
    auto &Ranges = Sent[Op.Object];
    std::pair<int64_t, int64_t> Range{
        Op.Offset, Op.Offset + static_cast<int64_t>(Op.Bytes)};
    if (Ranges.empty() || Ranges.back() != Range)
      Ranges.push_back(Range);
  }
  Out.Ops.push_back(std::move(Op));
  uint32_t Index = static_cast<uint32_t>(Out.Ops.size() - 1);
  if (Blocking)
    Frontier.assign(1, Index);
}

void RankEvaluator::Impl::copyLocally(Place From, Place To, uint64_t Bytes,
                                      const Stmt *Site) {
  // The values the evaluator knows move along.
  if (From.Obj != eval::NullObject && To.Obj != eval::NullObject) {
    std::vector<std::pair<int64_t, eval::Object::Cell>> Moved;
    for (auto It = Objects[From.Obj].Cells.lower_bound(From.Off);
         It != Objects[From.Obj].Cells.end() &&
         It->first < From.Off + static_cast<int64_t>(Bytes);
         ++It)
      Moved.push_back({To.Off + (It->first - From.Off), It->second});
    eval::Object &Dest = Objects[To.Obj];
    Dest.Cells.eraseStarting(To.Off, To.Off + static_cast<int64_t>(Bytes));
    for (auto &[Off, Cell] : Moved)
      Dest.Cells[Off] = Cell;
  }
  if (M != Mode::Region || Bytes == 0)
    return;
  if (carried(From, static_cast<int64_t>(Bytes)))
    markCarried(To, static_cast<int64_t>(Bytes));
  // A send to the rank itself and its receive, on a tag of their own.
  int32_t Tag = -1000 - static_cast<int32_t>(Out.Ops.size());
  RankOp Send;
  Send.K = RankOp::Kind::Send;
  Send.Object = From.Obj;
  Send.Offset = From.Off;
  Send.Bytes = Bytes;
  Send.Peer = static_cast<int32_t>(Rank);
  Send.Tag = Tag;
  Send.Site = Site;
  Send.SelfCopy = true;
  addOp(Send, /*Blocking=*/false);
  RankOp Recv = Send;
  Recv.K = RankOp::Kind::Recv;
  Recv.Object = To.Obj;
  Recv.Offset = To.Off;
  addOp(Recv, /*Blocking=*/true);
}

void RankEvaluator::Impl::completeRequest(const Value &Request,
                                          const Expr *Where) {
  if (Request.K != Value::Kind::Request) {
    stopWith(Request, "the request", Where);
    return;
  }
  if (Request.Obj == 0)
    return; // MPI_REQUEST_NULL.
  uint32_t Op = RequestOps[Request.Obj];
  if (!llvm::is_contained(Frontier, Op))
    Frontier.push_back(Op);
}

std::optional<uint32_t>
RankEvaluator::Impl::message(const CallExpr *Call, bool Send, mpi::Role Buffer,
                             mpi::Role Count, mpi::Role Type, mpi::Role Peer,
                             mpi::Role Tag, bool Blocking) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  auto Arg = [&](mpi::Role R) {
    return Info ? mpiArgAsWritten(Call, *Info, R) : nullptr;
  };
  const Expr *BufE = Arg(Buffer);
  const Expr *CountE = Arg(Count);
  const Expr *TypeE = Arg(Type);
  const Expr *PeerE = Arg(Peer);
  const Expr *TagE = Arg(Tag);
  const Expr *CommE = Arg(mpi::Role::Comm);
  if (!BufE || !CountE || !TypeE || !PeerE || !TagE || !CommE) {
    stop("the call has arguments of roles the evaluator does not know",
         Call->getBeginLoc());
    return std::nullopt;
  }
  if (!Specials)
    Specials = specialRanks(Ctx);
  const eval::SpecialRanks &Special = *Specials;
  Value Comm = eval(CommE);
  // An input that only sizes the message decides nothing else: the judge
  // tries it with two values, not with every rank.
  Value CountValue = eval(CountE);
  uint32_t Deciding = Out.DecidingInputs;
  std::optional<int64_t> N = needInt(CountValue, CountE, "the count");
  Out.DecidingInputs = Deciding;
  Out.CountInputs |= CountValue.Taint;
  std::optional<Value> DT = datatypeOf(TypeE);
  std::optional<int64_t> PeerRank =
      needInt(eval(PeerE), PeerE, Send ? "the destination" : "the source");
  std::optional<int64_t> TagValue = needInt(eval(TagE), TagE, "the tag");
  Value Buf = eval(BufE);
  if (!N || !DT || !PeerRank || !TagValue || stopped())
    return std::nullopt;
  if (!Comm.isKnown()) {
    stopWith(Comm, "the communicator", CommE);
    return std::nullopt;
  }
  if (!Out.Comm)
    Out.Comm = Comm;
  else if (!Out.Comm->same(Comm)) {
    stop("the region's messages use more than one communicator",
         CommE->getBeginLoc());
    return std::nullopt;
  }
  // Rank arithmetic in the argument itself (`(rank - 1) % size`) that
  // lands on a special value names no rank: Open MPI's -1 and -2 are
  // MPI_PROC_NULL and MPI_ANY_SOURCE only by accident.
  const auto *Arith = dyn_cast<BinaryOperator>(PeerE->IgnoreParenImpCasts());
  bool Computed =
      Arith && (Arith->isAdditiveOp() || Arith->isMultiplicativeOp());
  if (*PeerRank == Special.ProcNull && !Computed)
    return std::nullopt; // A message to nobody.
  if (!Send && *PeerRank == Special.AnySource && !Computed) {
    stop("a receive from MPI_ANY_SOURCE: which message it gets depends on "
         "timing",
         PeerE->getBeginLoc());
    return std::nullopt;
  }
  if (!Send && *TagValue == Special.AnyTag) {
    stop("a receive with MPI_ANY_TAG may match another message",
         TagE->getBeginLoc());
    return std::nullopt;
  }
  if (*PeerRank < 0 || *PeerRank >= Size) {
    stop("rank " + std::to_string(Rank) +
             (Send ? " sends to" : " receives from") + " rank " +
             std::to_string(*PeerRank) + ", which does not exist",
         PeerE->getBeginLoc(), /*MissingPeer=*/true);
    return std::nullopt;
  }
  if (*N < 0) {
    stop("a negative count", CountE->getBeginLoc());
    return std::nullopt;
  }
  if (!Buf.isPointer() || (Buf.Obj == eval::NullObject && *N > 0)) {
    stopWith(Buf, "the buffer", BufE);
    return std::nullopt;
  }
  Out.DecidingInputs |= Buf.Taint;
  RankOp Op;
  Op.K = Send ? RankOp::Kind::Send : RankOp::Kind::Recv;
  Op.Object = Buf.Obj;
  Op.Offset = Buf.I;
  Op.Bytes = static_cast<uint64_t>(*N) * DT->Size;
  Op.Peer = static_cast<int32_t>(*PeerRank);
  Op.Tag = static_cast<int32_t>(*TagValue);
  Op.Site = Call;
  Op.Call = Call;
  Op.Count = static_cast<uint64_t>(*N);
  Op.TypeSize = DT->Size;
  // A receive overwrites what the evaluator knew of the buffer.
  if (!Send) {
    Objects[Buf.Obj].Cells.eraseStarting(
        Buf.I, Buf.I + static_cast<int64_t>(Op.Bytes));
    markCarried(Place{Buf.Obj, Buf.I}, static_cast<int64_t>(Op.Bytes));
  }
  if (Send)
    noteSentIndexes(TypeE, Place{Buf.Obj, Buf.I}, *N,
                    static_cast<int64_t>(DT->Size));
  if (Send && Blocking && BufferedSends) {
    // MPI copies the message and the send returns.
    ObjectId Copy = newObject("the copy MPI buffers", nullptr, true,
                              static_cast<int64_t>(Op.Bytes));
    copyLocally(Place{Buf.Obj, Buf.I}, Place{Copy, 0}, Op.Bytes, Call);
    Op.Object = Copy;
    Op.Offset = 0;
    Blocking = false;
  }
  addOp(std::move(Op), Blocking);
  return static_cast<uint32_t>(Out.Ops.size() - 1);
}

Value RankEvaluator::Impl::mpiCall(const CallExpr *Call,
                                   const mpi::FunctionInfo &Info) {
  using mpi::Family;
  using mpi::Role;
  Value Ok = Value::integer(0, 32, true);
  std::string Name = "'" + std::string(Info.Name) + "'";
  if (Info.TheFamily == Family::CommQuery) {
    const Expr *CommE = mpiArgAsWritten(Call, Role::Comm);
    bool Rank2 = Info.Id == mpi::FunctionId::Comm_rank;
    const Expr *OutE =
        mpiArgAsWritten(Call, Rank2 ? Role::RankOut : Role::SizeOut);
    if (!CommE || !OutE)
      return Ok;
    Value Where = eval(OutE);
    if (!Where.isPointer())
      return Ok;
    Value V;
    if (followedCommKey(CommE, *R.Function, TU) == RegionComm ||
        !RegionComm.valid())
      V = Value::integer(Rank2 ? Rank : Size, 32, true);
    else
      V = unknown(std::string(Rank2 ? "the rank" : "the size") + " in " +
                      spelled(CommE) +
                      ", not in the communicator of the "
                      "region's messages",
                  Call->getBeginLoc());
    store(Place{Where.Obj, Where.I}, OutE->getType()->getPointeeType(), V,
          Call);
    return Ok;
  }
  if (Info.TheFamily == Family::CommCreate) {
    // A new communicator (MPI_Comm_split, MPI_Cart_sub): a handle of its
    // own. The region runs on some communicator of each size; its rank and
    // size are what MPI_Comm_rank and MPI_Comm_size on it give.
    const Expr *OutE = mpiArgAsWritten(Call, Role::NewComm);
    Value Where = OutE ? eval(OutE) : Value::unknown(0);
    if (!Where.isPointer() || Where.Obj == eval::NullObject) {
      havocArguments(Call, "written by " + Name);
      return Ok;
    }
    // Named by its call, so that every rank's run calls it the same.
    unsigned Line = SM.getExpansionLineNumber(Call->getBeginLoc());
    ObjectId Handle = newObject("the communicator " + Name + " made at line " +
                                    std::to_string(Line),
                                nullptr, /*Temporary=*/false, 1);
    store(Place{Where.Obj, Where.I}, OutE->getType()->getPointeeType(),
          Value::pointer(Handle, 0), Call);
    return Ok;
  }
  if (Info.Id == mpi::FunctionId::Abort) {
    endProgram("the program may end here (" + std::string(Info.Name) + ")",
               Call->getBeginLoc());
    return Ok;
  }
  if (M != Mode::Region) {
    // Before the region: what MPI writes is not followed, except that a
    // broadcast or an all-reduction leaves one value on every rank (the
    // region's inputs say which).
    if (Info.TheFamily == Family::Environment)
      return Ok;
    havocArguments(Call, "written by " + Name, /*KeepConst=*/true);
    return Ok;
  }
  switch (Info.TheFamily) {
  case Family::BlockingSend:
    message(Call, true, Role::SendBuffer, Role::Count, Role::Datatype,
            Role::Dest, Role::Tag, true);
    return Ok;
  case Family::BlockingRecv:
    if (Info.Id != mpi::FunctionId::Recv)
      break;
    message(Call, false, Role::RecvBuffer, Role::Count, Role::Datatype,
            Role::Source, Role::Tag, true);
    return Ok;
  case Family::NonblockingSend:
  case Family::NonblockingRecv: {
    bool Send = Info.TheFamily == Family::NonblockingSend;
    if (!Send && Info.Id != mpi::FunctionId::Irecv)
      break;
    std::optional<uint32_t> Op = message(
        Call, Send, Send ? Role::SendBuffer : Role::RecvBuffer, Role::Count,
        Role::Datatype, Send ? Role::Dest : Role::Source, Role::Tag, false);
    const Expr *ReqE = mpiArgAsWritten(Call, Role::Request);
    Value Where = ReqE ? eval(ReqE) : Value::unknown(0);
    if (stopped())
      return Ok;
    if (!Where.isPointer()) {
      stopWith(Where, "the request", ReqE);
      return Ok;
    }
    uint32_t Id = 0;
    if (Op) {
      RequestOps.push_back(*Op);
      Id = static_cast<uint32_t>(RequestOps.size() - 1);
    }
    store(Place{Where.Obj, Where.I}, ReqE->getType()->getPointeeType(),
          Value::request(Id), nullptr);
    return Ok;
  }
  case Family::SendRecv: {
    if (Info.Id != mpi::FunctionId::Sendrecv)
      break;
    size_t Before = Frontier.size();
    (void)Before;
    std::optional<uint32_t> S =
        message(Call, true, Role::SendBuffer, Role::SendCount, Role::SendType,
                Role::Dest, Role::SendTag, false);
    if (stopped())
      return Ok;
    std::optional<uint32_t> Rv =
        message(Call, false, Role::RecvBuffer, Role::RecvCount, Role::RecvType,
                Role::Source, Role::RecvTag, true);
    if (S && !llvm::is_contained(Frontier, *S))
      Frontier.push_back(*S);
    (void)Rv;
    return Ok;
  }
  case Family::Wait: {
    if (Info.Id == mpi::FunctionId::Wait) {
      const Expr *ReqE = mpiArgAsWritten(Call, Role::Request);
      Value Where = ReqE ? eval(ReqE) : Value::unknown(0);
      if (!Where.isPointer()) {
        stopWith(Where, "the request", ReqE);
        return Ok;
      }
      QualType ReqT = ReqE->getType()->getPointeeType();
      completeRequest(load(Place{Where.Obj, Where.I}, ReqT, ReqE), ReqE);
      store(Place{Where.Obj, Where.I}, ReqT, Value::request(0), nullptr);
      return Ok;
    }
    if (Info.Id == mpi::FunctionId::Waitall) {
      const Expr *NE = mpiArgAsWritten(Call, Role::ArrayLength);
      const Expr *ArrE = mpiArgAsWritten(Call, Role::RequestArray);
      std::optional<int64_t> N =
          NE ? needInt(eval(NE), NE, "the number of requests") : std::nullopt;
      Value Arr = ArrE ? eval(ArrE) : Value::unknown(0);
      if (!N)
        return Ok;
      if (!Arr.isPointer()) {
        stopWith(Arr, "the requests", ArrE);
        return Ok;
      }
      QualType ReqT = ArrE->getType()->getPointeeType();
      int64_t Step = sizeOf(ReqT);
      for (int64_t I = 0; I < *N && !stopped(); ++I) {
        Place P{Arr.Obj, Arr.I + I * Step};
        completeRequest(load(P, ReqT, ArrE), ArrE);
        store(P, ReqT, Value::request(0), nullptr);
      }
      return Ok;
    }
    break;
  }
  case Family::Environment:
    if (Info.Id == mpi::FunctionId::Pcontrol)
      return Ok;
    break;
  case Family::NonblockingProbe:
    if (Info.Id == mpi::FunctionId::Iprobe)
      return probe(Call);
    break;
  default:
    break;
  }
  stop("the region calls " + Name + ", which the evaluator does not follow",
       Call->getBeginLoc());
  return Ok;
}

Value RankEvaluator::Impl::probe(const CallExpr *Call) {
  if (!R.ProbesArrive) {
    bool Before = Out.Stopped.has_value();
    stop("MPI_Iprobe says whether a message has arrived, which depends on "
         "timing",
         Call->getBeginLoc());
    if (!Before && Out.Stopped)
      Out.Stopped->Probe = Call;
    return Value::integer(0, 32, true);
  }
  // Listing 7 run to the moment its message is there: the flag says so,
  // and the receive that follows gets it.
  const Expr *FlagE = mpiArgAsWritten(Call, mpi::Role::Flag);
  Value Where = FlagE ? eval(FlagE) : Value::unknown(0);
  if (!Where.isPointer() || Where.Obj == eval::NullObject) {
    stopWith(Where, "the probe's flag", FlagE ? FlagE : Call);
    return Value::integer(0, 32, true);
  }
  store(Place{Where.Obj, Where.I}, FlagE->getType()->getPointeeType(),
        Value::integer(1, 32, true), Call);
  return Value::integer(0, 32, true);
}

void RankEvaluator::Impl::finishOps() {
  // Local writes and copies matter only where messages are: keep those
  // that touch a message buffer, and let what waited for a dropped one
  // wait for what it waited for.
  std::vector<RankOp> &Ops = Out.Ops;
  // By object: a copy into a rank's own block of a message array touches
  // none of its messages' bytes, but the collective's result all the same.
  llvm::SmallDenseSet<ObjectId, 8> Messages;
  for (const RankOp &Op : Ops)
    if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
        !Op.SelfCopy)
      Messages.insert(Op.Object);
  auto Touches = [&](const RankOp &Op) { return Messages.count(Op.Object); };
  // Copies join the message buffers they touch, until nothing changes (a
  // chain of copies from a receive buffer to a send buffer).
  std::vector<bool> Keep(Ops.size(), true);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < Ops.size(); ++I) {
      const RankOp &Op = Ops[I];
      if (Op.K == RankOp::Kind::Local) {
        Keep[I] = Touches(Op);
        continue;
      }
      if (Op.K == RankOp::Kind::Combine) {
        // A combine joins its two objects, as a copy does.
        Keep[I] = Touches(Op) || Messages.count(Op.FromObject);
        if (Keep[I])
          for (ObjectId Obj : {Op.Object, Op.FromObject})
            Changed |= Messages.insert(Obj).second;
        continue;
      }
      if (!Op.SelfCopy || Op.K != RankOp::Kind::Send || I + 1 >= Ops.size())
        continue;
      const RankOp &Into = Ops[I + 1];
      bool Both = Touches(Op) || Touches(Into);
      if (Both)
        for (const RankOp *Half : {&Op, &Into})
          Changed |= Messages.insert(Half->Object).second;
      Keep[I] = Keep[I + 1] = Both;
      ++I;
    }
  }
  std::vector<uint32_t> NewIndex(Ops.size(), UINT32_MAX);
  std::vector<std::vector<uint32_t>> Resolved(Ops.size());
  std::vector<RankOp> &Kept = KeptOps;
  Kept.clear();
  for (size_t I = 0; I < Ops.size(); ++I) {
    std::vector<uint32_t> After;
    for (uint32_t A : Ops[I].After) {
      if (Keep[A]) {
        After.push_back(NewIndex[A]);
        continue;
      }
      for (uint32_t B : Resolved[A])
        After.push_back(B);
    }
    llvm::sort(After);
    After.erase(std::unique(After.begin(), After.end()), After.end());
    if (!Keep[I]) {
      Resolved[I] = std::move(After);
      continue;
    }
    NewIndex[I] = static_cast<uint32_t>(Kept.size());
    Kept.push_back(std::move(Ops[I]));
    Kept.back().After = std::move(After);
  }
  // Reads keep their place among the operations that stay.
  std::vector<uint32_t> KeptBefore(Ops.size() + 1, 0);
  for (size_t I = 0; I < Ops.size(); ++I)
    KeptBefore[I + 1] = KeptBefore[I] + (Keep[I] ? 1 : 0);
  for (RankRead &Read : Out.Reads)
    Read.At = KeptBefore[std::min<size_t>(Read.At, Ops.size())];
  Ops.swap(Kept);
}

} // namespace analysis
} // namespace mpilift
