#include "vp/analysis/input_dir.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "vp/import/json_topology.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

namespace {

// The topology's content without its node's name or type: equal for two
// hosts of one node type.
std::string content_key(const Topology& t) {
  nlohmann::ordered_json j = topology_to_json(t);
  j.erase("nodes");
  j.erase("warnings");
  return j.dump();
}

// Hosts with these models are one group for the deviation report.
std::string group_key(const Topology& t) {
  std::set<std::string> gpus, cpus;
  for (const Component& c : t.components) {
    if (c.kind == ComponentKind::gpu) gpus.insert(c.model);
    if (c.kind == ComponentKind::cpu) cpus.insert(c.model);
  }
  std::string k;
  for (const std::string& m : gpus) k += "gpu:" + m + ";";
  for (const std::string& m : cpus) k += "cpu:" + m + ";";
  return k;
}

// A component by what identifies it across hosts: its PCI bus id, else its name.
std::string ident(const Component& c) {
  return c.pci_bus_id.empty() ? c.name : std::string(to_string(c.kind)) + " " + c.pci_bus_id;
}

std::string describe(const Component& c) {
  std::string s = c.name;
  if (!c.pci_bus_id.empty()) s += " (" + c.pci_bus_id + ")";
  return s;
}

std::string link_text(const Link& l) {
  if (l.pcie_gen == 0 && l.pcie_width == 0) return fmt::format("{:g} GB/s", l.capacity.gbps);
  return fmt::format("Gen{} x{}", l.pcie_gen, l.pcie_width);
}

// What `t` lacks, adds or links differently compared with `ref`.
std::vector<std::string> differences(const Topology& t, const Topology& ref) {
  std::vector<std::string> out;
  std::map<std::string, const Component*> mine, theirs;
  for (const Component& c : t.components) mine.emplace(ident(c), &c);
  for (const Component& c : ref.components) theirs.emplace(ident(c), &c);
  for (const auto& [k, c] : theirs)
    if (!mine.count(k) && (c->kind == ComponentKind::gpu || c->kind == ComponentKind::nic ||
                           c->kind == ComponentKind::pcie_switch))
      out.push_back(fmt::format("{} {} missing", to_string(c->kind), describe(*c)));
  for (const auto& [k, c] : mine)
    if (!theirs.count(k) && (c->kind == ComponentKind::gpu || c->kind == ComponentKind::nic ||
                             c->kind == ComponentKind::pcie_switch))
      out.push_back(fmt::format("extra {} {}", to_string(c->kind), describe(*c)));
  auto links = [](const Topology& x) {
    std::map<std::pair<std::string, std::string>, const Link*> m;
    for (const Link& l : x.links)
      if (l.id < l.reverse) m.emplace(std::make_pair(ident(x.components[l.src]), ident(x.components[l.dst])), &l);
    return m;
  };
  const auto a = links(t), b = links(ref);
  for (const auto& [k, l] : a) {
    auto it = b.find(k);
    if (it == b.end()) continue;
    const Link& r = *it->second;
    if (l->pcie_gen != r.pcie_gen || l->pcie_width != r.pcie_width || l->capacity.gbps != r.capacity.gbps)
      out.push_back(fmt::format("link {} - {}: {}, the others {}", describe(t.components[l->src]),
                                describe(t.components[l->dst]), link_text(*l), link_text(r)));
  }
  if (out.empty()) out.push_back("other differences of content");
  return out;
}

}  // namespace

std::vector<HostInput> list_input_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) throw InputError(dir, 0, fmt::format("cannot read the folder ({})", ec.message()));
  std::vector<HostInput> hosts;
  for (const auto& entry : it) {
    const std::filesystem::path& p = entry.path();
    if (!entry.is_regular_file(ec)) continue;
    const std::string ext = p.extension().string();
    if (ext != ".xml" && ext != ".json") continue;
    hosts.push_back({p.stem().string(), p.string()});
  }
  std::sort(hosts.begin(), hosts.end(), [](const HostInput& a, const HostInput& b) { return a.host < b.host; });
  for (std::size_t i = 1; i < hosts.size(); ++i)
    if (hosts[i].host == hosts[i - 1].host)
      throw InputError(dir, 0, fmt::format("host {} has two files ({} and {})", hosts[i].host, hosts[i - 1].path,
                                           hosts[i].path));
  if (hosts.empty()) throw InputError(dir, 0, "no HOST.xml or HOST.json file in the folder");
  return hosts;
}

ClusterSpec cluster_from_hosts(const std::vector<HostInput>& hosts, const ImportOptions& opts, FabricInfo fabric,
                               std::vector<std::string>* notes) {
  std::vector<Topology> topo;
  ImportOptions o = opts;
  o.node_type = "host";  // the same name for all: only content tells them apart
  for (const HostInput& h : hosts) {
    topo.push_back(import_topology(h.path, InputFormat::auto_detect, o));
    if (topo.back().nodes.size() != 1)
      throw InputError(h.path, 0, fmt::format("describes {} nodes; one file per host", topo.back().nodes.size()));
  }
  // Node types: identical contents, the most common first.
  std::map<std::string, std::vector<std::size_t>> by_content;
  for (std::size_t i = 0; i < topo.size(); ++i) by_content[content_key(topo[i])].push_back(i);
  std::vector<const std::vector<std::size_t>*> types;
  for (const auto& [k, members] : by_content) types.push_back(&members);
  std::stable_sort(types.begin(), types.end(), [](auto* a, auto* b) {
    return a->size() != b->size() ? a->size() > b->size() : a->front() < b->front();
  });
  std::vector<std::size_t> type_of(topo.size());
  ClusterSpec spec;
  for (std::size_t t = 0; t < types.size(); ++t) {
    NodeTypeSpec nt;
    nt.name = fmt::format("type{}", t + 1);
    nt.topology = topo[types[t]->front()];
    nt.topology.nodes[0].type = nt.name;
    for (std::size_t i : *types[t]) type_of[i] = t;
    spec.node_types.push_back(std::move(nt));
  }
  for (std::size_t i = 0; i < hosts.size(); ++i) spec.nodes.push_back({hosts[i].host, spec.node_types[type_of[i]].name});
  if (hosts.size() > 1 && fabric.kind == FabricKind::none) fabric.kind = FabricKind::single_switch;
  spec.fabric = fabric;
  // Deviations from the majority of the hosts with the same models.
  std::map<std::string, std::map<std::size_t, std::size_t>> groups;  // group key -> type -> hosts
  for (std::size_t i = 0; i < topo.size(); ++i) ++groups[group_key(topo[i])][type_of[i]];
  for (std::size_t i = 0; i < topo.size(); ++i) {
    const auto& g = groups[group_key(topo[i])];
    std::size_t major = type_of[i], most = 0, total = 0;
    for (const auto& [t, n] : g) {
      total += n;
      if (n > most) major = t, most = n;
    }
    if (type_of[i] == major || total < 2) continue;
    const std::vector<std::string> d = differences(topo[i], topo[types[major]->front()]);
    std::string text;
    for (const std::string& s : d) text += (text.empty() ? "" : "; ") + s;
    notes->push_back(fmt::format("host {} ({}) differs from {} of the {} hosts of its group ({}): {}", hosts[i].host,
                                 spec.node_types[type_of[i]].name, most, total, spec.node_types[major].name, text));
  }
  return spec;
}

}  // namespace vp
