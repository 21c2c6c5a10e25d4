//===- Commands.cpp - What the subcommands of mpilift share -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/WithColor.h"

namespace mpilift {

namespace {

/// Standard error, written a line at a time. Under mpirun, whose own
/// messages share the stream, a message written piece by piece ("mpilift",
/// ": error: ", the text) could be cut by another process's lines.
class LineAtATime : public llvm::raw_ostream {
public:
  LineAtATime() {
    SetUnbuffered();
    enable_colors(llvm::errs().has_colors());
  }
  ~LineAtATime() override {
    if (!Pending.empty())
      llvm::errs() << Pending;
  }
  bool is_displayed() const override { return llvm::errs().is_displayed(); }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Pending.append(Ptr, Size);
    Written += Size;
    size_t End = Pending.rfind('\n');
    if (End == std::string::npos)
      return;
    llvm::errs().write(Pending.data(), End + 1);
    Pending.erase(0, End + 1);
  }
  uint64_t current_pos() const override { return Written; }

  std::string Pending;
  uint64_t Written = 0;
};

llvm::raw_ostream &lines() {
  static LineAtATime Stream;
  return Stream;
}

} // namespace

llvm::raw_ostream &error() {
  return llvm::WithColor::error(lines(), "mpilift");
}

llvm::raw_ostream &warning() {
  return llvm::WithColor::warning(lines(), "mpilift");
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
