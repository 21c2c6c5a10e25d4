//===- CalibrateCommand.cpp - mpilift calibrate ---------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Analysis/CostModel.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mpilift {
namespace {

namespace cl = llvm::cl;

/// mpilift-pingpong beside this executable, else on PATH.
std::optional<std::string> findPingPong(const char *Argv0) {
  std::string Self = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&findPingPong));
  llvm::SmallString<256> Beside(llvm::sys::path::parent_path(Self));
  llvm::sys::path::append(Beside, "mpilift-pingpong");
  if (llvm::sys::fs::can_execute(Beside))
    return Beside.str().str();
  if (llvm::ErrorOr<std::string> OnPath =
          llvm::sys::findProgramByName("mpilift-pingpong"))
    return *OnPath;
  return std::nullopt;
}

/// Runs `MPIRUN -np 2 PINGPONG SAMPLES` and returns what it printed.
llvm::Expected<std::string> runPingPong(llvm::StringRef MPIRun,
                                        const std::string &PingPong,
                                        unsigned Samples) {
  llvm::SmallVector<llvm::StringRef, 8> Words;
  MPIRun.split(Words, ' ', -1, false);
  if (Words.empty())
    return llvm::createStringError("--mpirun is empty");
  llvm::ErrorOr<std::string> Launcher =
      llvm::sys::findProgramByName(Words.front());
  if (!Launcher)
    return llvm::createStringError("cannot find '" + Words.front().str() +
                                   "' (name the launcher with --mpirun)");
  std::vector<std::string> Args(Words.begin(), Words.end());
  Args.insert(Args.end(), {"-np", "2", PingPong, std::to_string(Samples)});
  std::vector<llvm::StringRef> ArgRefs(Args.begin(), Args.end());
  llvm::SmallString<128> Output;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("mpilift-pingpong", "txt", Output))
    return llvm::createStringError("cannot create a temporary file: " +
                                   EC.message());
  llvm::FileRemover Remove(Output);
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, llvm::StringRef(Output), std::nullopt};
  std::string Problem;
  int Status = llvm::sys::ExecuteAndWait(*Launcher, ArgRefs, std::nullopt,
                                         Redirects, 0, 0, &Problem);
  if (Status != 0)
    return llvm::createStringError(
        "'" + llvm::join(Args, " ") + "' failed" +
        (Problem.empty() ? " with status " + std::to_string(Status)
                         : ": " + Problem));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
      llvm::MemoryBuffer::getFile(Output);
  if (!Text)
    return llvm::createStringError("cannot read what the ping-pong printed: " +
                                   Text.getError().message());
  return (*Text)->getBuffer().str();
}

void printProfile(const analysis::MachineProfile &P, llvm::StringRef Path) {
  llvm::outs() << llvm::formatv(
      "{0}: t_s {1:f2} us, t_w {2:f3} ns per byte, one operation {3:f3} ns "
      "(t_s = {4:f0} operations){5}\n",
      Path, P.StartupSeconds * 1e6, P.SecondsPerByte * 1e9,
      P.SecondsPerOperation * 1e9, P.StartupSeconds / P.SecondsPerOperation,
      P.Library.empty() ? "" : ", " + P.Library);
}

} // namespace

int runCalibrateCommand(int Argc, const char **Argv) {
  cl::OptionCategory Category("mpilift calibrate options");
  cl::opt<std::string> Output(
      "o", cl::desc("where to write the profile"), cl::value_desc("file"),
      cl::init("mpilift-profile.json"), cl::cat(Category));
  cl::opt<std::string> MPIRun(
      "mpirun",
      cl::desc("the launcher and its options, as one string (the ping-pong "
               "runs on 2 processes)"),
      cl::init("mpirun"), cl::cat(Category));
  cl::opt<unsigned> Samples(
      "samples", cl::desc("batches timed per message size (their median)"),
      cl::init(15), cl::cat(Category));
  cl::opt<std::string> PingPong(
      "pingpong",
      cl::desc("the mpilift-pingpong program (default: beside mpilift, or on "
               "PATH)"),
      cl::cat(Category));
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "mpilift calibrate: measure t_s and t_w for the fusion cost model\n",
          &llvm::errs()))
    return ExitBadInput;
  if (Samples < 1 || Samples > 1000) {
    error() << "--samples must be 1 to 1000, not " << Samples << "\n";
    return ExitBadInput;
  }
  std::optional<std::string> Program =
      PingPong.empty() ? findPingPong(Argv[0])
                       : std::optional<std::string>(PingPong);
  if (!Program) {
    error() << "cannot find mpilift-pingpong beside mpilift or on PATH (name "
               "it with --pingpong)\n";
    return ExitBadInput;
  }
  llvm::Expected<std::string> Printed = runPingPong(MPIRun, *Program, Samples);
  if (!Printed) {
    error() << llvm::toString(Printed.takeError()) << "\n";
    return ExitBadInput;
  }
  llvm::Expected<analysis::MachineProfile> Profile =
      analysis::fitPingPongOutput(*Printed);
  if (!Profile) {
    error() << llvm::toString(Profile.takeError()) << "\n";
    return ExitBadInput;
  }
  if (llvm::Error E = analysis::writeMachineProfile(*Profile, Output)) {
    error() << "cannot write '" << Output
            << "': " << llvm::toString(std::move(E)) << "\n";
    return ExitBadInput;
  }
  printProfile(*Profile, Output);
  return ExitClean;
}

} // namespace mpilift
