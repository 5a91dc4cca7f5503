// `vp-catalog validate --against` on the golden catalogs of
// fixtures/catalogs/golden/ (listed in its catalogs.txt): each one matches a
// fresh analysis of its topology (and cluster) under the options it records;
// a catalog checked against another topology, without its cluster or with
// tampered options is rejected with one message saying what differs (exit
// 3); a missing file is unreadable (exit 2).
//
// The byte-for-byte comparison of the golden files with a fresh analysis is
// ctest's `catalog_golden` (scripts/regen-golden.sh --check).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "support.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"

namespace {

namespace fs = std::filesystem;
using vp::test::run;

const std::string kTool = VP_CATALOG_BIN;
const std::string kRoot = fs::path(VP_FIXTURES_DIR).parent_path().string();

std::string golden_dir() { return vp::test::fixture("catalogs/golden"); }

struct Golden {
  std::string name, input, cluster;  // input and cluster absolute
};

// The lines of catalogs.txt: NAME, then vp-analyze's arguments, of which
// validate needs --input and --cluster (the rest is in the catalog).
std::vector<Golden> golden_list() {
  std::ifstream in(golden_dir() + "/catalogs.txt");
  REQUIRE(in);
  std::vector<Golden> out;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    if (w.empty()) continue;
    Golden g;
    g.name = w[0];
    for (std::size_t i = 1; i + 1 < w.size(); ++i) {
      if (w[i] == "--input" || w[i] == "-i") g.input = kRoot + "/" + w[i + 1];
      if (w[i] == "--cluster") g.cluster = kRoot + "/" + w[i + 1];
    }
    INFO(line);
    REQUIRE(!g.input.empty());
    out.push_back(g);
  }
  return out;
}

std::string against(const Golden& g) {
  return " --against " + g.input + (g.cluster.empty() ? "" : " --cluster " + g.cluster);
}
std::string source(const Golden& g) { return g.input + (g.cluster.empty() ? "" : " with --cluster " + g.cluster); }

