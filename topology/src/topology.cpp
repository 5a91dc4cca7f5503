#include "vp/topology/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <tuple>

#include "vp/topology/errors.hpp"
#include "vpcat/utf8.hpp"

namespace vp {

ComponentId Topology::add_component(ComponentKind kind, std::int32_t node) {
  Component c;
  c.id = static_cast<ComponentId>(components.size());
  c.kind = kind;
  c.node = node;
  components.push_back(std::move(c));
  return components.back().id;
}

LinkId Topology::add_duplex_link(ComponentId a, ComponentId b, LinkKind kind, const Capacity& cap, int pcie_gen,
                                 int pcie_width) {
  auto forward = static_cast<LinkId>(links.size());
  links.push_back(Link{forward, a, b, kind, cap, forward + 1, pcie_gen, pcie_width});
  links.push_back(Link{forward + 1, b, a, kind, cap, forward, pcie_gen, pcie_width});
  return forward;
}

LinkId Topology::find_link(ComponentId src, ComponentId dst) const {
  if (src < out_links.size()) {
    for (LinkId l : out_links[src]) {
      if (links[l].dst == dst) return l;
    }
    return kNone;
  }
  for (const Link& l : links) {
    if (l.src == src && l.dst == dst) return l.id;
  }
  return kNone;
}

int Topology::gpu_index(ComponentId c) const {
  auto it = std::find(gpus.begin(), gpus.end(), c);
  return it == gpus.end() ? -1 : static_cast<int>(it - gpus.begin());
}

std::string Topology::display_name(ComponentId c) const {
  const Component& comp = components.at(c);
  if (comp.node < 0 || nodes.size() <= 1) return comp.name;
  return nodes.at(static_cast<std::size_t>(comp.node)).name + "/" + comp.name;
}

bool Topology::same_as(const Topology& o) const {
  return components == o.components && links == o.links && nodes == o.nodes && fabric == o.fabric &&
         defaults.entries() == o.defaults.entries() && defaults.overridden == o.defaults.overridden &&
         warnings == o.warnings;
}

// ---------------------------------------------------------------------------
// finalize: validation and derived indexes

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& reason) { throw InputError(file, 0, reason); }

bool valid_parent_kind(ComponentKind child, ComponentKind parent) {
  switch (child) {
    case ComponentKind::gpu:
    case ComponentKind::nic:
    case ComponentKind::pcie_switch:
      return parent == ComponentKind::pcie_switch || parent == ComponentKind::host_bridge;
    case ComponentKind::host_bridge:
      return parent == ComponentKind::cpu;
    case ComponentKind::cpu:
    case ComponentKind::net_switch:
      return false;
  }
  return false;
}

// The byte offset of the first byte of `s` that is not valid UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) or is a control
// character (C0 or DEL), else npos. The catalog, its JSON mirror and every
// message carry these strings: a NUL would cut them, and invalid UTF-8 cannot
// be written as JSON.
std::size_t bad_text_at(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const std::size_t invalid = vpcat::utf8_invalid_at(p, s.size());
  for (std::size_t i = 0; i < invalid; ++i)  // control characters are ASCII: never inside a sequence
    if (p[i] < 0x20 || p[i] == 0x7f) return i;
  return invalid == s.size() ? std::string_view::npos : invalid;
}

void check_text(const std::string& file, const std::string& where, const char* field, const std::string& value) {
  std::size_t at = bad_text_at(value);
  if (at == std::string_view::npos) return;
  const auto byte = static_cast<unsigned char>(value[at]);
  fail(file, fmt::format("{}: {} is not text: byte 0x{:02x} at offset {} is {}", where, field, byte, at,
                         byte < 0x20 || byte == 0x7f ? "a control character" : "not valid UTF-8"));
}

// A node name is a host name: the catalog lists a node group's names as a
// host list expression (SPEC.md §6.8), where ',' and '[' have a meaning.
void check_host_name(const std::string& file, const std::string& where, const std::string& name) {
  auto host_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_';
  };
  if (name.empty()) fail(file, where + ": name is empty (a node is named by its host name)");
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!host_char(name[i]))
      fail(file, fmt::format("{}: name \"{}\" is not a host name: character {} is not a letter, digit, '-', '.' or "
                             "'_'",
                             where, name, i + 1));
}

