//===- CostModel.cpp - The machine parameters of the fusion estimates -----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/CostModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace mpilift {
namespace analysis {
namespace {

/// Messages at least this long set t_w; shorter ones are start-up.
constexpr uint64_t BandwidthBytes = 4096;

bool positiveAndFinite(double X) { return std::isfinite(X) && X > 0; }

llvm::Error checkParameters(const MachineProfile &P, const std::string &Where) {
  auto Bad = [&](const char *What, double Value) {
    std::string Text;
    llvm::raw_string_ostream(Text) << llvm::format("%g", Value);
    return llvm::createStringError(
        Where + ": " + What + " must be a positive number of seconds, not " +
        Text);
  };
  if (!positiveAndFinite(P.StartupSeconds))
    return Bad("startup_seconds", P.StartupSeconds);
  if (!positiveAndFinite(P.SecondsPerByte))
    return Bad("seconds_per_byte", P.SecondsPerByte);
  if (!positiveAndFinite(P.SecondsPerOperation))
    return Bad("seconds_per_operation", P.SecondsPerOperation);
  return llvm::Error::success();
}

/// t_s and t_w from the samples (see fitPingPongOutput).
llvm::Error fitSamples(MachineProfile &P) {
  const PingPongSample *Smallest = nullptr;
  for (const PingPongSample &S : P.Samples)
    if (!Smallest || S.Bytes < Smallest->Bytes)
      Smallest = &S;
  if (!Smallest)
    return llvm::createStringError("the ping-pong printed no samples");
  P.StartupSeconds = Smallest->Seconds;
  double Cross = 0, Square = 0;
  for (const PingPongSample &S : P.Samples)
    if (S.Bytes >= BandwidthBytes) {
      double B = static_cast<double>(S.Bytes);
      Cross += B * (S.Seconds - P.StartupSeconds);
      Square += B * B;
    }
  if (Square == 0)
    return llvm::createStringError(
        "the ping-pong printed no sample of 4096 bytes or more");
  P.SecondsPerByte = Cross / Square;
  return checkParameters(P, "the ping-pong's samples");
}

std::string microseconds(double Seconds) {
  return llvm::formatv("{0:f2} us", Seconds * 1e6).str();
}

} // namespace

MachineProfile defaultMachineProfile() {
  // Two processes of one node over Open MPI 4.1's shared memory: the
  // medians of three runs of `mpilift calibrate` on the 2-core development
  // VM (docs/cost-profile.md).
  MachineProfile P;
  P.StartupSeconds = 1.8e-7;
  P.SecondsPerByte = 1.56e-10;
  P.SecondsPerOperation = 3.56e-10;
  P.Origin = "the default machine profile";
  return P;
}

llvm::Expected<MachineProfile> fitPingPongOutput(llvm::StringRef Text) {
  MachineProfile P;
  bool Header = false, Operation = false;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, false);
  for (llvm::StringRef Line : Lines) {
    auto [Key, Rest] = Line.trim().split(' ');
    auto Bad = [&] {
      return llvm::createStringError("the ping-pong printed '" + Line.str() +
                                     "', which is not a line of its format");
    };
    if (Key == "mpilift-pingpong") {
      if (Rest.trim() != "1")
        return llvm::createStringError(
            "the ping-pong speaks format " + Rest.trim().str() +
            ", this mpilift format 1: they are from different builds");
      Header = true;
    } else if (Key == "library") {
      P.Library = Rest.trim().str();
    } else if (Key == "operation") {
      if (!llvm::to_float(Rest.trim(), P.SecondsPerOperation))
        return Bad();
      Operation = true;
    } else if (Key == "sample") {
      auto [Bytes, Seconds] = Rest.trim().split(' ');
      PingPongSample S;
      if (!llvm::to_integer(Bytes, S.Bytes) ||
          !llvm::to_float(Seconds.trim(), S.Seconds) ||
          !positiveAndFinite(S.Seconds))
        return Bad();
      P.Samples.push_back(S);
    } else {
      return Bad();
    }
  }
  if (!Header)
    return llvm::createStringError(
        "the output is not the ping-pong's (no 'mpilift-pingpong' line)");
  if (!Operation)
    return llvm::createStringError(
        "the ping-pong printed no time of an operation");
  if (llvm::Error E = fitSamples(P))
    return E;
  return P;
}

llvm::json::Value toJSON(const MachineProfile &P) {
  llvm::json::Array Samples;
  for (const PingPongSample &S : P.Samples)
    Samples.push_back(llvm::json::Object{{"bytes", int64_t(S.Bytes)},
                                         {"seconds", S.Seconds}});
  return llvm::json::Object{{"version", 1},
                            {"library", P.Library},
                            {"startup_seconds", P.StartupSeconds},
                            {"seconds_per_byte", P.SecondsPerByte},
                            {"seconds_per_operation", P.SecondsPerOperation},
                            {"samples", std::move(Samples)}};
}

