#include "vp/analysis/request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "vp/analysis/input_dir.hpp"
#include "vp/base/input_file.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/import/import.hpp"
#include "vp/import/measured.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

namespace {

// A decimal number as strtod reads it, the whole text. A result too small
// for a normal double is still a number (the table's range check refuses it
// with the range); one too large is out of range.
double parse_number(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(begin, &end);
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || end != begin + text.size())
    throw UsageError(fmt::format("{}: '{}' is not a number", what, text));
  if (errno == ERANGE && std::fabs(value) > 1)
    throw UsageError(fmt::format("{}: '{}' is out of range", what, text));
  return value;
}

std::pair<std::string, std::string> split_key_value(const std::string& kv, const std::string& what) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(fmt::format("{} {}: expected KEY=VALUE", what, kv));
  return {kv.substr(0, eq), kv.substr(eq + 1)};
}

CapacityDefaults build_defaults(const AnalysisRequest& r) {
  CapacityDefaults d;
  if (!r.defaults_file.empty()) d.load_file(r.defaults_file);
  for (const std::string& kv : r.sets) {
    auto [key, text] = split_key_value(kv, "--set");
    double value = parse_number(text, "--set " + kv);
    try {
      d.set(key, value, "--set");
    } catch (const InputError& e) {
      throw UsageError(fmt::format("--set {}", e.reason()));
    }
  }
  return d;
}

// Node `index` of a cluster topology as a single-node topology.
Topology extract_node(const Topology& t, std::int32_t index) {
  Topology n;
  n.defaults = t.defaults;
  n.nodes.push_back(NodeInfo{"node0", t.nodes[static_cast<std::size_t>(index)].type});
  std::map<ComponentId, ComponentId> id;
  for (const Component& c : t.components) {
    if (c.node != index) continue;
    ComponentId fresh = n.add_component(c.kind, 0);
    Component copy = c;
    copy.id = fresh;
    copy.node = 0;
    n.components[fresh] = copy;
    id[c.id] = fresh;
  }
  for (Component& c : n.components)
    if (c.parent != kNone) c.parent = id.at(c.parent);
  for (const Link& l : t.links) {
    if (l.id > l.reverse || !id.count(l.src) || !id.count(l.dst)) continue;
    n.add_duplex_link(id.at(l.src), id.at(l.dst), l.kind, l.capacity, l.pcie_gen, l.pcie_width);
  }
  canonicalize(n, "cluster node " + t.nodes[static_cast<std::size_t>(index)].name);
  return n;
}

// The --nodes shortcut's fabric options must change the analysis (and so be
// recorded in canonical_options()): refuse those that do not apply. A value
// equal to the option's default is the same as not giving it.
void check_shortcut_options(const AnalysisRequest& r) {
  const AnalysisRequest plain;
  if (r.nodes == 1 && (r.fabric != plain.fabric || r.leaf_size != plain.leaf_size ||
                       r.oversubscription != plain.oversubscription))
    throw UsageError("--nodes 1 is one node, without a fabric: --fabric, --leaf-size and --oversubscription do not "
                     "apply");
  if (r.leaf_size != plain.leaf_size && r.fabric != "leaf_spine")
    throw UsageError(fmt::format("--leaf-size {}: applies to --fabric leaf_spine only (the fabric is {})", r.leaf_size,
                                 r.fabric));
  if (r.oversubscription != plain.oversubscription && r.fabric == "single_switch")
    throw UsageError(fmt::format("--oversubscription {:g}: a single_switch fabric is non-blocking (the option applies "
                                 "to rail and leaf_spine)",
                                 r.oversubscription));
}

// The orbits of ordered GPU pairs under Aut(node): pair (i, j) is
// i * gpus + j; its orbit id is the least pair of its orbit.
std::vector<std::uint32_t> gpu_pair_orbits(const Topology& t) {
  const std::size_t n = t.gpus.size();
  std::vector<std::uint32_t> parent(n * n);
  for (std::size_t p = 0; p < n * n; ++p) parent[p] = static_cast<std::uint32_t>(p);
  auto find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<int> index(t.components.size(), -1);
  for (std::size_t i = 0; i < n; ++i) index[t.gpus[i]] = static_cast<int>(i);
  for (const Permutation& g : compute_node_symmetry(t).generators)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const auto gi = static_cast<std::size_t>(index[g[t.gpus[i]]]), gj = static_cast<std::size_t>(index[g[t.gpus[j]]]);
        std::uint32_t a = find(static_cast<std::uint32_t>(i * n + j)), b = find(static_cast<std::uint32_t>(gi * n + gj));
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
  for (std::size_t p = 0; p < n * n; ++p) parent[p] = find(static_cast<std::uint32_t>(p));
  return parent;
}

