// `vp-analyze --out`: catalogs for the evaluation platforms and the real
// fixtures, determinism (also under a reordered input), and the summary.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <vpcat/catalog_view.hpp>

#include "support.hpp"

using vp::test::fixture;
using vp::test::run;
using vp::test::TempDir;

namespace {

std::string analyze() { return VP_ANALYZE_BIN; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

nlohmann::json summary_of(const std::string& args, const std::string& out) {
  auto r = run(analyze() + " " + args + " --out " + out + " --summary json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("the four evaluation platforms give catalogs with the expected summary") {
  TempDir dir;
  const std::string node = fixture("platforms/pcie-gen4-2s4sw8g.json");
  struct Case {
    std::string cluster;
    int gpus, nodes;
  };
  for (const Case& c : {Case{"", 8, 1}, Case{"pcie-gen4-2s4sw8g-4n-switch.cluster.json", 32, 4},
                        Case{"pcie-gen4-2s4sw8g-16n-rail.cluster.json", 128, 16},
                        Case{"pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json", 256, 32}}) {
    CAPTURE(c.cluster);
    std::string args = "--input " + node + (c.cluster.empty() ? "" : " --cluster " + fixture("platforms/" + c.cluster));
    nlohmann::json s = summary_of(args, dir.path() + "/c.vpcat");
    CHECK(s["gpus"] == c.gpus);
    CHECK(s["nodes"] == c.nodes);
    REQUIRE(s["node_types"].size() == 1);
    CHECK(s["node_types"][0]["automorphism_group_order"] == "128");
    CHECK(s["node_types"][0]["gpu_orbits"] == 1);
    CHECK(s["node_types"][0]["local_pattern_orbits"] == 511);
    CHECK(s["node_types"][0]["local_patterns"] == "40177");
    CHECK(s["catalog_bytes"].get<std::uint64_t>() == slurp(dir.path() + "/c.vpcat").size());
    CHECK(s.contains("elapsed_ms"));
  }
}

TEST_CASE("the cluster group order follows the fabric's structure") {
  TempDir dir;
  const std::string node = fixture("platforms/pcie-gen4-2s4sw8g.json");
  // One switch: S4 on the nodes, Aut(node) on each: 4! * 128^4.
  nlohmann::json s = summary_of("--input " + node + " --nodes 4", dir.path() + "/a.vpcat");
  CHECK(s["cluster_automorphism_group_order"] == "6442450944");
  // Rails: a node automorphism must map NIC k to the same rail on every
  // node. The NIC-fixing subgroup of this node is the 2^4 GPU swaps; Aut
  // induces 8 NIC permutations. 2! * 16^2 * 8 = 4096.
  s = summary_of("--input " + node + " --nodes 2 --fabric rail", dir.path() + "/b.vpcat");
  CHECK(s["cluster_automorphism_group_order"] == "4096");
}

TEST_CASE("the catalog is byte-identical for identical input and for a reordered input") {
  TempDir dir;
  const std::string node = fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string cluster = " --cluster " + fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  summary_of("--input " + node + cluster, dir.path() + "/one.vpcat");
  summary_of("--input " + node + cluster, dir.path() + "/two.vpcat");
  CHECK(slurp(dir.path() + "/one.vpcat") == slurp(dir.path() + "/two.vpcat"));

  // The same machine with its components listed in reverse order.
  nlohmann::json doc = nlohmann::json::parse(slurp(node));
  std::reverse(doc["components"].begin(), doc["components"].end());
  std::reverse(doc["links"].begin(), doc["links"].end());
  std::string reordered = dir.write("reordered.json", doc.dump(1));
  nlohmann::json spec = nlohmann::json::parse(slurp(fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json")));
  spec["node_types"][0]["input"] = reordered;
  std::string spec_path = dir.write("cluster.json", spec.dump());
  summary_of("--input " + reordered + " --cluster " + spec_path, dir.path() + "/three.vpcat");
  CHECK(slurp(dir.path() + "/one.vpcat") == slurp(dir.path() + "/three.vpcat"));
}

TEST_CASE("every real fixture with GPUs gives a catalog") {
  TempDir dir;
  for (const char* f : {"real/hwloc-xml/hwloc-24em64t-2n6c2t-pci.xml", "real/hwloc-xml/hwloc-32em64t-2n8c2t-pci-wholeio.xml",
                        "real/hwloc-xml/hwloc-64intel64-3g2n+2n-irregulargroups+pci.xml",
                        "real/hwloc-xml/hwloc-nvidiaDGX2.xml", "real/hwloc-xml/hwloc-power8gpudistances.xml",
                        "real/hwloc-xml/nixl-g5.48xl-topo.xml", "real/hwloc-xml/nixl-g6.48xl-topo.xml",
                        "real/hwloc-xml/nixl-p4d.24xl-topo.xml", "real/hwloc-xml/nixl-p5.48xl-topo.xml",
                        "real/hwloc-xml/rixl-mi300x-topo.xml", "real/nccl-topo/aws-p4d-24xl-topo.xml",
                        "real/nccl-topo/aws-p4de-24xl-topo.xml", "real/nccl-topo/aws-p5.48xl-topo.xml",
                        "real/nccl-topo/azure-ncv4-topo.xml", "real/nccl-topo/azure-ndv2-topo.xml",
                        "real/nccl-topo/azure-ndv4-topo.xml", "real/nccl-topo/azure-ndv5-topo.xml"}) {
    CAPTURE(f);
    nlohmann::json s = summary_of("--input " + fixture(f), dir.path() + "/x.vpcat");
    CHECK(s["gpus"].get<int>() > 0);
    CHECK(s["channel_orbits"].get<int>() > 0);
  }
}

TEST_CASE("analysis errors: no --out, and an unwritable output") {
  TempDir dir;
  auto r = run(analyze() + " --input " + fixture("platforms/pcie-gen4-2s4sw8g.json"));
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-analyze: error: --out FILE is required (or name a command: see --help)\n");
  r = run(analyze() + " --input " + fixture("platforms/pcie-gen4-2s4sw8g.json") + " --out " + dir.path() +
          "/missing/dir/x.vpcat");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot write the file") != std::string::npos);
}

TEST_CASE("a rail cluster whose NIC permutations number more than 2^64 has an exact group order") {
  // One GPU and 21 interchangeable NICs on one host bridge: Aut(node) induces
  // S21 on the NICs, 21! > 2^64 (the p5.48xlarge's 32 EFA NICs hit the same
  // arithmetic). Two nodes on rails: |S2| x |K|^2 x 21! with K trivial.
  std::string components = R"({"id": 0, "kind": "cpu", "cpu_family": "amd"},
    {"id": 1, "kind": "host_bridge", "parent": 0},
    {"id": 2, "kind": "gpu", "parent": 1, "pci_bus_id": "0000:02:00.0"})";
  std::string links = R"({"id": 0, "src": 1, "dst": 0, "kind": "pcie", "capacity_gbps": 48},
    {"id": 1, "src": 2, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})";
  for (int k = 0; k < 21; ++k) {
    components += fmt::format(R"(,
    {{"id": {}, "kind": "nic", "parent": 1, "pci_bus_id": "0000:{:02x}:00.0", "line_rate_gbitps": 100, "ports": 1, "gpudirect": true}})",
                              3 + k, 0x10 + k);
    links += fmt::format(R"(,
    {{"id": {}, "src": {}, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16}})",
                         2 + k, 3 + k);
  }
  TempDir dir;
  std::string node = dir.write("nics21.json", R"({"format": "vp-topology", "version": 1,
  "nodes": [{"name": "node0", "type": "nics21"}],
  "components": [)" + components + R"(],
  "links": [)" + links + "]}\n");
  nlohmann::json s = summary_of("--input " + node + " --nodes 2 --fabric rail", dir.path() + "/a.vpcat");
  CHECK(s["cluster_automorphism_group_order"] == "102181884343418880000");  // 2 x 21!
}