llvm::Expected<MachineProfile> readMachineProfile(llvm::StringRef Path) {
  std::string Where = "'" + Path.str() + "'";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Where + ": " + Buffer.getError().message());
  llvm::Expected<llvm::json::Value> Value =
      llvm::json::parse((*Buffer)->getBuffer());
  if (!Value)
    return llvm::createStringError(
        Where + ": not JSON: " + llvm::toString(Value.takeError()));
  const llvm::json::Object *O = Value->getAsObject();
  if (!O)
    return llvm::createStringError(Where + ": expected an object");
  std::optional<int64_t> Version = O->getInteger("version");
  if (Version != 1)
    return llvm::createStringError(
        Where + ": not a machine profile of version 1 (write it again with "
                "mpilift calibrate)");
  MachineProfile P;
  for (auto [Key, Field] :
       {std::pair{"startup_seconds", &P.StartupSeconds},
        std::pair{"seconds_per_byte", &P.SecondsPerByte},
        std::pair{"seconds_per_operation", &P.SecondsPerOperation}}) {
    std::optional<double> X = O->getNumber(Key);
    if (!X)
      return llvm::createStringError(Where + ": no number '" + Key + "'");
    *Field = *X;
  }
  if (std::optional<llvm::StringRef> Library = O->getString("library"))
    P.Library = Library->str();
  if (const llvm::json::Array *Samples = O->getArray("samples"))
    for (const llvm::json::Value &V : *Samples) {
      const llvm::json::Object *S = V.getAsObject();
      std::optional<int64_t> Bytes = S ? S->getInteger("bytes") : std::nullopt;
      std::optional<double> Seconds =
          S ? S->getNumber("seconds") : std::nullopt;
      if (!Bytes || *Bytes < 0 || !Seconds)
        return llvm::createStringError(
            Where + ": every sample must have 'bytes' and 'seconds'");
      P.Samples.push_back({uint64_t(*Bytes), *Seconds});
    }
  if (llvm::Error E = checkParameters(P, Where))
    return E;
  P.Origin = "the machine profile " + Where;
  return P;
}

llvm::Error writeMachineProfile(const MachineProfile &Profile,
                                llvm::StringRef Path) {
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << llvm::formatv("{0:2}", toJSON(Profile)) << "\n";
    return llvm::Error::success();
  });
}

std::string CostEstimate::describe() const {
  return "predicted on 2 processes: " + microseconds(AfterSeconds) +
         " instead of " + microseconds(BeforeSeconds) + " (" + Origin + ")";
}

CostEstimate estimatePacking(const MachineProfile &Profile, unsigned Calls,
                             uint64_t Elements, uint64_t ElementBytes,
                             bool Combines) {
  double M = static_cast<double>(Elements);
  double PerElement = double(ElementBytes) * Profile.SecondsPerByte +
                      (Combines ? Profile.SecondsPerOperation : 0.0);
  CostEstimate E;
  E.Origin = Profile.Origin;
  E.BeforeSeconds = Calls * Profile.StartupSeconds + M * PerElement;
  // One collective on the packed buffer, and each element copied into it
  // and out of it.
  E.AfterSeconds = Profile.StartupSeconds + M * PerElement +
                   2 * M * Profile.SecondsPerOperation;
  return E;
}

CostEstimate estimateScanPair(const MachineProfile &Profile, uint64_t Elements,
                              uint64_t ElementBytes, bool SecondIsScan) {
  double M = static_cast<double>(Elements);
  double Word = double(ElementBytes) * Profile.SecondsPerByte;
  double Op = Profile.SecondsPerOperation;
  // A scan combines twice per element and step, a reduction once; the
  // operation on pairs costs three operations.
  double Before = SecondIsScan ? 4 : 3, After = SecondIsScan ? 6 : 3;
  CostEstimate E;
  E.Origin = Profile.Origin;
  E.BeforeSeconds = 2 * Profile.StartupSeconds + M * (2 * Word + Before * Op);
  E.AfterSeconds =
      Profile.StartupSeconds + M * (2 * Word + After * Op) + 3 * M * Op;
  return E;
}

CostEstimate estimateBcastScanLocal(const MachineProfile &Profile,
                                    uint64_t Elements, uint64_t ElementBytes,
                                    bool LastIsScan, bool SameOperation) {
  double M = static_cast<double>(Elements);
  double Word = double(ElementBytes) * Profile.SecondsPerByte;
  double Op = Profile.SecondsPerOperation;
  double Before = LastIsScan ? 4 : 3;
  double After = LastIsScan ? (SameOperation ? 8 : 5) : (SameOperation ? 4 : 3);
  CostEstimate E;
  E.Origin = Profile.Origin;
  E.BeforeSeconds = 3 * Profile.StartupSeconds + M * (3 * Word + Before * Op);
  E.AfterSeconds = Profile.StartupSeconds + M * (Word + After * Op);
  return E;
}

} // namespace analysis
} // namespace mpilift
