// Clusters: host lists, the cluster description, and the expansion of node
// types plus fabric (counts, switches, capacities), with whole error messages.
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"

namespace {

using Names = std::vector<std::string>;

std::string hostlist_error(const std::string& expr) {
  return vp::test::message_of([&] { vp::expand_hostlist(expr, "hosts"); });
}

std::string platform_cluster(const std::string& name) {
  return vp::test::fixture("platforms/pcie-gen4-2s4sw8g-" + name + ".cluster.json");
}

vp::Topology expand_fixture(const std::string& name) {
  return vp::expand_cluster(vp::load_cluster_spec(platform_cluster(name), nullptr, {}));
}

// Net switches of a role, in id order.
std::vector<vp::ComponentId> switches_with_role(const vp::Topology& t, const std::string& role) {
  std::vector<vp::ComponentId> out;
  for (vp::ComponentId s : t.net_switches)
    if (t.components[s].role == role) out.push_back(s);
  return out;
}

// Capacities of the links out of `from` towards components of `role`.
std::vector<double> uplinks(const vp::Topology& t, vp::ComponentId from, const std::string& role) {
  std::vector<double> out;
  for (vp::LinkId l : t.out_links[from])
    if (t.components[t.links[l].dst].role == role) out.push_back(t.links[l].capacity.gbps);
  return out;
}

// The node's NIC-to-fabric capacity of the fixture's 200 Gb/s ConnectX-6.
double nic_gbps() { return vp::CapacityDefaults().nic(200, 1).gbps; }

// "file:line: reason" of the InputError `f` throws (the column and the
// line shown with a caret are the JSON front end's: json_document_test, and
// whole messages in cli_test).
std::string error_of(const std::function<void()>& f) { return vp::test::place_and_reason_of(f); }

// A cluster description written to `dir` next to a copy of the platform node.
std::string write_description(const vp::test::TempDir& dir, const std::string& body) {
  std::ifstream node(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json"));
  std::ostringstream copy;
  copy << node.rdbuf();
  dir.write("node.json", copy.str());
  return dir.write("cluster.json", body);
}

vp::Topology nicless_node() {
  vp::SyntheticOptions opts;
  opts.node_type = "nicless";
  return vp::make_node_from_shape("[g2]", opts);
}

}  // namespace

TEST_CASE("cluster: host lists expand ranges, lists and several groups") {
  CHECK(vp::expand_hostlist("gpu[001-004]", "") == Names{"gpu001", "gpu002", "gpu003", "gpu004"});
  CHECK(vp::expand_hostlist("gpu[001-002,010]", "") == Names{"gpu001", "gpu002", "gpu010"});
  CHECK(vp::expand_hostlist("n1,n2", "") == Names{"n1", "n2"});
  CHECK(vp::expand_hostlist("a[1-2]b[1-2]", "") == Names{"a1b1", "a1b2", "a2b1", "a2b2"});
  CHECK(vp::expand_hostlist("gpu[8-11]", "") == Names{"gpu8", "gpu9", "gpu10", "gpu11"});
  CHECK(vp::expand_hostlist("gpu[08-10]", "") == Names{"gpu08", "gpu09", "gpu10"});
  CHECK(vp::expand_hostlist("x[7],rack-2.node_a", "") == Names{"x7", "rack-2.node_a"});
  CHECK(vp::expand_hostlist("gpu[1-1000]", "").size() == 1000);
}

TEST_CASE("cluster: malformed host lists are rejected with the place") {
  CHECK(hostlist_error("gpu[1-2") == "hosts: host list \"gpu[1-2\": unclosed '[' at column 4");
  CHECK(hostlist_error("gpu[1-") == "hosts: host list \"gpu[1-\": unclosed '[' at column 4");
  CHECK(hostlist_error("gpu]") == "hosts: host list \"gpu]\": unexpected ']' at column 4");
  CHECK(hostlist_error("gpu[3-1]") == "hosts: host list \"gpu[3-1]\": decreasing range 3-1");
  CHECK(hostlist_error("gpu[]") == "hosts: host list \"gpu[]\": expected a number, got ']' at column 5");
  CHECK(hostlist_error("gpu[a-b]") == "hosts: host list \"gpu[a-b]\": expected a number, got 'a' at column 5");
  CHECK(hostlist_error("gpu[[1]]") == "hosts: host list \"gpu[[1]]\": expected a number, got '[' at column 5");
  CHECK(hostlist_error("gpu[1;2]") == "hosts: host list \"gpu[1;2]\": unexpected ';' in a range at column 6");
  CHECK(hostlist_error("a,,b") == "hosts: host list \"a,,b\": empty host name at column 3");
  CHECK(hostlist_error("") == "hosts: host list \"\": empty host name at column 1");
  CHECK(hostlist_error("gpu 1") == "hosts: host list \"gpu 1\": unexpected ' ' at column 4");
  CHECK(hostlist_error("gpu[1-2000000]") == "hosts: host list \"gpu[1-2000000]\": more than 1000000 host names");
  CHECK(hostlist_error("a[1-1000]b[1-1001]") ==
        "hosts: host list \"a[1-1000]b[1-1001]\": more than 1000000 host names");
  // Numbers below 2^64 are taken (SPEC.md §6.8, as the verifier does); the
  // analyzer's own parser refused more than 18 digits.
  CHECK(hostlist_error("n[18446744073709551616]") ==
        "hosts: host list \"n[18446744073709551616]\": number 18446744073709551616 is 2^64 or more");
}

TEST_CASE("cluster: 4 nodes on one switch") {
  vp::Topology t = expand_fixture("4n-switch");
  CHECK(t.gpus.size() == 32);
  CHECK(t.nics.size() == 16);
  CHECK(t.nodes.front() == vp::NodeInfo{"gpu01", "pcie-gen4-2s4sw8g"});
  CHECK(t.nodes.back().name == "gpu04");
  REQUIRE(t.net_switches.size() == 1);
  const vp::Component& sw = t.components[t.net_switches[0]];
  CHECK(sw.role == "switch");
  CHECK(sw.name == "switch0");
  CHECK(t.in_links[sw.id].size() == 16);
  for (vp::LinkId l : t.in_links[sw.id]) CHECK(t.links[l].capacity == vp::CapacityDefaults().nic(200, 1));
  CHECK(vp::path_type(t, t.gpus[0], t.gpus[8]) == vp::PathType::NET);
  CHECK(t.display_name(t.gpus[9]) == "gpu02/gpu1");
}

TEST_CASE("cluster: 16 nodes rail-optimized") {
  vp::Topology t = expand_fixture("16n-rail");
  CHECK(t.gpus.size() == 128);
  auto rails = switches_with_role(t, "rail");
  auto spines = switches_with_role(t, "spine");
  REQUIRE(rails.size() == 4);
  REQUIRE(spines.size() == 1);
  CHECK(t.net_switches.size() == 5);
  for (std::size_t k = 0; k < rails.size(); ++k) {
    CAPTURE(k);
    // NIC k of every node, and nothing else, on rail k.
    CHECK(t.in_links[rails[k]].size() == 16 + 1);
    for (vp::LinkId l : t.in_links[rails[k]]) {
      const vp::Component& src = t.components[t.links[l].src];
      if (src.kind == vp::ComponentKind::nic) CHECK(src.local_index == static_cast<std::int32_t>(k));
    }
    CHECK(uplinks(t, rails[k], "spine") == std::vector<double>{16 * nic_gbps()});
  }
}

TEST_CASE("cluster: 32 nodes leaf/spine 2:1") {
  vp::Topology t = expand_fixture("32n-leafspine2to1");
  CHECK(t.gpus.size() == 256);
  CHECK(t.fabric == vp::FabricInfo{vp::FabricKind::leaf_spine, 8, 2.0});
  auto leaves = switches_with_role(t, "leaf");
  REQUIRE(leaves.size() == 4);
  CHECK(switches_with_role(t, "spine").size() == 1);
  for (vp::ComponentId leaf : leaves) {
    // 8 nodes x 4 NICs below, half of that above.
    CHECK(uplinks(t, leaf, "spine") == std::vector<double>{8 * 4 * nic_gbps() / 2});
    vp::LinkId up = t.find_link(leaf, switches_with_role(t, "spine")[0]);
    CHECK(t.links[up].capacity.source == vp::CapacitySource::default_table);
    CHECK(t.links[up].capacity.basis == "800 GB/s of downlinks / oversubscription 2");
  }
  // Nodes 0-7 share leaf 0; node 8 is on leaf 1.
  auto leaf_of = [&](std::size_t node) {
    vp::ComponentId nic = t.nics[node * 4];
    return t.links[t.out_links[nic].back()].dst;
  };
  CHECK(leaf_of(0) == leaf_of(7));
  CHECK(leaf_of(7) != leaf_of(8));
  vp::Route r = vp::default_route(t, t.gpus[0], t.gpus[8 * 8]);
  CHECK(r.solo_gbps == doctest::Approx(vp::CapacityDefaults().pcie(4, 16).gbps));
}

TEST_CASE("cluster: the command-line shortcut") {
  vp::Topology node = vp::make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  vp::ClusterSpec spec = vp::cluster_from_shortcut(node, 32, vp::FabricKind::rail, 8, 1.0);
  CHECK(spec.nodes.size() == 32);
  CHECK(spec.nodes[31] == vp::NodeInfo{"node31", "synthetic"});
  CHECK(spec.fabric == vp::FabricInfo{vp::FabricKind::rail, 0, 1.0});
  vp::Topology t = vp::expand_cluster(spec);
  CHECK(t.gpus.size() == 256);
  CHECK(t.net_switches.size() == 5);

  // 20 nodes, 8 per leaf: the last leaf holds 4 nodes.
  vp::Topology ls = vp::expand_cluster(vp::cluster_from_shortcut(node, 20, vp::FabricKind::leaf_spine, 8, 4.0));
  auto leaves = switches_with_role(ls, "leaf");
  REQUIRE(leaves.size() == 3);
  CHECK(uplinks(ls, leaves[2], "spine") == std::vector<double>{4 * 4 * nic_gbps() / 4});
}

TEST_CASE("cluster: fabrics that need no spine have none") {
  vp::Topology node = vp::make_node_from_shape("[g2,n1]", {});
  CHECK(vp::expand_cluster(vp::cluster_from_shortcut(node, 4, vp::FabricKind::rail, 0, 1.0)).net_switches.size() == 1);
  CHECK(
      vp::expand_cluster(vp::cluster_from_shortcut(node, 4, vp::FabricKind::leaf_spine, 8, 2.0)).net_switches.size() ==
      1);
}

TEST_CASE("cluster: the fabric's nic_gbitps replaces the NICs' own rate") {
  vp::test::TempDir dir;
  std::string path = write_description(dir, R"({"format": "vp-cluster", "version": 1,
    "node_types": [{"name": "n", "input": "node.json"}],
    "nodes": [{"type": "n", "count": 2}],
    "fabric": {"kind": "single_switch", "nic_gbitps": 100}})");
  vp::ClusterSpec spec = vp::load_cluster_spec(path, nullptr, {});
  CHECK(spec.nodes[1] == vp::NodeInfo{"node1", "n"});
  vp::Topology t = vp::expand_cluster(spec);
  CHECK(t.links[t.out_links[t.nics[0]].back()].capacity == vp::CapacityDefaults().nic(100, 1));
}

