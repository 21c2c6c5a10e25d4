//===- Templates.cpp - Master- and slave-repeat templates -----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/Templates.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <iterator>
#include <map>
#include <sstream>

namespace mpilift {
namespace patterns {

//===-- Expressions
//----------------------------------------------------------===//

/// Variables are resolved to slots when a template is parsed: the
/// template's parameters first, then loop variables as they appear.
/// Expanding a template evaluates its expressions once per rank, root and
/// rotation, so lookups must not compare strings.
enum : unsigned { SlotN, SlotI, SlotC, SlotD, SlotR, SlotV, NumParams };

/// Variable bindings while expanding a template.
struct Env {
  std::vector<int64_t> Values;
  std::vector<uint8_t> Bound;
  void set(unsigned Slot, int64_t V) {
    if (Slot >= Values.size()) {
      Values.resize(Slot + 1, 0);
      Bound.resize(Slot + 1, 0);
    }
    Values[Slot] = V;
    Bound[Slot] = 1;
  }
  void unset(unsigned Slot) {
    if (Slot < Bound.size())
      Bound[Slot] = 0;
  }
  int64_t get(unsigned Slot, bool &Ok) const {
    if (Slot >= Bound.size() || !Bound[Slot]) {
      Ok = false;
      return 0;
    }
    return Values[Slot];
  }
};

enum class OpCode {
  Neg,
  Not,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Xor,
  And,
  Or,
  Shl,
  Shr,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr
};

OpCode binaryOpCode(const std::string &Op) {
  static const std::pair<const char *, OpCode> Table[] = {
      {"+", OpCode::Add},         {"-", OpCode::Sub},
      {"*", OpCode::Mul},         {"/", OpCode::Div},
      {"%", OpCode::Mod},         {"^", OpCode::Xor},
      {"&", OpCode::And},         {"|", OpCode::Or},
      {"<<", OpCode::Shl},        {">>", OpCode::Shr},
      {"==", OpCode::Eq},         {"!=", OpCode::Ne},
      {"<", OpCode::Lt},          {"<=", OpCode::Le},
      {">", OpCode::Gt},          {">=", OpCode::Ge},
      {"&&", OpCode::LogicalAnd}, {"||", OpCode::LogicalOr}};
  for (const auto &[Name, Code] : Table)
    if (Op == Name)
      return Code;
  assert(false && "the parser only makes known operators");
  return OpCode::Add;
}

class Expr {
public:
  enum Kind { Number, Variable, Unary, Binary, HighBit };
  Kind K = Number;
  int64_t Value = 0;
  unsigned Slot = 0; ///< Variable.
  OpCode Op = OpCode::Add;
  std::unique_ptr<Expr> L, R;