void check_components(const Topology& t, const std::string& file) {
  const auto n = t.components.size();
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    check_text(file, fmt::format("node {}", i), "name", t.nodes[i].name);
    check_text(file, fmt::format("node {}", i), "type", t.nodes[i].type);
    check_host_name(file, fmt::format("node {}", i), t.nodes[i].name);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Component& c = t.components[i];
    std::string where = fmt::format("component {} ({})", i, to_string(c.kind));
    check_text(file, where, "name", c.name);
    check_text(file, where, "model", c.model);
    check_text(file, where, "pci_bus_id", c.pci_bus_id);
    check_text(file, where, "device_name", c.device_name);
    check_text(file, where, "cpu_family", c.cpu_family);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Component& c = t.components[i];
    std::string where = fmt::format("component {} ({})", i, c.name.empty() ? to_string(c.kind) : c.name);
    if (c.id != i) fail(file, fmt::format("{}: id is {}, expected its index {}", where, c.id, i));
    if (c.kind == ComponentKind::net_switch) {
      if (c.node != -1) fail(file, where + ": a net_switch belongs to the fabric (node -1)");
    } else if (c.node < 0 || static_cast<std::size_t>(c.node) >= t.nodes.size()) {
      fail(file, fmt::format("{}: node {} does not exist ({} nodes)", where, c.node, t.nodes.size()));
    }
    bool needs_parent = c.kind != ComponentKind::cpu && c.kind != ComponentKind::net_switch;
    if (!needs_parent && c.parent != kNone) fail(file, where + ": a " + std::string(to_string(c.kind)) + " has no parent");
    if (needs_parent) {
      if (c.parent == kNone || c.parent >= n) fail(file, fmt::format("{}: parent {} does not exist", where, c.parent == kNone ? std::string("none") : std::to_string(c.parent)));
      const Component& p = t.components[c.parent];
      if (!valid_parent_kind(c.kind, p.kind))
        fail(file, fmt::format("{}: a {} cannot hang below a {}", where, to_string(c.kind), to_string(p.kind)));
      if (p.node != c.node) fail(file, fmt::format("{}: parent {} is in another node", where, p.name));
    }
    // Within the tools' range (capacity.hpp): a denormal or a 1e-300 is no
    // real capacity, and 1 / denormal overflows.
    if (c.forward && !in_capacity_range(c.forward->gbps))
      fail(file, fmt::format("{}: forwarding capacity must be {}, got {}", where, capacity_range_text(),
                             c.forward->gbps));
    if (c.kind == ComponentKind::nic && c.line_rate_gbitps < 0)
      fail(file, fmt::format("{}: line rate must not be negative", where));
    if (c.kind == ComponentKind::nic && c.line_rate_gbitps != 0 && !std::isnormal(c.line_rate_gbitps))
      fail(file, fmt::format("{}: line rate must be 0 or a positive (normal) number, got {}", where,
                             c.line_rate_gbitps));
  }
}

// The parent chain of every component must reach a cpu without revisiting.
void check_acyclic(const Topology& t, const std::string& file) {
  const auto n = t.components.size();
  std::vector<unsigned char> state(n, 0);  // 0 unseen, 1 on the current chain, 2 done
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<ComponentId> chain;
    ComponentId c = static_cast<ComponentId>(i);
    while (c != kNone && state[c] == 0) {
      state[c] = 1;
      chain.push_back(c);
      c = t.components[c].parent;
    }
    if (c != kNone && state[c] == 1)
      fail(file, fmt::format("the PCIe tree has a cycle through {}", t.components[c].name));
    for (ComponentId x : chain) state[x] = 2;
  }
  // Depth: a catalog's reader follows at most kMaxTreeDepth parent steps.
  std::vector<std::uint32_t> depth(n, 0);
  std::vector<unsigned char> known(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<ComponentId> chain;
    ComponentId c = static_cast<ComponentId>(i);
    while (c != kNone && !known[c]) chain.push_back(c), c = t.components[c].parent;
    std::uint32_t d = c == kNone ? 0 : depth[c] + 1;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it, ++d) {
      if (t.components[*it].parent == kNone) d = 0;
      depth[*it] = d, known[*it] = 1;
    }
    if (depth[i] > kMaxTreeDepth)
      fail(file, fmt::format("component {} ({}): {} PCIe levels below its socket, more than the {} a catalog holds",
                             i, to_string(t.components[i].kind), depth[i], kMaxTreeDepth));
  }
}

void check_links(const Topology& t, const std::string& file) {
  const auto n = t.components.size();
  std::map<std::pair<ComponentId, ComponentId>, LinkId> seen;
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    std::string where = fmt::format("link {}", i);
    if (l.id != i) fail(file, fmt::format("{}: id is {}, expected its index {}", where, l.id, i));
    if (l.src >= n || l.dst >= n) fail(file, where + ": an endpoint does not exist");
    if (l.src == l.dst) fail(file, where + ": joins a component to itself");
    if (!in_capacity_range(l.capacity.gbps))
      fail(file, fmt::format("{} ({} -> {}): capacity must be {}, got {}", where, t.components[l.src].name,
                             t.components[l.dst].name, capacity_range_text(), l.capacity.gbps));
    if (l.reverse >= t.links.size()) fail(file, where + ": has no reverse direction");
    const Link& r = t.links[l.reverse];
    if (r.src != l.dst || r.dst != l.src || r.reverse != l.id)
      fail(file, where + ": its reverse link does not join the same components the other way");
    if (!seen.emplace(std::make_pair(l.src, l.dst), l.id).second)
      fail(file, fmt::format("{}: duplicates the link {} -> {}", where, t.components[l.src].name,
                             t.components[l.dst].name));
  }
  // Every PCIe parent relation must be backed by a link.
  for (const Component& c : t.components) {
    if (c.parent != kNone && !seen.count({c.id, c.parent}))
      fail(file, fmt::format("{}: no link to its parent {}", c.name, t.components[c.parent].name));
  }
}