// --measured (docs/importers.md "Measured capacities"): the catalog's routes
// run at the measured rates, the topology shows `measured` and the file.

TEST_CASE("a catalog built with --measured has the measured route solo rates and names the file") {
  TempDir dir;
  const std::string node = fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string p2p = fixture("measured/p2p-pcie-gen4-2s4sw8g.txt");
  const std::string nvb = fixture("measured/nvbandwidth-pcie-gen4-2s4sw8g.json");
  struct Case {
    std::string file, name;
    double pix, phb, sys;
  };
  // p2p: the same-switch orbit is 26.10 x 7 and 26.30 once: its mean.
  for (const Case& c : {Case{p2p, "p2p-pcie-gen4-2s4sw8g.txt", (7 * 26.10 + 26.30) / 8, 20.50, 14.20},
                        Case{nvb, "nvbandwidth-pcie-gen4-2s4sw8g.json", 25.0312, 19.0156, 13.0078}}) {
    CAPTURE(c.file);
    const std::string out = dir.path() + "/m.vpcat";
    auto r = run(analyze() + " --input " + node + " --measured " + c.file + " --out " + out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string bytes = slurp(out);
    vpcat::CatalogView v;
    REQUIRE(vpcat::CatalogView::open(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), &v).ok());
    const vpcat::NodeTypeView t = v.node_type(0);
    REQUIRE(t.gpu_count() == 8);
    for (std::uint32_t i = 0; i < 8; ++i)
      for (std::uint32_t j = 0; j < 8; ++j) {
        if (i == j) continue;
        const double want = i / 2 == j / 2 ? c.pix : i / 4 == j / 4 ? c.phb : c.sys;
        CHECK(t.route(t.gpu(i), t.gpu(j)).solo_gbps() == doctest::Approx(want).epsilon(1e-9));
      }
    // An orbit of equal figures keeps the figure exactly (not a rounded mean).
    CHECK(t.route(t.gpu(0), t.gpu(4)).solo_gbps() == c.sys);
    // Noise within 5% keeps the symmetry: the same group as without measurements.
    CHECK(t.group_order() == "128");
    const std::string warnings(v.provenance().warnings);
    CHECK(warnings.find("capacities measured: " + c.name) != std::string::npos);
    // vp-analyze topology: `measured` and the file on the capacities.
    auto topo = run(analyze() + " topology --input " + node + " --measured " + c.file);
    REQUIRE(topo.exit_code == 0);
    CHECK(topo.out.find("measured") != std::string::npos);
    CHECK(topo.out.find("pair GPU0->GPU1 (" + c.name) != std::string::npos);
    auto json = run(analyze() + " topology --json --input " + node + " --measured " + c.file);
    REQUIRE(json.exit_code == 0);
    int measured_links = 0;
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    for (const auto& l : doc["links"])
      measured_links += l.value("capacity_source", std::string()) == "measured";
    CHECK(measured_links == 16 + 2);  // 8 GPUs' links both ways, the inter-socket link both ways
  }
  // Without --measured the catalog is what it was (no measured source anywhere).
  auto plain = run(analyze() + " topology --json --input " + node);
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("measured") == std::string::npos);
}

