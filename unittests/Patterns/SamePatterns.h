//===- SamePatterns.h - Two searches found the same patterns -----*- C++
//-*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_UNITTESTS_PATTERNS_SAMEPATTERNS_H
#define MPILIFT_UNITTESTS_PATTERNS_SAMEPATTERNS_H

#include "mpilift/Patterns/Detect.h"

#include "gtest/gtest.h"

namespace mpilift {
namespace testutil {

/// Expects \p A and \p B to be the same patterns, field by field, in the
/// same order (the same trace searched two ways).
inline void expectSamePatterns(const std::vector<patterns::Pattern> &A,
                               const std::vector<patterns::Pattern> &B) {
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I < A.size(); ++I) {
    SCOPED_TRACE("pattern " + std::to_string(I));
    const patterns::Pattern &X = A[I], &Y = B[I];
    EXPECT_EQ(X.Collective, Y.Collective);
    EXPECT_EQ(X.Topology, Y.Topology);
    EXPECT_EQ(X.Comm, Y.Comm);
    EXPECT_EQ(X.Root, Y.Root);
    EXPECT_EQ(X.Roots, Y.Roots);
    EXPECT_EQ(X.Bytes, Y.Bytes);
    EXPECT_EQ(X.MaxBytes, Y.MaxBytes);
    EXPECT_EQ(X.Occurrences, Y.Occurrences);
    EXPECT_EQ(X.Segments, Y.Segments);
    EXPECT_EQ(X.Evidence, Y.Evidence);
    EXPECT_EQ(X.Contents, Y.Contents);
    EXPECT_EQ(X.Note, Y.Note);
    ASSERT_EQ(X.Sites.size(), Y.Sites.size());
    for (size_t K = 0; K < X.Sites.size(); ++K) {
      EXPECT_EQ(X.Sites[K].Site, Y.Sites[K].Site);
      EXPECT_EQ(X.Sites[K].Send, Y.Sites[K].Send);
      EXPECT_EQ(X.Sites[K].Ranks, Y.Sites[K].Ranks);
    }
  }
}

} // namespace testutil
} // namespace mpilift

#endif // MPILIFT_UNITTESTS_PATTERNS_SAMEPATTERNS_H
