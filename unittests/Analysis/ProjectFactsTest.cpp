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

#include "CombineFunctions.h"
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
  // A constant where every caller of setup() gets: the same on every rank
  // if every rank runs setup(), which the unit reading it judges.
  ASSERT_EQ(S.FieldValues["panel::root"].size(), 1u);
  EXPECT_EQ(S.FieldValues["panel::root"][0].ValueKind,
            FieldValue::Kind::Uniform);
  EXPECT_EQ(S.FieldValues["panel::root"][0].Function, "c:@F@setup");
  ASSERT_EQ(S.FieldValues["panel::tag"].size(), 1u);
  EXPECT_EQ(S.FieldValues["panel::tag"][0].ValueKind, FieldValue::Kind::Other);
  EXPECT_EQ(S.FieldValues["panel::tag"][0].Reason,
            "it is changed in a way that cannot be followed");
  ASSERT_EQ(S.FieldValues["grid_t::rows"].size(), 1u);
  EXPECT_EQ(S.FieldValues["grid_t::rows"][0].ValueKind,
            FieldValue::Kind::Uniform);
  // Only read: not a write.
  EXPECT_EQ(S.FieldValues.count("panel::len"), 0u);
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

TEST(ProjectFactsTest, SummaryJudgesEveryCallOfTheProgram) {
  Parsed P(R"(
int spread(int root, int n, MPI_Comm comm);
int forward(int root) { return spread(root, 3, MPI_COMM_WORLD); }
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  spread(0, 4, MPI_COMM_WORLD);
  if (rank == 0)
    spread(1, argc, MPI_COMM_WORLD);
  forward(2);
  spread(0, rank, MPI_COMM_WORLD);
  return 0;
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  // MPI's functions are the library's: no records.
  EXPECT_EQ(S.CallRecords.count("c:@F@MPI_Comm_rank"), 0u);
  const std::vector<CallRecord> &Spread = S.CallRecords["c:@F@spread"];
  ASSERT_EQ(Spread.size(), 4u);
  // In forward(): its parameter is for the reading unit to judge.
  EXPECT_EQ(Spread[0].Caller, "c:@F@forward");
  EXPECT_FALSE(Spread[0].CallerIsMain);
  EXPECT_TRUE(Spread[0].Control.Uniform);
  ASSERT_EQ(Spread[0].Arguments.size(), 3u);
  EXPECT_TRUE(Spread[0].Arguments[0].Uniform);
  EXPECT_EQ(Spread[0].Arguments[0].Params,
            (std::vector<ParamKey>{{"c:@F@forward", 0}}));
  EXPECT_EQ(Spread[0].Arguments[1].Constant, 3);
  EXPECT_TRUE(Spread[0].Arguments[2].Uniform);
  // In main, where every rank gets, with constants.
  EXPECT_TRUE(Spread[1].CallerIsMain);
  EXPECT_TRUE(Spread[1].Control.Uniform);
  EXPECT_EQ(Spread[1].Arguments[0].Constant, 0);
  // On rank 0 only, with the program's input.
  EXPECT_FALSE(Spread[2].Control.Uniform);
  EXPECT_NE(Spread[2].Control.Reason.find("'rank == 0'"), std::string::npos)
      << Spread[2].Control.Reason;
  EXPECT_FALSE(Spread[2].Arguments[1].Uniform);
  EXPECT_NE(Spread[2].Arguments[1].Reason.find("argc"), std::string::npos)
      << Spread[2].Arguments[1].Reason;
  // A predefined communicator, and a rank query's result on one: the
  // reading unit knows a parameter as the rank through them.
  EXPECT_EQ(Spread[1].Arguments[2].Comm, "MPI_COMM_WORLD");
  EXPECT_EQ(Spread[1].Arguments[2].Query, "");
  EXPECT_EQ(Spread[3].Arguments[1].Query, "rank");
  EXPECT_EQ(Spread[3].Arguments[1].Comm, "MPI_COMM_WORLD");
  EXPECT_FALSE(Spread[3].Arguments[1].Uniform);
  // A function of the program defined here is recorded too.
  ASSERT_EQ(S.CallRecords["c:@F@forward"].size(), 1u);
  EXPECT_EQ(S.CallRecords["c:@F@forward"][0].Arguments[0].Constant, 2);

  llvm::json::Value V = toJSON(S);
  UnitSummary Back;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(V, Back, Root));
  EXPECT_EQ(toJSON(Back), V);
}

