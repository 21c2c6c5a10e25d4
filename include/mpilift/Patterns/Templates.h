//===- Templates.h - Master- and slave-repeat templates ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The master- and slave-repeat templates of Tables I and II (Preissl et
/// al., ICPP 2010) as data: a small language in which each topology is one
/// entry, so that a new pattern (the HPL increasing ring of section V-D) is
/// one more entry and no code. Peers are ranks of the communicator.
///
///   template star bcast
///     params c
///     master for x in 0 .. n-1 if (x+c)%n != i : S[(x+c)%n]
///     slave R[i]
///
/// Variables: n (communicator size), i (root), r (this rank), c (the star's
/// rotation), d (ceil(log2 n)), v = (r - i) mod n (rank relative to the
/// root), and loop variables. % is the non-negative modulo; hb(e) is the
/// index of e's highest set bit. A template may give several `slave when
/// COND : ...` lines; the first whose condition holds applies, a `slave`
/// line without condition applies otherwise. Gathers are the bcast
/// templates with sends and receives swapped; allgathers are a gather
/// followed by a bcast of the same template.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_PATTERNS_TEMPLATES_H
#define MPILIFT_PATTERNS_TEMPLATES_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpilift {
namespace patterns {

/// One step of a repeat: a send to or a receive from a peer.
struct Step {
  bool Send;
  int64_t Peer;
  bool operator==(const Step &O) const {
    return Send == O.Send && Peer == O.Peer;
  }
  bool operator<(const Step &O) const {
    return Send != O.Send ? Send < O.Send : Peer < O.Peer;
  }
};

/// What a template instance is: its size, root and rotation.
struct TemplateParams {
  int64_t N = 0, Root = 0, C = 0;
};

class Expr;
struct Item;

/// One entry of the template table.
class Template {
public:
  Template();
  ~Template();
  Template(Template &&);
  Template &operator=(Template &&);

  const std::string &topology() const { return Topology; }
  /// "bcast" (or scatter, told apart by the data) or "alltoall".
  const std::string &collective() const { return Collective; }
  /// Whether the template has the star's rotation parameter c.
  bool hasRotation() const { return HasRotation; }

  /// The root's repeat (Table I).
  std::vector<Step> master(const TemplateParams &P) const;
  /// Rank \p Rank's repeat (Table II); empty if it takes no part.
  std::vector<Step> slave(const TemplateParams &P, int64_t Rank) const;

private:
  friend class TemplateParser;
  friend std::vector<Template> parseTemplates(const std::string &Text,
                                              std::string &Error);
  std::string Topology, Collective;
  bool HasRotation = false;
  std::vector<Item> Master;
  struct SlaveCase;
  std::vector<SlaveCase> Slaves;
};

/// Parses a template table; on error, \p Error names the line.
std::vector<Template> parseTemplates(const std::string &Text,
                                     std::string &Error);

/// The built-in table: star, ring, chain, hypercube (Tables I and II), the
/// HPL increasing ring (section V-D), and the linear alltoall.
const std::vector<Template> &builtinTemplates();

/// The text of the built-in table (docs/patterns-format.md shows it).
const char *builtinTemplateText();

} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_PATTERNS_TEMPLATES_H
