#include "vp/analysis/cluster_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace vp {

std::vector<catalog::NodeGroup> node_groups(const std::vector<NodeInfo>& nodes,
                                            const std::vector<std::string>& type_names) {
  std::vector<catalog::NodeGroup> out;
  std::map<std::string, std::uint32_t> type_index;
  for (std::size_t i = 0; i < type_names.size(); ++i) type_index[type_names[i]] = static_cast<std::uint32_t>(i);
  for (const NodeInfo& n : nodes) {
    std::uint32_t t = type_index.at(n.type);
    if (out.empty() || out.back().node_type != t) out.push_back(catalog::NodeGroup{t, 0, {}});
    catalog::NodeGroup& g = out.back();
    g.names += (g.count ? "," : "") + n.name;
    ++g.count;
  }
  return out;
}

std::pair<std::string, BigUint> fabric_group(const std::vector<NodeInfo>& nodes, const FabricInfo& fabric) {
  std::map<std::string, std::uint64_t> per_type;
  for (const NodeInfo& n : nodes) ++per_type[n.type];
  if (nodes.size() <= 1) return {"trivial (one node)", BigUint(1)};
  BigUint order(1);
  std::string text;
  if (fabric.kind != FabricKind::leaf_spine) {
    for (const auto& [type, count] : per_type) {
      order *= factorial(count);
      text += fmt::format("{}S{} ({} nodes of type {})", text.empty() ? "" : " x ", count, count, type);
    }
    return {text + " acting on the nodes", order};
  }
  const std::size_t per_leaf = fabric.leaf_size;
  std::map<std::map<std::string, std::uint64_t>, std::uint64_t> leaf_kinds;
  for (std::size_t start = 0; start < nodes.size(); start += per_leaf) {
    std::map<std::string, std::uint64_t> makeup;
    for (std::size_t i = start; i < std::min(nodes.size(), start + per_leaf); ++i) ++makeup[nodes[i].type];
    for (const auto& [type, count] : makeup) order *= factorial(count);
    ++leaf_kinds[makeup];
  }
  for (const auto& [makeup, leaves] : leaf_kinds) order *= factorial(leaves);
  return {fmt::format("node permutations within each leaf x permutations of alike leaves ({} leaves of {} nodes)",
                      (nodes.size() + per_leaf - 1) / per_leaf, per_leaf),
          order};
}

// On rails a node's automorphism must move NIC k to the rail of its image,
// the same for every node: |K|^N x |Aut / K| with K the pointwise stabilizer
// of the NICs.
BigUint cluster_order(const std::vector<NodeInfo>& nodes, FabricKind fabric, const std::vector<NodeTypeGroup>& types,
                      const BigUint& fabric_order) {
  BigUint order = fabric_order;
  for (const NodeTypeGroup& t : types) {
    std::uint64_t count = 0;
    for (const NodeInfo& n : nodes) count += n.type == t.name;
    if (fabric == FabricKind::rail && count > 1) {
      PermGroup g(t.components, *t.generators, t.nics);
      BigUint fixing = g.stabilizer_order(t.nics.size());
      for (std::uint64_t i = 0; i < count; ++i) order *= fixing;
      // |Aut / K|: the NIC permutations Aut induces, exact: it passes 2^64 on
      // a p5.48xlarge (64 NICs, 4 EFA and 4 ENA beside each of its 8 GPUs:
      // (4! x 4!)^8 alone is about 1.2e22).
      order *= g.stabilizer_index(t.nics.size());
    } else {
      for (std::uint64_t i = 0; i < count; ++i) order *= t.order;
    }
  }
  return order;
}

}  // namespace vp
