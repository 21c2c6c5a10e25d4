//===- GlobList.cpp - clang-tidy style check globs ------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/GlobList.h"

#include "llvm/ADT/SmallVector.h"

namespace mpilift {
namespace check {

bool matchesGlob(llvm::StringRef Pattern, llvm::StringRef Name) {
  // Iterative wildcard matching with backtracking to the last star.
  size_t P = 0, N = 0, Star = llvm::StringRef::npos, Mark = 0;
  while (N < Name.size()) {
    if (P < Pattern.size() && Pattern[P] == '*') {
      Star = P++;
      Mark = N;
    } else if (P < Pattern.size() && Pattern[P] == Name[N]) {
      ++P;
      ++N;
    } else if (Star != llvm::StringRef::npos) {
      P = Star + 1;
      N = ++Mark;
    } else {
      return false;
    }
  }
  while (P < Pattern.size() && Pattern[P] == '*')
    ++P;
  return P == Pattern.size();
}

GlobList::GlobList(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (llvm::StringRef Part : Parts) {
    Part = Part.trim();
    bool Positive = !Part.consume_front("-");
    Part = Part.trim();
    if (!Part.empty())
      Globs.push_back({Positive, Part.str()});
  }
}

bool GlobList::contains(llvm::StringRef Name) const {
  for (auto It = Globs.rbegin(); It != Globs.rend(); ++It)
    if (matchesGlob(It->Pattern, Name))
      return It->Positive;
  return false;
}

} // namespace check
} // namespace mpilift