// --measured FILE...: read every file, then set the node's capacities.
void apply_measured(const AnalysisRequest& r, Topology& node) {
  std::vector<Measurement> ms;
  for (const std::string& f : r.measured) ms.push_back(read_measurement(f));
  const std::vector<std::uint32_t> orbits = gpu_pair_orbits(node);
  apply_measurements(node, ms, orbits);
}

// The host names --hostname / --hosts give, checked: none twice, as many as
// --nodes when both are given. Empty without either.
std::vector<std::string> requested_hosts(const AnalysisRequest& r) {
  if (r.hosts.empty()) return {};
  std::vector<std::string> names;
  try {
    names = expand_hostlist(r.hosts, "");
  } catch (const InputError& e) {
    throw UsageError(fmt::format("--hosts {}: {}", printable_line(r.hosts), e.reason()));
  }
  std::set<std::string> seen;
  for (const std::string& n : names)
    if (!seen.insert(n).second) throw UsageError(fmt::format("--hosts {}: host {} twice", printable_line(r.hosts), n));
  if (r.nodes != 0 && names.size() != r.nodes)
    throw UsageError(fmt::format("--hosts {} names {} hosts, --nodes {} nodes (one name per node)",
                                 printable_line(r.hosts), names.size(), r.nodes));
  return names;
}

}  // namespace

ClusterSpec cluster_spec_from_topology(const Topology& t) {
  ClusterSpec spec;
  spec.nodes = t.nodes;
  spec.fabric = t.fabric;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const std::string& type = t.nodes[i].type;
    bool known = false;
    for (const NodeTypeSpec& s : spec.node_types) known = known || s.name == type;
    if (!known) spec.node_types.push_back(NodeTypeSpec{type, extract_node(t, static_cast<std::int32_t>(i))});
  }
  return spec;
}

LoadedInput load_input(const AnalysisRequest& r) {
  ImportOptions opts;
  opts.defaults = build_defaults(r);
  opts.cluster_root = r.cluster_root;
  check_shortcut_options(r);
  auto format = parse_input_format(r.format);
  if (!format) throw UsageError(fmt::format("--format {}: unknown format", r.format));
  if (r.input.empty() && r.format != "auto") throw UsageError("--format needs --input");
  // The node of --input, or of this machine, read when first needed: a
  // cluster description whose node types all name their files needs neither.
  std::optional<Topology> node;
  auto read_node = [&]() -> Topology& {
    if (!node) node = r.input.empty() ? probe_local_machine(opts) : import_topology(r.input, *format, opts);
    return *node;
  };
  LoadedInput in;
  const std::vector<std::string> hosts = requested_hosts(r);
  if (!hosts.empty() && (!r.input_dir.empty() || !r.cluster.empty()))
    throw UsageError("--hostname/--hosts name the nodes of --input or this machine (with or without --nodes); a "
                     "cluster description and --input-dir name their own");
  if (!r.measured.empty() && (!r.input_dir.empty() || !r.cluster.empty()))
    throw UsageError("--measured applies to one node type (--input or this machine, with or without --nodes); "
                     "drop --input-dir/--cluster");
  if (!r.input_dir.empty()) {  // one file per host, grouped by content
    if (!r.cluster.empty() || r.nodes != 0) throw UsageError("--input-dir names the nodes; drop --cluster/--nodes");
    if (!r.input.empty()) throw UsageError("--input-dir names the nodes' files; drop --input");
    auto fabric = parse_fabric_kind(r.fabric);
    if (!fabric) throw UsageError(fmt::format("--fabric {}: unknown fabric", r.fabric));
    in.cluster = cluster_from_hosts(list_input_dir(r.input_dir), opts,
                                    {*fabric, *fabric == FabricKind::leaf_spine ? r.leaf_size : 0, r.oversubscription},
                                    &in.notes);
    in.topology = expand_cluster(in.cluster);
    in.origin = r.input_dir;
    return in;
  }
  in.origin = r.input.empty() ? "local machine" : input_name(r.input);
  if (!r.input.empty() && read_node().nodes.size() > 1) {
    // A vp JSON document of a whole cluster: already expanded.
    if (!r.cluster.empty() || r.nodes != 0)
      throw UsageError(fmt::format("{} already describes a cluster of {} nodes; drop --cluster/--nodes", r.input,
                                   node->nodes.size()));
    if (!r.measured.empty())
      throw UsageError(fmt::format("--measured applies to one node type; {} describes a cluster of {} nodes", r.input,
                                   node->nodes.size()));
    if (!hosts.empty())
      throw UsageError(fmt::format("{} already names its {} nodes; drop --hostname/--hosts", r.input,
                                   node->nodes.size()));
    in.cluster = cluster_spec_from_topology(*node);
    for (const NodeTypeSpec& type : in.cluster.node_types)
      if (std::string why = node_type_violation(type.name, type.topology); !why.empty())
        throw InputError(in.origin, 0, why);
    in.topology = std::move(*node);
    return in;
  }
  if (!r.cluster.empty()) {
    bool used = false;
    in.cluster = load_cluster_spec(
        r.cluster,
        DefaultNodeType([&]() -> const Topology* {
          used = true;
          return &read_node();
        }),
        opts);
    // A file named and then not read would be a check that checks nothing
    // (validate --against X --cluster C "matches the analysis of X"): --input
    // is either the topology of a node type without a file of its own, or
    // the same file as one the description names.
    const auto names_input = [&](const NodeTypeSpec& t) {
      std::error_code ec;
      return !t.input_file.empty() && std::filesystem::equivalent(t.input_file, r.input, ec);
    };
    if (!r.input.empty() && !used &&
        std::none_of(in.cluster.node_types.begin(), in.cluster.node_types.end(), names_input))
      throw UsageError(fmt::format("{}: not read: every node type of the cluster description {} names its own input "
                                   "and this file is none of them (give the description alone, or one whose node type takes this file)",
                                   printable_line(input_name(r.input)), printable_line(r.cluster)));
    in.origin = used ? fmt::format("{} with {}", r.cluster, in.origin) : r.cluster;
    in.topology = expand_cluster(in.cluster);
    return in;
  }
  auto fabric = parse_fabric_kind(r.fabric);
  if (!fabric) throw UsageError(fmt::format("--fabric {}: unknown fabric", r.fabric));
  Topology& single = read_node();
  if (!r.measured.empty()) apply_measured(r, single);
  const std::uint32_t count = r.nodes != 0 ? r.nodes : std::max<std::uint32_t>(1, static_cast<std::uint32_t>(hosts.size()));
  if (count <= 1) {
    if (std::string why = node_type_violation(single.nodes.empty() ? in.origin : single.nodes.front().type, single); !why.empty())
      throw InputError(in.origin, 0, why);
    if (!hosts.empty() && !single.nodes.empty()) single.nodes.front().name = hosts.front();
    in.cluster = cluster_from_shortcut(single, 1, FabricKind::none, 0, 1.0);
    in.cluster.nodes.front().name = single.nodes.empty() ? "node0" : single.nodes.front().name;
    in.topology = std::move(single);
  } else {
    const std::uint64_t components = std::uint64_t{count} * single.components.size();
    if (std::string why = cluster_size_violation(count, components); !why.empty())
      throw UsageError(fmt::format("{}: {}", r.nodes != 0 ? fmt::format("--nodes {}", r.nodes) : "--hosts " + r.hosts, why));
    in.cluster = cluster_from_shortcut(single, count, *fabric, r.leaf_size, r.oversubscription);
    for (std::size_t i = 0; i < hosts.size(); ++i) in.cluster.nodes[i].name = hosts[i];
    in.topology = expand_cluster(in.cluster);
  }
  return in;
}

