//===- EvalValueTest.cpp - The evaluator's memory cells -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An object's cells behave as the map from byte offset to value they
/// replace: kept sorted whatever the order of the writes, found exactly,
/// erased by the range of offsets they start in.
///
//===----------------------------------------------------------------------===//

#include "EvalValue.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis::eval;

namespace {

std::vector<int64_t> offsets(const Object::CellMap &Cells) {
  std::vector<int64_t> Out;
  for (const auto &[Off, Cell] : Cells)
    Out.push_back(Off);
  return Out;
}

TEST(EvalValueTest, CellsStaySortedByOffset) {
  Object::CellMap Cells;
  for (int64_t Off : {16, 0, 8, 24, 4})
    Cells[Off] = {Value::integer(Off), 4};
  EXPECT_EQ(offsets(Cells), (std::vector<int64_t>{0, 4, 8, 16, 24}));
  // Writing an offset again replaces its cell.
  Cells[8] = {Value::integer(99), 8};
  EXPECT_EQ(Cells.size(), 5u);
  EXPECT_EQ(Cells.find(8)->second.V.I, 99);
  EXPECT_EQ(Cells.find(8)->second.Bytes, 8u);
}

TEST(EvalValueTest, FindIsExactLowerBoundIsNot) {
  Object::CellMap Cells;
  Cells[0] = {Value::integer(1), 4};
  Cells[8] = {Value::integer(2), 4};
  EXPECT_EQ(Cells.find(4), Cells.end());
  EXPECT_EQ(Cells.count(8), 1u);
  EXPECT_EQ(Cells.count(9), 0u);
  ASSERT_NE(Cells.lower_bound(4), Cells.end());
  EXPECT_EQ(Cells.lower_bound(4)->first, 8);
  EXPECT_EQ(Cells.lower_bound(9), Cells.end());
}

TEST(EvalValueTest, EraseFromLowerBoundRemovesARange) {
  Object::CellMap Cells;
  for (int64_t Off = 0; Off < 40; Off += 8)
    Cells[Off] = {Value::integer(Off), 8};
  // The cells starting in [4, 24): those at 8 and 16.
  Cells.eraseStarting(4, 24);
  EXPECT_EQ(offsets(Cells), (std::vector<int64_t>{0, 24, 32}));
  // A range past the last cell's start takes it too.
  Cells.eraseStarting(20, 33);
  EXPECT_EQ(offsets(Cells), (std::vector<int64_t>{0}));
  Cells.clear();
  EXPECT_TRUE(Cells.empty());
}

} // namespace
