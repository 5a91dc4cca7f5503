// The simulated machine of a catalog (vp/sim/catalog_topology.hpp) is the
// machine vp::load_input builds from the same input: same component and
// link ids, endpoints, kinds and capacities. That equality is what makes the
// planner's route link ids (SPEC.md "global numbering") mean the same links
// in the simulator.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <string>

#include "input_error.hpp"
#include "planner_support.hpp"
#include "support.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/topology/errors.hpp"

using namespace vp;
using vp::plantest::Platform;

namespace {

// "" when `got` (from the catalog) is `want` (from load_input) as far as
// the catalog can tell; else the first difference. NIC fabric links of
// NICs without GPUDirect RDMA carry the NIC's PCIe capacity (the header).
std::string difference(const Topology& want, const Topology& got) {
  if (got.components.size() != want.components.size())
    return fmt::format("{} components, expected {}", got.components.size(), want.components.size());
  if (got.links.size() != want.links.size()) return fmt::format("{} links, expected {}", got.links.size(), want.links.size());
  if (got.nodes.size() != want.nodes.size()) return "node count";
  for (std::size_t n = 0; n < want.nodes.size(); ++n)
    if (got.nodes[n].name != want.nodes[n].name) return fmt::format("node {} is {}, expected {}", n, got.nodes[n].name, want.nodes[n].name);
  if (!(got.fabric == want.fabric)) return "fabric";
  for (std::size_t i = 0; i < want.components.size(); ++i) {
    const Component& a = want.components[i];
    const Component& b = got.components[i];
    const std::string who = fmt::format("component {} ({})", i, want.display_name(a.id));
    if (b.id != a.id || b.kind != a.kind || b.node != a.node || b.parent != a.parent || b.local_index != a.local_index ||
        b.name != a.name)
      return who + ": identity differs (" + got.display_name(b.id) + ")";
    if (b.model != a.model || b.pci_bus_id != a.pci_bus_id || b.device_name != a.device_name || b.gpudirect != a.gpudirect)
      return who + ": labels differ";
    if (a.kind == ComponentKind::net_switch && b.role != a.role) return who + ": role " + b.role;
    if (a.forward.has_value() != b.forward.has_value() || (a.forward && a.forward->gbps != b.forward->gbps))
      return who + ": forwarding capacity differs";
  }
  for (std::size_t i = 0; i < want.links.size(); ++i) {
    const Link& a = want.links[i];
    const Link& b = got.links[i];
    const std::string who = fmt::format("link {} ({} -> {})", i, want.display_name(a.src), want.display_name(a.dst));
    if (b.id != a.id || b.src != a.src || b.dst != a.dst || b.kind != a.kind || b.reverse != a.reverse)
      return who + fmt::format(": is {} -> {}", got.display_name(b.src), got.display_name(b.dst));
    double expected = a.capacity.gbps;
    const Component& nic = want.components[a.src];
    if (a.kind == LinkKind::network && nic.kind == ComponentKind::nic && !nic.gpudirect)
      expected = want.links[want.find_link(a.src, nic.parent)].capacity.gbps;
    const Component& nic2 = want.components[a.dst];
    if (a.kind == LinkKind::network && nic2.kind == ComponentKind::nic && !nic2.gpudirect)
      expected = want.links[want.find_link(a.dst, nic2.parent)].capacity.gbps;
    if (b.capacity.gbps != expected) return who + fmt::format(": {} GB/s, expected {}", b.capacity.gbps, expected);
  }
  if (got.gpus != want.gpus || got.nics != want.nics || got.net_switches != want.net_switches) return "derived indexes";
  return "";
}

Topology from_catalog(const Platform& p) { return sim::catalog_topology(catalog::read_catalog(p.bytes), p.name); }

// The suite's platforms (planner_support's), and the two real servers at 4
// nodes on one switch from fixtures/platforms/.
const Platform& suite_platform(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Platform>> own;
  const std::map<std::string, std::pair<std::string, std::string>> files{
      {"mi300x-4n", {"real/hwloc-xml/rixl-mi300x-topo.xml", "platforms/mi300x-4n-switch.cluster.json"}},
      {"g6-4n", {"platforms/aws-g6-48xl.json", "platforms/aws-g6-48xl-4n-switch.cluster.json"}}};
  auto f = files.find(name);
  if (f == files.end()) return plantest::platform(name);
  auto& slot = own[name];
  if (!slot) {
    AnalysisRequest r;
    r.input = test::fixture(f->second.first);
    r.cluster = test::fixture(f->second.second);
    r.cluster_root = test::fixture("");  // the MI300X description names ../real/hwloc-xml/
    slot = plantest::build_platform(name, r);
  }
  return *slot;
}

}  // namespace

TEST_CASE("a catalog's cluster equals the one load_input builds, on every platform fixture") {
  for (const char* name : {"1n", "4n-switch", "16n-rail", "32n-leafspine", "3n-rail-tight", "5n-leafspine-tight",
                           "mixed-4n", "g6-3n", "mi300x-4n", "g6-4n", "2n-half-gpudirect"}) {
    CAPTURE(name);
    const Platform& p = suite_platform(name);
    const Topology t = from_catalog(p);
    CHECK(difference(p.topology, t) == "");
  }
}

TEST_CASE("the check sees a changed capacity, endpoint or name") {
  const Platform& p = plantest::platform("16n-rail");
  Topology t = from_catalog(p);
  REQUIRE(difference(p.topology, t) == "");
  Topology a = t;
  a.links.back().capacity.gbps *= 2;  // the last spine downlink
  CHECK(difference(p.topology, a) == "link 743 (spine0 -> rail3): 800 GB/s, expected 400");
  Topology b = t;
  b.links[3].dst = b.links[4].dst;
  CHECK(difference(p.topology, b).find("link 3 ") == 0);
  Topology c = t;
  c.components.back().name = "spine1";
  CHECK(difference(p.topology, c).find(": identity differs") != std::string::npos);
}

TEST_CASE("a NIC without GPUDirect RDMA gets its PCIe link's capacity on the fabric") {
  const Platform& p = plantest::platform("2n-half-gpudirect");
  const Topology t = from_catalog(p);
  int without = 0;
  for (ComponentId nic : t.nics) {
    const Component& c = t.components[nic];
    if (c.gpudirect) continue;
    ++without;
    for (LinkId l : t.out_links[nic])
      if (t.links[l].kind == LinkKind::network)
        CHECK(t.links[l].capacity.gbps == t.links[t.find_link(nic, c.parent)].capacity.gbps);
  }
  CHECK(without == 4);  // NICs 2 and 3 of both nodes
}

TEST_CASE("a catalog file is read and rebuilt; a bad one is refused with its path") {
  const Platform& p = plantest::platform("4n-switch");
  test::TempDir dir;
  const std::string path = dir.path() + "/4n.vpcat";
  dir.write("4n.vpcat", std::string(p.bytes.begin(), p.bytes.end()));
  CHECK(difference(p.topology, sim::load_catalog_topology(path)) == "");
  const std::string bad = dir.write("bad.vpcat", "not a catalog");
  CHECK(test::message_of<catalog::CatalogError>([&] { sim::load_catalog_topology(bad); }).rfind(bad + ": ", 0) == 0);
}
