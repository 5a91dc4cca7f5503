// Semantic differences between two catalogs.
#include "vp/catalog/diff.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "vp/catalog/names.hpp"

namespace vp::catalog {

namespace {

// Collects lines under a prefix, listing at most `max` per topic, and
// counts every difference by area.
class Lines {
 public:
  Lines(DiffReport& report, std::size_t max) : report_(report), max_(max) {}

  void add(DiffArea area, const std::string& topic, const std::string& line) {
    ++report_.differences;
    ++report_.counts[static_cast<std::size_t>(area)];
    std::size_t& n = counts_[topic];
    if (n++ < max_) report_.lines.push_back(line);
  }
  // The last difference added also touches `area`.
  void also(DiffArea area) { ++report_.counts[static_cast<std::size_t>(area)]; }
  // Close a topic: report how many were not listed.
  void close(const std::string& topic, const std::string& prefix) {
    auto it = counts_.find(topic);
    if (it != counts_.end() && it->second > max_)
      report_.lines.push_back(fmt::format("{}... and {} more", prefix, it->second - max_));
  }

 private:
  DiffReport& report_;
  std::size_t max_;
  std::map<std::string, std::size_t> counts_;
};

template <typename T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) return fmt::format("\"{}\"", v);
  else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else if constexpr (std::is_same_v<T, Kind> || std::is_same_v<T, LinkKind> || std::is_same_v<T, FabricKind>)
    return std::string(to_string(v));
  else if constexpr (std::is_same_v<T, std::uint32_t>) return v == kNone ? std::string("none") : std::to_string(v);
  else return fmt::format("{}", v);
}

template <typename T>
void field(Lines& out, DiffArea area, const std::string& topic, const std::string& prefix, const char* name, const T& a,
           const T& b) {
  if (!(a == b)) out.add(area, topic, fmt::format("{}{} {} -> {}", prefix, name, show(a), show(b)));
}

// Short names for the areas of every difference below.
constexpr DiffArea kTopology = DiffArea::topology, kOrbits = DiffArea::orbits, kChannels = DiffArea::channels,
                   kOptions = DiffArea::options;

std::string component_label(const NodeType& t, std::uint32_t id) {
  if (id < t.components.size()) return t.components[id].name;
  return "#" + std::to_string(id);
}

std::string pattern_text(const LocalPattern& p) {
  std::string send, recv;
  for (std::int32_t r : p.send) send += (send.empty() ? "" : " ") + role_text(r);
  for (std::int32_t r : p.recv) recv += (recv.empty() ? "" : " ") + role_text(r);
  return fmt::format("send [{}] recv [{}]", send, recv);
}

// Components are matched by name (a node type's names are unique: kind and
// local index), so that a component missing from one side reads as missing
// rather than shifting every id after it. A repeated name (a hand-made
// catalog) keeps the id beside it.
std::map<std::string, std::uint32_t> by_name(const NodeType& t) {
  std::map<std::string, std::uint32_t> m;
  for (std::uint32_t i = 0; i < t.components.size(); ++i)
    if (!m.emplace(t.components[i].name, i).second) m.emplace(t.components[i].name + "#" + std::to_string(i), i);
  return m;
}

// A component id as its name ("none" for kNone), for comparing references.
std::string ref_name(const NodeType& t, std::uint32_t id) {
  return id == kNone ? std::string("none") : component_label(t, id);
}

void diff_components(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "components";
  const auto na = by_name(a), nb = by_name(b);
  for (const auto& [name, i] : na) {
    auto it = nb.find(name);
    if (it == nb.end()) {
      out.add(kTopology, topic, fmt::format("{}component {} ({}): only in A", p, name, show(a.components[i].kind)));
      continue;
    }
    const std::uint32_t j = it->second;
    const Component &x = a.components[i], &y = b.components[j];
    const std::string q = i == j ? fmt::format("{}component {} ({}): ", p, i, name)
                                 : fmt::format("{}component {} ({}, {} in B): ", p, i, name, j);
    field(out, kTopology, topic, q, "kind", x.kind, y.kind);
    field(out, kTopology, topic, q, "parent", ref_name(a, x.parent), ref_name(b, y.parent));
    field(out, kTopology, topic, q, "local_index", x.local_index, y.local_index);
    field(out, kTopology, topic, q, "model", x.model, y.model);
    field(out, kTopology, topic, q, "pci_bus_id", x.pci_bus_id, y.pci_bus_id);
    field(out, kTopology, topic, q, "device_name", x.device_name, y.device_name);
    field(out, kTopology, topic, q, "forward_gbps", x.forward_gbps, y.forward_gbps);
    field(out, kTopology, topic, q, "nic_gbps", x.nic_gbps, y.nic_gbps);
    field(out, kTopology, topic, q, "gpudirect", x.gpudirect, y.gpudirect);
    if (i < a.component_orbit.size() && j < b.component_orbit.size())
      field(out, kOrbits, topic, q, "orbit", ref_name(a, a.component_orbit[i]), ref_name(b, b.component_orbit[j]));
  }
  for (const auto& [name, j] : nb)
    if (!na.count(name))
      out.add(kTopology, topic, fmt::format("{}component {} ({}): only in B", p, name, show(b.components[j].kind)));
  out.close(topic, p);
}