  int64_t eval(const Env &E, bool &Ok) const {
    switch (K) {
    case Number:
      return Value;
    case Variable:
      return E.get(Slot, Ok);
    case HighBit: {
      int64_t V = L->eval(E, Ok);
      int64_t B = -1;
      while (V > 0) {
        V >>= 1;
        ++B;
      }
      return B;
    }
    case Unary: {
      int64_t V = L->eval(E, Ok);
      return Op == OpCode::Neg ? -V : !V;
    }
    case Binary:
      break;
    }
    int64_t A = L->eval(E, Ok), B = R->eval(E, Ok);
    switch (Op) {
    case OpCode::Add:
      return A + B;
    case OpCode::Sub:
      return A - B;
    case OpCode::Mul:
      return A * B;
    case OpCode::Div:
    case OpCode::Mod: {
      if (B == 0) {
        Ok = false;
        return 0;
      }
      if (Op == OpCode::Div)
        return A / B;
      int64_t M = A % B; // Non-negative modulo, as ranks need.
      return M < 0 ? M + (B < 0 ? -B : B) : M;
    }
    case OpCode::Xor:
      return A ^ B;
    case OpCode::And:
      return A & B;
    case OpCode::Or:
      return A | B;
    case OpCode::Shl:
      return B >= 0 && B < 63 ? A << B : 0;
    case OpCode::Shr:
      return B >= 0 && B < 63 ? A >> B : 0;
    case OpCode::Eq:
      return A == B;
    case OpCode::Ne:
      return A != B;
    case OpCode::Lt:
      return A < B;
    case OpCode::Le:
      return A <= B;
    case OpCode::Gt:
      return A > B;
    case OpCode::Ge:
      return A >= B;
    case OpCode::LogicalAnd:
      return A && B;
    case OpCode::LogicalOr:
      return A || B;
    case OpCode::Neg:
    case OpCode::Not:
      break;
    }
    Ok = false;
    return 0;
  }
};

/// One step, or a loop of steps: [for Var in From .. To [if Cond] :]
/// S|R [Peer].
struct Item {
  bool Send = true;
  std::unique_ptr<Expr> Peer;
  unsigned VarSlot = 0; ///< The loop variable's slot, for loops.
  std::unique_ptr<Expr> From, To, Cond; ///< From and To: loops only.
};

struct Template::SlaveCase {
  std::unique_ptr<Expr> When; ///< Null: applies otherwise.
  std::vector<Item> Items;
};

Template::Template() = default;
Template::~Template() = default;
Template::Template(Template &&) = default;
Template &Template::operator=(Template &&) = default;

namespace {

Env bind(const TemplateParams &P, int64_t Rank) {
  Env E;
  int64_t D = 0;
  while ((int64_t(1) << D) < P.N)
    ++D;
  E.set(SlotN, P.N);
  E.set(SlotI, P.Root);
  E.set(SlotC, P.C);
  E.set(SlotD, D);
  E.set(SlotR, Rank);
  E.set(SlotV, P.N ? ((Rank - P.Root) % P.N + P.N) % P.N : 0);
  return E;
}

void expand(const std::vector<Item> &Items, Env &E, std::vector<Step> &Out,
            bool &Ok) {
  for (const Item &I : Items) {
    if (!I.From) { // A single step.
      Out.push_back({I.Send, I.Peer->eval(E, Ok)});
      continue;
    }
    int64_t From = I.From->eval(E, Ok), To = I.To->eval(E, Ok);
    for (int64_t X = From; X <= To && Ok; ++X) {
      E.set(I.VarSlot, X);
      if (!I.Cond || I.Cond->eval(E, Ok))
        Out.push_back({I.Send, I.Peer->eval(E, Ok)});
    }
    E.unset(I.VarSlot);
  }
}

} // namespace

std::vector<Step> Template::master(const TemplateParams &P) const {
  Env E = bind(P, P.Root);
  std::vector<Step> Out;
  bool Ok = true;
  expand(Master, E, Out, Ok);
  return Ok ? Out : std::vector<Step>();
}

std::vector<Step> Template::slave(const TemplateParams &P, int64_t Rank) const {
  Env E = bind(P, Rank);
  std::vector<Step> Out;
  bool Ok = true;
  for (const SlaveCase &S : Slaves) {
    if (S.When && !S.When->eval(E, Ok))
      continue;
    expand(S.Items, E, Out, Ok);
    break;
  }
  return Ok ? Out : std::vector<Step>();
}

//===-- Parsing
//--------------------------------------------------------------===//

class TemplateParser {
public:
  explicit TemplateParser(const std::string &Line) { tokenize(Line); }

  bool failed() const { return !Error.empty(); }
  std::string Error;

  std::vector<std::string> Tokens;
  size_t Pos = 0;

  /// The slot of variable \p Name: the parameters' own, or the next free
  /// one for a loop variable (or a name nothing binds, which then fails to
  /// evaluate).
  unsigned slotOf(const std::string &Name) {
    auto It = std::find(Names.begin(), Names.end(), Name);
    if (It != Names.end())
      return static_cast<unsigned>(It - Names.begin());
    Names.push_back(Name);
    return static_cast<unsigned>(Names.size() - 1);
  }
  std::vector<std::string> Names{"n", "i", "c", "d", "r", "v"};

  const std::string &peek() const {
    static const std::string End;
    return Pos < Tokens.size() ? Tokens[Pos] : End;
  }
  bool accept(const std::string &T) {
    if (peek() != T)
      return false;
    ++Pos;
    return true;
  }
  void expect(const std::string &T) {
    if (!accept(T) && Error.empty())
      Error = "expected '" + T + "' before '" + peek() + "'";
  }
  bool atEnd() const { return Pos >= Tokens.size(); }

  void tokenize(const std::string &S) {
    static const char *const Multi[] = {
        "..", "<<", ">>", "==", "!=", "<=", ">=", "&&", "||"};
    for (size_t I = 0; I < S.size();) {
      char Ch = S[I];
      if (isspace(static_cast<unsigned char>(Ch))) {
        ++I;
        continue;
      }
      if (Ch == '#')
        break;
      if (isalnum(static_cast<unsigned char>(Ch)) || Ch == '_') {
        size_t J = I;
        while (J < S.size() &&
               (isalnum(static_cast<unsigned char>(S[J])) || S[J] == '_'))
          ++J;
        Tokens.push_back(S.substr(I, J - I));
        I = J;
        continue;
      }
      bool Matched = false;
      for (const char *M : Multi)
        if (S.compare(I, 2, M) == 0) {
          Tokens.push_back(M);
          I += 2;
          Matched = true;
          break;
        }
      if (!Matched)
        Tokens.push_back(std::string(1, Ch)), ++I;
    }
  }