TEST(ProjectFactsTest, SummaryNamesFunctionsCalledWhereNoCallNamesThem) {
  Parsed P(R"(
struct Base { virtual void step(int n); };
struct Derived : Base { void step(int n) override; Derived(); ~Derived(); };
void Base::step(int n) {}
void Derived::step(int n) {}
Derived::Derived() {}
Derived::~Derived() {}
static void callback(int n) {}
static void plain(int n) {}
void take(void (*f)(int));
int main() {
  auto twice = [](int n) { return 2 * n; };
  take(callback);
  plain(twice(1));
  return 0;
}
)",
           /*CXX=*/true);
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  auto Implicit = [&](llvm::StringRef Name) {
    return llvm::any_of(S.ImplicitlyCalled, [&](const std::string &Key) {
      return llvm::StringRef(Key).contains(Name);
    });
  };
  EXPECT_TRUE(Implicit("@S@Base@F@step"));
  EXPECT_TRUE(Implicit("@S@Derived@F@step"));
  EXPECT_TRUE(Implicit("@S@Derived@F@Derived"));
  EXPECT_TRUE(Implicit("@F@~Derived"));
  EXPECT_TRUE(Implicit("@F@callback"));
  EXPECT_TRUE(Implicit("operator()"));
  EXPECT_FALSE(Implicit("@F@plain"));
  EXPECT_EQ(S.ImplicitlyCalled.count("c:@F@main#"), 0u);
}