// A component in a message: its name, or before canonicalize() names it,
// its kind and id ("gpu component 3").
std::string label(const Component& c) {
  return c.name.empty() ? fmt::format("{} component {}", to_string(c.kind), c.id) : c.name;
}

void check_bus_ids(const Topology& t, const std::string& file) {
  std::map<std::pair<std::int32_t, std::string>, ComponentId> seen;
  for (const Component& c : t.components) {
    if (c.pci_bus_id.empty()) continue;
    auto [it, fresh] = seen.emplace(std::make_pair(c.node, c.pci_bus_id), c.id);
    if (!fresh)
      fail(file, fmt::format("duplicate PCI bus id {} ({} and {})", c.pci_bus_id, label(t.components[it->second]),
                             label(c)));
  }
}

void build_indexes(Topology& t) {
  const auto n = t.components.size();
  t.gpus.clear(), t.nics.clear(), t.switches.clear(), t.sockets.clear(), t.host_bridges.clear(),
      t.net_switches.clear();
  t.out_links.assign(n, {});
  t.in_links.assign(n, {});
  t.children.assign(n, {});
  for (const Component& c : t.components) {
    switch (c.kind) {
      case ComponentKind::gpu: t.gpus.push_back(c.id); break;
      case ComponentKind::nic: t.nics.push_back(c.id); break;
      case ComponentKind::pcie_switch: t.switches.push_back(c.id); break;
      case ComponentKind::cpu: t.sockets.push_back(c.id); break;
      case ComponentKind::host_bridge: t.host_bridges.push_back(c.id); break;
      case ComponentKind::net_switch: t.net_switches.push_back(c.id); break;
    }
    if (c.parent != kNone) t.children[c.parent].push_back(c.id);
  }
  auto by_node_index = [&](ComponentId a, ComponentId b) {
    const Component &x = t.components[a], &y = t.components[b];
    return std::tie(x.node, x.local_index, x.id) < std::tie(y.node, y.local_index, y.id);
  };
  std::sort(t.gpus.begin(), t.gpus.end(), by_node_index);
  std::sort(t.nics.begin(), t.nics.end(), by_node_index);
  for (const Link& l : t.links) {
    t.out_links[l.src].push_back(l.id);
    t.in_links[l.dst].push_back(l.id);
  }
}

}  // namespace

void finalize(Topology& t, const std::string& file) {
  if (t.nodes.empty()) fail(file, "no node");
  // A warning may quote the input ("link_speed \"\xbe GT/s\" not understood"),
  // and warnings go into the topology's JSON and the catalog's provenance.
  for (std::string& w : t.warnings) w = printable(w);
  check_components(t, file);
  check_acyclic(t, file);
  check_links(t, file);
  check_bus_ids(t, file);
  build_indexes(t);
  if (t.gpus.empty()) fail(file, "no GPU in the topology");
}

// ---------------------------------------------------------------------------
// canonicalize

namespace {

// Depth-first position of every component in its node's PCIe forest, sockets
// first in their current order, children in (kind, bus id, local index, old
// id) order. Used as the last tie breaker.
std::vector<std::size_t> tree_positions(const Topology& t) {
  const auto n = t.components.size();
  std::vector<std::vector<ComponentId>> kids(n);
  std::vector<ComponentId> roots;
  for (const Component& c : t.components) {
    if (c.parent == kNone) roots.push_back(c.id);
    else kids[c.parent].push_back(c.id);
  }
  auto key = [&](ComponentId id) {
    const Component& c = t.components[id];
    return std::make_tuple(c.node, c.kind, c.pci_bus_id, c.local_index, c.id);
  };
  auto order = [&](ComponentId a, ComponentId b) { return key(a) < key(b); };
  std::sort(roots.begin(), roots.end(), order);
  std::vector<std::size_t> pos(n, 0);
  std::size_t next = 0;
  std::vector<ComponentId> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    ComponentId c = stack.back();
    stack.pop_back();
    pos[c] = next++;
    auto& k = kids[c];
    std::sort(k.begin(), k.end(), order);
    stack.insert(stack.end(), k.rbegin(), k.rend());
  }
  return pos;
}

