// Relays through a peer GPU never pay on the evaluation node types, which is
// why the planner never relays (check_steps rejects a transfer whose origin
// or final differs from its ends). A relay sends from GPU g to another GPU g'
// of its node peer-to-peer, then from g' to a NIC (or, receiving, from the
// NIC to g' and then peer-to-peer to g). The checks, for every node type the
// test support can build, every GPU g, every other GPU g', every NIC that
// carries GPU traffic (a port above 0: GPUDirect RDMA), in both directions:
//   1. the relay's two hops together transit every link and every forwarder
//      (host bridge, socket) of g's direct route to that NIC, so the relay
//      adds load and relieves nothing;
//   2. the relay's solo rate, the slower of its hops', is at most the direct
//      route's.
// Routes are the analyzer's: vp::intra_node_route on the node type as the
// catalog describes it (with its NIC ports, vp::with_network_ports), the NIC
// port appended as a link the way the local pattern search routes network
// flows, forwarders and solo rates recomputed from the Topology. Every one of
// them is compared with the catalog's route of the same endpoints (links,
// forwarders, and the solo rate, which the catalog caps at the NIC port), so
// the rates checked are the ones the planner plans with.
// The number of (g, g', NIC) triples checked per direction is compared with
// GPUs x (GPUs - 1) x usable NICs, so no node type passes vacuously, and a
// hand-built case (a peer-to-peer bridge that bypasses the sockets, outside
// the PCIe tree) shows the same check reporting a relay that would pay.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "planner_support.hpp"
#include "support.hpp"
#include "vp/analysis/local_patterns.hpp"
#include "vp/catalog/reader.hpp"

using namespace vp::plantest;