TEST(ProjectFactsTest, SummaryNamesFunctionsThatEndTheProgram) {
  Parsed P(R"(
void exit(int);
void report(int line);
void die(int line) {
  report(line);
  MPI_Abort(MPI_COMM_WORLD, line);
}
void die_twice(int line) {
  if (line < 0)
    die(-line);
  (void)MPI_Abort(MPI_COMM_WORLD, line);
  exit(1);
}
void may_return(int line) {
  if (line == 0)
    return;
  exit(line);
}
void ends_in_branch(int line) {
  if (line)
    exit(line);
}
int main(void) { die(1); return 0; }
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  auto Ends = [&](llvm::StringRef Name) {
    return S.NeverReturn.count("c:@F@" + Name.str()) != 0;
  };
  EXPECT_TRUE(Ends("die"));
  EXPECT_TRUE(Ends("die_twice"));
  EXPECT_FALSE(Ends("may_return"));
  EXPECT_FALSE(Ends("ends_in_branch"));
  EXPECT_FALSE(Ends("main"));
  llvm::json::Path::Root Root;
  UnitSummary Back;
  ASSERT_TRUE(fromJSON(toJSON(S), Back, Root));
  EXPECT_EQ(Back.NeverReturn, S.NeverReturn);
  ProjectFacts Project;
  Project.add(S);
  EXPECT_TRUE(Project.neverReturns("c:@F@die"));
  EXPECT_FALSE(Project.neverReturns("c:@F@may_return"));
}

TEST(ProjectFactsTest, SummaryJudgesWhatFunctionsReturnThroughPointers) {
  Parsed P(R"(
int atoi(const char *);
int get_n(char **argv, int *n, int *reps, int *me_out, const int *limit) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  *reps = 3;
  if (me == 0)
    *n = atoi(argv[1]);
  MPI_Bcast(n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, me_out);
  return *limit;
}
void copy_out(int *n) { int *q = n; *q = 1; }
void from_param(int *n, int v) { *n = v; }
void after_return(int *n) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    *n = 1;
    return;
  }
  MPI_Bcast(n, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
static void hidden(int *n) { *n = 2; }
int main(int argc, char **argv) {
  int n, reps, me, limit = 4;
  hidden(&n);
  return get_n(argv, &n, &reps, &me, &limit);
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  auto Out = [&](llvm::StringRef Name,
                 unsigned Index) -> std::optional<SharedValue> {
    auto It = S.OutValues.find("c:@F@" + Name.str());
    if (It == S.OutValues.end())
      return std::nullopt;
    for (const OutValue &V : It->second)
      if (V.Index == Index)
        return V.Value;
    return std::nullopt;
  };
  // Parsed on process 0 and broadcast; set outright; the rank; read only.
  ASSERT_TRUE(Out("get_n", 1));
  EXPECT_TRUE(Out("get_n", 1)->Uniform) << Out("get_n", 1)->Reason;
  ASSERT_TRUE(Out("get_n", 2));
  EXPECT_TRUE(Out("get_n", 2)->Uniform);
  ASSERT_TRUE(Out("get_n", 3));
  EXPECT_FALSE(Out("get_n", 3)->Uniform);
  EXPECT_EQ(Out("get_n", 3)->Reason,
            "'*me_out' is the rank of the calling process");
  EXPECT_FALSE(Out("get_n", 4));
  // Copied into another pointer: not followed.
  ASSERT_TRUE(Out("copy_out", 0));
  EXPECT_FALSE(Out("copy_out", 0)->Uniform);
  // A parameter's value: left to the reader, who sees every call.
  ASSERT_TRUE(Out("from_param", 0));
  EXPECT_TRUE(Out("from_param", 0)->Uniform);
  ASSERT_EQ(Out("from_param", 0)->Params.size(), 1u);
  EXPECT_EQ(Out("from_param", 0)->Params[0].Index, 1u);
  // Process 0 returns before the broadcast that would replace its write.
  ASSERT_TRUE(Out("after_return", 0));
  EXPECT_FALSE(Out("after_return", 0)->Uniform);
  // Only functions other units may call are summarised.
  EXPECT_EQ(S.OutValues.count("c:@F@hidden"), 0u);

  llvm::json::Path::Root Root;
  UnitSummary Back;
  ASSERT_TRUE(fromJSON(toJSON(S), Back, Root));
  ASSERT_EQ(Back.OutValues.size(), S.OutValues.size());
  ProjectFacts Project;
  Project.add(Back);
  ASSERT_TRUE(Project.outValue("c:@F@get_n", 1));
  EXPECT_TRUE(Project.outValue("c:@F@get_n", 1)->Uniform);
  EXPECT_FALSE(Project.outValue("c:@F@get_n", 4));
  EXPECT_FALSE(Project.outValue("c:@F@get_n", 3)->Uniform);
}

TEST(ProjectFactsTest, SummaryNamesFunctionsThatAreBroadcasts) {
  Parsed P(R"(
typedef enum { KIND_INT = 100, KIND_DOUBLE = 101 } kind_t;
#define KIND_TYPE(k) ((k) == KIND_INT ? MPI_INT : MPI_DOUBLE)
int tree(void *buf, int count, kind_t kind, int root, MPI_Comm comm) {
  int me, np, rel, span, err = MPI_SUCCESS;
  if (count <= 0)
    return MPI_SUCCESS;
  MPI_Comm_size(comm, &np);
  if (np < 2)
    return MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  rel = (me - root + np) % np;
  for (span = 1; span < np; span <<= 1) {
    if (rel < span) {
      if (rel + span < np)
        err = MPI_Send(buf, count, KIND_TYPE(kind), (me + span) % np, 5, comm);
    } else if (rel < 2 * span) {
      err = MPI_Recv(buf, count, KIND_TYPE(kind), (me - span + np) % np, 5,
                     comm, MPI_STATUS_IGNORE);
    }
  }
  return err;
}
int mpich_tree(void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm) {
  int me, np, rel, mask = 1, err = MPI_SUCCESS;
  if (count <= 0)
    return MPI_SUCCESS;
  MPI_Comm_size(comm, &np);
  if (np < 2)
    return MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  rel = (me - root + np) % np;
  while (mask < np) {
    if (rel & mask) {
      err = MPI_Recv(buf, count, type, (me - mask + np) % np, 6, comm,
                     MPI_STATUS_IGNORE);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < np)
      err = MPI_Send(buf, count, type, (me + mask) % np, 6, comm);
    mask >>= 1;
  }
  return err;
}
int first_two(double *buf, int count, MPI_Comm comm) {
  int me;
  MPI_Comm_rank(comm, &me);
  if (me == 0)
    MPI_Send(buf, count, MPI_DOUBLE, 1, 5, comm);
  else if (me == 1)
    MPI_Recv(buf, count, MPI_DOUBLE, 0, 5, comm, MPI_STATUS_IGNORE);
  return 0;
}
int stamped(int *buf, int count, int root, MPI_Comm comm) {
  int me, np, q;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == root) {
    for (q = 0; q < np; q++)
      if (q != root)
        MPI_Send(buf, count, MPI_INT, q, 5, comm);
  } else {
    MPI_Recv(buf, count, MPI_INT, root, 5, comm, MPI_STATUS_IGNORE);
  }
  buf[0] = me;
  return 0;
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  // The tree: every parameter a broadcast's argument, the datatype one for
  // each value of the kind.
  ASSERT_EQ(S.Broadcasts.count("c:@F@tree"), 1u);
  const BroadcastFunction &B = S.Broadcasts["c:@F@tree"];
  EXPECT_EQ(B.Buffer, 0u);
  EXPECT_EQ(B.CountParam, std::optional<unsigned>(1));
  EXPECT_EQ(B.TypeParam, std::optional<unsigned>(2));
  ASSERT_EQ(B.TypeByValue.size(), 2u);
  EXPECT_EQ(B.TypeByValue[0],
            std::make_pair(int64_t(100), std::string("MPI_INT")));
  EXPECT_EQ(B.TypeByValue[1],
            std::make_pair(int64_t(101), std::string("MPI_DOUBLE")));
  EXPECT_EQ(B.RootParam, std::optional<unsigned>(3));
  EXPECT_EQ(B.Comm, 4u);
  EXPECT_TRUE(llvm::is_contained(B.Uniform, 3u));
  // MPICH's two loops, the datatype passed on as it is.
  ASSERT_EQ(S.Broadcasts.count("c:@F@mpich_tree"), 1u);
  const BroadcastFunction &M = S.Broadcasts["c:@F@mpich_tree"];
  EXPECT_EQ(M.TypeArg, std::optional<unsigned>(2));
  EXPECT_EQ(M.TypeParam, std::nullopt);
  EXPECT_EQ(M.typeFor(std::nullopt, "MPI_LONG"), "MPI_LONG");
  EXPECT_EQ(M.RootParam, std::optional<unsigned>(3));
  // Two processes only; a broadcast that then writes the buffer.
  EXPECT_EQ(S.Broadcasts.count("c:@F@first_two"), 0u);
  EXPECT_EQ(S.Broadcasts.count("c:@F@stamped"), 0u);

  llvm::json::Path::Root Root;
  UnitSummary Back;
  ASSERT_TRUE(fromJSON(toJSON(S), Back, Root));
  EXPECT_EQ(toJSON(Back), toJSON(S));
  ProjectFacts Project;
  Project.add(Back);
  ASSERT_TRUE(Project.broadcastFunction("c:@F@tree"));
  EXPECT_EQ(Project.broadcastFunction("c:@F@tree")->TypeByValue, B.TypeByValue);
  ASSERT_TRUE(Project.broadcastFunction("c:@F@mpich_tree"));
  EXPECT_EQ(Project.broadcastFunction("c:@F@mpich_tree")->TypeArg, M.TypeArg);
  EXPECT_FALSE(Project.broadcastFunction("c:@F@stamped"));
}

TEST(ProjectFactsTest, SummaryNamesCombineFunctions) {
  Parsed P(R"(
void add_ints(int n, const int *in, int *inout) {
  for (int i = 0; i < n; i++)
    inout[i] += in[i];
}
void max_doubles(const double *a, double *b, long count) {
  long k;
  for (k = 0; k < count; ++k) {
    if (a[k] > b[k])
      b[k] = a[k];
  }
  return;
}
int calls;
void add_counted(int n, const int *in, int *inout) {
  for (int i = 0; i < n; i++)
    inout[i] += in[i];
  calls++;
}
void add_one_more(int n, const int *in, int *inout) {
  for (int i = 0; i <= n; i++)
    inout[i] += in[i];
}
void add_shifted(int n, const int *in, int *inout) {
  for (int i = 0; i < n; i++)
    inout[i] += in[i + 1];
}
void hash_into(int n, const int *in, int *inout) {
  for (int i = 0; i < n; i++)
    inout[i] = inout[i] * 31 + in[i];
}
void widen(int n, const int *in, long *inout) {
  for (int i = 0; i < n; i++)
    inout[i] += in[i];
}
static void add_local(int n, const int *in, int *inout) {
  for (int i = 0; i < n; i += 1)
    inout[i] = inout[i] + in[i];
}
void use(int *a, int *b) { add_local(2, a, b); }
typedef enum { T_INT = 7, T_DOUBLE = 8, T_LONG = 9 } type_t;
void typed_max(const int N, const void *IN, void *INOUT, const type_t T) {
  register int i;
  if (T == T_INT) {
    const int *a = (const int *)(IN);
    int *b = (int *)(INOUT);
    for (i = 0; i < N; i++)
      b[i] = a[i] > b[i] ? a[i] : b[i];
  } else if (T_LONG == T) {
    const long *a = (const long *)IN;
    long *b = (long *)INOUT;
    for (i = 0; i < N; i++)
      b[i] = a[i] > b[i] ? a[i] : b[i];
  } else {
    const double *a = (const double *)(IN);
    double *b = (double *)(INOUT);
    for (i = 0; i < N; i++)
      b[i] = a[i] > b[i] ? a[i] : b[i];
  }
}
void typed_mixed(const int N, const void *IN, void *INOUT, const type_t T) {
  int i;
  if (T == T_INT) {
    const int *a = (const int *)(IN);
    int *b = (int *)(INOUT);
    for (i = 0; i < N; i++)
      b[i] += a[i];
  } else {
    const double *a = (const double *)(IN);
    double *b = (double *)(INOUT);
    for (i = 0; i < N; i++)
      b[i] = a[i] > b[i] ? a[i] : b[i];
  }
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  ASSERT_EQ(S.Combines.count("c:@F@add_ints"), 1u);
  const CombineFunction &Add = S.Combines["c:@F@add_ints"];
  EXPECT_EQ(Add.Count, 0u);
  EXPECT_EQ(Add.From, 1u);
  EXPECT_EQ(Add.Into, 2u);
  EXPECT_EQ(Add.Op, "MPI_SUM");
  EXPECT_EQ(Add.Element, "int");
  ASSERT_EQ(S.Combines.count("c:@F@max_doubles"), 1u);
  const CombineFunction &Max = S.Combines["c:@F@max_doubles"];
  EXPECT_EQ(Max.Count, 2u);
  EXPECT_EQ(Max.From, 0u);
  EXPECT_EQ(Max.Into, 1u);
  EXPECT_EQ(Max.Op, "MPI_MAX");
  EXPECT_EQ(Max.Element, "double");
  // A parameter picks the loop by the elements' type (HPL's HPL_max).
  ASSERT_EQ(S.Combines.count("c:@F@typed_max"), 1u);
  const CombineFunction &Typed = S.Combines["c:@F@typed_max"];
  EXPECT_EQ(Typed.From, 1u);
  EXPECT_EQ(Typed.Into, 2u);
  EXPECT_EQ(Typed.TypeParam, std::optional<unsigned>(3));
  EXPECT_EQ(Typed.Op, "MPI_MAX");
  ASSERT_EQ(Typed.ElementByValue.size(), 2u);
  EXPECT_EQ(Typed.ElementByValue[0],
            std::make_pair(int64_t(7), std::string("int")));
  EXPECT_EQ(Typed.ElementByValue[1],
            std::make_pair(int64_t(9), std::string("long")));
  EXPECT_EQ(Typed.Element, "double");
  EXPECT_EQ(elementFor(Typed, 9), "long");
  EXPECT_EQ(elementFor(Typed, 8), "double");
  EXPECT_EQ(elementFor(Typed, std::nullopt), "");
  // More than the loop; one element too many; another element; none of
  // MPI's operations; values of another type; not visible to other units;
  // a sum for one type and a maximum for another.
  for (const char *Not : {"add_counted", "add_one_more", "add_shifted",
                          "hash_into", "widen", "add_local", "typed_mixed"})
    EXPECT_EQ(S.Combines.count(std::string("c:@F@") + Not), 0u) << Not;

  llvm::json::Path::Root Root;
  UnitSummary Back;
  ASSERT_TRUE(fromJSON(toJSON(S), Back, Root));
  EXPECT_EQ(toJSON(Back), toJSON(S));
  ProjectFacts Project;
  Project.add(Back);
  ASSERT_TRUE(Project.combineFunction("c:@F@max_doubles"));
  EXPECT_EQ(Project.combineFunction("c:@F@max_doubles")->Op, "MPI_MAX");
  EXPECT_FALSE(Project.combineFunction("c:@F@add_counted"));
  ASSERT_TRUE(Project.combineFunction("c:@F@typed_max"));
  EXPECT_EQ(Project.combineFunction("c:@F@typed_max")->ElementByValue,
            Typed.ElementByValue);
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
  EXPECT_EQ(Back.FieldValues["panel::root"].front().Where.Line,
            S.FieldValues["panel::root"].front().Where.Line);
  EXPECT_EQ(Back.FieldValues["panel::root"].front().Function, "c:@F@setup");

  llvm::json::Value Broken = llvm::json::Object{
      {"file", "x.c"},
      {"defines_main", true},
      {"defines", {}},
      {"field_values", llvm::json::Object{{"panel::root", 3}}},
      {"call_records", llvm::json::Object{}},
      {"implicitly_called", llvm::json::Array{}},
      {"record_escapes", llvm::json::Object{}}};
  UnitSummary Bad;
  llvm::json::Path::Root BadRoot;
  EXPECT_FALSE(fromJSON(Broken, Bad, BadRoot));

  FieldValue Unknown;
  llvm::json::Path::Root KindRoot;
  llvm::json::Value Where =
      llvm::json::Object{{"file", "x.c"}, {"line", 1}, {"column", 1}};
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"kind", "constant"},
                                           {"where", Where},
                                           {"comm", ""},
                                           {"function", ""},
                                           {"reason", ""}},
                        Unknown, KindRoot));
  llvm::json::Path::Root RankRoot;
  ASSERT_TRUE(fromJSON(llvm::json::Object{{"kind", "rank"},
                                          {"where", Where},
                                          {"comm", "grid::row_comm"},
                                          {"function", ""},
                                          {"reason", ""}},
                       Unknown, RankRoot));
  EXPECT_EQ(Unknown.ValueKind, FieldValue::Kind::Rank);
  EXPECT_EQ(Unknown.Comm, "grid::row_comm");
}

UnitSummary otherUnit(std::string File) {
  UnitSummary U;
  U.File = std::move(File);
  return U;
}

TEST(ProjectFactsTest, WritesAndEscapesOfOtherUnits) {
  ProjectFacts Project;
  UnitSummary A = otherUnit("/p/a.c"), B = otherUnit("/p/b.c");
  auto Written = [](SourcePlace Where) {
    FieldValue V;
    V.Where = std::move(Where);
    return V;
  };
  A.FieldValues["panel::root"] = {Written({"/p/a.c", 3, 5})};
  B.FieldValues["panel::root"] = {Written({"/p/panel.h", 9, 1}),
                                  Written({"/p/b.c", 12, 3})};
  B.RecordEscapes["panel"] = {{{"/p/b.c", 20, 7}, "c:@F@copy"},
                              {{"/p/b.c", 21, 7}, "c:@F@fread"}};
  A.Defines.insert("c:@F@copy");
  Project.add(A);
  Project.add(B);
  auto None = [](llvm::StringRef) { return false; };
  auto Header = [](llvm::StringRef F) { return F == "/p/panel.h"; };
  // A unit's own writes are its check's to follow.
  std::vector<FieldValue> W =
      Project.valuesElsewhere("panel::root", "/p/a.c", None);
  ASSERT_EQ(W.size(), 2u);
  EXPECT_EQ(W[0].Where.str(), "/p/panel.h:9:1");
  EXPECT_EQ(W[1].Where.str(), "/p/b.c:12:3");
  // A header the unit reads itself is followed there; b.c's own is not.
  W = Project.valuesElsewhere("panel::root", "/p/a.c", Header);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0].Where.str(), "/p/b.c:12:3");
  EXPECT_TRUE(Project.valuesElsewhere("panel::len", "/p/a.c", None).empty());
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
  FieldValue Len;
  Len.Where = {"/p/helper.c", 4, 3};
  H.FieldValues["panel::len"] = {Len};
  Reads.add(H);
  P.TU->setProject(&Reads);
  EXPECT_FALSE(RankUniformity(*P.TU).fieldDivergence(Root));

  // It writes the root with a value its unit could not judge: refused,
  // naming where and why.
  auto WithRoot = [&](FieldValue V) {
    UnitSummary U = H;
    U.FieldValues["panel::root"] = {std::move(V)};
    auto Project = std::make_unique<ProjectFacts>();
    Project->add(std::move(U));
    return Project;
  };
  auto Reason = [&](const ProjectFacts &Project) {
    P.TU->setProject(&Project);
    std::optional<Divergence> Why = RankUniformity(*P.TU).fieldDivergence(Root);
    P.TU->setProject(nullptr);
    return Why ? Why->Reason : std::string();
  };
  FieldValue Other;
  Other.Where = {"/p/helper.c", 7, 3};
  Other.Reason = "the rank of the calling process";
  EXPECT_EQ(Reason(*WithRoot(Other)),
            "'root' is given a value in /p/helper.c:7:3 that may differ "
            "between ranks: the rank of the calling process");

  // The same value on every rank in helper(), which main calls on every
  // rank: proven across the units.
  FieldValue Uniform = Other;
  Uniform.ValueKind = FieldValue::Kind::Uniform;
  Uniform.Function = "c:@F@helper";
  EXPECT_EQ(Reason(*WithRoot(Uniform)), "");
  // In a function no unit calls, the write never runs.
  Uniform.Function = "c:@F@elsewhere";
  EXPECT_EQ(Reason(*WithRoot(Uniform)), "");
  // One another unit calls: which ranks run it is what that unit's
  // record of the call says. A call it lists without judging it: refused.
  auto CalledBy = [&](std::optional<CallRecord> Record) {
    std::unique_ptr<ProjectFacts> Called = WithRoot(Uniform);
    UnitSummary Caller = otherUnit("/p/caller.c");
    Caller.Calls["c:@F@elsewhere"] = {{"/p/caller.c", 3, 3}};
    if (Record)
      Caller.CallRecords["c:@F@elsewhere"] = {*Record};
    Called->add(Caller);
    return Reason(*Called);
  };
  EXPECT_NE(CalledBy(std::nullopt).find("does not judge this call"),
            std::string::npos);
  // Called from main where every rank gets: proven.
  CallRecord FromMain;
  FromMain.Where = {"/p/caller.c", 3, 3};
  FromMain.Caller = "c:@F@main";
  FromMain.CallerIsMain = true;
  FromMain.Control.Uniform = true;
  EXPECT_EQ(CalledBy(FromMain), "");
  // Under a condition that unit could not judge: refused, naming it.
  CallRecord OnSome = FromMain;
  OnSome.Control.Uniform = false;
  OnSome.Control.Reason = "the condition 'rank < 2' may differ between ranks";
  EXPECT_EQ(CalledBy(OnSome),
            "'root' is given a value in /p/helper.c:7:3 by 'elsewhere', "
            "which some ranks may run and others not: 'elsewhere' is called "
            "in /p/caller.c:3:3, where some ranks may make the call and "
            "others not: the condition 'rank < 2' may differ between ranks");
  // From a function nothing calls: the call never runs.
  CallRecord FromUncalled = FromMain;
  FromUncalled.Caller = "c:@F@uncalled";
  FromUncalled.CallerIsMain = false;
  EXPECT_EQ(CalledBy(FromUncalled), "");
  // Unless that function may run where no call names it (a virtual
  // function, a lambda, one whose address its unit takes).
  {
    std::unique_ptr<ProjectFacts> Called = WithRoot(Uniform);
    UnitSummary Caller = otherUnit("/p/caller.c");
    Caller.CallRecords["c:@F@elsewhere"] = {FromUncalled};
    Caller.ImplicitlyCalled.insert("c:@F@uncalled");
    Called->add(Caller);
    EXPECT_NE(Reason(*Called).find("'uncalled' may run where no call names it"),
              std::string::npos)
        << Reason(*Called);
  }
  // A value read from another field: judged here, with every unit's
  // writes; helper.c writes 'len' with a value it could not judge.
  Uniform.Function = "c:@F@helper";
  Uniform.Assumes = {"panel::len"};
  EXPECT_NE(Reason(*WithRoot(Uniform)).find("from 'len', which may differ"),
            std::string::npos)
      << Reason(*WithRoot(Uniform));
  // The rank is no value the ranks share.
  FieldValue Rank = Other;
  Rank.ValueKind = FieldValue::Kind::Rank;
  Rank.Comm = "panel::comm";
  EXPECT_NE(Reason(*WithRoot(Rank)).find("the rank, which differs"),
            std::string::npos);
}

