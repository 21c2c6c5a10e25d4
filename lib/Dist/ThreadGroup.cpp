//===- ThreadGroup.cpp - Threads of one process as a group ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Dist/ThreadGroup.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>

namespace mpilift {
namespace dist {
namespace {

/// What the members of a group share: the values member 0 broadcast, and
/// the message each other member sent member 0 and it has not received yet.
struct Mailboxes {
  std::mutex Lock;
  std::condition_variable Changed;
  std::vector<int> Broadcast;
  std::vector<std::optional<std::string>> Sent;
};

class ThreadMember : public ProcessGroup {
public:
  ThreadMember(std::shared_ptr<Mailboxes> Boxes, int Rank, int Size)
      : Boxes(std::move(Boxes)), Rank(Rank), Size(Size) {}

  int rank() const override { return Rank; }
  int size() const override { return Size; }
  std::string memberName(int Member) const override {
    return "thread " + std::to_string(Member);
  }

  llvm::Expected<int> broadcast(int Value) override {
    std::unique_lock<std::mutex> Guard(Boxes->Lock);
    size_t Turn = Taken++;
    if (Rank == 0) {
      Boxes->Broadcast.push_back(Value);
      Boxes->Changed.notify_all();
      return Value;
    }
    Boxes->Changed.wait(Guard, [&] { return Boxes->Broadcast.size() > Turn; });
    return Boxes->Broadcast[Turn];
  }

  llvm::Error sendToFirst(std::string Data) override {
    std::unique_lock<std::mutex> Guard(Boxes->Lock);
    if (Rank == 0)
      return llvm::createStringError("member 0 cannot send to itself");
    // A member's next message waits until member 0 took the last one.
    Boxes->Changed.wait(Guard, [&] { return !Boxes->Sent[Rank]; });
    Boxes->Sent[Rank] = std::move(Data);
    Boxes->Changed.notify_all();
    return llvm::Error::success();
  }

  llvm::Expected<std::string> receiveFrom(int From) override {
    if (Rank != 0 || From <= 0 || From >= Size)
      return llvm::createStringError(
          "only member 0 receives, from another member");
    std::unique_lock<std::mutex> Guard(Boxes->Lock);
    Boxes->Changed.wait(Guard, [&] { return Boxes->Sent[From].has_value(); });
    std::string Data = std::move(*Boxes->Sent[From]);
    Boxes->Sent[From].reset();
    Boxes->Changed.notify_all();
    return Data;
  }

private:
  std::shared_ptr<Mailboxes> Boxes;
  int Rank, Size;
  size_t Taken = 0; ///< Broadcasts this member took part in.
};

} // namespace

std::vector<std::unique_ptr<ProcessGroup>> makeThreadGroup(int Size) {
  auto Boxes = std::make_shared<Mailboxes>();
  Boxes->Sent.resize(Size);
  std::vector<std::unique_ptr<ProcessGroup>> Members;
  for (int Rank = 0; Rank < Size; ++Rank)
    Members.push_back(std::make_unique<ThreadMember>(Boxes, Rank, Size));
  return Members;
}

} // namespace dist
} // namespace mpilift
