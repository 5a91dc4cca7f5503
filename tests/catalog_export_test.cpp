// `vp-catalog export`: each format on catalogs vp-analyze writes from the
// platform fixtures (one switch, rails, leaf/spine), checked for its
// structure and values: every node exactly once in the fabric, the Links=
// matrix symmetric with -1 on the diagonal and the same-switch pairs the
// strongest; refusals name the file and the node.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catalog_support.hpp"
#include "support.hpp"

using vp::test::RunResult;
using vp::test::shell_quote;

namespace {

const std::string kCatalog = VP_CATALOG_BIN;
const std::string kAnalyze = VP_ANALYZE_BIN;

// vp-analyze's catalog of fixtures/platforms/NAME.cluster.json, in `dir`.
std::string analyze(const vp::test::TempDir& dir, const std::string& name) {
  const std::string out = dir.path() + "/" + name + ".vpcat";
  const RunResult r = vp::test::run(shell_quote(kAnalyze) + " -q --cluster " +
                                    shell_quote(vp::test::fixture("platforms/" + name + ".cluster.json")) + " --out " +
                                    shell_quote(out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

std::string exported(const std::string& catalog, const std::string& format) {
  const RunResult r = vp::test::run(shell_quote(kCatalog) + " export " + shell_quote(catalog) + " --format " + format);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return r.out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "gpu[001-003],x" -> gpu001, gpu002, gpu003, x (the forms export writes).
std::vector<std::string> expand(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const std::size_t open = item.find('[');
    if (open == std::string::npos) {
      out.push_back(item);
      continue;
    }
    const std::size_t dash = item.find('-', open), close = item.find(']', open);
    const std::string first = item.substr(open + 1, dash - open - 1);
    const int a = std::stoi(first), b = std::stoi(item.substr(dash + 1, close - dash - 1));
    for (int i = a; i <= b; ++i) out.push_back(item.substr(0, open) + fmt::format("{:0{}}", i, first.size()));
  }
  return out;
}

std::vector<std::string> names(const std::string& prefix, int count, int width) {
  std::vector<std::string> out;
  for (int i = 1; i <= count; ++i) out.push_back(prefix + fmt::format("{:0{}}", i, width));
  return out;
}

// The value of `key: value` (quotes removed), "" when the line is not one.
std::string value_of(const std::string& line, const std::string& key) {
  const std::size_t at = line.find(key + ": ");
  if (at == std::string::npos) return "";
  std::string v = line.substr(at + key.size() + 2);
  if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

// slurm-topology's tree: switch -> its nodes (or children).
std::map<std::string, std::pair<std::string, std::string>> tree_of(const std::string& text) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::string at;
  for (const std::string& line : lines_of(text)) {
    if (const std::string s = value_of(line, "- switch"); !s.empty()) at = s;
    if (const std::string s = value_of(line, "nodes"); !s.empty()) out[at].first = s;
    if (const std::string s = value_of(line, "children"); !s.empty()) out[at].second = s;
  }
  return out;
}

}  // namespace

TEST_CASE("vp-catalog export slurm-topology: a tree of the fabric, every node under exactly one leaf") {
  vp::test::TempDir dir;
  SUBCASE("leaf/spine: four leaves of eight nodes under the spine") {
    const std::string text = exported(analyze(dir, "pcie-gen4-2s4sw8g-32n-leafspine2to1"), "slurm-topology");
    CHECK(text.find("- topology: variopath\n  cluster_default: true\n  tree:\n    switches:\n") != std::string::npos);
    const auto tree = tree_of(text);
    REQUIRE(tree.size() == 5);
    CHECK(tree.at("spine").second == "leaf[0-3]");
    CHECK(tree.at("spine").first.empty());
    CHECK(tree.at("leaf1").first == "gpu[009-016]");
    std::vector<std::string> all;
    for (int leaf = 0; leaf < 4; ++leaf) {
      const std::vector<std::string> hosts = expand(tree.at(fmt::format("leaf{}", leaf)).first);
      CHECK(hosts.size() == 8);
      all.insert(all.end(), hosts.begin(), hosts.end());
    }
    CHECK(all == names("gpu", 32, 3));
  }
  SUBCASE("one switch: every node on it, no spine") {
    const auto tree = tree_of(exported(analyze(dir, "pcie-gen4-2s4sw8g-4n-switch"), "slurm-topology"));
    REQUIRE(tree.size() == 1);
    CHECK(expand(tree.at("switch0").first) == names("gpu", 4, 2));
  }
  SUBCASE("rails: one logical switch of the rails, every node on it") {
    const std::string text = exported(analyze(dir, "pcie-gen4-2s4sw8g-16n-rail"), "slurm-topology");
    const auto tree = tree_of(text);
    REQUIRE(tree.size() == 1);
    CHECK(expand(tree.at("rails").first) == names("gpu", 16, 3));
    CHECK(text.find("rails are one logical switch") != std::string::npos);
  }
}

TEST_CASE("vp-catalog export slurm-gres: one line per GPU, Links= from the PCIe path types") {
  vp::test::TempDir dir;
  const std::string text = exported(analyze(dir, "pcie-gen4-2s4sw8g-4n-switch"), "slurm-gres");
  CHECK(text.find("# Cores= is not written: the catalog knows each GPU's socket but not the socket's\n") !=
        std::string::npos);
  CHECK(text.find("# node type pcie-gen4-2s4sw8g: 8 GPUs on 4 nodes\n") != std::string::npos);
  std::vector<std::vector<int>> links;
  const std::regex line(R"(NodeName=gpu\[01-04\] Name=gpu File=/dev/nvidia(\d+) Links=([-0-9,]+)  # socket (\d), (\S+), .*)");
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("NodeName=", 0) != 0) continue;
    std::smatch m;
    REQUIRE(std::regex_match(l, m, line));
    CHECK(std::stoul(m[1]) == links.size());
    CHECK(std::stoi(m[3]) == (links.size() < 4 ? 0 : 1));
    links.emplace_back();
    std::istringstream in(m[2].str());
    for (std::string v; std::getline(in, v, ',');) links.back().push_back(std::stoi(v));
  }
  REQUIRE(links.size() == 8);
  for (std::size_t a = 0; a < 8; ++a) {
    REQUIRE(links[a].size() == 8);
    for (std::size_t b = 0; b < 8; ++b) CHECK(links[a][b] == (a == b ? -1 : links[b][a]));
  }
  // GPUs 0 and 1 share a PCIe switch (PIX), 0 and 2 meet at the host bridge
  // (PHB), 0 and 4 are on the other socket (SYS).
  CHECK(links[0][1] == 4);
  CHECK(links[0][2] == 2);
  CHECK(links[0][4] == 0);
  CHECK(links[6][7] == 4);
  CHECK(text.find("not NVIDIA") == std::string::npos);
}

TEST_CASE("vp-catalog export slurm-gres: GPUs of another vendor keep /dev/nvidiaN, with a warning to replace it") {
  const std::string text = exported(vp::test::fixture("catalogs/golden/rixl-mi300x-topo.vpcat"), "slurm-gres");
  CHECK(text.find("# node type rixl-mi300x-topo: 8 GPUs on 1 node\n# Its GPUs are gfx942:sramecc+:xnack-, not NVIDIA: "
                  "File= below names /dev/nvidiaN; give their device files\n") != std::string::npos);
}

TEST_CASE("vp-catalog export k8s-labels: a Kueue Topology, then each node's labels in order") {
  vp::test::TempDir dir;
  const std::string text = exported(analyze(dir, "pcie-gen4-2s4sw8g-32n-leafspine2to1"), "k8s-labels");
  CHECK(text.find("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: variopath\nspec:\n  levels:\n"
                  "    - nodeLabel: topology.variopath.io/spine\n    - nodeLabel: topology.variopath.io/leaf\n"
                  "    - nodeLabel: kubernetes.io/hostname\n---\n") != std::string::npos);
  CHECK(text.find("  name: gpu009\n  labels:\n    topology.variopath.io/spine: spine\n"
                  "    topology.variopath.io/leaf: leaf1\n    gpu.topology.variopath.io/0.socket: \"0\"\n"
                  "    gpu.topology.variopath.io/0.pcie-switch: pcie_switch0\n") != std::string::npos);
  CHECK(text.find("    gpu.topology.variopath.io/5.socket: \"1\"\n    gpu.topology.variopath.io/5.pcie-switch: pcie_switch2\n") !=
        std::string::npos);
  // Every label as Kubernetes takes it: prefix/name (name at most 63,
  // alphanumeric at both ends) and a value of at most 63.
  const std::regex label(
      R"re(    ([a-z0-9.-]+)/([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?): "?([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)"?)re");
  int nodes = 0, labels = 0;
  for (const std::string& l : lines_of(text)) {
    nodes += l == "kind: Node";
    if (l.rfind("    ", 0) == 0 && l.find("nodeLabel") == std::string::npos) {
      INFO(l);
      CHECK(std::regex_match(l, label));
      ++labels;
    }
  }
  CHECK(nodes == 32);
  CHECK(labels == 32 * (2 + 2 * 8));
}

TEST_CASE("vp-catalog export volcano: tier-1 HyperNodes of nodes, the spine of them at tier 2") {
  vp::test::TempDir dir;
  const std::string text = exported(analyze(dir, "pcie-gen4-2s4sw8g-32n-leafspine2to1"), "volcano");
  std::map<std::string, std::pair<int, std::vector<std::string>>> hypernodes;  // name -> tier, members
  std::string at, type;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("  name: ", 0) == 0) at = value_of(l, "name");
    if (const std::string t = value_of(l, "  tier"); !t.empty()) hypernodes[at].first = std::stoi(t);
    if (const std::string t = value_of(l, "- type"); !t.empty()) type = t;
    if (l.rfind("          name: ", 0) == 0) hypernodes[at].second.push_back(type + ":" + value_of(l, "name"));
  }
  CHECK(text.find("apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: leaf0\nspec:\n  tier: 1\n"
                  "  members:\n    - type: Node\n      selector:\n        exactMatch:\n          name: gpu001\n") !=
        std::string::npos);
  REQUIRE(hypernodes.size() == 5);
  CHECK(hypernodes.at("spine").first == 2);
  CHECK(hypernodes.at("spine").second ==
        std::vector<std::string>{"HyperNode:leaf0", "HyperNode:leaf1", "HyperNode:leaf2", "HyperNode:leaf3"});
  std::vector<std::string> all;
  for (int leaf = 0; leaf < 4; ++leaf) {
    const auto& h = hypernodes.at(fmt::format("leaf{}", leaf));
    CHECK(h.first == 1);
    CHECK(h.second.size() == 8);
    for (const std::string& m : h.second) all.push_back(m.substr(std::string("Node:").size()));
  }
  CHECK(all == names("gpu", 32, 3));
}

