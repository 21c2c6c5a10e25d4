//===- ProjectFactsTest.cpp - What other units of a program do ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A unit's summary (field writes, escapes, definitions, main), its JSON
/// form, and how a field's proof reads the facts of the other units.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "RankUniformity.h"

#include "mpilift/Analysis/ProjectFacts.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

const char *const Helpers = R"(
struct panel { double *buf; int len, root, tag; };
typedef struct { int rows, cols; } grid_t;
void fill(struct panel *p);
struct panel *lookup(int id);
void setup(struct panel *p, grid_t *g) {
  p->root = 0;
  p->tag++;
  g->rows = 2;
  fill(p);
}
int sum(const struct panel *p) { return p->len + p->root; }
)";

const clang::FieldDecl *rootField(const Parsed &P) {
  for (const clang::Decl *D :
       P.AST->getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *R = llvm::dyn_cast<clang::RecordDecl>(D))
      if (R->getName() == "panel")
        for (const clang::FieldDecl *F : R->fields())
          if (F->getName() == "root")
            return F;
  return nullptr;
}

TEST(ProjectFactsTest, SummaryNamesWritesEscapesAndDefinitions) {
  Parsed P(std::string(Helpers) + R"(
struct panel *first(void) { return lookup(0); }
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  EXPECT_FALSE(S.DefinesMain);
  EXPECT_EQ(S.FieldWrites.count("panel::root"), 1u);
  EXPECT_EQ(S.FieldWrites.count("panel::tag"), 1u);
  EXPECT_EQ(S.FieldWrites.count("grid_t::rows"), 1u);
  // Only read: not a write.
  EXPECT_EQ(S.FieldWrites.count("panel::len"), 0u);
  // fill(p) gives the address to code without a body here, lookup returns
  // an object built there.
  ASSERT_EQ(S.RecordEscapes.count("panel"), 1u);
  ASSERT_EQ(S.RecordEscapes["panel"].size(), 2u);
  EXPECT_EQ(S.RecordEscapes["panel"][0].Callee, "c:@F@fill");
  EXPECT_EQ(S.RecordEscapes["panel"][1].Callee, "c:@F@lookup");
  EXPECT_EQ(S.Defines.count("c:@F@setup"), 1u);
  EXPECT_EQ(S.Defines.count("c:@F@fill"), 0u);
}

TEST(ProjectFactsTest, EscapesThroughCastsArithmeticAndArrays) {
  // Unknown code may write a structure however its address is spelled: cast
  // to another pointer type, moved by pointer arithmetic, or an array of
  // structures decayed. A constant array, or a pointer to a constant
  // structure passed as constant, is only read.
  Parsed P(R"(
struct cfg { int root, size; };
void *raw_read(void *dst, long n);
void raw_zero(char *p, long n);
long load_table(void *t);
void peek(const void *p);
void show(const void *p);
void use(struct cfg *c) {
  struct cfg table[4];
  static const struct cfg fixed[1] = {{0, 1}};
  const struct cfg *seen = c;
  raw_read((void *)c, sizeof *c);
  raw_zero((char *)c + sizeof(int), sizeof(int));
  load_table(table);
  peek(fixed);
  peek(seen);
  show((const void *)c);
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  ASSERT_EQ(S.RecordEscapes.count("cfg"), 1u);
  std::vector<std::string> Callees;
  for (const RecordEscape &E : S.RecordEscapes["cfg"])
    Callees.push_back(E.Callee);
  // show() gets a writable structure as const: it may cast that away.
  EXPECT_EQ(Callees,
            (std::vector<std::string>{"c:@F@raw_read", "c:@F@raw_zero",
                                      "c:@F@load_table", "c:@F@show"}));
}

TEST(ProjectFactsTest, JSONRoundTrip) {
  Parsed P(std::string(Helpers) + "int main(void) { return 0; }\n");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  EXPECT_TRUE(S.DefinesMain);
  llvm::json::Value V = toJSON(S);
  UnitSummary Back;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(V, Back, Root));
  EXPECT_EQ(toJSON(Back), V);
  EXPECT_EQ(Back.FieldWrites["panel::root"].front().Line,
            S.FieldWrites["panel::root"].front().Line);

  llvm::json::Value Broken = llvm::json::Object{
      {"file", "x.c"},
      {"defines_main", true},
      {"defines", {}},
      {"field_writes", llvm::json::Object{{"panel::root", 3}}},
      {"record_escapes", llvm::json::Object{}}};
  UnitSummary Bad;
  llvm::json::Path::Root BadRoot;
  EXPECT_FALSE(fromJSON(Broken, Bad, BadRoot));
}

UnitSummary otherUnit(std::string File) {
  UnitSummary U;
  U.File = std::move(File);
  return U;
}

TEST(ProjectFactsTest, WritesAndEscapesOfOtherUnits) {
  ProjectFacts Project;
  UnitSummary A = otherUnit("/p/a.c"), B = otherUnit("/p/b.c");
  A.FieldWrites["panel::root"] = {{"/p/a.c", 3, 5}};
  B.FieldWrites["panel::root"] = {{"/p/panel.h", 9, 1}, {"/p/b.c", 12, 3}};
  B.RecordEscapes["panel"] = {{{"/p/b.c", 20, 7}, "c:@F@copy"},
                              {{"/p/b.c", 21, 7}, "c:@F@fread"}};
  A.Defines.insert("c:@F@copy");
  Project.add(A);
  Project.add(B);
  auto None = [](llvm::StringRef) { return false; };
  auto Header = [](llvm::StringRef F) { return F == "/p/panel.h"; };
  // A unit's own writes are its check's to follow.
  std::optional<SourcePlace> W =
      Project.writeElsewhere("panel::root", "/p/a.c", None);
  ASSERT_TRUE(W);
  EXPECT_EQ(W->str(), "/p/panel.h:9:1");
  // A header the unit reads itself is followed there; b.c's own is not.
  W = Project.writeElsewhere("panel::root", "/p/a.c", Header);
  ASSERT_TRUE(W);
  EXPECT_EQ(W->str(), "/p/b.c:12:3");
  EXPECT_FALSE(Project.writeElsewhere("panel::len", "/p/a.c", None));
  // copy() is the project's; fread is not.
  std::optional<SourcePlace> E = Project.escapeElsewhere("panel", "/p/a.c");
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Line, 21);
  EXPECT_FALSE(Project.escapeElsewhere("panel", "/p/b.c"));
  EXPECT_FALSE(Project.definesMain());
}

const char *const Program = R"(
struct panel { double *buf; int len, root, tag; };
void helper(struct panel *p);
static void bcast(struct panel *p) {
  MPI_Bcast(p->buf, p->len, MPI_DOUBLE, p->root, MPI_COMM_WORLD);
}
int main(void) {
  struct panel p = {0, 4, 0, 1};
  helper(&p);
  bcast(&p);
  return 0;
}
)";