TEST_CASE("cluster: a node type without input is the --input topology") {
  vp::test::TempDir dir;
  std::string path = write_description(dir, R"({"format": "vp-cluster", "version": 1,
    "node_types": [{"name": "main"}], "nodes": [{"type": "main", "names": "h[1-2]"}],
    "fabric": {"kind": "single_switch"}})");
  vp::Topology node = vp::make_node_from_shape("[g2,n1]", {});
  vp::ClusterSpec spec = vp::load_cluster_spec(path, &node, {});
  CHECK(spec.node_types[0].topology.nodes[0].type == "main");
  CHECK(vp::expand_cluster(spec).gpus.size() == 4);
  CHECK(error_of([&] { vp::load_cluster_spec(path, nullptr, {}); }) ==
        path + ":2: node_types[0]: no \"input\", and no topology was given with --input");
}

TEST_CASE("cluster: expansion errors") {
  vp::Topology nicless = nicless_node();
  CHECK(error_of([&] {
          vp::expand_cluster(vp::cluster_from_shortcut(nicless, 2, vp::FabricKind::single_switch, 0, 1));
        }) == "<input>: node type \"nicless\": has no NIC, but the cluster has 2 nodes");
  vp::Topology node = vp::make_node_from_shape("[g2,n1]", {});
  CHECK(error_of([&] { vp::expand_cluster(vp::cluster_from_shortcut(node, 2, vp::FabricKind::none, 0, 1)); }) ==
        "<input>: a cluster of 2 nodes needs a fabric (single_switch, rail or leaf_spine)");
  CHECK(error_of([&] { vp::expand_cluster(vp::cluster_from_shortcut(node, 2, vp::FabricKind::leaf_spine, 0, 1)); }) ==
        "<input>: a leaf_spine fabric needs a leaf size of at least 1");
  CHECK(error_of([&] { vp::expand_cluster(vp::cluster_from_shortcut(node, 2, vp::FabricKind::rail, 0, 0)); }) ==
        "<input>: oversubscription must be a positive number, got 0");
}

