// `vp-catalog resize`: the catalog of other nodes of the same node types
// equals, in every section but the provenance, the catalog a fresh
// `vp-analyze` of that cluster writes; refusals say why and exit 1.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "support.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/catalog/atomic_file.hpp"

using vp::test::RunResult;
using vp::test::shell_quote;

namespace {

const std::string kCatalog = VP_CATALOG_BIN;
const std::string kAnalyze = VP_ANALYZE_BIN;

RunResult sh(const std::string& bin, const std::string& args) { return vp::test::run(shell_quote(bin) + " " + args); }

// vp-analyze's catalog of `args` into dir/name.
std::string analyze(const vp::test::TempDir& dir, const std::string& name, const std::string& args) {
  const std::string out = dir.path() + "/" + name;
  const RunResult r = sh(kAnalyze, args + " -q --out " + shell_quote(out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

std::string resize(const vp::test::TempDir& dir, const std::string& from, const std::string& name,
                   const std::string& args) {
  const std::string out = dir.path() + "/" + name;
  const RunResult r = sh(kCatalog, "resize " + shell_quote(from) + " " + args + " --out " + shell_quote(out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("none analysed") != std::string::npos);
  return out;
}

vp::catalog::Catalog read(const std::string& path) { return vp::catalog::read_catalog(vp::catalog::read_file_bytes(path)); }

// Every section but the provenance equal, and the bytes so written too.
void check_same_but_provenance(const std::string& resized, const std::string& fresh) {
  vp::catalog::Catalog a = read(resized), b = read(fresh);
  CHECK(a.provenance.tool == "vp-catalog resize");
  CHECK(a.provenance.input_digest.rfind("sha256:", 0) == 0);
  CHECK(a.node_groups == b.node_groups);
  CHECK(a.fabric == b.fabric);
  CHECK(a.cluster_group_order == b.cluster_group_order);
  CHECK(a.node_types == b.node_types);
  CHECK(a.defaults == b.defaults);
  a.provenance = b.provenance;
  CHECK(vp::catalog::write_catalog(a) == vp::catalog::write_catalog(b));
}

const std::string kPcie = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
const std::string kG6 = vp::test::fixture("platforms/aws-g6-48xl.json");

}  // namespace

TEST_CASE("resize: growing a catalog equals a fresh analysis of the bigger cluster, on every fabric kind") {
  vp::test::TempDir dir;
  for (const std::string fabric : {"--fabric single_switch", "--fabric rail --oversubscription 2",
                                   "--fabric leaf_spine --leaf-size 2 --oversubscription 3"}) {
    INFO(fabric);
    const std::string small = analyze(dir, "small.vpcat", "--input " + shell_quote(kPcie) + " --nodes 2 " + fabric);
    const std::string big = analyze(dir, "big.vpcat", "--input " + shell_quote(kPcie) + " --nodes 5 " + fabric);
    check_same_but_provenance(resize(dir, small, "grown.vpcat", "--nodes 'node[0-4]'"), big);
    // And back: shrinking the big one gives the small one.
    check_same_but_provenance(resize(dir, big, "shrunk.vpcat", "--nodes node0,node1"), small);
  }
}

TEST_CASE("resize: from one node onto a fabric, and from one fabric to another") {
  vp::test::TempDir dir;
  const std::string one = analyze(dir, "one.vpcat", "--input " + shell_quote(kPcie));
  const RunResult r = sh(kCatalog, "resize " + shell_quote(one) + " --nodes 'node[0-3]' --out " +
                                       shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "vp-catalog: error: a cluster of 4 nodes needs a fabric and the catalog has none (it describes one node): "
        "give --fabric single_switch, rail or leaf_spine\n");
  const std::string rail = analyze(dir, "rail.vpcat", "--input " + shell_quote(kPcie) + " --nodes 4 --fabric rail");
  check_same_but_provenance(resize(dir, one, "grown.vpcat", "--nodes 'node[0-3]' --fabric rail"), rail);
  const std::string leaf = analyze(dir, "leaf.vpcat",
                                   "--input " + shell_quote(kPcie) + " --nodes 4 --fabric leaf_spine --leaf-size 3");
  check_same_but_provenance(resize(dir, rail, "leaf.vpcat", "--nodes 'node[0-3]' --fabric leaf_spine --leaf-size 3"),
                            leaf);
  // And back to one node alone.
  check_same_but_provenance(resize(dir, rail, "alone.vpcat", "--nodes node0 --fabric none"), one);
}

TEST_CASE("resize: a catalog resize cannot read as vp-analyze wrote it is invalid (exit 3)") {
  vp::test::TempDir dir;
  const std::string two = analyze(dir, "two.vpcat", "--input " + shell_quote(kPcie) + " --nodes 2 --fabric rail");
  // Two node types of one name: resize names node types by name.
  vp::catalog::Catalog c = read(two);
  c.node_types.push_back(c.node_types[0]);
  c.node_groups.push_back(vp::catalog::NodeGroup{1, 1, "other"});
  c.fabric.spine_uplink_gbps.assign(c.fabric.switches, c.fabric.spine_uplink_gbps[0]);
  const std::vector<std::uint8_t> bytes = vp::catalog::write_catalog(c);
  const std::string twice = dir.write("twice.vpcat", std::string(bytes.begin(), bytes.end()));
  RunResult r = sh(kCatalog, "resize " + shell_quote(twice) + " --nodes node0 --out " + shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 3);
  CHECK(r.err == "vp-catalog: error: " + twice + ": two node types are named \"pcie-gen4-2s4sw8g\": resize names node "
                 "types by name\n");
  // A spine uplink that is not what the nodes' NICs give.
  c = read(two);
  c.fabric.spine_uplink_gbps[0] *= 2;
  const std::vector<std::uint8_t> doubled = vp::catalog::write_catalog(c);
  const std::string odd = dir.write("odd.vpcat", std::string(doubled.begin(), doubled.end()));
  r = sh(kCatalog, "resize " + shell_quote(odd) + " --nodes 'node[0-3]' --out " + shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("the fabric was not composed as vp-analyze composes one") != std::string::npos);
  // A malformed host list is a usage error.
  r = sh(kCatalog, "resize " + shell_quote(two) + " --nodes 'node[3-1]' --out " + shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("vp-catalog: error: --nodes node[3-1]: ", 0) == 0);
}

TEST_CASE("resize: a NIC without GPUDirect RDMA: its port rate recovered from the catalog's uplinks, else refused") {
  // An AWS g6 has an ENA NIC that carries no GPU traffic (its nic_gbps is 0)
  // but whose fabric port counts toward its leaf's uplink.
  vp::test::TempDir dir;
  const std::string leaf = " --fabric leaf_spine --leaf-size 2 --oversubscription 1.5";
  const std::string four = analyze(dir, "four.vpcat", "--input " + shell_quote(kG6) + " --nodes 4" + leaf);
  const std::string seven = analyze(dir, "seven.vpcat", "--input " + shell_quote(kG6) + " --nodes 7" + leaf);
  check_same_but_provenance(resize(dir, four, "grown.vpcat", "--nodes 'node[0-6]'"), seven);
  const std::string rails = " --fabric rail --oversubscription 2";
  const std::string rail_two = analyze(dir, "rail2.vpcat", "--input " + shell_quote(kG6) + " --nodes 2" + rails);
  const std::string rail_five = analyze(dir, "rail5.vpcat", "--input " + shell_quote(kG6) + " --nodes 5" + rails);
  check_same_but_provenance(resize(dir, rail_two, "grown-rail.vpcat", "--nodes 'node[0-4]'"), rail_five);

  // One switch has no uplink that would tell the ENA port's rate.
  const std::string flat = analyze(dir, "flat.vpcat", "--input " + shell_quote(kG6) + " --nodes 4 --fabric single_switch");
  const RunResult r = sh(kCatalog, "resize " + shell_quote(flat) + " --nodes 'node[0-5]'" + leaf + " --out " +
                                       shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("node type aws-g6-48xl: its ENA NICs have no GPUDirect RDMA, so the catalog does not record their "
                   "port rate, which counts toward the new fabric's spine uplinks; the catalog has no spine whose "
                   "uplinks would give it") != std::string::npos);
  // Without a spine the rate does not matter.
  const std::string flat6 = analyze(dir, "flat6.vpcat", "--input " + shell_quote(kG6) + " --nodes 6 --fabric single_switch");
  check_same_but_provenance(resize(dir, flat, "flat6.vpcat", "--nodes 'node[0-5]'"), flat6);
}

TEST_CASE("resize: names and node types") {
  vp::test::TempDir dir;
  auto cluster = [&](const std::string& name, const std::string& g6_names) {
    return dir.write(name, fmt::format(R"({{
  "format": "vp-cluster", "version": 1,
  "node_types": [{{"name": "pcie", "input": "{}"}}, {{"name": "g6", "input": "{}"}}],
  "nodes": [{{"type": "pcie", "names": "a[1-2]"}}, {{"type": "g6", "names": "{}"}}],
  "fabric": {{"kind": "rail", "oversubscription": 2}}
}})",
                                       kPcie, kG6, g6_names));
  };
  const std::string two = analyze(dir, "two.vpcat", "--cluster-root / --cluster " + shell_quote(cluster("two.json", "b[1-2]")));
  const std::string four = analyze(dir, "four.vpcat", "--cluster-root / --cluster " + shell_quote(cluster("four.json", "b[1-4]")));
  // Known names keep their node type; new ones are given theirs.
  check_same_but_provenance(resize(dir, two, "grown.vpcat", "--nodes 'a[1-2],b[1-2]' --nodes 'g6=b[3-4]'"), four);
  auto refused = [&](const std::string& nodes, const std::string& why) {
    const RunResult r = sh(kCatalog, "resize " + shell_quote(two) + " " + nodes + " --out " +
                                         shell_quote(dir.path() + "/x.vpcat"));
    CHECK(r.exit_code == 1);
    CHECK(r.err == "vp-catalog: error: " + why + "\n");
  };
  refused("--nodes 'a[1-2],c1'",
          "--nodes a[1-2],c1: node c1 is not in the catalog, which has 2 node types: name its type (--nodes "
          "TYPE=a[1-2],c1)");
  refused("--nodes x=c1", "node c1: the catalog has no node type \"x\"");
  refused("--nodes a1,a1", "node a1 is named twice");
  refused("--nodes =c1", "--nodes =c1: no node type before '='");
  refused("--nodes a1 --leaf-size 4", "--leaf-size and --oversubscription change the fabric: give --fabric too");
}

TEST_CASE("resize: validate --against a cluster description checks a resized catalog against the analysis") {
  vp::test::TempDir dir;
  const std::string two = analyze(dir, "two.vpcat", "--input " + shell_quote(kPcie) + " --nodes 2 --fabric single_switch");
  const std::string four = resize(dir, two, "four.vpcat", "--nodes 'gpu[01-04]'");
  const std::string cluster = vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  const RunResult ok = sh(kCatalog, "validate " + shell_quote(four) + " --against " + shell_quote(kPcie) + " --cluster " +
                                        shell_quote(cluster));
  INFO(ok.out, ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("valid catalog, matches the analysis of") != std::string::npos);
  // Other nodes than the description's: a mismatch, as for any catalog.
  const std::string five = resize(dir, two, "five.vpcat", "--nodes 'gpu[01-05]'");
  const RunResult bad = sh(kCatalog, "validate " + shell_quote(five) + " --against " + shell_quote(kPcie) +
                                         " --cluster " + shell_quote(cluster));
  CHECK(bad.exit_code == 3);
  CHECK(bad.err.find("node group 0: count 5 -> 4") != std::string::npos);
}

TEST_CASE("resize: writes its JSON mirror beside it, and the output verifies") {
  vp::test::TempDir dir;
  const std::string small = analyze(dir, "small.vpcat", "--input " + shell_quote(kPcie) + " --nodes 2 --fabric rail");
  const std::string out = dir.path() + "/big.vpcat", json = dir.path() + "/big.json";
  const RunResult r = sh(kCatalog, "resize " + shell_quote(small) + " --nodes 'gpu[001-100]' --out " + shell_quote(out) +
                                       " --json-out " + shell_quote(json));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind(out + ": 100 nodes, 800 GPUs, fabric rail", 0) == 0);
  CHECK(sh(kCatalog, "validate " + shell_quote(out)).exit_code == 0);
  const RunResult same = sh(kCatalog, "diff " + shell_quote(out) + " " + shell_quote(json));
  INFO(same.out, same.err);
  CHECK(same.exit_code == 0);
  const vp::catalog::Catalog c = read(out);
  REQUIRE(c.node_groups.size() == 1);
  CHECK(c.node_groups[0].count == 100);
  CHECK(c.node_groups[0].names.rfind("gpu001,gpu002,", 0) == 0);
}