TEST(ProjectFactsTest, FieldProofReadsTheProject) {
  Parsed P(Program);
  ASSERT_TRUE(P.AST);
  const clang::FieldDecl *Root = rootField(P);
  ASSERT_NE(Root, nullptr);
  // Alone, helper() is code the unit cannot see.
  std::optional<Divergence> Why = RankUniformity(*P.TU).fieldDivergence(Root);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("goes here to code that may write"),
            std::string::npos)
      << Why->Reason;

  // Another unit defines helper() and leaves the root alone: proven.
  ProjectFacts Reads;
  UnitSummary H = otherUnit("/p/helper.c");
  H.Defines.insert("c:@F@helper");
  H.FieldWrites["panel::len"] = {{"/p/helper.c", 4, 3}};
  Reads.add(H);
  P.TU->setProject(&Reads);
  EXPECT_FALSE(RankUniformity(*P.TU).fieldDivergence(Root));

  // It writes the root: refused, naming where.
  ProjectFacts Writes;
  H.FieldWrites["panel::root"] = {{"/p/helper.c", 7, 3}};
  Writes.add(H);
  P.TU->setProject(&Writes);
  Why = RankUniformity(*P.TU).fieldDivergence(Root);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("'root' is also written in /p/helper.c:7:3"),
            std::string::npos)
      << Why->Reason;
}

TEST(ProjectFactsTest, WithoutMainFieldsMayComeFromOutside) {
  Parsed P(R"(
struct panel { double *buf; int len, root, tag; };
void bcast(struct panel *p) {
  MPI_Bcast(p->buf, p->len, MPI_DOUBLE, p->root, MPI_COMM_WORLD);
}
)");
  ASSERT_TRUE(P.AST);
  // Without a project: nothing shows who calls bcast.
  P.TU->setProject(nullptr);
  std::optional<Divergence> Why =
      RankUniformity(*P.TU).fieldDivergence(rootField(P));
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("this file has no main"), std::string::npos)
      << Why->Reason;
  ProjectFacts Library;
  Library.add(otherUnit("/p/other.c"));
  P.TU->setProject(&Library);
  Why = RankUniformity(*P.TU).fieldDivergence(rootField(P));
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("no unit of the project defines main"),
            std::string::npos)
      << Why->Reason;
}

TEST(ProjectFactsTest, CallersInOtherUnits) {
  Parsed P(R"(
int spread(int root) { return root + 1; }
static int local(int root) { return root; }
int main(void) { return spread(0) + local(0); }
)");
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *Spread = P.function("spread");
  const clang::FunctionDecl *Local = P.function("local");
  ASSERT_TRUE(Spread && Local);
  // The code is the whole program: main's call is all.
  EXPECT_FALSE(P.TU->unseenCallers(Spread));
  P.TU->setProject(nullptr);
  ASSERT_TRUE(P.TU->unseenCallers(Spread));
  EXPECT_NE(P.TU->unseenCallers(Spread)->find("no project index"),
            std::string::npos);
  EXPECT_FALSE(P.TU->unseenCallers(Local));

  ProjectFacts Project;
  Project.add(P.TU->summarize());
  UnitSummary Other = otherUnit("/p/other.c");
  Other.Calls["c:@F@spread"] = {{"/p/other.c", 5, 3}};
  Project.add(Other);
  P.TU->setProject(&Project);
  ASSERT_TRUE(P.TU->unseenCallers(Spread));
  EXPECT_EQ(*P.TU->unseenCallers(Spread),
            "'spread' is also called in /p/other.c:5:3, whose arguments and "
            "conditions this proof does not follow");
  EXPECT_FALSE(P.TU->unseenCallers(Local));

  ProjectFacts Table;
  Table.add(P.TU->summarize());
  Other.Calls.clear();
  Other.AddressTaken["c:@F@spread"] = {"/p/other.c", 9, 20};
  Table.add(Other);
  P.TU->setProject(&Table);
  ASSERT_TRUE(P.TU->unseenCallers(Spread));
  EXPECT_EQ(*P.TU->unseenCallers(Spread),
            "'spread' may be called through a pointer set in "
            "/p/other.c:9:20");
}

} // namespace
