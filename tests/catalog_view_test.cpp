// The runtime view: accessors, O(1) route lookup, and the global numbering
// of SPEC.md checked against the analyzer's own cluster expansion
// (vp::expand_cluster), so that catalog ids equal `vp-analyze topology --json` ids.
#include <doctest/doctest.h>

#include "catalog_support.hpp"
#include "support.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/routes.hpp"
#include "vpcat/catalog_view.hpp"

namespace {

using namespace vp::catalog;

// The topology part of a node type (no symmetry computed: identity orbits).
NodeType node_type_of(const vp::Topology& t) {
  NodeType n;
  n.name = t.nodes.at(0).type;
  for (const vp::Component& c : t.components) {
    Component x;
    x.kind = static_cast<Kind>(c.kind);
    x.parent = c.parent;
    x.local_index = static_cast<std::uint32_t>(c.local_index);
    x.name = c.name;
    x.model = c.model;
    x.pci_bus_id = c.pci_bus_id;
    x.device_name = c.device_name;
    x.forward_gbps = c.forward ? c.forward->gbps : 0.0;
    if (c.kind == vp::ComponentKind::nic) x.nic_gbps = t.defaults.nic(c.line_rate_gbitps, static_cast<int>(c.ports)).gbps;
    x.gpudirect = c.gpudirect;
    n.components.push_back(x);
    n.component_orbit.push_back(c.id);
  }
  for (const vp::Link& l : t.links) {
    n.links.push_back(Link{l.src, l.dst, static_cast<LinkKind>(l.kind), l.capacity.gbps, l.reverse});
    n.link_orbit.push_back(l.id);
  }
  std::vector<vp::ComponentId> ends = t.gpus;
  ends.insert(ends.end(), t.nics.begin(), t.nics.end());
  for (vp::ComponentId a : ends)
    for (vp::ComponentId b : ends)
      if (a != b) {
        vp::Route r = vp::intra_node_route(t, a, b);
        n.routes.push_back(Route{a, b, r.solo_gbps, r.links, r.forwarders});
      }
  n.group_order = "1";
  n.patterns_represented = "0";
  return n;
}

struct Built {
  vp::Topology expanded;
  std::vector<std::uint8_t> bytes;
};

Built build(vp::FabricKind kind, std::uint32_t nodes, std::uint32_t leaf_size) {
  vp::Topology node = vp::import_topology(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json"),
                                          vp::InputFormat::json, {});
  vp::ClusterSpec spec = vp::cluster_from_shortcut(node, nodes, kind, leaf_size, 1.0);
  Built b{vp::expand_cluster(spec), {}};
  Catalog c;
  c.node_types = {node_type_of(node)};
  c.node_groups = {NodeGroup{0, nodes, "node[0-" + std::to_string(nodes - 1) + "]"}};
  c.fabric.kind = static_cast<FabricKind>(kind);
  c.fabric.leaf_size = leaf_size;
  for (const vp::Component& comp : b.expanded.components)
    if (comp.kind == vp::ComponentKind::net_switch && comp.role != "spine") ++c.fabric.switches;
  c.fabric.spine = c.fabric.switches >= 2 && kind != vp::FabricKind::single_switch;
  c.fabric.spine_uplink_gbps.assign(c.fabric.switches, c.fabric.spine ? 100.0 : 0.0);
  c.fabric.group_order = c.cluster_group_order = "1";
  c.provenance.tool_version = "test";
  b.bytes = write_catalog(c);
  return b;
}

// Every global id the view computes names the same component or link as
// the analyzer's expansion.
void check_numbering(const Built& b) {
  vpcat::CatalogView v;
  REQUIRE(vpcat::CatalogView::open(b.bytes.data(), b.bytes.size(), &v).ok());
  const vp::Topology& t = b.expanded;
  CHECK(v.global_component_count() == t.components.size());
  CHECK(v.global_link_count() == t.links.size());
  CHECK(v.gpu_count() == t.gpus.size());
  std::uint64_t nic = 0;
  for (std::uint32_t n = 0; n < v.node_count(); ++n) {
    const vpcat::NodeRef node = v.node(n);
    const vpcat::NodeTypeView type = v.node_type(node.node_type);
    for (std::uint32_t x = 0; x < type.component_count(); ++x) {
      const vp::Component& c = t.components.at(node.first_component + x);
      CHECK(c.node == static_cast<std::int32_t>(n));
      CHECK(c.name == type.component(x).name());
    }
    for (std::uint32_t g = 0; g < type.gpu_count(); ++g)
      CHECK(t.gpus.at(node.first_gpu + g) == node.first_component + type.gpu(g));
    for (std::uint32_t l = 0; l < type.link_count(); ++l) {
      const vp::Link& link = t.links.at(node.first_link + l);
      CHECK(link.src == node.first_component + type.link(l).src());
      CHECK(link.dst == node.first_component + type.link(l).dst());
    }
    for (std::uint32_t k = 0; k < type.nic_count(); ++k, ++nic) {
      const std::uint64_t id = node.first_component + type.nic(k);
      CHECK(t.nics.at(node.first_nic + k) == id);
      const std::uint64_t sw = v.global_switch(v.switch_of_nic(n, k));
      const vp::Link& up = t.links.at(v.global_nic_uplink(nic));
      const vp::Link& down = t.links.at(v.global_nic_downlink(nic));
      CHECK((up.src == id && up.dst == sw));
      CHECK((down.src == sw && down.dst == id));
    }
  }
  const vpcat::FabricView f = v.fabric();
  for (std::uint32_t k = 0; k < f.switches; ++k) {
    CHECK(t.components.at(v.global_switch(k)).kind == vp::ComponentKind::net_switch);
    if (!f.spine) continue;
    CHECK(t.links.at(v.global_spine_uplink(k)).src == v.global_switch(k));
    CHECK(t.links.at(v.global_spine_uplink(k)).dst == v.global_spine());
    CHECK(t.links.at(v.global_spine_downlink(k)).src == v.global_spine());
  }
  if (f.spine) CHECK(t.components.at(v.global_spine()).role == "spine");
}

}  // namespace