  // Precedence climbing, lowest first.
  std::unique_ptr<Expr> expr() { return binary(0); }

  std::unique_ptr<Expr> binary(int Level) {
    static const std::vector<std::vector<std::string>> Levels = {
        {"||"},
        {"&&"},
        {"|"},
        {"^"},
        {"&"},
        {"==", "!="},
        {"<", "<=", ">", ">="},
        {"<<", ">>"},
        {"+", "-"},
        {"*", "/", "%"}};
    if (Level == static_cast<int>(Levels.size()))
      return unary();
    std::unique_ptr<Expr> L = binary(Level + 1);
    while (!failed()) {
      std::string Op;
      for (const std::string &Candidate : Levels[Level])
        if (peek() == Candidate)
          Op = Candidate;
      if (Op.empty())
        break;
      ++Pos;
      auto B = std::make_unique<Expr>();
      B->K = Expr::Binary;
      B->Op = binaryOpCode(Op);
      B->L = std::move(L);
      B->R = binary(Level + 1);
      L = std::move(B);
    }
    return L;
  }

  std::unique_ptr<Expr> unary() {
    if (peek() == "-" || peek() == "!") {
      auto U = std::make_unique<Expr>();
      U->K = Expr::Unary;
      U->Op = Tokens[Pos++] == "-" ? OpCode::Neg : OpCode::Not;
      U->L = unary();
      return U;
    }
    return primary();
  }

  std::unique_ptr<Expr> primary() {
    auto E = std::make_unique<Expr>();
    const std::string &T = peek();
    if (accept("(")) {
      E = expr();
      expect(")");
      return E;
    }
    if (T.empty()) {
      Error = "expression expected at the end of the line";
      return E;
    }
    if (isdigit(static_cast<unsigned char>(T[0]))) {
      E->Value = std::stoll(T);
      ++Pos;
      return E;
    }
    if (isalpha(static_cast<unsigned char>(T[0]))) {
      std::string Name = Tokens[Pos++];
      if (Name == "hb") {
        expect("(");
        E->K = Expr::HighBit;
        E->L = expr();
        expect(")");
        return E;
      }
      E->K = Expr::Variable;
      E->Slot = slotOf(Name);
      return E;
    }
    Error = "unexpected '" + T + "'";
    return E;
  }

  Item item() {
    Item I;
    if (accept("for")) {
      I.VarSlot = slotOf(peek());
      ++Pos;
      expect("in");
      I.From = expr();
      expect("..");
      I.To = expr();
      if (accept("if"))
        I.Cond = expr();
      expect(":");
    }
    if (peek() == "S" || peek() == "R") {
      I.Send = Tokens[Pos++] == "S";
    } else if (!failed()) {
      Error = "expected S[...] or R[...] before '" + peek() + "'";
    }
    expect("[");
    I.Peer = expr();
    expect("]");
    return I;
  }

