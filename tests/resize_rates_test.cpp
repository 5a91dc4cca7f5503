// resize_catalog's spine uplinks against expand_cluster's, on many fabrics:
// the port rate of a NIC without GPUDirect RDMA (which the catalog does not
// record) is recovered from the source's uplinks exactly, or resize refuses;
// it never writes an uplink vp-analyze would not.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "support.hpp"
#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/cluster_groups.hpp"
#include "vp/analysis/request.hpp"
#include "vp/analysis/resize.hpp"
#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"

namespace vp {
namespace {

// The uplink of every non-spine switch of an expanded cluster, in order (0
// without a spine): what vp-analyze writes in the catalog's fabric.
std::vector<double> uplinks(const Topology& t) {
  ComponentId spine = kNone;
  for (ComponentId s : t.net_switches)
    if (t.components[s].role == "spine") spine = s;
  std::vector<double> out;
  for (ComponentId s : t.net_switches)
    if (s != spine) out.push_back(spine == kNone ? 0.0 : t.links[t.find_link(s, spine)].capacity.gbps);
  return out;
}

std::vector<NodeInfo> named_nodes(std::uint32_t count, const std::string& type) {
  std::vector<NodeInfo> out;
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(NodeInfo{fmt::format("node{}", i), type});
  return out;
}

}  // namespace

TEST_CASE("resize: recovered port rates give vp-analyze's uplinks, or resize refuses") {
  AnalysisRequest r;
  r.input = test::fixture("platforms/aws-g6-48xl.json");
  r.nodes = 2;
  LoadedInput in = load_input(r);
  const catalog::Catalog analysed = build_catalog(in, r.search, canonical_options(r));
  const std::string type = in.cluster.node_types[0].name;
  Topology node = in.cluster.node_types[0].topology;
  ComponentId ena = kNone;
  for (ComponentId n : node.nics)
    if (!node.components[n].gpudirect) ena = n;
  REQUIRE(ena != kNone);

  int cases = 0, refused = 0;
  for (double ena_gbitps : {10.0, 25.0, 40.0, 50.0, 100.0, 200.0}) {
    node.components[ena].line_rate_gbitps = ena_gbitps;  // not in the catalog: its nic_gbps is 0
    for (FabricKind kind : {FabricKind::rail, FabricKind::leaf_spine}) {
      for (std::uint32_t leaf : {1u, 2u, 3u, 5u}) {
        if (kind == FabricKind::rail && leaf > 1) continue;
        for (double over : {1.0, 1.3, 1.5, 2.0, 2.7, 3.0, 4.4, 5.5, 7.0, 9.9}) {
          for (auto [from, to] : {std::pair{4u, 9u}, std::pair{6u, 4u}, std::pair{7u, 3u}, std::pair{3u, 11u}}) {
            auto expanded = [&](std::uint32_t n) {
              return expand_cluster(cluster_from_shortcut(node, n, kind, leaf, over));
            };
            catalog::Catalog source = analysed;
            const FabricInfo fabric{kind, kind == FabricKind::leaf_spine ? leaf : 0, over};
            source.node_groups = node_groups(named_nodes(from, type), {type});
            source.fabric.kind = static_cast<catalog::FabricKind>(kind);
            source.fabric.leaf_size = fabric.leaf_size;
            source.fabric.oversubscription = over;
            source.fabric.spine_uplink_gbps = uplinks(expanded(from));
            source.fabric.switches = static_cast<std::uint32_t>(source.fabric.spine_uplink_gbps.size());
            source.fabric.spine = source.fabric.switches >= 2;
            INFO(fmt::format("ENA {} Gb/s, {} leaf {} over {}: {} -> {} nodes", ena_gbitps, to_string(kind), leaf,
                             over, from, to));
            const std::vector<double> want = uplinks(expanded(to));
            if (!source.fabric.spine && want.size() >= 2) {  // nothing to recover the rate from
              CHECK_THROWS_WITH_AS(resize_catalog(source, ResizeRequest{named_nodes(to, type), fabric}),
                                   doctest::Contains("the catalog has no spine whose uplinks would give it"),
                                   UsageError);
              continue;
            }
            ++cases;
            try {
              const catalog::Catalog out = resize_catalog(source, ResizeRequest{named_nodes(to, type), fabric});
              CHECK(out.fabric.spine_uplink_gbps == want);
            } catch (const UsageError& e) {
              ++refused;
              CHECK(std::string(e.what()).find("uncertain in its last bits") != std::string::npos);
            }
          }
        }
      }
    }
  }
  MESSAGE(fmt::format("{} of {} resizes refused as uncertain", refused, cases));
  CHECK(refused * 20 <= cases);  // the recovery determines the rate in all but a few
}

}  // namespace vp
