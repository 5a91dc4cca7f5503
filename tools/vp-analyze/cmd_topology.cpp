// `vp-analyze topology`: what an operator checks first. GPUs, NICs, switches,
// links with their GB/s and where each figure came from, and the
// `nvidia-smi topo -m`-style path-type matrices (GPU x GPU, then GPU x NIC
// with the NIC legend); --json prints the normalized topology
// (schemas/topology.schema.json); --svg / --dot draw one node's PCIe tree
// with its orbits (vp/render/topology_picture.hpp, docs/pictures.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "vp/base/messages.hpp"
#include "vp/analysis/request.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/cli/output.hpp"
#include "vp/render/topology_picture.hpp"
#include "vp/import/json_topology.hpp"
#include "vp/topology/routes.hpp"

namespace vp::cli {

namespace {

struct TopologyOptions {
  AnalysisRequest input;
  bool json = false;
  std::string svg, dot;  // picture outputs ("-" = standard output)
};

// "cpu0 > host_bridge0 > pcie_switch1" for the ancestors of c.
std::string tree_path(const Topology& t, ComponentId c) {
  std::vector<std::string> names;
  for (ComponentId p = t.components[c].parent; p != kNone; p = t.components[p].parent)
    names.insert(names.begin(), t.components[p].name);
  return fmt::format("{}", fmt::join(names, " > "));
}

std::string socket_of(const Topology& t, ComponentId c) {
  while (t.components[c].parent != kNone) c = t.components[c].parent;
  return t.components[c].kind == ComponentKind::cpu ? t.components[c].name : "-";
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void print_summary(const Topology& t, const std::string& origin) {
  fmt::print("Topology of {}: {} node{}, {} GPUs, {} NICs, {} PCIe switches, {} host bridges, {} sockets{}\n",
             origin, t.nodes.size(), t.nodes.size() == 1 ? "" : "s", t.gpus.size(), t.nics.size(),
             t.switches.size(), t.host_bridges.size(), t.sockets.size(),
             t.net_switches.empty() ? "" : fmt::format(", {} network switches", t.net_switches.size()));
  if (t.fabric.kind != FabricKind::none)
    fmt::print("Fabric: {}{}\n", to_string(t.fabric.kind),
               t.fabric.kind == FabricKind::leaf_spine
                   ? fmt::format(", {} nodes per leaf, {:g}:1 oversubscription", t.fabric.leaf_size,
                                 t.fabric.oversubscription)
                   : "");
  for (const std::string& w : t.warnings) vp::warn("vp-analyze", w);
}

void print_gpus(const Topology& t) {
  fmt::print("\nGPUs\n  {:>4}  {:<14} {:<13} {:<24} {:<8} {:<6} {}\n", "idx", "name", "bus id", "model", "device",
             "socket", "PCIe path");
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const Component& g = t.components[t.gpus[i]];
    fmt::print("  {:>4}  {:<14} {:<13} {:<24} {:<8} {:<6} {}\n", i, t.display_name(g.id), or_dash(g.pci_bus_id),
               or_dash(g.model), or_dash(g.device_name), socket_of(t, g.id), tree_path(t, g.id));
  }
}

void print_nics(const Topology& t) {
  if (t.nics.empty()) return;
  fmt::print("\nNICs\n  {:<14} {:<13} {:<20} {:<10} {:>9} {:>5} {:<4} {:<6} {}\n", "name", "bus id", "model",
             "device", "Gb/s", "ports", "GDR", "socket", "PCIe path");
  for (ComponentId id : t.nics) {
    const Component& n = t.components[id];
    fmt::print("  {:<14} {:<13} {:<20} {:<10} {:>9g} {:>5} {:<4} {:<6} {}\n", t.display_name(id),
               or_dash(n.pci_bus_id), or_dash(n.model), or_dash(n.device_name), n.line_rate_gbitps, n.ports,
               n.gpudirect ? "yes" : "no", socket_of(t, id), tree_path(t, id));
  }
}

void print_switches(const Topology& t) {
  if (t.switches.empty()) return;
  fmt::print("\nPCIe switches\n  {:<20} {:<13} {:<24} {}\n", "name", "bus id", "model", "parent");
  for (ComponentId id : t.switches) {
    const Component& s = t.components[id];
    fmt::print("  {:<20} {:<13} {:<24} {}\n", t.display_name(id), or_dash(s.pci_bus_id), or_dash(s.model),
               t.components[s.parent].name);
  }
}

void print_links(const Topology& t) {
  fmt::print("\nLinks (GB/s per direction; source of the figure)\n");
  for (const Link& l : t.links) {
    const Link& r = t.links[l.reverse];
    bool symmetric = r.capacity == l.capacity;
    if (symmetric && l.reverse < l.id) continue;
    fmt::print("  {:<22} {} {:<22} {:>8.2f}  {:<8} {}\n", t.display_name(l.src), symmetric ? "<->" : "-> ",
               t.display_name(l.dst), l.capacity.gbps, to_string(l.capacity.source), l.capacity.basis);
  }
  bool any = false;
  for (const Component& c : t.components) {
    if (!c.forward) continue;
    if (!any) fmt::print("\nForwarding capacities (peer-to-peer traffic transiting the component)\n");
    any = true;
    fmt::print("  {:<22} {:>8.2f}  {:<8} {}\n", t.display_name(c.id), c.forward->gbps, to_string(c.forward->source),
               c.forward->basis);
  }
}

void print_defaults(const Topology& t) {
  fmt::print("\nDefault table (override with --set KEY=VALUE or --defaults FILE)\n");
  for (const auto& [key, value] : t.defaults.entries())
    fmt::print("  {:<34} {:>8g}{}\n", key, value, t.defaults.overridden.count(key) ? "  (overridden)" : "");
}

// The matrix of the first node (between nodes every path is NET; the JSON
// output has the whole matrix up to kMaxPathTypeGpus GPUs).
void print_matrix(const Topology& t) {
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < t.gpus.size(); ++i)
    if (t.components[t.gpus[i]].node == t.components[t.gpus[0]].node) shown.push_back(i);
  // Only the shown node's pairs: the whole matrix of a large cluster is
  // GPUs^2 cells (20,000 GPUs: 400 million).
  auto m = [&](std::size_t i, std::size_t j) { return path_type(t, t.gpus[i], t.gpus[j]); };
  fmt::print("\nPath types{}\n{:>8}", t.nodes.size() > 1 ? fmt::format(" ({}; between nodes NET)", t.nodes[0].name) : "", "");
  for (std::size_t j : shown) fmt::print(" {:>5}", fmt::format("GPU{}", j));
  fmt::print("\n");
  for (std::size_t i : shown) {
    fmt::print("{:>8}", fmt::format("GPU{}", i));
    for (std::size_t j : shown) fmt::print(" {:>5}", i == j ? std::string("X") : std::string(to_string(m(i, j))));
    fmt::print("\n");
  }
  fmt::print("Legend: PIX one PCIe switch, PXB several switches, PHB host bridge, NODE between host bridges of a "
             "socket, SYS across sockets, NET network\n");
}

// GPU rows against NIC columns of the first node, as `nvidia-smi topo -m`
// lays them out, then the NIC legend: a cell is path_type(gpu, nic), the
// type of the GPU -> NIC route, as in nic_path_type_matrix() (whose cells
// for the other nodes' NICs are all NET). NICs are numbered within the node.
void print_nic_matrix(const Topology& t) {
  const std::int32_t node = t.components[t.gpus[0]].node;
  const std::string& node_name = t.nodes[static_cast<std::size_t>(node)].name;
  std::vector<std::size_t> gpus, nics;
  for (std::size_t i = 0; i < t.gpus.size(); ++i)
    if (t.components[t.gpus[i]].node == node) gpus.push_back(i);
  for (std::size_t k = 0; k < t.nics.size(); ++k)
    if (t.components[t.nics[k]].node == node) nics.push_back(k);
  if (nics.empty()) {
    fmt::print("\nGPU x NIC path types: none, {} has no NIC\n", node_name);
    return;
  }
  auto label = [&](std::size_t k) { return fmt::format("NIC{}", t.components[t.nics[k]].local_index); };
  fmt::print("\nGPU x NIC path types{}\n{:>8}",
             t.nodes.size() > 1 ? fmt::format(" ({}; to the NICs of other nodes NET)", node_name) : "", "");
  for (std::size_t k : nics) fmt::print(" {:>5}", label(k));
  fmt::print("\n");
  // Only the shown node's cells (a cluster's whole matrix is GPUs x NICs).
  for (std::size_t i : gpus) {
    fmt::print("{:>8}", fmt::format("GPU{}", i));
    for (std::size_t k : nics) fmt::print(" {:>5}", to_string(path_type(t, t.gpus[i], t.nics[k])));
    fmt::print("\n");
  }
  // "NIC0: mlx5_0 0000:05:00.0 nic0", in columns.
  std::size_t label_width = 0, device_width = 10;
  for (std::size_t k : nics) {
    label_width = std::max(label_width, label(k).size() + 1);
    device_width = std::max(device_width, or_dash(t.components[t.nics[k]].device_name).size());
  }
  fmt::print("NIC Legend:\n");
  for (std::size_t k : nics) {
    const Component& n = t.components[t.nics[k]];
    fmt::print("  {:<{}} {:<{}} {:<13} {}\n", label(k) + ":", label_width, or_dash(n.device_name), device_width,
               or_dash(n.pci_bus_id), t.display_name(n.id));
  }
}

// The picture of the cluster's first node (its node type, whose orbits the
// analysis computes), with the cluster's size and fabric in the notes.
void write_pictures(const LoadedInput& in, const TopologyOptions& o) {
  const Topology& t = in.topology;
  const NodeTypeSpec* type = nullptr;
  for (const NodeTypeSpec& s : in.cluster.node_types)
    if (!type || (!t.nodes.empty() && s.name == t.nodes[0].type)) type = &s;
  const Topology& node = type ? type->topology : t;
  render::TopologyPicture p;
  p.node = &node;
  p.title = fmt::format("{}: {}", in.origin, type ? type->name : t.nodes[0].name);
  p.notes.push_back(fmt::format("{} GPUs, {} NICs, {} PCIe switches, {} host bridges, {} sockets per node",
                                node.gpus.size(), node.nics.size(), node.switches.size(), node.host_bridges.size(),
                                node.sockets.size()));
  if (t.nodes.size() > 1)
    p.notes.push_back(fmt::format(
        "cluster of {} nodes ({} GPUs), fabric {}{}; one node ({}) drawn", t.nodes.size(), t.gpus.size(),
        to_string(t.fabric.kind),
        t.fabric.kind == FabricKind::leaf_spine
            ? fmt::format(", {} nodes per leaf, {:g}:1 oversubscription", t.fabric.leaf_size, t.fabric.oversubscription)
            : "",
        t.nodes[0].name));
  try {
    const NodeSymmetry sym = compute_node_symmetry(node);
    p.component_orbit = sym.component_orbit;
    p.notes.push_back(fmt::format("|Aut| = {}, {} orbits of components", sym.order.to_string(),
                                  [&] {
                                    std::vector<std::uint32_t> reps = sym.component_orbit;
                                    std::sort(reps.begin(), reps.end());
                                    return static_cast<std::size_t>(std::unique(reps.begin(), reps.end()) - reps.begin());
                                  }()));
  } catch (const std::logic_error& e) {
    // A topology whose routing breaks its symmetry: drawn without orbits.
    p.notes.push_back(fmt::format("orbits not shown: {}", e.what()));
  }
  std::string svg, dot;
  std::vector<catalog::OutputFile> files;
  if (!o.svg.empty()) {
    svg = render::topology_svg(p);
    files.push_back({o.svg, reinterpret_cast<const std::uint8_t*>(svg.data()), svg.size()});
  }
  if (!o.dot.empty()) {
    dot = render::topology_dot(p);
    files.push_back({o.dot, reinterpret_cast<const std::uint8_t*>(dot.data()), dot.size()});
  }
  write_outputs(files);
}

}  // namespace

