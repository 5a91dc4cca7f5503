#include "sim_platforms.hpp"

#include <doctest/doctest.h>

#include "contention_file.hpp"

#include "vp/import/import.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::sim::test {

const std::map<std::string, Topology>& fixture_platforms() {
  static const std::map<std::string, Topology> out = [] {
    const std::string root = VP_FIXTURES_DIR;
    ImportOptions io;
    io.cluster_root = root;  // the MI300X description names ../real/hwloc-xml/
    auto node = [&](const std::string& rel) { return import_topology(root + "/" + rel, InputFormat::auto_detect, io); };
    auto cluster = [&](const std::string& rel) {
      return expand_cluster(load_cluster_spec(root + "/platforms/" + rel, nullptr, io));
    };
    std::map<std::string, Topology> m;
    m["pcie-gen4-2s4sw8g"] = node("platforms/pcie-gen4-2s4sw8g.json");
    m["aws-g5-48xl"] = node("platforms/aws-g5-48xl.json");
    m["aws-g6-48xl"] = node("platforms/aws-g6-48xl.json");
    m["mi300x"] = node("real/hwloc-xml/rixl-mi300x-topo.xml");
    m["pcie-gen4-2s4sw8g-4n-switch"] = cluster("pcie-gen4-2s4sw8g-4n-switch.cluster.json");
    m["aws-g5-48xl-4n-switch"] = cluster("aws-g5-48xl-4n-switch.cluster.json");
    m["aws-g6-48xl-4n-switch"] = cluster("aws-g6-48xl-4n-switch.cluster.json");
    m["mi300x-4n-switch"] = cluster("mi300x-4n-switch.cluster.json");
    const Topology& server = m["pcie-gen4-2s4sw8g"];
    m["pcie-gen4-2s4sw8g-3n-rail"] = expand_cluster(cluster_from_shortcut(server, 3, FabricKind::rail, 0, 1.0));
    m["pcie-gen4-2s4sw8g-4n-leafspine2to1"] =
        expand_cluster(cluster_from_shortcut(server, 4, FabricKind::leaf_spine, 2, 2.0));
    return m;
  }();
  return out;
}

std::vector<std::pair<std::string, Demand>> suite_demands(std::size_t n) {
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.2;
  return {{"uniform", uniform_demand(n, 1e6)},
          {"hotspot", hot_spot_demand(n, 1e6, n / 3)},
          {"moe", moe_dispatch_demand(n, moe)}};
}

void for_each_suite_case(
    const std::function<void(const std::string&, const Topology&, const std::string&, const Demand&)>& f) {
  for (const auto& [name, t] : fixture_platforms()) {
    for (const auto& [workload, d] : suite_demands(t.gpus.size())) {
      CAPTURE(name);
      CAPTURE(workload);
      f(name, t, workload, d);
    }
  }
}

SimOptions committed_contention() {
  SimOptions o;
  o.contention = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  REQUIRE(o.contention.enabled);
  return o;
}

BoundOptions no_latency() {
  BoundOptions o;
  o.latency_us = 0;
  return o;
}

}  // namespace vp::sim::test
