//===- ErrorFlow.cpp - Where an MPI call's error code goes ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ErrorFlow.h"

#include "StatementTree.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

std::string ErrorFlow::spelling() const {
  if (!Var)
    return "";
  return Var->getNameAsString() + " " + BinaryOperator::getOpcodeStr(Op).str() +
         " ";
}

bool keepsErrorCodes(BinaryOperatorKind Op) {
  return Op == BO_Assign || Op == BO_OrAssign || Op == BO_AddAssign;
}

/// \p Call with the parentheses, implicit conversions and full-expression
/// nodes around it: what its value is used as.
static const Stmt *outermostWrapper(const CallExpr *Call, ASTContext &Ctx) {
  const Stmt *Child = Call;
  const Stmt *Parent = parentStmt(*Call, Ctx);
  while (Parent && (isa<ParenExpr>(Parent) || isa<ImplicitCastExpr>(Parent) ||
                    isa<FullExpr>(Parent))) {
    Child = Parent;
    Parent = parentStmt(*Parent, Ctx);
  }
  return Child;
}

ErrorFlow errorFlowOf(const CallExpr *Call, ASTContext &Ctx) {
  const Stmt *Child = outermostWrapper(Call, Ctx);
  const Stmt *Parent = parentStmt(*Child, Ctx);
  const auto *Op = dyn_cast_or_null<BinaryOperator>(Parent);
  if (!Op || !keepsErrorCodes(Op->getOpcode()) || Op->getRHS() != Child)
    return {};
  const auto *Ref = dyn_cast<DeclRefExpr>(Op->getLHS()->IgnoreParens());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  // The assignment must be a statement of its own.
  const Stmt *Holder = parentStmt(*Op, Ctx);
  while (Holder && isa<FullExpr>(Holder))
    Holder = parentStmt(*Holder, Ctx);
  bool Statement =
      Holder && (isa<CompoundStmt>(Holder) || isa<IfStmt>(Holder) ||
                 isLoop(Holder) || isa<SwitchCase>(Holder));
  if (const auto *If = dyn_cast_or_null<IfStmt>(Holder))
    Statement = If->getCond() != Op;
  if (isLoop(Holder))
    Statement = loopBody(Holder) == Op;
  if (!Statement || !V)
    return {};
  return ErrorFlow{V, Op->getOpcode()};
}

ErrorFlow declaredErrorFlowOf(const CallExpr *Call, ASTContext &Ctx) {
  const Stmt *Child = outermostWrapper(Call, Ctx);
  DynTypedNodeList Parents = Ctx.getParents(*Child);
  const auto *V = Parents.empty() ? nullptr : Parents[0].get<VarDecl>();
  if (!V || V->getInit() != Child || !V->getType()->isIntegerType() ||
      !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return {};
  DynTypedNodeList Up = Ctx.getParents(*V);
  const auto *Decl = Up.empty() ? nullptr : Up[0].get<DeclStmt>();
  if (!Decl || !Decl->isSingleDecl() ||
      !isa_and_nonnull<CompoundStmt>(parentStmt(*Decl, Ctx)))
    return {};
  ErrorFlow Flow{V, BO_Assign};
  Flow.Declared = true;
  return Flow;
}

const ReturnStmt *returnOf(const CallExpr *Call, ASTContext &Ctx) {
  const Stmt *Child = outermostWrapper(Call, Ctx);
  const auto *Return = dyn_cast_or_null<ReturnStmt>(parentStmt(*Child, Ctx));
  return Return && Return->getRetValue() == Child ? Return : nullptr;
}

std::string checkWithCall(const Stmt *S, const CallExpr *Call,
                          llvm::StringRef NewCall, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Whole = SM.getExpansionRange(S->getSourceRange());
  // A statement's range ends before its semicolon.
  SourceLocation AfterSemi = Lexer::findLocationAfterToken(
      Whole.getEnd(), tok::semi, SM, Ctx.getLangOpts(),
      /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (AfterSemi.isValid())
    Whole = CharSourceRange::getCharRange(Whole.getBegin(), AfterSemi);
  CharSourceRange Part = SM.getExpansionRange(Call->getSourceRange());
  std::string Text = Lexer::getSourceText(Whole, SM, Ctx.getLangOpts()).str();
  StringRef Old = Lexer::getSourceText(Part, SM, Ctx.getLangOpts());
  unsigned From =
      SM.getFileOffset(Part.getBegin()) - SM.getFileOffset(Whole.getBegin());
  if (From > Text.size() || Text.compare(From, Old.size(), Old) != 0)
    return Text;
  return Text.replace(From, Old.size(), NewCall.str());
}

} // namespace analysis
} // namespace mpilift
