#include "vp/analysis/symmetry.hpp"

#include <bliss/graph.hh>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "vp/topology/routes.hpp"
#include "vp/base/errors.hpp"

namespace vp {

namespace {

// Everything about a component that an automorphism must preserve.
std::string component_colour(const Component& c) {
  std::string key = fmt::format("{}|{}", to_string(c.kind), c.model);
  if (c.forward) key += fmt::format("|fwd={:.17g}", c.forward->gbps);
  if (c.kind == ComponentKind::nic)
    key += fmt::format("|rate={:.17g}x{}|gdr={}", c.line_rate_gbitps, c.ports, c.gpudirect);
  if (c.kind == ComponentKind::cpu) key += "|" + c.cpu_family;
  if (c.kind == ComponentKind::net_switch) key += "|" + c.role;
  return key;
}

std::string link_colour(const Topology& t, const Link& l) {
  // Direction in the tree matters: child->parent differs from parent->child.
  const char* dir = t.components[l.src].parent == l.dst ? "up" : t.components[l.dst].parent == l.src ? "down" : "peer";
  return fmt::format("link|{}|{:.17g}|{}", to_string(l.kind), l.capacity.gbps, dir);
}

struct HookState {
  std::size_t keep = 0;
  std::vector<Permutation> generators;
};

void on_generator(void* user, unsigned int, const unsigned int* aut) {
  auto* state = static_cast<HookState*>(user);
  Permutation p(state->keep);
  for (std::size_t i = 0; i < state->keep; ++i) p[i] = aut[i];
  state->generators.push_back(std::move(p));
}

}  // namespace

Permutation induced_link_permutation(const Topology& t, const Permutation& p) {
  Permutation out(t.links.size(), kNone);
  for (const Link& l : t.links) out[l.id] = t.find_link(p[l.src], p[l.dst]);
  return out;
}

std::string automorphism_violation(const Topology& t, const Permutation& p) {
  if (p.size() != t.components.size()) return "wrong degree";
  std::vector<bool> hit(p.size(), false);
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] >= p.size() || hit[p[i]]) return "not a permutation";
    hit[p[i]] = true;
    const Component &a = t.components[i], &b = t.components[p[i]];
    if (component_colour(a) != component_colour(b) || a.node != b.node)
      return fmt::format("maps {} onto {}, which differs", a.name, b.name);
    ComponentId parent_image = a.parent == kNone ? kNone : p[a.parent];
    if (parent_image != b.parent) return fmt::format("does not map the parent of {} onto the parent of {}", a.name, b.name);
  }
  for (const Link& l : t.links) {
    LinkId m = t.find_link(p[l.src], p[l.dst]);
    if (m == kNone) return fmt::format("maps link {} -> {} onto no link", t.components[l.src].name, t.components[l.dst].name);
    if (t.links[m].capacity.gbps != l.capacity.gbps || t.links[m].kind != l.kind)
      return fmt::format("maps link {} -> {} onto one of another capacity", t.components[l.src].name,
                         t.components[l.dst].name);
  }
  return {};
}

std::string routing_violation(const Topology& t, const Permutation& p) {
  Permutation lp = induced_link_permutation(t, p);
  std::vector<ComponentId> ends(t.gpus);
  ends.insert(ends.end(), t.nics.begin(), t.nics.end());
  for (ComponentId a : ends) {
    for (ComponentId b : ends) {
      if (a == b || t.components[a].node != t.components[b].node) continue;
      Route r = intra_node_route(t, a, b), image = intra_node_route(t, p[a], p[b]);
      std::vector<LinkId> mapped;
      for (LinkId l : r.links) mapped.push_back(lp[l]);
      std::vector<ComponentId> fwd;
      for (ComponentId f : r.forwarders) fwd.push_back(p[f]);
      if (mapped != image.links || fwd != image.forwarders)
        return fmt::format("the route {} -> {} does not map onto the route {} -> {}", t.components[a].name,
                           t.components[b].name, t.components[p[a]].name, t.components[p[b]].name);
    }
  }
  return {};
}

ColouredDigraph symmetry_graph(const Topology& t) {
  ColouredDigraph g;
  for (const Component& c : t.components) g.add_vertex(component_colour(c));
  for (const Link& l : t.links) g.add_vertex(link_colour(t, l));
  const auto n = static_cast<unsigned>(t.components.size());
  for (const Link& l : t.links) {
    g.edges.emplace_back(l.src, n + l.id);
    g.edges.emplace_back(n + l.id, l.dst);
  }
  return g;
}

BlissResult run_bliss(const ColouredDigraph& in, std::size_t keep, bool canonical) {
  // Colours numbered in the order of their names: deterministic, and equal
  // for graphs with equal colour sets.
  std::map<std::string, unsigned> ids;
  for (const std::string& c : in.colour) ids.emplace(c, 0);
  unsigned next = 0;
  for (auto& [name, id] : ids) id = next++;
  bliss::Digraph g;
  for (const std::string& c : in.colour) g.add_vertex(ids.at(c));
  for (auto [a, b] : in.edges) g.add_edge(a, b);
  HookState state;
  state.keep = keep;
  bliss::Stats stats;
  BlissResult r;
  if (!canonical) {
    g.find_automorphisms(stats, &on_generator, &state);
    r.generators = std::move(state.generators);
    return r;
  }
  const unsigned* lab = g.canonical_form(stats, &on_generator, &state);
  r.generators = std::move(state.generators);
  // Certificate: the colour names, each vertex's colour id in canonical
  // order, then the canonical edges in order.
  const std::size_t n = in.colour.size();
  std::vector<unsigned> colour_at(n);
  for (std::size_t v = 0; v < n; ++v) colour_at[lab[v]] = ids.at(in.colour[v]);
  std::vector<std::pair<unsigned, unsigned>> edges;
  edges.reserve(in.edges.size());
  for (auto [a, b] : in.edges) edges.emplace_back(lab[a], lab[b]);
  std::sort(edges.begin(), edges.end());
  for (const auto& [name, id] : ids) r.certificate += name + '\n';
  for (unsigned c : colour_at) r.certificate += std::to_string(c) + ',';
  r.certificate += '\n';
  for (auto [a, b] : edges) r.certificate += std::to_string(a) + '>' + std::to_string(b) + ',';
  return r;
}

NodeSymmetry compute_node_symmetry(const Topology& t, AnalysisClock::time_point deadline) {
  NodeSymmetry s;
  s.generators = run_bliss(symmetry_graph(t), t.components.size(), false).generators;
  for (std::size_t i = 0; i < s.generators.size(); ++i) {
    check_deadline(deadline, fmt::format("the symmetry check (generator {} of {})", i + 1, s.generators.size()));
    const Permutation& g = s.generators[i];
    if (std::string why = automorphism_violation(t, g); !why.empty())
      throw InternalError(fmt::format("automorphism generator {} is not an automorphism: {}", i, why));
    if (std::string why = routing_violation(t, g); !why.empty())
      throw InternalError(fmt::format("automorphism generator {} does not commute with routing: {}", i, why));
    s.link_generators.push_back(induced_link_permutation(t, g));
  }
  PermGroup group(t.components.size(), s.generators);
  s.order = group.order();
  s.component_orbit = group.orbit_representatives();
  s.link_orbit = PermGroup(t.links.size(), s.link_generators).orbit_representatives();
  return s;
}

}  // namespace vp