TEST_CASE("vp-catalog export: --out writes the file; refusals name the file and the reason") {
  vp::test::TempDir dir;
  const std::string cat = analyze(dir, "pcie-gen4-2s4sw8g-4n-switch");
  const std::string out = dir.path() + "/topology.yaml";
  RunResult r = vp::test::run(shell_quote(kCatalog) + " export --catalog " + shell_quote(cat) +
                              " --format slurm-topology --out " + shell_quote(out));
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(vp::test::read_text(out) == exported(cat, "slurm-topology"));

  r = vp::test::run(shell_quote(kCatalog) + " export " + shell_quote(cat) + " --format torque");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--format: torque not in {") != std::string::npos);

  r = vp::test::run(shell_quote(kCatalog) + " export /no/such.vpcat --format volcano");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-catalog: error: /no/such.vpcat: cannot read the file (open: No such file or directory)\n");

  // Host names Kubernetes cannot take (upper case): Slurm's formats take them.
  const std::string json = dir.path() + "/upper.json";
  REQUIRE(vp::test::run(shell_quote(kCatalog) + " convert " + shell_quote(cat) + " --to json --out " + shell_quote(json))
              .exit_code == 0);
  std::string text = vp::test::read_text(json);
  const std::string from = "\"gpu01,gpu02,gpu03,gpu04\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "\"GPU01,gpu02,gpu03,gpu04\"");
  const std::string upper = dir.write("upper-names.json", text);
  r = vp::test::run(shell_quote(kCatalog) + " export " + shell_quote(upper) + " --format k8s-labels");
  CHECK(r.exit_code == 3);
  CHECK(r.out.empty());
  CHECK(r.err == "vp-catalog: error: " + upper +
                     ": node 'GPU01': cannot be written as k8s-labels: a Kubernetes node name (RFC 1123) holds lower "
                     "case letters, digits, '-' and '.', not 'G'\n");
  CHECK(vp::test::run(shell_quote(kCatalog) + " export " + shell_quote(upper) + " --format volcano").exit_code == 3);
  CHECK(tree_of(exported(upper, "slurm-topology")).at("switch0").first == "GPU01,gpu[02-04]");
}