Golden find(const std::string& name) {
  for (const Golden& g : golden_list())
    if (g.name == name) return g;
  FAIL("no golden catalog " << name);
  return {};
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A copy of a golden catalog with other recorded options.
std::string with_options(const vp::test::TempDir& dir, const std::string& name, const std::string& options) {
  vp::catalog::Catalog c = vp::catalog::read_catalog_file(golden_dir() + "/" + name + ".vpcat");
  c.provenance.options = options;
  const std::vector<std::uint8_t> bytes = vp::catalog::write_catalog(c);
  const std::string path = dir.path() + "/" + name + "-tampered.vpcat";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace

TEST_CASE("golden: the folder holds exactly the listed catalogs") {
  std::set<std::string> listed, vpcat;
  for (const Golden& g : golden_list()) CHECK_MESSAGE(listed.insert(g.name).second, g.name << " is listed twice");
  for (const auto& e : fs::directory_iterator(golden_dir())) {
    const std::string file = e.path().filename().string();
    if (file == "catalogs.txt" || file == "README.md") continue;
    CAPTURE(file);
    CHECK((e.path().extension() == ".vpcat" || e.path().extension() == ".json"));
    CHECK(listed.count(e.path().stem().string()) == 1);
    if (e.path().extension() == ".vpcat") vpcat.insert(e.path().stem().string());
  }
  CHECK(vpcat == listed);
  CHECK(listed.size() >= 5);
}

TEST_CASE("golden: every catalog and mirror validates against its topology, with the options it records") {
  for (const Golden& g : golden_list()) {
    CAPTURE(g.name);
    const std::string file = golden_dir() + "/" + g.name + ".vpcat";
    const std::string options = vp::catalog::read_catalog_file(file).provenance.options;
    CHECK(options.find("pattern_budget=") != std::string::npos);
    vp::test::RunResult r = run(kTool + " validate " + file + against(g));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == file + ": valid catalog, matches the analysis of " + source(g) + " (options " + options + ")\n");
    CHECK(r.err.empty());
    const std::string mirror = golden_dir() + "/" + g.name + ".json";
    if (!fs::exists(mirror)) continue;
    r = run(kTool + " validate " + mirror + against(g));
    CHECK(r.exit_code == 0);
    CHECK(r.out == mirror + ": valid catalog, matches the analysis of " + source(g) + " (options " + options + ")\n");
  }
}

TEST_CASE("golden: a catalog checked against another machine differs in topology, orbits and channels") {
  const Golden node = find("pcie-gen4-2s4sw8g"), other = find("azure-ndv2-topo");
  const std::string file = golden_dir() + "/pcie-gen4-2s4sw8g.vpcat";
  const vp::test::RunResult r = run(kTool + " validate " + file + against(other));
  CHECK(r.exit_code == 3);
  CHECK(r.out.empty());
  const std::string head = "vp-catalog: error: " + file + ": does not match the analysis of " + other.input +
                           " (options pattern_budget=20000000): the topology, the orbits and the channels differ (";
  CHECK(first_line(r.err).rfind(head, 0) == 0);
  CHECK(first_line(r.err).find(" differences; A: " + file + ", B: the analysis)") != std::string::npos);
  CHECK(r.err.find("\n  node type \"pcie-gen4-2s4sw8g\": only in A\n") != std::string::npos);
  CHECK(r.err.find("\n  node type \"azure-ndv2-topo\": only in B\n") != std::string::npos);
}

TEST_CASE("golden: a changed device of the same machine is one topology difference, named") {
  vp::test::TempDir dir;
  const Golden node = find("pcie-gen4-2s4sw8g");
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(node.input));
  bool changed = false;
  for (nlohmann::json& c : doc["components"])
    if (c.value("device_name", "") == "cuda3") {
      c["device_name"] = "cuda9";
      changed = true;
    }
  REQUIRE(changed);
  const std::string input = dir.write("pcie-gen4-2s4sw8g.json", doc.dump(1));
  const std::string file = golden_dir() + "/pcie-gen4-2s4sw8g.vpcat";
  const vp::test::RunResult r = run(kTool + " validate " + file + " --against " + input);
  CHECK(r.exit_code == 3);
  const std::string digest_line = r.err.substr(r.err.find("\n  provenance: input_digest") + 1);
  CHECK(r.err == "vp-catalog: error: " + file + ": does not match the analysis of " + input +
                     " (options pattern_budget=20000000): the topology differs (2 differences; A: " + file +
                     ", B: the analysis)\n"
                     "  node type \"pcie-gen4-2s4sw8g\": component 11 (gpu3): device_name \"cuda3\" -> \"cuda9\"\n" +
                     digest_line);
  CHECK(digest_line.rfind("  provenance: input_digest \"sha256:", 0) == 0);
}

TEST_CASE("golden: a cluster's catalog checked without its cluster says so") {
  const Golden g = find("pcie-gen4-2s4sw8g-4n-switch");
  const std::string file = golden_dir() + "/" + g.name + ".vpcat";
  const vp::test::RunResult r = run(kTool + " validate " + file + " --against " + g.input);
  CHECK(r.exit_code == 3);
  CHECK(first_line(r.err).rfind("vp-catalog: error: " + file + ": does not match the analysis of " + g.input +
                                    " (options pattern_budget=20000000): the topology and the orbits differ (",
                                0) == 0);
  CHECK(r.err.find("\n  fabric: kind single_switch -> none\n") != std::string::npos);
  CHECK(
      r.err.find("\n  (the catalog has 4 nodes and records no --nodes shortcut: give its cluster with --cluster)\n") !=
      std::string::npos);
}