TEST_CASE("--measured errors: a malformed file is exit 2 at its line, a cluster is a usage error") {
  TempDir dir;
  const std::string node = fixture("platforms/pcie-gen4-2s4sw8g.json");
  std::string bad = dir.write("bad.txt",
                              "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"
                              "     0 900.0  6.6\n     1  six 900.0\n");
  auto r = run(analyze() + " topology --input " + node + " --measured " + bad);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad.txt:4: \"six\" in row 1, column 0: not a rate in GB/s") != std::string::npos);
  // The 2-GPU capture's bus ids are not this topology's.
  r = run(analyze() + " topology --input " + node + " --measured " + fixture("measured/p2p-2x4090-tinygrad44.txt"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("p2p-2x4090-tinygrad44.txt:2: device 0 (0000:02:00.0) is not a GPU of the topology") !=
        std::string::npos);
  r = run(analyze() + " topology --input " + node + " --cluster " +
          fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json") + " --measured " +
          fixture("measured/p2p-pcie-gen4-2s4sw8g.txt"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--measured applies to one node type") != std::string::npos);
  // A disagreeing pair is a warning with both figures, on stderr.
  r = run(analyze() + " topology --input " + node + " --measured " +
          fixture("measured/p2p-pcie-gen4-2s4sw8g-disagree.txt"));
  CHECK(r.exit_code == 0);
  CHECK((r.out + r.err).find("12.00 GB/s and GPU0->GPU2") != std::string::npos);
}