// A pair of component ids as names: links and routes are keyed by them.
using NamePair = std::pair<std::string, std::string>;

// Links keyed by their endpoints' names.
void diff_links(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "links";
  auto index = [](const NodeType& t) {
    std::map<NamePair, std::size_t> m;
    for (std::size_t i = 0; i < t.links.size(); ++i)
      m.emplace(NamePair(ref_name(t, t.links[i].src), ref_name(t, t.links[i].dst)), i);
    return m;
  };
  auto link_name = [](const NodeType& t, std::uint32_t id) {
    if (id >= t.links.size()) return "#" + std::to_string(id);
    return ref_name(t, t.links[id].src) + ">" + ref_name(t, t.links[id].dst);
  };
  const auto ia = index(a), ib = index(b);
  for (const auto& [key, i] : ia) {
    const std::string q = fmt::format("{}link {} -> {}: ", p, key.first, key.second);
    auto it = ib.find(key);
    if (it == ib.end()) {
      out.add(kTopology, topic, q + "only in A");
      continue;
    }
    const Link &x = a.links[i], &y = b.links[it->second];
    field(out, kTopology, topic, q, "kind", x.kind, y.kind);
    field(out, kTopology, topic, q, "capacity_gbps", x.capacity_gbps, y.capacity_gbps);
    if (i < a.link_orbit.size() && it->second < b.link_orbit.size())
      field(out, kOrbits, topic, q, "orbit", link_name(a, a.link_orbit[i]), link_name(b, b.link_orbit[it->second]));
  }
  for (const auto& [key, i] : ib)
    if (!ia.count(key)) out.add(kTopology, topic, fmt::format("{}link {} -> {}: only in B", p, key.first, key.second));
  out.close(topic, p);
}

void diff_routes(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "routes";
  auto index = [](const NodeType& t) {
    std::map<NamePair, const Route*> m;
    for (const Route& r : t.routes) m.emplace(NamePair(ref_name(t, r.from), ref_name(t, r.to)), &r);
    return m;
  };
  // Hops by name, so that a renumbering alone is no difference.
  auto links_text = [](const NodeType& t, const Route& r) {
    std::vector<std::string> hops;
    for (std::uint32_t l : r.links)
      hops.push_back(l < t.links.size() ? ref_name(t, t.links[l].src) + ">" + ref_name(t, t.links[l].dst)
                                        : "#" + std::to_string(l));
    return fmt::format("{}", fmt::join(hops, " "));
  };
  auto forwarders_text = [](const NodeType& t, const Route& r) {
    std::vector<std::string> names;
    for (std::uint32_t c : r.forwarders) names.push_back(ref_name(t, c));
    return fmt::format("{}", fmt::join(names, " "));
  };
  const auto ra = index(a), rb = index(b);
  for (const auto& [key, r] : ra) {
    const std::string q = fmt::format("{}route {} -> {}: ", p, key.first, key.second);
    auto it = rb.find(key);
    if (it == rb.end()) {
      out.add(kTopology, topic, q + "only in A");
      continue;
    }
    field(out, kTopology, topic, q, "solo_gbps", r->solo_gbps, it->second->solo_gbps);
    const std::string la = links_text(a, *r), lb = links_text(b, *it->second);
    if (la != lb) out.add(kTopology, topic, fmt::format("{}links [{}] -> [{}]", q, la, lb));
    const std::string fa = forwarders_text(a, *r), fb = forwarders_text(b, *it->second);
    if (fa != fb) out.add(kTopology, topic, fmt::format("{}forwarders [{}] -> [{}]", q, fa, fb));
  }
  for (const auto& [key, r] : rb)
    if (!ra.count(key)) out.add(kTopology, topic, fmt::format("{}route {} -> {}: only in B", p, key.first, key.second));
  out.close(topic, p);
}