TEST(ProjectFactsTest, UniformWritesNeedEveryRankToCallTheirFunction) {
  Parsed P(R"(
struct panel { double *buf; int len, root, tag; };
void helper(struct panel *p);
static void bcast(struct panel *p) {
  MPI_Bcast(p->buf, p->len, MPI_DOUBLE, p->root, MPI_COMM_WORLD);
}
int main(void) {
  struct panel p = {0, 4, 0, 1};
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    helper(&p);
  bcast(&p);
  return 0;
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary H = otherUnit("/p/helper.c");
  H.Defines.insert("c:@F@helper");
  FieldValue Uniform;
  Uniform.ValueKind = FieldValue::Kind::Uniform;
  Uniform.Where = {"/p/helper.c", 7, 3};
  Uniform.Function = "c:@F@helper";
  H.FieldValues["panel::root"] = {Uniform};
  ProjectFacts Project;
  Project.add(H);
  P.TU->setProject(&Project);
  std::optional<Divergence> Why =
      RankUniformity(*P.TU).fieldDivergence(rootField(P));
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("by 'helper', which some ranks may run and "
                             "others not"),
            std::string::npos)
      << Why->Reason;
}

TEST(ProjectFactsTest, SummaryJudgesTheWritesOfItsUnit) {
  Parsed P(R"(
struct team { MPI_Comm comm; int rank, size, root, step; };
void team_init(struct team *t, MPI_Comm parent, int first) {
  int ierr = MPI_Comm_dup(parent, &t->comm);
  if (ierr != MPI_SUCCESS)
    return;
  MPI_Comm_rank(t->comm, &t->rank);
  MPI_Comm_size(t->comm, &t->size);
  t->root = 0;
  t->step = first;
}
void team_other(struct team *t, MPI_Comm parent) {
  MPI_Comm_rank(parent, &t->size);
  if (t->rank == 0)
    t->root = 1;
}
)");
  ASSERT_TRUE(P.AST);
  UnitSummary S = P.TU->summarize();
  const std::vector<FieldValue> &Rank = S.FieldValues["team::rank"];
  ASSERT_EQ(Rank.size(), 1u);
  EXPECT_EQ(Rank[0].ValueKind, FieldValue::Kind::Rank);
  EXPECT_EQ(Rank[0].Comm, "team::comm");
  const std::vector<FieldValue> &Size = S.FieldValues["team::size"];
  ASSERT_EQ(Size.size(), 2u);
  EXPECT_EQ(Size[0].ValueKind, FieldValue::Kind::Size);
  // The rank, into the size, on a communicator the structure does not keep.
  EXPECT_EQ(Size[1].ValueKind, FieldValue::Kind::Other);
  const std::vector<FieldValue> &Root = S.FieldValues["team::root"];
  ASSERT_EQ(Root.size(), 2u);
  EXPECT_EQ(Root[0].ValueKind, FieldValue::Kind::Uniform) << Root[0].Reason;
  EXPECT_EQ(Root[0].Function, "c:@F@team_init");
  EXPECT_TRUE(Root[0].Assumes.empty());
  // Written where 't->rank == 0': the unit that reads the root judges the
  // rank, with every unit's writes of it.
  EXPECT_EQ(Root[1].ValueKind, FieldValue::Kind::Uniform);
  EXPECT_EQ(Root[1].Assumes, std::vector<std::string>{"team::rank"});
  // A parameter of a function other units may call: left to the reading
  // unit, which sees every unit's calls.
  const std::vector<FieldValue> &Step = S.FieldValues["team::step"];
  ASSERT_EQ(Step.size(), 1u);
  EXPECT_EQ(Step[0].ValueKind, FieldValue::Kind::Uniform) << Step[0].Reason;
  EXPECT_EQ(Step[0].Params, (std::vector<ParamKey>{{"c:@F@team_init", 2}}));
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
