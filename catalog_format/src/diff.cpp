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

void diff_components(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "components";
  if (a.components.size() != b.components.size())
    out.add(kTopology, topic, fmt::format("{}{} components -> {}", p, a.components.size(), b.components.size()));
  for (std::size_t i = 0; i < std::min(a.components.size(), b.components.size()); ++i) {
    const Component &x = a.components[i], &y = b.components[i];
    const std::string q = fmt::format("{}component {} ({}): ", p, i, x.name);
    field(out, kTopology, topic, q, "kind", x.kind, y.kind);
    field(out, kTopology, topic, q, "name", x.name, y.name);
    field(out, kTopology, topic, q, "parent", x.parent, y.parent);
    field(out, kTopology, topic, q, "local_index", x.local_index, y.local_index);
    field(out, kTopology, topic, q, "model", x.model, y.model);
    field(out, kTopology, topic, q, "pci_bus_id", x.pci_bus_id, y.pci_bus_id);
    field(out, kTopology, topic, q, "device_name", x.device_name, y.device_name);
    field(out, kTopology, topic, q, "forward_gbps", x.forward_gbps, y.forward_gbps);
    field(out, kTopology, topic, q, "nic_gbps", x.nic_gbps, y.nic_gbps);
    field(out, kTopology, topic, q, "gpudirect", x.gpudirect, y.gpudirect);
    if (i < a.component_orbit.size() && i < b.component_orbit.size())
      field(out, kOrbits, topic, q, "orbit", a.component_orbit[i], b.component_orbit[i]);
  }
  out.close(topic, p);
}

// Links keyed by their endpoints' ids.
void diff_links(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "links";
  auto index = [](const NodeType& t) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> m;
    for (std::size_t i = 0; i < t.links.size(); ++i) m.emplace(std::make_pair(t.links[i].src, t.links[i].dst), i);
    return m;
  };
  const auto ia = index(a), ib = index(b);
  for (const auto& [key, i] : ia) {
    const std::string q =
        fmt::format("{}link {} -> {}: ", p, component_label(a, key.first), component_label(a, key.second));
    auto it = ib.find(key);
    if (it == ib.end()) {
      out.add(kTopology, topic, q + "only in A");
      continue;
    }
    const Link &x = a.links[i], &y = b.links[it->second];
    field(out, kTopology, topic, q, "kind", x.kind, y.kind);
    field(out, kTopology, topic, q, "capacity_gbps", x.capacity_gbps, y.capacity_gbps);
    if (i < a.link_orbit.size() && it->second < b.link_orbit.size())
      field(out, kOrbits, topic, q, "orbit", a.link_orbit[i], b.link_orbit[it->second]);
  }
  for (const auto& [key, i] : ib)
    if (!ia.count(key))
      out.add(
          kTopology, topic,
          fmt::format("{}link {} -> {}: only in B", p, component_label(b, key.first), component_label(b, key.second)));
  out.close(topic, p);
}

void diff_routes(Lines& out, const std::string& p, const NodeType& a, const NodeType& b) {
  const std::string topic = p + "routes";
  std::map<std::pair<std::uint32_t, std::uint32_t>, const Route*> ra, rb;
  for (const Route& r : a.routes) ra.emplace(std::make_pair(r.from, r.to), &r);
  for (const Route& r : b.routes) rb.emplace(std::make_pair(r.from, r.to), &r);
  for (const auto& [key, r] : ra) {
    const std::string q =
        fmt::format("{}route {} -> {}: ", p, component_label(a, key.first), component_label(a, key.second));
    auto it = rb.find(key);
    if (it == rb.end()) {
      out.add(kTopology, topic, q + "only in A");
      continue;
    }
    field(out, kTopology, topic, q, "solo_gbps", r->solo_gbps, it->second->solo_gbps);
    if (r->links != it->second->links)
      out.add(kTopology, topic,
              fmt::format("{}links [{}] -> [{}]", q, fmt::join(r->links, " "), fmt::join(it->second->links, " ")));
    if (r->forwarders != it->second->forwarders)
      out.add(kTopology, topic,
              fmt::format("{}forwarders [{}] -> [{}]", q, fmt::join(r->forwarders, " "),
                          fmt::join(it->second->forwarders, " ")));
  }
  for (const auto& [key, r] : rb)
    if (!ra.count(key))
      out.add(
          kTopology, topic,
          fmt::format("{}route {} -> {}: only in B", p, component_label(b, key.first), component_label(b, key.second)));
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

void diff_node_types(Lines& out, const Catalog& a, const Catalog& b) {
  std::map<std::string, const NodeType*> tb;
  for (const NodeType& t : b.node_types) tb.emplace(t.name, &t);
  std::set<std::string> seen;
  for (const NodeType& t : a.node_types) {
    const std::string p = fmt::format("node type \"{}\": ", t.name);
    seen.insert(t.name);
    auto it = tb.find(t.name);
    if (it == tb.end()) {
      out.add(kTopology, "node types", p + "only in A");
      out.also(kOrbits);
      out.also(kChannels);
      continue;
    }
    diff_components(out, p, t, *it->second);
    diff_links(out, p, t, *it->second);
    diff_routes(out, p, t, *it->second);
    diff_symmetry(out, p, t, *it->second);
    diff_patterns(out, p, t, *it->second);
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

void diff_cluster(Lines& out, const Catalog& a, const Catalog& b) {
  const std::string topic = "cluster";
  if (a.node_groups.size() != b.node_groups.size())
    out.add(kTopology, topic, fmt::format("{} node groups -> {}", a.node_groups.size(), b.node_groups.size()));
  for (std::size_t i = 0; i < std::min(a.node_groups.size(), b.node_groups.size()); ++i) {
    const NodeGroup &x = a.node_groups[i], &y = b.node_groups[i];
    const std::string q = fmt::format("node group {}: ", i);
    field(out, kTopology, topic, q, "node type", type_name(a, x.node_type), type_name(b, y.node_type));
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
  field(out, kOrbits, topic, "fabric: ", "group_description", f.group_description, g.group_description);
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
  field(out, kOptions, "provenance", "provenance: ", "tool", p.tool, q.tool);
  if (!o.ignore_tool_version)
    field(out, kOptions, "provenance", "provenance: ", "tool_version", p.tool_version, q.tool_version);
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
  diff_node_types(out, a, b);
  diff_cluster(out, a, b);
  diff_tail(out, a, b, options);
  return report;
}

std::vector<std::string> diff_catalogs(const Catalog& a, const Catalog& b, const DiffOptions& options) {
  return diff_report(a, b, options).lines;
}

}  // namespace vp::catalog