void diff_symmetry(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "symmetry";
  field(out, kOrbits, topic, p, "group order", a.group_order, b.group_order);
  std::set<std::string> ga, gb;
  for (const auto& g : a.generators) ga.insert(cycles_text(g));
  for (const auto& g : b.generators) gb.insert(cycles_text(g));
  for (const std::string& g : ga)
    if (!gb.count(g)) out.add(kOrbits, topic, fmt::format("{}generator {}: only in A", p, g));
  for (const std::string& g : gb)
    if (!ga.count(g)) out.add(kOrbits, topic, fmt::format("{}generator {}: only in B", p, g));
  out.close(topic, p);
}

void diff_patterns(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "patterns";
  field(out, kChannels, topic, p, "patterns represented", a.patterns_represented, b.patterns_represented);
  if (a.patterns.size() != b.patterns.size())
    out.add(kChannels, topic, fmt::format("{}{} pattern orbits -> {}", p, a.patterns.size(), b.patterns.size()));
  std::map<std::string, std::uint64_t> pa, pb;
  for (const LocalPattern& x : a.patterns) pa.emplace(pattern_text(x), x.orbit_size);
  for (const LocalPattern& x : b.patterns) pb.emplace(pattern_text(x), x.orbit_size);
  for (const auto& [text, size] : pa) {
    auto it = pb.find(text);
    if (it == pb.end()) out.add(kChannels, topic, fmt::format("{}pattern {}: only in A (orbit of {})", p, text, size));
    else if (it->second != size)
      out.add(kChannels, topic, fmt::format("{}pattern {}: orbit size {} -> {}", p, text, size, it->second));
  }
  for (const auto& [text, size] : pb)
    if (!pa.count(text)) out.add(kChannels, topic, fmt::format("{}pattern {}: only in B (orbit of {})", p, text, size));
  out.close(topic, p);
}

// Node types whose content is the same but their name.
bool same_but_name(NodeType x, const NodeType& y) {
  x.name = y.name;
  return x == y;
}

// B's name of each node type of A: the same name, else (a type of A whose
// name B lacks) a type of B, also unmatched by name, with the same content.
// Names come from file names (--nodes names the type after --input), so a
// renamed copy of a topology is one name difference, not a different type.
std::map<std::string, std::string> match_node_types(const Catalog& a, const Catalog& b) {
  std::map<std::string, std::string> match;
  std::set<std::string> names_a, names_b;
  for (const NodeType& t : a.node_types) names_a.insert(t.name);
  for (const NodeType& t : b.node_types) names_b.insert(t.name);
  std::set<std::string> taken;
  for (const NodeType& t : a.node_types)
    if (names_b.count(t.name)) match[t.name] = t.name, taken.insert(t.name);
  for (const NodeType& t : a.node_types) {
    if (match.count(t.name)) continue;
    for (const NodeType& u : b.node_types) {
      if (names_a.count(u.name) || taken.count(u.name) || !same_but_name(t, u)) continue;
      match[t.name] = u.name;
      taken.insert(u.name);
      break;
    }
  }
  return match;
}

void diff_node_types(Lines& out, const Catalog& a, const Catalog& b, const std::map<std::string, std::string>& match) {
  std::map<std::string, const NodeType*> tb;
  for (const NodeType& t : b.node_types) tb.emplace(t.name, &t);
  std::set<std::string> seen;
  for (const NodeType& t : a.node_types) {
    const std::string p = fmt::format("node type \"{}\": ", t.name);
    auto m = match.find(t.name);
    if (m == match.end()) {
      out.add(kTopology, "node types", p + "only in A");
      out.also(kOrbits);
      out.also(kChannels);
      continue;
    }
    seen.insert(m->second);
    const NodeType& u = *tb.at(m->second);
    if (m->second != t.name)
      out.add(DiffArea::names, "node types", fmt::format("{}named \"{}\" in B (the same content)", p, u.name));
    diff_components(out, p, t, u);
    diff_links(out, p, t, u);
    diff_routes(out, p, t, u);
    diff_symmetry(out, p, t, u);
    diff_patterns(out, p, t, u);
  }
  for (const NodeType& t : b.node_types)
    if (!seen.count(t.name)) {
      out.add(kTopology, "node types", fmt::format("node type \"{}\": only in B", t.name));
      out.also(kOrbits);
      out.also(kChannels);
    }
  out.close("node types", "");
}

std::string type_name(const Catalog& c, std::uint32_t i) {
  return i < c.node_types.size() ? c.node_types[i].name : "#" + std::to_string(i);
}

// A's fabric group description with A's node type names replaced by B's
// ("8 nodes of type a" -> "8 nodes of type b") for the renamed ones.
std::string renamed_description(std::string text, const std::map<std::string, std::string>& match) {
  for (const auto& [from, to] : match) {
    if (from == to) continue;
    const std::string key = "of type " + from + ")";
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1))
      text.replace(at, key.size(), "of type " + to + ")");
  }
  return text;
}

