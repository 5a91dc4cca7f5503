// Slurm's view of a catalog: the fabric between nodes as topology.yaml
// (topology/tree; https://slurm.schedmd.com/topology.yaml.html and
// topology.conf.html) and the GPUs inside a node as gres.conf lines
// (https://slurm.schedmd.com/gres.conf.html: File, Links).
#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "export_formats.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/catalog/errors.hpp"

namespace vp::catalog_cli {

namespace {

// Slurm's configuration parsers split on white space, '#', ',', '=' and
// hostlist brackets; a host name holds none of them.
void check_slurm_names(const ExportModel& m, const std::string& format) {
  for (const ExportNode& n : m.nodes)
    for (char c : n.name)
      if (std::isspace(static_cast<unsigned char>(c)) || std::string_view("#,=[]\"'").find(c) != std::string_view::npos ||
          static_cast<unsigned char>(c) < 0x20)
        bad_host_name(m, n.name, format, fmt::format("Slurm's hostlists cannot hold the character '{}'",
                                                      printable(std::string(1, c))));
}

bool is_nvidia(const std::string& model) {
  std::string lower;
  for (char c : model) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("nvidia") != std::string::npos;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// Links= strength of a path type: Slurm reads -1 as the device itself, 0 as
// no direct connection and a larger number as a closer one (gres.conf,
// Links). PCIe-only: the nearer the path type, the stronger.
int link_strength(PathType p) {
  switch (p) {
    case PathType::LOC: return -1;
    case PathType::PIX: return 4;
    case PathType::PXB: return 3;
    case PathType::PHB: return 2;
    case PathType::NODE: return 1;
    case PathType::SYS:
    case PathType::NET: return 0;
  }
  return 0;
}

std::string_view fabric_words(catalog::FabricKind k) {
  switch (k) {
    case catalog::FabricKind::none: return "a single node, no fabric";
    case catalog::FabricKind::single_switch: return "one switch";
    case catalog::FabricKind::rail: return "rails (NIC k of every node on rail k)";
    case catalog::FabricKind::leaf_spine: return "leaves under a spine";
  }
  return "";
}

}  // namespace

std::string slurm_topology(const ExportModel& m) {
  check_slurm_names(m, "slurm-topology");
  std::string out = fmt::format(
      "# Slurm topology.yaml (Slurm 24.11 or later; https://slurm.schedmd.com/topology.yaml.html),\n"
      "# written by vp-catalog export from {}.\n"
      "# The fabric: {}.\n",
      printable_line(input_name(m.origin)), fabric_words(m.fabric));
  if (m.fabric == catalog::FabricKind::rail)
    out += "# Every node reaches every rail and any two nodes are one switch apart on each, so the\n"
           "# rails are one logical switch here.\n";
  out += "- topology: variopath\n  cluster_default: true\n";
  if (m.fabric == catalog::FabricKind::none) return out + "  flat: true\n";
  out += "  tree:\n    switches:\n";
  if (m.spine)
    out += fmt::format("      - switch: spine\n        children: {}\n", quoted(compress_hostlist(m.leaves)));
  for (const std::string& leaf : m.leaves) {
    std::vector<std::string> hosts;
    for (const ExportNode& n : m.nodes)
      if (n.leaf == leaf) hosts.push_back(n.name);
    out += fmt::format("      - switch: {}\n        nodes: {}\n", leaf, quoted(compress_hostlist(hosts)));
  }
  return out;
}

std::string slurm_gres(const ExportModel& m) {
  check_slurm_names(m, "slurm-gres");
  std::string out = fmt::format(
      "# Slurm gres.conf (https://slurm.schedmd.com/gres.conf.html), written by vp-catalog export\n"
      "# from {}.\n"
      "# One line per GPU: File= its device, Links= its connection to each GPU of the node in\n"
      "# index order: -1 itself, then by the PCIe path type between them,\n"
      "# 4 PIX (one PCIe switch), 3 PXB (several switches), 2 PHB (a host bridge),\n"
      "# 1 NODE (two host bridges of one socket), 0 SYS (across the inter-socket link).\n"
      "# Cores= is not written: the catalog knows each GPU's socket but not the socket's\n"
      "# cores; add Cores= with the cores of the socket named on each line (lscpu).\n",
      printable_line(input_name(m.origin)));
  for (const ExportNodeType& t : m.types) {
    if (t.hosts.empty()) continue;
    const std::string hosts = compress_hostlist(t.hosts);
    out += fmt::format("\n# node type {}: {} GPUs on {} node{}\n", t.name, t.gpus.size(), t.hosts.size(),
                       t.hosts.size() == 1 ? "" : "s");
    if (t.gpus.empty()) out += "# (no GPU)\n";
    for (const ExportGpu& g : t.gpus)
      if (!g.model.empty() && !is_nvidia(g.model)) {
        out += fmt::format(
            "# Its GPUs are {}, not NVIDIA: File= below names /dev/nvidiaN; give their device files\n"
            "# instead (AMD: the /dev/dri/renderD* node of each GPU).\n",
            printable_line(g.model));
        break;
      }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      const ExportGpu& g = t.gpus[i];
      std::string links;
      for (PathType p : t.paths[i]) links += fmt::format("{}{}", links.empty() ? "" : ",", link_strength(p));
      out += fmt::format("NodeName={} Name=gpu File=/dev/nvidia{} Links={}  # socket {}, {}{}{}\n", hosts, g.index,
                         links, g.socket, g.switch_group, g.pci_bus_id.empty() ? "" : ", ", g.pci_bus_id);
    }
  }
  return out;
}


}  // namespace vp::catalog_cli
