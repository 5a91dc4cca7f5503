// Kubernetes' view of a catalog: ordered node labels for topology-aware
// schedulers, with the Kueue Topology that names their order
// (https://kueue.sigs.k8s.io/docs/concepts/topology/: levels from the
// coarsest to kubernetes.io/hostname), and Volcano's HyperNode objects
// (https://volcano.sh/en/docs/network_topology_aware_scheduling/: tier 1
// the switches nodes hang from, higher tiers the switches above them).
#include <fmt/format.h>

#include <cctype>

#include "export_formats.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"

namespace vp::catalog_cli {

namespace {

constexpr const char* kLabelSpine = "topology.variopath.io/spine";
constexpr const char* kLabelLeaf = "topology.variopath.io/leaf";
constexpr const char* kLabelGpu = "gpu.topology.variopath.io";

// A Node's name is a DNS subdomain (RFC 1123: lower case letters, digits,
// '-' and '.', alphanumeric at both ends, at most 253 characters); it is
// also the value of kubernetes.io/hostname, a label value (at most 63).
void check_k8s_names(const ExportModel& m, const std::string& format) {
  for (const ExportNode& n : m.nodes) {
    const std::string& s = n.name;
    if (s.size() > 63) bad_host_name(m, s, format, "a Kubernetes node name used as a label value has at most 63 characters");
    for (char c : s)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
            c == '.'))
        bad_host_name(m, s, format,
                      fmt::format("a Kubernetes node name (RFC 1123) holds lower case letters, digits, '-' and '.', "
                                  "not '{}'",
                                  printable(std::string(1, c))));
    if (!std::isalnum(static_cast<unsigned char>(s.front())) || !std::isalnum(static_cast<unsigned char>(s.back())))
      bad_host_name(m, s, format, "a Kubernetes node name (RFC 1123) starts and ends with a letter or digit");
  }
}

std::string header(const ExportModel& m, std::string_view what) {
  return fmt::format("# {}, written by vp-catalog export from {}.\n", what, printable_line(input_name(m.origin)));
}

}  // namespace

std::string k8s_labels(const ExportModel& m) {
  check_k8s_names(m, "k8s-labels");
  std::string out = header(m, "Kubernetes topology labels");
  out += fmt::format(
      "# Apply with `kubectl apply --server-side -f`: a Kueue Topology (levels from the coarsest\n"
      "# to the host; https://kueue.sigs.k8s.io/docs/concepts/topology/), then per node its labels:\n"
      "# {} (the fabric's spine), {} (the switch, or the group\n"
      "# of rails, its NICs reach; kubernetes.io/hostname is the kubelet's) and per GPU N\n"
      "# {}/N.socket and N.pcie-switch (its socket and the topmost PCIe\n"
      "# switch above it, for a device plugin).\n",
      kLabelSpine, kLabelLeaf, kLabelGpu);
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: variopath\nspec:\n  levels:\n";
  if (m.spine) out += fmt::format("    - nodeLabel: {}\n", kLabelSpine);
  if (!m.leaves.empty()) out += fmt::format("    - nodeLabel: {}\n", kLabelLeaf);
  out += "    - nodeLabel: kubernetes.io/hostname\n";
  for (const ExportNode& n : m.nodes) {
    out += fmt::format("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels:\n", n.name);
    if (m.spine) out += fmt::format("    {}: spine\n", kLabelSpine);
    if (!n.leaf.empty()) out += fmt::format("    {}: {}\n", kLabelLeaf, n.leaf);
    for (const ExportGpu& g : m.types[n.type].gpus) {
      out += fmt::format("    {}/{}.socket: \"{}\"\n", kLabelGpu, g.index, g.socket);
      out += fmt::format("    {}/{}.pcie-switch: {}\n", kLabelGpu, g.index, g.switch_group);
    }
  }
  return out;
}

std::string volcano_hypernodes(const ExportModel& m) {
  check_k8s_names(m, "volcano");
  std::string out = header(m, "Volcano HyperNodes");
  out += "# Apply with `kubectl apply -f`; tier 1 holds nodes, tier 2 the spine above the tier-1\n"
         "# HyperNodes (https://volcano.sh/en/docs/network_topology_aware_scheduling/).\n";
  auto hypernode = [&out](const std::string& name, int tier) {
    out += fmt::format(
        "---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: {}\nspec:\n  tier: {}\n"
        "  members:\n",
        name, tier);
  };
  auto member = [&out](std::string_view type, const std::string& name) {
    out += fmt::format("    - type: {}\n      selector:\n        exactMatch:\n          name: {}\n", type, name);
  };
  if (m.leaves.empty()) {  // one node, no fabric: one HyperNode of it
    hypernode("host", 1);
    for (const ExportNode& n : m.nodes) member("Node", n.name);
    return out;
  }
  for (const std::string& leaf : m.leaves) {
    hypernode(leaf, 1);
    for (const ExportNode& n : m.nodes)
      if (n.leaf == leaf) member("Node", n.name);
  }
  if (m.spine) {
    hypernode("spine", 2);
    for (const std::string& leaf : m.leaves) member("HyperNode", leaf);
  }
  return out;
}

}  // namespace vp::catalog_cli