// Per component: the least PCI bus id in its PCIe subtree (its own included),
// "" if none. Orders components that have no bus id of their own (sockets,
// host bridges of hand-written files) by what hangs below them, so that the
// order does not depend on the order of the input.
std::vector<std::string> least_bus_id_below(const Topology& t) {
  std::vector<std::string> least(t.components.size());
  for (const Component& c : t.components) {
    if (c.pci_bus_id.empty()) continue;
    for (ComponentId x = c.id; x != kNone; x = t.components[x].parent)
      if (least[x].empty() || c.pci_bus_id < least[x]) least[x] = c.pci_bus_id;
  }
  return least;
}

// "gpu3", "pcie_switch1"; net switches by role: "rail2", "leaf0", "spine0".
std::string name_stem(const Component& c) {
  if (c.kind != ComponentKind::net_switch) return std::string(to_string(c.kind));
  return c.role.empty() ? std::string("switch") : c.role;
}

// Canonical link order (catalog_format/SPEC.md, "global numbering"): first
// each node's internal links, node by node, by (src, dst); then every NIC's
// fabric link pair (NIC -> switch, then switch -> NIC) in NIC order; then the
// links between network switches by (lower id, upward first). A node's
// internal links thus keep the order of its node type, at an offset, and the
// runtime can number a cluster's links without storing them.
using LinkKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t>;

LinkKey link_key(const std::vector<Component>& comps, const Link& l) {
  const Component &s = comps[l.src], &d = comps[l.dst];
  if (s.node >= 0 && s.node == d.node) return {0, s.node, l.src, l.dst};
  if (s.node >= 0) return {1, l.src, 0, l.dst};  // node side is the source: uplink
  if (d.node >= 0) return {1, l.dst, 1, l.src};  // downlink
  return {2, std::min(l.src, l.dst), l.src > l.dst, 0};
}

}  // namespace

void canonicalize(Topology& t, const std::string& file) {
  // Validate first so that the tree walk below cannot loop or index out of range.
  finalize(t, file);
  const auto n = t.components.size();
  std::vector<std::size_t> pos = tree_positions(t);
  std::vector<std::string> below = least_bus_id_below(t);
  std::vector<ComponentId> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](ComponentId a, ComponentId b) {
    const Component &x = t.components[a], &y = t.components[b];
    // Fabric components (node -1) go last.
    auto node_key = [](const Component& c) { return c.node < 0 ? INT32_MAX : c.node; };
    return std::make_tuple(node_key(x), x.kind, x.pci_bus_id.empty(), x.pci_bus_id, x.local_index, below[a].empty(),
                           below[a], pos[a]) <
           std::make_tuple(node_key(y), y.kind, y.pci_bus_id.empty(), y.pci_bus_id, y.local_index, below[b].empty(),
                           below[b], pos[b]);
  });
  std::vector<ComponentId> new_id(n);
  for (std::size_t i = 0; i < n; ++i) new_id[order[i]] = static_cast<ComponentId>(i);

  std::vector<Component> comps;
  comps.reserve(n);
  std::map<std::pair<std::int32_t, ComponentKind>, std::int32_t> counters;
  std::map<std::pair<std::int32_t, std::string>, std::int32_t> name_counters;
  for (ComponentId old : order) {
    Component c = t.components[old];
    c.id = new_id[old];
    if (c.parent != kNone) c.parent = new_id[c.parent];
    c.local_index = counters[{c.node, c.kind}]++;
    std::string stem = name_stem(c);
    c.name = stem + std::to_string(name_counters[{c.node, stem}]++);
    comps.push_back(std::move(c));
  }

  std::vector<Link> links = t.links;
  for (Link& l : links) l.src = new_id[l.src], l.dst = new_id[l.dst];
  std::vector<LinkId> lorder(links.size());
  std::iota(lorder.begin(), lorder.end(), 0);
  std::vector<LinkKey> keys(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) keys[i] = link_key(comps, links[i]);
  std::sort(lorder.begin(), lorder.end(), [&](LinkId a, LinkId b) { return keys[a] < keys[b]; });
  std::vector<LinkId> new_link(links.size());
  for (std::size_t i = 0; i < lorder.size(); ++i) new_link[lorder[i]] = static_cast<LinkId>(i);
  std::vector<Link> sorted;
  sorted.reserve(links.size());
  for (LinkId old : lorder) {
    Link l = links[old];
    l.id = new_link[old];
    l.reverse = new_link[l.reverse];
    sorted.push_back(std::move(l));
  }
  t.components = std::move(comps);
  t.links = std::move(sorted);
  finalize(t, file);
}

}  // namespace vp