  std::vector<Item> items() {
    std::vector<Item> Out;
    do
      Out.push_back(item());
    while (!failed() && accept(","));
    if (!failed() && !atEnd())
      Error = "unexpected '" + peek() + "' after the steps";
    return Out;
  }
};

std::vector<Template> parseTemplates(const std::string &Text,
                                     std::string &Error) {
  Error.clear();
  std::vector<Template> Out;
  std::istringstream In(Text);
  std::string Line;
  unsigned Number = 0;
  auto fail = [&](const std::string &Why) {
    Error = "template line " + std::to_string(Number) + ": " + Why;
    return std::vector<Template>();
  };
  while (std::getline(In, Line)) {
    ++Number;
    std::istringstream Words(Line.substr(0, Line.find('#')));
    std::vector<std::string> Header{std::istream_iterator<std::string>(Words),
                                    std::istream_iterator<std::string>()};
    if (!Header.empty() && Header[0] == "template") {
      // Names may contain '-' (increasing-ring): not an expression line.
      if (Header.size() != 3)
        return fail("expected 'template TOPOLOGY COLLECTIVE'");
      Out.emplace_back();
      Out.back().Topology = Header[1];
      Out.back().Collective = Header[2];
      continue;
    }
    TemplateParser P(Line);
    if (P.atEnd())
      continue;
    std::string Key = P.Tokens[P.Pos++];
    if (Out.empty())
      return fail("'" + Key + "' before any 'template'");
    Template &T = Out.back();
    if (Key == "params") {
      T.HasRotation = P.accept("c");
      if (!P.atEnd())
        return fail("only the parameter c is known");
    } else if (Key == "master") {
      T.Master = P.items();
    } else if (Key == "slave") {
      Template::SlaveCase C;
      if (P.accept("when")) {
        C.When = P.expr();
        P.expect(":");
      }
      if (!P.failed())
        C.Items = P.items();
      T.Slaves.push_back(std::move(C));
    } else {
      return fail("unknown keyword '" + Key + "'");
    }
    if (P.failed())
      return fail(P.Error);
  }
  return Out;
}

const char *builtinTemplateText() {
  return R"(# Broadcast and scatter: Tables I and II of the paper. Gathers are these
# with S and R swapped, allgathers a gather followed by a broadcast.
template star bcast
  params c
  master for x in 0 .. n-1 if (x+c)%n != i : S[(x+c)%n]
  slave R[i]

template ring bcast
  master S[(i+1)%n], R[(i-1)%n]
  slave R[(r-1)%n], S[(r+1)%n]

template chain bcast
  master S[(i+1)%n]
  slave when v == n-1 : R[(r-1)%n]
  slave R[(r-1)%n], S[(r+1)%n]

# One dimension per step, over ranks relative to the root: a binomial tree,
# defined for any n.
template hypercube bcast
  master for x in 0 .. d-1 if (1 << x) < n : S[((1 << x) + i)%n]
  slave R[((v ^ (1 << hb(v))) + i)%n], for x in hb(v)+1 .. d-1 if (v ^ (1 << x)) < n : S[((v ^ (1 << x)) + i)%n]

# The same tree top down, as HPL_broadcast and MPICH's binomial broadcast
# run it: the root sends half-way across first, and a rank that received
# over span s (its lowest set bit) halves it on, s/2, s/4, ... 1.
template binomial bcast
  master for x in 0 .. d-1 if (1 << (d-1-x)) < n : S[((1 << (d-1-x)) + i)%n]
  slave R[((v - (v & -v)) + i)%n], for x in 0 .. hb(v & -v)-1 if v + (1 << (hb(v & -v)-1-x)) < n : S[(v + (1 << (hb(v & -v)-1-x)) + i)%n]

# HPL's increasing ring (section V-D, Listing 5): the root feeds its next
# two neighbours; the ring then runs from the second, and the last rank
# only receives.
template increasing-ring bcast
  master S[(i+1)%n], S[(i+2)%n]
  slave when v == 1 : R[i]
  slave when v == 2 && v == n-1 : R[i]
  slave when v == 2 : R[i], S[(r+1)%n]
  slave when v == n-1 : R[(r-1)%n]
  slave R[(r-1)%n], S[(r+1)%n]

# HPL's modified broadcasts (HPL_blonM, section V-D): the root first sends
# the whole message to the rank after it, which takes no further part; the
# other n-1 ranks run the algorithm among themselves, ranks relative to the
# root counted without that one (e = v-1, and inner rank e is (i+e+(e>0))%n).
# This is the binomial tree (a scatter, in blonM) over them.
template modified-binomial bcast
  master S[(i+1)%n], for x in 0 .. d-1 if (1 << (d-1-x)) < n-1 : S[((1 << (d-1-x)) + i + 1)%n]
  slave when v == 1 : R[i]
  slave R[(((v-1) - ((v-1) & -(v-1))) + i + (((v-1) - ((v-1) & -(v-1))) > 0))%n], for x in 0 .. hb((v-1) & -(v-1))-1 if (v-1) + (1 << (hb((v-1) & -(v-1))-1-x)) < n-1 : S[((v-1) + (1 << (hb((v-1) & -(v-1))-1-x)) + i + 1)%n]

# Every rank sends to all others, then receives from all others.
template linear alltoall
  master for x in 0 .. n-1 if x != i : S[x], for x in 0 .. n-1 if x != i : R[x]
  slave for x in 0 .. n-1 if x != r : S[x], for x in 0 .. n-1 if x != r : R[x]
)";
}

const std::vector<Template> &builtinTemplates() {
  static const std::vector<Template> Table = [] {
    std::string Error;
    std::vector<Template> T = parseTemplates(builtinTemplateText(), Error);
    if (!Error.empty())
      abort(); // The built-in table is ours; a unit test parses it.
    return T;
  }();
  return Table;
}

} // namespace patterns
} // namespace mpilift
