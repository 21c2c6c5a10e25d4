//===- Commands.cpp - What the subcommands of mpilift share -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/WithColor.h"

namespace mpilift {

llvm::raw_ostream &error() {
  return llvm::WithColor::error(llvm::errs(), "mpilift");
}

llvm::raw_ostream &warning() {
  return llvm::WithColor::warning(llvm::errs(), "mpilift");
}

std::optional<trace::Trace>
readTraceForCommand(const std::string &Dir, trace::RankReadCallback OnRank) {
  bool Recovered = false;
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir, &Recovered, OnRank);
  if (!T) {
    error() << llvm::toString(T.takeError()) << "\n";
    return std::nullopt;
  }
  if (Recovered)
    warnRecovered(Dir);
  return std::move(*T);
}

void warnRecovered(const std::string &Dir) {
  warning() << "the run that wrote '" << Dir
            << "' ended abnormally; its spill files were converted and the "
               "trace is marked incomplete\n";
}

bool readCostProfile(const std::string &Path,
                     std::shared_ptr<const analysis::MachineProfile> &Out) {
  if (Path.empty())
    return true;
  llvm::Expected<analysis::MachineProfile> Profile =
      analysis::readMachineProfile(Path);
  if (!Profile) {
    error() << llvm::toString(Profile.takeError()) << "\n";
    return false;
  }
  Out = std::make_shared<analysis::MachineProfile>(std::move(*Profile));
  return true;
}

} // namespace mpilift
