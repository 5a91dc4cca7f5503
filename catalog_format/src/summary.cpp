#include "vp/catalog/summary.hpp"

#include <algorithm>
#include <set>

namespace vp::catalog {

std::string add_decimal(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    int d = carry;
    if (i < a.size()) d += a[a.size() - 1 - i] - '0';
    if (i < b.size()) d += b[b.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  std::reverse(out.begin(), out.end());
  return out.empty() ? "0" : out;
}

Summary summarize(const Catalog& c, std::uint64_t catalog_bytes) {
  Summary s;
  s.catalog_bytes = catalog_bytes;
  s.cluster_automorphism_group_order = c.cluster_group_order;
  s.channels_represented = "0";
  std::vector<std::uint64_t> gpus_per_type;
  for (const NodeType& t : c.node_types) {
    NodeTypeSummary n;
    n.name = t.name;
    std::set<std::uint32_t> orbits;
    for (std::size_t i = 0; i < t.components.size(); ++i) {
      if (t.components[i].kind != Kind::gpu) continue;
      ++n.gpus;
      if (i < t.component_orbit.size()) orbits.insert(t.component_orbit[i]);
    }
    n.automorphism_group_order = t.group_order;
    n.gpu_orbits = orbits.size();
    n.local_pattern_orbits = t.patterns.size();
    n.local_patterns = t.patterns_represented;
    s.channel_orbits += n.local_pattern_orbits;
    s.channels_represented = add_decimal(s.channels_represented, n.local_patterns);
    gpus_per_type.push_back(n.gpus);
    s.node_types.push_back(std::move(n));
  }
  for (const NodeGroup& g : c.node_groups) {
    s.nodes += g.count;
    if (g.node_type < gpus_per_type.size()) s.gpus += g.count * gpus_per_type[g.node_type];
  }
  return s;
}

Json to_json(const Summary& s) {
  Json types = Json::array();
  for (const NodeTypeSummary& n : s.node_types)
    types.push_back(Json{{"name", n.name},
                         {"gpus", n.gpus},
                         {"automorphism_group_order", n.automorphism_group_order},
                         {"gpu_orbits", n.gpu_orbits},
                         {"local_pattern_orbits", n.local_pattern_orbits},
                         {"local_patterns", n.local_patterns}});
  return Json{{"gpus", s.gpus},
              {"nodes", s.nodes},
              {"node_types", types},
              {"cluster_automorphism_group_order", s.cluster_automorphism_group_order},
              {"channel_orbits", s.channel_orbits},
              {"channels_represented", s.channels_represented},
              {"catalog_bytes", s.catalog_bytes}};
}

std::string readable_decimal(const std::string& decimal) {
  constexpr std::size_t kMaxDigits = 24;
  if (decimal.size() <= kMaxDigits) return decimal;
  // Three significant digits, truncated (a group order is exact; no rounding
  // to carry over).
  return decimal.substr(0, 1) + "." + decimal.substr(1, 2) + "e" + std::to_string(decimal.size() - 1) + " (" +
         std::to_string(decimal.size()) + " digits)";
}

}  // namespace vp::catalog