std::string canonical_options(const AnalysisRequest& r) {
  std::map<std::string, std::string> kv;
  if (r.nodes > 1) {
    kv["nodes"] = std::to_string(r.nodes);
    kv["fabric"] = r.fabric;
    if (r.fabric == "leaf_spine") kv["leaf_size"] = std::to_string(r.leaf_size);
    if (r.fabric != "single_switch") kv["oversubscription"] = fmt::format("{:g}", r.oversubscription);
  }
  if (r.format != "auto") kv["format"] = r.format;
  if (!r.hosts.empty()) kv["hosts"] = r.hosts;
  CapacityDefaults d = build_defaults(r);
  for (const std::string& key : d.overridden) kv["set." + key] = fmt::format("{:.17g}", d.entries().at(key));
  kv["pattern_budget"] = std::to_string(r.search.max_search_nodes);
  std::string out;
  for (const auto& [key, value] : kv) out += (out.empty() ? "" : ";") + key + "=" + value;
  return out;
}

void apply_options(AnalysisRequest& r, const std::string& text) {
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    if (item.empty()) continue;
    auto [key, value] = split_key_value(item, "option");
    if (key == "nodes") r.nodes = static_cast<std::uint32_t>(parse_number(value, key));
    else if (key == "fabric") r.fabric = value;
    else if (key == "leaf_size") r.leaf_size = static_cast<std::uint32_t>(parse_number(value, key));
    else if (key == "oversubscription") r.oversubscription = parse_number(value, key);
    else if (key == "format") r.format = value;
    else if (key == "hosts") r.hosts = value;
    else if (key == "pattern_budget") r.search.max_search_nodes = static_cast<std::uint64_t>(parse_number(value, key));
    else if (key.rfind("set.", 0) == 0) r.sets.push_back(key.substr(4) + "=" + value);
    else throw UsageError(fmt::format("option {}: unknown key", key));
  }
}

}  // namespace vp