Runner setup_topology_command(CLI::App& app) {
  auto opts = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topology", "Print the topology as understood (text with GPU x GPU and GPU x NIC path types, or --json)");
  add_input_options(*cmd, opts->input);
  cmd->add_flag("--json", opts->json,
                "Print the normalized topology as JSON (schemas/topology.schema.json), with the output-only "
                "path_types (GPU x GPU) and nic_path_types (GPU x NIC) of the whole topology");
  cmd->add_option("--svg", opts->svg,
                  "Draw the PCIe tree of one node (sockets, host bridges, switches, GPUs, NICs) with link "
                  "capacities and components coloured by automorphism orbit, as SVG, to FILE (\"-\": standard "
                  "output); the text report is then not printed (--json still is)")
      ->type_name("FILE");
  cmd->add_option("--dot", opts->dot, "The same node as a Graphviz DOT graph, to FILE (\"-\": standard output)")
      ->type_name("FILE");
  return [opts]() {
    if (!opts->svg.empty() && opts->svg == opts->dot)
      throw UsageError(fmt::format("--svg and --dot both name {} (two outputs cannot share it)", opts->svg));
    if (opts->json && writes_stdout({opts->svg, opts->dot}))
      throw UsageError("--json and a picture on standard output (\"-\") cannot share it");
    LoadedInput in = load_input(opts->input);
    const Topology& t = in.topology;
    if (!opts->svg.empty() || !opts->dot.empty()) {
      write_pictures(in, *opts);
      if (!opts->json) return 0;
    }
    if (opts->json) {
      fmt::print("{}\n", topology_to_json(t).dump(2));
      return 0;
    }
    print_summary(t, in.origin);
    print_gpus(t);
    print_nics(t);
    print_switches(t);
    print_links(t);
    print_defaults(t);
    print_matrix(t);
    print_nic_matrix(t);
    return 0;
  };
}

}  // namespace vp::cli