namespace {

// "" when the relay hop1 then hop2 cannot beat `direct` (checks 1 and 2
// above); otherwise what gives it away, in words.
std::string relay_pays(const vp::Route& direct, const vp::Route& hop1, const vp::Route& hop2) {
  std::ostringstream why;
  auto has = [](const auto& v, auto x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (vp::LinkId l : direct.links)
    if (!has(hop1.links, l) && !has(hop2.links, l)) why << "the relay avoids link " << l << " of the direct route; ";
  for (vp::ComponentId f : direct.forwarders)
    if (!has(hop1.forwarders, f) && !has(hop2.forwarders, f))
      why << "the relay avoids forwarder " << f << " of the direct route; ";
  const double relay = std::min(hop1.solo_gbps, hop2.solo_gbps);
  if (!(relay <= direct.solo_gbps * (1 + 1e-9)))
    why << "the relay's solo rate " << relay << " GB/s beats the direct route's " << direct.solo_gbps << " GB/s; ";
  return why.str();
}

// One node type alone with its NIC ports, and its routes as the catalog and
// the analyzer give them.
struct Node {
  const vp::catalog::NodeType& type;
  vp::Topology ported;  // local ids equal the catalog's
  std::vector<double> ports;
  vp::ComponentId port = vp::kNone;  // the network side of every NIC port

  Node(const vp::catalog::NodeType& t, PortedNodeType pn) : type(t), ported(std::move(pn.ported)), ports(pn.ports) {
    for (const vp::Component& c : ported.components)
      if (c.role == "port") port = c.id;
  }

  // GPU -> GPU, GPU -> NIC port, NIC port -> GPU: links from the analyzer,
  // forwarders and solo rate from the Topology.
  vp::Route gpu_to_gpu(vp::ComponentId a, vp::ComponentId b) const {
    return checked(solo_route(ported, vp::intra_node_route(ported, a, b).links), a, b);
  }
  vp::Route to_network(vp::ComponentId gpu, vp::ComponentId nic) const {
    std::vector<vp::LinkId> links = vp::intra_node_route(ported, gpu, nic).links;
    links.push_back(ported.find_link(nic, port));
    return checked(solo_route(ported, links), gpu, nic);
  }
  vp::Route from_network(vp::ComponentId nic, vp::ComponentId gpu) const {
    std::vector<vp::LinkId> links{ported.find_link(port, nic)};
    const std::vector<vp::LinkId> down = vp::intra_node_route(ported, nic, gpu).links;
    links.insert(links.end(), down.begin(), down.end());
    return checked(solo_route(ported, links), nic, gpu);
  }

  // `r` against the catalog's route from -> to (which leaves the port link out).
  vp::Route checked(vp::Route r, vp::ComponentId from, vp::ComponentId to) const {
    auto it = std::lower_bound(type.routes.begin(), type.routes.end(), std::make_pair(from, to),
                               [](const vp::catalog::Route& x, const std::pair<vp::ComponentId, vp::ComponentId>& k) {
                                 return std::make_pair(x.from, x.to) < k;
                               });
    INFO(type.name << " route " << ported.display_name(from) << " -> " << ported.display_name(to));
    REQUIRE(it != type.routes.end());
    REQUIRE(it->from == from);
    REQUIRE(it->to == to);
    std::vector<vp::LinkId> pcie;
    for (vp::LinkId l : r.links)
      if (ported.links[l].kind != vp::LinkKind::network) pcie.push_back(l);
    CHECK(std::vector<std::uint32_t>(pcie.begin(), pcie.end()) == it->links);
    CHECK(std::vector<std::uint32_t>(r.forwarders.begin(), r.forwarders.end()) == it->forwarders);
    CHECK(r.solo_gbps == doctest::Approx(it->solo_gbps).epsilon(1e-9));
    return r;
  }
};

struct Counts {
  std::uint64_t send = 0, receive = 0;
  double best_ratio = 0;  // the highest relay / direct solo rate seen
};

// Every relay of node type `t` of `p`, both directions.
Counts check_node_type(const Platform& p, std::uint32_t t, const vp::catalog::Catalog& cat) {
  const Node node(cat.node_types.at(t), ported_node_type(p, t));
  const vp::Topology& topo = node.ported;
  REQUIRE(node.port != vp::kNone);
  Counts n;
  for (std::size_t k = 0; k < topo.nics.size(); ++k) {
    if (!(node.ports.at(k) > 0)) continue;  // no GPUDirect RDMA: no GPU traffic
    const vp::ComponentId nic = topo.nics[k];
    for (vp::ComponentId g : topo.gpus) {
      const vp::Route send = node.to_network(g, nic), receive = node.from_network(nic, g);
      for (vp::ComponentId via : topo.gpus) {
        if (via == g) continue;
        INFO(p.name << " / " << node.type.name << ": " << topo.display_name(g) << " via "
                    << topo.display_name(via) << " and " << topo.display_name(nic));
        const vp::Route out1 = node.gpu_to_gpu(g, via), out2 = node.to_network(via, nic);
        CHECK(relay_pays(send, out1, out2) == "");
        const vp::Route in1 = node.from_network(nic, via), in2 = node.gpu_to_gpu(via, g);
        CHECK(relay_pays(receive, in1, in2) == "");
        ++n.send, ++n.receive;
        n.best_ratio = std::max({n.best_ratio, std::min(out1.solo_gbps, out2.solo_gbps) / send.solo_gbps,
                                 std::min(in1.solo_gbps, in2.solo_gbps) / receive.solo_gbps});
      }
    }
  }
  return n;
}

// `p`'s node types by name -> the relays checked in each direction, which
// must equal `expected` (GPUs x other GPUs x NICs that carry GPU traffic).
void check_platform(const Platform& p, const std::map<std::string, std::uint64_t>& expected) {
  const vp::catalog::Catalog cat = vp::catalog::read_catalog(p.bytes);
  REQUIRE(cat.node_types.size() == expected.size());
  for (std::uint32_t t = 0; t < cat.node_types.size(); ++t) {
    const std::string& name = cat.node_types[t].name;
    INFO(p.name << " / " << name);
    REQUIRE(expected.count(name) == 1);
    const Counts n = check_node_type(p, t, cat);
    CHECK(n.send == expected.at(name));
    CHECK(n.receive == expected.at(name));
    // The bound is reached: some relay ties its direct route (the rates are not all off).
    CHECK(n.best_ratio == doctest::Approx(1.0).epsilon(1e-9));
  }
}

// A fixtures/platforms node type on its 4- or 2-node cluster, analysed once.
const Platform& fixture_platform(const std::string& node_type, const std::string& cluster) {
  static std::map<std::string, std::unique_ptr<Platform>> cache;
  std::unique_ptr<Platform>& p = cache[cluster];
  if (!p) {
    vp::AnalysisRequest r;
    r.input = vp::test::fixture("platforms/" + node_type + ".json");
    r.cluster = vp::test::fixture("platforms/" + cluster + ".cluster.json");
    p = build_platform(cluster, r);
  }
  return *p;
}

}  // namespace

TEST_CASE("relays never pay: PCIe Gen4 2-socket 4-switch node, 4 NICs (also as 2 with GPUDirect, and MI300X)") {
  check_platform(platform("4n-switch"), {{"pcie-gen4-2s4sw8g", 8 * 7 * 4}});
  // Its node type is named after the temporary file it is written to.
  const Platform& half = platform("2n-half-gpudirect");
  check_platform(half, {{vp::catalog::read_catalog(half.bytes).node_types.at(0).name, 8 * 7 * 2}});
  check_platform(platform("mixed-4n"), {{"pcie", 8 * 7 * 4}, {"mi300x", 8 * 7 * 9}});
}

TEST_CASE("relays never pay: AWS g6 and g5 (one EFA; the ENA carries no GPU traffic)") {
  check_platform(fixture_platform("aws-g6-48xl", "aws-g6-48xl-4n-switch"), {{"aws-g6-48xl", 8 * 7 * 1}});
  check_platform(fixture_platform("aws-g5-48xl", "aws-g5-48xl-4n-switch"), {{"aws-g5-48xl", 8 * 7 * 1}});
  check_platform(platform("g6-3n"), {{"nixl-g6.48xl-topo", 8 * 7 * 1}});
}

TEST_CASE("relays never pay: HGX H20, 8 ConnectX-7") {
  check_platform(fixture_platform("hgx-h20-8cx7", "hgx-h20-8cx7-2n-switch"), {{"hgx-h20-8cx7", 8 * 7 * 8}});
}

TEST_CASE("the relay check reports a relay that pays: a peer bridge past the sockets") {
  // The PCIe node with a 48 GB/s bridge between gpu4 (socket 1) and gpu0
  // (socket 0, under nic0's switch), a link no route of the model takes:
  // gpu4 -> nic0 crosses the sockets at 16 GB/s; over the bridge and on
  // from gpu0 it would run at 24 GB/s and skip the inter-socket link.
  const Platform& p = platform("4n-switch");
  const vp::catalog::Catalog cat = vp::catalog::read_catalog(p.bytes);
  const Node node(cat.node_types.at(0), ported_node_type(p, 0));
  vp::Topology bridged = node.ported;
  auto named = [&](const std::string& name) {
    for (const vp::Component& c : bridged.components)
      if (c.name == name) return c.id;
    FAIL("no component " << name);
    return vp::kNone;
  };
  const vp::ComponentId gpu4 = named("gpu4"), gpu0 = named("gpu0"), nic0 = named("nic0");
  bridged.add_duplex_link(gpu4, gpu0, vp::LinkKind::pcie, vp::Capacity{48.0, vp::CapacitySource::input, "bridge"});
  vp::finalize(bridged, "bridged");
  const vp::Route bridge_out = solo_route(bridged, {bridged.find_link(gpu4, gpu0)});
  const vp::Route bridge_in = solo_route(bridged, {bridged.find_link(gpu0, gpu4)});
  REQUIRE(bridge_out.solo_gbps == 48.0);

  const vp::Route send = node.to_network(gpu4, nic0), receive = node.from_network(nic0, gpu4);
  REQUIRE(send.solo_gbps == doctest::Approx(16.0));
  REQUIRE(receive.solo_gbps == doctest::Approx(16.0));
  const vp::Route out2 = node.to_network(gpu0, nic0), in1 = node.from_network(nic0, gpu0);
  REQUIRE(out2.solo_gbps == doctest::Approx(24.0));

  for (const std::string& why : {relay_pays(send, bridge_out, out2), relay_pays(receive, in1, bridge_in)}) {
    INFO(why);
    CHECK(why.find("beats the direct route's 16 GB/s") != std::string::npos);
    CHECK(why.find("avoids link") != std::string::npos);       // the inter-socket link, the socket links
    CHECK(why.find("avoids forwarder") != std::string::npos);  // the sockets
  }
  // Without the bridge (the model's own peer-to-peer route) the same check passes.
  CHECK(relay_pays(send, node.gpu_to_gpu(gpu4, gpu0), out2) == "");
  CHECK(relay_pays(receive, in1, node.gpu_to_gpu(gpu0, gpu4)) == "");
}