TEST_CASE("cluster: description errors name the place") {
  vp::test::TempDir dir;
  auto error_with = [&](const std::string& body) {
    std::string path = write_description(dir, body);
    std::string message = error_of([&] { vp::load_cluster_spec(path, nullptr, {}); });
    return message.substr(0, path.size()) == path ? message.substr(path.size()) : message;
  };
  const std::string head =
      R"({"format": "vp-cluster", "version": 1, "node_types": [{"name": "n", "input": "node.json"}],)";
  CHECK(error_with(head + R"( "nodes": [{"type": "m", "count": 2}], "fabric": {"kind": "rail"}})") ==
        ":1: nodes[0].type: unknown node type \"m\"");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2, "names": "a[1-2]"}], "fabric": {"kind": "rail"}})") ==
        ":1: nodes[0]: give exactly one of \"names\" and \"count\"");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "names": "a[1-"}], "fabric": {"kind": "rail"}})") ==
        ":1: nodes[0].names: host list \"a[1-\": unclosed '[' at column 2");
  CHECK(
      error_with(
          head +
          R"( "nodes": [{"type": "n", "names": "a[1-2]"}, {"type": "n", "names": "a2"}], "fabric": {"kind": "rail"}})") ==
      ":1: nodes[1]: host \"a2\" is already in nodes[0]");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "leaf_spine"}})") ==
        ":1: fabric: missing key \"leaf_size\" (kind leaf_spine)");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "rail", "leaf_size": 2}})") ==
        ":1: fabric.leaf_size: applies only to kind leaf_spine");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 0}], "fabric": {"kind": "rail"}})") ==
        ":1: nodes[0].count: must be an integer from 1 to 1000000, got 0");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "rail", "colour": 1}})") ==
        ":1: fabric: unknown key \"colour\" (expected \"kind\", \"leaf_size\", \"oversubscription\" or "
        "\"nic_gbitps\")");
  // Rates and ratios whose capacities would underflow to 0 or overflow
  // (found by tests/fuzz/cluster_fuzz.cpp): refused at the value, not in the
  // expansion as a link of capacity 0 in "<input>".
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "rail", "nic_gbitps": 5e-324}})") ==
        ":1: fabric.nic_gbitps: must be a number from 0.000001 to 1000000, got 5e-324");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "rail", "nic_gbitps": 1e300}})") ==
        ":1: fabric.nic_gbitps: must be a number from 0.000001 to 1000000, got 1e+300");
  CHECK(error_with(head +
                   R"( "nodes": [{"type": "n", "count": 2}], "fabric": {"kind": "rail", "oversubscription": 1e-310}})") ==
        ":1: fabric.oversubscription: must be a number from 0.000001 to 1000000, got 1e-310");
  CHECK(error_with(head + R"( "nodes": [{"type": "n", "count": 2}]})") ==
        ": a cluster of 2 nodes needs a fabric (single_switch, rail or leaf_spine)");
  CHECK(error_with(R"({"format": "vp-topology", "version": 1})") ==
        ":1: format: expected \"vp-cluster\", got \"vp-topology\"");
  CHECK(error_with("{\n\"format\": \"vp-cluster\",\n}") ==
        ":3: malformed JSON (syntax error while parsing object key - unexpected '}'; expected string literal)");
  CHECK(
      error_with(
          R"({"format": "vp-cluster", "version": 1, "node_types": [{"name": "n", "input": "missing.json"}], "nodes": []})")
          .find("missing.json: cannot read") != std::string::npos);
}