void diff_cluster(Lines& out, const Catalog& a, const Catalog& b, const std::map<std::string, std::string>& match) {
  const std::string topic = "cluster";
  if (a.node_groups.size() != b.node_groups.size())
    out.add(kTopology, topic, fmt::format("{} node groups -> {}", a.node_groups.size(), b.node_groups.size()));
  for (std::size_t i = 0; i < std::min(a.node_groups.size(), b.node_groups.size()); ++i) {
    const NodeGroup &x = a.node_groups[i], &y = b.node_groups[i];
    const std::string q = fmt::format("node group {}: ", i);
    std::string ta = type_name(a, x.node_type);
    if (auto m = match.find(ta); m != match.end()) ta = m->second;  // a renamed type is reported once, above
    field(out, kTopology, topic, q, "node type", ta, type_name(b, y.node_type));
    field(out, kTopology, topic, q, "count", x.count, y.count);
    field(out, kTopology, topic, q, "names", x.names, y.names);
  }
  const Fabric &f = a.fabric, &g = b.fabric;
  field(out, kTopology, topic, "fabric: ", "kind", f.kind, g.kind);
  field(out, kTopology, topic, "fabric: ", "leaf_size", f.leaf_size, g.leaf_size);
  field(out, kTopology, topic, "fabric: ", "oversubscription", f.oversubscription, g.oversubscription);
  field(out, kTopology, topic, "fabric: ", "switches", f.switches, g.switches);
  field(out, kTopology, topic, "fabric: ", "spine", f.spine, g.spine);
  if (f.spine_uplink_gbps != g.spine_uplink_gbps)
    out.add(kTopology, topic,
            fmt::format("fabric: spine_uplink_gbps [{}] -> [{}]", fmt::join(f.spine_uplink_gbps, " "),
                        fmt::join(g.spine_uplink_gbps, " ")));
  field(out, kOrbits, topic, "fabric: ", "group_description", renamed_description(f.group_description, match),
        g.group_description);
  field(out, kOrbits, topic, "fabric: ", "group order", f.group_order, g.group_order);
  field(out, kOrbits, topic, "", "cluster group order", a.cluster_group_order, b.cluster_group_order);
  out.close(topic, "");
}

void diff_tail(Lines& out, const Catalog& a, const Catalog& b, const DiffOptions& o) {
  std::map<std::string, double> da(a.defaults.begin(), a.defaults.end()), db(b.defaults.begin(), b.defaults.end());
  for (const auto& [key, v] : da) {
    auto it = db.find(key);
    if (it == db.end()) out.add(kTopology, "defaults", fmt::format("default {}: only in A", key));
    else field(out, kTopology, "defaults", "default " + key + ": ", "value", v, it->second);
  }
  for (const auto& [key, v] : db)
    if (!da.count(key)) out.add(kTopology, "defaults", fmt::format("default {}: only in B", key));
  out.close("defaults", "");
  const Provenance &p = a.provenance, &q = b.provenance;
  if (!o.ignore_origin) field(out, kOptions, "provenance", "provenance: ", "tool", p.tool, q.tool);
  if (!o.ignore_tool_version)
    field(out, kOptions, "provenance", "provenance: ", "tool_version", p.tool_version, q.tool_version);
  if (!o.ignore_origin)
    field(out, kTopology, "provenance", "provenance: ", "input_digest", p.input_digest, q.input_digest);
  field(out, kOptions, "provenance", "provenance: ", "options", p.options, q.options);
}

}  // namespace

const char* to_string(DiffArea area) {
  switch (area) {
    case DiffArea::topology:
      return "topology";
    case DiffArea::orbits:
      return "orbits";
    case DiffArea::channels:
      return "channels";
    case DiffArea::options:
      return "options";
    case DiffArea::names:
      return "names";
  }
  return "?";
}

std::size_t DiffReport::area_count() const {
  std::size_t n = 0;
  for (std::size_t c : counts) n += c != 0;
  return n;
}

std::string DiffReport::areas_text() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kDiffAreaCount; ++i)
    if (counts[i] != 0) names.push_back(fmt::format("the {}", to_string(static_cast<DiffArea>(i))));
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

DiffReport diff_report(const Catalog& a, const Catalog& b, const DiffOptions& options) {
  DiffReport report;
  Lines out(report, options.max_items);
  const std::map<std::string, std::string> match = match_node_types(a, b);
  diff_node_types(out, a, b, match);
  diff_cluster(out, a, b, match);
  diff_tail(out, a, b, options);
  return report;
}

std::vector<std::string> diff_catalogs(const Catalog& a, const Catalog& b, const DiffOptions& options) {
  return diff_report(a, b, options).lines;
}

}  // namespace vp::catalog