TEST_CASE("golden: the recorded options are replayed, and checked") {
  vp::test::TempDir dir;
  const Golden g = find("pcie-gen4-2s4sw8g-2n-rail-options");
  const std::string recorded =
      vp::catalog::read_catalog_file(golden_dir() + "/" + g.name + ".vpcat").provenance.options;
  REQUIRE(
      recorded ==
      "fabric=rail;nodes=2;oversubscription=1;pattern_budget=100000;set.pcie.gen4=22;set.root_complex_p2p_factor=0.5");

  // The same catalog claiming the default budget: a full search finds more channels.
  std::string options = recorded;
  options.replace(options.find("pattern_budget=100000"), 21, "pattern_budget=20000000");
  std::string file = with_options(dir, g.name, options);
  vp::test::RunResult r = run(kTool + " validate " + file + against(g));
  CHECK(r.exit_code == 3);
  CHECK(first_line(r.err).rfind("vp-catalog: error: " + file + ": does not match the analysis of " + source(g) +
                                    " (options " + options + "): the channels differ (",
                                0) == 0);
  CHECK(r.err.find("\n  node type \"pcie-gen4-2s4sw8g\": 102 pattern orbits -> 511\n") != std::string::npos);

  // Claiming no capacity override: the capacities (and the default table) differ.
  options = "fabric=rail;nodes=2;oversubscription=1;pattern_budget=100000";
  file = with_options(dir, g.name, options);
  r = run(kTool + " validate " + file + against(g));
  CHECK(r.exit_code == 3);
  CHECK(first_line(r.err).find("): the topology") != std::string::npos);
  CHECK(r.err.find("\n  default pcie.gen4: value 22 -> 24\n") != std::string::npos);

  // The same options in another order: the analysis matches, the text does not.
  options =
      "set.root_complex_p2p_factor=0.5;set.pcie.gen4=22;pattern_budget=100000;oversubscription=1;nodes=2;fabric=rail";
  file = with_options(dir, g.name, options);
  r = run(kTool + " validate " + file + against(g));
  CHECK(r.exit_code == 3);
  CHECK(r.err == "vp-catalog: error: " + file + ": does not match the analysis of " + source(g) + " (options " +
                     options + "): the options differ (1 difference; A: " + file +
                     ", B: the analysis)\n  provenance: options \"" + options + "\" -> \"" + recorded + "\"\n");

  // Options vp-analyze never writes: an invalid catalog, never a crash or a huge analysis.
  struct Bad {
    std::string options, why;
  };
  for (const Bad& b : {Bad{"pattern_budget=-1", "pattern_budget=-1: not an integer in [1, 2^50]"},
                       Bad{"pattern_budget=1e300", "pattern_budget=1e300: not an integer in [1, 2^50]"},
                       Bad{"nodes=4294967297;pattern_budget=100", "nodes=4294967297: not an integer in [2, 1000000]"},
                       Bad{"pattern_budget=100;pattern_budget=200", "key pattern_budget appears twice"},
                       Bad{"pattern_budget=100;colour=blue", "unknown key colour"},
                       Bad{"set.pcie.gen4=nan", "set.pcie.gen4=nan: not a finite number"},
                       Bad{"pattern_budget=100;;", "an empty entry (entries are KEY=VALUE joined by ';')"}}) {
    CAPTURE(b.options);
    file = with_options(dir, g.name, b.options);
    r = run(kTool + " validate " + file + against(g));
    CHECK(r.exit_code == 3);
    CHECK(r.err == "vp-catalog: error: " + file + ": cannot replay the analysis: provenance options \"" + b.options +
                       "\": " + b.why + "\n");
  }
}

TEST_CASE("golden: unreadable files exit 2, an invalid catalog 3, before any analysis") {
  const Golden g = find("azure-ndv2-topo");
  const std::string file = golden_dir() + "/" + g.name + ".vpcat";
  vp::test::RunResult r = run(kTool + " validate /no/such.vpcat" + against(g));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-catalog: error: /no/such.vpcat: cannot read the file (open: No such file or directory)\n");
  r = run(kTool + " validate " + file + " --against /no/such-topology.xml");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("vp-catalog: error: /no/such-topology.xml", 0) == 0);
  r = run(kTool + " validate " + file + " --against " + g.input + " --cluster /no/such.cluster.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("vp-catalog: error: /no/such.cluster.json", 0) == 0);
  const std::string corrupt = vp::test::fixture("corrupt/bad-route.vpcat");
  r = run(kTool + " validate " + corrupt + against(g));
  CHECK(r.exit_code == 3);
  CHECK(r.err.rfind("vp-catalog: error: " + corrupt + ": section 'route_hops' at offset 0xd88: malformed route", 0) ==
        0);
}