TEST_CASE("cluster: node-type files lie under the description's folder, or under --cluster-root") {
  // A description must not make the analyzer open any file (/etc/shadow,
  // ../../../../etc/passwd) and show its first line in a parse error.
  vp::test::TempDir dir;
  const std::string tail = R"(], "nodes": [{"type": "n", "count": 1}]})";
  auto description = [&](const std::string& input) {
    return write_description(dir, R"({"format": "vp-cluster", "version": 1, "node_types": [{"name": "n", "input": ")" +
                                      input + "\"}" + tail);
  };
  for (const std::string input : {"/etc/passwd", "../../../../etc/passwd", "sub/../../outside.json"}) {
    CAPTURE(input);
    const std::string path = description(input);
    const std::string message = error_of([&] { vp::load_cluster_spec(path, nullptr, {}); });
    CHECK(message == path + ":1: node_types[0].input: \"" + input +
                         "\" is outside the description's folder (" + dir.path() +
                         "); --cluster-root DIR allows files under DIR");
  }
  // Inside the folder (through "sub/.." too) the file is read: node.json,
  // which write_description() puts beside the description.
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  REQUIRE(vp::test::run("mkdir -p " + vp::test::shell_quote(dir.path() + "/sub")).exit_code == 0);
  CHECK(vp::load_cluster_spec(description("sub/../node.json"), nullptr, {}).node_types.size() == 1);
  // A symbolic link out of the folder is outside too.
  REQUIRE(vp::test::run("ln -s " + vp::test::shell_quote(platform) + " " + vp::test::shell_quote(dir.path() + "/link.json"))
              .exit_code == 0);
  const std::string linked = description("link.json");
  CHECK(error_of([&] { vp::load_cluster_spec(linked, nullptr, {}); }).find("is outside the description's folder") !=
        std::string::npos);
  // --cluster-root widens the folder.
  vp::ImportOptions wide;
  wide.cluster_root = vp::test::fixture("");
  CHECK(vp::load_cluster_spec(linked, nullptr, wide).node_types.size() == 1);
}
