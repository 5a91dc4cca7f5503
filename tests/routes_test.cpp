#include <doctest/doctest.h>

#include <stdexcept>

#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;

namespace {
Topology server() { return make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {}); }

std::vector<std::string> hops(const Topology& t, const Route& r) {
  std::vector<std::string> out;
  for (LinkId l : r.links) out.push_back(t.components[t.links[l].src].name + ">" + t.components[t.links[l].dst].name);
  return out;
}
}  // namespace

TEST_CASE("path types follow NCCL's vocabulary") {
  Topology t = server();
  auto m = path_type_matrix(t);
  CHECK(m[0][0] == PathType::LOC);
  CHECK(m[0][1] == PathType::PIX);   // same switch
  CHECK(m[0][2] == PathType::PHB);   // other switch, same host bridge
  CHECK(m[0][4] == PathType::SYS);   // other socket
  CHECK(path_type(t, t.gpus[0], t.nics[0]) == PathType::PIX);
}

TEST_CASE("nested switches give PXB, separate host bridges of a socket give NODE") {
  Topology nested = make_node_from_shape("[[g1],[g1]]", {});
  CHECK(path_type_matrix(nested)[0][1] == PathType::PXB);
  Topology direct = make_node_from_shape("g2", {});
  CHECK(path_type_matrix(direct)[0][1] == PathType::PHB);
}

TEST_CASE("GPU x NIC path types are the types of the GPU -> NIC routes") {
  Topology t = server();
  auto m = nic_path_type_matrix(t);
  REQUIRE(m.size() == t.gpus.size());
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    REQUIRE(m[g].size() == t.nics.size());
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
      CAPTURE(g);
      CAPTURE(k);
      CHECK(m[g][k] == intra_node_route(t, t.gpus[g], t.nics[k]).type);
      CHECK(m[g][k] == path_type(t, t.gpus[g], t.nics[k]));
    }
  }
  using P = PathType;
  CHECK(m[0] == std::vector<P>{P::PIX, P::PHB, P::SYS, P::SYS});  // own switch, same host bridge, other socket
  CHECK(m[7] == std::vector<P>{P::SYS, P::SYS, P::PHB, P::PIX});
  // The highest crossing decides: two switches PXB (whichever holds the
  // GPU), a NIC on a root port PHB.
  CHECK(nic_path_type_matrix(make_node_from_shape("[[g1],[n1]]", {}))[0] == std::vector<P>{P::PXB});
  CHECK(nic_path_type_matrix(make_node_from_shape("[g1,[n1]]", {}))[0] == std::vector<P>{P::PXB});
  CHECK(nic_path_type_matrix(make_node_from_shape("[g1],n1", {}))[0] == std::vector<P>{P::PHB});
  CHECK(nic_path_type_matrix(make_node_from_shape("g1|n1", {}))[0] == std::vector<P>{P::SYS});
}

TEST_CASE("GPU x NIC path types: NET to another node's NIC, no column without a NIC") {
  Topology node = server();
  Topology two = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  auto m = nic_path_type_matrix(two);
  REQUIRE(m.size() == 16);
  using P = PathType;
  CHECK(m[0] == std::vector<P>{P::PIX, P::PHB, P::SYS, P::SYS, P::NET, P::NET, P::NET, P::NET});
  CHECK(m[9] == std::vector<P>{P::NET, P::NET, P::NET, P::NET, P::PIX, P::PHB, P::SYS, P::SYS});
  auto none = nic_path_type_matrix(make_node_from_shape("[g2]", {}));
  CHECK(none == std::vector<std::vector<P>>(2));
}

TEST_CASE("intra-node routes go through the lowest common ancestor") {
  Topology t = server();
  Route pix = intra_node_route(t, t.gpus[0], t.gpus[1]);
  CHECK(hops(t, pix) == std::vector<std::string>{"gpu0>pcie_switch0", "pcie_switch0>gpu1"});
  CHECK(pix.forwarders.empty());
  CHECK(pix.solo_gbps == 24.0);

  Route sys = intra_node_route(t, t.gpus[0], t.gpus[7]);
  CHECK(hops(t, sys) == std::vector<std::string>{"gpu0>pcie_switch0", "pcie_switch0>host_bridge0",
                                                 "host_bridge0>cpu0", "cpu0>cpu1", "cpu1>host_bridge1",
                                                 "host_bridge1>pcie_switch3", "pcie_switch3>gpu7"});
  CHECK(sys.forwarders.size() == 4);  // two host bridges, two sockets
  CHECK(sys.solo_gbps == 16.0);       // AMD inter-socket default
  CHECK(sys.type == PathType::SYS);
}

TEST_CASE("the forwarding capacity of a root complex limits a route through it") {
  SyntheticOptions o;
  o.defaults.set("root_complex_p2p_factor", 0.25, "--set");
  Topology t = make_node_from_shape("[g1],[g1]", o);
  Route r = intra_node_route(t, t.gpus[0], t.gpus[1]);
  REQUIRE(r.forwarders.size() == 1);
  CHECK(t.components[r.forwarders[0]].kind == ComponentKind::host_bridge);
  CHECK(r.solo_gbps == 6.0);
}

TEST_CASE("the nearest NIC is the one under the GPU's own switch") {
  Topology t = server();
  for (std::size_t g = 0; g < 8; ++g) CHECK(nearest_nic(t, t.gpus[g]) == t.nics[g / 2]);
}

TEST_CASE("network routes: between nodes, and a loopback through two NICs of one node") {
  Topology two = expand_cluster(cluster_from_shortcut(server(), 2, FabricKind::single_switch, 0, 1.0));
  const ComponentId g0 = two.gpus[0], g3 = two.gpus[3], g8 = two.gpus[8];
  // Across nodes: up g0's switch to nic0, the fabric, nic4 (node 1's first) down to gpu8.
  const Route across = network_route(two, g0, two.nics[0], two.nics[4], g8);
  CHECK(across.type == PathType::NET);
  // Inside node 0: g0 -> nic0 -> switch -> nic1 -> g3 (g3 sits under nic1's switch).
  const Route loop = network_route(two, g0, two.nics[0], two.nics[1], g3);
  CHECK(loop.type == PathType::NET);
  std::size_t network = 0;
  for (LinkId l : loop.links) network += two.links[l].kind == LinkKind::network;
  CHECK(network == 2);  // nic0's uplink and nic1's downlink, nothing else of the fabric
  CHECK(loop.forwarders.empty());  // no root complex, no socket: what the loopback spares
  CHECK(two.components[two.links[loop.links.front()].src].id == g0);
  CHECK(two.links[loop.links.back()].dst == g3);
  // One NIC both ways is not a route through the fabric; a NIC of another node is not this node's.
  CHECK_THROWS_AS(network_route(two, g0, two.nics[0], two.nics[0], g3), vp::InternalError);
  CHECK_THROWS_AS(network_route(two, g0, two.nics[4], two.nics[1], g3), vp::InternalError);
}
