#include <doctest/doctest.h>

#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/topology/topology.hpp"

using namespace vp;

namespace {
Topology server() { return make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {}); }
}  // namespace

TEST_CASE("the synthetic 8-GPU server has the evaluation platform's shape") {
  Topology t = server();
  CHECK(t.gpus.size() == 8);
  CHECK(t.nics.size() == 4);
  CHECK(t.switches.size() == 4);
  CHECK(t.sockets.size() == 2);
  CHECK(t.host_bridges.size() == 2);
  CHECK(t.components[t.gpus[0]].name == "gpu0");
  CHECK(t.components[t.gpus[7]].local_index == 7);
  // 15 tree edges + one inter-socket link, two directions each.
  CHECK(t.links.size() == 2 * (2 + 4 + 8 + 4 + 1));
}

TEST_CASE("canonicalize is idempotent and independent of input order") {
  Topology a = server();
  Topology b = a;
  canonicalize(b, "b");
  CHECK(a.same_as(b));
  // Reverse the component order by hand (ids remapped), then canonicalize.
  Topology c = a;
  const auto n = static_cast<ComponentId>(c.components.size());
  auto flip = [n](ComponentId id) { return id == kNone ? kNone : n - 1 - id; };
  std::vector<Component> comps(c.components.rbegin(), c.components.rend());
  for (Component& x : comps) x.id = flip(x.id), x.parent = flip(x.parent), x.local_index = -1, x.name.clear();
  for (Link& l : c.links) l.src = flip(l.src), l.dst = flip(l.dst);
  c.components = comps;
  canonicalize(c, "c");
  CHECK(a.same_as(c));
}

TEST_CASE("malformed shapes say where") {
  CHECK_THROWS_WITH(make_node_from_shape("[g2,n1", {}), "shape: at character 7 of \"[g2,n1\": expected ']'");
  CHECK_THROWS_WITH(make_node_from_shape("x", {}),
                    "shape: at character 1 of \"x\": expected g<count>, n<count> or [");
}

TEST_CASE("finalize names the first structural problem") {
  Topology t = server();
  SUBCASE("a cycle in the PCIe tree") {
    ComponentId a = t.switches[0], b = t.switches[1];
    t.components[a].parent = b;
    t.components[b].parent = a;
    t.add_duplex_link(a, b, LinkKind::pcie, t.links[0].capacity);
    CHECK_THROWS_WITH(finalize(t, "x.json"), "x.json: the PCIe tree has a cycle through pcie_switch0");
  }
  SUBCASE("a non-positive capacity") {
    t.links[3].capacity.gbps = 0;
    CHECK_THROWS_WITH(finalize(t, "x.json"),
                      doctest::Contains("capacity must be from 0.001 to 1e+06 GB/s, got 0"));
  }
  SUBCASE("duplicate bus ids") {
    t.components[t.gpus[0]].pci_bus_id = "0000:17:00.0";
    t.components[t.gpus[1]].pci_bus_id = "0000:17:00.0";
    CHECK_THROWS_WITH(finalize(t, "x.json"), "x.json: duplicate PCI bus id 0000:17:00.0 (gpu0 and gpu1)");
  }
  SUBCASE("no GPU") {
    CHECK_THROWS_WITH(make_node_from_shape("n1", {}), "shape: no GPU in the topology");
  }
}