TEST_CASE("view: global numbering equals the analyzer's cluster expansion") {
  SUBCASE("rail") { check_numbering(build(vp::FabricKind::rail, 3, 0)); }
  SUBCASE("leaf_spine") { check_numbering(build(vp::FabricKind::leaf_spine, 5, 2)); }
  SUBCASE("single switch") { check_numbering(build(vp::FabricKind::single_switch, 2, 0)); }
  SUBCASE("one leaf, no spine") { check_numbering(build(vp::FabricKind::leaf_spine, 2, 4)); }
}

TEST_CASE("view: node types, components, links and routes read back as written") {
  const Catalog c = vp::test::mixed_catalog();
  const std::vector<std::uint8_t> bytes = write_catalog(c);
  vpcat::CatalogView v;
  REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &v).ok());
  REQUIRE(v.node_type_count() == 2);
  const vpcat::NodeTypeView quad = v.node_type(0);
  CHECK(quad.name() == "quad");
  CHECK(quad.gpu_count() == 4);
  CHECK(quad.nic_count() == 2);
  CHECK(quad.first_gpu() == 4);
  CHECK(quad.nic(1) == 9);
  CHECK(quad.component(quad.gpu(2)).pci_bus_id() == "0000:82:00.0");
  CHECK(quad.component(8).gpudirect());
  CHECK(quad.component(8).nic_gbps() == 25.0);
  CHECK(quad.find_link(4, 2) != vpcat::kNone);
  CHECK(quad.link(quad.find_link(4, 2)).dst() == 2);
  CHECK(quad.find_link(4, 5) == vpcat::kNone);
  for (std::uint32_t a = quad.first_gpu(); a < quad.component_count(); ++a)
    for (std::uint32_t b = quad.first_gpu(); b < quad.component_count(); ++b) {
      if (a == b) continue;
      const vpcat::RouteView r = quad.route(a, b);
      CHECK(r.from() == a);
      CHECK(r.to() == b);
    }
  const vpcat::RouteView cross = quad.route(4, 6);  // gpu0 -> gpu2 through the host bridge
  CHECK(cross.link_count() == 4);
  CHECK(cross.forwarder_count() == 1);
  CHECK(cross.forwarder(0) == 1);
  CHECK(quad.generator(1).image(2) == 3);
  CHECK(quad.pattern(1).send(0) == vpcat::kNicBase);
  CHECK(quad.pattern(1).orbit_size() == 4);
  CHECK(v.node_count() == 3);
  CHECK(v.node(2).node_type == 1);
  CHECK(v.node(2).first_component == 10 + 5);
  CHECK(v.node_group(1).names == "small[1-2]");
  CHECK(v.default_at(1).key == "pcie.gen4");
  CHECK(v.provenance().options == "ports_per_gpu=1");
  CHECK(v.cluster_group_order() == "64");
}
